"""Edge values through the NumPy kernels: huge and tiny magnitudes, subnormals, ±0, ±inf and nan.

Finite inputs are judged against the forward's mpmath derivative (tests/reference.py); infinities and nan
against PyTorch's autograd of the same forward in float64 (skipped without PyTorch), i.e. the limits PyTorch
users get.  FLOAT results are judged in ulps too: a finite true result must never come back inf or nan.
"""
from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

import codegen

from . import reference
from .ulp import ulp_distance
from .kernels import kernel   # (each op's kernel made once per process)

FINITE = [0.0, -0.0, 1e-45, -1e-45, 1e-38, -1e-38, 1e-8, -1e-8, 0.5, -0.5, 1.2, -1.2, 20.0, -20.0, 87.0,
          -87.0, 89.0, -89.0, 104.0, -104.0, 1e4, -1e4, 1e30, -1e30, 3.4e38, -3.4e38]
SPECIAL = [np.inf, -np.inf, np.nan]
DTYPES = {"FLOAT": np.float32, "FLOAT16": np.float16, "BFLOAT16": ml_dtypes.bfloat16}


def _kw_elementwise(name, x, g):
    return {
        "log_sigmoid_backward": dict(grad_output=g, self=x, buffer=x),
        "softshrink_backward": dict(grad_output=g, self=x, lambd=0.5),
        "elu_backward": dict(grad_output=g, self_or_result=x, alpha=1.5, scale=1.25, input_scale=0.75,
                             is_result=False),
        "binary_cross_entropy_with_logits_backward": dict(
            grad_output=g, self=x, target=np.full_like(x, 0.25), weight_optional=np.full_like(x, 1.5),
            pos_weight_optional=np.full_like(x, 2.0), reduction=0),
    }[name]


ELEMENTWISE = ["log_sigmoid_backward", "softshrink_backward", "elu_backward",
               "binary_cross_entropy_with_logits_backward"]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name", ELEMENTWISE)
def test_finite_extremes_match_the_forward_derivative(ops, name, dtype):
    t = DTYPES[dtype]
    products = [p for p, dts in ops[name].dtypes.items() if dtype in dts]
    if not products:
        pytest.skip(f"{name} has no {dtype} kernel")
    with np.errstate(over="ignore"):
        x = np.array(FINITE, dtype=np.float64).astype(t)
    x = x[np.isfinite(x.astype(np.float32))]
    g = np.ones_like(x)
    kw = _kw_elementwise(name, x, g)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning may escape a kernel
        got = kernel(name)(**kw)
    ref = reference.to_float(reference.vjp(ops[name], kw))
    finite = np.isfinite(ref) & (np.abs(ref) < float(ml_dtypes.finfo(t).max))
    assert np.all(np.isfinite(got.astype(np.float32))[finite]), f"inf/nan where the true result is finite: {x[~np.isfinite(got.astype(np.float32)) & finite]}"
    if dtype == "FLOAT":  # ascend.md §6 asks 1e-4; demand a 10x margin everywhere
        rel = np.abs(got.astype(np.float64) - ref) / np.maximum(np.abs(ref), np.finfo(np.float32).tiny)
        rel = np.where(finite, rel, 0)
        assert rel.max() <= 1e-5, f"{name}: relative error {rel.max():.3g} at x={x[rel.argmax()]}"
    else:  # FLOAT16/BFLOAT16: within 1 ulp of the correctly rounded result
        d = np.where(finite, ulp_distance(got, ref), 0)
        assert d.max() <= 1, f"{name} {dtype}: {int(d.max())} ulp at x={x[d.argmax()]}"


def _torch_forward(name, torch):
    F = torch.nn.functional
    return {
        "log_sigmoid_backward": lambda x: F.logsigmoid(x),
        "softshrink_backward": lambda x: F.softshrink(x, 0.5),
        "elu_backward": lambda x: torch.ops.aten.elu(x, 1.5, 1.25, 0.75),
        "binary_cross_entropy_with_logits_backward": lambda x: F.binary_cross_entropy_with_logits(
            x, torch.full_like(x, 0.25), weight=torch.full_like(x, 1.5), pos_weight=torch.full_like(x, 2.0),
            reduction="none"),
    }[name]


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_special_values_match_pytorch_autograd(name):
    torch = pytest.importorskip("torch")
    xs = np.array(SPECIAL + FINITE, dtype=np.float32)
    for gval in [1.0, -2.0, 0.0, np.inf, np.nan]:
        g = np.full_like(xs, gval)
        got = kernel(name)(**_kw_elementwise(name, xs, g))
        wants = []
        for t in (np.float64, np.float32):  # the exact limit, and what PyTorch gives at our compute precision
            tx = torch.tensor(xs.astype(t), requires_grad=True)
            y = _torch_forward(name, torch)(tx)
            (w,) = torch.autograd.grad(y, tx, torch.tensor(g.astype(t)))
            wants.append(w.numpy())
        for i, x in enumerate(xs):
            if name == "softshrink_backward" and np.isnan(x):
                continue  # documented difference: the spec's `|x| > λ` is false for nan (0), PyTorch passes g
            if name == "elu_backward" and np.isnan(x):
                continue  # documented difference: the spec's `x > 0` is false for nan (nan), PyTorch gives g*scale
            ok = []
            for want in wants:
                w = np.float32(want[i])
                close = ulp_distance(got[i:i + 1], want[i:i + 1]).max() <= 2  # subnormal tails: an ulp or two
                ok.append((np.isnan(got[i]) and np.isnan(w)) or got[i] == w or close)
            assert any(ok), f"{name}: x={x}, g={gval}: got {got[i]}, PyTorch autograd {[w[i] for w in wants]}"


def test_branch_point_conventions():
    """At a kink the derivative does not exist; the docs fix the value (ascend.md §4)."""
    f = np.float32
    got = kernel("softshrink_backward")(grad_output=np.array([3, 3, 3], f), self=np.array([0.5, -0.5, 0.6], f),
                                                lambd=0.5)
    assert got.tolist() == [0, 0, 3]  # |x| == λ gives 0
    got = kernel("elu_backward")(grad_output=np.array([2], f), self_or_result=np.array([0], f), alpha=1.5,
                                         scale=1.25, input_scale=0.75, is_result=False)
    assert got[0] == f(2 * 0.75 * 1.5 * 1.25)  # x == 0 takes the `<= 0` branch


def test_the_float16_store_rounds_exactly_as_numpys_cast():
    """codegen.runtime.blocks.store rounds FLOAT16 outputs with its own integer arithmetic (NumPy's cast is
    slow): the bits must be those of the plain cast — on every FLOAT16 value's float32, the float32s next to
    it, every midpoint between neighbouring FLOAT16 values and its neighbours (the ties, both signs), a sample
    of all float32 bit patterns (nan payloads, infinities, overflow, subnormals), and through a strided `out`
    and a broadcast result."""
    from codegen.runtime.blocks import store
    exact = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32).view(np.uint32)
    finite = np.arange(0x7c00, dtype=np.uint16).view(np.float16).astype(np.float64)
    mid = ((finite[:-1] + finite[1:]) / 2).astype(np.float32).view(np.uint32)
    sample = np.arange(0, 1 << 32, 4099, dtype=np.uint64).astype(np.uint32)
    bits = np.concatenate([exact, exact + 1, exact - 1, mid, mid + 1, mid - 1, sample])
    bits = np.concatenate([bits, bits ^ np.uint32(0x80000000)])
    values = bits.view(np.float32)
    ours, numpys = np.empty(values.size, np.float16), np.empty(values.size, np.float16)
    with np.errstate(all="ignore"):   # overflow to inf, both ways
        store(ours, values)
        np.copyto(numpys, values, casting="unsafe")
    wrong = ours.view(np.uint16) != numpys.view(np.uint16)
    assert not wrong.any(), f"float32 bits {bits[wrong][:5]}: {ours.view(np.uint16)[wrong][:5]} " \
                            f"vs NumPy's {numpys.view(np.uint16)[wrong][:5]}"
    strided = np.zeros((3, 8), np.float16)
    store(strided[:, ::2], np.array([1.5, 2 ** -20, -65519.0, np.nan], np.float32))
    assert np.array_equal(strided[:, ::2], np.broadcast_to(np.array([1.5, 2 ** -20, -65504.0, np.nan],
                                                                   np.float16), (3, 4)), equal_nan=True)
    assert not strided[:, 1::2].any()
    for v in (np.inf, -np.nan, 1e6, 2.0 ** -20, -1.5):   # a rank-0 out with a scalar result
        rank0, want = np.zeros((), np.float16), np.array(v, np.float32)
        with np.errstate(all="ignore"):
            store(rank0, np.float32(v))
            want = want.astype(np.float16)
        assert rank0.view(np.uint16) == want.view(np.uint16), v


def test_the_bitwise_where_gives_np_wheres_bits():
    """codegen.runtime.blocks.where replaces np.where in the kernels: same bits (nan payloads, -0.0, inf),
    same broadcasting, rank 0 included."""
    from codegen.runtime.blocks import where
    rng = np.random.default_rng(3)
    special = np.array([np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf, 1e-45, 3.4e38], dtype=np.float32)
    a = np.concatenate([special, rng.standard_normal(56).astype(np.float32)]).reshape(8, 8)
    b = a[::-1].copy()
    cond = rng.random((8, 8)) < 0.5
    cases = [(cond, a, b), (cond, a, 0), (cond, 1, b), (cond[:1], a, np.float32(-0.0)), (cond[:, :1], a[:1], b),
             (np.asarray(True), np.asarray(np.float32(2.5)), np.asarray(np.float32(-1))), (cond, 0.25, -0.0)]
    for c, x, y in cases:
        want = np.where(c, np.asarray(x, dtype=np.float32), np.asarray(y, dtype=np.float32))
        got = where(c, x, y)
        assert got.shape == want.shape and got.dtype == np.float32
        assert np.array_equal(np.asarray(got).view(np.int32), np.asarray(want).view(np.int32))
