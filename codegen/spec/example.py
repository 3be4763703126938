"""The data of an operator's call example (调用示例): what the generated example program passes and prints.

A spec may give it as `example=Example(...)` — the seed specs copy the aclnn pages' example data and the
results those pages print (ascend.md §4) — or leave it out, and `resolve(op)` picks simple data from the
spec's structure, so a new spec gets a running example with no more work.

    Example(shape=(2, 2),                        the shape of every tensor, unless `shapes` says otherwise
            values={"gradOutput": [1, 1, 1, 1],  tensors: one number per element, row-major, or one number
                    "target": 0.1,               for all elements; scalars and attributes: their value;
                    "dim": 0},                   an optional tensor left out is null
            shapes={"gradOutput": (1,)},
            expected=[0.2689414, ...])           the documented result, when the docs give one

All tensors are FLOAT in the example, as on the aclnn pages (FLOAT16, or BFLOAT16, for a tensor whose table has
no FLOAT: a half-precision-only op).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .params import Attr, IntArray, Output, Scalar, Tensor


@dataclass(eq=False)
class Example:
    shape: tuple = (2, 2)
    values: dict = field(default_factory=dict)
    shapes: dict = field(default_factory=dict)
    expected: list | None = None


@dataclass
class ResolvedExample:
    """Every parameter's concrete value: tensors as (shape, flat list of floats) or None when null."""
    tensors: dict                 # {input tensor name: (shape, [floats]) | None}
    scalars: dict                 # {scalar name: float, or None for an optional scalar left null}
    attrs: dict                   # {attr name: int | bool}
    out_shape: tuple
    expected: list | None
    out_shapes: dict = None       # {output name: shape}, every output (an op may have several)
    arrays: dict = field(default_factory=dict)   # {IntArray name: [ints] | None (null)}


# Default data: small values of both signs, none on a branch point of the seed ops (0, ±λ).
_DEFAULT_TENSOR = (-1.5, -0.25, 0.75, 2.0)


# ... and of a tensor whose own table has no floating dtype (ReluGradV4's UINT8 mask, a BOOL mask, an index):
# 0 and 1, which every integer dtype, a mask and a class index of two or more classes hold
_DEFAULT_INT = (0, 1, 1, 0)


def _integer_only(op, p) -> bool:
    from .dtypes import DTYPES
    names = [d for dts in (getattr(p, "dtypes", None) or {}).values() for d in dts]
    return bool(names) and not any(DTYPES[d].is_float for d in names if d in DTYPES)


def _numel(shape) -> int:
    return math.prod(shape) if shape else 1


def _default_attr(op, p: Attr):
    if p.type == "bool":
        return False
    if p.type == "string":
        return list(p.values)[0]
    if p.values:
        return sorted(p.values)[0]
    if p.is_real:   # 0.0, unless its own Requires rules refuse it (CELU's alpha != 0, Huber's delta > 0)
        return _default_scalar(op, p, first=0.0)
    return int(_default_scalar(op, p, first=0, candidates=(1, 2, -1, 10)))


def resolve(op) -> ResolvedExample:
    """The op's example with every value filled in (the spec's own, or defaults from its structure)."""
    ex = getattr(op, "example", None) or Example()
    tensors, scalars, attrs, arrays = {}, {}, {}, {}
    for p in op.params:
        if isinstance(p, Tensor):
            if p.optional and p.name not in ex.values:
                tensors[p.name] = None
                continue
            shape = tuple(ex.shapes.get(p.name, ex.shape))
            n = _numel(shape)
            v = ex.values.get(p.name)
            if v is None:
                default = _DEFAULT_INT if _integer_only(op, p) else _DEFAULT_TENSOR
                data = [float(default[i % len(default)]) for i in range(n)]
            elif isinstance(v, (int, float)):
                data = [float(v)] * n
            else:
                data = [float(a) for a in v]
            tensors[p.name] = (shape, data)
        elif isinstance(p, Scalar):
            if p.optional and p.name not in ex.values:
                scalars[p.name] = None       # left out: null, the documented default
            else:
                scalars[p.name] = float(ex.values[p.name]) if p.name in ex.values else _default_scalar(op, p)
        elif isinstance(p, Attr):
            attrs[p.name] = ex.values[p.name] if p.name in ex.values else _default_attr(op, p)
        elif isinstance(p, IntArray):
            arrays[p.name] = list(ex.values[p.name]) if p.name in ex.values else _default_array(op, p, ex)
    out_shapes = {o.name: tuple(ex.shapes.get(o.name, ex.shape)) for o in op.outputs}
    return ResolvedExample(tensors, scalars, attrs, out_shapes[op.output.name],
                           list(ex.expected) if ex.expected else None, out_shapes, arrays)


# a scalar the example leaves out: the first of these its own unconditional Requires rules accept (ReluGradV4's
# `Requires("threshold", Eq(threshold, 0))` takes 0; most scalars 1)
_SCALAR_CANDIDATES = (1.0, 0.5, 2.0, 0.0, -0.5, -1.0, 0.25, 10.0)


def _default_scalar(op, p, first=None, candidates=_SCALAR_CANDIDATES):
    """The first of `first` and the candidates that the parameter's own unconditional Requires rules accept."""
    import sympy

    from . import rules as R
    own = [r.condition for r in op.rules if isinstance(r, R.Requires) and r.when == sympy.true
           and getattr(r.condition, "free_symbols", set()) == {p.symbol}]
    for v in ([first] if first is not None else []) + list(candidates):
        if all(bool(c.subs(p.symbol, v)) for c in own):
            return v
    return first if first is not None else candidates[0]


def _default_array(op, p, ex) -> list:
    """An aclIntArray the example leaves out: as many values as its ArrayLength rule asks, each the top of its
    ArrayInRange (every sequence at full length), else 0."""
    from . import rules as R
    from .functions import count_parts, numel_param
    shape_of = lambda t: tuple(ex.shapes.get(t, ex.shape)) or (1,)   # noqa: E731
    n, top = 0, 0
    for r in op.rules:
        if isinstance(r, R.ArrayLength) and r.params[0] == p.name:
            s = shape_of(r.params[1])
            n = s[r.dim] if r.dim < len(s) else 1
        if isinstance(r, R.ArrayInRange) and r.params[0] == p.name and r.high is not None:
            if isinstance(r.high, int):
                top = r.high
            else:
                t, axis = count_parts(numel_param(r.high))
                s = shape_of(t)
                top = s[axis] if axis < len(s) else 1
    return [top] * n


def problems(op) -> list[str]:
    """What is wrong with a spec's `example` (validation)."""
    ex = getattr(op, "example", None)
    if ex is None:
        return []
    if not isinstance(ex, Example):
        return [f"example must be an Example, got {type(ex).__name__}"]
    names = {p.name: p for p in op.params}
    out = []
    for n in list(ex.values) + list(ex.shapes):
        if n not in names:
            out.append(f"example names a missing parameter {n!r}")
    if out:
        return out
    for p in op.params:
        if isinstance(p, Tensor) and not p.optional and p.name not in ex.values:
            out.append(f"example gives no values for the required tensor {p.name}")
    for n, v in ex.values.items():
        p = names[n]
        if isinstance(p, Output):
            out.append(f"example gives values for the output {n}; put the documented result in `expected`")
        elif isinstance(p, Tensor) and isinstance(v, (list, tuple)):
            want = _numel(tuple(ex.shapes.get(n, ex.shape)))
            if len(v) != want:
                out.append(f"example: {n} has {len(v)} values for {want} elements")
        elif isinstance(p, Attr) and p.type == "bool" and not isinstance(v, bool):
            out.append(f"example: {n} must be a bool")
        elif isinstance(p, Attr) and p.type == "int64" and (isinstance(v, bool) or not isinstance(v, int)):
            out.append(f"example: {n} must be an int")
        elif isinstance(p, Attr) and p.is_real and (isinstance(v, bool) or not isinstance(v, (int, float))):
            out.append(f"example: {n} must be a number")
        elif isinstance(p, Attr) and p.type == "string" and v not in p.values:
            out.append(f"example: {n} must be one of {', '.join(map(repr, p.values))}")
        elif isinstance(p, Scalar) and (isinstance(v, bool) or not isinstance(v, (int, float))):
            out.append(f"example: {n} must be a number")
        elif isinstance(p, IntArray) and (not isinstance(v, (list, tuple)) or any(
                isinstance(a, bool) or not isinstance(a, int) for a in v)):
            out.append(f"example: {n} must be a list of ints")
    if ex.expected is not None:
        want = _numel(tuple(ex.shapes.get(op.output.name, ex.shape)))
        if len(ex.expected) != want:
            out.append(f"example: expected has {len(ex.expected)} values for {want} output elements")
    return out
