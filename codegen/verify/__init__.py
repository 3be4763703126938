"""`opgen verify`: prove each documented backward is the VJP of its forward, then check it numerically.

See proof.py (symbolic) and numeric.py (mpmath); cases.py says what one proof is about.
"""
from __future__ import annotations

import dataclasses

from codegen.spec.classes import has_rows
from codegen.spec.sequence import unmasked_op

from .cases import cases
from .class_rows import check_rows
from .numeric import check_case
from .proof import prove, unmatched
from .result import Result
from .rewrites import prove_rewrites


def verify_op(op, numeric: bool = True, use_cache: bool = False) -> list[Result]:
    """Proof lines for every case of `op` (plus the mpmath check when `numeric`); never raises."""
    if use_cache:
        from .cache import cached
        return cached(op, numeric, lambda: verify_op(op, numeric))
    if op.split is not None:   # each half's gradient against the forward written on the halves
        out = []
        for h in op.halves:
            out += [dataclasses.replace(r, formula=f"d/d{h.wrt}: {r.formula}") for r in verify_op(h, numeric)]
        for sub in op.per_output[1:]:   # an extra output's gradient against its own forward (codegen.spec.split)
            out += [dataclasses.replace(r, formula=f"{sub.output.name}: {r.formula}") for r in verify_op(sub, numeric)]
        return out
    if op.sequence is not None:   # where IN_SEQUENCE holds as any op, where not: nothing depends on x, forms 0
        from .sequence import masked_rows
        out = [dataclasses.replace(r, formula=f"t < {op.sequence.lengths}[b]: {r.formula}")
               for r in verify_op(unmasked_op(op), numeric)]
        return out + masked_rows(op)
    if len(op.outputs) > 1:   # each output's gradient against the one forward, w.r.t. that output's input
        out = []
        for sub in op.per_output:
            out += [dataclasses.replace(r, formula=f"{sub.output.name}: {r.formula}") for r in verify_op(sub, numeric)]
        return out
    out: list[Result] = []
    matched: set = set()
    all_cases = cases(op)
    for case in all_cases:
        try:
            out += prove(case, matched)
        except Exception as e:  # a proof that crashes is a failed proof, reported with the op and case
            out.append(Result(op.name, case.label, "symbolic proof", "FAILED", _crash(e, case)))
        if numeric:
            try:
                out.append(check_rows(case) if has_rows(op) else check_case(case))
            except Exception as e:
                out.append(Result(op.name, case.label, "mpmath", "FAILED", _crash(e, case)))
    if all(r.ok for r in out):
        out += unmatched(op, matched)
    return out + prove_rewrites(op)


def _crash(e: Exception, case) -> str:
    """What a crashed check says: the exception, and for a division by zero (SymPy's zoo in a comparison, mpmath's
    ZeroDivisionError) what in the spec causes it."""
    text = f"{type(e).__name__}: {e}"
    if isinstance(e, ZeroDivisionError) or (isinstance(e, TypeError) and "zoo" in str(e)):
        text += (f" -- a formula or branch condition divides by a value that is 0 where {case.label or 'it is'}: "
                 f"write the condition without the division (t*x < 1, not x < 1/t)")
    return text


def format_table(results: list[Result]) -> str:
    head = ("op", "case", "check", "verdict", "detail")
    rows = [(r.op, r.formula, r.check, r.verdict,
             r.detail + (f"  counterexample: {r.point}" if r.point else "")) for r in results]
    widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h) for i, h in enumerate(head[:4])]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head[:4], widths)) + "  " + head[4]]
    lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 6)
    for row in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row[:4], widths)) + "  " + row[4])
    return "\n".join(lines)


__all__ = ["verify_op", "format_table", "Result", "cases", "prove", "check_case"]
