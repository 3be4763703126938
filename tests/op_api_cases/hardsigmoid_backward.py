"""aclnnHardsigmoidBackward(gradOutput, self, out): CANN's op_api unit tests as data.

gradOutput and self must each be in the support list (A2: FLOAT, BF16, FLOAT16) and have equal shapes (no
broadcast); their promoted dtype must cast to out's.  Every case calls only the first phase; the cases CANN marks
for a value check call `TestPrecision()`, which is an empty function in CANN's harness
(`tests/ut/op_api/op_api_ut_common/inc/op_api_ut_common/op_api_ut.h`), so only the status is really checked.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnHardsigmoidBackward"
SOURCE = "activation/hard_sigmoid_grad/tests/ut/op_host/op_api/test_aclnn_hardsigmoid_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

_PREC = "precision case in CANN (TestPrecision, a no-op there); ported as a status case"


def _t(shape=(2, 3), dtype="FLOAT", **kw):
    return T(list(shape), dtype, **kw)


CASES = [
    case("grad_nullptr", gradOutput=NULL, self=_t(), out=_t(), expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("self_nullptr", gradOutput=_t(), self=NULL, out=_t(), expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("out_nullptr", gradOutput=_t(), self=_t(), out=NULL, expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("gradOutput_invalid_dtype", gradOutput=_t(dtype="INT32"), self=_t(), out=_t(),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("self_invalid_dtype_int32", gradOutput=_t(), self=_t(dtype="INT32"), out=_t(),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("self_invalid_dtype_bool", gradOutput=_t(), self=_t(dtype="BOOL"), out=_t(),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("self_invalid_shape_9_dim", gradOutput=_t(), self=_t((2, 3, 1, 1, 1, 1, 1, 1, 1)), out=_t(),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("gradOutput_invalid_shape_9_dim", gradOutput=_t((2, 3, 1, 1, 1, 1, 1, 1, 1)), self=_t(), out=_t(),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("gradOutput_self_shape_not_equal", gradOutput=_t((2, 3, 1)), self=_t(), out=_t(),
         expect="ACLNN_ERR_PARAM_INVALID", note="[2,3,1] vs [2,3]: no broadcasting, shapes must be equal"),
    case("self_out_shape_not_equal", gradOutput=_t(), self=_t(), out=_t((2, 3, 1)), expect="ACLNN_ERR_PARAM_INVALID"),
    case("empty_tensor", gradOutput=_t((0,)), self=_t((0,)), out=_t((0,)), expect="ACLNN_SUCCESS"),
    case("empty_tensor_2_0_3", gradOutput=_t((2, 0, 3)), self=_t((2, 0, 3)), out=_t((2, 0, 3)),
         expect="ACLNN_SUCCESS"),
    case("float32_nd", gradOutput=_t(), self=_t(), out=_t(), expect="ACLNN_SUCCESS", note=_PREC),
    case("float16_nd", gradOutput=_t(dtype="FLOAT16"), self=_t(dtype="FLOAT16"), out=_t(dtype="FLOAT16"),
         expect="ACLNN_SUCCESS", note=_PREC),
    case("ascend910B2_bfloat16_nd", gradOutput=_t(dtype="BF16"), self=_t(dtype="BF16"), out=_t(dtype="BF16"),
         expect="ACLNN_SUCCESS", note="BF16 is accepted on A2/A3 and the 950"),
    case("grad_float16_self_float_nd", gradOutput=_t(dtype="FLOAT16"), self=_t(), out=_t(), expect="ACLNN_SUCCESS",
         note="FLOAT16 and FLOAT promote to FLOAT. " + _PREC),
    case("self_transpose", gradOutput=_t(), self=_t(strides=[2, 1], storage_shape=[3, 2]), out=_t(),
         expect="ACLNN_SUCCESS",
         note="self is a strided view (strides [2,1] over a [3,2] storage: rows overlap, not a true transpose). "
              + _PREC),
]
