"""Stability rewrites applied to every backward before any backend prints it.

The documented formulas are written for readers: `g / (1 + exp(x))` overflows exp for x > 88 in FLOAT and
then loses the subnormal tail of the true result.  These rules turn such shapes into functions whose printed
forms never overflow; every backend prints the same rewritten expression, so they agree with each other.

    >>> from sympy import symbols, exp
    >>> x, g = symbols("x g", real=True)
    >>> stabilize(g / (1 + exp(x)))
    g*Sigmoid(-x)
    >>> stabilize(1 / (1 + exp(-x)))
    Sigmoid(x)
    >>> stabilize(exp(x) / (1 + exp(x)))
    Sigmoid(x)
    >>> stabilize(g / (1 + exp(-x)) * (1 - 1 / (1 + exp(-x))))
    g*Sigmoid(-x)*Sigmoid(x)
"""
from __future__ import annotations

import functools

import sympy
from sympy.codegen.cfunctions import expm1, log1p
from sympy.codegen.rewriting import FuncMinusOneOptim, ReplaceOptim, log1p_opt, optimize, optims_c99


class Sigmoid(sympy.Function):
    """σ(u) = 1 / (1 + exp(-u)), evaluated without overflow.

    Printers use `stable_form`: with e = exp(-|u|) <= 1, σ(u) = 1/(1+e) for u >= 0 and e/(1+e) otherwise, as
    one division of an exact numerator (1 or e) by 1+e: both branches are finite for every u (so selecting
    between them never mixes in an inf), one rounding after exp's (e·(1/(1+e)) would take two), ±inf give 1
    and 0, and nan stays nan.
    """

    nargs = 1

    @staticmethod
    def stable_form(u):
        e = sympy.exp(-sympy.Abs(u))
        return sympy.Piecewise((1, u >= 0), (e, True)) / (1 + e)

    def _eval_rewrite_as_exp(self, u, **kwargs):
        return 1 / (1 + sympy.exp(-u))

    def fdiff(self, argindex=1):
        return self * (1 - self)

    def _eval_is_extended_real(self):
        # σ of a real is real (in [0, 1]): without it SymPy wrapped σ in re(...) where an expression took the
        # real part of a power of it (fuzz seed 1919: re(Sigmoid(c0 + x)), which no backend lowers)
        return self.args[0].is_extended_real


def _one_plus_exp(e):
    """`u` when e is 1 + exp(u), else None."""
    if isinstance(e, sympy.Add) and len(e.args) == 2 and sympy.S.One in e.args:
        other = e.args[0] if e.args[1] == 1 else e.args[1]
        if isinstance(other, sympy.exp):
            return other.args[0]
    return None


# 1/(1 + exp(u))**n -> σ(-u)**n  (n a positive integer: the sigmoid's derivative has n = 2)
reciprocal_one_plus_exp = ReplaceOptim(
    lambda e: isinstance(e, sympy.Pow) and e.exp.is_Integer and e.exp < 0 and _one_plus_exp(e.base) is not None,
    lambda e: Sigmoid(-_one_plus_exp(e.base)) ** -e.exp)


def _sigmoid_power(factor, u):
    """n when `factor` is σ(-u)**n (n >= 1), else 0."""
    if factor == Sigmoid(-u):
        return 1
    if isinstance(factor, sympy.Pow) and factor.base == Sigmoid(-u) and factor.exp.is_Integer and factor.exp > 0:
        return int(factor.exp)
    return 0


# exp(u) * σ(-u)**n -> σ(u) * σ(-u)**(n-1)   (what exp(u)/(1 + exp(u))**n becomes after the first rule)
exp_times_sigmoid = ReplaceOptim(
    lambda e: isinstance(e, sympy.Mul) and any(
        isinstance(a, sympy.exp) and any(_sigmoid_power(b, a.args[0]) for b in e.args) for a in e.args),
    lambda e: _merge_exp_sigmoid(e))


def _merge_exp_sigmoid(e):
    for a in e.args:
        if not isinstance(a, sympy.exp):
            continue
        u = a.args[0]
        for b in e.args:
            n = _sigmoid_power(b, u)
            if n:
                rest = [c for c in e.args if c is not a and c is not b]
                return sympy.Mul(*rest) * Sigmoid(u) * Sigmoid(-u) ** (n - 1)
    return e


def _one_minus_sigmoid(e):
    """(the term 1 or -1, the Sigmoid term, u) when the sum `e` holds 1 - σ(u) or σ(u) - 1, else None."""
    if not isinstance(e, sympy.Add):
        return None
    for one, sign in ((sympy.S.One, -1), (sympy.S.NegativeOne, 1)):
        if one not in e.args:
            continue
        for t in e.args:
            s = sign * t
            if isinstance(s, Sigmoid):
                return one, t, s.args[0]
    return None


def _complement_factor(e):
    """(the factor 1 - σ(u) or σ(u) - 1, u) of the product `e` when e also has σ(u) (or a power of it), else None."""
    if not isinstance(e, sympy.Mul):
        return None
    for f in e.args:
        m = _one_minus_sigmoid(f)
        if m is not None and len(f.args) == 2 and any(
                b == Sigmoid(m[2]) or (isinstance(b, sympy.Pow) and b.base == Sigmoid(m[2]) and b.exp.is_Integer
                                       and b.exp > 0) for b in e.args):
            return f, m
    return None


def _sigmoid_complement(e):
    f, (one, _, u) = _complement_factor(e)
    return sympy.Mul(*[a for a in e.args if a is not f]) * one * Sigmoid(-u)


# σ(u)·(1 - σ(u)) -> σ(u)·σ(-u) (and σ(u)·(σ(u) - 1) -> -σ(u)·σ(-u)), the sigmoid's derivative, in any product:
# where σ(u) nears 1 (u > 9 in FLOAT) 1 - σ(u) loses every digit (GLU's d/db, g·a·σ(b)·(1 - σ(b)), was 0 for
# b > 17 and 2.7e4 ulp off at b = 10.8); σ(-u) is the same value with one rounding after exp's.  Only beside
# σ(u): in a sum such as SiLU's σ(x)·(1 + x·(1 - σ(x))) the rule made the full accuracy run FAIL the dual
# standard (1666 ulp, MARE 1.2e-4, against 1186 and 8.6e-5 as written): near that sum's zero x = -1.28, where
# σ(x) < 1/2 and 1 - σ(x) does not cancel, an independently rounded σ(-x) is worse than 1 - σ(x).
one_minus_sigmoid = ReplaceOptim(lambda e: _complement_factor(e) is not None, _sigmoid_complement)


class _ExpMinusOne(FuncMinusOneOptim):
    """exp(u) - 1 -> expm1(u), tried on the expression as written only.  SymPy's own also tries it on
    `expr.factor()` and keeps the cheaper: factoring puts a sum of fractions over one denominator (of degree 14:
    inf/inf = nan where each fraction is finite) and multiplies exponentials out (exp(-(x - 2)**2)*exp(x/2) as
    exp(-4)*exp(9*x/2)*exp(-x**2): inf*0 = nan beyond x = 20), trading range for a few operations."""

    def __call__(self, expr):
        return ReplaceOptim.__call__(self, expr)


# log(1 + u) -> log1p(u), on the expression as written.  SymPy's log1p_opt factors the argument first:
# log(1 + exp(-x**2)) became log1p(exp(x**2)) - x**2, which cancels catastrophically (5% off at x = 3.8) and
# overflows to inf - inf beyond x = 9.4 (found by codegen.fuzz).
log_one_plus = ReplaceOptim(
    lambda e: isinstance(e, sympy.log) and isinstance(e.args[0], sympy.Add) and sympy.S.One in e.args[0].args,
    lambda e: log1p(e.args[0] - 1))

STABILITY_OPTIMS = (reciprocal_one_plus_exp, exp_times_sigmoid, one_minus_sigmoid, _ExpMinusOne(sympy.exp, expm1), log_one_plus) \
    + tuple(o for o in optims_c99 if not isinstance(o, FuncMinusOneOptim) and o is not log1p_opt)


@functools.lru_cache(maxsize=None)
def stabilize(expr):
    """Apply the stability rules until nothing changes.  (Cached: SymPy expressions are immutable and every
    backend lowers every op, so the same expression is stabilised many times per `opgen generate`.)"""
    for _ in range(4):
        new = optimize(expr, STABILITY_OPTIMS)
        if new == expr:
            break
        expr = new
    return expr


# |u| above this takes the scaled root (`scaled_square_roots`): u^2 is finite in FLOAT up to |u| = 1.8e19 = 2^64;
# there u is scaled by 2^-66, so (u 2^-66)^2 lies in [2^-8, 2^124): normal, and finite up to FLOAT's maximum
SCALED_ROOT_FROM = 2.0 ** 62
SCALE_DOWN = sympy.Rational(1, 2**66)


def _square_plus_nonnegative(base, tensors, nonnegative):
    """(u, c) when `base` is u**2 + c, u reading a tensor and c a sum of terms that read none and are >= 0 (by
    SymPy's assumptions, or with the symbols of `nonnegative` taken as >= 0: the op's Requires), else None."""
    if not isinstance(base, sympy.Add):
        return None
    squares = [a for a in base.args if isinstance(a, sympy.Pow) and a.exp == 2 and a.base.free_symbols & tensors]
    if len(squares) != 1:
        return None
    c = base - squares[0]
    if c.free_symbols & tensors:
        return None
    pos = {s: sympy.Dummy(s.name, nonnegative=True) for s in c.free_symbols & set(nonnegative)}
    if not c.subs(pos).is_nonnegative:
        return None
    return squares[0].base, c


def scaled_square_roots(expr, tensors, nonnegative=frozenset()):
    """sqrt(u^2 + c)**k, c >= 0 free of tensors, as (sqrt((u s)^2 + c s^2)/s)**(2k) with s = 2^-66 where |u| > 2^62,
    s = 1 elsewhere: u^2 leaves FLOAT for |u| > 1.8e19 while the root does not (CharbonnierLoss's e/sqrt(e^2 + eps^2)
    was 0 there, the exact result ±1; squareplus's sqrt(x^2 + b)).  Equal for every s > 0: (u s)^2 + c s^2 =
    s^2 (u^2 + c), and sqrt(s^2 w)/s = sqrt(w) (tests/test_rewrites.py proves it with SymPy).  In FLOAT, scaling by
    a power of two is exact (u s is normal, c s^2 negligible beside it where it underflows), so the scaled root
    rounds as the documented one does; `Opaque` keeps u s formed before it is squared (SymPy would write u^2 s^2,
    and u^2 = inf).  With s = 1 it is the documented form, rounding for rounding.  Cost: a compare, two selects
    and three products beside the one root and division (a |u| sqrt(1 + (c/|u|)/|u|) branch beside the documented
    one took a second root and division: C kernels 2x slower).  Hypot (C's hypotf, NumPy's np.hypot) would do the
    same for one c = v^2; the Ascend C vector unit has none, and hypotf keeps a C loop scalar, so every backend
    prints this one expression."""
    from .expansions import Opaque

    def scaled(e):
        u, c = _square_plus_nonnegative(e.base, tensors, nonnegative)
        big = sympy.Abs(u) > SCALED_ROOT_FROM
        s = sympy.Piecewise((SCALE_DOWN, big), (1, True))
        # c s^2 a select between two scalars, each computed once a call: as a product per element it was a
        # subnormal multiplication in every lane (the FLOAT16/BFLOAT16 C kernels 2.5-4x slower), and a subnormal
        # c 2^-132 an operand in every lane (Squareplus at b = 1: 4x); below 2^-100 it is 0 (beside (u s)^2 >= 2^-8)
        small = sympy.Piecewise((c * SCALE_DOWN**2, c > 2**32), (0, True))
        cs2 = sympy.Piecewise((small, big), (c, True))
        root = sympy.sqrt(Opaque(u * s) ** 2 + cs2) / s
        # a power beyond ±1 of the root ((1 + x^2)^(3/2)) keeps root/s formed before it is raised: SymPy would
        # write root^3 * s^-3, the constant s^-3 = 2^198 (or s^3 = 2^-198) outside FLOAT, which the C printer
        # refuses (fuzz seed 3434: tanh((1 + x^2)^(3/2)) did not build), and no other backend can hold either
        n = 2 * e.exp
        return root ** n if abs(n) == 1 else Opaque(root) ** n

    return expr.replace(
        lambda e: isinstance(e, sympy.Pow) and e.exp.is_Rational and e.exp.q == 2
        and _square_plus_nonnegative(e.base, tensors, nonnegative) is not None, scaled)
