"""A sine or cosine of a product of two FLOAT values, computed from the exact product where that product is large.

A kernel rounds the argument u = a*b to FLOAT before the sine: fl(u) is off by up to |u|*2^-24, so beyond a few
thousand sin(fl(u)) is no longer near sin(u), and beyond 2^24 it is arbitrary; beyond FLOAT's largest, fl(u) is
±inf and the sine nan.  SnakeBackward's sin(alpha*x) at x = 3e38, alpha = 0.8948 gave gradAlpha 2.29e37 for the
exact -1.08e38 (fl(alpha*x) = 2.6844e38 is 2.7e30 from alpha*x); at alpha = 3e38, x = -5.8 it gave nan where the
gradient is 0.44.  The product of two FLOATs is exact in double (48 bits), and a double sine reduces its argument
over the whole double range: sin((double)a*(double)b) rounded once to FLOAT is the correctly reduced value.

So `exact_arguments` rewrites each sin(u) and cos(u) (in the temporaries and the result after CSE) whose argument
is such a product, of two FLOAT values (tensor elements, scalars, temporaries, numbers as the FLOAT nearest them; a
power of two aside, whose product FLOAT holds exactly) or a square of one, as

    Piecewise((ExactArgument(sin(a*b)), |fl(u)| > 2^16), (sin(fl(u)), True))

The second branch is what the kernel computed before, so every element with |fl(u)| <= 2^16 keeps its bits (and
the speed: one comparison; C's sinf and cosf are scalar library calls already); the first is computed by NumPy and C
in double from the two FLOAT values.  2^16 is where the Ascend C form's own reduction changes method
(codegen.expansions.SIN_REDUCED_UP_TO) and where the accuracy inputs' zeros of the sine end (docs/accuracy.md):
below it fl(u) is within 2^-8 of u, an error the documented formula's bound (codegen.accuracy.bound) carries.
A nan argument keeps the FLOAT branch (nan either way); an infinite one takes the wide branch (sin(inf) = nan).
Ascend C, which has no double, computes the FLOAT branch alone (`narrow`): its kernels keep fl(u), as before.
"""
from __future__ import annotations

import math

import sympy

WIDE_FROM = sympy.Integer(2) ** 16   # |fl(u)| beyond: the argument from the exact product


class ExactArgument(sympy.Function):
    """sin(a*b) or cos(a*b), a and b FLOAT values: computed in double from them (exact: 48 bits) and rounded once
    to FLOAT (C: `(float)sin((double)a*(double)b)`; NumPy: float64).  In a DOUBLE kernel, as it stands."""

    nargs = 1
    is_real = True


def _float_value(a) -> bool:
    """A value the FLOAT kernel holds as a FLOAT: a symbol (an element, a scalar, a temporary) or a number (every
    backend prints it as the FLOAT nearest it)."""
    from .lower import Const
    if isinstance(a, sympy.Symbol):
        return True
    value = a.value if isinstance(a, Const) else a
    return bool(value.is_number and value.is_real) and math.isfinite(float(value))


def _power_of_two(a) -> bool:
    from .lower import Const
    value = a.value if isinstance(a, Const) else a
    if not (value.is_number and value.is_real):
        return False
    v = abs(float(value))
    return v > 0 and math.frexp(v)[0] == 0.5


def exact_product(u, defs: dict):
    """The product a*b of two FLOAT values that `u` (or the temporary `u`) is, as an expression of those values,
    or None: alpha*x, omega0*x, x**2; not a product with -1 or another power of two (exact in FLOAT already)."""
    e = defs.get(u, u)
    if isinstance(e, sympy.Pow) and e.exp == 2 and isinstance(e.base, sympy.Symbol):
        return e
    if not isinstance(e, sympy.Mul) or len(e.args) != 2:
        return None
    if any(_power_of_two(a) for a in e.args) or not all(_float_value(a) for a in e.args):
        return None
    return e


def exact_arguments(temps, result):
    """(temps, result) with each sin(u) and cos(u) whose argument is an exact product (`exact_product`) computed
    as the module docstring says."""
    defs = dict(temps)

    def wide(f):
        product = exact_product(f.args[0], defs)
        if product is None:
            return f
        return sympy.Piecewise((ExactArgument(f.func(product)), sympy.Abs(f.args[0]) > WIDE_FROM), (f, True))

    def rewrite(e):
        return e.replace(lambda a: isinstance(a, (sympy.sin, sympy.cos)), wide)
    return [(s, rewrite(e)) for s, e in temps], rewrite(result)


def is_exact_branch(piecewise) -> bool:
    """Whether a Piecewise is one `exact_arguments` wrote (its first branch an ExactArgument)."""
    return isinstance(piecewise, sympy.Piecewise) and isinstance(piecewise.args[0][0], ExactArgument)


def narrow(piecewise):
    """The FLOAT branch of such a Piecewise: what a backend without double computes (Ascend C)."""
    return piecewise.args[-1][0]


def narrowed(temps, result):
    """(temps, result) with each such Piecewise its FLOAT branch (a complex kernel: |u| > 2^16 tests no complex u)."""
    def go(e):
        return e.replace(is_exact_branch, narrow)
    return [(s, go(e)) for s, e in temps], go(result)
