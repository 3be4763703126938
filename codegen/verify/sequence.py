"""The proof of a sequence-masked op where IN_SEQUENCE is false (codegen.spec.sequence): the positions at or past
their sequence's length.  There the forward must be a constant of x (its derivative 0, symbolically) and every
form must be exactly 0, which is what the kernels write.  Where IN_SEQUENCE is true the op is proved as any op
(codegen.verify.verify_op on the unmasked op)."""
from __future__ import annotations

import sympy

from codegen.spec.sequence import unmasked

from .result import Result


def masked_rows(op) -> list[Result]:
    """One row per form: the forward's derivative and the form where t >= lengths[b]."""
    label = f"t >= {op.sequence.lengths}[b]"
    out = []
    for i, f in enumerate(op.formulas):
        fwd = unmasked(op.forward_of(f), False)
        d = sympy.simplify(sympy.diff(fwd, op.wrt))
        form = sympy.simplify(unmasked(f.expr, False))
        name = f"form {i + 1}: " if len(op.formulas) > 1 else ""
        if d == 0 and form == 0:
            out.append(Result(op.name, f"{name}{label}", "forward constant in x, backward 0", "proven",
                              f"forward = {fwd}, backward = 0"))
        else:
            out.append(Result(op.name, f"{name}{label}", "forward constant in x, backward 0", "FAILED",
                              f"d/d{op.wrt} forward = {d}, backward = {form}"))
    return out
