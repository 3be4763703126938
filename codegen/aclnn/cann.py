"""What CANN's own headers say about each operator of the catalog (`hicann/ops-nn`, `*/op_api/aclnn_*.h`, or the
`#include` of the op's example program where the header is generated at build time): the file that declares the
op, whether phase 2 takes `const aclrtStream` (`void *const`: the same function type in C and C++, but printed
as CANN prints it) and what phase 2 calls its workspace size.  An op not listed gets `aclnn_<snake_name>.h` and a plain `aclrtStream`.

`python -m codegen.backends.c.coverage --ops-nn DIR --table` checks this table against a checkout of ops-nn.
"""
from __future__ import annotations

# aclnn name: (header file under include/aclnnop/, phase 2 takes `const aclrtStream`)
HEADERS: dict[str, tuple[str, bool]] = {
    "aclnnEluBackward": ("aclnn_elu_backward.h", False),
    "aclnnFastGeluBackward": ("aclnn_fast_gelu_backward.h", False),
    "aclnnGeluBackward": ("aclnn_gelu_backward.h", True),
    "aclnnGeluBackwardV2": ("aclnn_gelu_backward_v2.h", True),
    "aclnnHardshrinkBackward": ("aclnn_hardshrink_backward.h", True),
    "aclnnHardsigmoidBackward": ("aclnn_hardsigmoid_backward.h", False),
    "aclnnHardswishBackward": ("aclnn_hardswish_backward.h", True),
    "aclnnHardswishBackwardV2": ("aclnn_hardswish_backward_v2.h", False),
    "aclnnHardtanhBackward": ("aclnn_hardtanh_backward.h", False),
    "aclnnLeakyReluBackward": ("aclnn_leaky_relu_backward.h", False),
    "aclnnLogSigmoidBackward": ("aclnn_logsigmoid_backward.h", False),
    "aclnnMishBackward": ("aclnn_mish_backward.h", False),
    "aclnnPreluBackward": ("aclnn_prelu_backward.h", False),
    "aclnnSeluBackward": ("aclnn_selu_backward.h", False),
    "aclnnSigmoidBackward": ("aclnn_sigmoid_backward.h", True),
    "aclnnSiluBackward": ("aclnn_silu_backward.h", False),
    "aclnnSoftshrinkBackward": ("aclnn_softshrink_backward.h", True),
    "aclnnSoftplusBackward": ("aclnn_softplus_backward.h", False),
    "aclnnSwishBackward": ("aclnn_swish_backward.h", False),
    "aclnnThresholdBackward": ("aclnn_threshold_backward.h", True),
    "aclnnLogitGrad": ("aclnn_logit_grad.h", False),
    "aclnnSoftmaxBackward": ("aclnn_softmax_backward.h", False),
    "aclnnLogSoftmaxBackward": ("aclnn_logsoftmax_backward.h", False),
    "aclnnScaledMaskedSoftmaxBackward": ("aclnn_scaled_masked_softmax_backward.h", True),
    "aclnnBinaryCrossEntropyBackward": ("aclnn_binary_cross_entropy_backward.h", True),
    "aclnnBinaryCrossEntropyWithLogitsBackward": ("aclnn_binary_cross_entropy_with_logits_backward.h", True),
    "aclnnBinaryCrossEntropyWithLogitsTargetBackward": ("aclnn_binary_cross_entropy_with_logits_target_backward.h", False),
    "aclnnKlDivBackward": ("aclnn_kl_div_backward.h", False),
    "aclnnKlDivTargetBackward": ("aclnn_kl_div_target_backward.h", False),
    "aclnnL1LossBackward": ("aclnn_l1_loss_backward.h", False),
    "aclnnMseLossBackward": ("aclnn_mse_loss_backward.h", False),
    "aclnnNLLLossBackward": ("aclnn_nll_loss_backward.h", False),
    "aclnnNLLLoss2dBackward": ("aclnn_nll_loss2d_backward.h", False),
    "aclnnSmoothL1LossBackward": ("aclnn_smooth_l1_loss_backward.h", False),
    "aclnnSoftMarginLossBackward": ("aclnn_soft_margin_loss_backward.h", False),
    "aclnnCrossEntropyLossGrad": ("aclnn_cross_entropy_loss_grad.h", False),
    "aclnnCtcLossBackward": ("aclnn_ctc_loss_backward.h", False),
    "aclnnChamferDistanceBackward": ("aclnn_chamfer_distance_backward.h", False),
    "aclnnGluBackward": ("aclnn_glu_backward.h", False),
    "aclnnGeGluBackward": ("aclnn_geglu_backward.h", False),
    "aclnnGeGluV3Backward": ("aclnn_geglu_backward.h", False),
    "aclnnSwiGluGrad": ("aclnn_swi_glu_grad.h", False),
    "aclnnClippedSwigluGrad": ("aclnn_clipped_swiglu_grad.h", False),
    "aclnnSituGluGrad": ("aclnn_situ_glu_grad.h", False),
    "aclnnSwigluGroupQuantGrad": ("aclnn_swiglu_group_quant_grad.h", False),
    "aclnnSwigluGroupGrad": ("aclnn_swiglu_group_grad.h", False),
    "aclnnSwigluBackwardMxQuantWithDualAxis": ("aclnn_swiglu_backward_mx_quant_with_dual_axis.h", False),
}


def header_file(api: str, snake_name: str) -> str:
    """The header that declares `api` (two ops may share one: aclnnGeGluBackward and aclnnGeGluV3Backward)."""
    return HEADERS.get(api, (f"aclnn_{snake_name}.h", False))[0]


def const_stream(api: str) -> bool:
    return HEADERS.get(api, ("", False))[1]


# The ops whose CANN header names phase 2's size parameter `workspace_size` (the rest say `workspaceSize`).  Only
# the name differs (C does not care), but a header that reads like CANN's is what a user diffs against.
SNAKE_WORKSPACE_SIZE = {"aclnnGeluBackward", "aclnnGeluBackwardV2", "aclnnPreluBackward"}


def workspace_size_name(api: str) -> str:
    """The name of phase 2's `uint64_t` workspace size parameter in CANN's header of `api`."""
    return "workspace_size" if api in SNAKE_WORKSPACE_SIZE else "workspaceSize"
