"""FLOAT functions as sequences of basic operations: one algorithm per function for the backends that lack it.

The C backend prints `opgen_expm1f`, `opgen_log1pf`, `opgen_tanhf`, `opgen_erff`, `opgen_signf`, `opgen_coshf` and
`opgen_sinhf` into opgen_math.h
from these expressions (its `opgen_erfcf` is written there by hand: one exp and one polynomial, 2x faster than this
form; codegen/backends/c/printer.py: C_WRITTEN) (branch-free, so a compiler vectorizes the loops that call them); the Ascend C backend lowers
the same expressions into vector instructions (Exp, Mul, Adds, CompareScalar, Select, ...) on every SoC.

Why not the Ascend C advanced math APIs: Tanh, Erf, Erfc and Sign exist (asc-devkit, 高阶API/数学计算), each as
`template <typename T, bool isReuseSource = false[, const XxxConfig& config]> void Xxx(const LocalTensor<T>& dst,
const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount)` (or without
the buffer, then reserved by the framework; T half or float; source and destination must not overlap), on Atlas
A2 and A3 and on the inference series' AI Core, but not on the training series (ascend910, where every seed
operator runs), nor on Atlas 200I/500 A2 or the inference series' Vector Core; there is no Expm1 or Log1p.  Their
accuracy is that of undisclosed approximations (Erf's default is a Padé approximant of the input clipped to
[-3.92, 3.92]; Tanh's default computes (e^2x - 1)/(e^2x + 1), which loses relative accuracy near 0).  An
expansion from basic instructions runs on every product, the simulator runs exactly its instructions, and its
error is the one measured here.  NumPy evaluates these functions in
float64 instead (codegen.runtime.mathf): it is the reference the others are held to.

Error bounds of the C functions, measured by tests/test_c_math_functions.py against mpmath over the whole float
range (210,000 points: random bit patterns, |x| < 12, the branch switches; with and without FMA): expm1 1.67 ulp,
tanh 1.49, erf 2.48, erfc 4.85 (this form; C's hand-written one 4.71 with FMA, 4.78 without); the test asserts 2, 2, 3 and 6.  The Ascend C expansions compute the same
operations with the hardware's Exp and Ln in place of opgen_expf (their accuracy is not documented); on the
simulator, whose Exp and Ln are the C library's FLOAT exp and log, they measured (6,000 points each, distance from
the correctly rounded FLOAT): erf 2, erfc 4, expm1 1, tanh 1, log1p 2 ulp, and a**(3/2) as exp(r ln a) 10 ulp
(its error grows with |r ln a|).  The
polynomials' coefficients are FLOAT values from a Lawson (minimax-weighted least squares) fit of the relative
error on the interval, at 2000 Chebyshev nodes, whose fit error is given below:

    expm1   |u| < 1/2: u*P(u), P of degree 6 (fit 3.1e-9); else exp(u) - 1, exact but for exp's rounding, which
            e^u/|e^u - 1| <= 2.6 amplifies
    tanh    |u| < 0.55: u*P(u^2), P of degree 5 (fit 9.5e-10); else (1 - t)/(1 + t) with t = exp(-2|u|), and the sign
    erf     |u| < 1: u*P(u^2), P of degree 6 (fit 1.2e-9); else 1 - erfc(|u|), and the sign
    erfc    |u| < 1/2: 1 - erf(u); else erfc(a) = exp(-a^2) R(a)/a for a = |u| (2 - that for u < 0), with
            R(a) = a exp(a^2) erfc(a) a polynomial of degree 10 in a - 5/4 on [1/2, 2] (fit 4.2e-9) and of degree 8
            in 1/a - 0.2995 on [2, 10.1] (fit 3.6e-9) (1 - erf(u) up to |u| = 1 would lose 10 ulp near 1); exp(-a^2) as exp(-h^2) exp(-l(a + h)) with a = h + l split by Veltkamp's
            method (h has 12 significant bits, so h^2 is exact): rounding a^2 first would cost a^2 2^-24, 100 ulp at
            a = 10.  a is clamped to 10.1, past which erfc is below the smallest FLOAT.
    sign    1 for u > 0, -1 for u < 0, 0 for ±0 (as NumPy's sign), nan for nan
    cosh    e/2 + (1/2)/e with e = exp(a - s), a = |u|, s = 0 for a <= 88 and s = 1 above, where e^a leaves FLOAT
            (88.72) while cosh does not (up to 89.42): e/2 is then e*(E/2), E/2 one constant rounded once, and
            (1/2)/e, wrong by the factor E there, is below 1e-38, nothing beside e*(E/2) > 8e37.  a - 1 is exact
            for a in [88, 128), so no ln 2 is rounded into the exponent (e^(a - fl(ln 2)) would cost 30 ulp)
    sinh    |u| < 1: u*P(u^2), P the Taylor polynomial of degree 6 (truncation 1.6e-10, the coefficients 1/(2k+1)!
            rounded to FLOAT); else e/2 - (1/2)/e as for cosh (coth(1) = 1.31 amplifies exp's rounding), and the
            sign

    log1p   log(w) u/(w - 1) with w = fl(1 + u), u where w == 1 or u is +inf (Goldberg's method: a few ulp with an
            accurate log; C: opgen_math.h's opgen_logf, within 1 ulp and vectorizable, where glibc's log1pf took
            80 ns an element and libm's logf 5 and kept the loop scalar: MishBackward's C kernel ran ~6x behind
            PyTorch's; measured 2.2 ulp, asserted 3)

Special values: nan gives nan, ±inf the limits (tanh ±1, erf ±1, erfc 0 and 2, expm1 inf and -1, log1p inf and
nan, cosh inf, sinh ±inf), ±0 keeps its sign where the function is odd (and log1p(-0) = -0).  Non-integer powers have no C expansion
(C calls libm's powf); for Ascend C: u**e = exp(e log u).
"""
from __future__ import annotations

import sympy
from sympy import Abs, Piecewise, Rational, exp, log
from sympy.codegen.cfunctions import expm1, log1p

from codegen.lower import Const

_MAX_FLOAT = Rational(340282346638528859811704183484516925440)    # the largest FLOAT, (2 - 2^-23) 2^127


class Opaque(sympy.Function):
    """Its argument, computed and rounded as it stands: SymPy must not simplify across it (`(1 + u) - 1` is not
    `u` in FLOAT, and `exp(a)*exp(b)` must not become `exp(a + b)`).  Printed and lowered as its argument."""

    nargs = 1
    is_real = True


class SplitHi(sympy.Function):
    """The high half of a FLOAT by Veltkamp's splitting: c = 4097 a; hi = c - (c - a) has 12 significant bits, so
    hi*hi is exact, and a - hi is exact too.  Needs round-to-nearest arithmetic and no fused multiply-add (the C
    library is built with -ffp-contract=off; Ascend C's Muls and Sub are separate instructions)."""

    nargs = 1
    is_real = True


def _coeffs(*texts):
    return [Rational(t) for t in texts]


EXPM1 = _coeffs("1.0", "0.50000006", "0.16666663", "0.041665316", "0.0083335955", "0.0013997388", "0.00019851753")
TANH = _coeffs("1.0", "-0.3333331", "0.13332468", "-0.053843353", "0.021042101", "-0.0062387534")
ERF = _coeffs("1.1283791", "-0.37612626", "0.11283587", "-0.026853886", "0.005188468", "-0.0008011422",
              "7.85791e-05")
ERFC_NEAR = _coeffs("0.45977864", "0.106795594", "-0.0753275", "0.044021904", "-0.022702632", "0.010667439",
                    "-0.004648693", "0.0018634849", "-0.00071097974", "0.0003259349",
                    "-0.00012190251")                                            # in a - 5/4, a in [1/2, 2]
ERFC_FAR = _coeffs("0.5416998", "-0.1344667", "-0.13589256", "0.2082602", "-0.081226446", "-0.16186322",
                   "0.3468364", "-0.18588924", "-0.3058095")                      # in 1/a - 0.29950494, a in [2, 10.1]
ERFC_FAR_CENTER = Rational("0.29950494")
ERFC_CLAMP = Rational(101, 10)
SINH = [Rational(1, sympy.factorial(2 * k + 1)) for k in range(7)]   # Taylor: 1, 1/6, 1/120, ..., 1/13!
COSH_SHIFT_FROM = 88    # e^88 = 1.65e38 is a FLOAT, e^89 is not


def signed_const(c):
    """A coefficient as a Const, its sign a factor (so `x*(-c)` prints `-c*x`, `a + (-c)` prints `a - c`)."""
    return Const(c) if c >= 0 else -Const(-c)


def horner(coeffs, t):
    """c0 + t*(c1 + t*(c2 + ...)), each coefficient one Const (SymPy does not distribute t over the sums)."""
    acc = signed_const(coeffs[-1])
    for c in reversed(coeffs[:-1]):
        acc = signed_const(c) + t * acc
    return acc


def expm1_form(u):
    return Piecewise((u * horner(EXPM1, u), Abs(u) < Rational(1, 2)), (Opaque(exp(u)) - 1, True))


def tanh_form(u):
    a = Abs(u)
    t = exp(-2 * a)
    r = Opaque((1 - t) / (1 + t))
    return Piecewise((u * horner(TANH, u ** 2), a < Rational(55, 100)), (-r, u < 0), (r, True))


def _erfc_tail(a, split: bool):
    """erfc(a) for a >= 1/2 (and +inf, nan)."""
    b = sympy.Min(a, ERFC_CLAMP) if split else a
    s = Opaque(1 / b)
    r = Piecewise((horner(ERFC_NEAR, b - Rational(5, 4)), b < 2), (horner(ERFC_FAR, s - Const(ERFC_FAR_CENTER)), True))
    if split:
        h = SplitHi(b)
        e = Opaque(exp(-h ** 2)) * Opaque(exp(-Opaque(b - h) * (b + h)))
    else:
        e = Opaque(exp(-b ** 2))
    return Opaque(Opaque(e * r) * s)


def erf_form(u):
    a = Abs(u)
    one_minus = Opaque(1 - _erfc_tail(a, split=False))
    return Piecewise((u * horner(ERF, u ** 2), a < 1), (-one_minus, u < 0), (one_minus, True))


def erfc_form(u):
    a = Abs(u)
    tail = _erfc_tail(a, split=True)
    return Piecewise((1 - Opaque(u * horner(ERF, u ** 2)), a < Rational(1, 2)), (2 - tail, u < 0), (tail, True))


def _exp_half_pair(a):
    """(e*k, (1/2)/e): e = exp(a - s) and k = 1/2 for a <= 88, s = 1 and k = E/2 above (a >= 0, or nan)."""
    big = a > COSH_SHIFT_FROM
    e = Opaque(exp(a - Piecewise((1, big), (0, True))))   # (SymPy would turn 1/exp(z) into a second exp(-z))
    k = Piecewise((Const(sympy.E / 2), big), (Rational(1, 2), True))
    return Opaque(e * k), Opaque(Rational(1, 2) / e)


def cosh_form(u):
    big, small = _exp_half_pair(Abs(u))
    return big + small


def sinh_form(u):
    a = Abs(u)
    big, small = _exp_half_pair(a)
    r = Opaque(big - small)
    return Piecewise((u * horner(SINH, u ** 2), a < 1), (-r, u < 0), (r, True))


def _pi_pieces():
    """pi as four pieces of 8 significant bits and a fifth of 24 (Cody and Waite): k*P_i is exact for |k| < 2^16
    (an integer or a half-integer times 2), and their sum is pi within 2.5e-18."""
    pieces, rest = [], sympy.pi
    for bits in (8, 8, 8, 8, 24):
        e = sympy.floor(sympy.log(abs(rest.evalf(60)), 2))
        q = Rational(2) ** (e - bits + 1)
        pieces.append(sympy.Integer(int((rest / q).evalf(60).round())) * q)
        rest = rest - pieces[-1]
    return pieces


PI_PIECES = _pi_pieces()
SIN = [Rational((-1) ** k, sympy.factorial(2 * k + 1)) for k in range(7)]   # Taylor: 1, -1/6, ..., 1/13!
ROUND_MAGIC = 3 * 2 ** 22   # (t + M) - M is t rounded to the nearest integer (ties to even) for |t| < 2^22
SIN_REDUCED_UP_TO = 2 ** 16  # |u| beyond: the pieces' products are no longer exact, BeyondReduction's long path


class BeyondReduction(sympy.Function):
    """sin (which = 0) or cos (1) of u: `usual`, the Cody-Waite form above, where |u| <= SIN_REDUCED_UP_TO; beyond,
    a Payne-Hanek reduction of u/(2 pi) mod 1 in FLOAT instructions (codegen.backends.ascendc.sincos), computed
    only in a tile that has such an element.  Only the Ascend C backend lowers it (C calls libm's sinf/cosf)."""

    nargs = 3
    is_real = True


def _nearest_int(t):
    return Opaque(Opaque(t + ROUND_MAGIC) - ROUND_MAGIC)


def _sin_reduced(u, k):
    """(-1)^k sin(u - k pi), u - k pi in [-pi/2, pi/2] (a few ulp beyond), k an integer or (cos) a half-integer
    whose double is odd: the sign is that of k rounded up to an integer, k + 1/2 for cos."""
    r = u
    for piece in PI_PIECES:
        r = Opaque(r - k * piece)   # exact for the first pieces (Sterbenz), the error of the last below 2^-40
    s = Opaque(r * horner(SIN, r ** 2))
    return s, r


def _parity_sign(m):
    """(-1)^m for an integer m (|m| < 2^21): 1 - 2 p^2 with p = m - 2 round(m/2) in {-1, 0, 1}."""
    p = Opaque(m - 2 * _nearest_int(m / 2))
    return Opaque(1 - 2 * p ** 2)


def sin_form(u):
    k = _nearest_int(u * Const(1 / sympy.pi))
    s, _ = _sin_reduced(u, k)
    # below 2^-12, sin(u) rounds to u (u^3/6 is below half an ulp): also keeps -0 and the subnormals exact
    return BeyondReduction(u, Piecewise((u, Abs(u) < Rational(1, 2 ** 12)), (_parity_sign(k) * s, True)), 0)


def cos_form(u):
    """cos(u) = sin(u + pi/2) = (-1)^m sin(u - (m - 1/2) pi), m = round(u/pi + 1/2): never 1 - u^2/2 + ..., which
    loses the relative accuracy where cos(u) is small."""
    m = _nearest_int(Opaque(Opaque(u * Const(1 / sympy.pi)) + Rational(1, 2)))
    s, _ = _sin_reduced(u, Opaque(m - Rational(1, 2)))
    return BeyondReduction(u, _parity_sign(m) * s, 1)


def sign_form(u):
    """1, -1, 0 for ±0 (NumPy's sign), and u itself for nan."""
    return Piecewise((1, u > 0), (-1, u < 0), (0, sympy.Eq(u, 0)), (u, True))


def log1p_form(u):
    w = Opaque(1 + u)
    return Piecewise((u, sympy.Eq(w, 1)), (u, u > Const(_MAX_FLOAT)), (log(w) * Opaque(u / (w - 1)), True))


def power_form(u, e):
    return exp(Const(e) * Opaque(log(u)))


# SymPy function -> its expansion (C prints these as opgen_math.h functions, Ascend C lowers them)
FORMS = {
    expm1: expm1_form,
    sympy.tanh: tanh_form,
    sympy.erf: erf_form,
    sympy.erfc: erfc_form,
    sympy.sign: sign_form,
    log1p: log1p_form,
    sympy.cosh: cosh_form,
    sympy.sinh: sinh_form,
    sympy.sin: sin_form,
    sympy.cos: cos_form,
}
