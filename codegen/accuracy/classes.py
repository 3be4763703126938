"""A class-index op (codegen.spec.classes) in the accuracy tools' terms: its calls are calls of the op, measured
element by element on its (sample, class) grid.

    grid_kw(op, kw)          the grid op's keywords of one call: every input as its view on the grid, and the
                             class coordinate (the same views every kernel computes on)
    prepare(op, sample, ...) the exact reference, the error bound and the special-value masks of the grid op on
                             those views; PyTorch's result of the op's own call
    samples(op, ...)         calls of the op: integer targets in [0, C) with some samples ignored, per-class
                             weights, a positive totalWeight, x and gradOutput from every value group

The reference differentiates the spec's forward on the grid (codegen.accuracy.reference), never the backward.
"""
from __future__ import annotations

import numpy as np

from codegen.runtime.calls import class_views
from codegen.spec import ABSENT
from codegen.spec import rules as R
from codegen.spec.params import UNUSED
from codegen.spec.classes import CLASS_TENSOR, kind_of

from .dtypes import Format


def grid_kw(op, kw: dict) -> dict:
    """The grid op's keywords of the call `kw`: the op's, with every input tensor replaced by its view on the
    grid and the class coordinate added."""
    grid = op.grid
    shape = np.shape(kw[op.param(op.classes.tensor).py_name])
    moved = [t for t in op.tensors if kind_of(op, t.name) != "grid"]
    views = class_views(shape, [(kind_of(op, t.name), kw[t.py_name]) for t in moved])
    out = dict(kw)
    for t, v in zip(moved + [grid.param(CLASS_TENSOR)], views):
        out[t.py_name] = v
    return out


class ClassReference:
    """The exact gradient of a class-index op's calls: the grid op's reference (codegen.accuracy.reference) on the
    call's views on the grid."""

    coupled = False

    def __init__(self, op):
        self.op = op

    def _grid(self, method, kw, shape, *args):
        from .reference import reference_for
        g = grid_kw(self.op, kw)
        return getattr(reference_for(self.op.grid, g), method)(g, shape, *args)

    def rounded(self, kw, shape, fmt):
        return self._grid("rounded", kw, shape, fmt)

    def rounded_ties(self, kw, shape, fmt):
        return self._grid("rounded_ties", kw, shape, fmt)

    def values(self, kw, shape, only=None):
        return self._grid("values", kw, shape) if only is None else self._grid("values", kw, shape, only)


def prepare(op, sample, fmt: Format, use_torch: bool = True):
    """The runner's Prepared of a call of class-index op `op`: everything judged element by element comes from
    the grid op on the grid views; the kernel is called with the op's own keywords (`sample`)."""
    from . import torch_ref
    from .runner import prepare as prepare_op
    from .inputs import Sample
    gs = Sample(sample.case, sample.group, grid_kw(op, sample.kw), sample.out, sample.holder, sample.shape,
                dict(sample.extra))
    p = prepare_op(op.grid, gs, fmt, use_torch=False)
    p.sample = sample
    if use_torch and _in_range(op, sample.kw):   # (aten::nll_loss_backward writes out of bounds otherwise)
        try:
            p.torch = torch_ref.run(op, sample.kw, fmt.np)
        except Exception:  # a dtype or layout PyTorch does not take: no comparison for this sample
            p.torch = None
    return p


def _in_range(op, kw) -> bool:
    """Whether every target is a class or ignoreIndex (PyTorch's kernels do not check it)."""
    t = np.asarray(kw[op.param(op.classes.target).py_name]).astype(np.int64)
    shape = np.shape(kw[op.param(op.classes.tensor).py_name])
    classes = shape[1] if len(shape) >= 2 else (shape[0] if shape else 1)
    ignore = [kw[a.py_name] for a in op.attrs if a.type == "int64" and a.name != op.loss_reduction]
    return bool(np.all(((t >= 0) & (t < classes)) | np.isin(t, ignore)))


# ---- samples ----------------------------------------------------------------------------------------------------
IGNORE = -100   # the ignoreIndex of the samples (PyTorch's default); a few targets take it


def _ranks(op) -> list[int]:
    """The ranks the class-axis tensor may have (its MinRank/MaxRank rules): 2 first (the usual (N, C))."""
    t = op.classes.tensor
    lo = max([r.n for r in op.rules if isinstance(r, R.MinRank) and t in r.params] + [1])
    hi = min([r.n for r in op.rules if isinstance(r, R.MaxRank) and t in r.params] + [8])
    return sorted(range(lo, hi + 1), key=lambda n: (n != 2, n))


def _grid_shape(rank: int, samples: int, classes: int) -> tuple:
    """A grid of `rank` dimensions with `classes` along the class axis and about `samples` samples."""
    if rank == 1:
        return (classes,)
    rest = [samples] + [1] * (rank - 2)
    if rank > 2:
        rest = [2] + [max(1, samples // 2)] + [1] * (rank - 3)
    return (rest[0], classes, *rest[1:])


class _Maker:
    def __init__(self, op, fmt, rng, case):
        self.op, self.fmt, self.rng, self.case = op, fmt, rng, case
        self.reduction = case.reduction
        self.none = op.reduction.mode(op, case.reduction) == "none"

    def _in(self, values):
        from .inputs import _in
        return _in(self.fmt, values)

    def _own(self, t, values):
        """`values` in the dtype of the call: the tensor's own where it lists one (CrossEntropyLossGrad's FLOAT
        weight), else the sample's format."""
        from .dtypes import FORMATS
        from .inputs import _in
        own = next(iter(self.op.dtypes_of(t.name).values()))[0] if t.dtypes else None
        fmt = FORMATS[own] if own in FORMATS else self.fmt
        return _in(fmt, values).astype(fmt.np)

    def call(self, group, shape, x=None, g=None, weight=None, total=None, target=None):
        """A call on the grid `shape`; what is not given is typical (targets in [0, C), a tenth ignored)."""
        op, rng, fmt = self.op, self.rng, self.fmt
        axis = 1 if len(shape) >= 2 else 0
        classes = shape[axis]
        sample_shape = tuple(d for i, d in enumerate(shape) if i != axis)
        red = op.param(op.loss_reduction)
        kw = {red.py_name: self.reduction if red.type == "string" else int(self.reduction)}
        for a in op.attrs:   # real attributes (CrossEntropyLossGrad's labelSmoothing): in [0, 1)
            if a.is_real:
                kw[a.py_name] = float(rng.uniform(0, 0.5))
        # ignoreIndex: PyTorch's default, outside the classes, or a class of its own (1), ignored where a target
        # names it; a tenth of the targets take it
        ignore = IGNORE if rng.uniform() < 0.5 or classes < 2 else 1
        for a in op.attrs:
            if a.name != op.loss_reduction and a.type == "int64":
                kw[a.py_name] = ignore
        if target is None:
            target = rng.integers(0, max(classes, 1), sample_shape)
            target = np.where(rng.uniform(0, 1, sample_shape) < 0.1, ignore, target)
        if x is None:
            x = rng.normal(0, 3, shape)
        gshape = sample_shape if self.none and len(shape) >= 2 else ()
        if g is None:
            g = rng.uniform(-2, 2, gshape)
        for t in op.tensors:
            kind = kind_of(op, t.name)
            if t.name == op.classes.target:
                dt = next(iter(op.dtypes_of(t.name).values()))[0]
                kw[t.py_name] = np.asarray(target).astype(np.dtype(dt.lower()))
            elif t.name == op.grad.name:
                kw[t.py_name] = self._in(np.broadcast_to(g, gshape)).astype(fmt.np)
            elif t.role == UNUSED or self.case.variant.key.get(t.name) == ABSENT:
                kw[t.py_name] = None
            elif kind == "grid" and t.holds is not None:   # a row's log-softmax of x (logProb), rounded
                x = np.asarray(x, np.float64)
                axis = 1 if x.ndim >= 2 else 0
                m = np.max(np.where(np.isfinite(x), x, 0), axis=axis, keepdims=True) if x.size else 0
                with np.errstate(all="ignore"):
                    lp = x - m - np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
                kw[t.py_name] = self._in(lp).astype(fmt.np)
            elif kind == "grid":
                kw[t.py_name] = self._in(x).astype(fmt.np)
            elif kind == "class":
                w = rng.uniform(0.2, 2, classes) if weight is None else weight
                kw[t.py_name] = self._own(t, w)
            else:   # one element: totalWeight, positive (the forward's sum of weights)
                v = rng.uniform(0.5, 4) if total is None else total
                kw[t.py_name] = self._in(np.full((1,), v)).astype(fmt.np)
        from .inputs import Sample
        return Sample(self.case.label, group, kw, shape=tuple(shape))


def samples(op, dtype: str, sizes, seed: int = 0) -> list:
    """Calls of class-index op `op` in `dtype`: per reduction, typical grids of every allowed rank, large and
    tiny weights and gradients, special gradients, weights and totalWeights, targets out of range, an empty
    grid, non-contiguous inputs and a strided out=."""
    from codegen.verify.cases import cases
    from .dtypes import FORMATS
    from .inputs import SPECIAL, large, special_grads, tiny
    fmt = FORMATS[dtype]
    rng = np.random.default_rng([seed, sum(map(ord, op.name)), sum(map(ord, dtype))])
    out = []
    n = max(4, sizes.typical // 8)
    for i, case in enumerate(cases(op)):
        m = _Maker(op, fmt, rng, case)
        for rank in _ranks(op):
            out.append(m.call("typical", _grid_shape(rank, n, 7)))
        top = max(_ranks(op))
        out.append(m.call(f"layout: rank {top}", _grid_shape(top, 4, 3)))
        if 2 in _ranks(op) and (sizes.layouts or i == 0):   # rows of classes wide enough for the C kernels'
            # wide path (inputs.Sizes.wide): every case in the full sets, the first in the fast one
            out.append(m.call("wide rows", _grid_shape(2, *sizes.wide)))
            out.append(m.call("rows of 64", _grid_shape(2, 3, 64)))   # (compiled apart in C: the length known)
        shape = _grid_shape(2 if 2 in _ranks(op) else _ranks(op)[0], 6, 5)
        C = shape[1] if len(shape) >= 2 else shape[0]
        out.append(m.call("special", shape, x=np.resize(np.array(SPECIAL), shape)))   # (x: no part of the gradient)
        out.append(m.call("large", shape, weight=np.resize(large(fmt), C)))
        out.append(m.call("tiny", shape, weight=np.resize(tiny(fmt), C)))
        specials = special_grads(fmt)[:sizes.grads]
        for g in specials:
            out.append(m.call("special gradOutput", shape, g=g))
        w = np.resize(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 3.0e38, -1.5, 2.5]), C)
        out.append(m.call("special operands", shape, weight=w))
        for total in (np.inf, np.nan, fmt.tiny):   # (0: the library asserts it nonzero; the mean is undefined)
            out.append(m.call("special operands", shape, total=total))
        targets = np.resize(np.array([C, C + 5, -1, 0, IGNORE]), tuple(d for k, d in enumerate(shape) if k != 1))
        out.append(m.call("special operands", shape, target=targets))   # out of range: a zero row
        if sizes.layouts or i == 0:
            out.append(m.call("layout: empty", _grid_shape(len(shape), 0, 5)))
            s = m.call("layout: non-contiguous", (6, 5) if len(shape) == 2 else shape)
            for k, v in list(s.kw.items()):
                if isinstance(v, np.ndarray) and v.ndim >= 1 and v.size > 1:
                    buf = np.zeros(tuple(2 * d + 1 for d in v.shape), v.dtype)
                    view = buf[tuple(slice(1, 2 * d + 1, 2) for d in v.shape)]
                    view[...] = v
                    s.kw[k] = view
            if len(s.shape) >= 2:   # out= every other column of a buffer whose other columns must stay nan
                s.holder = np.full((s.shape[0], 2 * s.shape[1] + 1, *s.shape[2:]), np.nan, dtype=fmt.np)
                s.out = s.holder[:, 1::2]
            out.append(s)
    return out
