"""Input tensors laid out along an op's class axis (codegen.spec: `Tensor.layout`, `Op.class_dim`), as views that
broadcast against the output like any other input.

    along(a, "batch", out_shape, class_dim)   NLL's target (N,) against (N, C): (N, 1); (N, H, W) against
                                              (N, C, H, W): (N, 1, H, W); a one-element tensor: all ones
    along(a, "class", out_shape, class_dim)   NLL's weight (C,) against (N, C, H, W): (1, C, 1, 1)
    class_index(out_shape, class_dim)         0..C-1 along the class axis, in FLOAT (exact below 2^24 classes)

The NumPy kernels, the Ascend C binding's op_api layer and the references all call these, so a layout means the
same everywhere; the C runtime builds the same strides (opgen_call_input_along in opgen_runtime.c).
"""
from __future__ import annotations

import numpy as np


def axis(out_shape, class_dim: int) -> int:
    """The class axis of an output of `out_shape`, in [0, rank) (a rank-0 output counts as rank 1)."""
    return class_dim % max(len(out_shape), 1)


def along(a, layout: str, out_shape, class_dim: int):
    """A view of input `a` that broadcasts against `out_shape` as its layout says (None stays None)."""
    if a is None or layout == "element":
        return a
    a = np.asarray(a)
    nd = len(out_shape)
    ax = axis(out_shape, class_dim)
    if layout == "class":
        shape = [1] * nd
        if nd:
            shape[ax] = a.size
        return a.reshape(shape) if nd else a.reshape(())
    if a.ndim == nd - 1:                       # the output's shape without the class axis
        return np.expand_dims(a, ax)
    if a.size == 1:                            # one value for every sample
        return a.reshape((1,) * nd)
    raise ValueError(f"a tensor of shape {a.shape} does not lay out along the samples of {tuple(out_shape)}")


def class_index(out_shape, class_dim: int) -> np.ndarray:
    """The index of each element along the class axis: 0..C-1 laid out along it, as FLOAT."""
    nd = len(out_shape)
    ax = axis(out_shape, class_dim)
    n = out_shape[ax] if nd else 1
    return along(np.arange(n, dtype=np.float32), "class", out_shape, class_dim)
