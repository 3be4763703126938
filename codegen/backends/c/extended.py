"""How a FLOAT C kernel prints a sum that cancels (codegen.cancellation.Extended): in double, from double copies of
its operands, rounded once to FLOAT.  exp and the sigmoid are opgen_math.h's vectorizable double ones
(`opgen_exp_f64`, `opgen_sigmoid_ext`): libm's exp kept the kernel loops scalar.  Other functions are libm's double
ones (erfc, log, log1p, tanh: scalar calls, the cost measured in the change's note)."""
from __future__ import annotations

from .wide import DoubleCPrinter


class ExtendedCPrinter(DoubleCPrinter):
    def _print_exp(self, expr):
        return f"opgen_exp_f64({self._print(expr.args[0])})"

    def _print_Sigmoid(self, expr):
        return f"opgen_sigmoid_ext({self._print(expr.args[0])})"


def extended_c(printer, expr) -> str:
    """`(float)(...)` of the sum in double, its symbols read as doubles."""
    names = {s: f"((double){printer._print(s)})" for s in expr.free_symbols}
    inner = ExtendedCPrinter({**printer.names, **names}, last=printer.last).doprint(expr.args[0])
    return f"(float)({inner})"
