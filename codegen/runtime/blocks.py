"""NumPy kernels in blocks, and the final store: what generated code calls so that its temporaries
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


def row_blocks(arrays, out, dim):
    """Yield (inputs, out, dim) for a kernel that sums along `dim`: blocks of whole rows, as 2-D views with the
    rows along the last axis (dim -1), when `dim` is the last axis and every input and the output are
    C-contiguous arrays of the output's shape; otherwise the arrays once, whole, with `dim` unchanged.

    Each row is summed on its own either way (NumPy's pairwise sum along a contiguous last axis), so the blocks
    give the same bits as the whole arrays, with temporaries of about BLOCK elements (softmax rows of 64 to
    32768, FLOAT, 16M elements: 1.4-1.9x faster than whole arrays, side by side)."""
    last = out.ndim > 0 and dim % out.ndim == out.ndim - 1
    if last and out.size > BLOCK and out.flags.c_contiguous and all(
            a.shape == out.shape and a.flags.c_contiguous for a in arrays):
        length = out.shape[-1]
        rows = [a.reshape(-1, length) for a in arrays]
        o = out.reshape(-1, length)
        step = max(1, BLOCK // length)
        for start in range(0, o.shape[0], step):
            stop = start + step
            yield [r[start:stop] for r in rows], o[start:stop], -1
    else:
        yield list(arrays), out, dim


def store(out, result):
    """Round the FLOAT `result` once into `out`'s dtype (overflow gives inf), as np.copyto(casting="unsafe").

    A FLOAT16 output takes `f16_bits`: NumPy's own float32 -> float16 cast is a scalar loop here (~5 ns per
    element, more than all of a kernel's arithmetic), and slower still for every value it rounds to a
    subnormal."""
    if out.dtype == np.float16:
        result = np.broadcast_to(np.asarray(result, dtype=np.float32), out.shape)
        np.copyto(out.view(np.uint16), f16_bits(result), casting="unsafe")
    else:
        np.copyto(out, result, casting="unsafe")


def f16_bits(x):
    """The FLOAT16 bit patterns (as uint32) of the float32 array `x`: the bits of NumPy's cast, in whole-array
    integer operations (~3 ns per element in a block): round to nearest even, overflow to inf, nan payloads
    as NumPy keeps them (the top ten bits, or 1 if those are 0)."""
    u = x.reshape(-1).view(np.uint32)                     # (1-d: a rank-0 x would make scalars of it all)
    a = u & np.uint32(0x7fffffff)                         # |x|
    # normal results (|x| >= 2^-14): drop 13 bits rounding to nearest even, rebias the exponent 127 -> 15 (a
    # carry out of the mantissa bumps the exponent, up to inf's 0x7c00 from 65520 on)
    r = a >> np.uint32(13)
    r &= np.uint32(1)
    r += a
    r += np.uint32((0xfff - (112 << 23)) % (1 << 32))
    r >>= np.uint32(13)
    # subnormal results (|x| < 2^-14): float32 spacing in [0.5, 1) is 2^-24, FLOAT16's subnormal step, so
    # |x| + 0.5 rounds |x| to its grid (ties to even) and its low bits count the steps
    tiny = a < np.uint32(0x38800000)
    if tiny.any():
        with np.errstate(all="ignore"):
            steps = (a.view(np.float32) + np.float32(0.5)).view(np.uint32) - np.uint32(0x3f000000)
        steps -= r
        steps *= tiny                                    # 0 where the normal result stands (mod 2^32)
        r += steps
    # |x| >= 65536, inf and nan (rare): a few elements by index
    big = np.flatnonzero(a >= np.uint32(0x47800000))
    if big.size:
        ab = a[big]
        payload = np.maximum((ab & np.uint32(0x7fffff)) >> np.uint32(13), np.uint32(1))
        r[big] = np.uint32(0x7c00) + np.where(ab > np.uint32(0x7f800000), payload, np.uint32(0))
    sign = u >> np.uint32(16)
    sign &= np.uint32(0x8000)
    r |= sign
    return r.reshape(x.shape)


def where(cond, a, b):
    """np.where(cond, a, b) for FLOAT operands (the kernels' compute dtype), as a bitwise select.

    Same bits as np.where (nan payloads and -0.0 included), and about twice as fast on this project's machine:
    NumPy's where runs at ~2 ns per element, the main cost of the Piecewise kernels."""
    m = np.asarray(cond, dtype=np.int32)            # a new array: 0 or 1 ...
    np.negative(m, out=m)                          # ... then 0 or -1, all 32 bits set
    ai = np.asarray(a, dtype=np.float32).view(np.int32)
    bi = np.asarray(b, dtype=np.float32).view(np.int32)
    if bi.ndim == 0 and bi == 0:   # where(cond, a, 0), Softshrink's form: one pass instead of three
        return np.asarray(ai & m).view(np.float32)
    return np.asarray(bi ^ ((ai ^ bi) & m)).view(np.float32)
