"""PyTorch's own CPU backward kernels on the same inputs, when PyTorch is installed (a test oracle only).

An operator's counterpart is declared in its spec (`torch=Torch(...)` or `TorchGrad(...)`, codegen.spec.torch);
the seed operators', written before that existed, and those whose gradient no single aten call or autograd of
the held input gives (a forward *output* held, a scale applied after), are the entries below, keyed by aclnn name.  An op with
neither is simply not compared.  Each entry takes `torch`, the kernel keywords (NumPy arrays) and a converter to
tensors, and returns the gradient as a tensor (an op with several outputs: {output name: tensor}, the output op of
codegen.accuracy.outputs reads its own).
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


def _scaled_masked_softmax(torch, kw, t):
    """aten's masked softmax backward (the mask expanded: it takes no broadcast), times the scale.  It leaves
    the masked positions out of the row sum, which differs from the library only where gradOutput is not finite
    at a masked position."""
    g = t(kw["grad_output"])
    if g.numel() == 0:   # (aten's kernel divides by the row count: an empty [2,3,1,0] kills the process, SIGFPE)
        return g.clone()
    mask = t(kw["mask"]).to(torch.bool).expand(g.shape)
    return torch.ops.aten._masked_softmax_backward(g, t(kw["y"]), mask, -1) * kw["scale"]


def _prelu(torch, kw, t):
    """aten's PReLU kernel backward, both gradients by output name.  It works per element (autograd sums the
    weight's gradient over the broadcast afterwards): the accuracy runs measure each output with one weight per
    element (codegen.accuracy.outputs), so the tensors are broadcast to one shape and nothing is summed."""
    g, x, w = torch.broadcast_tensors(t(kw["grad_output"]), t(kw["self"]), t(kw["weight"]))
    grads = torch.ops.aten._prelu_kernel_backward(g, x, w)
    return dict(zip(("gradInput", "gradWeight"), grads))


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
    "aclnnScaledMaskedSoftmaxBackward": _scaled_masked_softmax,
    "aclnnSoftshrinkBackward": _softshrink,
    "aclnnEluBackward": _elu,
    "aclnnPreluBackward": _prelu,
    "aclnnBinaryCrossEntropyWithLogitsBackward": _bce_with_logits,
}


def available():
    try:
        import torch
    except ImportError:
        return None
    return torch


def counterpart(op):
    """`fn(torch, kw, t)` computing the op's gradient in PyTorch: the entry above or the spec's torch=; None."""
    fn = TORCH.get(op.name)
    if fn is None and op.torch is not None:
        from codegen.spec.torch import call
        fn = lambda torch, kw, t: call(op, torch, kw, t)  # noqa: E731
    return fn


def run(op, kw: dict, out_dtype) -> np.ndarray | None:
    """PyTorch's gradient for the kernel call `kw`, in `out_dtype`; None without PyTorch or a counterpart."""
    torch = available()
    fn = counterpart(op)
    if torch is None or fn is None:
        return None

    def t(a):
        a = np.asarray(a)
        if a.dtype.name == "bfloat16":   # (torch.from_numpy cannot read ml_dtypes' bfloat16)
            return torch.from_numpy(np.ascontiguousarray(a.astype(np.float32)).reshape(a.shape)).to(torch.bfloat16)
        return torch.from_numpy(np.ascontiguousarray(a).reshape(a.shape))   # (a 0-d array stays 0-d)
    got = fn(torch, kw, t)
    if isinstance(got, dict):   # several outputs (an entry gives them by name): the one `op` measures
        got = got[op.output.name]
    return got.detach().to(torch.float64).numpy().astype(out_dtype)
