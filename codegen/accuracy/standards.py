"""The two Ascend precision standards (ascend.md §6) and the issue's accuracy goal, as functions of errors.

Relative error of an element: |got - ref| / max(|ref|, smallest normal of the output dtype), where ref is the
exact result rounded once to the output dtype.  The floor keeps the measure finite where the result is 0 or
subnormal (there an error is measured against the smallest normal, i.e. as an absolute error of that size);
it is our reading, since ascend.md §6 does not say what the standards do at 0 or below the normal range.
In the subnormal range an ulp is a relative error of up to 100 %, so elements whose result and reference are
both below the smallest normal (and not both 0) are measured in ulps only: they count in the max ulp error
(and so in the 1-ulp goal), not in the relative-error standards.  A non-finite result where the reference is
finite has infinite error.  Elements whose reference is ±inf or nan are judged separately
(`codegen.accuracy.special`), not by these averages.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# "dual" standard: at most `fraction` of the elements may have a relative error above `threshold`
DUAL = {
    "FLOAT16": (1e-3, 1e-3),    # dual thousandth
    "FLOAT": (1e-4, 1e-4),      # dual ten-thousandth
    "BFLOAT16": (4e-3, 4e-3),
}
# single-benchmark standard: mean relative error (MERE) below `mere`, max relative error (MARE) below 10×
MERE = {"FLOAT16": 2.0 ** -10, "BFLOAT16": 2.0 ** -7, "FLOAT": 2.0 ** -13}
MARE_FACTOR = 10


@dataclass
class Errors:
    """Error statistics of one result array against its reference, over the elements with a finite reference."""
    n: int                  # elements measured by the relative-error standards
    max_rel: float          # MARE
    mean_rel: float         # MERE
    max_ulp: float          # in ulps of the output dtype, over every element with a finite reference
    n_above_dual: int       # elements with a relative error above the dual standard's threshold
    n_subnormal: int = 0    # elements measured in ulps only (result and reference below the normal range)

    @staticmethod
    def empty() -> "Errors":
        return Errors(0, 0.0, 0.0, 0.0, 0, 0)

    def merge(self, other: "Errors") -> "Errors":
        n = self.n + other.n
        mean = (self.mean_rel * self.n + other.mean_rel * other.n) / n if n else 0.0
        return Errors(n, max(self.max_rel, other.max_rel), mean, max(self.max_ulp, other.max_ulp),
                      self.n_above_dual + other.n_above_dual, self.n_subnormal + other.n_subnormal)


def relative_errors(got: np.ndarray, ref: np.ndarray, tiny: float) -> np.ndarray:
    """Per-element relative error (float64) of `got` against `ref` (both in the output dtype)."""
    g, r = got.astype(np.float64), ref.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        rel = np.abs(g - r) / np.maximum(np.abs(r), tiny)
    return np.where(np.isfinite(g), rel, np.inf)


def subnormal_range(got: np.ndarray, ref: np.ndarray, tiny: float) -> np.ndarray:
    """Elements whose result and reference are both below the smallest normal, and not both zero."""
    g, r = np.abs(got.astype(np.float64)), np.abs(ref.astype(np.float64))
    return (g < tiny) & (r < tiny) & ~((g == 0) & (r == 0))


def errors(rel: np.ndarray, ulps: np.ndarray, dtype: str, sub: np.ndarray | None = None) -> Errors:
    if ulps.size == 0:
        return Errors.empty()
    sub = np.zeros(rel.shape, bool) if sub is None else sub
    r = rel[~sub]
    thr, _ = DUAL[dtype]
    return Errors(int(r.size), float(r.max()) if r.size else 0.0, float(r.mean()) if r.size else 0.0,
                  float(ulps.max()), int(np.count_nonzero(r > thr)), int(sub.sum()))


def dual_ok(e: Errors, dtype: str) -> bool:
    _, frac = DUAL[dtype]
    return e.n_above_dual <= frac * e.n


def single_ok(e: Errors, dtype: str) -> bool:
    return e.mean_rel < MERE[dtype] and e.max_rel < MARE_FACTOR * MERE[dtype]


def goal(e: Errors, dtype: str, coupled: bool, torch_max_ulp: float | None) -> tuple[bool | None, str]:
    """The issue's goal: (met? — None when it cannot be judged here, what it asks)."""
    if coupled:
        return e.mean_rel < MERE[dtype] / 8, f"MERE < {MERE[dtype] / 8:.3g}"
    if dtype in ("FLOAT16", "BFLOAT16"):
        return e.max_ulp <= 1, "max ulp <= 1"
    if torch_max_ulp is None:
        return None, "max ulp <= PyTorch's (PyTorch not run)"
    return e.max_ulp <= torch_max_ulp, f"max ulp <= PyTorch's ({torch_max_ulp:g})"
