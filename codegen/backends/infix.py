"""Printing shared by the backends that print infix expressions (C and NumPy): the evaluation order that
codegen.lower decides and SymPy's own printers would not keep (they sort the factors of a product)."""
from __future__ import annotations

from sympy.printing.precedence import PRECEDENCE

from codegen.lower import split_last


class EvaluationOrder:
    """Mixin for a SymPy code printer; `last` holds the symbols that multiply last (the incoming gradient)."""

    last = frozenset()

    def _print_Mul(self, expr):
        """`(rest)*gradient` where codegen.lower.split_last says so (it says why), else the printer's own."""
        split = split_last(expr, self.last)
        if split is None:
            return super()._print_Mul(expr)
        rest, factor = split
        return f"{self.parenthesize(rest, PRECEDENCE['Mul'])}*{self.parenthesize(factor, PRECEDENCE['Mul'])}"

    def _print_CompensatedAdd(self, expr):
        """`((x + hi) + lo)`, the order in which codegen.lower.CompensatedAdd is exact where x cancels hi."""
        x, hi, lo = (self._print(a) for a in expr.args)
        return f"(({x} + {hi}) + {lo})"
