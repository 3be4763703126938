"""A row reduction with a BOOL mask (ScaledMaskedSoftmaxBackward's shape, tests/coupled_masks/): the proof reads
the mask as a 0/1 number and its complement as a 0/1 symbol of its own (codegen.verify.proof._select_arithmetic).
Written 1 - m, the row sums split in two and the general-length proof did not finish in 15 minutes."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import codegen
from codegen.verify import cases, prove

SPECS = Path(__file__).parent / "coupled_masks"


@pytest.fixture(scope="module")
def masked():
    return codegen.load_specs(SPECS)["masked_softmax_backward"]


def test_a_masked_scaled_softmax_is_proven_for_a_general_row_length(masked):
    from codegen.verify.proof import CaseProof
    lines = CaseProof(cases(masked)[0]).coupled_general()
    assert [(r.check, r.verdict) for r in lines] == [("VJP, general row length n", "proven")], lines


@pytest.mark.deep
def test_a_masked_scaled_softmax_is_proven_on_every_check(masked):
    from codegen.verify import verify_op
    results = verify_op(masked, numeric=True)
    assert [r.verdict for r in results] == ["proven", "proven", "agrees"], results


@pytest.mark.deep   # a failing general-length proof runs simplify on the residual: ~15 s of CPU
def test_a_backward_without_the_scale_fails_on_both_proofs(masked):
    scale = masked.param("scale").symbol
    bad = dataclasses.replace(masked, backward=masked.backward.xreplace({scale: 1}))
    assert bad.backward != masked.backward
    lines = prove(cases(bad)[0])
    assert [r.verdict for r in lines] == ["FAILED", "FAILED"], lines


def test_the_accuracy_oracle_judges_a_masked_row(masked):
    """codegen.accuracy on a row reduction reading a BOOL operand: masks generated and passed as BOOL, y the
    forward of each row under its mask, the reference 0 at masked positions and PyTorch's masked softmax backward
    elsewhere; the NumPy kernel passes the oracle, the same kernel without the scale fails it (~3 s of CPU)."""
    torch = pytest.importorskip("torch")
    import numpy as np
    from codegen import backends
    from codegen.accuracy import inputs, runner
    from codegen.accuracy.dtypes import FORMATS
    from codegen.accuracy.reference import reference_for
    s = next(s for s in inputs.samples(masked, "FLOAT") if s.group == "typical")
    mask = s.kw["mask"]
    assert mask.dtype == np.bool_ and 0 < mask.sum() < mask.size
    ref, unresolved = reference_for(masked, s.kw).rounded(s.kw, s.shape, FORMATS["FLOAT"])
    t = lambda a: torch.from_numpy(np.asarray(a, np.float64))
    want = torch.ops.aten._masked_softmax_backward(t(s.kw["grad_output"]), t(s.kw["y"]), torch.from_numpy(mask),
                                                   -1).numpy() * s.kw["scale"]
    assert not unresolved.any() and (ref[mask] == 0).all()
    np.testing.assert_allclose(ref, want, rtol=1e-6, atol=1e-7)
    good = backends.get("numpy").make_kernel(masked)
    unscaled = lambda **kw: good(**dict(kw, scale=1.0))
    for kernel, passes in ((good, True), (unscaled, False)):
        (r,) = runner.run({"masked": masked}, ["numpy"], dtypes=["FLOAT"], log=lambda m: None, use_torch=False,
                          kernels={("masked", "numpy"): kernel})
        assert (r.oracle_passed and not r.n_failures and r.judged > 0) == passes, (r.failures, r.beyond)
