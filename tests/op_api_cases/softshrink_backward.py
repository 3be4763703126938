"""aclnnSoftshrinkBackward: the op_api unit-test cases of CANN's operator library, as data (format: __init__.py).

Every case runs on the file's default product, ascend910b (the op_api test stub's SoC).  Left out: the test
`normal_gradOut_float16_self_float_nd` (FLOAT16 gradOutput and gradInput, FLOAT self), which asserts nothing.
"""
from . import NULL, S, T, case

OP = "aclnnSoftshrinkBackward"
SOURCE = "activation/soft_shrink_grad/tests/ut/op_api/test_aclnn_softshrink_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

F23 = T([2, 3], "FLOAT")
L0 = S(0.0, "FLOAT")


def _call(name, expect, gradOutput=F23, self=F23, gradInput=F23, note=""):
    return case(name, gradOutput=gradOutput, self=self, gradInput=gradInput, expect=expect, note=note,
                **{"lambda": L0})


CASES = [
    _call("grad_nullptr", "ACLNN_ERR_PARAM_NULLPTR", gradOutput=NULL),
    _call("self_nullptr", "ACLNN_ERR_PARAM_NULLPTR", self=NULL),
    _call("out_nullptr", "ACLNN_ERR_PARAM_NULLPTR", gradInput=NULL),
    _call("gradOutput_invalid_dtype", "ACLNN_ERR_PARAM_INVALID", gradOutput=T([2, 3], "INT32")),
    _call("self_invalid_dtype_complex", "ACLNN_ERR_PARAM_INVALID", self=T([2, 3], "COMPLEX64")),
    _call("gradinput_invalid_dtype_int32", "ACLNN_ERR_PARAM_INVALID", gradInput=T([2, 3], "INT32")),
    _call("self_invalid_shape_9_dim", "ACLNN_ERR_PARAM_INVALID", self=T([2, 3, 1, 1, 1, 1, 1, 1, 1])),
    _call("gradOutput_invalid_shape_9_dim", "ACLNN_ERR_PARAM_INVALID", gradOutput=T([2, 3, 1, 1, 1, 1, 1, 1, 1])),
    _call("gradOutput_self_shape_not_equal", "ACLNN_ERR_PARAM_INVALID", gradOutput=T([2, 3, 1]),
          note="[2, 3, 1] and [2, 3] broadcast to [2, 3, 3], not gradInput's [2, 3]"),
    _call("self_out_shape_not_equal", "ACLNN_ERR_PARAM_INVALID", gradInput=T([2, 3, 2])),
    _call("empty_tensor", "ACLNN_SUCCESS", gradOutput=T([0]), self=T([0]), gradInput=T([0])),
    _call("empty_tensor_2_0_3", "ACLNN_SUCCESS", gradOutput=T([2, 0, 3]), self=T([2, 0, 3]), gradInput=T([2, 0, 3])),
    _call("normal_float32_nd", "ACLNN_SUCCESS"),
    _call("normal_gradOut_float_self_float16_nd", "ACLNN_SUCCESS", self=T([2, 3], "FLOAT16"),
          note="mixed input dtypes, computed in FLOAT"),
    _call("ascend910B2_bfloat16_nd", "ACLNN_SUCCESS", gradOutput=T([2, 3], "BF16"), self=T([2, 3], "BF16"),
          gradInput=T([2, 3], "BF16")),
    _call("normal_self_discontiguous", "ACLNN_SUCCESS", self=T([2, 3], "FLOAT", strides=[2, 1])),
    _call("normal_self_broadcast", "ACLNN_SUCCESS", gradOutput=T([1, 2, 3]), gradInput=T([1, 2, 3])),
    _call("normal_self_broadcast1", "ACLNN_SUCCESS", gradOutput=T([1, 2, 3], "FLOAT16"), self=T([2, 3], "FLOAT16"),
          gradInput=T([1, 2, 3], "FLOAT16")),
]
