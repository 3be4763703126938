"""Samples and references of an op with a sequence mask (codegen.spec.sequence): `opgen oracle` and `opgen accuracy`
on an op with an `IntArray` of lengths.

    samples(op, dtype, sizes, seed)      the unmasked op's samples (inputs.py: the form where IN_SEQUENCE holds),
                                         laid time-major, with lengths drawn inside [0, T]
    prepare(op, sample, fmt, use_torch)  the unmasked op's exact reference and rounding bound (runner.prepare); at
                                         the positions past a length the exact result is 0 and the kernel must
                                         give exactly 0 (`Prepared.exact_zero`), whatever the inputs there

A 1-D sample of n values becomes [T=n, N=2] (the values along time, twice): batch element 0 keeps every frame
(lengths[0] = n: each value judged against the unmasked reference), batch element 1 a random length below n (the frames
past it masked, nan and inf inputs among them).  A sample already of the rank the rules require (the layout
groups) keeps its shape and gets a random length per batch element.  The reference never reads a kernel: the
mask is the definition t >= lengths[b] (`codegen.spec.sequence.mask_positions`), the rest mpmath's.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from codegen.runtime.calls import past_length
from codegen.spec.sequence import unmasked_op


def samples(op, dtype: str, sizes, seed: int = 0) -> list:
    from .inputs import samples as unmasked_samples
    rng = np.random.default_rng([seed, sum(map(ord, op.name)), sum(map(ord, dtype)), 1])
    return [_time_major(op, s, rng) for s in unmasked_samples(unmasked_op(op), dtype, sizes, seed)]


def _time_major(op, s, rng):
    """Sample `s` of the unmasked op with the lengths added (and, if it lacks the time or batch axis, its values
    laid along time, twice along batch)."""
    sq = op.sequence
    shape, kw = tuple(s.shape), dict(s.kw)
    # (a row of values padded with leading axes of 1 up to the op's MinRank is still one row: laid along time)
    padded = len(shape) > 1 and all(k == 1 for k in shape[:-1])
    if len(shape) > max(sq.time, sq.batch) and not padded:
        lengths = [int(v) for v in rng.integers(0, shape[sq.time] + 1, shape[sq.batch])]
    else:
        n = int(np.prod(shape))
        rank = max(sq.time, sq.batch) + 1
        along = [n if d == sq.time else 1 for d in range(rank)]
        new = tuple(2 if d == sq.batch else k for d, k in enumerate(along))
        for t in op.tensors:
            a = kw.get(t.py_name)
            if isinstance(a, np.ndarray) and a.shape == shape:
                kw[t.py_name] = np.ascontiguousarray(np.broadcast_to(a.reshape(along), new))
        shape = new
        lengths = [n, int(rng.integers(0, max(n, 1)))]   # (at least one frame masked)
    kw[op.param(sq.lengths).py_name] = lengths
    return dataclasses.replace(s, kw=kw, shape=shape)


def masked_positions(op, sample) -> np.ndarray:
    """True where the sample's output is past its sequence's length (t >= lengths[b])."""
    sq = op.sequence
    lengths = sample.kw[op.param(sq.lengths).py_name]
    return np.array(past_length(sample.shape, lengths, sq.time, sq.batch))


def prepare(op, sample, fmt, use_torch: bool = True):
    """runner.prepare of the unmasked op, then 0 (exactly, and required exactly) at the masked positions.  PyTorch
    has no such operator: no comparison (`use_torch` is ignored)."""
    from .runner import prepare as prepare_any
    p = prepare_any(unmasked_op(op), sample, fmt, use_torch=False)
    m = masked_positions(op, sample)
    shape = sample.shape

    def on(a, value):
        return None if a is None else np.where(m, value, np.broadcast_to(a, shape))
    p.ref = on(p.ref, 0.0)
    p.unresolved, p.nan_in, p.inf_in = on(p.unresolved, False), on(p.nan_in, False), on(p.inf_in, False)
    p.formula, p.bound, p.unsure = on(p.formula, 0.0), on(p.bound, 0.0), on(p.unsure, False)
    p.sign_unsure, p.alt = on(p.sign_unsure, False), on(p.alt, np.nan)
    p.exact_zero = m
    return p
