"""The three kernel dtypes as the accuracy checks see them: formats, correct rounding from mpmath, ulps.

A reference value is an `mpmath.mpf` carried at high precision; it reaches a dtype through `round_to`, which
rounds it *once*, to nearest with ties to even, straight into the target format (subnormals and overflow
included).  Going through float64 first would round twice and can be off by one ulp in FLOAT16/BFLOAT16.
"""
from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import mpmath
import numpy as np


@dataclass(frozen=True)
class Format:
    name: str          # aclnn name: FLOAT, FLOAT16, BFLOAT16
    np: type           # NumPy scalar type
    p: int             # significand bits, the implicit one included
    emin: int          # exponent of the smallest normal: 2**emin
    emax: int          # exponent of the largest finite value's leading bit

    @property
    def max(self) -> float:
        return float((2 - 2.0 ** (1 - self.p)) * 2.0 ** self.emax)

    @property
    def tiny(self) -> float:
        """Smallest positive normal."""
        return 2.0 ** self.emin

    @property
    def min_subnormal(self) -> float:
        return 2.0 ** (self.emin - self.p + 1)


FORMATS = {
    "FLOAT": Format("FLOAT", np.float32, 24, -126, 127),
    "FLOAT16": Format("FLOAT16", np.float16, 11, -14, 15),
    "BFLOAT16": Format("BFLOAT16", ml_dtypes.bfloat16, 8, -126, 127),
}
BY_NUMPY = {np.dtype(f.np).name: f for f in FORMATS.values()}


def format_of(array) -> Format:
    return BY_NUMPY[np.asarray(array).dtype.name]


def round_to(v, fmt: Format, tie_bits: int | None = None) -> float:
    """`v` (mpf, or anything mpmath takes) rounded once to `fmt`, returned as an exact Python float.

    nan stays nan; a complex value (a real function left its domain) is nan; ±inf stays; overflow beyond the
    largest finite value plus half an ulp gives ±inf, as IEEE round-to-nearest does.  mpmath has no -0, so a
    zero comes back as +0 (the metrics treat ±0 as equal)."""
    return round_to_pair(v, fmt, tie_bits)[0]


def round_to_pair(v, fmt: Format, tie_bits: int | None = None) -> tuple[float, float]:
    """(`v` rounded once to `fmt` as round_to does, the other neighbour when `v` is a midpoint, else nan).  At an
    exact tie both neighbours are half an ulp away: ties-to-even picks one, a kernel that cannot represent the
    exact value (a non-dyadic tie) lands on either, and both are correctly rounded to nearest."""
    nan = float("nan")
    if isinstance(v, mpmath.mpc):
        return nan, nan
    if not isinstance(v, mpmath.mpf):   # an existing mpf is used as is: re-creating it would round it
        with mpmath.workprec(64):
            v = mpmath.mpf(v)
    if mpmath.isnan(v):
        return nan, nan
    if mpmath.isinf(v):
        return float(v), nan
    if v == 0:
        return 0.0, nan
    _, e = mpmath.frexp(v)                    # |v| = m * 2**e, 1/2 <= m < 1: leading bit 2**(e-1)
    q = max(int(e) - fmt.p, fmt.emin - fmt.p + 1)   # exponent of one ulp at v (fixed in the subnormal range)
    with mpmath.workprec(max(mpmath.mp.prec, 64)):
        t = mpmath.ldexp(v, -q)
        # tie_bits (the reference's): v was computed to about that many bits.  An exact tie with a non-dyadic
        # factor (HardswishBackward's g*(x/3 + 1/2) at x = -1.578125, g = 0.78515625 in BFLOAT16: exactly 167.5
        # ulp) is never computed exactly and would round by the sign of its evaluation error, the same at every
        # precision: a value within 2**-tie_bits (relative) of a midpoint is the midpoint.
        mid = mpmath.floor(t) + mpmath.mpf(1) / 2
        if tie_bits is not None and abs(t - mid) <= abs(t) * mpmath.ldexp(1, -tie_bits):
            t = mid
        n = mpmath.nint(t)  # ties to even
        other = (2 * mpmath.floor(t) + 1 - n) if t == mid else None

    def value(n):
        r = float(mpmath.ldexp(n, q)) if abs(n) < 2 ** 60 else float("inf") * (1 if n > 0 else -1)
        return r if abs(r) <= fmt.max else float("inf") * (1 if r > 0 else -1)
    return value(n), (nan if other is None else value(other))


def ordered(a: np.ndarray) -> np.ndarray:
    """Floats as integers whose difference counts the representable values between them (±0 coincide)."""
    a = np.ascontiguousarray(a)
    bits = {2: np.int16, 4: np.int32}[a.dtype.itemsize]
    i = a.view(bits).astype(np.int64)
    sign = np.int64(1) << (8 * a.dtype.itemsize - 1)
    return np.where(i < 0, -(i & (sign - 1)), i)


def ulp_distance(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """|got - want| in ulps of their (common) dtype; nan vs nan is 0, nan vs a number is a huge distance."""
    d = np.abs(ordered(got) - ordered(want)).astype(np.float64)
    gn, wn = np.isnan(got.astype(np.float32)), np.isnan(want.astype(np.float32))
    return np.where(gn & wn, 0.0, np.where(gn | wn, np.inf, d))
