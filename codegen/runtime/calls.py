"""What every kernel callable does around its kernel: read the keyword arguments the way the generated NumPy
function's signature does, and size the output the way the shape rules say.

    call = KernelCall(op, kw)        # TypeError on an unknown or missing keyword, AclnnError on an unknown product
    values = call.check(checker)     # the phase-1 checker (raises AclnnError); allocates `out` when not given
    call.out, call.args, call.product
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from codegen.spec import Op
from codegen.spec import rules as R

from . import checks as _chk
from . import memory

NUMPY_DTYPES = _chk.NUMPY_DTYPES


def out_dtype_free(op: Op) -> bool:
    """Whether the docs let the output dtype differ from the inputs' (then the API takes `out_dtype=`): no rule
    fixes it, neither DtypeSame nor PromotedSame (GeluBackwardV2's gradInput is exactly the promoted dtype)."""
    out = op.output.name
    return not any(isinstance(r, R.DtypeSame) and out in r.params
                   or isinstance(r, R.PromotedSame) and r.params[0] == out for r in op.rules)


def _shape_rule(op: Op) -> tuple | None:
    """(kind, snake_case names) of the rule that fixes the output's shape: ("same", [name]) or
    ("broadcast", [names]); None when no rule does."""
    out = op.output.name
    for r in op.rules:
        if isinstance(r, R.ShapeSame) and out in r.params:
            return "same", [op.param(next(n for n in r.params if n != out)).py_name]
        if isinstance(r, R.ShapeIsBroadcast) and r.params[0] == out:
            return "broadcast", [op.param(n).py_name for n in r.params[1:]]
    return None


def output_shape(op: Op, args: dict) -> tuple:
    """The output's shape, read off the shape rules; `args` maps snake_case names to the arguments."""
    rule = _signature(op).shape_rule
    if rule is None:
        raise ValueError(f"{op.name}: no rule fixes the output shape")
    kind, names = rule
    if kind == "same":
        return tuple(args[names[0]].shape)
    return tuple(np.broadcast_shapes(*[args[n].shape for n in names]))


class _Signature:
    """What a call's keywords may be and where its output comes from, worked out once per op (kernel callables
    are called in loops: looking these up in the spec on every call cost a tenth of a small C call)."""

    def __init__(self, op: Op):
        self.names = [p.py_name for p in op.params if p.kind != "output"]
        self.allowed = set(self.names) | {"product", "out"} | ({"out_dtype"} if out_dtype_free(op) else set())
        self.default_from = [op.param(n).py_name for n in op.output_dtype_sources]
        self.shape_rule = _shape_rule(op)
        # (aclnn name, snake_case name) of each tensor argument, and the output's aclnn name when it is one array
        self.tensors = [(t.name, t.py_name) for t in op.tensors]
        self.out_name = None if op.per_output else op.output.name


def _signature(op: Op) -> _Signature:
    sig = op.__dict__.get("_call_signature")
    if sig is None:
        sig = op.__dict__["_call_signature"] = _Signature(op)
    return sig


class KernelCall:
    def __init__(self, op: Op, kw: dict):
        self.op = op
        sig = _signature(op)
        self.names = sig.names
        if not sig.allowed.issuperset(kw):
            unknown = sorted(set(kw) - sig.allowed)
            raise TypeError(f"{op.snake_name}() got an unexpected keyword argument {unknown[0]!r}")
        missing = [n for n in self.names if n not in kw]
        if missing:
            raise TypeError(f"{op.snake_name}() missing required keyword argument {missing[0]!r}")
        self.product = kw.get("product", op.default_product)
        self.out = kw.get("out")
        self.requested = _chk.requested_dtype(kw.get("out_dtype"))
        self.args = {n: kw[n] for n in self.names}
        _chk.writeable_out(op.snake_name, self.out)   # first, as the NumPy kernels do: then the verdicts agree
        _chk.known_product(self.product)
        _chk.describable(**{a: self.args[p] for a, p in sig.tensors},
                         **({sig.out_name: self.out} if sig.out_name else {}))

    def check(self, checker) -> dict | None:
        """Run `checker` (a generated NumPy module's `check`); allocate the output when none was given.  None when
        an empty tensor ended the checks early (EmptyReturns): success, nothing to compute."""
        op = self.op
        out_arg = self.out if self.out is not None else \
            _chk.Allocate(self.requested or _chk.default_dtype(*[self.args[n] for n in _signature(op).default_from]))
        values = checker(*[self.args[n] for n in self.names], out_arg, self.product)
        if self.out is None:
            # (on a cache line: where the C kernels stream large outputs best, see memory.py); a call that ended
            # early on an empty tensor computes nothing: its output holds zeros, not what the memory held
            if values is not None:
                self.out = memory.empty(output_shape(op, self.args), _chk.numpy_dtype(out_arg))
            else:
                self.out = np.zeros(_chk.empty_shape(lambda: output_shape(op, self.args), *self.args.values()),
                                    _chk.numpy_dtype(out_arg))
        return values


# ---- an output summed back to one input's shape (`Output(sum_to=...)`) -----------------------------------------
def compute_shape(op: Op, args: dict) -> tuple:
    """The shape the kernels compute on: the output's, or for an `Output(sum_to=...)` the broadcast shape B of
    every input tensor present in `args` (snake_case names)."""
    if op.output.sum_to is None:
        return output_shape(op, args)
    return tuple(np.broadcast_shapes(*[np.shape(args[t.py_name]) for t in op.tensors
                                       if args.get(t.py_name) is not None]))


def summed_axes(full: tuple, shape: tuple) -> tuple:
    """The axes of `full` along which `shape` was broadcast to it: the leading ones broadcasting added and those
    where `shape` has 1 and `full` does not."""
    lead = len(full) - len(shape)
    return tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and full[lead + i] != 1)


def sum_to(full: np.ndarray, shape: tuple) -> np.ndarray:
    """The adjoint of broadcasting `shape` to `full.shape`: `full` summed over the leading axes broadcasting added
    and the axes where `shape` has 1 (keepdim), in float64, rounded once to FLOAT (as the library's ReduceSum in
    its compute dtype, cast to the output's dtype after)."""
    axes = summed_axes(full.shape, shape)
    if not axes:
        return full
    return full.sum(axis=axes, dtype=np.float64).reshape(shape).astype(np.float32)


def channel_view(w, ref_shape: tuple, dim: int):
    """A per-channel tensor (`PerChannel`) as the kernels read it: its elements in row-major order laid along
    axis `dim` of a tensor of shape `ref_shape`, a [1, C, 1, ...] view (a copy only where NumPy cannot reshape
    without one); a single element as [1, 1, ...], which broadcasts to every channel."""
    if w is None:
        return None
    shape = [1] * len(ref_shape)
    if np.size(w) != 1:
        shape[dim] = np.size(w)
    return np.reshape(w, shape)


def output_rule(op: Op, name: str) -> tuple | None:
    """(kind, aclnn names, dim) of the rule that fixes the shape of output `name` of an op with several:
    ("channel", [weight, ref], dim), ("same", [other]) or ("broadcast", [names]); None when no rule does.  (The
    C entry point sizes outputs from it too: pyext.py.)"""
    for r in op.rules:
        if isinstance(r, R.ChannelGrad) and r.params[0] == name:
            return "channel", [r.params[1], r.params[2]], r.dim
        if isinstance(r, R.ShapeSame) and name in r.params:
            return "same", [next(n for n in r.params if n != name)], None
        if isinstance(r, R.ShapeIsBroadcast) and r.params[0] == name:
            return "broadcast", list(r.params[1:]), None
    return None


def shape_of_output(op: Op, name: str, args: dict) -> tuple:
    """The shape of output `name` of an op with several, read off its shape rule (ShapeSame, ShapeIsBroadcast or
    ChannelGrad); `args` maps snake_case names to the arguments."""
    py = lambda n: args[op.param(n).py_name]
    rule = output_rule(op, name)
    if rule is None:
        raise ValueError(f"{op.name}: no rule fixes the shape of {name}")
    kind, names, dim = rule
    if kind == "channel":
        return _chk.channel_grad_shape(py(names[0]), py(names[1]), dim)
    if kind == "same":
        return tuple(py(names[0]).shape)
    return tuple(np.broadcast_shapes(*[py(n).shape for n in names]))


def aside(out: np.ndarray, inputs: tuple) -> np.ndarray:
    """Where an op with several outputs computes `out` when outputs after it still read the inputs: `out` itself,
    or a fresh array of its shape and dtype when it shares memory with one of `inputs` (in place), copied into
    `out` once every output is computed."""
    if any(a is not None and np.shares_memory(out, a) for a in inputs):
        return np.empty(out.shape, out.dtype)
    return out


def _share_memory(a, b) -> bool:
    """Whether two arrays share an element; where that is too costly to decide exactly (interleaved strides),
    whether their memory ranges overlap (refusing such a pair is the safe side)."""
    try:
        return np.shares_memory(a, b, max_work=10 ** 6)
    except np.exceptions.TooHardError:
        return np.may_share_memory(a, b)


def output_wanted(op: Op, name: str, args: dict) -> bool:
    """Whether output `name` is allocated when `out=` does not give it: always, but a split op's extra output
    (codegen.spec.split) only when every optional tensor its op reads is given (else it is None: not computed)."""
    sub = next((s for s in op.per_output if s.output.name == name), None)
    if sub is None or op.split is None or sub.split is not None:
        return True
    return all(args.get(op.param(t.name).py_name) is not None for t in sub.tensors if op.param(t.name).optional)


def output_dtype_sources(op: Op, name: str) -> tuple:
    """The inputs whose (promoted) dtype is output `name`'s default: its own `dtype_from` (SwigluGroupGrad's
    FLOAT gradWeight, from the weight), else the op's."""
    f = op.param(name).dtype_from
    return (f,) if isinstance(f, str) and name != op.outputs[0].name else op.output_dtype_sources


def several_outs(op_name: str, out, names: tuple) -> list:
    """`out=` of an op with several outputs (`names`: their aclnn names, in parameter order): None, or a tuple/list
    of one array (or None: allocate it) per output; each array must be writeable and describable, as for a single
    output."""
    n = len(names)
    if out is None:
        return [None] * n
    if not isinstance(out, (tuple, list)) or len(out) != n:
        raise TypeError(f"{op_name}: out must be None or a tuple of {n} arrays (or None), one per output")
    for o in out:
        _chk.writeable_out(op_name, o)
    # two outputs over the same memory: whichever is written last wins, so each backend (each order of writing)
    # would give another result; refused as an out= whose own elements share memory is
    arrays = [(i, o) for i, o in enumerate(out) if isinstance(o, np.ndarray) and o.size]
    for k, (i, a) in enumerate(arrays):
        for j, b in arrays[k + 1:]:
            if _share_memory(a, b):
                raise ValueError(f"{op_name}: out[{i}] and out[{j}] share memory: each result needs a place of "
                                 f"its own")
    _chk.describable(**dict(zip(names, out)))
    return list(out)


def count(name: str, shapes: dict, dim: int | None = None) -> float:
    """A count a formula reads (`numel`, `dim_size`, a row's length along the call's `dim`), as FLOAT, from
    {tensor name or BROADCAST: shape}."""
    from codegen.spec.functions import count_value
    return np.float32(count_value(name, shapes, dim))


# ---- class-index targets (`Op.classes`, codegen.spec.classes) ---------------------------------------------------
def class_views(grid: tuple, tensors: list) -> list:
    """Each (kind, array) of `tensors` as a view on the (sample, class) grid of shape `grid` (codegen.spec.classes:
    a per-sample tensor with a class axis of 1 inserted, a per-class one along the class axis, one element
    broadcasting; None stays None), then the class coordinate: an INT64 arange along the class axis."""
    from codegen.spec.classes import grid_shape
    out = [None if a is None else np.reshape(a, grid_shape(kind, np.shape(a), grid)) for kind, a in tensors]
    return out + [np.arange(grid_shape("class", (), grid)[class_axis_of(grid)] if grid else 1,
                            dtype=np.int64).reshape(grid_shape("class", (), grid))]


def class_axis_of(grid: tuple) -> int:
    from codegen.spec.classes import class_axis
    return class_axis(len(grid))


def past_length(shape: tuple, lengths, time: int, batch: int) -> np.ndarray:
    """The positions of an output of `shape` at or past their sequence's length, t >= lengths[b]
    (codegen.spec.sequence), as a boolean array of `shape`: the kernels write 0 there."""
    from codegen.spec.sequence import mask_positions
    return np.broadcast_to(mask_positions(shape, lengths, time, batch), shape)
