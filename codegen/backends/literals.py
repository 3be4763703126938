"""Constants as literals: the value of the kernel's type nearest an exact SymPy constant.

`sqrt(2)`, `pi`, `Rational(1, 3)` or `1/sqrt(2*pi)` are evaluated with mpmath at 60 digits and rounded once, to
the nearest FLOAT (or double), ties to even: never through a double first (rounding twice can miss the nearest
FLOAT), never as a C macro (`M_SQRT2` and `M_PI` are not declared under `-std=c11`), never as a division of two
literals evaluated at run time.  The text is the shortest decimal that reads back as that value.
"""
from __future__ import annotations

import functools

import mpmath
import numpy as np
import sympy

DIGITS = 60


class ConstantError(ValueError):
    """A constant the kernel's type cannot hold (too large, not real)."""


def power_of_two(t) -> bool:
    """±2^k, k an integer (a `Const` by its value): multiplying by it is exact in binary floating point (outside
    under- and overflow)."""
    from codegen.lower import Const
    t = t.value if isinstance(t, Const) else t
    if not t.is_Rational or t == 0:
        return False
    p, q = abs(t.p), t.q
    return (p & (p - 1)) == 0 and (q & (q - 1)) == 0


@functools.lru_cache(maxsize=None)
def exact(value: sympy.Expr) -> mpmath.mpf:
    """The constant at DIGITS significant digits."""
    from codegen.lower import Const
    if isinstance(value, Const):
        value = value.value
    with mpmath.workdps(DIGITS):
        v = sympy.N(value, DIGITS)
        if not v.is_real or not v.is_finite:
            raise ConstantError(f"the constant {value} is not a finite real number")
        return mpmath.mpf(sympy.Float(v, DIGITS)._mpf_)


def _nearest(x: mpmath.mpf, ftype) -> float:
    """The `ftype` value nearest x, ties to even: it is the value `ftype(double nearest x)` or a neighbour of it."""
    bits = np.uint32 if ftype is np.float32 else np.uint64
    with mpmath.workdps(DIGITS), np.errstate(over="ignore"):
        d = ftype(float(x))
        if not np.isfinite(d):
            raise ConstantError(f"the constant {mpmath.nstr(x, 17)} overflows {np.dtype(ftype).name}")
        cands = [c for c in (d, np.nextafter(d, ftype(np.inf)), np.nextafter(d, ftype(-np.inf))) if np.isfinite(c)]
        error = {c: abs(mpmath.mpf(float(c)) - x) for c in cands}
        best = min(error.values())
        return min((c for c in cands if error[c] == best), key=lambda c: int(np.array(c, ftype).view(bits)) & 1)


def _low_part(value, ftype):
    """For codegen.lower.ConstLo(c): the `ftype` value nearest c - (the `ftype` value nearest c); else None."""
    from codegen.lower import ConstLo
    if not isinstance(value, ConstLo):
        return None
    x = exact(value.value)
    with mpmath.workdps(DIGITS):
        return _nearest(x - mpmath.mpf(float(_nearest(x, ftype))), ftype)


@functools.lru_cache(maxsize=None)
def float32(value: sympy.Expr) -> np.float32:
    """The FLOAT nearest the exact constant (for a ConstLo(c), nearest the rounding error of c in FLOAT)."""
    lo = _low_part(value, np.float32)
    return lo if lo is not None else _nearest(exact(value), np.float32)


@functools.lru_cache(maxsize=None)
def float64(value: sympy.Expr) -> np.float64:
    lo = _low_part(value, np.float64)
    return lo if lo is not None else _nearest(exact(value), np.float64)


def c_float(value) -> str:
    """A C `float` literal: `1.4142135F`."""
    return _c_number(str(float32(value))) + "F"   # NumPy's shortest text that reads back as this FLOAT


def c_double(value) -> str:
    f = float64(value)
    return _c_number(repr(float(f)))


def python_float32(value) -> str:
    """A Python float literal holding the FLOAT value exactly (every FLOAT is a double): NumPy casts a Python float
    to the array's float32 when it meets one, and that cast is then exact."""
    return repr(float(float32(value)))


def python_double(value) -> str:
    return repr(float(float64(value)))


def _c_number(text: str) -> str:
    """`1.` -> `1.0`, `1e-05` -> `1e-05` (already valid), `3` -> `3.0`: a floating literal in C."""
    if text.endswith("."):
        text += "0"
    if not any(ch in text for ch in ".e"):
        text += ".0"
    return text
