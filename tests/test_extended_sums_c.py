"""The C backend's sums that cancel (codegen.cancellation.Extended: LogSoftmaxBackward's g - e^y Σg,
CrossEntropyLossGrad's), computed in double and rounded once, against mpmath at 50 digits: where the terms cancel
completely, across the cancellation point, where e^y overflows FLOAT but the product does not, and nan.  Each
result is within half an ulp of the exact sum plus the double sum's own error (2^-50 of its terms: opgen_exp_f64
is within 2.8e-16; the log-softmax edge values against the derivative of the forward, log-softmax of logits, on
rows that are log-softmax outputs).  With --deep: opgen_expf's error on every float, which a FLOAT-first
evaluation of these sums would have to assume (session 12's perf5 note: measured, and not adopted)."""
from __future__ import annotations

import functools
import subprocess
from pathlib import Path

import ml_dtypes
import mpmath
import numpy as np
import pytest

import codegen
from codegen import backends
from codegen.backends.c import build

OPS = codegen.load_specs()


@functools.cache
def _kernel(name, backend="c"):
    return backends.get(backend).make_kernel(OPS[name])


def _ulps(got, exact) -> np.ndarray:
    """|got - exact| in ulps of the exact value (FLOAT's spacing at it)."""
    exact = np.asarray(exact, np.float64)
    spacing = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    return np.abs(got.astype(np.float64) - exact) / spacing


def _check(got, exact, terms):
    """Rounded once from double, whose own error is a few 2^-53 of the terms' magnitudes `terms`: within half an
    ulp and 2^-50 of them."""
    ulps = _ulps(got, exact)
    double = 2.0 ** -50 * np.asarray(terms, np.float64) / np.spacing(np.abs(exact).astype(np.float32))
    assert np.all(ulps - double <= 0.5 + 1e-6), np.max(ulps - double)


# ---- LogSoftmaxBackward: g - r0 e^y, r0 the row's sum of g (one row, so r0 is that sum rounded to FLOAT) -------------
def _log_softmax_case(g, y):
    g, y = np.asarray(g, np.float32), np.asarray(y, np.float32)
    r0 = np.float32(np.sum(g.astype(np.float64)))   # exact here: few, short significands
    with mpmath.workdps(50):
        exact = [mpmath.mpf(float(a)) - mpmath.mpf(float(r0)) * mpmath.exp(mpmath.mpf(float(b))) for a, b in zip(g, y)]
    got = _kernel("log_softmax_backward")(grad_output=g, output=y, dim=-1)
    terms = np.abs(g.astype(np.float64)) + float(r0) * np.exp(y.astype(np.float64))
    return got, np.array([float(e) for e in exact]), terms


def test_log_softmax_across_its_cancellation_point():
    """y_k nudged from log(g_k / r0) by k steps of 2^-5, -40 <= k <= 40: the sum over its terms goes from 0 (all
    FLOAT rounding, were it computed in FLOAT) to 2.5."""
    steps = np.arange(-40, 41)
    g = np.concatenate([np.full(steps.size, 1.0, np.float32), [np.float32(2.0 ** 20 - steps.size)]])
    r0 = float(np.sum(g.astype(np.float64)))   # 2^20
    y = np.concatenate([np.float32(np.log(1.0 / r0)) + steps * 2.0 ** -5, [-1.0]]).astype(np.float32)
    got, exact, terms = _log_softmax_case(g, y)
    _check(got, exact, terms)


def test_log_softmax_exactly_cancelling():
    """g = r0 e^y to FLOAT's precision: the FLOAT sum is all rounding; the double one is right."""
    g = np.array([3.0, 5.0, 7.0, 2 ** 12 - 15.0], np.float32)
    y = np.log(g.astype(np.float64) / 4096.0).astype(np.float32)
    got, exact, terms = _log_softmax_case(g, y)
    _check(got, exact, terms)


def test_log_softmax_overflows_and_nan():
    """e^y beyond FLOAT (y = 89) where r0 e^y is finite: finite and right; a product beyond FLOAT (y = 100): inf;
    nan: nan."""
    g = np.array([1.5, -0.5, 2.0 ** -10, 0.0, -1.0], np.float32)   # r0 = 2^-10
    y = np.array([89.0, 100.0, -3.0, np.nan, 1.0], np.float32)
    got, exact, terms = _log_softmax_case(g, y)
    assert np.isfinite(got[0]) and np.exp(89.0) > 3.5e38
    assert np.isinf(got[1]) and got[1] < 0
    assert np.isnan(got[3])
    _check(got[[0, 2, 4]], exact[[0, 2, 4]], terms[[0, 2, 4]])


def _below(v, dtype):
    """The largest value of `dtype` at most `v` (an mpmath number): `v` rounded toward -inf."""
    x = np.array(float(v), dtype)
    if float(x) <= v:
        return x
    utype = {2: np.uint16, 4: np.uint32}[x.itemsize]
    if float(x) == 0:   # (below ±0: the negative least subnormal)
        return np.array((1 << (8 * x.itemsize - 1)) | 1, utype).view(dtype)
    bits = int(x.view(utype))
    return np.array(bits + 1 if float(x) < 0 else bits - 1, utype).view(dtype)


def _log_softmax_row(y_edge, dtype):
    """A row of log-softmax outputs in `dtype`: `y_edge`, a carrier y = -20 (the row's gradient: the others' g are
    0, so no result cancels but at the edge), then the rest of the mass laid on elements each rounded down, until
    less than 2^-40 of it is left: the row is the log-softmax of itself as logits within 2^-40 (its logsumexp's
    distance from 0, a relative error of as much in every result)."""
    row = [np.array(y_edge, dtype), np.array(-20.0, dtype)]
    with mpmath.workdps(50):
        rest = 1 - mpmath.fsum(mpmath.exp(mpmath.mpf(float(v))) for v in row)
        while rest > mpmath.mpf(2) ** -40:
            row.append(_below(mpmath.log(rest), dtype))
            rest -= mpmath.exp(mpmath.mpf(float(row[-1])))
    return [float(v) for v in row]


@functools.cache
def _log_softmax_vjp(n):
    """d/dz_i of Σ_j g_j logsoftmax(z)_j, logsoftmax(z)_j = z_j - log Σ_k e^z_k: SymPy's derivatives of the
    forward over a row of n logits, as mpmath functions of (z, g)."""
    import sympy
    z, g = sympy.symbols(f"z0:{n}", real=True), sympy.symbols(f"g0:{n}", real=True)
    lse = sympy.log(sum(sympy.exp(v) for v in z))
    forward = sum(gj * (zj - lse) for gj, zj in zip(g, z))
    return [sympy.lambdify(z + g, sympy.diff(forward, zi), "mpmath") for zi in z]


def _log_softmax_exact(y, g):
    """The forward's vector-Jacobian product at logits y (each row a log-softmax of itself: _log_softmax_row),
    at 50 digits: the gradient the kernel, given y and g, computes."""
    rows, n = y.shape
    fs = _log_softmax_vjp(n)
    out = np.zeros((rows, n))
    with mpmath.workdps(50):
        for r in range(rows):
            args = [mpmath.mpf(float(v)) for v in y[r]] + [mpmath.mpf(float(v)) for v in g[r]]
            out[r] = [float(f(*args)) for f in fs]
    return out


@pytest.mark.parametrize("backend", ["c", "numpy"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16], ids=["FLOAT", "FLOAT16", "BFLOAT16"])
def test_log_softmax_edge_values(dtype, backend):
    """The finishing pass's exp at the edges of log-softmax outputs, every dtype, against the derivative of the
    forward (log-softmax of logits) in mpmath: rows that are log-softmax outputs (each its own logits:
    _log_softmax_row), one edge a row: y = -inf gives g, y = -0 and +0 beside -inf give g - Σg, y far below (-700,
    the dtype's lowest) leaves g, and -Σg e^y rounded to the dtype's subnormals where g = 0 (y = -14: FLOAT16's,
    -90 and -103: BFLOAT16's and FLOAT's; -104: below FLOAT's least subnormal's half, -0); nan stays nan.  Within
    half an ulp of the dtype (2^-12 more for the half dtypes' rounding through FLOAT) plus the double sum's own
    error (2^-50 of its terms)."""
    lowest = float(ml_dtypes.finfo(dtype).min)
    # (edge y, its g, the carrier's g)
    edges = [(-np.inf, 0.5, 0.5), (-14.0, 0.0, 0.25), (-90.0, 0.0, 0.25), (-103.0, 0.0, 0.25), (-104.0, 0.0, 0.25),
             (-700.0, 0.125, 0.5), (lowest, 0.125, 0.5), (-1.5, 0.375, 0.0625), (-3e-3, 0.125, 0.25)]
    rows = [_log_softmax_row(y, dtype) for y, _, _ in edges]
    rows += [[-0.0, -np.inf], [0.0, -np.inf], [np.nan, 0.0]]   # (Σ e^y = 1 exactly; nan: no exact value)
    gs = [[a, b] + [0.0] * (len(r) - 2) for (_, a, b), r in zip(edges, rows)] + [[0.5, 0.5], [0.25, 0.75], [0.125, 0.5]]
    width = max(map(len, rows))   # (padded with y = -inf, g = 0: nothing to the row's sums, 0 each)
    y = np.array([r + [-np.inf] * (width - len(r)) for r in rows], dtype)
    g = np.array([r + [0.0] * (width - len(r)) for r in gs], dtype)
    assert np.all(y[:, 0].astype(np.float64)[:len(edges)] == np.array([v for v, _, _ in edges], dtype).astype(float))
    got = np.asarray(_kernel("log_softmax_backward", backend)(grad_output=g, output=y, dim=-1)).astype(np.float64)
    assert np.isnan(got[-1, 0])
    got, y, g = got[:-1], y[:-1], g[:-1]
    exact = _log_softmax_exact(y, g)
    info = ml_dtypes.finfo(dtype)
    e = np.floor(np.log2(np.maximum(np.abs(exact), float(info.smallest_normal))))
    ulp = 2.0 ** (e - int(info.nmant))
    slack = 0.0 if dtype is np.float32 else 2.0 ** -12
    g64 = g.astype(np.float64)
    terms = np.abs(g64) + g64.sum(axis=1, keepdims=True) * np.exp(y.astype(np.float64))
    err = np.abs(got - exact) / ulp - 2.0 ** -50 * terms / ulp
    assert err.max() <= 0.5 + slack, f"{err.max():.4f} ulp at y = {y.flat[np.argmax(err)]!r}"
    # exactly: g at y = -inf, g - Σg at y = ±0; the results at -14 .. -104 subnormal or zero as the dtype rounds
    assert got[0, 0] == 0.5 and got[-2, 0] == 0.5 - 1 and got[-1, 0] == 0.25 - 1
    assert np.all(got[1:5, 0] <= 0) and np.all(exact[1:5, 0] < 0)


@pytest.mark.parametrize("backend", ["c", "numpy", "ascendc"])
@pytest.mark.parametrize("n", [5, 200, 4099, 70001])
def test_log_softmax_row_sum_that_cancels(n, backend):
    """A row whose result at its one finite y (= 0, the rest -inf: softmax there exactly 1) is -Σ of the other g's,
    made to cancel to 2^-20 of Σ|g|: the row sum a double sum reads must be summed unrounded, across lanes and
    tiles (Ascend C: pairs, PairFold and PairRowSum; 10696-16380 ulp while it was FLOAT's ReduceSum).  Against the
    forward's derivative g_i - Σg·softmax_i in mpmath; within half an ulp and 2^-44 of Σ|g| (the pairs' 2^-48 of
    each of the lane's partial sums)."""
    rng = np.random.default_rng(n)
    g = rng.standard_normal(n).astype(np.float32)
    g[-1] = 0.0
    g[0] = np.float32(-mpmath.fsum(map(float, g[1:-1])) - 2.0 ** -20 * float(np.sum(np.abs(g), dtype=np.float64)))
    y = np.full(n, -np.inf, np.float32)
    y[-1] = 0.0
    with mpmath.workdps(60):
        softmax = mpmath.exp(0) / mpmath.fsum(mpmath.exp(mpmath.mpf(float(v))) for v in y)
        exact = float(mpmath.mpf(float(g[-1])) - mpmath.fsum(map(float, g)) * softmax)
    got = np.asarray(_kernel("log_softmax_backward", backend)(grad_output=g[None], output=y[None], dim=-1))[0]
    np.testing.assert_array_equal(got[:-1], g[:-1])   # (softmax 0: g itself)
    ulp = float(np.spacing(np.float32(abs(exact))))
    assert abs(float(got[-1]) - exact) / ulp <= 0.5 + 2.0 ** -44 * float(np.sum(np.abs(g), dtype=np.float64)) / ulp



def _huge_rows(n):
    """Rows of gradients near FLOAT's largest whose sum leaves FLOAT's range: all -3e38 (the result g - e^y Σg
    finite where e^y < 1/n, beyond FLOAT where it is near 1), and +3e38, +3e38, -3e38, -3e38, ... whose running sum
    leaves the range and comes back (Σg small); y the log-softmax of logits spread over 40 (softmax from ~1 to
    ~e^-40); and normal gradients whose last quarter is -3e38 (the sum leaves the range in a later tile)."""
    rng = np.random.default_rng(n)
    x = np.linspace(0.0, -40.0, n) + rng.uniform(-0.1, 0.1, n)
    y = (x - np.log(np.sum(np.exp(x)))).astype(np.float32)
    big = np.float32(-3e38)
    g_all = np.full(n, big, np.float32)
    g_alt = np.tile(np.array([-big, -big, big, big], np.float32), n // 4 + 1)[:n]
    g_alt[-1] = np.float32(0.75)
    g_late = rng.standard_normal(n).astype(np.float32)   # a long row's first tiles finite, its last ones not
    g_late[-n // 4:] = big
    return [(g_all, y), (g_alt, y), (g_late, y)]


@pytest.mark.parametrize("backend", ["c", "numpy", "ascendc"])
@pytest.mark.parametrize("n", [6, 4099])
def test_log_softmax_row_sum_beyond_float(n, backend):
    """A row sum beyond FLOAT's range, where the result g - e^y Σg is finite (or correctly ±inf): the double
    kernels hold Σg in double; Ascend C's pair row sum was inf there (+inf results where the exact one is
    -3.4e38: BFLOAT16's "large" accuracy group) and is now summed again scaled by 2^-66 (PairRowSumWide), across
    the tiles of a long row too.  Against g_i - Σg·e^y_i in mpmath at 60 digits (the gradient given the forward's
    output y, as `_log_softmax_case`: the rows' y are rounded, so Σe^y is 1 only within 2^-24, which times a sum
    of 1e39 is more than an ulp of the result), within half an ulp and 2^-44 of the terms."""
    for g, y in _huge_rows(n):
        with mpmath.workdps(60):
            gsum = mpmath.fsum(map(float, g))
            exact = np.array([float(mpmath.mpf(float(a)) - gsum * mpmath.exp(mpmath.mpf(float(b))))
                              for a, b in zip(g, y)])   # beyond FLOAT's range: float() keeps the value, rounded below
        got = np.asarray(_kernel("log_softmax_backward", backend)(grad_output=g[None], output=y[None], dim=-1))[0]
        with np.errstate(over="ignore"):
            want = exact.astype(np.float32)   # ±inf where the exact result is beyond FLOAT's range
        inf = ~np.isfinite(want)
        assert np.array_equal(got[inf], want[inf]), (got[inf], want[inf])
        terms = np.abs(g.astype(np.float64)) + abs(float(gsum)) * np.exp(y.astype(np.float64))
        ulp = np.spacing(np.abs(want[~inf])).astype(np.float64)
        err = np.abs(got[~inf].astype(np.float64) - exact[~inf]) / ulp - 2.0 ** -44 * terms[~inf] / ulp
        assert np.all(np.isfinite(got[~inf])) and err.max() <= 0.5, (err.max(), int(np.argmax(err)))

# ---- CrossEntropyLossGrad: G ((1 - ls)(e^lp - onehot) + ls/C (C e^lp - 1)), weights absent ------------------------
@pytest.mark.parametrize("ls", [0.0, 0.5])
def test_cross_entropy_where_the_target_is_nearly_certain(ls):
    """The target's probability 1 - d, d from 2^-4 to 2^-22: with ls = 0, e^lp - 1 cancels; every element rounded
    once from double.  ls = 0.5 and
    C = 8 keep the kernel's constants ls/C and 1 - ls exact, so mpmath's exact value is the kernel's."""
    c, ds = 8, [2.0 ** -k for k in range(4, 23, 2)]
    lp = np.array([[np.log1p(-d)] + [np.log(d / (c - 1)) + 0.01 * j for j in range(c - 1)] for d in ds], np.float32)
    t = np.zeros(len(ds), np.int64)
    got = _kernel("cross_entropy_loss_grad")(
        grad_loss=np.ones(len(ds), np.float32), log_prob=lp, target=t, weight_optional=None, grad_zloss_optional=None,
        lse_for_zloss_optional=None, reduction_optional="none", ignore_index=-100, label_smoothing=ls,
        lse_square_scale_for_zloss=0.0)
    with mpmath.workdps(50):
        def exact(i, j):
            e = mpmath.exp(mpmath.mpf(float(lp[i, j])))
            return (1 - mpmath.mpf(ls)) * (e - (j == 0)) + mpmath.mpf(ls) / c * (c * e - 1)
        want = np.array([[float(exact(i, j)) for j in range(c)] for i in range(len(ds))])
        terms = np.array([[float(mpmath.exp(mpmath.mpf(float(v)))) + 1 for v in row] for row in lp])
    _check(got, want, terms)


# ---- CrossEntropyLossGrad with labelSmoothing and weights: the constants and row sums the double sum reads ---------
def _ce_forward(x, t, w, ls):
    """The spec's forward at logits x (mpmath): -(1 - ls) w_t logsoftmax(x)_t - ls/C Σ_j w_j logsoftmax(x)_j."""
    lse = mpmath.log(mpmath.fsum(mpmath.exp(v) for v in x))
    return -(1 - ls) * w[t] * (x[t] - lse) - ls / len(x) * mpmath.fsum(wj * (xj - lse) for wj, xj in zip(w, x))


def _ce_rows(ls, w, t, nudges):
    """One row of FLOAT logProbs per nudge k: classes 1..C-2 at k ulps (of their logProb) from the point where their
    two terms (1 - ls) w_t p_j and ls/C (p_j Σw - w_j) cancel, class 0 (the target) most of the mass, and class C-1
    the rest, so that Σ e^lp = 1 within 1e-14 (its ulp's 2^-24): logProb is the log-softmax of itself, and the forward's gradient at
    logits lp is what the kernel computes from it."""
    c = len(w)
    wm = [mpmath.mpf(float(v)) for v in w]
    a = (1 - ls) * wm[t] + ls / c * mpmath.fsum(wm)
    rows = []
    for k in nudges:
        lp = np.zeros(c, np.float32)
        for j in range(1, c - 1):
            v = np.float32(float(mpmath.log(ls / c * wm[j] / a)))
            lp[j] = v + np.float32(k) * np.spacing(v)
        rest = 1 - mpmath.fsum(mpmath.exp(mpmath.mpf(float(v))) for v in lp[1:c - 1])
        lp[0] = np.float32(float(mpmath.log(rest)))
        while rest - mpmath.exp(mpmath.mpf(float(lp[0]))) <= 0:   # (the rest below an ulp of p_0)
            lp[0] = np.nextafter(lp[0], np.float32(-np.inf))
        residual = rest - mpmath.exp(mpmath.mpf(float(lp[0])))
        lp[c - 1] = np.float32(float(mpmath.log(residual)))
        rows.append(lp)
    return np.array(rows)


# Ascend C's own error: its double-float pairs hold about 2^-48 of a value, and exp's twelve squarings of a pair
# multiply that by 2^12: ~3e-11 of e^y (codegen.backends.ascendc.doublefloat), here 9..156 ulps of the result (at most
# 0.44 of that measured).  Before session 19 the pairs read the FLOAT constants (lo = 0) and the FLOAT ReduceSum row
# sums: 23332 ulp.
PAIR_EXP = 3e-11


@pytest.mark.parametrize("backend", ["c", "numpy", "ascendc"])
def test_cross_entropy_label_smoothing_cancelling_in_rows_and_columns(backend):
    """ls = 0.1 (no FLOAT holds it, nor ls/C) over C = 10 weighted classes, each non-target class 1..8 nudged
    -64..64 ulps of its logProb from its root: the result is 2^-26..2^-21 of its terms, so the FLOAT rounding of
    ls/C, 1 - ls, Σw (2^-24 of a term each) was thousands of ulps of it (the session 17 failure, docs/accuracy.md).
    Against mpmath's derivative of the forward, within half an ulp plus the double sum's own error; the class dim
    contiguous (finish_row) and not (the column sums, finish_col) give the same bits.  The NumPy reference too (its
double sum reads the constants and the row sums unrounded as well: session 18), and Ascend C (its pairs read each
constant's lo part from the host and the row sums summed as pairs: session 19), within its pair exp's error too."""
    ls, c, t = 0.1, 10, 0
    w = np.float32([0.7, 1.3, 0.9, 1.1, 0.3, 1.7, 0.6, 1.9, 1.2, 0.8])
    nudges = [k for k in range(-64, 65, 8) if k]
    lp = _ce_rows(mpmath.mpf(ls), w, t, nudges)
    n = len(lp)
    kw = dict(grad_loss=np.ones(n, np.float32), target=np.full(n, t, np.int64), weight_optional=w,
              grad_zloss_optional=None, lse_for_zloss_optional=None, reduction_optional="none", ignore_index=-100,
              label_smoothing=ls, lse_square_scale_for_zloss=0.0)
    got = _kernel("cross_entropy_loss_grad", backend)(log_prob=lp, **kw)
    # (the class dim strided)
    cols = _kernel("cross_entropy_loss_grad", backend)(log_prob=np.ascontiguousarray(lp.T).T, **kw)
    np.testing.assert_array_equal(got.view(np.uint32), np.asarray(cols).view(np.uint32))
    with mpmath.workdps(50):
        wm, lsm = [mpmath.mpf(float(v)) for v in w], mpmath.mpf(ls)
        want = np.zeros((n, c))
        for i in range(n):
            x = [mpmath.mpf(float(v)) for v in lp[i]]
            for j in range(c):
                want[i, j] = float(mpmath.diff(
                    lambda u: _ce_forward(x[:j] + [u] + x[j + 1:], t, wm, lsm), x[j]))
    p = np.exp(lp.astype(np.float64))
    terms = (1 - ls) * float(w[t]) * (p + 1) + ls / c * (p * float(w.astype(np.float64).sum()) + w)
    # (the cancelling classes: the result well inside FLOAT's normal range, 2^-26..2^-21 of its terms)
    assert np.all(np.abs(want[:, 1:c - 1]) < 2.0 ** -2 * terms[:, 1:c - 1])
    if backend == "ascendc":   # (plus exp's error, in the terms e^y enters: e^y (ls/C Σw + (1 - ls) w_t))
        terms = terms + PAIR_EXP * 2.0 ** 50 * p * (ls / c * float(w.astype(np.float64).sum()) + (1 - ls) * float(w[t]))
    _check(got, want, terms)


# ---- opgen_expf's error on every float -----------------------------------------------------------------------------
EXP_CHECK = r"""
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "opgen_math.h"
/* every float x in [-104, 89]: the largest |opgen_expf(x) - e^x| / (2^-23 |opgen_expf(x)|) over normal results, and
 * / 2^-149 over subnormal ones (e^x in double: its own 2^-53 is far below the margins measured) */
int main(void)
{
    double rel = 0, sub = 0;
    for (uint64_t u = 0; u < (1ull << 32); ++u) {
        const uint32_t b = (uint32_t)u;
        float x;
        memcpy(&x, &b, 4);
        if (!(x >= -104.0f && x <= 89.0f))
            continue;
        const float e = opgen_expf(x);
        const double ex = exp((double)x), err = fabs((double)e - ex);
        if (ex >= 0x1p-126) {
            if (err / (e * 0x1p-23) > rel)
                rel = err / (e * 0x1p-23);
        } else if (err / 0x1p-149 > sub) {
            sub = err / 0x1p-149;
        }
    }
    printf("%.6f %.6f\n", rel, sub);
    return 0;
}
"""


@pytest.mark.deep
@pytest.mark.parametrize("fma", ["-mfma", "-mno-fma"])
def test_exp_error_on_every_float(fma, tmp_path):
    """opgen_expf on every float of [-104, 89], with and without FMA (opgen_math.h's two polynomials): at most
    0.646 and 0.686 of 2^-23 times its result when measured (AMD EPYC, GCC 12), under one subnormal ulp below the
    normal range.  Asserted: 0.7 and 1."""
    if fma == "-mfma" and "fma" not in Path("/proc/cpuinfo").read_text():
        pytest.skip("no FMA on this CPU")
    from codegen.backends.c.emit import runtime_files
    (tmp_path / "opgen_math.h").write_text(runtime_files()["src/opgen_math.h"])
    (tmp_path / "check.c").write_text(EXP_CHECK)
    flags = [f for f in build.FLAGS if f not in ("-shared", "-fPIC")]
    subprocess.run([build.CC, *flags, fma, "-I", str(tmp_path), str(tmp_path / "check.c"), "-o",
                    str(tmp_path / "check"), "-lm"], check=True)
    rel, sub = map(float, subprocess.run([str(tmp_path / "check")], check=True, capture_output=True,
                                         text=True).stdout.split())
    assert rel <= 0.7
    assert sub <= 1
