"""A tensor element clamped where every bounded function of it has saturated: `saturation_clamps`.

FastGeluBackward's σ(kx)·(1 - kx·(σ(kx) - 1))·g forms kx, ±inf for |x| > 2.0e38 (k = 1.702), where σ(kx) is 0
or 1: (σ - 1)·kx is 0·inf = nan, and σ·(kx + 1) is 0·(-inf) = nan, where the answer is g or 0.  GeGlu's tanh
form, b·σ(u)σ(-u)·(1 + 0.134b²) with u = 1.596(b + 0.0447b³), forms b², inf for |b| > 1.8e19, where σ(-u) = 0.
No order of the product helps: the operand itself is inf.  But beyond some |x| = X the value no longer depends on
x at all, in FLOAT as in the mathematics: every sigmoid of x is exactly 0 or 1 (and every tanh ±1), and with
those values the expression is free of x.  So x is clamped to [-X, X] first (`Max(-X, Min(x, X))`, nan kept
nan by every backend's Max/Min, ±inf become ±X: the exact limits, where the unclamped kernel gave nan), and the
kernel's value changes for no finite x:

* saturation in FLOAT: the kernel's σ(u) (`Sigmoid.stable_form`, e = exp(-|u|), e/(1+e) or 1/(1+e)) is exactly 0
  for u <= -104 (e^-104 = 6.8e-46 is below half the least subnormal, 2^-150 = 7.0e-46) and exactly 1 for
  u >= 17.4 (e^-17.4 < 2^-25, so 1 + e rounds to 1); tanh (codegen.expansions.tanh_form, (1 - e)/(1 + e) with
  e = exp(-2|u|)) is exactly ±1 for |u| >= 9.  X is chosen (a power of two, exact) so that |u(x)| >= `SATURATED`
  = 128 for every |x| >= X and every such function u of x, with margin for u's rounding;
* the saturated expression (each σ(u) replaced by 0 or 1 as u tends to ±inf with x, each tanh by ±1) is checked
  symbolically to be free of x at both ends, so beyond X the kernel computes the same terms of 0 and 1 whatever x
  is: x only enters through products with a factor that is now exactly 0 (its magnitude, finite or clamped, does
  not matter; its sign does not either: beyond X every polynomial factor of x keeps its sign, X being past u's
  roots and its derivative's).

Applied only where it is needed: a tensor element some product or power of which (a polynomial of it alone) can
leave FLOAT for a FLOAT input (1.702x, b²).  SiLU's x·(1 - σ(x)) cannot and keeps its kernel.  Only arguments that
are polynomials of the one element (numbers as coefficients, no scalar parameter: the bound X must be a number).
"""
from __future__ import annotations

import math

import sympy

_MAX_OPS = 200    # larger expressions are left alone (the catalog's are below 60)
SATURATED = 128   # |u| past which every backend's σ(u) is exactly 0 or 1 and tanh(u) exactly ±1 (see above)
_MAX_FLOAT = sympy.Float(3.4028234663852886e38)


def _bounded(expr) -> list:
    from .rewrite import Sigmoid
    return [a for a in sympy.preorder_traversal(expr) if isinstance(a, (Sigmoid, sympy.tanh))]


def _saturated_at(f, x, end: int):
    """σ(u) or tanh(u) as x -> end*inf (u a polynomial of x: the sign of its leading term there)."""
    from .rewrite import Sigmoid
    p = sympy.Poly(f.args[0], x)
    up = bool(p.LC() * end ** p.degree() > 0)
    if isinstance(f, Sigmoid):
        return sympy.S.One if up else sympy.S.Zero
    return sympy.S.One if up else sympy.S.NegativeOne


def _bound(u, x) -> int | None:
    """The least power of two X with |u(x)| >= SATURATED and u monotone for |x| >= X, or None (u not a polynomial
    of x with numeric coefficients and a degree from 1 to 5)."""
    try:
        p = sympy.Poly(u, x)
    except sympy.PolynomialError:
        return None
    if not 1 <= p.degree() <= 5 or not all(c.is_number and c.is_real for c in p.all_coeffs()):
        return None
    # (the square-free part: the same roots, each once; nroots does not converge at a multiple root, and u = x**3's
    # derivative 3x**2 crashed the lowering of every backend: fuzz9, tests/regression/saturate_double_root)
    edges = [abs(complex(r)) for q in (p - SATURATED, p + SATURATED, p.diff(x)) if q.degree() > 0
             for r in q.sqf_part().nroots(n=30) if abs(complex(r).imag) < 1e-20]
    edge = max(edges, default=1.0)
    return 2 ** max(0, math.ceil(math.log2(edge * 1.0001)))


def _can_leave_float(expr, x, dummies) -> bool:
    """Whether a product or power of x alone (with its numbers) in expr exceeds FLOAT's range at |x| = max."""
    for a in sympy.preorder_traversal(expr):
        if isinstance(a, sympy.Mul):
            part = sympy.Mul(*[f for f in a.args if f.free_symbols <= {x}])
        elif isinstance(a, (sympy.Pow, sympy.Add)) and a.free_symbols == {x}:
            part = a
        else:
            continue
        if x not in part.free_symbols or part.free_symbols & dummies or not part.is_polynomial(x):
            continue
        p = sympy.Poly(part, x)   # (a polynomial of degree <= 5 only: 2**x at 3e38 would exhaust memory)
        if p.degree() > 5 or not all(c.is_number for c in p.all_coeffs()):
            continue
        for end in (_MAX_FLOAT, -_MAX_FLOAT):
            v = p.eval(end)
            if v.is_number and (not v.is_finite or abs(v) > _MAX_FLOAT):
                return True
    return False


def saturation_clamps(expr, tensors: set) -> dict:
    """{x: X} for each tensor element x of `expr` that is clamped to [-X, X] (see the module docstring)."""
    found = {}
    if sympy.count_ops(expr) > _MAX_OPS:   # (SymPy's work below grows fast with the size: fuzz formulas)
        return found
    bounded = _bounded(expr)
    for x in sorted(tensors & expr.free_symbols, key=str):
        own = [f for f in bounded if f.args[0].free_symbols == {x}]
        if not own or any(x in f.args[0].free_symbols for f in bounded if f not in own):
            continue
        bounds = [_bound(f.args[0], x) for f in own]
        if None in bounds:
            continue
        dummies = {sympy.Dummy() for _ in own}
        plain = expr.xreplace(dict(zip(own, dummies)))
        if not _can_leave_float(plain, x, dummies):
            continue
        # SymPy's own evaluation only (x*0 is 0), no simplify: an expression it leaves in x is not clamped
        if all(x not in expr.xreplace({f: _saturated_at(f, x, end) for f in own}).free_symbols
               for end in (1, -1)):
            found[x] = max(bounds)
    return found


def clamped(x, bound):
    """x clamped to [-bound, bound]; nan stays nan (every backend's Max/Min keeps a nan operand)."""
    return sympy.Max(-bound, sympy.Min(x, bound))
