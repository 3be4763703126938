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
# clamped where its sigmoids saturate); MseLossGrad, WeightedMseLossBackward and GaussianNllLossGrad (the local
# derivative, a product of a number, a tensor element or a sum of them and another such factor, formed ±inf before
# |g| < 1 joined, the gradient last on purpose) by codegen.scaled (that product scaled by 2^-32 where it leaves
# FLOAT, then g, then 2^32 or 2^64), and PoissonNllLossBackward (1 - t/(x + eps) itself beyond FLOAT, and nan at
# g = 0) by the same rule scaling that sum's terms; HuberLossBackward (g*w*e and g*w*delta*sign(e) before the mean's
# 1/N, outside its Piecewise) by codegen.lower.scalars_into_branches joining that 1/N to g first (c*g, never beyond
# FLOAT) where a branch has a scalar of its own, and codegen.scaled for w*e and delta*w*sign(e) at w = 3e38;
# KlDivTargetBackward (logTarget: c0*(t - x + 1)*exp(t) beyond FLOAT before |g| < 1 joined) by codegen.scaled
# taking an exp of a plain value among the factors, as a temporary both products read (scaled.HeldExp: the old
# factor order); SoftmaxGrad (y*(dy - r): dy - r beyond FLOAT at dy = -max, r > 0, where y << 1 brings the result
# back) by codegen.scaled's products whose gradient is inside a sum factor that can leave FLOAT (that sum's terms
# scaled by 2^-32 where it does, 2^32 after); WingLossBackward (w*omega*sign(d)/(eps + |d|) beyond FLOAT at w = 3e38
# before |g| < 1 joined) by codegen.scaled taking a Piecewise of plain branches (and |d|) as a plain factor.  Snake's
# nan where alpha*x leaves FLOAT is gone on NumPy and C (codegen.trig_arguments: the sine of the exact product in
# double); its entries name Ascend C alone.
_FOCAL = ("a target far outside [0, 1] (3e38): 1 - 2t and t*(log sigma(x) - ...) leave FLOAT inside the gamma term "
          "gamma*sigma(x)*sigma(-x)*(1 - 2t)*(...), where their difference and alpha_t bring the result back; at "
          "gamma = 0 that term is 0*inf = nan (a nan counts as an overflow).  Fix: a scaled form of the gamma term, "
          "not done")
_SNAKE = ("(Ascend C) alpha*x, the sine's argument, leaves FLOAT (alpha = 3e38, x = -1.16; or x = 3e38, "
          "alpha = -1.16) where the gradient, at most |g|(1 + 2|x|/|alpha + 1e-9|) in size, is finite: sin of an "
          "argument FLOAT cannot hold is nan (as in PyTorch's FLOAT).  NumPy and C take the sine of the product in "
          "double, exact for two FLOATs, where |fl(alpha*x)| > 2^16 (codegen.trig_arguments); the vector unit has no "
          "double.  Fix: the product as a FLOAT pair (hi + lo, Veltkamp's split) reduced by the long path with lo "
          "added after, not done")
OVERFLOWS: dict[tuple, str] = {
    ("aclnnSnakeBackward", "FLOAT", "ascendc"): _SNAKE,
    ("aclnnSnakeBackward", "BFLOAT16", "ascendc"): _SNAKE,
    ("aclnnSigmoidFocalLossBackward", "FLOAT"): _FOCAL,
    ("aclnnSigmoidFocalLossBackward", "BFLOAT16"): _FOCAL,
}


def overflow_reason(op_name: str, dtype: str, backend: str | None = None) -> str | None:
    """Why this kernel's overflows (±inf where the exact result is finite) are documented, or None: they fail.  An
    entry keyed (name, dtype) covers every backend; one keyed (name, dtype, backend) that backend's kernel alone."""
    return OVERFLOWS.get((op_name, dtype)) or OVERFLOWS.get((op_name, dtype, backend))


# (aclnn name, dtype) -> why the kernel is off where the documented formula has no rounding-error bound (it leaves
# FLOAT's range, or decides a branch within rounding: runner.judge_unbounded), and what would fix it.
UNBOUNDED: dict[tuple[str, str], str] = {
}


def unbounded_reason(op_name: str, dtype: str) -> str | None:
    """Why this kernel's elements beyond the standard of elements without a bound are documented, or None."""
    return UNBOUNDED.get((op_name, dtype))
