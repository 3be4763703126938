"""SymPy → C99 for the kernels (FLOAT) and the checker's conditions (double).

SymPy's `C99CodePrinter` with `type_aliases={real: float32}` already prints `expf`, `log1pf`, `fabsf` and `F`
literals.  What it gets wrong for kernels, and is overridden here:

* `Piecewise` prints as a multi-line ternary (or needs an assignment target); kernels want one expression,
  nested `(c) ? (a) : (b)`, branches in the order the spec lists them, like NumPy's nested `np.where`.
* `exp` prints as `expf`, a libm call no compiler vectorizes (short of -ffast-math, which would also give up
  nan and inf); it prints as `opgen_expf` (opgen_math.h), inline and branch-free, within 1 ulp, or as
  `opgen_expf_nonpos` where SymPy proves the argument nonpositive.  (In a double-typed checker condition it
  stays `exp`.)
* `Max`/`Min` print as `fmaxf`/`fminf`, which *drop* a nan argument; NumPy's `maximum`/`minimum` (the
  reference backend) propagate it.  They print as `opgen_maximumf`/`opgen_minimumf` (opgen_math.h).
* Integer powers print as `powf(x, 2)`: a libm call per element where one multiplication is exact and
  vectorizes; `x**-1` and `x**-n` print as `1.0F/(...)`.
* `Rational` inside a double-typed condition would print `1.0/3.0` (fine) but inside a float kernel SymPy
  prints `1.0F/3.0F` — kept; `Integer` prints bare (an int literal never promotes a float expression to double).
* `CompensatedAdd(x, hi, lo)` (codegen.lower) prints as `((x + hi) + lo)`; `fma` (in the phase-1 prelude) as
  `fmaf`, SymPy's own printing.
* `Sigmoid` (codegen.rewrite) prints as a call of the op's `opgen_sigmoidf`, itself printed from
  `Sigmoid.stable_form` by this printer.
"""
from __future__ import annotations

import sympy
from sympy.codegen.ast import float32, real
from sympy.printing.c import C99CodePrinter
from codegen.backends.infix import EvaluationOrder


class KernelCPrinter(EvaluationOrder, C99CodePrinter):
    """`names` maps symbols to C expressions (`grad_output[i]`, `p.scale`, `alpha_value`)."""

    def __init__(self, names: dict | None = None, float_kernel: bool = True, last=frozenset()):
        settings = {"type_aliases": {real: float32}} if float_kernel else {}
        super().__init__(settings)
        self.names = names or {}
        self.last = last
        self.suffix = "f" if float_kernel else ""

    def _print_Symbol(self, expr):
        return self.names.get(expr, super()._print_Symbol(expr))

    def _print_Piecewise(self, expr):
        args = list(expr.args)
        if args[-1][1] != sympy.true:
            raise ValueError(f"Piecewise without a final True branch: {expr}")
        out = self._print(args[-1][0])
        for e, c in reversed(args[:-1]):
            cond = self._print(c)
            if not isinstance(c, sympy.core.relational.Relational):
                cond = f"({cond})"
            out = f"({cond} ? {self._print(e)} : {out})"
        return out

    def _print_Relational(self, expr):
        return f"({self._print(expr.lhs)} {expr.rel_op} {self._print(expr.rhs)})"

    def _fold(self, fn: str, expr) -> str:
        """fn(fn(a, b), c)…: a binary C function applied over every argument."""
        out = self._print(expr.args[0])
        for a in expr.args[1:]:
            out = f"{fn}({out}, {self._print(a)})"
        return out

    def _print_Max(self, expr):
        return self._fold(f"opgen_maximum{self.suffix}", expr)

    def _print_Min(self, expr):
        return self._fold(f"opgen_minimum{self.suffix}", expr)

    def _print_Pow(self, expr):
        if expr.exp.is_Integer and expr.exp != 0 and abs(int(expr.exp)) <= 4:
            base = self.parenthesize(expr.base, 50)  # below Mul: `(a + b)*(a + b)`
            prod = "*".join([base] * abs(int(expr.exp)))
            if expr.exp > 0:
                return prod
            one = "1.0F" if self.suffix else "1.0"
            return f"{one}/({prod})" if abs(int(expr.exp)) > 1 else f"{one}/{base}"
        return super()._print_Pow(expr)

    def _print_exp(self, expr):
        if not self.suffix:
            return f"exp({self._print(expr.args[0])})"
        arg = expr.args[0]
        if arg.is_nonpositive:   # (the sigmoid's exp(-|u|)): fewer range selects, the same bits
            return f"opgen_expf_nonpos({self._print(arg)})"
        return f"opgen_expf({self._print(arg)})"

    def _print_Sigmoid(self, expr):
        return f"opgen_sigmoid{self.suffix}({self._print(expr.args[0])})"

    def _print_Integer(self, expr):
        return str(expr.p)
