"""How a FLOAT C kernel prints a sum that cancels (codegen.cancellation.Extended): in double, from double copies of
its operands, rounded once to FLOAT.  exp and the sigmoid are opgen_math.h's vectorizable double ones
(`opgen_exp_f64`, `opgen_sigmoid_ext`): libm's exp kept the kernel loops scalar.  Other functions are libm's double
ones (erfc, log, log1p, tanh: scalar calls, the cost measured in the change's note)."""
from __future__ import annotations

import sympy

from codegen.cancellation import Extended
from codegen.rewrite import Sigmoid

from .wide import DoubleCPrinter


class ExtendedCPrinter(DoubleCPrinter):
    exp_f64 = "opgen_exp_f64"
    sigmoid = "opgen_sigmoid_ext"
    # the σs that multiply a factor which may be infinite (_factor_sigmoids): opgen_sigmoid_ext0, 0 below -700
    factors = frozenset()

    def _print_exp(self, expr):
        return f"{self.exp_f64}({self._print(expr.args[0])})"

    def _print_Sigmoid(self, expr):
        name = "opgen_sigmoid_ext0" if expr in self.factors else self.sigmoid
        return f"{name}({self._print(expr.args[0])})"


def _factor_sigmoids(expr) -> frozenset:
    """The σs in `expr` that are factors of a product whose other factors read a symbol σ's argument reads: where
    that input is infinite, σ's argument may be -∞ while another factor is ∞ (-18x·σ(-9x²) at x = ±inf, fuzz
    seed 1919), and ∞ times opgen_sigmoid_ext's clamped e^-700 gave ∓inf where the other backends give the nan of
    ∞·0 (the accuracy rules' documented class for an exact 0 or ±inf, codegen.accuracy.runner).  (A factor
    infinite through another input, BCE-with-logits' posWeight·target times σ(self), keeps the clamp: there σ is
    not 0 and ∞ is the product's class.)  On finite inputs the same values: e^-700 times a FLOAT factor is far
    below FLOAT's least subnormal, and so is the difference it makes to a sum."""
    found = set()
    for m in expr.atoms(sympy.Mul):
        for f in m.args:
            if isinstance(f, Sigmoid) and any(a.free_symbols & f.args[0].free_symbols for a in m.args if a is not f):
                found.add(f)
    return frozenset(found)


class InRangeCPrinter(ExtendedCPrinter):
    """exp where the loop checked every argument first: within (-708, 709], no range selects (EXP_IN_RANGE)."""
    exp_f64 = "opgen_exp_in_range_f64"


def extended_c(printer, expr, in_range: bool = False) -> str:
    """`(float)(...)` of the sum in double, its symbols read as doubles (`in_range`: see InRangeCPrinter): a
    constant or row sum the kernel holds unrounded in double as that local (printer.wide_names), any other symbol
    (an operand's element) as `(double)` of its FLOAT value."""
    names = {s: printer.wide_names.get(s, f"((double){printer._print(s)})") for s in expr.free_symbols}
    cls = InRangeCPrinter if in_range else ExtendedCPrinter
    wide = cls({**printer.names, **names}, last=printer.last)
    if isinstance(expr.args[0], sympy.Mul):   # a product folded in (its σ may multiply an infinity: exactly 0)
        wide.sigmoid = "opgen_sigmoid_ext0"
    wide.factors = _factor_sigmoids(expr.args[0])
    inner = wide.doprint(expr.args[0])
    return f"(float)({inner})"


def exp_arguments(exprs) -> set | None:
    """The arguments of the exps in the sums computed in double (Extended) of `exprs`, when every one is a plain
    symbol (an operand's element: a row kernel can check them before its loop); else None."""
    args = set()
    for e in exprs:
        for ext in sympy.sympify(e).atoms(Extended):
            for f in ext.atoms(sympy.exp):
                if not isinstance(f.args[0], sympy.Symbol):
                    return None
                args.add(f.args[0])
    return args


# opgen_exp_f64 without its two range selects, for arguments the caller knows within (-708, 709]: the same bits there
EXP_IN_RANGE = [
    "/* opgen_exp_f64 for x the caller checked within (-708, 709]: without its range selects, the same bits there",
    " * (flattened: with two loops in the function, GCC 12 may otherwise call opgen_exp_poly_f64 from the loop) */",
    "static inline __attribute__((always_inline, flatten)) double opgen_exp_in_range_f64(double x)",
    "{",
    "    double y;",
    "    const double p = opgen_exp_poly_f64(x, &y);",
    "    return opgen_exp_scale_f64(p, y);",
    "}",
]
