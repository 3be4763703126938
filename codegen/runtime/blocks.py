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
    """Yield (inputs, out) block by block: views of about BLOCK elements of `out` in C order (contiguous or
    not), with the elements of every input that broadcast to them — a (1, 1024) row or a one-element gradOutput
    is read in place for each block, never expanded to the whole shape.  The arrays are yielded once, whole,
    when they fit one block or when `out` overlaps an input (see `_overlapping`)."""
    return _cut(arrays, out, out.ndim)


def halves(a, dim):
    """The two halves of `a` along `dim` (views, no copy): an input split in halves, or the output that the two
    halves' gradients fill (codegen.spec.split)."""
    n = a.shape[dim] // 2
    head = (slice(None),) * dim
    return a[head + (slice(0, n),)], a[head + (slice(n, 2 * n),)]


def unaliased(out, *inputs):
    """`out`, or a fresh array like it when it shares memory with an input: a split op writes the first half of
    its output before it reads the inputs again for the second."""
    if any(np.shares_memory(out, a) for a in inputs if isinstance(a, np.ndarray)):
        return np.empty(out.shape, out.dtype)
    return out


def row_blocks(arrays, out, dim):
    """Yield (inputs, out) for a kernel that sums along `dim`: blocks that keep `dim` and every axis after it
    whole, cut from the axes before it as `blocks` does (no axis disappears, so `dim` names the same axis in
    every block); the arrays once, whole, when `dim` is the first axis.

    Each row is summed on its own either way, in the same order, so the blocks give the same bits as the whole
    arrays, with temporaries of about BLOCK elements (softmax rows of 64 to 32768 along the last dim, FLOAT, 16M
    elements: 1.4-1.9x faster than whole arrays, side by side)."""
    return _cut(arrays, out, dim % out.ndim if out.ndim else 0)


def _cut(arrays, out, whole):
    """blocks and row_blocks: the axes from `whole` on are never cut."""
    if out.size <= BLOCK or _overlapping(arrays, out):
        yield list(arrays), out
        return
    # every input with out's rank: a broadcast axis (length 1) is taken whole in each block, which the ufuncs
    # then broadcast, so that a FLOAT16 (1, 1024) row is converted 1024 elements at a time, not a block's worth
    views = [a[(np.newaxis,) * (out.ndim - a.ndim)] for a in arrays]
    for index in _block_index(out.shape, whole):
        yield [v[tuple(i if n > 1 else slice(None) for i, n in zip(index, v.shape))] for v in views], out[index]


def _block_index(shape, whole):
    """Index tuples cutting an array of `shape` into blocks of about BLOCK elements in C order, never cutting
    the axes from `whole` on: the trailing axes that fit a block stay whole, the axis before them is cut into
    equal steps, and every axis before that is taken one index at a time (as a slice of one, so that no axis
    disappears).  One block, the whole array, when even the axes from `whole` on exceed BLOCK."""
    inner = int(np.prod(shape[whole:], dtype=np.int64))
    axis = whole
    while axis > 0 and inner * shape[axis - 1] <= BLOCK:
        axis -= 1
        inner *= shape[axis]
    if axis == 0:
        yield (slice(None),) * len(shape)
        return
    axis -= 1                                        # the axis cut into steps
    length = shape[axis]
    count = -(-length // max(1, BLOCK // inner))     # as many steps as BLOCK needs ...
    step = -(-length // count)                       # ... of equal length (no tail of one row)
    for outer in np.ndindex(*shape[:axis]):
        head = tuple(slice(i, i + 1) for i in outer)
        for start in range(0, length, step):
            yield head + (slice(start, start + step),)


def _overlapping(arrays, out):
    """Whether `out` shares memory with an input other than as the very same elements (out= in place).

    Block by block, a later block would then read inputs that an earlier block has already overwritten (out= one
    row past its input: a row of every block after the first wrong); whole, every input is read before `out`
    is written.  np.may_share_memory compares bounds only: a strided input interleaved with `out` also runs whole,
    which is correct, only slower."""
    return any(np.may_share_memory(a, out) and not _same_elements(a, out) for a in arrays)


def _same_elements(a, out):
    return (a.shape == out.shape and a.strides == out.strides
            and a.__array_interface__["data"][0] == out.__array_interface__["data"][0])


def store(out, result):
    """Round the FLOAT (or DOUBLE) `result` once into `out`'s dtype (overflow gives inf), as
    np.copyto(casting="unsafe"); an integer output takes the nearest integer, ties to even, saturated to its range,
    nan as 0 (`to_int`); a BOOL output (an op whose output dtype is unchecked, auto-cast) takes result != 0.

    A FLOAT16 output takes `f16_bits`: NumPy's own float32 -> float16 cast is a scalar loop here (~5 ns per
    element, more than all of a kernel's arithmetic), and slower still for every value it rounds to a
    subnormal.  A DOUBLE result goes to FLOAT16 and BFLOAT16 through FLOAT rounded to odd (`round_to_odd`), which
    rounds once, as the C kernels do."""
    result = np.asarray(result)
    if out.dtype.kind == "b":   # true where nonzero, nan included, as C's conversion to bool
        np.copyto(out, result != 0, casting="unsafe")
        return
    if out.dtype.kind in "iu":
        np.copyto(out, to_int(result, out.dtype), casting="unsafe")
        return
    if result.dtype == np.float64 and out.dtype.itemsize == 2:
        result = round_to_odd(result)
    if out.dtype == np.float16:
        result = np.broadcast_to(np.asarray(result, dtype=np.float32), out.shape)
        np.copyto(out.view(np.uint16), f16_bits(result), casting="unsafe")
    else:
        np.copyto(out, result, casting="unsafe")


def to_int(x, dtype):
    """FLOAT or DOUBLE values as integers of `dtype`: the nearest integer (ties to even), saturated to the dtype's
    range, nan as 0 -- the cast with which the library rounds a result into an integer output (CAST_RINT)."""
    info = np.iinfo(dtype)
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        r = np.clip(np.rint(x), info.min, info.max)
    r = np.where(np.isnan(r), 0, r)
    return r.astype(dtype)


def round_to_odd(x):
    """float64 values rounded to float32 with the last bit set when inexact ("round to odd"): a later rounding to
    FLOAT16 or BFLOAT16 (fewer than 22 bits) then gives the correctly rounded result of x, with no double rounding."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        f = x.astype(np.float32)
        inexact = np.isfinite(f) & (f.astype(np.float64) != x)
        # towards zero when the nearest rounding went away from it, then the sticky bit
        away = inexact & (np.abs(f.astype(np.float64)) > np.abs(x))
        bits = f.view(np.uint32).copy()
        bits[away] -= np.uint32(1)
        bits[inexact] |= np.uint32(1)
    return bits.view(np.float32)


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
