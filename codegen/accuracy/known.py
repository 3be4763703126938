"""Known accuracy failures: kernels that miss an Ascend standard for a reason outside the accuracy checks.

Keyed by (aclnn name, dtype); the same lowering is printed by every backend, so an entry covers them all.  A
known failure is still reported as FAIL (known) with its reason, but does not make `opgen accuracy` exit
non-zero; an entry whose kernels now pass is reported so that it gets removed.  Each entry says why the kernel
fails and the fix, so nothing here is a silent waiver.

`OVERFLOWS` is the same for one kind of element: finite inputs, an exact result and PyTorch's finite, the kernel's
±inf (an intermediate left FLOAT's range) or nan (one left it and met a factor that is 0: inf*0).  Such an element
fails its record unless the kernel is listed there; then it is a documented difference, still listed in the report's
overflow table, with the reason.
"""
from __future__ import annotations

# GeluBackwardV2's and BinaryCrossEntropyWithLogitsBackward's FLOAT kernels were here (sums that cancel); fixed by
# codegen.cancellation, see docs/accuracy.md.
KNOWN: dict[tuple[str, str], str] = {}


def reason(op_name: str, dtype: str) -> str | None:
    return KNOWN.get((op_name, dtype))


# (aclnn name, dtype) -> why the kernel overflows where the result is finite, and what would fix it.  MseLossBackward
# was here in effect (2*x - 2*t before the mean's 1/N): fixed by codegen.lower.pull_sum_content; SinhGrad (e^|x|/2 for
# 88.72 < |x| <= 89.41) by cosh and sinh in the vocabulary (codegen.expansions.cosh_form); SituGluGrad (b*S formed
# before sigmoid(a) << 1 joined) by codegen.lower.bounded_after_first; MarginRankingLossBackward (-target*g before
# the mean's 1/N) by codegen.lower.scalars_into_branches; FastGelu/QuickGelu (1.702x inf where sigma(1.702x) is 0 or
# 1: inf*0) and GeGlu/GeGluV3's tanh form (b^2 inf where sigma(u)*sigma(-u) is 0) by codegen.saturate (the element
# clamped where its sigmoids saturate).
_GRAD_LAST = ("the local derivative, as its product is formed, leaves FLOAT's range and only the incoming gradient, "
              "|g| < 1, brings the result back: the lowering multiplies the gradient last on purpose (codegen.lower: "
              "g*0*inf would be nan where the mathematics gives 0), so fl(local derivative) is inf before g joins.  "
              "Fix: a scaled product (the local derivative times 2^-k, g, then 2^k), not done")
_MEAN_OUTSIDE = ("the mean's 1/N multiplies the Piecewise from outside, after its branch's product with gradOutput "
                 "(c0*Piecewise((g*w*e, ...), (g*w*delta*sign(e), True))): g*w*e leaves FLOAT where (1/N)*g*w*e does "
                 "not.  codegen.lower.scalars_into_branches moves such a 1/N into the branches (MarginRanking's), but "
                 "not here: the delta branch has a scalar of its own, and delta/N folded into one constant rounds "
                 "the same way for every element (mean relative error 3.1e-8 -> 4.8e-8, FLOAT16 max ulp 0 -> 1).  "
                 "Also w*e itself leaves FLOAT at w = 3e38 (reduction sum, |g| < 1: the gradient last on purpose).  "
                 "Fix: 1/N into the branches with delta/N carried as two FLOATs, and a scaled product, not done")
_POISSON = ("1 - t/(x + eps) leaves FLOAT (t = 3e38 over |x + eps| < 1, or a subnormal x + eps with eps = 0) where "
            "the result does not: the mean's 1/N or a gradient |g| < 1 brings it back, and both multiply after the sum "
            "(the gradient last on purpose, codegen.lower); with g = 0 it is inf*0, nan where the result is 0.  Fix: a "
            "scaled form, not done")
_SOFTMAX_DIFF = ("y*(dy - r), r = sum(dy*y) over the row: dy - r leaves FLOAT at dy = -max with r > 0 where y << 1 "
                 "brings the result back.  Fix: y*dy - y*r (which cancels where the sum is small) or a scaled "
                 "difference, not done")
_FOCAL = ("a target far outside [0, 1] (3e38): 1 - 2t and t*(log sigma(x) - ...) leave FLOAT inside the gamma term "
          "gamma*sigma(x)*sigma(-x)*(1 - 2t)*(...), where their difference and alpha_t bring the result back; at "
          "gamma = 0 that term is 0*inf = nan (a nan counts as an overflow).  Fix: a scaled form of the gamma term, "
          "not done")
OVERFLOWS: dict[tuple[str, str], str] = {
    ("aclnnGaussianNllLossGrad", "FLOAT"): _GRAD_LAST,
    ("aclnnMseLossGrad", "FLOAT"): _GRAD_LAST,   # 2(x - t) at x = max, g < 1 (18 overflows before the lowering's fix, 11)
    ("aclnnSoftmaxGrad", "FLOAT"): _SOFTMAX_DIFF,
    ("aclnnHuberLossBackward", "FLOAT"): _MEAN_OUTSIDE,
    ("aclnnHuberLossBackward", "BFLOAT16"): _MEAN_OUTSIDE,
    ("aclnnPoissonNllLossBackward", "FLOAT"): _POISSON,
    ("aclnnPoissonNllLossBackward", "BFLOAT16"): _POISSON,
    ("aclnnKlDivTargetBackward", "FLOAT"): _GRAD_LAST,
    ("aclnnKlDivTargetBackward", "BFLOAT16"): _GRAD_LAST,
    ("aclnnSigmoidFocalLossBackward", "FLOAT"): _FOCAL,
    ("aclnnSigmoidFocalLossBackward", "BFLOAT16"): _FOCAL,
    ("aclnnWeightedMseLossBackward", "FLOAT"): _GRAD_LAST,      # 2*w*(x - t) at x = -max or w = 3e38, |g| < 1
    ("aclnnWeightedMseLossBackward", "BFLOAT16"): _GRAD_LAST,
}


def overflow_reason(op_name: str, dtype: str) -> str | None:
    """Why this kernel's overflows (±inf where the exact result is finite) are documented, or None: they fail."""
    return OVERFLOWS.get((op_name, dtype))


# (aclnn name, dtype) -> why the kernel is off where the documented formula has no rounding-error bound (it leaves
# FLOAT's range, or decides a branch within rounding: runner.judge_unbounded), and what would fix it.
UNBOUNDED: dict[tuple[str, str], str] = {
}


def unbounded_reason(op_name: str, dtype: str) -> str | None:
    """Why this kernel's elements beyond the standard of elements without a bound are documented, or None."""
    return UNBOUNDED.get((op_name, dtype))
