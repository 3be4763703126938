"""The PyTorch counterpart of an operator, declared in its spec: how the accuracy report and `opgen bench` call
PyTorch with the spec's own arguments (PyTorch is a test and benchmark oracle only, never a runtime dependency).

    torch=Torch("hardtanh_backward", "gradOutput", "self", "min", "max")
        torch.ops.aten.hardtanh_backward(gradOutput, self, min, max); the bench times its out= overload
        (`.grad_input` or `.out`, whichever the op has) into a preallocated output
    torch=Torch("gelu_backward", "gradOutput", "self", approximate="approximate")
        keyword arguments too; a string names a parameter, `Const("tanh")` is a literal string
    torch=Torch("elu_backward", "gradOutput", Const(1.67326...), Const(1.0507...), 1.0, True, "result")
        numbers and bools are literals
    torch=TorchGrad(lambda torch, x, beta: x * torch.sigmoid(beta * x), "self", "betaOptional")
        PyTorch has no backward op: autograd of this forward, differentiated w.r.t. the tensor that holds the
        forward input and fed the GRAD tensor (`torch.autograd.grad`); the bench then times autograd

Arguments are the aclnn parameter names: tensors arrive as tensors in their own dtype, scalars as Python floats
(an optional one left null as its documented default), attributes as their values.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


@dataclass(frozen=True)
class Const:
    """A literal argument (a string that is not a parameter's name, or any value said explicitly)."""
    value: object


@dataclass(frozen=True, init=False)
class Torch:
    """`torch.ops.aten.<op>(*args, **kwargs)` computes the same gradient."""
    op: str
    args: tuple
    kwargs: dict = field(default_factory=dict)

    def __init__(self, op: str, *args, **kwargs):
        object.__setattr__(self, "op", op)
        object.__setattr__(self, "args", tuple(args))
        object.__setattr__(self, "kwargs", dict(kwargs))


@dataclass(frozen=True, init=False)
class TorchGrad:
    """Autograd of the forward `fn(torch, *args)`: PyTorch has no backward op for it."""
    fn: Callable
    args: tuple

    def __init__(self, fn: Callable, *args):
        object.__setattr__(self, "fn", fn)
        object.__setattr__(self, "args", tuple(args))

    kwargs = {}


def names(spec) -> list:
    """The parameter names a counterpart's arguments refer to."""
    return [a for a in list(spec.args) + list(spec.kwargs.values()) if isinstance(a, str)]


def _value(op, name_or_value, kw: dict, tensor):
    """One argument of the call: a parameter's value (a tensor for a tensor) or a literal."""
    if isinstance(name_or_value, Const):
        return name_or_value.value
    if not isinstance(name_or_value, str):
        return name_or_value
    p = op.param(name_or_value)
    v = kw[p.py_name]
    if p.kind == "tensor":
        return None if v is None else tensor(v)
    if p.kind == "scalar":
        return float(p.default) if v is None else float(v)
    return v


def call(op, torch, kw: dict, tensor, out=None, variant=None):
    """PyTorch's gradient for the kernel keywords `kw` of `op` (`tensor`: a NumPy array as a torch tensor).

    With `out` (a tensor of the output's shape and dtype), an aten op runs its out= overload into it when it has
    one (the bench times that, as ours writes into a preallocated output); otherwise the result is returned."""
    spec = op.torch
    args = [_value(op, a, kw, tensor) for a in spec.args]
    kwargs = {k: _value(op, a, kw, tensor) for k, a in spec.kwargs.items()}
    if isinstance(spec, Torch):
        packet = getattr(torch.ops.aten, spec.op)
        if out is not None:
            for overload in ("grad_input", "out"):
                ov = getattr(packet, overload, None)
                outs = [a.name for a in ov._schema.arguments if a.is_out] if ov is not None else []
                if len(outs) == 1:
                    return ov(*args, **kwargs, **{outs[0]: out})
        return packet(*args, **kwargs)
    # autograd of the forward, w.r.t. the tensor that holds its input, expanded to the output's shape so that a
    # broadcast input is not summed over
    from .params import FORWARD_INPUT, GRAD
    formula = (variant or op.variants[0]).formula
    x_name = next(t.name for t in op.tensors if op.role_of(t.name, formula) == FORWARD_INPUT)
    g_name = next(t.name for t in op.tensors if t.role == GRAD)
    shapes = [tuple(kw[t.py_name].shape) for t in op.tensors if kw.get(t.py_name) is not None]
    import numpy as np
    # (a split op's input is whole, its gradOutput a half: the input's own shape)
    shape = np.broadcast_shapes(*shapes) if op.split is None else tuple(kw[op.param(x_name).py_name].shape)
    x = tensor(kw[op.param(x_name).py_name])
    if op.output.sum_to != x_name:   # a sum_to output is that gradient summed back, which autograd does itself
        x = x.expand(shape)
    x = x.clone().requires_grad_(True)
    args = [x if a == x_name else v for a, v in zip(spec.args, args)]
    with torch.enable_grad():
        y = spec.fn(torch, *args)
        g = tensor(kw[op.param(g_name).py_name])
        # a reduced loss is one number: a one-element gradOutput of any rank is its gradient
        g = g.reshape(y.shape) if y.dim() == 0 and g.numel() == 1 else g.expand(y.shape)
        (grad,) = torch.autograd.grad(y, x, g)
    if out is not None:
        out.copy_(grad)
        return out
    return grad
