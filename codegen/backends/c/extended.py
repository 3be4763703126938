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
    zero_below: frozenset = frozenset()   # the σ printed as opgen_sigmoid_ext0 (see _sigmoids_beside_infinity)

    def _print_exp(self, expr):
        return f"{self.exp_f64}({self._print(expr.args[0])})"

    def _print_Sigmoid(self, expr):
        name = "opgen_sigmoid_ext0" if expr in self.zero_below else self.sigmoid
        return f"{name}({self._print(expr.args[0])})"


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
    wide.zero_below = _sigmoids_beside_infinity(expr.args[0], constants=set(printer.wide_names))
    inner = wide.doprint(expr.args[0])
    return f"(float)({inner})"


def _sigmoids_beside_infinity(expr, constants) -> frozenset:
    """The σ(u) of `expr` that a product multiplies by a factor of the same variable: where u → -inf that factor
    may be infinite (x·σ(-x) at x = inf, SwishBackward's βx·(1 - σ(βx)) at βx = -inf), and the product's limit
    is 0 only if σ is exactly 0 there (opgen_sigmoid_ext0), not the clamp's e^-700 (inf·e^-700 = inf; fuzz seed
    2323: (x - α)·σ(-x)·… gave inf where the derivative's limit at x = inf is 1.69; seed 1919: -18x·σ(-9x²) at
    x = ±inf gave ∓inf where NumPy and Ascend C give the nan of ∞·0).  A σ beside factors of other
    operands only (BCE-with-logits' pw·t·σ(x)) keeps the clamp: an infinite operand meeting an underflowing
    factor is a documented difference, and the select cost BCE-with-logits 2-13%."""
    out = set()
    for m in expr.atoms(sympy.Mul):
        for f in m.args:
            base = f.base if isinstance(f, sympy.Pow) else f
            if not isinstance(base, Sigmoid):
                continue
            mine = base.args[0].free_symbols - constants
            if any(mine & (g.free_symbols - constants) for g in m.args if g is not f):
                out.add(base)
    return frozenset(out)


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
