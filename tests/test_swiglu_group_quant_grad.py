"""aclnnSwigluGroupQuantGrad (specs/swiglu_group_quant_grad.py): SwigluGroupGrad's split op with gradWeight masked
past the row count too (`Split(masks=...)`) and the counts summed as the kernel's uint32 (`Split(rows_sum=
"uint32")`), on the NumPy and C backends (Ascend 950 only: no Ascend C), against PyTorch's float64 autograd of the
forward written in torch; and the two Split arguments refused where misused.  Expected values come from autograd of
the forward and a row count written here (Python integers modulo 2**32), never from the spec's backward."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from codegen.errors import SpecError
from codegen.loader import load_spec_file

from .kernels import kernel
from .test_swiglu_group_grad import _autograd as autograd_unmasked

torch = pytest.importorskip("torch")

SPEC = Path(__file__).resolve().parents[1] / "specs" / "swiglu_group_quant_grad.py"
P = "ascend950"


def _trunc(counts, rows):
    """The kernel's truncValue: uint32 groupTokenSum += (uint32)count, then min(sum, rows)."""
    if counts is None:
        return rows
    total = 0
    for v in counts.tolist():
        total = (total + (v & 0xFFFFFFFF)) & 0xFFFFFFFF
    return min(total, rows)


def _autograd(x, g, w, c, counts):
    """(gradX, gradWeight, y) of Σ gradY·w·SiLU(x0')·x1' in float64 (SwigluGroupGrad's test's autograd: the same
    forward, -1 clamping nothing as 0 does there), both gradients' rows from trunc on 0."""
    gx, gw, y = autograd_unmasked(x, g, w, c, None)
    gx, gw = gx.reshape(-1, x.shape[-1]).copy(), gw.reshape(-1).copy()
    t = _trunc(counts, gx.shape[0])
    gx[t:], gw[t:] = 0, 0
    return gx.reshape(x.shape), gw.reshape(x.shape[:-1]), y


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_both_outputs_match_autograd(backend):
    """1-D to 3-D, with and without the clamp (-1: off), the weight [T] or [T, 1] or absent; row counts below and
    above the rows, a negative one wrapping to every row, one wrapping back to 2 rows, an empty groupIndex (0 rows)."""
    k = kernel("swiglu_group_quant_grad", backend=backend)
    rng = np.random.default_rng(11)
    for shape in [(5, 12), (2, 3, 8), (6,)]:
        rows, h = shape[:-1], shape[-1] // 2
        x = (rng.standard_normal(shape) * 3).astype(np.float32)
        g = rng.uniform(-2, 2, rows + (h,)).astype(np.float32)
        w = rng.uniform(-1, 1, rows or (1,)).astype(np.float32).reshape(rows)
        calls = [(None, None), (np.array([1, 2], np.int64), w), (np.array([99], np.int64), w.reshape(rows + (1,))),
                 (np.array([-3], np.int64), w), (np.array([5, -3], np.int64), w), (np.array([], np.int64), w),
                 (np.array([2**32 + 1], np.int64), w), (None, w)]
        for c in (-1.0, 1.5):
            for counts, weight in calls:
                gx_want, gw_want, y = _autograd(x, g, weight, c, counts)
                yo = None if weight is None else y.astype(np.float32)
                gx, gw = k(grad_y=g, x=x, weight_optional=weight, y_origin_optional=yo,
                           group_index_optional=counts, clamp_limit=c, product=P)
                np.testing.assert_allclose(gx, gx_want, rtol=3e-6, atol=3e-6)
                if weight is None:
                    assert gw is None   # not computed: nothing to differentiate
                else:
                    assert gw.shape == weight.shape and gw.dtype == np.float32
                    np.testing.assert_allclose(gw.reshape(rows), gw_want, rtol=3e-6, atol=3e-6)
    xb, gb = x.astype(np.float16), g.astype(np.float16)   # FLOAT16: computed in FLOAT, rounded once
    gx, gw = k(grad_y=gb, x=xb, weight_optional=None, y_origin_optional=None,
               group_index_optional=np.array([-1], np.int64), clamp_limit=1.5, product=P)
    want, _, _ = _autograd(xb.astype(np.float32), gb.astype(np.float32), None, 1.5, np.array([-1], np.int64))
    assert gx.dtype == np.float16 and gw is None
    np.testing.assert_allclose(gx.astype(np.float32), want, rtol=2 ** -10, atol=1e-4)


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_clamp_limit_rule(backend):
    """-1 and c > 0 pass; 0, -0.5 and nan are ACLNN_ERR_PARAM_INVALID naming clampLimit."""
    from codegen import AclnnError
    k = kernel("swiglu_group_quant_grad", backend=backend)
    x, g = np.ones((2, 4), np.float32), np.ones((2, 2), np.float32)
    for c in (-1.0, 0.25):
        k(grad_y=g, x=x, weight_optional=None, y_origin_optional=None, group_index_optional=None, clamp_limit=c,
          product=P)
    for c in (0.0, -0.5, float("nan")):
        with pytest.raises(AclnnError) as e:
            k(grad_y=g, x=x, weight_optional=None, y_origin_optional=None, group_index_optional=None,
              clamp_limit=c, product=P)
        assert e.value.status == 161002 and e.value.param == "clampLimit"


def _variant(tmp_path, old, new):
    text = SPEC.read_text()
    assert old in text
    path = tmp_path / "swiglu_group_quant_grad.py"
    path.write_text(text.replace(old, new))
    return path


SPLIT = 'masks=("gradWeightOutOptional",), rows_sum="uint32")'


@pytest.mark.parametrize("new,says", [
    ('masks=("gradXOut",), rows_sum="uint32")', "no extra output"),
    ('masks=("nothing",), rows_sum="uint32")', "no extra output"),
    ('masks="gradWeightOutOptional", rows_sum="uint32")', "must be a tuple"),
    ('masks=("gradWeightOutOptional",), rows_sum="int32")', "rows_sum 'int32' must be one of"),
])
def test_split_arguments_misused_are_refused(tmp_path, new, says):
    """masks= names only extra outputs (a tuple), rows_sum= one of the sums the runtimes implement."""
    with pytest.raises(SpecError) as e:
        load_spec_file(_variant(tmp_path, SPLIT, new))
    assert "aclnnSwigluGroupQuantGrad" in str(e.value) and says in str(e.value)

