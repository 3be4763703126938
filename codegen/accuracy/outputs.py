"""An op with several outputs (codegen.spec.outputs) in the accuracy runs: measured as one op per output.

`name[gradInput]`, `name[gradWeight]`: the samples, the exact reference and the bound are those of the output's
own proven op (`Op.per_output`: the forward differentiated w.r.t. that output's input), the kernel is the op's,
called so that it computes each sample element on its own, and read back on that output.  A per-channel tensor
(`PerChannel`) would tie the sample's elements together through its channels, so the output ops drop the channel
rules (each sample tensor then has the output's shape, one weight per element) and the kernel is called with every
tensor flattened to [1, N] (N channels of one element each: the channel rules hold, every channel's sum has one
term) and its results reshaped back.  The channel sums themselves are checked by tests/test_several_outputs.py
(PyTorch autograd, and the backends against each other bit for bit)."""
from __future__ import annotations

import dataclasses

import numpy as np

from codegen import backends as _backends
from codegen.spec import rules as R


def output_ops(ops: dict, backends: list[str], kernels: dict | None) -> tuple[dict, dict | None]:
    """(ops with each several-output op replaced by its output ops, kernels for them); other ops pass through."""
    if not any(op.per_output for op in ops.values()):
        return ops, kernels
    out, made = {}, dict(kernels or {})
    for name, op in ops.items():
        if not op.per_output:
            out[name] = op
            continue
        whole = {b: made.get((name, b)) or _backends.get(b).make_kernel(op) for b in backends}
        for k, sub in enumerate(op.per_output):
            key = f"{name}[{sub.output.name}]"
            out[key] = measured_op(sub)
            for b in backends:
                made[(key, b)] = output_kernel(op, k, whole[b])
    return out, made


def measured_op(sub):
    """An output's op without the channel rules (its tensors then have the output's shape in every sample)."""
    rules = [r for r in sub.rules if not isinstance(r, (R.PerChannel, R.ChannelGrad))]
    if len(rules) == len(sub.rules):
        return sub
    m = dataclasses.replace(sub, rules=rules)
    m.output_of = sub.output_of
    if sub.output.sum_to and not any(isinstance(r, R.ShapeSame) and sub.output.name in r.params for r in rules):
        m.rules = rules + [R.ShapeSame(sub.output.sum_to, sub.output.name)]   # summed over nothing: its own shape
    return m


def output_kernel(op, k: int, fn):
    """The op's kernel `fn` as a kernel of its output `k`: with channel rules every element its own channel ([1, N]
    tensors, a weight of N elements), the output `k` reshaped to the sample's shape; without, the call as sampled
    (a broadcast input's `sum_to` output keeps its input's shape: WeightedMseLossBackward's gradTarget); written
    into `out=` when given."""
    channel = {r.params[0] for r in op.rules if isinstance(r, R.PerChannel)}
    py = {t.py_name: t for t in op.tensors}

    def call(*, product, out=None, **kw):
        if not channel:   # no channel sums: the call as sampled (a sum_to output summed back to its input's shape)
            got = fn(**kw, product=product)[k]
            if out is None:
                return got
            out[...] = got
            return out
        shapes = [np.shape(kw[n]) for n in py if kw.get(n) is not None]
        shape = tuple(np.broadcast_shapes(*shapes)) if shapes else ()
        n = int(np.prod(shape))
        for name, t in py.items():
            a = kw.get(name)
            if a is None:
                continue
            a = np.broadcast_to(a, shape)
            kw[name] = np.ascontiguousarray(a).reshape(n) if t.name in channel else \
                np.ascontiguousarray(a).reshape(1, n)
        got = fn(**kw, product=product)[k].reshape(shape)
        if out is None:
            return got
        out[...] = got
        return out
    return call
