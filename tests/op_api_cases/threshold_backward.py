"""aclnnThresholdBackward(gradOutput, self, threshold, out): CANN's op_api unit tests as data.

gradOutput and self must be in the support list (A2: FLOAT, INT32, FLOAT16, INT8, UINT8, BF16; the 950 adds INT64
when threshold == 0) with gradOutput and out of self's dtype; gradOutput and self broadcast to out's shape (rank <= 8).
threshold is a FLOAT scalar in every case.  Tests named "ascend950PR_*" or "ascend910B2_*" set no SoC and run on the
harness default (A2).  Every case calls only the first phase; the cases CANN marks for a value check call
`TestPrecision()`, an empty function in CANN's harness.
"""
from tests.op_api_cases import NULL, S, T, case

OP = "aclnnThresholdBackward"
SOURCE = "activation/threshold_grad_v2_d/tests/ut/op_host/op_api/test_aclnn_threshold_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

_PREC = "precision case in CANN (TestPrecision, a no-op there); ported as a status case"
_NAMED = "named after another SoC but sets none: runs on the A2. "


def _args(dtype="FLOAT", shape=(10,), thr=0.0, g=None, gdtype=None, out=None):
    return dict(gradOutput=T(list(g or shape), gdtype or dtype), self=T(list(shape), dtype),
                threshold=S(thr, "FLOAT"), out=T(list(out or shape), dtype))


CASES = [
    case("l2_test_unsupport_dtype", **_args("INT64", (2, 3)), expect="ACLNN_ERR_PARAM_INVALID",
         note="INT64 is accepted only on the 950 with threshold == 0"),
    case("l2_test_unmatch_dtype", **_args("INT32", (2, 3), gdtype="INT64"), expect="ACLNN_ERR_PARAM_INVALID"),
    case("l2_test_unmatch_shape", **_args("INT32", (2, 3), g=(2, 1)), expect="ACLNN_SUCCESS",
         note="gradOutput [2,1] broadcasts to self [2,3]"),
    case("l2_test_invalid_out_shape", **_args("INT32", (2, 3), g=(2, 1), out=(2, 4)),
         expect="ACLNN_ERR_PARAM_INVALID", note="the broadcast shape [2,3] is not out's [2,4]"),
    case("l2_test_nullptr", **{**_args("INT32", (2, 0)), "gradOutput": NULL}, expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("l2_test_empty_tensor", **_args("INT32", (2, 0)), expect="ACLNN_SUCCESS"),
    case("ascend950PR_9589_l2_test_relu_grad_int32_success", **_args("INT32"), expect="ACLNN_SUCCESS",
         note=_NAMED + _PREC),
    case("ascend950PR_9589_l2_test_relu_grad_int8_success", **_args("INT8"), expect="ACLNN_SUCCESS",
         note=_NAMED + _PREC),
    case("ascend950PR_9589_l2_test_relu_grad_fp16_success", **_args("FLOAT16"), expect="ACLNN_SUCCESS",
         note=_NAMED + _PREC),
    case("ascend950PR_9589_l2_test_relu_grad_fp32_success", **_args("FLOAT"), expect="ACLNN_SUCCESS",
         note=_NAMED + _PREC),
    case("ascend910B2_l2_test_threshold_grad_v2_d_positive_threshold_success", **_args("INT32", thr=1.0),
         expect="ACLNN_SUCCESS", note="threshold != 0 selects the ThresholdGradV2D kernel. " + _PREC),
    case("ascend910B2_l2_test_threshold_grad_v2_d_negative_threshold_success", **_args("INT32", thr=-1.0),
         expect="ACLNN_SUCCESS", note=_PREC),
    case("ascend910B2_l2_test_relu_grad_bfp16_success", **_args("BF16"), expect="ACLNN_SUCCESS"),
    case("ascend910B2_l2_test_relu_grad_check_max_dim", **_args("FLOAT", (2,) * 10), expect="ACLNN_ERR_PARAM_INVALID",
         note="10 dimensions"),
    case("l2_test_relu_grad_uint8_success", **_args("UINT8"), expect="ACLNN_SUCCESS", note=_PREC),
    case("l2_test_relu_grad_int64_unsupported_on_stub", **_args("INT64"), expect="ACLNN_ERR_PARAM_INVALID",
         note="INT64 with threshold 0 is refused on the A2 (accepted on the 950)"),
    case("l2_test_int64_nonzero_threshold_fail", **_args("INT64", thr=1.0), expect="ACLNN_ERR_PARAM_INVALID"),
    case("l2_test_2d_shape_success", **_args("FLOAT", (4, 8), thr=0.5), expect="ACLNN_SUCCESS", note=_PREC),
    case("l2_test_4d_shape_success", **_args("FLOAT16", (2, 3, 4, 5)), expect="ACLNN_SUCCESS", note=_PREC),
    case("l2_test_8d_shape_success", **_args("FLOAT", (2,) * 8), expect="ACLNN_SUCCESS"),
    case("l2_test_large_shape_success", **_args("FLOAT16", (1024, 1024)), expect="ACLNN_SUCCESS"),
    case("l2_test_bf16_threshold_zero_precision", **_args("BF16"), expect="ACLNN_SUCCESS", note=_PREC),
    case("l2_test_uint8_nonzero_threshold_success", **_args("UINT8", thr=1.0), expect="ACLNN_SUCCESS", note=_PREC),
    case("l2_test_fp32_nonzero_threshold_precision", **_args("FLOAT", thr=2.0), expect="ACLNN_SUCCESS", note=_PREC),
    case("l2_test_scalar_tensor_success", **_args("FLOAT", ()), expect="ACLNN_SUCCESS", note="0-d tensors"),
    case("l2_test_threshold_nullptr", **{**_args("FLOAT"), "threshold": NULL}, expect="ACLNN_ERR_PARAM_NULLPTR",
         note="threshold is null-checked first, before the tensors"),
]
