"""aclnnFastGeluBackward(gradOutput, self, gradInput): CANN's op_api unit tests as data.

All three tensors must agree in dtype, shape and format; A2 accepts FLOAT, FLOAT16, BF16.  Every case only calls
the first phase (GetWorkspaceSize) and checks its status.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnFastGeluBackward"
SOURCE = "activation/fast_gelu_grad/tests/ut/op_api/test_aclnn_fast_gelu.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"


def _same(shape, dtype="FLOAT", fmt="ND", **kw):
    """gradOutput, self and gradInput all described alike."""
    return dict(gradOutput=T(shape, dtype, fmt, **kw), self=T(shape, dtype, fmt, **kw),
                gradInput=T(shape, dtype, fmt, **kw))


CASES = [
    case("test_fast_gelu_backward_float32", **_same([1, 16]), expect="ACLNN_SUCCESS"),
    case("test_fast_gelu_backward_float16", **_same([2, 4, 6, 8], "FLOAT16"), expect="ACLNN_SUCCESS"),
    case("test_fast_gelu_backward_3d_shape", **_same([32, 64, 128]), expect="ACLNN_SUCCESS"),
    case("test_fast_gelu_backward_5d_shape", **_same([2, 4, 8, 16, 32], "FLOAT16"), expect="ACLNN_SUCCESS"),
    case("test_fast_gelu_backward_empty_tensor", **_same([0, 0]), expect="ACLNN_SUCCESS",
         note="empty tensors return success with workspace 0 after the checks"),
    case("test_fast_gelu_backward_scalar", **_same([]), expect="ACLNN_SUCCESS", note="0-d tensors"),
    case("test_fast_gelu_backward_large_shape", **_same([1024, 1024]), expect="ACLNN_SUCCESS"),
    case("test_fast_gelu_backward_nchw_format", **_same([2, 64, 112, 112], "FLOAT16", "NCHW"),
         expect="ACLNN_SUCCESS", note="NCHW is accepted when all three formats agree"),
    case("test_fast_gelu_backward_nullptr_grad", gradOutput=NULL, self=T([2, 4]), gradInput=T([2, 4]),
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("test_fast_gelu_backward_nullptr_self", gradOutput=T([2, 4]), self=NULL, gradInput=T([2, 4]),
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("test_fast_gelu_backward_nullptr_output", gradOutput=T([2, 4]), self=T([2, 4]), gradInput=NULL,
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("test_fast_gelu_backward_dtype_diff", gradOutput=T([2, 4]), self=T([2, 4], "FLOAT16"),
         gradInput=T([2, 4]), expect="ACLNN_ERR_PARAM_INVALID", note="self's dtype differs from gradOutput's"),
    case("test_fast_gelu_backward_shape_diff", gradOutput=T([2, 4]), self=T([2, 3]), gradInput=T([2, 4]),
         expect="ACLNN_ERR_PARAM_INVALID", note="no broadcasting: shapes must be equal"),
    case("test_fast_gelu_backward_unsupported_dtype", **_same([2, 4], "INT32"), expect="ACLNN_ERR_PARAM_INVALID"),
    case("test_fast_gelu_backward_not_contiguous", **_same([2, 4], strides=[1, 2], storage_shape=[4, 2]),
         expect="ACLNN_SUCCESS", note="transposed views for all three tensors"),
    case("test_fast_gelu_backward_value_range", gradOutput=T([2, 4, 6, 8], value_range=(-1, 1)),
         self=T([2, 4, 6, 8], value_range=(-2, 2)), gradInput=T([2, 4, 6, 8]), expect="ACLNN_SUCCESS"),
]
