"""FLOAT functions of the NumPy reference kernels: evaluated in float64, rounded once to FLOAT.

NumPy's float32 transcendental functions trade accuracy for speed (up to a few ulp), which would make the reference
less accurate than the kernels it judges; in float64 the result before the one rounding is within about 1e-14 of
the exact value, so the FLOAT result is the correctly rounded one but in the rarest near-ties.  NumPy has no erf
(and SciPy is not a dependency); `math.erf` one element at a time is slow (2x slower than the code below, measured
on 1M elements), so erf and erfc are evaluated here on whole arrays: a Taylor series of erf for |x| < 2 (34 terms, relative error below 1e-15 measured
against mpmath), the continued fraction of erfc for |x| >= 2 (50 terms, below 5e-14), each from the other by
erf = 1 - erfc where that loses nothing (erfc(2) = 0.0047).

Every function takes a FLOAT array (or a Python number, in a kernel's prelude) and keeps nan, ±inf and ±0 as
libm does.
"""
from __future__ import annotations

import math

import numpy as np

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_ONE_OVER_SQRT_PI = 1 / math.sqrt(math.pi)
# erf(x) = 2/sqrt(pi) * x * sum_n (-x^2)^n / (n! (2n + 1))
_ERF_TAYLOR = [(-1) ** n / (math.factorial(n) * (2 * n + 1)) for n in range(34)]
_ERFC_CF_TERMS = 50
_SPLIT = 2.0


def _f64(x):
    return np.asarray(x, dtype=np.float64)


def _f32(y):
    return np.asarray(y).astype(np.float32)


def expm1(x):
    return _f32(np.expm1(_f64(x)))


def log(x):
    return _f32(np.log(_f64(x)))


def log1p(x):
    return _f32(np.log1p(_f64(x)))


def tanh(x):
    return _f32(np.tanh(_f64(x)))


def cosh(x):
    """Finite up to |x| = 89.4, where cosh is a FLOAT and e^|x| is not (float64 has the room)."""
    return _f32(np.cosh(_f64(x)))


def sinh(x):
    return _f32(np.sinh(_f64(x)))


def sin(x):
    """Right for every FLOAT (float64's sin reduces the argument over the whole range: sin(3e38) too)."""
    return _f32(np.sin(_f64(x)))


def cos(x):
    return _f32(np.cos(_f64(x)))


def power(x, e: float):
    """x**e for a non-integer constant e: nan for a negative x, as NumPy's power and C's powf give."""
    return _f32(np.power(_f64(x), e))


def _erf_taylor(x):
    """erf(x) for |x| < 2."""
    z = x * x
    acc = np.full_like(x, _ERF_TAYLOR[-1])
    for c in reversed(_ERF_TAYLOR[:-1]):
        acc *= z
        acc += c
    acc *= x
    acc *= _TWO_OVER_SQRT_PI
    return acc


def _erfc_cf(a):
    """erfc(a) for a >= 2 (and +inf: 0): exp(-a^2)/sqrt(pi) / (a + (1/2)/(a + 1/(a + (3/2)/(a + ...))))."""
    acc = a.copy()
    for k in range(_ERFC_CF_TERMS, 0, -1):
        np.divide(k / 2, acc, out=acc)
        acc += a
    return np.exp(-a * a) * _ONE_OVER_SQRT_PI / acc


def _erf_erfc(x):
    """(erf(x), erfc(x)) in float64."""
    x = _f64(x)
    a = np.abs(x)
    big = a >= _SPLIT
    small = ~big & ~np.isnan(x)
    erf, erfc = x.copy(), x.copy()                     # nan stays nan
    with np.errstate(all="ignore"):
        s = _erf_taylor(x[small])
        t = _erfc_cf(a[big])                           # erfc(|x|)
    erf[small], erfc[small] = s, 1.0 - s
    erf[big] = np.copysign(1.0 - t, x[big])
    erfc[big] = np.where(x[big] > 0, t, 2.0 - t)
    return erf, erfc


def erf(x):
    return _f32(_erf_erfc(x)[0])


def erfc(x):
    return _f32(_erf_erfc(x)[1])


def erf64(x):
    """erf in DOUBLE, for the kernels that compute in it (no rounding to FLOAT)."""
    return _erf_erfc(x)[0]


def erfc64(x):
    return _erf_erfc(x)[1]
