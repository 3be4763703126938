"""aclnnGeGluV3Backward: CANN's op_api unit tests as data.

Snake name: split at every capital with "V3" kept as one word: ge_glu_v3_backward. Its only test lives in the
aclnnGeGluBackward file (tests/ut/op_host/op_api/test_aclnn_geglu_backward.cpp) and loops over activateLeft
(_1: true, _2: false). It runs on the harness's default SoC (HARNESS_PRODUCT, Atlas A2); the "ascend910B2_" prefix is
only a name. No case compares values.
"""
from tests.op_api_cases import T, case

OP = "aclnnGeGluV3Backward"
SOURCE = "activation/ge_glu_grad_v2/tests/ut/op_host/op_api/test_aclnn_geglu_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"


def _h(shape):
    return T(shape, "FLOAT16", "ND", value_range=(-1, 1))


CASES = [
    case(f"ascend910B2_normal_FLOAT16_ND_SHAPE1_{i + 1}", gradOutput=_h((2, 920, 128)), self=_h((2, 920, 256)),
         gelu=_h((2, 920, 128)), dim=-1, approximate=1, activateLeft=left, gradInput=_h((2, 920, 256)),
         expect="ACLNN_SUCCESS", note=f"activateLeft {str(left).lower()}")
    for i, left in enumerate((True, False))
]
