"""A split op (codegen.spec.split) in the accuracy tools' terms: its calls are made of calls of its two half ops.

    halves_of(op, kw)        the half ops' keywords of one call (its input cut in halves along dim)
    SplitReference           reference_for(op, kw) of a split op: each half op's reference on its half, joined
    samples(op, ...)         the op's calls built from the half ops' samples: the halves concatenated along a
                             dimension (the last for an odd rank, the first for an even one)

The oracle measures the half ops themselves (runner.split_halves); these serve whatever asks about the whole op
(the tests' PyTorch comparison, `opgen accuracy`'s samples).
"""
from __future__ import annotations

import numpy as np

from codegen.runtime.blocks import halves as _halves
from codegen.spec.split import tied_values


def _dim(op, kw, ndim) -> int:
    return int(kw[op.param(op.split.dim).py_name]) % max(ndim, 1)


def halves_of(op, kw: dict) -> tuple[int, list[dict]]:
    """(the split axis, [the keywords of half op 0, of half op 1]) of the call `kw` of split op `op`."""
    src = np.asarray(kw[op.param(op.split.tensor).py_name])
    d = _dim(op, kw, src.ndim)
    parts = _halves(src, d)
    base = {k: v for k, v in kw.items() if k not in (op.param(op.split.tensor).py_name, op.param(op.split.dim).py_name)}
    out = []
    for half in op.halves:
        h = dict(base)
        for s, part in zip(op.wrt, parts):
            h[half.param(str(s)).py_name] = part
        out.append(h)
    return d, out


class SplitReference:
    """The exact gradient of a split op's calls: each half op's reference (codegen.accuracy.reference) on its
    half of the output, joined along the split axis."""

    coupled = False

    def __init__(self, op):
        self.op = op

    def _joined(self, method, kw, shape, *args):
        from .reference import reference_for
        d, kws = halves_of(self.op, kw)
        half_shape = list(shape)
        half_shape[d] //= 2
        parts = [getattr(reference_for(h, k), method)(k, tuple(half_shape), *args) for h, k in zip(self.op.halves, kws)]
        if isinstance(parts[0], tuple):
            return tuple(np.concatenate([p[i] for p in parts], axis=d) for i in range(len(parts[0])))
        return np.concatenate(parts, axis=d)

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
    src, dim = op.param(op.split.tensor).py_name, op.param(op.split.dim).py_name
    out = []
    for h, half in enumerate(op.halves):
        names = [half.param(str(s)).py_name for s in op.wrt]
        for s in half_samples(half, dtype, sizes, seed):
            a, b = (np.asarray(s.kw[n]) for n in names)
            if a.ndim == 0:
                continue
            d = a.ndim - 1 if a.ndim % 2 else 0
            kw = {k: v for k, v in s.kw.items() if k not in names}
            kw[src] = np.concatenate([a, b], axis=d)
            kw[dim] = d
            shape = list(s.shape)
            shape[d] *= 2
            kw.update(tied_values(op, kw))   # a tensor holding a function of a half: the forward's value
            s.kw, s.shape, s.out, s.holder = kw, tuple(shape), None, None
            s.case = f"d/d{half.wrt}: {s.case}"
            out.append(s)
    return out
