"""aclnnGeluBackwardV2(gradOutput, self, approximate, gradInput): CANN's op_api unit tests as data.

Like aclnnGeluBackward, plus the string `approximate` ("none" or "tanh"), and gradInput's dtype must equal the
promoted dtype; unlike it, the op_api has no rank limit.  Every case calls only the first phase.

Caveat: CANN's UT build globs only `test_aclnn_*.cpp` (`cmake/ut.cmake`, `add_modules_ut_sources`), so this file
(`test_gelu_backward_v2.cpp`) is not compiled there and its expectations are unchecked by CANN's CI; each was
re-checked here against `op_api/aclnn_gelu_backward_v2.cpp`.  A second copy,
`tests/ut/op_host/op_api/test_gelu_backward_v2.cpp`, holds the first 24 of these tests verbatim (same names, same
expectations) and is not built either.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnGeluBackwardV2"
SOURCE = "activation/gelu_grad_v2/tests/ut/op_api/test_gelu_backward_v2.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

_ONES10 = (1.0,) * 10
_S4 = [1, 16, 1, 1]
_NC = dict(strides=[1, 2], storage_shape=[5, 2])   # a transposed [2, 5] view of a [5, 2] storage

CASES = [
    case("gelu_backward_v2_testcase_001_normal_float32", gradOutput=T([2, 5], values=_ONES10),
         self=T([2, 5], value_range=(-1, 1)), approximate="none", gradInput=T([2, 5]), expect="ACLNN_SUCCESS"),
    case("gelu_backward_v2_testcase_002_normal_float16", gradOutput=T([2, 5], "FLOAT16", values=_ONES10),
         self=T([2, 5], "FLOAT16", value_range=(-1, 1)), approximate="tanh", gradInput=T([2, 5], "FLOAT16"),
         expect="ACLNN_SUCCESS"),
    case("gelu_backward_v2_testcase_003_normal_empty_tensor", gradOutput=T([0]), self=T([0]), approximate="tanh",
         gradInput=T([0]), expect="ACLNN_SUCCESS"),
    case("gelu_backward_v2_testcase_004_exception_null_gradOutput", gradOutput=NULL, self=T(_S4),
         approximate="none", gradInput=T(_S4), expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("gelu_backward_v2_testcase_005_exception_null_self", gradOutput=T(_S4), self=NULL, approximate="none",
         gradInput=T(_S4), expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("gelu_backward_v2_testcase_006_exception_null_approximate", gradOutput=T(_S4), self=T(_S4),
         approximate=NULL, gradInput=T(_S4), expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("gelu_backward_v2_testcase_007_exception_null_gradInput", gradOutput=T(_S4), self=T(_S4),
         approximate="none", gradInput=NULL, expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("gelu_backward_v2_testcase_008_exception_float64_dtype_not_supported", gradOutput=T(_S4, "DOUBLE"),
         self=T(_S4), approximate="none", gradInput=T(_S4, "DOUBLE"), expect="ACLNN_ERR_PARAM_INVALID",
         note="DOUBLE and FLOAT promote to DOUBLE, not in the support list"),
    case("gelu_backward_v2_testcase_009_normal_dtype_not_the_same", gradOutput=T(_S4), self=T(_S4, "FLOAT16"),
         approximate="none", gradInput=T(_S4), expect="ACLNN_SUCCESS", note="promoted FLOAT equals gradInput's"),
    case("gelu_backward_v2_testcase_010_normal_dtype_not_the_same", gradOutput=T(_S4, "FLOAT16"), self=T(_S4),
         approximate="none", gradInput=T(_S4), expect="ACLNN_SUCCESS"),
    case("gelu_backward_v2_testcase_011_normal_dtype_not_the_same", gradOutput=T(_S4, "FLOAT16"), self=T(_S4),
         approximate="test", gradInput=T(_S4), expect="ACLNN_ERR_PARAM_INVALID",
         note="approximate must be \"none\" or \"tanh\" (checked after dtypes and shapes)"),
    *[case(f"gelu_backward_v2_testcase_012_normal_format_{i}", gradOutput=T(_S4, format=fmt),
           self=T(_S4, format=fmt), approximate="none", gradInput=T(_S4, format=fmt), expect="ACLNN_SUCCESS",
           note=f"one iteration of a loop over formats: {fmt} for all three tensors (formats are not checked)")
      for i, fmt in enumerate(["ND", "NC1HWC0", "FRACTAL_NZ"], start=1)],
    case("gelu_backward_v2_testcase_013_normal_format", gradOutput=T(_S4), self=T(_S4, format="NCHW"),
         approximate="tanh", gradInput=T(_S4), expect="ACLNN_SUCCESS"),
    case("gelu_backward_v2_testcase_014_normal_different_format", gradOutput=T(_S4),
         self=T(_S4, format="NC1HWC0"), approximate="none", gradInput=T(_S4), expect="ACLNN_SUCCESS"),
    case("gelu_backward_v2_testcase_015_exception_different_shape", gradOutput=T(_S4), self=T([1, 1, 4, 4]),
         approximate="tanh", gradInput=T(_S4), expect="ACLNN_ERR_PARAM_INVALID",
         note="the broadcast shape [1,16,4,4] is not gradInput's shape"),
    case("gelu_backward_v2_testcase_016_normal_not_contiguous_float", gradOutput=T([2, 5], values=_ONES10, **_NC),
         self=T([2, 5], value_range=(-1, 1), **_NC), approximate="none", gradInput=T([2, 5], **_NC),
         expect="ACLNN_SUCCESS"),
    case("gelu_backward_v2_testcase_017_normal_not_contiguous_float16",
         gradOutput=T([2, 5], "FLOAT16", values=_ONES10, **_NC), self=T([2, 5], "FLOAT16", value_range=(-1, 1), **_NC),
         approximate="none", gradInput=T([2, 5], "FLOAT16", **_NC), expect="ACLNN_SUCCESS"),
    case("gelu_backward_v2_testcase_018_exception_complex64_dtype_not_supported", gradOutput=T(_S4, "COMPLEX64"),
         self=T(_S4, "COMPLEX64"), approximate="tanh", gradInput=T(_S4, "COMPLEX64"),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("gelu_backward_v2_testcase_019_exception_complex128_dtype_not_supported", gradOutput=T(_S4, "COMPLEX128"),
         self=T(_S4, "COMPLEX128"), approximate="tanh", gradInput=T(_S4, "COMPLEX128"),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("gelu_backward_v2_testcase_020_normal_large_dims",
         gradOutput=T([1, 2, 2, 2, 2, 2, 2, 2, 2], value_range=(1, 1)),
         self=T([1, 2, 2, 2, 2, 2, 2, 2, 2], value_range=(-10, 10)), approximate="none",
         gradInput=T([1, 2, 2, 2, 2, 2, 2, 2, 2]), expect="ACLNN_SUCCESS",
         note="9 dimensions succeed: the V2 op_api has no rank check, although its doc says 0-8 dims"),
    case("gelu_backward_v2_testcase_021_normal_self_empty_tensor", gradOutput=T([16, 16], value_range=(-1, 1)),
         self=T([0]), approximate="tanh", gradInput=T([16, 16]), expect="ACLNN_ERR_PARAM_INVALID",
         note="[16,16] and [0] do not broadcast"),
    case("gelu_backward_v2_testcase_022_exception_gradOutput_empty_tensor", gradOutput=T([0]),
         self=T([16, 16], value_range=(-1, 1)), approximate="tanh", gradInput=T([0]),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("gelu_backward_v2_testcase_023_normal_broadcast_shape", gradOutput=T([16]),
         self=T([16, 16], value_range=(-1, 1)), approximate="tanh", gradInput=T([16, 16]), expect="ACLNN_SUCCESS"),
    case("gelu_backward_v2_testcase_024_normal_broadcast_shape", gradOutput=T([16, 5, 5]),
         self=T([5, 5], value_range=(-1, 1)), approximate="tanh", gradInput=T([16, 5, 5]), expect="ACLNN_SUCCESS"),
    case("gelu_backward_v2_testcase_025_large_shape", gradOutput=T([1024, 1024], value_range=(-1, 1)),
         self=T([1024, 1024], value_range=(-2, 2)), approximate="none", gradInput=T([1024, 1024]),
         expect="ACLNN_SUCCESS"),
    case("gelu_backward_v2_testcase_026_5d_shape", gradOutput=T([2, 4, 8, 16, 32], "FLOAT16", value_range=(-1, 1)),
         self=T([2, 4, 8, 16, 32], "FLOAT16", value_range=(-1, 1)), approximate="tanh",
         gradInput=T([2, 4, 8, 16, 32], "FLOAT16"), expect="ACLNN_SUCCESS"),
    case("gelu_backward_v2_testcase_027_scalar", gradOutput=T([]), self=T([]), approximate="none",
         gradInput=T([]), expect="ACLNN_SUCCESS"),
    case("gelu_backward_v2_testcase_028_nchw_format",
         gradOutput=T([2, 64, 112, 112], "FLOAT16", "NCHW", value_range=(-1, 1)),
         self=T([2, 64, 112, 112], "FLOAT16", "NCHW", value_range=(-2, 2)), approximate="none",
         gradInput=T([2, 64, 112, 112], "FLOAT16", "NCHW"), expect="ACLNN_SUCCESS"),
    case("gelu_backward_v2_testcase_029_specific_values",
         gradOutput=T([8], values=(1.0, 0.5, -0.5, 0.0, 1.0, 2.0, -1.0, 0.0)),
         self=T([8], values=(0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 0.0, 3.0)), approximate="none", gradInput=T([8]),
         expect="ACLNN_SUCCESS", note="explicit values, but only the status is checked"),
    case("gelu_backward_v2_testcase_030_bf16_dtype", gradOutput=T([2, 4, 6, 8], "BF16", value_range=(-1, 1)),
         self=T([2, 4, 6, 8], "BF16", value_range=(-1, 1)), approximate="tanh", gradInput=T([2, 4, 6, 8], "BF16"),
         expect="ACLNN_SUCCESS"),
    case("gelu_backward_v2_testcase_031_int_dtype", gradOutput=T([2, 4], "INT32"), self=T([2, 4], "INT32"),
         approximate="none", gradInput=T([2, 4], "INT32"), expect="ACLNN_ERR_PARAM_INVALID"),
    case("gelu_backward_v2_testcase_032_undefined_dtype", gradOutput=T([2, 4], "DT_UNDEFINED"),
         self=T([2, 4], "DT_UNDEFINED"), approximate="none", gradInput=T([2, 4], "DT_UNDEFINED"),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("gelu_backward_v2_testcase_033_7d_shape", gradOutput=T([1, 2, 3, 4, 5, 6, 7], value_range=(-1, 1)),
         self=T([1, 2, 3, 4, 5, 6, 7], value_range=(-2, 2)), approximate="none",
         gradInput=T([1, 2, 3, 4, 5, 6, 7]), expect="ACLNN_SUCCESS"),
]
