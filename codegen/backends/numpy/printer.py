"""SymPy → NumPy source for the reference kernels."""
from __future__ import annotations

import sympy
from sympy.printing.numpy import NumPyPrinter
from codegen.backends.infix import EvaluationOrder


class KernelNumPyPrinter(EvaluationOrder, NumPyPrinter):
    """NumPyPrinter printing `np.` names, infix comparisons and nested `_where` (np.where as a bitwise select,
    codegen.runtime.blocks).

    `names` maps symbols to the identifiers of the generated code (parameter names in snake_case).
    """

    _module = "numpy"

    def __init__(self, names: dict | None = None, settings=None, last=frozenset()):
        super().__init__(settings or {"fully_qualified_modules": True})
        self.names = names or {}
        self.last = last

    def _module_format(self, fqn, register=True):
        """Customizations: `import numpy as np` in generated code, so print `np.exp`, not `numpy.exp`."""
        out = super()._module_format(fqn, register)
        return "np." + out[len("numpy."):] if out.startswith("numpy.") else out

    def _print_Symbol(self, expr):
        """Customizations: parameters print as their snake_case argument names."""
        return self.names.get(expr, super()._print_Symbol(expr))

    def _print_Piecewise(self, expr):
        """Customizations: nested `_where` (np.where, faster: codegen.runtime.blocks) instead of `numpy.select`.

        `select` needs a default (SymPy passes nan) and builds every condition list up front; `where` nests
        the ordered branches exactly as Piecewise reads.  Every branch is still evaluated for every element,
        so the expressions reaching here must be finite on all inputs (codegen.rewrite makes them so)."""
        args = list(expr.args)
        if args[-1][1] != sympy.true:
            raise ValueError(f"Piecewise without a final True branch: {expr}")
        out = self._print(args[-1][0])
        for e, c in reversed(args[:-1]):
            out = f"_where({self._print(c)}, {self._print(e)}, {out})"
        return out

    def _print_Relational(self, expr):
        """Customizations: infix `(a > b)`; it reads like the docs and NumPy broadcasts it the same way."""
        ops = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
        return f"({self._print(expr.lhs)} {ops[expr.rel_op]} {self._print(expr.rhs)})"

    def _print_And(self, expr):
        """Customizations: elementwise `&` of parenthesised comparisons."""
        return "(" + " & ".join(self._print(a) for a in expr.args) + ")"

    def _print_Or(self, expr):
        """Customizations: elementwise `|` of parenthesised comparisons."""
        return "(" + " | ".join(self._print(a) for a in expr.args) + ")"

    def _print_Not(self, expr):
        return f"(~{self._print(expr.args[0])})"

    def _fold(self, fn: str, expr) -> str:
        """fn(fn(a, b), c)…: a binary ufunc applied over every argument."""
        out = self._print(expr.args[0])
        for a in expr.args[1:]:
            out = f"{fn}({out}, {self._print(a)})"
        return out

    def _print_Max(self, expr):
        """Customizations: nested `np.maximum` (SymPy prints a functools.reduce)."""
        return self._fold("np.maximum", expr)

    def _print_Min(self, expr):
        return self._fold("np.minimum", expr)

    def _print_exp(self, expr):
        """Customizations: the module's `_exp` helper (FLOAT exp rounded once from float64)."""
        return f"_exp({self._print(expr.args[0])})"

    def _print_Sigmoid(self, expr):
        """Customizations: calls the module's stable `_sigmoid` helper (printed from Sigmoid.stable_form)."""
        return f"_sigmoid({self._print(expr.args[0])})"

    def _print_Pow(self, expr, rational=False):
        """Customizations: `1/b` for b**-1 and `np.sqrt` for b**(1/2); SymPy prints `b**(-1.0)`, a float
        power that reads worse and costs a pow per element."""
        if expr.exp == -1:
            return f"1/{self.parenthesize(expr.base, 100)}"
        if expr.exp == sympy.Rational(1, 2):
            return f"np.sqrt({self._print(expr.base)})"
        if expr.exp.is_Integer:
            return f"{self.parenthesize(expr.base, 100)}**{expr.exp}"
        return super()._print_Pow(expr, rational=rational)

    def _print_Abs(self, expr):
        return f"np.abs({self._print(expr.args[0])})"

    def _print_Rational(self, expr):
        """Customizations: `1/3` stays a Python float literal, which NumPy treats as weakly typed (no upcast)."""
        return f"{expr.p}/{expr.q}"

    def _print_Integer(self, expr):
        return str(expr.p)
