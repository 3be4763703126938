"""aclnnSiluBackward(gradOutput, self, gradInput): CANN's op_api unit tests as data.

On the A2 (the harness's SoC) gradOutput, self and gradInput must share one dtype from {FLOAT16, FLOAT, BF16} and
one shape; the 950 additionally allows broadcasting and mixed input dtypes with a FLOAT gradInput.  Every case calls
only the first phase.

Not ported: silu_backward_testcase_010_normal_format and _012_normal_different_format call the API but their status
checks are commented out (no assertion), and testcase_018 is commented out entirely.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnSiluBackward"
SOURCE = "activation/silu_grad/tests/ut/op_api/test_aclnn_silu_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

_ONES10 = (1.0,) * 10
_S4 = [1, 16, 1, 1]
_NC = dict(strides=[1, 2], storage_shape=[5, 2])


def _all(shape, dtype="FLOAT", fmt="ND", value_range=(-1, 1)):
    return dict(gradOutput=T(shape, dtype, fmt, value_range=value_range),
                self=T(shape, dtype, fmt, value_range=value_range), gradInput=T(shape, dtype, fmt))


CASES = [
    case("silu_backward_testcase_001_normal_float32", gradOutput=T([2, 5], values=_ONES10),
         self=T([2, 5], value_range=(-1, 1)), gradInput=T([2, 5]), expect="ACLNN_SUCCESS"),
    case("silu_backward_testcase_002_normal_float16", gradOutput=T([2, 5], "FLOAT16", values=_ONES10),
         self=T([2, 5], "FLOAT16", value_range=(-1, 1)), gradInput=T([2, 5], "FLOAT16"), expect="ACLNN_SUCCESS"),
    case("ascend910b2_silu_backward_testcase_002_normal_bf16", gradOutput=T([2, 5], "BF16", values=_ONES10),
         self=T([2, 5], "BF16", value_range=(-1, 1)), gradInput=T([2, 5], "BF16"), expect="ACLNN_SUCCESS",
         note="BF16 is accepted on A2/A3 and the 950"),
    case("silu_backward_testcase_003_normal_empty_tensor", gradOutput=T([0]), self=T([0]), gradInput=T([0]),
         expect="ACLNN_SUCCESS"),
    case("silu_backward_testcase_004_exception_null_gradOutput", gradOutput=NULL, self=T(_S4), gradInput=T(_S4),
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("silu_backward_testcase_005_exception_null_self", gradOutput=T(_S4), self=NULL, gradInput=T(_S4),
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("silu_backward_testcase_006_exception_null_gradInput", gradOutput=T(_S4), self=T(_S4), gradInput=NULL,
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("silu_backward_testcase_007_exception_float64_dtype_not_supported", gradOutput=T(_S4, "DOUBLE"),
         self=T(_S4), gradInput=T(_S4, "DOUBLE"), expect="ACLNN_ERR_PARAM_INVALID"),
    case("silu_backward_testcase_008_normal_dtype_not_the_same", gradOutput=T(_S4), self=T(_S4, "FLOAT16"),
         gradInput=T(_S4, "FLOAT16"), expect="ACLNN_ERR_PARAM_INVALID",
         note="mixed dtypes: refused on the A2; on the 950 they are allowed only with a FLOAT gradInput"),
    case("silu_backward_testcase_009_normal_dtype_not_the_same", gradOutput=T(_S4, "FLOAT16"), self=T(_S4),
         gradInput=T(_S4, "FLOAT16"), expect="ACLNN_ERR_PARAM_INVALID"),
    case("silu_backward_testcase_011_normal_format", gradOutput=T(_S4), self=T(_S4, format="NCHW"),
         gradInput=T(_S4), expect="ACLNN_SUCCESS", note="formats are not checked"),
    case("silu_backward_testcase_013_exception_different_shape", gradOutput=T(_S4), self=T([1, 1, 4, 4]),
         gradInput=T(_S4), expect="ACLNN_ERR_PARAM_INVALID",
         note="on the A2 the shapes must be equal (the 950 broadcasts, but [1,16,4,4] != gradInput's shape anyway)"),
    case("silu_backward_testcase_014_normal_not_contiguous_float", gradOutput=T([2, 5], values=_ONES10, **_NC),
         self=T([2, 5], value_range=(-1, 1), **_NC), gradInput=T([2, 5], **_NC), expect="ACLNN_SUCCESS"),
    case("silu_backward_testcase_015_normal_not_contiguous_float16",
         gradOutput=T([2, 5], "FLOAT16", values=_ONES10, **_NC), self=T([2, 5], "FLOAT16", value_range=(-1, 1), **_NC),
         gradInput=T([2, 5], "FLOAT16", **_NC), expect="ACLNN_SUCCESS"),
    case("silu_backward_testcase_016_exception_complex64_dtype_not_supported", gradOutput=T(_S4, "COMPLEX64"),
         self=T(_S4, "COMPLEX64"), gradInput=T(_S4, "COMPLEX64"), expect="ACLNN_ERR_PARAM_INVALID"),
    case("silu_backward_testcase_017_exception_complex128_dtype_not_supported", gradOutput=T(_S4, "COMPLEX128"),
         self=T(_S4, "COMPLEX128"), gradInput=T(_S4, "COMPLEX128"), expect="ACLNN_ERR_PARAM_INVALID"),
    case("silu_backward_testcase_019_normal_self_empty_tensor", gradOutput=T([16, 16], value_range=(-1, 1)),
         self=T([0]), gradInput=T([16, 16]), expect="ACLNN_ERR_PARAM_INVALID",
         note="self [0] differs from gradInput [16,16]; the shape check runs before the empty shortcut"),
    case("silu_backward_testcase_020_exception_gradOutput_empty_tensor", gradOutput=T([0]),
         self=T([16, 16], value_range=(-1, 1)), gradInput=T([0]), expect="ACLNN_ERR_PARAM_INVALID"),
    case("silu_backward_testcase_021_8d_shape", **_all([1, 2, 3, 4, 5, 6, 7, 8]), expect="ACLNN_SUCCESS"),
    case("silu_backward_testcase_022_scalar", **_all([]), expect="ACLNN_SUCCESS", note="0-d tensors"),
    case("silu_backward_testcase_023_large_shape", **_all([1024, 1024], "FLOAT16"), expect="ACLNN_SUCCESS"),
    case("silu_backward_testcase_024_nchw_format", **_all([2, 64, 112, 112], "FLOAT16", "NCHW"),
         expect="ACLNN_SUCCESS"),
    case("silu_backward_testcase_025_value_range", **_all([2, 4, 6, 8], value_range=(-100, 100)),
         expect="ACLNN_SUCCESS"),
]
