"""PyTorch's own CPU backward kernels on the same inputs, when PyTorch is installed (a test oracle only).

One entry per aclnn operator that has a PyTorch counterpart, keyed by aclnn name; an op without one is simply
not compared.  Each entry takes `torch`, the kernel keywords (NumPy arrays) and a converter to tensors, and
returns the gradient as a tensor.
"""
from __future__ import annotations

import numpy as np


def _log_sigmoid(torch, kw, t):
    x = t(kw["self"])
    _, buffer = torch.ops.aten.log_sigmoid_forward(x)   # PyTorch's own forward intermediate
    return torch.ops.aten.log_sigmoid_backward(t(kw["grad_output"]), x, buffer)


def _softmax(torch, kw, t):
    g = t(kw["grad_output"])
    return torch.ops.aten._softmax_backward_data(g, t(kw["output"]), kw["dim"], g.dtype)


def _log_softmax(torch, kw, t):
    g = t(kw["grad_output"])
    return torch.ops.aten._log_softmax_backward_data(g, t(kw["output"]), kw["dim"], g.dtype)


def _softshrink(torch, kw, t):
    return torch.ops.aten.softshrink_backward(t(kw["grad_output"]), t(kw["self"]), kw["lambd"])


def _elu(torch, kw, t):
    return torch.ops.aten.elu_backward(t(kw["grad_output"]), kw["alpha"], kw["scale"], kw["input_scale"],
                                       kw["is_result"], t(kw["self_or_result"]))


def _bce_with_logits(torch, kw, t):
    x = t(kw["self"]).requires_grad_(True)
    opt = lambda k: None if kw[k] is None else t(kw[k])
    red = {0: "none", 1: "mean", 2: "sum"}[kw["reduction"]]
    loss = torch.nn.functional.binary_cross_entropy_with_logits(
        x, t(kw["target"]), weight=opt("weight_optional"), pos_weight=opt("pos_weight_optional"), reduction=red)
    g = t(kw["grad_output"])
    g = g.reshape(()) if red != "none" else g.expand(loss.shape)
    (grad,) = torch.autograd.grad(loss, x, g)
    return grad


TORCH = {
    "aclnnLogSigmoidBackward": _log_sigmoid,
    "aclnnSoftmaxBackward": _softmax,
    "aclnnLogSoftmaxBackward": _log_softmax,
    "aclnnSoftshrinkBackward": _softshrink,
    "aclnnEluBackward": _elu,
    "aclnnBinaryCrossEntropyWithLogitsBackward": _bce_with_logits,
}


def available():
    try:
        import torch
    except ImportError:
        return None
    return torch


def run(op, kw: dict, out_dtype) -> np.ndarray | None:
    """PyTorch's gradient for the kernel call `kw`, in `out_dtype`; None without PyTorch or a counterpart."""
    torch = available()
    fn = TORCH.get(op.name)
    if torch is None or fn is None:
        return None
    tdt = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}

    def t(a):
        a = np.asarray(a)
        return torch.from_numpy(np.ascontiguousarray(a.astype(np.float32))).to(tdt[a.dtype.name])
    return fn(torch, kw, t).detach().to(torch.float32).numpy().astype(out_dtype)
