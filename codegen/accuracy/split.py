"""A split op (codegen.spec.split) in the accuracy tools' terms: its calls are made of calls of its two half ops.

    halves_of(op, kw)        the half ops' keywords of one call (its input cut in halves along dim)
    SplitReference           reference_for(op, kw) of a split op: each half op's reference on its half, joined
    samples(op, ...)         the op's calls built from the half ops' samples: the halves concatenated along a
                             dimension (the last for an odd rank, the first for an even one), or interleaved
    whole_call, half_of      a call of the whole op from two halves, and a half of its result

The oracle measures the half ops themselves (runner.split_halves); these serve whatever asks about the whole op
(the tests' PyTorch comparison, `opgen accuracy`'s samples).
"""
from __future__ import annotations

import numpy as np

from codegen.runtime.blocks import halves as _halves
from codegen.spec.split import per_row_tensors, tied_values


def _dim(op, kw, ndim) -> int:
    return op.split.dim_of(op, kw, ndim)


def _interleaved(op, kw) -> bool:
    split = op.split
    return bool(kw.get(op.param(split.interleaved).py_name)) if split.interleaved else False


def halves_of(op, kw: dict) -> tuple[int, list[dict]]:
    """(the split axis, [the keywords of half op 0, of half op 1]) of the call `kw` of split op `op`.  A split read
    as rows (interleaved= or rows=) gives the half ops their [pre, cut/2] views (codegen.runtime.rows), gradOutput
    read the same way."""
    split = op.split
    src = np.asarray(kw[op.param(split.tensor).py_name])
    d = _dim(op, kw, src.ndim)
    layout = [split.tensor, split.dim_attr, split.interleaved, split.rows]
    base = {k: v for k, v in kw.items() if k not in [op.param(n).py_name for n in layout if n]}
    if split.merged:
        from codegen.runtime.rows import Rows
        rows = Rows(src, np.empty(src.shape, src.dtype), d, interleaved=_interleaved(op, kw))   # every row
        parts = rows.halves(src)
        for t in op.tensors:
            if t.name not in (split.tensor, split.rows) and base.get(t.py_name) is not None:
                base[t.py_name] = rows.half_rows(np.asarray(base[t.py_name]))
    else:
        parts = _halves(src, d)
    out = []
    for half in op.halves:
        h = dict(base)
        for s, part in zip(op.wrt, parts):
            h[half.param(str(s)).py_name] = part
        out.append(h)
    return d, out


def joined(op, kw: dict, parts: list, shape) -> np.ndarray:
    """The half ops' results `parts` (each of a half's shape) put where their halves are in the output of `shape`;
    a split read as rows writes 0 in the rows past its count, as the kernels do."""
    split = op.split
    d = _dim(op, kw, len(shape))
    if not split.merged:
        return np.concatenate(parts, axis=d)
    from codegen.runtime.rows import row_count
    pre = int(np.prod(shape[:d], dtype=np.int64))
    whole = np.stack(parts, axis=-1 if _interleaved(op, kw) else 1).reshape(pre, -1)
    whole[row_count(kw.get(op.param(split.rows).py_name) if split.rows else None, pre, split.rows_sum == "uint32"):] = 0
    return whole.reshape(shape)


def half_shape(op, kw: dict, shape) -> tuple:
    """The half ops' shape for an output of `shape`: dim halved, or [pre, cut/2] for a split read as rows."""
    d = _dim(op, kw, len(shape))
    if op.split.merged:
        return (int(np.prod(shape[:d], dtype=np.int64)), int(np.prod(shape[d:], dtype=np.int64)) // 2)
    out = list(shape)
    out[d] //= 2
    return tuple(out)


def whole_call(op, a, b) -> tuple[dict, int]:
    """(keywords, axis) of a call of split op `op` whose halves are `a` and `b` (of one shape): joined along the last
    axis for an odd rank, the first for an even one (along its fixed axis for `Split(dim=-1)`); an op that can interleave its halves is called interleaved
    (each row alternating a's elements and b's), every row computed."""
    split = op.split
    # (a fixed axis is that axis)
    d = split.dim % a.ndim if split.dim_attr is None else a.ndim - 1 if a.ndim % 2 else 0
    kw = {}
    if split.rows:
        kw[op.param(split.rows).py_name] = None
    if split.interleaved:
        shape = a.shape[:d] + (2 * a.shape[d],) + a.shape[d + 1:]
        kw[op.param(split.tensor).py_name] = np.stack([a, b], axis=-1).reshape(shape)
        kw[op.param(split.interleaved).py_name] = True
    else:
        kw[op.param(split.tensor).py_name] = np.concatenate([a, b], axis=d)
    return kw, d


def _element_rows(op, kw: dict, a, b) -> dict:
    """A call of split op `op` (with per-row tensors) whose rows are the elements of the halves a and b: x [N, 2],
    the tensors of the halves' shape [N, 1], the per-row ones [N], the tensors only an extra output reads given
    (zeros) when the per-row ones are; every row computed."""
    from codegen.spec.split import extra_params
    n = a.size
    rows = {op.param(t).py_name for t in per_row_tensors(op)}
    out = {}
    for k, v in kw.items():
        if isinstance(v, np.ndarray):
            v = np.broadcast_to(v, a.shape).reshape(n) if k in rows else np.broadcast_to(v, a.shape).reshape(n, 1)
        out[k] = v
    out[op.param(op.split.tensor).py_name] = np.concatenate([a.reshape(n, 1), b.reshape(n, 1)], axis=1)
    given = any(out.get(r) is not None for r in rows)
    for p in extra_params(op):
        if p.kind == "tensor" and out.get(p.py_name) is None:
            out[p.py_name] = np.zeros((n, 1), a.dtype) if given else None
    if op.split.rows:
        out[op.param(op.split.rows).py_name] = None
    return out


def half_of(op, got, h: int, d: int, shape) -> np.ndarray:
    """Half `h` of the output `got` of a `whole_call` whose halves had `shape`."""
    if op.split.interleaved:
        return np.asarray(got).reshape(-1, 2)[:, h].reshape(shape)
    n = got.shape[d] // 2
    return got[(slice(None),) * d + (slice(h * n, (h + 1) * n),)]


class SplitReference:
    """The exact gradient of a split op's calls: each half op's reference (codegen.accuracy.reference) on its
    half of the output, joined along the split axis."""

    coupled = False

    def __init__(self, op):
        self.op = op

    def _joined(self, method, kw, shape, *args):
        from .reference import reference_for
        _, kws = halves_of(self.op, kw)
        hs = half_shape(self.op, kw, shape)
        parts = [getattr(reference_for(h, k), method)(k, hs, *args) for h, k in zip(self.op.halves, kws)]
        if isinstance(parts[0], tuple):
            return tuple(joined(self.op, kw, [p[i] for p in parts], shape) for i in range(len(parts[0])))
        return joined(self.op, kw, parts, shape)

    def rounded(self, kw, shape, fmt):
        return self._joined("rounded", kw, shape, fmt)

    def rounded_ties(self, kw, shape, fmt):
        return self._joined("rounded_ties", kw, shape, fmt)

    def values(self, kw, shape, only=None):
        return self._joined("values", kw, shape) if only is None else self._joined("values", kw, shape, only)


def samples(op, dtype: str, sizes, seed: int = 0) -> list:
    """Calls of split op `op` built from its half ops' samples (codegen.accuracy.inputs): the two halves
    concatenated along the last axis for an odd rank, the first for an even one; no `out=` (a half op's view
    has a half's shape)."""
    from .inputs import samples as half_samples
    src = op.param(op.split.tensor).py_name
    dim = op.param(op.split.dim_attr).py_name if op.split.dim_attr else None
    out = []
    for h, half in enumerate(op.halves):
        names = [half.param(str(s)).py_name for s in op.wrt]
        for s in half_samples(half, dtype, sizes, seed):
            a, b = (np.asarray(s.kw[n]) for n in names)
            if a.ndim == 0:
                continue
            kw = {k: v for k, v in s.kw.items() if k not in names}
            if per_row_tensors(op):   # each element a row of its own (H = 1): a per-row tensor per element
                s.kw, s.shape = _element_rows(op, kw, a, b), (a.size, 2)
                s.out, s.holder, s.case = None, None, f"d/d{half.wrt}: {s.case}"
                out.append(s)
                continue
            joined_kw, d = whole_call(op, a, b)
            kw.update(joined_kw)
            if dim is not None:
                kw[dim] = d
            shape = list(s.shape)
            shape[d] *= 2
            kw.update(tied_values(op, kw))   # a tensor holding a function of a half: the forward's value
            s.kw, s.shape, s.out, s.holder = kw, tuple(shape), None, None
            s.case = f"d/d{half.wrt}: {s.case}"
            out.append(s)
    return out
