"""SymPy → NumPy source for the reference kernels.

The kernels compute in FLOAT (float32 arrays); every transcendental function is evaluated in float64 and rounded
once to FLOAT (`_exp`, defined in the kernel module; the others in codegen.runtime.mathf), so this reference is
at least as accurate as the kernels it judges.  Parentheses and constants: codegen.backends.infix.
"""
from __future__ import annotations

import sympy
from sympy.printing.numpy import NumPyPrinter
from sympy.printing.precedence import PRECEDENCE

from codegen.backends import literals
from codegen.backends.infix import InfixPrinting

ATOM = PRECEDENCE["Atom"]
FUNC = PRECEDENCE["Func"]
MUL = PRECEDENCE["Mul"]
POW = PRECEDENCE["Pow"]

# SymPy function -> the codegen.runtime.mathf function that evaluates it (float64, rounded once to FLOAT)
MATHF = {"expm1": "expm1", "log": "log", "log1p": "log1p", "tanh": "tanh", "erf": "erf", "erfc": "erfc", "cosh": "cosh",
         "sinh": "sinh", "sin": "sin", "cos": "cos"}


class KernelNumPyPrinter(InfixPrinting, NumPyPrinter):
    """NumPyPrinter printing `np.` names, infix comparisons and nested `_where` (np.where as a bitwise select,
    codegen.runtime.blocks).

    `names` maps symbols to the identifiers of the generated code (parameter names in snake_case).  `used`
    collects the module-level helpers the printed code calls (`_exp`, `_where`, `_sigmoid`, `_mathf`), so the
    emitter defines or imports exactly those.
    """

    _module = "numpy"

    def __init__(self, names: dict | None = None, settings=None, last=frozenset()):
        super().__init__(settings or {"fully_qualified_modules": True})
        self.names = names or {}
        self.last = last
        self.used = set()
        # the float64 locals a sum computed in double (Extended) reads instead of a float64 copy of the FLOAT one:
        # the kernel's real constants and row sums, unrounded (emit._wide)
        self.wide_names = {}

    def literal(self, value) -> str:
        """The FLOAT nearest the constant, written as the double it is exactly (NumPy's cast to float32 of this
        Python float is then exact: no second rounding)."""
        return literals.python_float32(value)

    def _module_format(self, fqn, register=True):
        """Customizations: `import numpy as np` in generated code, so print `np.exp`, not `numpy.exp`."""
        out = super()._module_format(fqn, register)
        return "np." + out[len("numpy."):] if out.startswith("numpy.") else out

    def _print_Symbol(self, expr):
        """Customizations: parameters print as their snake_case argument names."""
        return self.names.get(expr, super()._print_Symbol(expr))

    def _print_Integer(self, expr):
        return str(expr.p)

    def _call(self, name: str, *args) -> str:
        return f"{name}({', '.join(self._print(a) for a in args)})"

    # ---- conditions ---------------------------------------------------------------------------------------
    def _print_Piecewise(self, expr):
        """Customizations: nested `_where` (np.where, faster: codegen.runtime.blocks) instead of `numpy.select`.

        `select` needs a default (SymPy passes nan) and builds every condition list up front; `where` nests
        the ordered branches exactly as Piecewise reads.  Every branch is still evaluated for every element,
        so the expressions reaching here must be finite on all inputs (codegen.rewrite makes them so)."""
        args = list(expr.args)
        if args[-1][1] != sympy.true:
            raise ValueError(f"Piecewise without a final True branch: {expr}")
        self.used.add("_where")
        out = self._print(args[-1][0])
        for e, c in reversed(args[:-1]):
            out = f"_where({self._print(c)}, {self._print(e)}, {out})"
        return out

    def _print_Relational(self, expr):
        """Customizations: infix `(a > b)`, in parentheses (Python's `&` binds tighter than `>`)."""
        return f"({self._print(expr.lhs)} {expr.rel_op} {self._print(expr.rhs)})"

    def _precedence_Relational(self, expr):
        return ATOM

    def _print_And(self, expr):
        """Customizations: elementwise `&` of parenthesised comparisons."""
        return "(" + " & ".join(self._print(a) for a in expr.args) + ")"

    def _print_Or(self, expr):
        """Customizations: elementwise `|` of parenthesised comparisons."""
        return "(" + " | ".join(self._print(a) for a in expr.args) + ")"

    def _print_Not(self, expr):
        return f"(~{self._print(expr.args[0])})"

    def _precedence_BooleanFunction(self, expr):
        return ATOM   # And/Or/Not print in parentheses

    # ---- functions ----------------------------------------------------------------------------------------
    def _print_Max(self, expr):
        """Customizations: nested `np.maximum` (SymPy prints a functools.reduce); nan-propagating."""
        return self._fold("np.maximum", expr)

    def _print_Min(self, expr):
        return self._fold("np.minimum", expr)

    def _print_exp(self, expr):
        """Customizations: the module's `_exp` helper (FLOAT exp rounded once from float64)."""
        self.used.add("_exp")
        return self._call("_exp", expr.args[0])

    def _mathf(self, expr):
        self.used.add("_mathf")
        return self._call(f"_mathf.{MATHF[type(expr).__name__]}", expr.args[0])

    _print_expm1 = _print_log = _print_log1p = _print_tanh = _print_erf = _print_erfc = _mathf
    _print_cosh = _print_sinh = _print_sin = _print_cos = _mathf

    def _print_Sigmoid(self, expr):
        """Customizations: calls the module's stable `_sigmoid` helper (printed from Sigmoid.stable_form)."""
        self.used.add("_sigmoid")
        return self._call("_sigmoid", expr.args[0])

    def _print_Abs(self, expr):
        return self._call("np.abs", expr.args[0])

    def _print_ExactArgument(self, expr):
        """sin or cos of a product of two FLOATs (codegen.trig_arguments): of the product in float64 (exact),
        rounded once to FLOAT."""
        f = expr.args[0]
        a, b = (f.args[0].base,) * 2 if isinstance(f.args[0], sympy.Pow) else f.args[0].args
        wide = lambda v: f"np.asarray({self._print(v)}, np.float64)"   # noqa: E731
        return f"np.asarray(np.{type(f).__name__}({wide(a)}*{wide(b)}), np.float32)"

    def _print_Opaque(self, expr):
        """codegen.expansions.Opaque: its argument, as it stands."""
        return self._print(expr.args[0])

    def _precedence_Opaque(self, expr):
        return self.precedence_of(expr.args[0])

    def _print_Extended(self, expr):
        """Customizations: a sum that cancels (codegen.cancellation), computed in float64 from float64 copies of
        its operands (the DOUBLE kernel's printer) and rounded once to FLOAT: a constant or row sum the kernel holds
        unrounded in float64 as that local (wide_names)."""
        from .emit import DoublePrinter
        names = {s: self.wide_names.get(s, f"np.asarray({self._print(s)}, np.float64)") for s in expr.free_symbols}
        pr = DoublePrinter({**self.names, **names}, last=self.last)
        out = f"np.asarray({pr.doprint(expr.args[0])}, np.float32)"
        self.used |= pr.used
        return out

    def _print_sign(self, expr):
        return self._call("np.sign", expr.args[0])

    def _precedence_Function(self, expr):
        return FUNC   # every function prints as a call

    # ---- powers -------------------------------------------------------------------------------------------
    def _print_Pow(self, expr, rational=False):
        """Customizations: `1/b` for b**-1 (`1/b/b` up to the 4th power, `(1/b)**n` beyond), `np.sqrt` for
        b**(1/2) (correctly rounded in FLOAT), `b**n` for an integer n (NumPy's float32 power), and any other
        power in float64 rounded once (`_mathf.power`)."""
        base, e = expr.base, expr.exp
        if e == -1:
            return f"1/{self.parenthesize(base, MUL)}"
        if e == sympy.S.Half:
            return self._call("np.sqrt", base)
        if e == -sympy.S.Half:
            return f"1/{self._call('np.sqrt', base)}"
        if e.is_Integer and e < 0:   # never 1/d**n, which overflows where d**-n does not (codegen.backends.infix)
            if -e <= self.MAX_DIVISIONS:
                return "1" + f"/{self.parenthesize(base, MUL)}" * int(-e)
            return f"(1/{self.parenthesize(base, MUL)})**{-e}"
        if e.is_Integer:
            return f"{self.parenthesize(base, POW)}**{e}"
        self.used.add("_mathf")
        return f"_mathf.power({self._print(base)}, {literals.python_double(e)})"

    def _precedence_Pow(self, expr):
        e = expr.exp
        if e == -1 or e == -sympy.S.Half or (e.is_Integer and e < 0):
            return MUL
        if e.is_Integer:
            return POW
        return FUNC
