"""Class-index ops with a row along the class axis (codegen.spec.classes.has_rows, codegen.verify.class_rows).

specs/cross_entropy_loss_grad.py states CrossEntropyLossGrad's mathematics: the gradient w.r.t. the logits of the
weighted cross-entropy with label smoothing, from logProb = log_softmax(x) (`holds=`), the target's weight gathered
at every class (a DimSum of a one-hot) and the mean's divisor summed over the grid (`GridSum`).  Its proof is
checked here with a wrong backward; every backend emits it (row sums on the grid, a DimSum of a null weight's
default, the GridSum divisor in a pass before the kernel), and the kernels agree with PyTorch's autograd here; the
per-op tests and the differential oracle (codegen.accuracy) cover it like any op.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from codegen.spec import CLASS, DimSum, Eq, Formula, Piecewise
from codegen.verify import cases, prove
from codegen.verify.class_rows import check_rows

SPEC = Path(__file__).parents[1] / "specs" / "cross_entropy_loss_grad.py"


@pytest.fixture(scope="module")
def ce():
    from codegen.loader import load_spec_file
    return load_spec_file(SPEC)


def _mean_with_weight(op):
    return next(c for c in cases(op) if c.reduction == "mean" and c.variant.key["weightOptional"] != "absent")


def test_the_weighted_mean_is_proven_on_every_row_and_agrees_in_mpmath(ce):
    case = _mean_with_weight(ce)
    lines = prove(case)
    assert [(r.check, r.verdict) for r in lines] == [("VJP, general row length n", "proven"),
                                                     ("VJP, rows of length 1..4", "proven")], lines
    assert "at and off the target, kept and ignored" in lines[0].detail
    assert check_rows(case).verdict == "agrees"


def test_a_backward_without_the_gather_fails_with_the_row_named(ce):
    """weight at the element's own class instead of weight[target]: right on a row of one class only."""
    t, w = ce.param("target").symbol, ce.param("weightOptional").symbol
    gathered = DimSum(Piecewise((w, Eq(CLASS, t)), (0, True)))
    wrong = ce.formulas[1].expr.xreplace({gathered: w})
    assert wrong != ce.formulas[1].expr
    forms = [Formula(wrong, when={"reductionOptional": m}) for m in ("none", "sum")] + [ce.formulas[2]]
    bad = dataclasses.replace(ce, backward=forms)
    case = next(c for c in cases(bad) if c.reduction == "sum" and c.variant.key["weightOptional"] != "absent")
    general, explicit = prove(case)
    assert general.verdict == "FAILED" and "off the target" in general.detail, general
    assert "weightOptional[t]" in general.detail and "weightOptional[j]" in general.detail
    assert explicit.verdict == "FAILED" and "length 2" in explicit.detail, explicit
    assert check_rows(case).verdict == "FAILED"


def test_the_numpy_kernel_agrees_with_pytorch_autograd(ce):
    _agrees_with_pytorch(ce, "numpy")


@pytest.mark.deep
@pytest.mark.parametrize("backend", ["c", "ascendc"])
def test_the_c_and_ascendc_kernels_agree_with_pytorch_autograd(ce, backend):
    _agrees_with_pytorch(ce, backend)


@pytest.mark.deep
@pytest.mark.parametrize("backend", ["c", "ascendc"])
def test_half_inputs_views_and_bad_shapes_as_the_numpy_kernel(ce, backend):
    """FLOAT16 and BFLOAT16 in and out, a strided logProb, a mean over a grid the C runtime walks in blocks: the
    NumPy kernel's values (itself checked against PyTorch above) within one ulp of the output dtype; a gradLoss
    of the wrong shape for reduction none is the same 161002 from both checkers."""
    import ml_dtypes
    import numpy as np
    from codegen import AclnnError, backends
    ours, ref = backends.get(backend).make_kernel(ce), backends.get("numpy").make_kernel(ce)
    rng = np.random.default_rng(5)
    for dtype, (n, c) in [(np.float16, (37, 300)), (ml_dtypes.bfloat16, (5, 9))]:
        x = rng.normal(size=(n, 2 * c)) * 2
        log_prob = (x - np.log(np.exp(x).sum(1, keepdims=True))).astype(dtype)[:, ::2]   # a strided view
        t = rng.integers(0, c, n)
        t[::4] = -100
        kw = dict(grad_loss=np.array(0.5, dtype), log_prob=log_prob, target=t,
                  weight_optional=rng.uniform(0.1, 2, c).astype(np.float32), grad_zloss_optional=None,
                  lse_for_zloss_optional=None, reduction_optional="mean", ignore_index=-100, label_smoothing=0.1,
                  lse_square_scale_for_zloss=0.0)
        got, want = ours(**kw), ref(**kw)
        assert got.dtype == want.dtype == dtype
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=2 * float(ml_dtypes.finfo(dtype).eps),
                                   atol=float(ml_dtypes.finfo(dtype).tiny))
    kw.update(reduction_optional="none", grad_loss=np.ones(n + 1, dtype))
    errors = []
    for k in (ours, ref):
        with pytest.raises(AclnnError) as e:
            k(**kw)
        errors.append((e.value.status, e.value.param))
    assert errors[0] == errors[1] == (161002, "gradLoss"), errors


@pytest.mark.deep
def test_the_differential_oracle_passes_every_backend_and_dtype(ce):
    """codegen.accuracy on the class rows: logProb held (inverted at row sums 1), the GridSum divisor summed
    exactly, a row's gradient one number; samples of every reduction, weight present and absent."""
    from codegen.accuracy import oracle
    records = oracle.check({"cross_entropy_loss_grad": ce})
    assert len(records) == 9 and not oracle.failed(records), [oracle.describe(r) for r in oracle.failed(records)]
    assert all(r.judged > 1000 for r in records), [(r.backend, r.dtype, r.judged) for r in records]


def _agrees_with_pytorch(ce, backend):
    """Against autograd of F.cross_entropy w.r.t. the logits (float64), logProb its log_softmax rounded to FLOAT:
    every reduction, with and without weight, with label smoothing, a sample ignored, a row of one class."""
    import numpy as np
    torch = pytest.importorskip("torch")
    from codegen import backends
    kernel = backends.get(backend).make_kernel(ce)
    rng = np.random.default_rng(3)
    for (n, c), reduction, weighted, ls in [((5, 7), "mean", True, 0.0), ((5, 7), "mean", False, 0.25),
                                            ((4, 3), "sum", True, 0.25), ((4, 3), "none", False, 0.0),
                                            ((3, 1), "mean", True, 0.0), ((6, 4), "none", True, 0.5)]:
        x = torch.tensor(rng.normal(size=(n, c)) * 3, requires_grad=True)
        t = rng.integers(0, c, size=n)
        t[1] = -100   # ignoreIndex
        w = rng.uniform(0.1, 2, size=c).astype(np.float32) if weighted else None
        g = rng.normal(size=n if reduction == "none" else ()).astype(np.float32)
        torch.nn.functional.cross_entropy(x, torch.tensor(t), weight=None if w is None else torch.tensor(w, dtype=x.dtype),
                                          reduction=reduction, label_smoothing=ls).backward(torch.tensor(g, dtype=x.dtype))
        log_prob = torch.log_softmax(x.detach(), 1).numpy().astype(np.float32)
        got = kernel(grad_loss=g, log_prob=log_prob, target=t, weight_optional=w, grad_zloss_optional=None,
                     lse_for_zloss_optional=None, reduction_optional=reduction, ignore_index=-100,
                     label_smoothing=ls, lse_square_scale_for_zloss=0.0)
        want = x.grad.numpy()
        assert got.dtype == np.float32 and not got[1].any()
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6 * np.abs(want).max(),
                                   err_msg=f"{(n, c)} {reduction} weighted={weighted} ls={ls}")


@pytest.mark.deep
def test_every_case_is_proven_and_agrees(ce):
    from codegen.verify import verify_op
    results = verify_op(ce, numeric=True)
    assert len(results) == 18 and all(r.ok for r in results), [r for r in results if not r.ok]
