"""Distances in units in the last place of an output dtype."""
from __future__ import annotations

import numpy as np


def ordered(a: np.ndarray) -> np.ndarray:
    """Map floats to integers whose difference counts representable values between them (±0 coincide)."""
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    i = a.view(bits).astype(np.int64)
    sign = np.int64(1) << np.int64(8 * a.dtype.itemsize - 1)   # (for 8 bytes: INT64_MIN, the sign bit)
    return np.where(i < 0, -(i & (sign - 1)), i)


def ulp_distance(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """|got - want| in ulps of got's dtype, want rounded to that dtype first; nan equal to nan is 0."""
    with np.errstate(over="ignore"):  # a reference beyond the dtype's range rounds to inf, like the kernel
        want = want.astype(got.dtype)
    d = np.abs(ordered(got) - ordered(want))
    both_nan = np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32))
    return np.where(both_nan, 0, d)
