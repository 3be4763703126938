"""FormatNotPrivate: the private formats CANN's op::IsPrivateFormat names (opbase's format_utils.cpp, written out
here as a second source) are refused on every tensor the rule names, with 161002 naming it, by every backend's
checker; every other format passes (KlDivTargetBackward, the op that checks it)."""
from __future__ import annotations

import numpy as np
import pytest

import codegen
from codegen.spec.formats import FORMATS

PRIVATE = {"NC1HWC0", "FRACTAL_Z", "NDC1HWC0", "FRACTAL_Z_3D", "FRACTAL_NZ", "NC1HWC0_C04", "FRACTAL_NZ_C0_16",
           "FRACTAL_NZ_C0_32", "FRACTAL_NZ_C0_2", "FRACTAL_NZ_C0_4", "FRACTAL_NZ_C0_8"}
TENSORS = {"gradOutput": "grad_output", "self": "self", "target": "target", "gradTarget": "out"}


def test_the_language_names_the_same_private_formats():
    from codegen.spec.formats import PRIVATE_FORMATS
    assert set(PRIVATE_FORMATS) == PRIVATE and PRIVATE < set(FORMATS)


@pytest.mark.parametrize("backend", ["numpy", "c", "ascendc"])
def test_private_formats_are_refused_on_each_tensor_and_public_ones_pass(backend):
    k = codegen.kernel("kl_div_target_backward", backend=backend)
    rng = np.random.default_rng(0)
    call = dict(grad_output=rng.uniform(-1, 1, (2, 3)).astype(np.float32),
                self=rng.uniform(-1, 1, (2, 3)).astype(np.float32),
                target=rng.uniform(0.5, 2, (2, 3)).astype(np.float32), reduction=0, log_target=False,
                out=np.zeros((2, 3), np.float32))
    want = k(**{**call, "out": None})
    for fmt in sorted(FORMATS):
        for name, kw in TENSORS.items():
            bad = {**call, kw: codegen.with_format(call[kw], fmt)}
            if fmt in PRIVATE:
                with pytest.raises(codegen.AclnnError) as info:
                    k(**bad)
                assert (info.value.status, info.value.param) == (161002, name), (fmt, name)
                assert "private format" in str(info.value)
            else:
                np.testing.assert_array_equal(k(**bad), want, err_msg=f"{fmt} on {name}")
