"""Sequence masking: a per-batch-element length, given as an `IntArray`, along a time axis.

    lengths = IntArray("inputLengths", doc=...)                       # const aclIntArray *, one length per b
    sequence=SequenceMask("inputLengths", time=0, batch=1),
    forward=Piecewise((tanh(x), IN_SEQUENCE), (0, True)),             # y[t, b, ...] = 0 from t = lengths[b] on
    backward=Piecewise((g * (1 - tanh(x)**2), IN_SEQUENCE), (0, True)),

`IN_SEQUENCE` is the truth of t < lengths[b] for the element at coordinate t along `time` and b along `batch`
(of the output, which the rules must give both axes).  It is what CTC does with inputLengths: the frames of a
sequence past its length take no part in its loss, so their gradient is 0.

The proof (codegen.verify) treats IN_SEQUENCE as a truth value decided per element: where it is true the form
must be the derivative of the forward with IN_SEQUENCE true (proved as any form), and where it is false the
forward must not depend on the variable differentiated and every form must be 0, exactly.  So the kernels
compute the form with IN_SEQUENCE true (`unmasked`) and every backend writes 0 to the positions past the length
after the kernel (`mask_positions`): the same values as the form, 0 even where the unmasked form is inf or nan.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy

# t < lengths[b] for the element's time coordinate t and batch coordinate b: a truth value, per element.
IN_SEQUENCE = sympy.Symbol("inSequence")


@dataclass(frozen=True)
class SequenceMask:
    """The elements of the output at time coordinate t (axis `time`) and batch coordinate b (axis `batch`) are in
    the sequence while t < `lengths`[b]; `lengths` names an IntArray parameter."""
    lengths: str
    time: int = 0
    batch: int = 1


def unmasked(expr, value=True):
    """`expr` with IN_SEQUENCE fixed to `value` (True: what the kernels compute; False: the masked positions)."""
    return sympy.sympify(expr).subs(IN_SEQUENCE, sympy.true if value else sympy.false)


def unmasked_op(op):
    """The op where IN_SEQUENCE is true (its forward and forms with it fixed, no mask): what is proved as any op's
    forms are, and what the kernels compute (cached on the op)."""
    cached = op.__dict__.get("_unmasked_op")
    if cached is not None:
        return cached
    import dataclasses
    forms = [dataclasses.replace(f, expr=unmasked(f.expr),
                                 forward=None if f.forward is None else unmasked(f.forward)) for f in op.formulas]
    u = dataclasses.replace(op, forward=unmasked(op.forward), backward=forms, sequence=None,
                            loss_reduction=op.reduction)
    op.__dict__["_unmasked_op"] = u
    return u


def check(op, fail) -> None:
    """What an op with a sequence mask must say (codegen.validate)."""
    from .params import IntArray
    from . import rules as R
    s = op.sequence
    names = {p.name: p for p in op.params}
    if not isinstance(names.get(s.lengths), IntArray):
        fail(f"sequence: {s.lengths!r} must name an IntArray parameter")
    if not (isinstance(s.time, int) and isinstance(s.batch, int)) or s.time < 0 or s.batch < 0 or s.time == s.batch:
        fail(f"sequence: time={s.time!r} and batch={s.batch!r} must be two different axes >= 0")
    if op.split is not None or op.classes is not None or op.reduce_dim is not None or len(op.outputs) > 1:
        fail("sequence: a sequence mask is implemented for elementwise ops with one output (no split, classes, "
             "DimSum)")
    if op.output.sum_to is not None:
        fail("sequence: the masked output is written on its own shape (no sum_to)")
    if not sympy.sympify(op.forward).has(IN_SEQUENCE):
        fail("sequence: the forward never reads IN_SEQUENCE; write Piecewise((f, IN_SEQUENCE), (0, True))")
    if op.wrt in unmasked(op.forward, False).free_symbols:
        fail("sequence: where IN_SEQUENCE is false the forward must not depend on "
             f"{op.wrt} (it is {unmasked(op.forward, False)})")
    for f in op.formulas:
        if f.forward is not None and op.wrt in unmasked(f.forward, False).free_symbols:
            fail(f"sequence: a form's forward depends on {op.wrt} where IN_SEQUENCE is false")
        if sympy.simplify(unmasked(f.expr, False)) != 0:
            fail(f"sequence: every form must be 0 where IN_SEQUENCE is false (got {unmasked(f.expr, False)}): "
                 "the kernels write 0 there")
    # the output's shape and the tensors a ShapeSame rule ties to it: the array's length is measured on one of them
    out = op.output.name
    same = {out} | {t for r in op.rules if isinstance(r, R.ShapeSame) and out in r.params for t in r.params}
    lengths = [r for r in op.rules if isinstance(r, R.ArrayLength) and r.params[0] == s.lengths]
    if not any(r.dim == s.batch and r.params[1] in same for r in lengths):
        fail(f"sequence: a rule ArrayLength({s.lengths!r}, <tensor>, dim={s.batch}) must give {s.lengths} one "
             f"length per batch element of {out} (<tensor>: {out} or one a ShapeSame rule gives its shape)")
    ranks = [r.n for r in op.rules if isinstance(r, R.MinRank) and same & set(r.params)]
    if not ranks or max(ranks) <= max(s.time, s.batch):
        fail(f"sequence: a MinRank rule must give {op.output.name} (or a tensor of its shape) at least "
             f"{max(s.time, s.batch) + 1} dimensions, so that it has the time and batch axes")


def mask_positions(shape: tuple, lengths, time: int, batch: int) -> np.ndarray:
    """A boolean array that broadcasts to `shape`: true where t >= lengths[b] (the positions written 0)."""
    import numpy as np
    ndim = len(shape)
    t = np.arange(shape[time]).reshape([-1 if d == time else 1 for d in range(ndim)])
    n = np.asarray(lengths, dtype=np.int64).reshape([-1 if d == batch else 1 for d in range(ndim)])
    return t >= n
