"""The outputs a benchmarked call writes: one array, or for an op with several outputs (PreluBackward's gradInput
and gradWeight) one per output, in parameter order, as `out=` takes them (a tuple).  Each output has the case's
dtype (every benchmarked output does) and its shape from the spec's shape rules, and starts where the bench places
every array (placement.py).  The bytes-moved count, the probe and the PyTorch column read every output from here,
so an op with several outputs needs no bench code of its own."""
from __future__ import annotations

import numpy as np

from codegen.runtime.calls import output_shape, shape_of_output
from codegen.spec import Op

from . import placement


def shapes(op: Op, kw: dict) -> list[tuple]:
    """The shape of each output for kernel keywords `kw` (snake_case names), in parameter order."""
    if not op.per_output:
        return [tuple(output_shape(op, kw))]
    return [tuple(shape_of_output(op, o.name, kw)) for o in op.outputs]


def allocate(op: Op, kw: dict, dtype, offset: int = 0):
    """`out=` for one call: an array, or a tuple of one per output for an op with several."""
    arrays = [placement.empty(s, dtype, offset) for s in shapes(op, kw)]
    return tuple(arrays) if op.per_output else arrays[0]


def as_list(out) -> list[np.ndarray]:
    """Every array of an `out=` (one array or a tuple)."""
    return list(out) if isinstance(out, tuple) else [out]


def by_name(op: Op, out):
    """`out=` as the C library's calls take it: the array, or {output name: array} for several outputs."""
    return {o.name: a for o, a in zip(op.outputs, out)} if isinstance(out, tuple) else out
