"""Sums computed wider than FLOAT (codegen.cancellation.Extended) whose terms overflow FLOAT, on every kernel backend
against mpmath at 60 digits (independent of the kernels).

NumPy and C compute such a sum in double: finite there, then rounded once, to a finite FLOAT or to ±inf.  The Ascend
C kernels carry it as double-float pairs, which overflow with FLOAT; they take the overflow path of
codegen.backends.ascendc.doublefloat (pairs with a per-element exponent) in such tiles.  The hostile fuzz found
the first case (issue 33): BCE-with-logits with posWeight 1e30 and target 7.6e30 in BFLOAT16, where the exact
gradient is 4.2e60 (+inf in the output dtype) and the pairs gave nan.

The cases are chosen where double resolves the sum (σ(x) - 1 well above 2^-53 of 1), so that the oracle is the
value every backend must give: terms beyond FLOAT whose sum is finite, near FLOAT's largest value on either side
of it, and far beyond it, for each sign."""
from __future__ import annotations

import functools

import ml_dtypes
import mpmath
import numpy as np
import pytest

import codegen
from codegen import backends

OPS = codegen.load_specs()
BACKENDS = backends.kernel_backends()
BCE = "binary_cross_entropy_with_logits_backward"


@functools.cache
def _kernel(name, backend):
    return backends.get(backend).make_kernel(OPS[name])


def _sigmoid(x):
    return 1 / (1 + mpmath.exp(-x))


def _bce(g, x, t, pw):
    """The gradient of BCE-with-logits with posWeight, no weight, reduction none (or sum: the same per element)."""
    g, x, t, pw = (mpmath.mpf(float(v)) for v in (g, x, t, pw))
    return g * ((pw * t + 1 - t) * _sigmoid(x) - pw * t)


def _rounded(values, dtype):
    """mpmath values rounded to `dtype` (through double: far from a tie at these tolerances), ±inf beyond it."""
    with np.errstate(over="ignore"):
        return np.array([float(v) for v in values]).astype(dtype)


# (gradOutput, self, target, posWeight): pw·t beyond FLOAT (1e40 to 1e61) in every case
BCE_CASES = [
    (1.0, 10.0, 1e20, 1e20),          # σ - 1 = -4.5e-5: the sum -4.5e35, finite
    (-1.0, 10.0, 1e20, 1e20),         # +4.5e35
    (1.0, 10.0, 1e20, -1e20),         # pw·t = -1e40: +4.5e35
    (1.0, 12.0, -3e19, 2e20),         # -6e39 (σ - 1) + σ (1 + 3e19): +3.7e34
    (1.0, 10.32, 1e22, 1e21),          # -3.3e38: finite, beside FLOAT's largest value
    (-1.0, 10.32, 1e22, 1e21),         # +3.3e38
    (1.0, 10.2, 1e22, 1e21),           # -3.7e38: just beyond, -inf
    (-1.0, 10.2, 1e22, 1e21),          # +inf
    (-3.234375, 1.5859375, 7.6059e30, 1.00026e30),   # the fuzz's element: 4.2e60, +inf
    (3.234375, 1.5859375, 7.6059e30, 1.00026e30),    # -inf
    (1.0, -2.0, 1e30, 1e30),          # σ(-2) - 1 = -0.88: -8.8e59, -inf
    (1.0, 3.0, 1e15, 1e15),           # pw·t = 1e30 within FLOAT: the pairs alone, -4.7e28
]


def test_the_cases_cover_finite_and_infinite_results_of_each_sign():
    """The oracle itself, so that the cases below test what they claim."""
    want = _rounded([_bce(*c) for c in BCE_CASES], np.float32)
    finite_big = np.isfinite(want) & (np.abs(want) > 1e38)
    assert np.isposinf(want).any() and np.isneginf(want).any()
    assert (finite_big & (want > 0)).any() and (finite_big & (want < 0)).any()
    assert (np.isfinite(want) & (want > 0)).sum() >= 3 and (np.isfinite(want) & (want < 0)).sum() >= 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_bce_terms_beyond_float(backend):
    g, x, t, pw = (np.array(c, np.float32) for c in zip(*BCE_CASES))
    with mpmath.workdps(60):
        want = _rounded([_bce(*c) for c in zip(g, x, t, pw)], np.float32)
    got = _kernel(BCE, backend)(grad_output=g, self=x, target=t, weight_optional=None, pos_weight_optional=pw,
                               reduction=0)
    inf = np.isinf(want)
    assert np.array_equal(got[inf], want[inf]), (backend, got, want)
    assert np.all(np.abs(got[~inf].astype(np.float64) / want[~inf] - 1) < 1e-5), (backend, got, want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_bce_fuzz_finding_in_bfloat16(backend):
    """Issue 33's element (the recipe's [1, 4, 0, 0]) and its mirror, reduction sum, BFLOAT16 on ascend910b."""
    bf = ml_dtypes.bfloat16
    g = np.array([-3.234375, 3.234375, -3.234375], bf)
    x = np.array([1.5859375, 1.5859375, 1.5859375], bf)
    t = np.array([7.6059e30, 7.6059e30, 1e10], bf)
    pw = np.array([1.00026e30, 1.00026e30, 1e20], bf)
    with mpmath.workdps(60):
        want = _rounded([_bce(*c) for c in zip(g, x, t, pw)], bf).astype(np.float32)
    got = _kernel(BCE, backend)(grad_output=g, self=x, target=t, weight_optional=None, pos_weight_optional=pw,
                               reduction=2, product="ascend910b").astype(np.float32)
    assert np.isposinf(want[0]) and np.isneginf(want[1]) and np.isfinite(want[2])
    assert np.array_equal(got[:2], want[:2]), (backend, got, want)
    assert abs(got[2] / want[2] - 1) < 2 ** -7, (backend, got, want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_swish_product_beyond_float(backend):
    """β·x beyond FLOAT where σ(βx) is 1: the gradient is g (FLOAT's inf·0 was nan on Ascend C's pairs)."""
    x = np.array([1e20, 3e19, 2.0, 1e30], np.float32)
    g = np.array([1.5, -2.0, 1.0, 0.25], np.float32)
    beta = 1e20
    with mpmath.workdps(60):
        b = mpmath.mpf(float(np.float32(beta)))
        want = _rounded([mpmath.mpf(float(gi)) * _sigmoid(b * mpmath.mpf(float(xi)))
                         * (b * mpmath.mpf(float(xi)) * (1 - _sigmoid(b * mpmath.mpf(float(xi)))) + 1)
                         for gi, xi in zip(g, x)], np.float32)
    got = _kernel("swish_backward", backend)(grad_output=g, self=x, beta_optional=beta)
    assert np.all(np.abs(got.astype(np.float64) / want - 1) < 1e-6), (backend, got, want)


@pytest.mark.parametrize("beta", [-1e20, -2.0])
@pytest.mark.parametrize("backend", BACKENDS)
def test_swish_product_beyond_float_where_the_sigmoid_is_0(backend, beta):
    """β·x beyond FLOAT where σ(βx) is 0: the exact gradient g·σ(βx)·(1 + βx(1 - σ(βx))) is a signed zero
    (-1e40·e^-1e40), not nan.  The sum 1 + βx(1 - σ) is -1e40 in double, -inf in FLOAT: the product's other factors
    multiply it in double before the one rounding (codegen.cancellation._fold_into_extended); nan before."""
    x = np.array([1e20, 3e19, 3e38, -2.0, 0.5], np.float32)
    g = np.array([1.5, -2.0, 1.0, 0.25, 3.0], np.float32)
    with mpmath.workdps(60):
        b = mpmath.mpf(float(np.float32(beta)))
        want = _rounded([mpmath.mpf(float(gi)) * _sigmoid(b * mpmath.mpf(float(xi)))
                         * (b * mpmath.mpf(float(xi)) * (1 - _sigmoid(b * mpmath.mpf(float(xi)))) + 1)
                         for gi, xi in zip(g, x)], np.float32)
    got = _kernel("swish_backward", backend)(grad_output=g, self=x, beta_optional=beta)
    assert not np.isnan(got).any(), (backend, got, want)
    zero = want == 0
    # (a zero's sign is not asked of Ascend C: its double-float pair's hi + lo is +0 for -0 + 0)
    assert zero[:3].all() and np.array_equal(got[zero], want[zero]), (backend, got, want)
    if backend != "ascendc":
        assert np.array_equal(np.signbit(got[zero]), np.signbit(want[zero])), (backend, got, want)
    assert np.all(np.abs(got[~zero].astype(np.float64) / want[~zero] - 1) < 1e-6), (backend, got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("backend", BACKENDS)
def test_log_softmax_exp_beyond_float(backend, dtype):
    """LogSoftmaxBackward's g - e^y·Σg along a dim of length 1 (the long hostile fuzz, FLOAT16: g = -0 at y = 135.2):
    e^y is beyond FLOAT but not double, so the sum is g·(1 - e^y), 0 for g = ±0, ±inf or a finite number beyond
    that; the Ascend C pairs' exp was inf there (inf·0 = nan).  Their overflow path now carries e^y as a scaled pair
    (e^(y - 66c·ln 2)·2^(66c)) up to double's own limit, e^709.78."""
    y = np.array([135.2, 100.0, 60.0, 88.5, 300.0, 700.0, 0.5, -20.0, 135.2], dtype)
    g = np.array([-0.0, 1.0, 2.0 ** -80, -(2.0 ** -100), 0.0, 0.0, 1.5, -2.0, 3.0], np.float64)
    if dtype == np.float16:   # (FLOAT16's range: smaller exponents, the same zeros and infinities)
        y = np.array([135.2, 100.0, 12.0, 11.5, 300.0, 700.0, 0.5, -8.0, 135.2], dtype)
        g = np.array([-0.0, 1.0, 2.0 ** -14, -(2.0 ** -14), 0.0, 0.0, 1.5, -2.0, 3.0], np.float64)
    g = g.astype(dtype)
    with mpmath.workdps(60):
        want = _rounded([mpmath.mpf(float(gi)) * (1 - mpmath.exp(mpmath.mpf(float(yi)))) for gi, yi in zip(g, y)],
                        dtype)
    got = _kernel("log_softmax_backward", backend)(grad_output=g.reshape(-1, 1), output=y.reshape(-1, 1), dim=1)
    got = got.ravel()
    assert not np.isnan(got).any(), got
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=2e-3 if dtype == np.float16
                               else 1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("backend", BACKENDS)
def test_log_softmax_underflowed_exp_times_infinite_sum(backend, dtype):
    """LogSoftmaxBackward's g - e^y·Σg where Σg is ±inf (a gradOutput ±inf in the row) and e^y underflows FLOAT
    but not double (the long hostile fuzz, FLOAT16 on ascend910b: y = -608.5 and -107.4 beside g = +inf): e^y > 0,
    so e^y·Σg is Σg and the result ∓inf (nan only where g is that same inf: inf - inf).  The Ascend C pairs' exp
    was 0 there and 0·inf = nan.  Below double's exp underflow (y = -800) the double kernels' e^y is 0 and they
    give nan, as every backend must.  A row with a finite sum in the same tile keeps its values (the tile takes the
    overflow path)."""
    g = np.array([[-3.377, -0.0, -1.0625, np.inf, 2.742],
                  [-np.inf, 1.0, 2.0, -0.0, 3.0],
                  [0.0, 1.0, -2.5, 0.5, -1.0]], dtype)
    y = np.array([[-608.5, -107.4, -0.0566, -46.09, -14.44],
                  [-500.0, -200.0, -0.5, -800.0, -104.5],
                  [-608.5, -107.4, -0.7, -3.0, -14.44]], dtype)
    want = np.empty(g.shape, dtype)
    with mpmath.workdps(60):
        for r in range(g.shape[0]):
            s = mpmath.fsum(mpmath.mpf(float(v)) for v in g[r])   # mpmath's extended reals: ±inf, inf - inf = nan
            want[r] = _rounded([mpmath.mpf(float(gi)) - mpmath.exp(mpmath.mpf(float(yi))) * s
                                if yi > -745.13 else mpmath.nan for gi, yi in zip(g[r], y[r])], dtype)
    got = _kernel("log_softmax_backward", backend)(grad_output=g, output=y, dim=1)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"{backend}: {got} vs {want}")
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-3 if dtype == np.float16
                               else 1e-6, err_msg=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_softmax_row_sum_beyond_float(backend):
    """SoftmaxBackward's y·g - Σ(g·y)·y where Σ g·y leaves FLOAT (the long hostile fuzz, FLOAT along a dim of length
    5: g = y = [1.0957, -1.8417, -3.6722, -3.8678, 1e30]): the exact y·(g - 1e60) is beyond FLOAT everywhere, ±inf
    in the output; Ascend C's FLOAT sum is +inf and its y·g - S·y was inf - inf = nan for the 1e30 element.  A
    column beside it with an ordinary sum keeps its values."""
    g = np.array([[1.0957, 0.5], [-1.8417, -0.25], [-3.6722, 2.0], [-3.8678, 0.125], [1e30, -1.0]], np.float32)
    y = np.array([[1.0957, 0.1], [-1.8417, 0.2], [-3.6722, 0.3], [-3.8678, 0.15], [1e30, 0.25]], np.float32)
    want = np.empty(g.shape, np.float32)
    with mpmath.workdps(60):
        for c in range(g.shape[1]):
            s = mpmath.fsum(mpmath.mpf(float(a)) * mpmath.mpf(float(b)) for a, b in zip(g[:, c], y[:, c]))
            want[:, c] = _rounded([mpmath.mpf(float(b)) * (mpmath.mpf(float(a)) - s) for a, b in zip(g[:, c], y[:, c])],
                                  np.float32)
    got = _kernel("softmax_backward", backend)(grad_output=g, output=y, dim=0)
    assert np.isinf(want[:, 0]).all()
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-6, err_msg=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_softmax_infinite_output_in_a_row(backend):
    """An infinite y in the row (the hostile fuzz: g = y = -inf alone): Σ g·y is +inf and y·g - S·y keeps IEEE's
    value, as the double kernels give it: -inf·-inf - inf·-inf = inf + inf = +inf, -inf for the finite y > 0
    beside it; y = +inf with g = 1: inf - inf = nan.  (Ascend C's branch for an infinite row sum must not turn
    these into y·(g - S)'s limits: -inf·(-inf - inf) is +inf by luck, inf·(1 - inf) = -inf where double has nan.)"""
    g = np.array([[-np.inf, 1.0, -np.inf], [1.0, 1.0, 2.0], [2.0, 0.5, 1.0]], np.float32)
    y = np.array([[-np.inf, np.inf, -np.inf], [0.5, 0.25, 0.5], [0.25, 0.5, 0.25]], np.float32)
    want = np.array([[np.inf, np.nan, np.inf], [-np.inf, -np.inf, -np.inf], [-np.inf, -np.inf, -np.inf]], np.float32)
    got = _kernel("softmax_backward", backend)(grad_output=g, output=y, dim=0)
    np.testing.assert_array_equal(got, want, err_msg=backend)
