"""aclnnSoftmaxBackward: the op_api unit-test cases of CANN's operator library, as data (format: __init__.py).

Every case runs on the file's default product, ascend910b (the op_api test stub's SoC; `case_020_bf16` expects
success there).  `case_019_nullptr` makes three calls: one case each.
"""
from . import NULL, T, case

OP = "aclnnSoftmaxBackward"
SOURCE = "activation/softmax_grad/tests/ut/op_api/test_aclnn_softmax_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

R8 = [1, 2, 3, 4, 5, 6, 7, 8]


def _call(name, expect, gradOutput, output, out, dim=0, note=""):
    return case(name, gradOutput=gradOutput, output=output, dim=dim, out=out, expect=expect, note=note)


def _t(shape, dtype="FLOAT", fmt="ND", **kw):
    return T(shape, dtype, fmt, **kw)


CASES = [
    _call("case_001_float32_normal", "ACLNN_SUCCESS", _t([2, 3]), _t([2, 3]), _t([2, 3])),
    _call("case_002_float16_normal", "ACLNN_SUCCESS", _t([2, 3], "FLOAT16"), _t([2, 3], "FLOAT16"),
          _t([2, 3], "FLOAT16")),
    _call("case_003_double_abnormal", "ACLNN_ERR_PARAM_INVALID", _t([2, 3], "DOUBLE"), _t([2, 3], "DOUBLE"),
          _t([2, 3], "DOUBLE")),
    _call("case_005_diff_input_dtype_abnormal", "ACLNN_ERR_PARAM_INVALID", _t([2, 3]), _t([2, 3], "DOUBLE"),
          _t([2, 3])),
    _call("case_006_diff_input_format_normal", "ACLNN_SUCCESS", _t([2, 3]), _t([2, 3], fmt="NHWC"), _t([2, 3])),
    _call("case_007_diff_input_shape_abnormal", "ACLNN_ERR_PARAM_INVALID", _t([2, 4]), _t([2, 3]), _t([2, 4])),
    _call("case_009_diff_in_out_format_normal", "ACLNN_SUCCESS", _t([2, 3]), _t([2, 3]), _t([2, 3], fmt="NHWC")),
    _call("case_010_diff_in_out_shape_normal", "ACLNN_ERR_PARAM_INVALID", _t([2, 3]), _t([2, 3]), _t([2, 4])),
    _call("case_011_8_dim_input", "ACLNN_SUCCESS", _t(R8), _t(R8), _t(R8)),
    _call("case_012_max_dim", "ACLNN_SUCCESS", _t(R8), _t(R8), _t(R8), dim=7),
    _call("case_013_dim_invalid", "ACLNN_ERR_PARAM_INVALID", _t(R8), _t(R8), _t(R8), dim=8),
    _call("case_014_format_NHWC_normal", "ACLNN_SUCCESS", _t([2, 3], fmt="NHWC"), _t([2, 3], fmt="NHWC"),
          _t([2, 3], fmt="NHWC")),
    _call("case_016_input_emptytensor_normal", "ACLNN_SUCCESS", _t([2, 0]), _t([2, 0]), _t([2, 3]),
          note="empty inputs with an out of another shape"),
    _call("case_017_input_contigous_normal", "ACLNN_SUCCESS", _t([5, 4], strides=[1, 5], value_range=(0, 10)),
          _t([5, 4], strides=[1, 5], value_range=(0, 10)), _t([5, 4])),
    _call("case_018_9_dim_input", "ACLNN_ERR_PARAM_INVALID", _t(R8 + [9]), _t(R8 + [9]), _t(R8 + [9])),
    _call("case_019_nullptr[gradOutput]", "ACLNN_ERR_PARAM_NULLPTR", NULL, _t(R8), _t(R8)),
    _call("case_019_nullptr[output]", "ACLNN_ERR_PARAM_NULLPTR", _t(R8), NULL, _t(R8)),
    _call("case_019_nullptr[out]", "ACLNN_ERR_PARAM_NULLPTR", _t(R8), _t(R8), NULL),
    _call("case_020_bf16", "ACLNN_SUCCESS", _t([2, 3], "BF16"), _t([2, 3], "BF16"), _t([2, 3], "BF16")),
    _call("case_zero_dim_num", "ACLNN_SUCCESS", _t([], "FLOAT16"), _t([], "FLOAT16"), _t([], "FLOAT16")),
]
