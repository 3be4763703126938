"""Sums that cancel: found in the lowered backward, and computed so that FLOAT rounding does not become their error.

A sum whose terms SymPy cannot prove to share a sign, and one of whose terms is a rounded transcendental result
(exp, erfc, a sigmoid, ...), can cancel: where its terms nearly cancel, each term's FLOAT rounding (a few ulps of
the term) becomes a relative error of the result of any size.  GeluBackwardV2's Φ(x) + x·φ(x) has a root at
x0 = -0.7518 where both terms are 0.226 (the C and Ascend C kernels missed the dual ten-thousandth standard);
BCE-with-logits' σ(x) - t cancels wherever the sigmoid is close to the target.  No FLOAT evaluation order helps:
the result is ill-conditioned in the terms.  Two remedies, chosen by what the sum depends on:

* **One tensor, no scalar** (`root_expansion`): the framework finds the sum's real roots where its terms cancel
  (a sign scan, refined by mpmath at 40 digits) and, within a window about each root, evaluates the Taylor
  polynomial of the sum in d = (x - hi) - lo, with x0 = hi + lo carried in two FLOATs: x - hi is exact (Sterbenz)
  beside the root, so d has one rounding relative to itself and the polynomial's result a few ulps.  The window
  is where the FLOAT sum would be worse than `TARGET` (its terms' ulps over |sum|); the degree is the smallest
  whose polynomial is within `FIT` of the sum across the window (at 40 digits).  FLOAT arithmetic only: every
  backend prints it, at the cost of one comparison and a select, plus the polynomial.
* **Anything else** (several tensors, or a scalar parameter: the cancellation is a curve, or moves with the
  scalar), when its transcendentals are exp and the sigmoid only (the functions every backend can widen):
  `Extended(sum)`, the sum and its terms evaluated in more than FLOAT precision and rounded once.  NumPy and
  the C kernels compute it in double (their CPUs have it cheaply); the Ascend C vector unit has no double, and
  its kernels carry the terms as double-float pairs (hi + lo) through the sum (codegen.backends.ascendc.doublefloat).

A polynomial of degree two or more in one tensor alone (TanhGrad's 1 - y*y, whose products are rounded) takes the
first remedy too, about its real roots.  Other sums are left alone: terms that provably share a sign, or no
transcendental term (an exact affine form is codegen.lower's business).  Within a handled sum nothing more is
looked for.
"""
from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
import sympy
from sympy.codegen.cfunctions import expm1, log1p

TARGET = 1e-5        # relative error the FLOAT sum may have outside a root's window (a tenth of the 1e-4 standard)
FIT = 2.0 ** -26     # the Taylor polynomial's relative error across the window, at 40 digits (a quarter ulp)
ROUNDING = 16 * 2.0 ** -24   # a FLOAT term's error, relative to the term (erfc's expansion: 4.85 ulp, and the sum's)
SCAN = 30.0          # roots are looked for in [-SCAN, SCAN] (beyond, every activation's terms have separated)
MAX_DEGREE = 20


class Extended(sympy.Function):
    """Its argument, a sum that cancels, evaluated in more than FLOAT precision and rounded once to FLOAT (NumPy
    and C: double; Ascend C: double-float pairs).  Lowering leaves no FLOAT temporary inside it."""

    nargs = 1
    is_real = True


def _transcendental_types():
    from .rewrite import Sigmoid
    return (sympy.exp, sympy.log, sympy.erf, sympy.erfc, sympy.tanh, Sigmoid, expm1, log1p)


def _has_transcendental(e) -> bool:
    kinds = _transcendental_types()
    return any(isinstance(a, kinds) for a in sympy.preorder_traversal(e))


def cancels(expr) -> bool:
    """Whether `expr` is a sum that can cancel: a rounded transcendental term, and terms not proven one sign."""
    if not isinstance(expr, sympy.Add) or len(expr.args) < 2:
        return False
    terms = [a for a in expr.args if not a.is_number]
    if not terms or not any(_has_transcendental(t) for t in expr.args):
        return False
    return not (all(t.is_nonnegative for t in expr.args) or all(t.is_nonpositive for t in expr.args))


def guard(expr, tensors: set, scalars: set):
    """`expr` with every sum that can cancel (outermost first) computed as above; conditions are left alone."""
    if not isinstance(expr, sympy.Basic) or expr.is_Atom or isinstance(
            expr, (sympy.core.relational.Relational, sympy.logic.boolalg.BooleanFunction, Extended)):
        return expr
    if isinstance(expr, sympy.Piecewise):
        return sympy.Piecewise(*[(guard(e, tensors, scalars), c) for e, c in expr.args])
    if _polynomial_in_one(expr, tensors):
        # (a product of the tensor with itself is rounded: TanhGrad's 1 - y*y is 1000 ulps off beside y = ±1)
        expanded = root_expansion(expr, next(iter(expr.free_symbols)), on_grid=True)
        if expanded is not None:
            return expanded
    elif cancels(expr):
        free = expr.free_symbols
        if len(free & tensors) == 1 and not free - tensors:
            (x,) = free
            expanded = root_expansion(expr, x)
            if expanded is not None:
                return expanded
            return expr.func(*[guard(a, tensors, scalars) for a in expr.args])
        if _carried_by_every_backend(expr):
            return Extended(expr)
    guarded = expr.func(*[guard(a, tensors, scalars) for a in expr.args])
    return _fold_into_extended(guarded) if isinstance(guarded, sympy.Mul) else guarded


def _fold_into_extended(product):
    """A product of an `Extended` sum that can leave FLOAT's range and factors every backend can widen, as one
    `Extended` product.  SwishBackward's σ(βx)·(1 + βx·(1 - σ(βx))): where |β·x| is beyond FLOAT, the sum is -1e40
    in double, -inf once rounded, and σ(βx) is 0 — rounded before the product, -inf·0 = nan where the limit is -0;
    multiplied first in double, 0·-1e40 = -0, rounded once.  Only a sum with a term that multiplies two symbols
    (β·x) can overflow where its operands do not (σ(x) - t, 1 + x·(1 - σ(x)) stay within FLOAT), so other products
    keep their FLOAT factors (no double arithmetic for nothing)."""
    sums = [a for a in product.args if isinstance(a, Extended) and _can_leave_float(a.args[0])]
    if len(sums) != 1:
        return product
    others = [a for a in product.args if a is not sums[0]]
    if not all(_widenable(a) for a in others):
        return product
    return Extended(sympy.Mul(sums[0].args[0], *others))


def _can_leave_float(total) -> bool:
    """Whether a term of the sum multiplies two or more symbols (with a power of one counted as several)."""
    def degree(term):
        return sum(int(e) if e.is_Integer and e > 0 else 0
                   for b, e in (f.as_base_exp() for f in sympy.Mul.make_args(term)) if b.is_Symbol)
    return any(degree(t) >= 2 for t in sympy.Add.make_args(total))


def _widenable(factor) -> bool:
    """A factor the Extended printers evaluate in double (pairs on Ascend C): numbers, symbols, and sums, products
    and powers of them whose transcendentals are exp and the sigmoid; no condition or Piecewise."""
    if any(isinstance(a, (sympy.Piecewise, sympy.core.relational.Relational, Extended))
           for a in sympy.preorder_traversal(factor)):
        return False
    return _carried_by_every_backend(factor)


def _polynomial_in_one(expr, tensors: set) -> bool:
    """Whether `expr` is a sum that is a polynomial of degree two or more in one tensor and nothing else (no scalar,
    no transcendental): 1 - y**2.  Its products are rounded, so it cancels where its terms meet, at its real roots
    (root_expansion finds those where the terms do not all vanish: none for 1 + c*x**2, nor at 0 for x + c*x**3).
    An affine sum is exact_affine's (codegen.lower); a polynomial in several tensors or with a scalar is left as
    it is."""
    if not isinstance(expr, sympy.Add) or _has_transcendental(expr):
        return False
    free = expr.free_symbols
    if len(free) != 1 or not free <= tensors:
        return False
    try:
        return sympy.Poly(_numeric(expr), *free).degree() >= 2
    except sympy.PolynomialError:
        return False


def _carried_by_every_backend(expr) -> bool:
    """Whether every transcendental in the sum is one every backend evaluates wider than FLOAT: NumPy and C have
    double for all of them, the Ascend C pairs only exp and the sigmoid (codegen.backends.ascendc.doublefloat; a
    log or tanh enters the pair as its FLOAT value).  A sum with another function is left in FLOAT everywhere:
    wider on two backends only, they would differ from Ascend C by the rounding the widening removes (the long
    hostile fuzz found KlDivTargetBackward's g·(log t + 1 - x) 107 ulps apart), and it would be slower for nothing
    on the backend that cannot carry it."""
    from .rewrite import Sigmoid
    kinds = _transcendental_types()
    return all(isinstance(a, (sympy.exp, Sigmoid)) for a in sympy.preorder_traversal(expr) if isinstance(a, kinds))


# ---- roots ------------------------------------------------------------------------------------------------------

def _numeric(expr):
    """The expression with each lowered constant (codegen.lower.Const) as its exact value, and sigmoids as exps."""
    from .lower import exact_constants
    from .rewrite import Sigmoid
    e = exact_constants(expr)
    return e.replace(lambda a: isinstance(a, Sigmoid), lambda a: 1 / (1 + sympy.exp(-a.args[0])))


def _mp(expr, x):
    return sympy.lambdify(x, _numeric(expr), modules="mpmath")


def _float32(v) -> float:
    return float(np.float32(float(v)))


@functools.lru_cache(maxsize=None)
def root_expansion(expr, x, on_grid: bool = False):
    """Piecewise((Taylor polynomial about each root where the terms cancel, within its window)..., (expr, True)),
    or None when the sum has no such root in [-SCAN, SCAN].  `on_grid`: also a root exactly on the scan's grid
    (a polynomial's 1 - y**2 at y = 1; for a transcendental sum such a root was never looked for, and the
    spec fuzzer's formulas show its expansions can grow past what a printer nests)."""
    from .expansions import Opaque, horner, signed_const
    with mpmath.workdps(40):
        f = _mp(expr, x)
        terms = [_mp(t, x) for t in expr.args]
        roots = _roots(f, terms, on_grid)
        branches = []
        for x0 in roots:
            try:
                window = _window(f, terms, x0)
                coeffs = None if window is None else _taylor(f, x0, window)
            except (ValueError, ZeroDivisionError, TypeError, OverflowError, NameError):   # not analytic there: no expansion
                continue
            if coeffs is None:
                continue
            hi = _float32(x0)
            lo = x0 - mpmath.mpf(hi)
            d = Opaque(x + signed_const(-sympy.Rational(hi)))
            if lo != 0:   # (a root that is a FLOAT, y = 1 in 1 - y**2, needs no low half)
                d = Opaque(d + signed_const(-sympy.Rational(float(lo))))
            poly = d * horner([sympy.Rational(float(c)) for c in coeffs[1:]], d)
            branches.append((poly, sympy.Abs(d) < signed_const(sympy.Rational(window))))
    if not branches:
        return None
    return sympy.Piecewise(*branches, (expr, True))


def _roots(f, terms, on_grid: bool = False) -> list:
    """The simple roots of f in [-SCAN, SCAN] where its terms do not all vanish: sign changes on a grid, refined."""
    grid = [mpmath.mpf(v) for v in np.linspace(-SCAN, SCAN, 1201)]
    with mpmath.workdps(15):   # (the signs only: a coarse, fast scan)
        values = [_value(f, v) for v in grid]
    roots = []
    for a, b, fa, fb in zip(grid, grid[1:], values, values[1:]):
        if fa is None or fb is None:
            continue
        try:
            if fa == 0 and on_grid:   # a root on the grid itself (1 - y**2 at y = 1): once, from the interval it starts
                r = a
            elif fa == 0:
                continue
            elif fb == 0 or (fa > 0) == (fb > 0):
                continue
            else:
                r = mpmath.findroot(f, (a, b), solver="anderson")
            if mpmath.im(r) != 0 or not a <= r <= b:
                continue
            if max(abs(t(r)) for t in terms) > 0 and abs(mpmath.diff(f, r)) > 0:
                roots.append(r)
        except (ValueError, ZeroDivisionError, TypeError, OverflowError, NameError):
            continue
    return roots


def _value(f, v):
    try:
        y = f(v)
    except (ValueError, ZeroDivisionError, TypeError, OverflowError, NameError):
        return None
    return y if mpmath.isfinite(y) and mpmath.im(y) == 0 else None


def _window(f, terms, x0):
    """The half-width w (a short FLOAT) beyond which, on both sides, the FLOAT sum is within TARGET: where
    ROUNDING times the sum of the terms' magnitudes is below TARGET·|f|."""
    def bad(x):
        fx = f(x)
        return ROUNDING * sum(abs(t(x)) for t in terms) > TARGET * abs(fx)
    width = mpmath.mpf(0)
    for side in (-1, 1):
        lo, hi = mpmath.mpf(0), mpmath.mpf(2.0 ** -20)
        while bad(x0 + side * hi):
            lo, hi = hi, hi * 2
            if hi > 4:
                return None
        for _ in range(40):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if bad(x0 + side * mid) else (lo, mid)
        width = max(width, hi)
    # rounded up to 3 significant bits: a FLOAT the comparison holds exactly, never narrower than needed
    e = math.floor(math.log2(float(width)))
    return math.ceil(float(width) / 2.0 ** (e - 2)) * 2.0 ** (e - 2)


def _taylor(f, x0, window):
    """[f(x0) = 0, f'(x0), f''(x0)/2, ...] up to the smallest degree within FIT of f across the window, or None."""
    coeffs = mpmath.taylor(f, x0, MAX_DEGREE)
    points = [x0 + window * mpmath.mpf(k) / 64 for k in range(-64, 65) if k]
    exact = [f(p) for p in points]
    for n in range(2, MAX_DEGREE + 1):
        if all(abs(mpmath.polyval(coeffs[n::-1], p - x0) - y) <= FIT * abs(y) for p, y in zip(points, exact)):
            return coeffs[:n + 1]
    return None
