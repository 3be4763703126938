"""aclnnSwishBackward(gradOutput, self, betaOptional, gradInput): CANN's op_api unit tests as data.

gradOutput, self and gradInput must share one dtype from {FLOAT16, FLOAT, BF16} and one shape (rank <= 8);
betaOptional may be NULL (beta = 1.0) and otherwise must be castable to FLOAT (any integer, BOOL, DOUBLE scalar
passes).  Scalar dtypes follow CANN's test: 1.1f is FLOAT, ScalarDesc(x, ACL_FLOAT16) FLOAT16, uint8_t UINT8, double
DOUBLE, int8_t INT8, bool BOOL.  Every case calls only the first phase.

Not ported: Ascend910B2_swish_backward_testcase_002_normal_bf16 (BF16 with a NULL beta) calls the API but its status
check is commented out.
"""
from tests.op_api_cases import NULL, S, T, case

OP = "aclnnSwishBackward"
SOURCE = "activation/swish_grad/tests/ut/op_api/test_aclnn_swish_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

_ONES10 = (1.0,) * 10
_S4 = [1, 16, 1, 1]
_B11 = S(1.1, "FLOAT")
_NC = dict(strides=[1, 2], storage_shape=[5, 2])


def _all(shape, dtype="FLOAT", fmt="ND", beta=_B11, value_range=(-1, 1)):
    return dict(gradOutput=T(shape, dtype, fmt, value_range=value_range),
                self=T(shape, dtype, fmt, value_range=value_range), betaOptional=beta,
                gradInput=T(shape, dtype, fmt))


def _s4(dg="FLOAT", dx="FLOAT", dgi="FLOAT", g=_S4, x=_S4, gi=_S4, beta=_B11):
    return dict(gradOutput=T(g, dg), self=T(x, dx), betaOptional=beta, gradInput=T(gi, dgi))


CASES = [
    case("swish_backward_testcase_001_normal_float32", gradOutput=T([2, 5], values=_ONES10),
         self=T([2, 5], value_range=(-1, 1)), betaOptional=_B11, gradInput=T([2, 5]), expect="ACLNN_SUCCESS"),
    case("swish_backward_testcase_002_normal_float16", gradOutput=T([2, 5], "FLOAT16", values=_ONES10),
         self=T([2, 5], "FLOAT16", value_range=(-1, 1)), betaOptional=S(0.01, "FLOAT16"),
         gradInput=T([2, 5], "FLOAT16"), expect="ACLNN_SUCCESS"),
    case("swish_backward_testcase_003_normal_empty_tensor", gradOutput=T([0]), self=T([0]),
         betaOptional=S(0, "UINT8"), gradInput=T([0]), expect="ACLNN_SUCCESS"),
    case("swish_backward_testcase_004_exception_null_gradOutput", **{**_s4(), "gradOutput": NULL},
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("swish_backward_testcase_005_exception_null_self", **{**_s4(), "self": NULL},
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("swish_backward_testcase_006_exception_null_gradInput", **_s4(beta=NULL), expect="ACLNN_SUCCESS",
         note="despite its name this test passes a NULL betaOptional, which is allowed (beta defaults to 1.0)"),
    case("swish_backward_testcase_007_exception_null_gradInput", **{**_s4(), "gradInput": NULL},
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("swish_backward_testcase_008_exception_float64_dtype_not_supported", **_s4(dg="DOUBLE", dgi="DOUBLE"),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("swish_backward_testcase_009_normal_dtype_not_the_same", **_s4(dx="FLOAT16", dgi="FLOAT16"),
         expect="ACLNN_ERR_PARAM_INVALID", note="no promotion: all three dtypes must be equal"),
    case("swish_backward_testcase_010_normal_dtype_not_the_same", **_s4(dg="FLOAT16"),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("swish_backward_testcase_011_normal_float32", gradOutput=T([2, 5], values=_ONES10),
         self=T([2, 5], value_range=(-1, 1)), betaOptional=S(1, "UINT8"), gradInput=T([2, 5]),
         expect="ACLNN_SUCCESS", note="a UINT8 beta is castable to FLOAT"),
    case("swish_backward_testcase_012_normal_format", gradOutput=T(_S4), self=T(_S4, format="NCHW"),
         betaOptional=S(0.0, "DOUBLE"), gradInput=T(_S4), expect="ACLNN_SUCCESS",
         note="formats are not checked; beta = 0.0 as DOUBLE"),
    case("swish_backward_testcase_013_exception_different_shape", **_s4(x=[1, 1, 4, 4]),
         expect="ACLNN_ERR_PARAM_INVALID", note="no broadcasting"),
    case("swish_backward_testcase_014_normal_not_contiguous_float", gradOutput=T([2, 5], values=_ONES10, **_NC),
         self=T([2, 5], value_range=(-1, 1), **_NC), betaOptional=S(-1, "INT8"), gradInput=T([2, 5], **_NC),
         expect="ACLNN_SUCCESS", note="a negative INT8 beta is accepted"),
    case("swish_backward_testcase_015_normal_not_contiguous_float16",
         gradOutput=T([2, 5], "FLOAT16", values=_ONES10, **_NC), self=T([2, 5], "FLOAT16", value_range=(-1, 1), **_NC),
         betaOptional=S(-1, "INT8"), gradInput=T([2, 5], "FLOAT16", **_NC), expect="ACLNN_SUCCESS"),
    case("swish_backward_testcase_016_exception_complex64_dtype_not_supported",
         **_s4("COMPLEX64", "COMPLEX64", "COMPLEX64"), expect="ACLNN_ERR_PARAM_INVALID"),
    case("swish_backward_testcase_017_exception_complex128_dtype_not_supported",
         **_s4("COMPLEX128", "COMPLEX128", "COMPLEX128"), expect="ACLNN_ERR_PARAM_INVALID"),
    case("swish_backward_testcase_018_normal_large_dims",
         gradOutput=T([1, 2, 2, 2, 2, 2, 2, 2, 2], value_range=(1, 1)),
         self=T([1, 2, 2, 2, 2, 2, 2, 2, 2], value_range=(-10, 10)), betaOptional=S(False, "BOOL"),
         gradInput=T([1, 2, 2, 2, 2, 2, 2, 2, 2]), expect="ACLNN_ERR_PARAM_INVALID",
         note="9 dimensions; the BOOL beta itself is castable to FLOAT"),
    case("swish_backward_testcase_019_normal_self_empty_tensor", gradOutput=T([16, 16], value_range=(-1, 1)),
         self=T([0]), betaOptional=_B11, gradInput=T([16, 16]), expect="ACLNN_ERR_PARAM_INVALID",
         note="self [0] differs from gradInput [16,16]; the shape check runs before the empty shortcut"),
    case("swish_backward_testcase_020_exception_gradOutput_empty_tensor", gradOutput=T([0]),
         self=T([16, 16], value_range=(-1, 1)), betaOptional=_B11, gradInput=T([0]),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("swish_backward_testcase_021_exception_gradOutput_invalid_dim",
         **_s4("COMPLEX64", "COMPLEX64", "COMPLEX64", g=[1, 16, 1, 1, 1, 1, 1, 1, 1]),
         expect="ACLNN_ERR_PARAM_INVALID", note="COMPLEX64 fails the dtype check before the 9-D rank check"),
    case("swish_backward_testcase_022_exception_self_invalid_dim",
         **_s4("COMPLEX64", "COMPLEX64", "COMPLEX64", x=[1, 16, 1, 1, 1, 1, 1, 1, 1]),
         expect="ACLNN_ERR_PARAM_INVALID", note="COMPLEX64 fails the dtype check first"),
    case("swish_backward_testcase_022_exception_gradInput_invalid_dim",
         **_s4("COMPLEX64", "COMPLEX64", "COMPLEX64", gi=[1, 16, 1, 1, 1, 1, 1, 1, 1]),
         expect="ACLNN_ERR_PARAM_INVALID", note="COMPLEX64 fails the dtype check first"),
    case("swish_backward_testcase_023_8d_shape", **_all([1, 2, 3, 4, 5, 6, 7, 8]), expect="ACLNN_SUCCESS"),
    case("swish_backward_testcase_024_scalar", **_all([]), expect="ACLNN_SUCCESS", note="0-d tensors"),
    case("swish_backward_testcase_025_large_shape", **_all([1024, 1024], "FLOAT16", beta=S(1.1, "FLOAT16")),
         expect="ACLNN_SUCCESS"),
    case("swish_backward_testcase_026_nchw_format", **_all([2, 64, 112, 112], "FLOAT16", "NCHW", S(1.1, "FLOAT16")),
         expect="ACLNN_SUCCESS"),
    case("swish_backward_testcase_027_value_range", **_all([2, 4, 6, 8], value_range=(-100, 100)),
         expect="ACLNN_SUCCESS"),
]
