"""Arrays that start on a 64-byte cache line, or a fixed number of bytes past one.

The C kernels write a large output with non-temporal stores straight from their loops when its runs start on cache
lines (opgen_loops.c: plan, runs_on_lines), as PyTorch's tensors (c10 aligns every CPU tensor to 64 bytes) and
aclrtMalloc's buffers do; elsewhere softmax's outputs take a detour through a line writer, and elementwise outputs
made of several runs off the lines are not streamed.  NumPy leaves the start of an array to malloc, 16 bytes past a
line for large arrays on the README's machine; so the outputs a kernel callable allocates itself come from here.
"""
from __future__ import annotations

import math

import numpy as np

LINE = 64                          # bytes: a cache line on every x86-64 and Arm server core we target


def empty(shape, dtype, offset: int = 0) -> np.ndarray:
    """An uninitialized C-contiguous array whose first element starts `offset` bytes past a cache line."""
    dt = np.dtype(dtype)
    # (math.prod: np.prod took a tenth of a small kernel call)
    count = math.prod(shape) if isinstance(shape, tuple) else int(np.prod(shape, dtype=np.int64))
    nbytes = count * dt.itemsize
    raw = np.empty(nbytes + LINE + offset, dtype=np.uint8)
    start = -raw.ctypes.data % LINE + offset
    return raw[start:start + nbytes].view(dt).reshape(shape)
