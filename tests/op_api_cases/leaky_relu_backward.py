"""aclnnLeakyReluBackward(gradOutput, self, negativeSlope, selfIsResult, out): CANN's op_api unit tests as data.

gradOutput and self must be in the support list (A2: FLOAT, FLOAT16, DOUBLE, BF16), broadcast to out's shape and
promote to a dtype castable to out's; negativeSlope's dtype must be in the scalar list; selfIsResult=true with a
negative slope is refused.  Most cases pass one description for gradOutput, self and out.  Every case calls only
the first phase.  Scalar dtypes follow the C++ literal in CANN's test: 0.01f is FLOAT, 0.01 is DOUBLE, 1 is INT32.

Caveat: CANN's UT build globs only `test_aclnn_*.cpp` (`cmake/ut.cmake`, `add_modules_ut_sources`), so this file
(`test_leaky_relu_backward.cpp`) is not compiled there; its expectations were re-checked against
`op_api/aclnn_leaky_relu_backward.cpp`.
"""
from tests.op_api_cases import NULL, S, T, case

OP = "aclnnLeakyReluBackward"
SOURCE = "activation/leaky_relu_grad/tests/ut/op_api/test_leaky_relu_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"


def _same(t, slope, is_result=True):
    """One tensor description used for gradOutput, self and out, as most CANN tests do."""
    return dict(gradOutput=t, self=t, negativeSlope=slope, selfIsResult=is_result, out=t)


_F001 = S(0.01, "FLOAT")
_ONE = T([1])

CASES = [
    case("case_null_tensor", **_same(T([0]), _F001), expect="ACLNN_SUCCESS"),
    case("case_nullptr_1", gradOutput=NULL, self=_ONE, negativeSlope=_F001, selfIsResult=True, out=_ONE,
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_nullptr_2", gradOutput=_ONE, self=NULL, negativeSlope=_F001, selfIsResult=True, out=_ONE,
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_nullptr_3", gradOutput=_ONE, self=_ONE, negativeSlope=NULL, selfIsResult=True, out=_ONE,
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_nullptr_4", gradOutput=_ONE, self=_ONE, negativeSlope=_F001, selfIsResult=True, out=NULL,
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_dim1_Float_ND", **_same(T([4]), _F001), expect="ACLNN_SUCCESS"),
    case("case_dim2_Float16_NCHW", **_same(T([2, 2], "FLOAT16", "NCHW"), S(0.01, "FLOAT16")), expect="ACLNN_SUCCESS"),
    case("case_dim3_FLoat16_NHWC", **_same(T([2, 2, 2], "FLOAT16", "NHWC"), S(0.01, "DOUBLE")),
         expect="ACLNN_SUCCESS"),
    case("case_dim3_Double_NHWC", **_same(T([2, 2, 2, 2], "DOUBLE", "NHWC"), S(0.01, "DOUBLE")),
         expect="ACLNN_SUCCESS", note="DOUBLE runs on AI CPU (the AI Core list has no DOUBLE)"),
    case("case_error_dtype", **_same(T([2, 2, 2], "UINT32"), S(1, "INT32")), expect="ACLNN_ERR_PARAM_INVALID"),
    case("case_different_dtype", gradOutput=T([2, 2, 2, 2], "FLOAT16"), self=T([2, 2, 2, 2], "DOUBLE"),
         negativeSlope=_F001, selfIsResult=True, out=T([2, 2, 2, 2], "DOUBLE"), expect="ACLNN_SUCCESS",
         note="FLOAT16 and DOUBLE promote to DOUBLE"),
    case("case_error_shape", **_same(T([2] * 9), _F001), expect="ACLNN_ERR_PARAM_INVALID", note="9 dimensions"),
    case("case_different_shape", gradOutput=T([2, 2, 2, 2]), self=T([2, 2, 2, 2, 2]), negativeSlope=_F001,
         selfIsResult=True, out=T([2, 2, 2, 2]), expect="ACLNN_ERR_PARAM_INVALID",
         note="the broadcast shape [2,2,2,2,2] is not out's shape"),
    case("case_dim4_Float16_HWCN", **_same(T([2, 2, 2, 2], "FLOAT16", "HWCN"), S(0.01, "DOUBLE")),
         expect="ACLNN_SUCCESS"),
    case("case_dim5_Float_NDHWC", **_same(T([2] * 5, "FLOAT", "NDHWC"), _F001), expect="ACLNN_SUCCESS"),
    case("case_dim5_Float_NCDHW", **_same(T([2] * 5, "FLOAT", "NCDHW"), _F001), expect="ACLNN_SUCCESS"),
    case("case_dim5_Float16_NC1HWC0", **_same(T([2] * 5, "FLOAT16", "NC1HWC0"), S(0.01, "FLOAT16")),
         expect="ACLNN_SUCCESS"),
    case("case_dim8_Float16_ND", **_same(T([2] * 8, "FLOAT16"), S(0.01, "FLOAT16")), expect="ACLNN_SUCCESS"),
    case("case_dim6_Float_ND", **_same(T([2] * 6), S(0.1, "FLOAT")), expect="ACLNN_SUCCESS"),
    case("case_dim7_range", **_same(T([2] * 7, value_range=(-1, 1)), S(0.5, "FLOAT"), is_result=False),
         expect="ACLNN_SUCCESS"),
    case("case_not_contiguous", **_same(T([3, 5, 6], strides=[30, 1, 5], storage_shape=[3, 6, 5]), S(0.1, "FLOAT")),
         expect="ACLNN_SUCCESS"),
    case("case_error_inplace", **_same(T([2, 2, 2]), S(-0.1, "FLOAT")), expect="ACLNN_ERR_PARAM_INVALID",
         note="selfIsResult=true needs negativeSlope >= 0"),
    case("ascend910B2_case_dim3_FLoat16_NHWC", **_same(T([2, 2, 2], "BF16", "NHWC"), S(0.01, "DOUBLE")),
         expect="ACLNN_SUCCESS", note="BF16 tensors despite the name; accepted on A2/A3 and the 950"),
    case("case_large_shape", **_same(T([1024, 1024], value_range=(-2, 2)), _F001), expect="ACLNN_SUCCESS"),
    case("case_negative_slope", **_same(T([2, 3], value_range=(-1, 1)), S(-0.1, "FLOAT"), is_result=False),
         expect="ACLNN_SUCCESS", note="a negative slope is fine when selfIsResult=false"),
    case("case_scalar_input", **_same(T([]), _F001), expect="ACLNN_SUCCESS", note="0-d tensors"),
    case("case_different_negative_slope", **_same(T([2, 3, 4], "FLOAT16", value_range=(-1, 1)), S(0.5, "FLOAT16")),
         expect="ACLNN_SUCCESS"),
    case("case_1d_large", **_same(T([2048], value_range=(-2, 2)), _F001), expect="ACLNN_SUCCESS"),
    case("case_specific_values",
         **_same(T([8], values=(-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0)), S(0.1, "FLOAT")),
         expect="ACLNN_SUCCESS", note="explicit values, but only the status is checked"),
    case("case_is_result_false", gradOutput=T([2, 3, 4], value_range=(-2, 2)), self=T([2, 3, 4], value_range=(-1, 1)),
         negativeSlope=S(0.1, "FLOAT"), selfIsResult=False, out=T([2, 3, 4]), expect="ACLNN_SUCCESS"),
    case("case_5d_shape", **_same(T([2, 4, 8, 16, 32], "FLOAT16", value_range=(-2, 2)), S(0.01, "FLOAT16")),
         expect="ACLNN_SUCCESS"),
]
