"""aclnnSoftplusBackward(gradOutput, self, beta, threshold, gradInput): CANN's op_api unit tests as data.

gradOutput and gradInput take a floating dtype (A2: FLOAT, FLOAT16, DOUBLE, BF16); self may also be an integer or
BOOL; the three shapes must be equal (rank <= 8).  beta and threshold are FLOAT scalars 0.0 in every case (their
values are never checked).  Every case calls only the first phase.
"""
from tests.op_api_cases import NULL, S, T, case

OP = "aclnnSoftplusBackward"
SOURCE = "activation/softplus_v2_grad/tests/ut/op_host/op_api/test_aclnn_softplus_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

_SCALARS = {"beta": S(0.0, "FLOAT"), "threshold": S(0.0, "FLOAT")}


def _args(g=(2, 3), x=(2, 3), gi=(2, 3), dg="FLOAT", dx="FLOAT", dgi="FLOAT", **x_kw):
    return dict(gradOutput=T(list(g), dg), self=T(list(x), dx, **x_kw), **_SCALARS, gradInput=T(list(gi), dgi))


CASES = [
    case("grad_nullptr", **{**_args(), "gradOutput": NULL}, expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("self_nullptr", **{**_args(), "self": NULL}, expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("out_nullptr", **{**_args(), "gradInput": NULL}, expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("gradOutput_invalid_dtype", **_args(dg="INT32"), expect="ACLNN_ERR_PARAM_INVALID",
         note="gradOutput must be floating (self may be an integer)"),
    case("self_invalid_dtype_complex", **_args(dx="COMPLEX64"), expect="ACLNN_ERR_PARAM_INVALID"),
    case("gradinput_invalid_dtype_int32", **_args(dgi="INT32"), expect="ACLNN_ERR_PARAM_INVALID"),
    case("self_invalid_shape_9_dim", **_args(x=(2, 3, 1, 1, 1, 1, 1, 1, 1)), expect="ACLNN_ERR_PARAM_INVALID"),
    case("gradOutput_invalid_shape_9_dim", **_args(g=(2, 3, 1, 1, 1, 1, 1, 1, 1)), expect="ACLNN_ERR_PARAM_INVALID"),
    case("gradOutput_self_shape_not_equal", **_args(g=(2, 3, 1)), expect="ACLNN_ERR_PARAM_INVALID",
         note="no broadcasting"),
    case("self_out_shape_not_equal", **_args(gi=(2, 3, 1)), expect="ACLNN_ERR_PARAM_INVALID"),
    case("empty_tensor", **_args(g=(0,), x=(0,), gi=(0,)), expect="ACLNN_SUCCESS"),
    case("empty_tensor_2_0_3", **_args(g=(2, 0, 3), x=(2, 0, 3), gi=(2, 0, 3)), expect="ACLNN_SUCCESS"),
    case("normal_float32_nd", **_args(), expect="ACLNN_SUCCESS", note="beta = 0 is not refused"),
    case("Ascend910B2_normal_bf16_nd", **_args(dg="BF16", dx="BF16", dgi="BF16"), expect="ACLNN_SUCCESS",
         note="BF16 is accepted on ASCEND910B / ASCEND910_93 and the 950"),
    case("normal_gradOut_float_self_int32_nd", **_args(dx="INT32"), expect="ACLNN_SUCCESS",
         note="an INT32 self is cast to FLOAT"),
    case("normal_self_discontiguous", **_args(strides=[2, 1], storage_shape=[3, 2]), expect="ACLNN_SUCCESS",
         note="self is a strided view (strides [2,1] over a [3,2] storage: overlapping rows)"),
]
