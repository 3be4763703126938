"""aclnnEluBackward: the op_api unit-test cases of CANN's operator library, as data (format: __init__.py).

Every case runs on the file's default product, ascend910b (the op_api test stub's SoC; `normal_BF16_NHWC`
expects success there).  Unless a case says otherwise: alpha = scale = inputScale = 1.0 (FLOAT aclScalars),
isResult true, and gradOutput, selfOrResult and gradInput FLOAT of shape [2].
"""
from . import NULL, S, T, case

OP = "aclnnEluBackward"
SOURCE = "activation/elu_grad_v2/tests/ut/op_api/test_aclnn_elu_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

ONE = S(1.0, "FLOAT")
F2 = T([2])


def _call(name, expect, gradOutput=F2, selfOrResult=F2, gradInput=F2, alpha=ONE, scale=ONE, inputScale=ONE,
          isResult=True, note=""):
    return case(f"l2_elu_backward_{name}", gradOutput=gradOutput, alpha=alpha, scale=scale, inputScale=inputScale,
                isResult=isResult, selfOrResult=selfOrResult, gradInput=gradInput, expect=expect, note=note)


def _same(shape, dtype="FLOAT", fmt="ND", strides=None):
    """gradOutput, selfOrResult and gradInput alike."""
    t = T(shape, dtype, fmt, strides)
    return dict(gradOutput=t, selfOrResult=t, gradInput=t)


D10 = [2] * 10
CASES = [
    _call("normal_FLOAT_ND", "ACLNN_SUCCESS"),
    _call("normal_FLOAT16_NCHW", "ACLNN_SUCCESS", **_same([2, 2, 2, 2], "FLOAT16", "NCHW")),
    _call("normal_BF16_NHWC", "ACLNN_SUCCESS", **_same([2, 2, 2, 2], "BF16", "NHWC")),
    _call("normal_ratio_uint8_HWCN", "ACLNN_SUCCESS", **_same([2, 2, 2, 2], "FLOAT", "HWCN"),
          alpha=S(1, "UINT8"), scale=S(1, "UINT8"), inputScale=S(1, "UINT8"), note="UINT8 aclScalars"),
    _call("normal_gradInput_COMPLEX64_NDHWC", "ACLNN_SUCCESS", gradOutput=T([2, 2, 2, 2, 2], "FLOAT", "NDHWC"),
          selfOrResult=T([2, 2, 2, 2, 2], "FLOAT", "NDHWC"), gradInput=T([2, 2, 2, 2, 2], "COMPLEX64", "NDHWC"),
          note="a FLOAT gradient written to a COMPLEX64 gradInput"),
    _call("normal_alpha_2_NCDHW", "ACLNN_SUCCESS", **_same([2, 2, 2, 2, 2], "FLOAT", "NCDHW"), alpha=S(2.0)),
    _call("normal_alpha_half_NCHW_NHWC", "ACLNN_SUCCESS", gradOutput=T([2, 2, 2, 2], "FLOAT", "NCHW"),
          selfOrResult=T([2, 2, 2, 2], "FLOAT", "NCHW"), gradInput=T([2, 2, 2, 2], "FLOAT", "NHWC"), alpha=S(0.5)),
    _call("normal_scale_2_ND", "ACLNN_SUCCESS", scale=S(2.0)),
    _call("normal_scale_half_ND", "ACLNN_SUCCESS", scale=S(0.5)),
    _call("normal_inputScale_2_ND", "ACLNN_SUCCESS", inputScale=S(2.0)),
    _call("normal_inputScale_half_ND", "ACLNN_SUCCESS", inputScale=S(0.5)),
    _call("normal_isResult_false_ND", "ACLNN_SUCCESS", isResult=False),
    _call("normal_empty_tensor", "ACLNN_SUCCESS", **_same([0])),
    _call("abnormal_gradOutput_nullptr", "ACLNN_ERR_PARAM_NULLPTR", gradOutput=NULL),
    _call("abnormal_alpha_nullptr", "ACLNN_ERR_PARAM_NULLPTR", alpha=NULL),
    _call("abnormal_scale_nullptr", "ACLNN_ERR_PARAM_NULLPTR", scale=NULL),
    _call("abnormal_inputScale_nullptr", "ACLNN_ERR_PARAM_NULLPTR", inputScale=NULL),
    _call("abnormal_selfOrResult_nullptr", "ACLNN_ERR_PARAM_NULLPTR", selfOrResult=NULL),
    _call("abnormal_gradInput_nullptr", "ACLNN_ERR_PARAM_NULLPTR", gradInput=NULL),
    _call("abnormal_dtype_unequal", "ACLNN_ERR_PARAM_INVALID", selfOrResult=T([2], "FLOAT16")),
    *[_call(f"abnormal_gradOutput_{dt}", "ACLNN_ERR_PARAM_INVALID", **_same([2], dt))
      for dt in ("INT32", "INT64", "INT16", "INT8", "UINT8", "BOOL", "COMPLEX64", "COMPLEX128", "DOUBLE")],
    _call("abnormal_gradOutput_UNDEFINED", "ACLNN_ERR_PARAM_INVALID", **_same([2], "DT_UNDEFINED")),
    _call("abnormal_gradInput_INT32", "ACLNN_ERR_PARAM_INVALID", gradInput=T([2], "INT32")),
    _call("abnormal_shape_gradOutput_selfOrResult_unequal", "ACLNN_ERR_PARAM_INVALID", selfOrResult=T([2, 2]),
          gradInput=T([2], "INT32")),
    _call("abnormal_shape_gradOutput_gradInput_unequal", "ACLNN_ERR_PARAM_INVALID", gradInput=T([2, 2], "INT32")),
    _call("abnormal_shape_10D", "ACLNN_ERR_PARAM_INVALID", **_same(D10)),
    _call("abnormal_alpha_negtive", "ACLNN_ERR_PARAM_INVALID", alpha=S(-1.0), scale=S(2.0)),
    _call("normal_valuerange", "ACLNN_SUCCESS", gradOutput=T([2], value_range=(-1, 1)),
          selfOrResult=T([2], value_range=(-1, 1))),
    _call("normal_uncontiguous", "ACLNN_SUCCESS", **_same([2, 4], strides=[1, 2]),
          note="every tensor a [2, 4] view over [4, 2] storage"),
    _call("normal_large_shape", "ACLNN_SUCCESS", **_same([1024, 1024])),
    _call("normal_5d_shape", "ACLNN_SUCCESS", **_same([2, 4, 8, 16, 32], "FLOAT16", "NCDHW"), alpha=S(1.2)),
    _call("normal_scalar_shape", "ACLNN_SUCCESS", **_same([])),
    _call("normal_with_specific_values", "ACLNN_SUCCESS", gradOutput=T([4], values=(0.5, -0.5, 1.0, -1.0)),
          selfOrResult=T([4], values=(0.1, -0.1, 0.05, -0.05)), gradInput=T([4])),
    _call("abnormal_dim_gt_9", "ACLNN_ERR_PARAM_INVALID", **_same(D10)),
    _call("normal_alpha_zero", "ACLNN_SUCCESS", alpha=S(0.0)),
]
