"""Printing shared by the backends that print infix expressions (C, NumPy, Ascend C's scalar operands).

Two things SymPy's own printers do not do for kernels, done here once for every backend:

* **Precedence of what is actually printed.**  SymPy decides where parentheses go from the *SymPy* class of a
  subexpression (`parenthesize` asks `precedence(item)`), but a kernel printer often prints a class as another
  operator: `x**2` as `x*x`, `x**-1` as `1.0F/x`, `sqrt(2)` as a literal.  A printer declares the precedence of
  such a form in a `_precedence_<Class>` method next to its `_print_<Class>`, and `parenthesize` asks
  `precedence_of`, which consults those first.  So every operand is parenthesised for the operator it really
  appears under, by SymPy's own `parenthesize` rule, and no override assembles strings that could lose a
  parenthesis (`g*exp(x)*(x - 1)**2/(1 + x**2)**2` once printed as `…/(x*x + 1)*(x*x + 1)`).
* **Constants.**  Every number that is not an integer (`Rational(1, 3)`, `sqrt(2)`, `pi`, `E`, `log(2)`,
  `1/sqrt(2*pi)`, and the `codegen.lower.Const` that groups a product's constant factors) prints as one literal of
  the kernel's type, the value of that type nearest the exact constant (`codegen.backends.literals`).

And the evaluation order that codegen.lower decides and SymPy's printers would not keep (they sort the factors of
a product): the incoming gradient multiplies last.
"""
from __future__ import annotations

import sympy
from sympy.printing.precedence import PRECEDENCE, precedence

from codegen.lower import split_last


def is_constant(expr) -> bool:
    """A real number that is not an integer: printed as one rounded literal (nan, a value where a formula has no
    real result, prints as each language's NaN)."""
    return isinstance(expr, sympy.Expr) and expr.is_number and not expr.is_Integer and not expr.has(sympy.Symbol) \
        and expr is not sympy.nan


class InfixPrinting:
    """Mixin for a SymPy code printer.

    `last` holds the symbols that multiply last (the incoming gradient); a subclass implements `literal(value)`,
    the text of a constant (an exact SymPy number)."""

    last = frozenset()

    # ---- precedence of the printed form -------------------------------------------------------------------
    def precedence_of(self, expr) -> int:
        if is_constant(expr):
            return PRECEDENCE["Atom"] if expr.is_nonnegative else PRECEDENCE["Add"]
        if isinstance(expr, sympy.Basic):
            for cls in type(expr).__mro__:
                hook = getattr(self, f"_precedence_{cls.__name__}", None)
                if hook is not None:
                    out = hook(expr)
                    if out is not None:
                        return out
        return precedence(expr)

    def parenthesize(self, item, level, strict=False):
        """SymPy's rule (parentheses when the item binds no tighter than `level`), on the printed form's
        precedence."""
        p = self.precedence_of(item)
        if p < level or (not strict and p <= level):
            return f"({self._print(item)})"
        return self._print(item)

    def _precedence_Integer(self, expr):
        return PRECEDENCE["Atom"] if expr >= 0 else PRECEDENCE["Add"]

    # ---- constants --------------------------------------------------------------------------------------
    def _print(self, expr, **kwargs):
        if is_constant(expr):
            return self.literal(expr)
        return super()._print(expr, **kwargs)

    def literal(self, value) -> str:
        raise NotImplementedError

    # ---- evaluation order ---------------------------------------------------------------------------------
    def _print_Mul(self, expr):
        """`(rest)*gradient` where codegen.lower.split_last says so (it says why), else the printer's own."""
        split = split_last(expr, self.last)
        if split is None:
            return super()._print_Mul(expr)
        rest, factor = split
        return f"{self.parenthesize(rest, PRECEDENCE['Mul'])}*{self.parenthesize(factor, PRECEDENCE['Mul'])}"

    def _print_CompensatedAdd(self, expr):
        """`((x + hi) + lo)`, the order in which codegen.lower.CompensatedAdd is exact where x cancels hi."""
        x, hi, lo = (self.parenthesize(a, PRECEDENCE["Add"]) for a in expr.args)
        return f"(({x} + {hi}) + {lo})"

    def _precedence_CompensatedAdd(self, expr):
        return PRECEDENCE["Atom"]

    def _fold(self, fn: str, expr) -> str:
        """fn(fn(a, b), c)…: a binary function applied over every argument, in SymPy's argument order."""
        out = self._print(expr.args[0])
        for a in expr.args[1:]:
            out = f"{fn}({out}, {self._print(a)})"
        return out


# the old name, for code that imports it
EvaluationOrder = InfixPrinting
