"""Elementwise NumPy kernels in blocks, and the final store: what generated code calls so that its temporaries
stay small.

A NumPy expression over whole arrays makes a full-size temporary per operation, and a fresh large temporary
costs page faults on first touch (as much as the arithmetic).  Evaluated block by block, the same expression
keeps every temporary at BLOCK elements (64 KiB in FLOAT: below malloc's mmap threshold, so the memory is
reused, and within the L2 cache), and FLOAT16/BFLOAT16 inputs are converted to FLOAT a block at a time.
"""
from __future__ import annotations

import numpy as np

BLOCK = 16384


def blocks(arrays, out):
    """Yield (inputs, out) views block by block when every input and the output are C-contiguous arrays of
    the output's shape; otherwise (broadcast operands, strided views) yield them once, whole."""
    if out.size > BLOCK and out.flags.c_contiguous and all(
            a.shape == out.shape and a.flags.c_contiguous for a in arrays):
        flat = [a.reshape(-1) for a in arrays]
        o = out.reshape(-1)
        for start in range(0, o.size, BLOCK):
            stop = start + BLOCK
            yield [f[start:stop] for f in flat], o[start:stop]
    else:
        yield list(arrays), out


_F16_MIN_NORMAL = 2.0 ** -14


def store(out, result):
    """Round the FLOAT `result` once into `out`'s dtype (overflow gives inf), as np.copyto(casting="unsafe").

    For a FLOAT16 output, values in FLOAT16's subnormal range are first rounded to its grid (multiples of
    2^-24, ties to even: exact in FLOAT), which is the same result: NumPy's float32 -> float16 cast takes a slow
    path for every value it must round to a subnormal, 18x slower than the whole kernel (BCE with reduction
    mean over 16M elements: every gradient is about 6e-8)."""
    if out.dtype == np.float16:
        tiny = np.abs(result) < _F16_MIN_NORMAL
        if tiny.any():
            result = np.where(tiny, np.rint(result * np.float32(2.0 ** 24)) * np.float32(2.0 ** -24), result)
    np.copyto(out, result, casting="unsafe")


def where(cond, a, b):
    """np.where(cond, a, b) for FLOAT operands (the kernels' compute dtype), as a bitwise select.

    Same bits as np.where (nan payloads and -0.0 included), and about twice as fast on this project's machine:
    NumPy's where runs at ~2 ns per element, the main cost of the Piecewise kernels."""
    m = np.asarray(cond, dtype=np.int32)            # a new array: 0 or 1 ...
    np.negative(m, out=m)                          # ... then 0 or -1, all 32 bits set
    ai = np.asarray(a, dtype=np.float32).view(np.int32)
    bi = np.asarray(b, dtype=np.float32).view(np.int32)
    return np.asarray(bi ^ ((ai ^ bi) & m)).view(np.float32)
