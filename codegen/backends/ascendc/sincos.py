"""sin and cos beyond |u| = 65536 on the Ascend C vector unit: a Payne-Hanek reduction from FLOAT instructions.

Below 65536 the Cody-Waite form (codegen.expansions.sin_form, cos_form) stands, bit for bit; beyond it, its
products k*pi_i are no longer exact.  There sin(a) and cos(a) depend on a/(2 pi) mod 1 only, which is computed here
from exact products (Add, Sub, Mul, Muls, Adds, Abs, Compare, Select; no double, no fused multiply-add, no bit
operations, no table lookup):

- a = |u| scaled by 2^-64 (exact: a >= 2^16), then split by Veltkamp into B1 + B2, 12 and 11 significant bits.
- 1/(2 pi) = sum of C_j, j = 0..16, each a signed 12-bit digit times 2^(-13 - 12 j) (|digit| <= 2^11), scaled by
  2^64 (so that C_16, near 2^-205, is a normal FLOAT): B_i*C_j is exact (at most 12 + 11 bits), and the products
  whose weight matters (above 2^-64, up to where they are even integers) are the same for every exponent of a, so
  every element takes all 33 (no exponent-dependent table: those beyond are even integers or below 2^-64).
- each product t is reduced mod 1 exactly: t - round(t), round by adding and subtracting 3*2^22 where |t| <= 2^22;
  a larger |t| is an integer (|digit products| <= 2^23), 0 mod 1.
- the reduced products, in order of decreasing weight, summed as a double-float pair (h, l) (TwoSum, h reduced mod
  1 after each, then renormalized by a second TwoSum): the products of weight above 2^-24 sum exactly, and a sum
  that cancels near a multiple of 1/4 (the floats nearest k pi/2: 2^-29.9 of pi/2 at worst) keeps its bits, since
  once h is small its rounding errors are small too (about 2^-48 of |h| + 2^-60).
- cos: + 1/4 (cos a = sin(a + pi/2)); then q = round(2h), h - q/2 in [-1/4, 1/4], the sign (-1)^q; r = 2 pi (h + l)
  by Dekker's product with 2 pi as two FLOATs, |r| <= pi/2, and the same Taylor polynomial of degree 13 as below
  65536 (sin_form's); sin's sign restored from u's.

Measured against mpmath (tests/test_vocabulary_kernels.py; /work/wt/asc9-note.md): within 2.2 ulp over the whole
FLOAT range, at random arguments and at the floats nearest k pi/2 of every exponent.  ±inf and nan give nan.
Cost: only a tile holding an element beyond 65536 runs the long path (a scalar branch on one ReduceSum of the
flag, like doublefloat's ScaledPairs); it is some 820 vector instructions, outlined as one helper function.
"""
from __future__ import annotations

import mpmath
import numpy as np

from .doublefloat import DoubleFloat, compare_scalar, outlined

SCALE = 64            # a*2^-64 and C_j*2^64: every product the same, no C_j subnormal, no overflow in the split
CHUNKS = 17           # digits of 1/(2 pi) down to 2^-205: B1*C_16 of a = 3.4e38 is below 2^-66
ROUND = 3 * 2 ** 22   # (t + ROUND) - ROUND rounds |t| <= 2^22 to an integer (ties to even)


def _lit(x) -> str:
    """A C++ FLOAT literal of x, which must be a FLOAT exactly."""
    v = float(x)
    assert mpmath.mpf(v) == x and float(np.float32(v)) == v, x
    return f"{v!r}F"


def _f32(x) -> mpmath.mpf:
    return mpmath.mpf(float(np.float32(float(x))))


def _constants():
    """The scaled digits C_j of 1/(2 pi); 2 pi as hi + lo (FLOATs) and hi's Veltkamp halves (12 bits each)."""
    with mpmath.workdps(90):
        rest, digits = 1 / (2 * mpmath.pi), []
        for j in range(CHUNKS):
            g = mpmath.mpf(2) ** (-13 - 12 * j)
            d = int(mpmath.nint(rest / g))
            assert abs(d) <= 2 ** 11
            digits.append(_lit(d * g * mpmath.mpf(2) ** SCALE))
            rest -= d * g
        hi = _f32(2 * mpmath.pi)
        lo = _f32(2 * mpmath.pi - hi)
        c = _f32(hi * 4097)
        hh = _f32(c - _f32(c - hi))
        return digits, _lit(hi), _lit(lo), _lit(hh), _lit(hi - hh)


C_SCALED, TWO_PI_HI, TWO_PI_LO, TWO_PI_HH, TWO_PI_HL = _constants()


class SinCosBeyond:
    def __init__(self, lw):
        self.lw = lw
        self.df = DoubleFloat(lw)

    def _e(self, fmt, *srcs):
        return self.lw._emit(fmt, *srcs)

    def _adds(self, a, s: str):
        return self._e("Adds({dst}, {0}, " + s + ", calc);", a)

    def nearest(self, t):
        """t rounded to an integer, |t| <= 2^22."""
        return self._adds(self._adds(t, f"{float(ROUND)!r}F"), f"{float(-ROUND)!r}F")

    def frac(self, t):
        """t - round(t), exactly; 0 where |t| > 2^22 (an integer there)."""
        d = self.df._op("Sub", t, self.nearest(t))
        small = compare_scalar(self.lw, self._e("Abs({dst}, {0}, calc);", t), "LE", f"{2.0 ** 22!r}F")
        return self.lw._select(small, d, "0.0F")

    def mod1(self, s):
        return self.df._op("Sub", s, self.nearest(s))

    @outlined("SinCosBeyond", "sin or cos of |u| > 65536: u/(2 pi) mod 1 from exact products (Payne-Hanek), "
                             "then the Taylor polynomial (codegen.backends.ascendc.sincos)")
    def value(self, u, usual_poly, which: int):
        df = self.df
        a = self._e("Abs({dst}, {0}, calc);", u)
        b = df._muls(a, f"{2.0 ** -SCALE!r}F")
        halves = df.split(b)
        h = l = None
        for level in range(CHUNKS + 1):
            for i, j in ((0, level), (1, level - 1)):
                if not 0 <= j < CHUNKS:
                    continue
                t = self.frac(df._muls(halves[i], C_SCALED[j]))
                if h is None:
                    h = t
                    continue
                s, e = df.two_sum(h, t)
                h, l = df.two_sum(self.mod1(s), e if l is None else df._op("Add", l, e))
        if which == 1:   # cos a = sin(a + pi/2): a quarter turn
            s, e = df.two_sum(h, "0.25F")
            h, l = df.two_sum(s, df._op("Add", l, e))
        q = self.nearest(df._muls(h, "2.0F"))
        h = df._op("Sub", h, df._muls(q, "0.5F"))                          # in [-1/4, 1/4], exact
        p = df._op("Sub", q, df._muls(self.nearest(df._muls(q, "0.5F")), "2.0F"))
        sign = self._adds(df._muls(df._op("Mul", p, p), "-2.0F"), "1.0F")   # (-1)^q
        # r = 2 pi (h + l): Dekker's product h*hi, then h*lo + l*hi
        ph = df._muls(h, TWO_PI_HI)
        hh, hl = df.split(h)
        err = df._op("Add", df._op("Sub", df._muls(hh, TWO_PI_HH), ph), df._muls(hh, TWO_PI_HL))
        err = df._op("Add", df._op("Add", err, df._muls(hl, TWO_PI_HH)), df._muls(hl, TWO_PI_HL))
        tail = df._op("Add", df._muls(h, TWO_PI_LO), df._muls(l, TWO_PI_HI))
        r = df._op("Add", ph, df._op("Add", err, tail))
        # + (a - a): nan for a = inf (whose products the reduction took for even integers, 0 mod 1), else +0
        res = df._op("Add", df._op("Mul", sign, usual_poly(r)), df._op("Sub", a, a))
        if which == 0:   # sin(-a) = -sin(a)
            neg = compare_scalar(self.lw, u, "LT", "0.0F")
            res = self.lw._select(neg, df._muls(res, "-1.0F"), res)
        return res


def lower_beyond_reduction(lw, e):
    """BeyondReduction(u, usual, which): usual where |u| <= 65536, the long path (computed only in a tile with an
    element beyond, a scalar branch on one ReduceSum) there."""
    import sympy

    from codegen.expansions import SIN, SIN_REDUCED_UP_TO, horner

    from .lowering import Instr
    u_expr, usual_expr, which = e.args
    usual = lw.tile(usual_expr)
    u = lw.tile(u_expr)
    df = DoubleFloat(lw)
    # (|u| as the usual form computes it: sin's u < 2^-12 test reads the same Abs)
    beyond = compare_scalar(lw, lw.tile(sympy.Abs(u_expr)), "GT", f"{float(SIN_REDUCED_UP_TO)!r}F")
    flag = lw._select(beyond, df._t("1.0F"), "0.0F")
    count = lw._emit("ReduceSum({dst}, {0}, {1}, len);", flag, df._t("0.0F"))
    lw.instrs.append(Instr("PipeBarrier<PIPE_ALL>();", None, []))
    lw.instrs.append(Instr("if ({0}.GetValue(0) > 0.0F) {{", None, [count]))
    memo, bound = dict(lw.memo), dict(lw.bound)
    r = sympy.Symbol("_sincos_r", real=True)

    def poly(reg):   # the Taylor polynomial of sin_form, lowered as that form lowers it
        lw.bound[r] = reg
        return lw.tile(r * horner(SIN, r ** 2))
    long = SinCosBeyond(lw).value(u, poly, int(which))
    lw.instrs.append(Instr("}}", None, []))
    lw.memo, lw.bound = memo, bound
    # (where the branch did not run, no element is beyond: the stale `long` is never selected)
    return lw._select(beyond, long, usual)
