"""Weighted means keep their bits at any weight scale (codegen.lower.ratios_first): CrossEntropyLossGrad's mean
divides by Σ weight[target], NLLLoss(2d)Backward's by totalWeight.  Weights of 2^-140 made the products
g*w*(p - onehot) subnormals of a few bits before the division (CrossEntropyLossGrad: 0.94 relative error on every
backend), and NLLLoss's 1/totalWeight overflowed (inf).  Weights uniform in ±[1/4, 1] (or mixed signs) times a
scale: a subnormal one, FLOAT's smallest normal, 1, FLOAT's largest/16 (the sum still finite); in FLOAT and the
halves (NLLLoss's weights are in the op's dtype: the scales are that dtype's).

Expected values: PyTorch's float64 autograd of the forward loss (F.cross_entropy / F.nll_loss, summed, divided by
the same exact total weight) with the same exact inputs, never the documented backward.  Judged by the dtype's
single-benchmark standard (codegen.accuracy.standards: MERE, MARE = 10 MERE)."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import codegen
from codegen.accuracy.standards import errors, relative_errors, single_ok, subnormal_range
from codegen.backends import get

torch = pytest.importorskip("torch")

OPS = codegen.load_specs()
NP = {"FLOAT": np.float32, "FLOAT16": np.float16, "BFLOAT16": ml_dtypes.bfloat16}
SMALLEST_NORMAL = {"FLOAT": 2.0 ** -126, "FLOAT16": 2.0 ** -14, "BFLOAT16": 2.0 ** -126}
SUBNORMAL = {"FLOAT": 2.0 ** -140, "FLOAT16": 2.0 ** -20, "BFLOAT16": 2.0 ** -129}   # a few bits each
N, C = 8, 5


def _scales(dtype: str) -> dict:
    return {"subnormal": SUBNORMAL[dtype], "smallest normal": SMALLEST_NORMAL[dtype], "one": 1.0,
            "largest/16": float(ml_dtypes.finfo(NP[dtype]).max) / 16}


def _weights(rng, scale, dtype, mixed):
    return ((rng.uniform(-1, 1, C) if mixed else rng.uniform(0.25, 1, C)) * scale).astype(NP[dtype])


def _f64(a):
    return torch.tensor(np.asarray(a, np.float64))


def _cross_entropy(rng, scale, dtype, mixed):
    x = rng.standard_normal((N, C))
    log_prob = (x - np.log(np.exp(x).sum(1, keepdims=True))).astype(NP[dtype])
    target = rng.integers(0, C, N)
    target[2] = -100
    w = _weights(rng, scale, "FLOAT", mixed)   # (weightOptional is FLOAT for every dtype)
    g = np.array(0.75, NP[dtype])
    kw = dict(grad_loss=g, log_prob=log_prob, target=target, weight_optional=w, grad_zloss_optional=None,
              lse_for_zloss_optional=None, reduction_optional="mean", ignore_index=-100, label_smoothing=0.0,
              lse_square_scale_for_zloss=0.0)
    logits = _f64(log_prob).requires_grad_()   # (logProb is the log_softmax of logits equal to it)
    loss = torch.nn.functional.cross_entropy(logits, torch.tensor(target), weight=_f64(w), reduction="sum")
    (loss / float(np.sum(np.asarray(w, np.float64)[target[target != -100]]))).backward(_f64(g))
    return kw, logits.grad.numpy()


def _nll(shape, samples, g_shape):
    def make(rng, scale, dtype, mixed):
        x = rng.standard_normal(shape).astype(NP[dtype])
        target = rng.integers(0, C, samples)
        target.flat[1] = -100
        w = _weights(rng, scale, dtype, mixed)
        total = np.array([np.sum(np.asarray(w, np.float64)[target[target != -100]])]).astype(NP[dtype])
        g = np.full(g_shape, 1.25, NP[dtype])
        kw = dict(grad_output=g, self=x, target=target, weight=w, reduction=1, ignore_index=-100, total_weight=total)
        xt = _f64(x).requires_grad_()
        loss = torch.nn.functional.nll_loss(xt, torch.tensor(target), weight=_f64(w), reduction="sum")
        (loss / float(total[0])).backward(_f64(g).reshape(()))
        return kw, xt.grad.numpy()
    return make


CASES = {"cross_entropy_loss_grad": _cross_entropy, "nll_loss_backward": _nll((N, C), (N,), ()),
         "nll_loss2d_backward": _nll((2, C, 2, 2), (2, 2, 2), (1,))}


def _judge(op, backend, dtypes, scales=slice(None)):
    """[(dtype, scale, signs, max relative error)] of the cases outside the dtype's standard (`scales`: a slice of
    _scales' items)."""
    k = get(backend).make_kernel(OPS[op])
    bad = []
    for dtype in dtypes:
        for name, scale in list(_scales("FLOAT" if op == "cross_entropy_loss_grad" else dtype).items())[scales]:
            for mixed in (False, True):
                kw, want = CASES[op](np.random.default_rng(7), scale, dtype, mixed)
                ref = want.astype(NP[dtype])
                got = np.asarray(k(**kw))
                tiny = SMALLEST_NORMAL[dtype]
                e = errors(relative_errors(got, ref, tiny), np.zeros(1), dtype, subnormal_range(got, ref, tiny))
                if not single_ok(e, dtype):
                    bad.append((dtype, name, "mixed" if mixed else "positive", e.max_rel))
    return bad


@pytest.mark.parametrize("op", sorted(CASES))
@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_weighted_mean_at_every_weight_scale(op, backend):
    assert _judge(op, backend, ["FLOAT"]) == []


@pytest.mark.deep
@pytest.mark.parametrize("op", sorted(CASES))
@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_weighted_mean_at_every_weight_scale_halves(op, backend):
    assert _judge(op, backend, ["FLOAT16", "BFLOAT16"]) == []


@pytest.mark.parametrize("backend", ["numpy", "c", pytest.param("ascendc", marks=pytest.mark.deep)])
def test_cross_entropy_total_weight_beyond_float(backend):
    """Weights of FLOAT's largest/2: their sum, which the operator computes itself, is beyond FLOAT (inf there, and
    every result 0); NumPy and C hand the sum computed in double unrounded (codegen.lower.wide_grid_sums), Ascend C's
    level 2 hands it also scaled by 2^-66 (GRID_SCALED), which the kernel's scaled pairs read where the sum is inf
    (it gave nan or 0 before; in the halves too, whose weights are FLOAT)."""
    k = get(backend).make_kernel(OPS["cross_entropy_loss_grad"])
    for dtype in ["FLOAT", "FLOAT16", "BFLOAT16"] if backend == "ascendc" else ["FLOAT"]:
        for mixed in (False, True):
            kw, want = _cross_entropy(np.random.default_rng(7), float(np.finfo(np.float32).max) / 2, dtype, mixed)
            if not mixed:
                t = kw["target"]
                assert np.sum(np.asarray(kw["weight_optional"], np.float64)[t[t >= 0]]) > np.finfo(np.float32).max
            got = np.asarray(k(**kw))
            e = errors(relative_errors(got, want.astype(NP[dtype]), SMALLEST_NORMAL[dtype]), np.zeros(1), dtype)
            assert single_ok(e, dtype), (dtype, mixed, e)


@pytest.mark.deep
@pytest.mark.parametrize("op", ["nll_loss_backward", "nll_loss2d_backward"])
def test_weighted_mean_at_every_weight_scale_ascendc(op):
    assert _judge(op, "ascendc", ["FLOAT", "FLOAT16", "BFLOAT16"]) == []


@pytest.mark.deep
def test_cross_entropy_ascendc_at_every_weight_scale():
    """Ascend C's pair sum scales operands of 2^-140 up by powers of two (doublefloat.ScaledPairs) and divides by
    the grid sum inside it (codegen.lower.weighted_divisors): its FLOAT division after a subnormal sum was 0.94 off."""
    assert _judge("cross_entropy_loss_grad", "ascendc", ["FLOAT", "FLOAT16", "BFLOAT16"]) == []
