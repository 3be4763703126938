"""PyTorch's CPU kernels for the benchmarked calls, with preallocated outputs: the speed to beat.

Each builder takes `torch`, the case's kernel keywords (NumPy arrays), `t` (a NumPy array as a tensor sharing
its memory) and `new` (a new tensor of a shape, in the case's dtype), and returns a no-argument callable.
Everything that is not the kernel's work happens here, once, outside the timed region: NumPy arrays become
tensors sharing their memory (`torch.from_numpy`; BFLOAT16 through a uint16 view, which torch.from_numpy
cannot read directly), outputs and temporaries are allocated where the bench places every array
(placement.py), so PyTorch's kernels read and write memory placed like ours.  Where PyTorch has
no single aten backward op for ours, the entry composes what PyTorch's autograd runs, with `out=` and in-place ops
where PyTorch has them: BCE-with-logits (its backward formula, FunctionsManual.cpp), PReLU (its aten kernel, then
the sum over the broadcast axes; two outputs), ScaledMaskedSoftmax (softmax's backward, scaled and masked: PyTorch
has no fused op) and CrossEntropyLossGrad (nll_loss's backward, then log_softmax's).  The other operators' entries
come from their specs' `torch=` declarations.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from . import placement


def available():
    """The torch module, or None when PyTorch is not installed (the report then says "—")."""
    try:
        import torch
    except ImportError:
        return None
    return torch


def tensor(torch, a: np.ndarray):
    """A tensor sharing `a`'s memory, in `a`'s dtype (float32, float16 or bfloat16)."""
    a = np.ascontiguousarray(a)
    if a.dtype.name == "bfloat16":
        return torch.from_numpy(a.view(np.uint16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def _log_sigmoid(torch, kw, t, new):
    g, x, buffer = t(kw["grad_output"]), t(kw["self"]), t(kw["buffer"])
    out = new(x.shape)
    op = torch.ops.aten.log_sigmoid_backward.grad_input
    return lambda: op(g, x, buffer, grad_input=out)


def _softmax(torch, kw, t, new):
    g, y, dim = t(kw["grad_output"]), t(kw["output"]), kw["dim"]
    out = new(g.shape)
    op = torch.ops.aten._softmax_backward_data.out
    return lambda: op(g, y, dim, g.dtype, grad_input=out)


def _log_softmax(torch, kw, t, new):
    g, y, dim = t(kw["grad_output"]), t(kw["output"]), kw["dim"]
    out = new(g.shape)
    op = torch.ops.aten._log_softmax_backward_data.out
    return lambda: op(g, y, dim, g.dtype, out=out)


def _softshrink(torch, kw, t, new):
    g, x, lambd = t(kw["grad_output"]), t(kw["self"]), kw["lambd"]
    out = new(np.broadcast_shapes(tuple(g.shape), tuple(x.shape)))
    op = torch.ops.aten.softshrink_backward.grad_input
    return lambda: op(g, x, lambd, grad_input=out)


def _elu(torch, kw, t, new):
    g, v = t(kw["grad_output"]), t(kw["self_or_result"])
    args = (kw["alpha"], kw["scale"], kw["input_scale"], kw["is_result"])
    out = new(g.shape)
    op = torch.ops.aten.elu_backward.grad_input
    return lambda: op(g, *args, v, grad_input=out)


def _bce_with_logits(torch, kw, t, new):
    """PyTorch's formula: pos_weight present: ((pw*t + 1 - t) * sigmoid(x) - pw*t) * g [* w] [/ numel];
    absent: (sigmoid(x) - t) * g [* w] [/ numel].  The mean's 1/numel is folded into the one-element
    gradOutput (a 0-dim multiply, timed) instead of a pass over the output as PyTorch's own `div_`."""
    x, target, g = t(kw["self"]), t(kw["target"]), t(kw["grad_output"])
    w = None if kw["weight_optional"] is None else t(kw["weight_optional"])
    pw = None if kw["pos_weight_optional"] is None else t(kw["pos_weight_optional"])
    mean = kw["reduction"] == 1
    out = new(x.shape)
    pwt = new(x.shape) if pw is not None else None            # pw * t
    sig = new(x.shape) if pw is not None else None            # sigmoid(x)
    g_mean = new(g.shape) if mean else None
    inv_n = 1.0 / max(1, x.numel())

    def run():
        if pw is None:
            torch.sigmoid(x, out=out)
            out.sub_(target)
        else:
            torch.mul(pw, target, out=pwt)
            torch.sub(pwt, target, out=out)
            out.add_(1)
            torch.sigmoid(x, out=sig)
            out.mul_(sig)
            out.sub_(pwt)
        if mean:
            torch.mul(g, inv_n, out=g_mean)
            out.mul_(g_mean)
        else:
            out.mul_(g)
        if w is not None:
            out.mul_(w)
        return out
    return run


def _prelu(torch, kw, t, new):
    """PyTorch's autograd of F.prelu: its aten backward kernel (gradInput, and the weight's gradient at every
    element of self: the weight broadcast along the channel axis) then that summed over every axis but the
    channel (autograd's sum_to of a broadcast input), `out=` where PyTorch has it (the sum).  The aten kernel has
    no out= overload: it allocates its two results, as in autograd.  Returns (gradInput, gradWeight)."""
    g, x, w = t(kw["grad_output"]), t(kw["self"]), t(kw["weight"])
    view = [1] * max(x.dim(), 1)
    if w.numel() != 1:
        view[1] = w.numel()
    wv = w.reshape(view)
    axes = [d for d in range(x.dim()) if view[d] == 1 or d >= len(view)]
    grad_weight = new((w.numel(),) if w.numel() != 1 else tuple(w.shape))
    flat = grad_weight.reshape(-1)
    op = torch.ops.aten._prelu_kernel_backward.default

    def run():
        gi, gw = op(g, x, wv)
        torch.sum(gw, dim=axes, out=flat) if axes else flat.copy_(gw.reshape(-1))
        return gi, grad_weight
    return run


def _scaled_masked_softmax(torch, kw, t, new):
    """PyTorch has no fused op: softmax's aten backward on the forward's output y, y·(g − Σ g·y) along the last
    axis (the sum over the whole row, masked positions included, as the library's kernel and ours), into a
    preallocated output, then times `scale` and zero where the mask is true (the mask broadcast), both in place."""
    g, y, mask, scale = t(kw["grad_output"]), t(kw["y"]), t(kw["mask"]), kw["scale"]
    out = new(g.shape)
    op = torch.ops.aten._softmax_backward_data.out

    def run():
        op(g, y, -1, g.dtype, grad_input=out)
        out.mul_(scale)
        return out.masked_fill_(mask, 0)
    return run


def _cross_entropy(torch, kw, t, new):
    """PyTorch's autograd of F.cross_entropy from log_softmax's output: nll_loss's aten backward (the gradient
    w.r.t. logProb) then log_softmax's (w.r.t. the logits), each into a preallocated output.  What autograd keeps
    from the forward is made outside the timed region: the total weight of the samples not ignored (nll_loss's
    second result) and the weight in the case's dtype (PyTorch's kernel takes one dtype).  Label smoothing is a
    different autograd graph: only labelSmoothing 0 (the example's) is composed here."""
    if kw["label_smoothing"]:
        raise ValueError("the PyTorch composition covers labelSmoothing 0 only")
    lp, target, g = t(kw["log_prob"]), t(kw["target"]), t(kw["grad_loss"])
    reduction = {"none": 0, "mean": 1, "sum": 2}[kw["reduction_optional"]]
    w = None if kw["weight_optional"] is None else t(kw["weight_optional"]).to(lp.dtype)
    ignore = kw["ignore_index"]
    _, total = torch.ops.aten.nll_loss_forward(lp, target, w, reduction, ignore)
    g = g.reshape(()) if reduction else g
    grad_lp, out = new(lp.shape), new(lp.shape)
    nll = torch.ops.aten.nll_loss_backward.grad_input
    log_softmax = torch.ops.aten._log_softmax_backward_data.out

    def run():
        nll(g, lp, target, w, reduction, ignore, total, grad_input=grad_lp)
        return log_softmax(grad_lp, lp, 1, lp.dtype, out=out)
    return run


BUILDERS = {
    "prelu_backward": _prelu,
    "scaled_masked_softmax_backward": _scaled_masked_softmax,
    "cross_entropy_loss_grad": _cross_entropy,
    "log_sigmoid_backward": _log_sigmoid,
    "softmax_backward": _softmax,
    "log_softmax_backward": _log_softmax,
    "softshrink_backward": _softshrink,
    "elu_backward": _elu,
    "binary_cross_entropy_with_logits_backward": _bce_with_logits,
}


def _from_spec(op):
    """The builder of an op whose spec declares its PyTorch counterpart (codegen.spec.torch): the aten op's out=
    overload into a preallocated output (or the op itself, when it has none), or autograd of the forward."""
    from codegen.runtime.calls import output_shape
    from codegen.spec.torch import call

    def build(torch, kw, t, new):
        out = new(output_shape(op, kw))
        return lambda: call(op, torch, kw, t, out=out)
    return build


def counterpart(torch, op_name: str, kw: dict, offset: int = 0, op=None) -> Callable[[], object] | None:
    """The PyTorch call for kernel keywords `kw` of `op_name` (None without PyTorch or a counterpart), its
    outputs and temporaries `offset` bytes past a cache line; its result is the output tensor.  `op`, the spec,
    gives the counterpart it declares (`torch=`), for the operators that have no entry in BUILDERS."""
    builder = BUILDERS.get(op_name)
    if builder is None and op is not None and op.torch is not None:
        builder = _from_spec(op)
    if torch is None or builder is None:
        return None
    # the case's dtype: gradOutput's (a BOOL mask, an INT64 target, a FLOAT weight may differ)
    dtype = next(v.dtype for v in kw.values() if isinstance(v, np.ndarray) and v.dtype.kind not in "biu")

    def new(shape):
        return tensor(torch, placement.empty(tuple(shape), dtype, offset))
    return builder(torch, kw, lambda a: tensor(torch, a), new)
