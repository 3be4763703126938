"""A split op's input read as rows (codegen.spec.split's `interleaved=` and `rows=`): what the NumPy kernels call.

The input x of shape s is viewed as [pre, cut], pre = prod(s[:dim]) and cut = prod(s[dim:]) (the axes from dim on
merged into one row, as ClippedSwigluGrad's library does); each row is cut into its even and odd elements
(interleaved) or its front and back halves.  gradOutput, of s with dim halved, is read as [pre, cut/2] in the
same order, and the output is written as [pre, cut].  With a row count (the sum of an INT64 tensor, clamped to
[0, pre]) only the first rows are computed and the others are written 0.

A view is taken wherever the strides allow it; otherwise an input is read from a contiguous copy and the output
is computed into a contiguous array copied into it at the end (`finish`): every layout gives the same result."""
from __future__ import annotations

import math

import numpy as np


def row_count(counts, pre: int, uint32: bool = False) -> int:
    """min(sum(counts), pre), at least 0: the rows computed (every one for a null `counts`).  The sum is exact
    (Python integers), as the C runtime's 128-bit sum is; with `uint32` (Split(rows_sum="uint32")) each count is
    cast to uint32 and the sum taken modulo 2**32, as SwigluGroupQuantGrad's kernel does (a negative count wraps)."""
    if counts is None:
        return pre
    total = sum(int(v) for v in np.asarray(counts).ravel().tolist())
    return min(total % 2**32, pre) if uint32 else max(0, min(total, pre))



def _view(a, shape):
    """`a` reshaped to `shape` without a copy, or None when its strides do not allow it."""
    v = a.view()
    try:
        v.shape = shape
    except AttributeError:
        return None
    return v


class Rows:
    """The rows of one call: `halves(x)`, `half_rows(gradOutput)`, `out_halves()` and, after the kernels,
    `finish()`."""

    def __init__(self, src, whole, dim: int, *, interleaved: bool, counts=None, uint32: bool = False):
        self.pre = math.prod(src.shape[:dim])
        self.cut = math.prod(src.shape[dim:])
        self.interleaved = bool(interleaved)
        self.valid = row_count(counts, self.pre, uint32)
        self.whole = whole
        target = _view(whole, (self.pre, self.cut))
        self.staged = target is None
        self.target = np.empty((self.pre, self.cut), whole.dtype) if self.staged else target

    def _cut(self, rows):
        rows = rows[:self.valid]
        if self.interleaved:
            return rows[:, 0::2], rows[:, 1::2]
        h = self.cut // 2
        return rows[:, :h], rows[:, h:]

    def halves(self, src):
        """x's two halves, each [valid, cut/2] (views where x's strides allow)."""
        return self._cut(np.reshape(src, (self.pre, self.cut)))

    def half_rows(self, t):
        """A tensor of x's shape with dim halved (gradOutput), as [valid, cut/2] in the halves' order."""
        return np.reshape(t, (self.pre, self.cut // 2))[:self.valid]

    def per_row(self, t):
        """A tensor of one value per row (PerRow, any shape of `pre` elements) as [valid, 1]: broadcast along the
        row by the kernels.  None (an optional tensor not given) stays None."""
        return None if t is None else np.reshape(t, (self.pre, 1))[:self.valid]

    def out_halves(self):
        """The output's two halves, which the kernels write; the rows past the count are written 0 here."""
        self.target[self.valid:] = 0
        return self._cut(self.target)

    @staticmethod
    def zero_past(t, counts, uint32: bool = False):
        """`t` (one value per row, an extra output of Split(masks=...)) as a flat float64 copy in C order, the
        values past the row count 0 (a 1-D op's single row sums to a scalar: copied, never written through)."""
        flat = np.array(t, dtype=np.float64).reshape(-1)
        if counts is not None:
            flat[row_count(counts, flat.size, uint32):] = 0
        return flat

    def finish(self):
        """Copy a staged output into the output itself (whose strides allowed no view)."""
        if self.staged:
            self.whole[...] = self.target.reshape(self.whole.shape)
