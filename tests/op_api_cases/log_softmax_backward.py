"""aclnnLogSoftmaxBackward(gradOutput, output, dim, out): CANN's op_api unit tests as data.

`output` is log_softmax's forward result.  On the A2 an empty gradOutput or output returns success before any other
check; otherwise gradOutput and output must share one dtype from {FLOAT, FLOAT16, BF16}, gradOutput, output and out
one shape of rank <= 8, and dim must lie in [-rank, rank).  out's dtype is free (the result is cast to it).  Every
case calls only the first phase.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnLogSoftmaxBackward"
SOURCE = "activation/log_softmax_grad/tests/ut/op_api/test_aclnn_logsoftmax_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

_S8 = [1, 2, 3, 4, 5, 6, 7, 8]


def _args(g=(2, 3), y=None, o=None, dg="FLOAT", dy=None, do=None, fg="ND", fy=None, fo=None, dim=0, **kw):
    return dict(gradOutput=T(list(g), dg, fg, **kw), output=T(list(y or g), dy or dg, fy or fg, **kw), dim=dim,
                out=T(list(o or g), do or dg, fo or fg))


CASES = [
    case("case_001_float32_normal", **_args(), expect="ACLNN_SUCCESS"),
    case("case_002_float16_normal", **_args(dg="FLOAT16"), expect="ACLNN_SUCCESS"),
    case("case_003_double_abnormal", **_args(dg="DOUBLE"), expect="ACLNN_ERR_PARAM_INVALID"),
    case("case_005_diff_input_dtype_abnormal", **_args(dy="DOUBLE", do="FLOAT"), expect="ACLNN_ERR_PARAM_INVALID"),
    case("case_006_diff_input_format_normal", **_args(fy="NHWC", fo="ND"), expect="ACLNN_SUCCESS",
         note="formats are not checked"),
    case("case_007_diff_input_shape_abnormal", **_args(g=(2, 4), y=(2, 3), o=(2, 4)),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("case_008_diff_in_out_dtype_normal", **_args(do="DOUBLE"), expect="ACLNN_SUCCESS",
         note="out's dtype is not checked; the FLOAT result is cast to DOUBLE"),
    case("case_009_diff_in_out_format_normal", **_args(fo="NHWC"), expect="ACLNN_SUCCESS"),
    case("case_010_diff_in_out_shape_normal", **_args(o=(2, 4)), expect="ACLNN_ERR_PARAM_INVALID",
         note="out's shape must equal gradOutput's"),
    case("case_011_8_dim_input", **_args(g=_S8), expect="ACLNN_SUCCESS"),
    case("case_012_max_dim", **_args(g=_S8, dim=7), expect="ACLNN_SUCCESS", note="dim = rank - 1"),
    case("case_013_dim_invalid", **_args(g=_S8, dim=8), expect="ACLNN_ERR_PARAM_INVALID", note="dim = rank"),
    case("case_014_format_NHWC_normal", **_args(fg="NHWC"), expect="ACLNN_SUCCESS"),
    case("case_016_input_emptytensor_normal", **_args(g=(2, 0), o=(2, 3)), expect="ACLNN_SUCCESS",
         note="empty inputs return success before the shape check, so out [2,3] is never compared"),
    case("case_017_input_contigous_normal",
         **_args(g=(5, 4), o=(5, 4), strides=[1, 5], storage_shape=[4, 5], value_range=(0, 10)),
         expect="ACLNN_SUCCESS", note="transposed gradOutput and output views; contiguous out"),
    case("case_018_9_dim_input", **_args(g=[1, 2, 3, 4, 5, 6, 7, 8, 9]), expect="ACLNN_ERR_PARAM_INVALID"),
    case("case_019_nullptr_1", **{**_args(g=_S8), "gradOutput": NULL}, expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_019_nullptr_2", **{**_args(g=_S8), "output": NULL}, expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_019_nullptr_3", **{**_args(g=_S8), "out": NULL}, expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("ascend910B2_case_BF16_910b", **_args(dg="BF16"), expect="ACLNN_SUCCESS",
         note="BF16 is accepted on A2/A3 and the 950"),
]
