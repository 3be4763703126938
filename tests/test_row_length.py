"""A row's length as a row sum, `DimSum(1)` along a fixed axis (tests/row_length_specs/rms_norm_grad_x.py, RMSNorm's
mean square), written from the README as a newcomer would: the spec loads (the vocabulary check crashed on
DimSum(1), which SymPy calls a number), proves, and its kernels match PyTorch's autograd of the forward; and the
accuracy run's broadcast layouts are calls the spec's rules accept (dy and x tied by ShapeSame stay whole beside a
broadcast gamma: the run cut x and reported 'a valid call was refused').  Along an int64 attribute's dim
(rms_norm_grad.py, reduce_dim="dim") the row's length is the broadcast shape's extent along the call's dim, a count
every backend computes per call (codegen.spec.functions.ROW_AXIS): proven, and its NumPy, C and Ascend C kernels
match PyTorch along dim -1, 0 and a middle dim, rows of 1, 7 and 5000 (two Ascend C tiles), in FLOAT, FLOAT16 and
BFLOAT16, and at rank 0 and 8; a fixed axis from the end (reduce_dim=-1) takes the same count."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import codegen
from codegen.accuracy import inputs
from codegen.verify import verify_op

from .kernels import spec_kernel

SPECS = Path(__file__).parent / "row_length_specs"


@pytest.mark.parametrize("name", ["rms_norm_grad_x", "rms_norm_grad"])
def test_a_rows_length_proves(name):
    results = verify_op(codegen.load_specs(SPECS)[name])
    assert results and all(r.ok for r in results), [str(r) for r in results]


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_a_rows_length_kernel_against_pytorch(backend):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    x, g = (rng.standard_normal((6, 1000)).astype(np.float32) for _ in range(2))
    w = rng.standard_normal(1000).astype(np.float32)
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    y = xt * torch.tensor(w, dtype=torch.float64) / torch.sqrt((xt ** 2).mean(1, keepdim=True) + 1e-6)
    (want,) = torch.autograd.grad(y, xt, torch.tensor(g, dtype=torch.float64))
    got = spec_kernel("rms_norm_grad_x", backend=backend, specs_dir=SPECS)(dy=g, x=x, gamma=w, epsilon=1e-6)
    # FLOAT arithmetic on a difference that cancels where its two terms meet: judged against the size of the terms
    terms = np.abs(g * w) * 3 + np.abs(want.numpy())
    assert np.all(np.abs(got - want.numpy()) <= 2e-6 * terms)


def test_broadcast_layouts_are_calls_the_rules_accept():
    op = codegen.load_specs(SPECS)["rms_norm_grad_x"]
    kernel = spec_kernel("rms_norm_grad_x", specs_dir=SPECS)
    layouts = [s for s in inputs.samples(op, "FLOAT") if s.group.startswith("layout: broadcast")]
    assert layouts and all(s.kw["x"].shape == s.kw["dy"].shape for s in layouts)
    for s in layouts:
        kernel(**s.kw)   # raises codegen.AclnnError if the checker refuses the call


def _rms_norm_grad(x, g, w, dim, eps=1e-6):
    """PyTorch autograd of RMSNorm's forward along `dim`, in float64: the gradient w.r.t. x."""
    import torch
    xt = torch.tensor(x.astype(np.float64), requires_grad=True)
    y = xt * torch.tensor(w.astype(np.float64)) / torch.sqrt((xt ** 2).mean(dim, keepdim=True) + eps)
    (want,) = torch.autograd.grad(y, xt, torch.tensor(g.astype(np.float64)))
    return want.numpy()


def _terms(x, g, w, dim, eps=1e-6):
    """The size of the backward's two terms, each with its row sum of absolute values (the sum of 5000 products
    in FLOAT is off by a part of that, not of the sum, which cancels): g*gamma/r and x*sum|g*gamma*x|/(n*r^3)."""
    x, g, w = (a.astype(np.float64) for a in (x, g, w))
    r = np.sqrt((x ** 2).mean(dim, keepdims=True) + eps)
    return np.abs(g * w / r) + np.abs(x) * np.abs(g * w * x).sum(dim, keepdims=True) / (x.shape[dim] * r ** 3)


def _calls(dtype, seed=11):
    """(dim, x, dy, gamma) along dim -1, 0 and the middle dim of a 3-D tensor, rows of 1, 7 and 5000; gamma has
    the row's shape, broadcast along the other dims."""
    rng = np.random.default_rng(seed)
    for dim in (-1, 0, 1):
        for n in (1, 7, 5000):
            shape = [2, 3, 2]
            shape[dim] = n
            x, g = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
            along = [1, 1, 1]
            along[dim] = n
            yield dim, x, g, rng.standard_normal(along).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("backend", ["numpy", "c", "ascendc"])
def test_a_rows_length_along_an_attribute_dim_against_pytorch(backend, dtype):
    pytest.importorskip("torch")
    import ml_dtypes
    dt = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    kernel = spec_kernel("rms_norm_grad", backend=backend, specs_dir=SPECS)
    # the fixed-axis test's bound (2e-6 of the terms in FLOAT, 16.8 epsilons), scaled to the dtype's epsilon
    tol = 2e-6 / float(np.finfo(np.float32).eps) * float(ml_dtypes.finfo(dt).eps)
    for dim, x, g, w in _calls(dt):
        got = kernel(dy=g, x=x, gamma=w, epsilon=1e-6, dim=dim)
        assert got.dtype == dt and got.shape == x.shape
        err = np.abs(got.astype(np.float64) - _rms_norm_grad(x, g, w, dim))
        terms = _terms(x, g, w, dim)
        assert np.all(err <= tol * terms), (dim, x.shape, float(np.max(err / terms)))


@pytest.mark.parametrize("backend", ["numpy", "c", "ascendc"])
def test_a_rows_length_at_rank_0_and_8(backend):
    """A rank-0 call's row is its one element (its shape counts as (1,), dim 0 or -1); rank 8 along dim 6 and -5;
    a dim past the rank is the checker's 161002."""
    pytest.importorskip("torch")
    kernel = spec_kernel("rms_norm_grad", backend=backend, specs_dir=SPECS)
    rng = np.random.default_rng(2)
    for shape, dim in [((), 0), ((), -1), ((2, 1, 3, 1, 2, 1, 3, 2), 6), ((2, 1, 3, 1, 2, 1, 3, 2), -5)]:
        x, g, w = (rng.standard_normal(shape).astype(np.float32) for _ in range(3))
        got = kernel(dy=g, x=x, gamma=w, epsilon=1e-6, dim=dim)
        assert np.shape(got) == shape
        x, g, w = (np.reshape(a, shape or (1,)) for a in (x, g, w))   # (the oracle's rank-0 row: one element)
        err = np.abs(np.reshape(got, shape or (1,)) - _rms_norm_grad(x, g, w, dim))
        assert np.all(err <= 2e-6 * _terms(x, g, w, dim)), (shape, dim)
    with pytest.raises(codegen.AclnnError) as e:
        kernel(dy=g[0], x=x[0], gamma=w[0], epsilon=1e-6, dim=7)   # rank 7: dim in [-7, 6]
    assert e.value.status == 161002 and e.value.param == "dim"


def test_long_rows_span_several_ascendc_tiles():
    """The row of 5000 the test above runs on Ascend C is two tiles of one row: the row sums and the count meet."""
    from codegen.backends.ascendc.binding import run_kernel
    from codegen.backends.ascendc.plan import plan
    from codegen.backends.numpy import load_module
    from codegen.runtime.checks import Allocate
    op = codegen.load_specs(SPECS)["rms_norm_grad"]
    dim, x, g, w = list(_calls(np.float32))[2]
    assert (dim, x.shape[dim]) == (-1, 5000)
    call = dict(dy=g, x=x, gamma=w, epsilon=1e-6, dim=dim)
    call.update(load_module(op).check(g, x, w, 1e-6, dim, Allocate("FLOAT"), "ascend910b"))
    report = {}
    got = run_kernel(op, plan(op), call, x.shape, "FLOAT", "ascend910b", report=report)
    assert report["rowLength"] == 5000 and report["tilesPerRow"] >= 2, report
    assert np.all(np.abs(got - _rms_norm_grad(x, g, w, dim)) <= 2e-6 * _terms(x, g, w, dim))


@pytest.mark.parametrize("backend", ["numpy", "c", "ascendc"])
def test_a_rows_length_along_a_fixed_axis_from_the_end(tmp_path, backend):
    """reduce_dim=-1 (as ScaledMaskedSoftmax's): the row's length is the same count along the call's dim."""
    pytest.importorskip("torch")
    text = (SPECS / "rms_norm_grad_x.py").read_text()
    assert "reduce_dim=1," in text
    (tmp_path / "rms_norm_grad_x.py").write_text(text.replace("reduce_dim=1,", "reduce_dim=-1,"))
    kernel = spec_kernel("rms_norm_grad_x", backend=backend, specs_dir=tmp_path)
    rng = np.random.default_rng(3)
    x, g = (rng.standard_normal((4, 9)).astype(np.float32) for _ in range(2))
    w = rng.standard_normal(9).astype(np.float32)
    got = kernel(dy=g, x=x, gamma=w, epsilon=1e-6)
    assert np.all(np.abs(got - _rms_norm_grad(x, g, w, -1)) <= 2e-6 * _terms(x, g, w, -1))


def test_a_wrong_row_length_along_an_attribute_dim_is_caught_by_the_proof(tmp_path):
    """LogSoftmax's backward divided by the row's length: it loads (once refused when the spec loaded), and the
    proof finds it wrong."""
    text = (Path(__file__).parents[1] / "specs" / "log_softmax_backward.py").read_text()
    old = "backward=g - exp(y) * DimSum(g),"
    assert old in text
    (tmp_path / "log_softmax_backward.py").write_text(text.replace(old, "backward=g - exp(y) * DimSum(g) / DimSum(1),"))
    results = verify_op(codegen.load_specs(tmp_path)["log_softmax_backward"])
    assert any(not r.ok for r in results), [str(r) for r in results]
