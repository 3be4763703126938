"""aclnnLogSigmoidBackward: the op_api unit-test cases of CANN's operator library, as data (format: __init__.py).

Every case runs on the file's default product, ascend910b (the op_api test stub's SoC).  `buffer` is a copy of
`self`'s description and `gradInput` of `gradOutput`'s (strides included) unless a case says otherwise;
`testcase_010_normal_format` loops over three formats: one case each.
"""
from . import NULL, T, case

OP = "aclnnLogSigmoidBackward"
SOURCE = "activation/logsigmoid_grad/tests/ut/op_api/test_aclnn_logsigmoid_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

TRANSPOSED = [1, 2]          # strides of a [2, 5] view over [5, 2] storage


def _call(name, expect, gradOutput, self, buffer=None, gradInput=None, note=""):
    return case(name, gradOutput=gradOutput, self=self, buffer=self if buffer is None else buffer,
                gradInput=gradOutput if gradInput is None else gradInput, expect=expect, note=note)


def _t(shape, dtype="FLOAT", fmt="ND", **kw):
    return T(shape, dtype, fmt, **kw)


P = [1, 16, 1, 1]
CASES = [
    _call("logsigmoid_backward_testcase_001_normal_float32", "ACLNN_SUCCESS",
          _t([2, 5], values=(1,) * 10), _t([2, 5], value_range=(-1, 1))),
    _call("logsigmoid_backward_testcase_002_normal_float16", "ACLNN_SUCCESS",
          _t([2, 5], "FLOAT16", values=(1,) * 10), _t([2, 5], "FLOAT16", value_range=(-1, 1))),
    _call("logsigmoid_backward_testcase_003_normal_empty_tensor", "ACLNN_SUCCESS", _t([0]), _t([0])),
    _call("logsigmoid_backward_testcase_004_exception_null_gradOutput", "ACLNN_ERR_PARAM_NULLPTR",
          NULL, _t(P), gradInput=_t(P)),
    _call("logsigmoid_backward_testcase_005_exception_null_self", "ACLNN_ERR_PARAM_NULLPTR",
          _t(P), NULL, buffer=_t(P)),
    _call("logsigmoid_backward_testcase_006_exception_null_gradInput", "ACLNN_ERR_PARAM_NULLPTR",
          _t(P), _t(P), gradInput=NULL),
    _call("logsigmoid_backward_testcase_007_exception_float64_dtype_not_supported", "ACLNN_ERR_PARAM_INVALID",
          _t(P, "DOUBLE"), _t(P)),
    _call("logsigmoid_backward_testcase_008_normal_dtype_not_the_same", "ACLNN_ERR_PARAM_INVALID",
          _t(P), _t(P, "FLOAT16"), gradInput=_t(P, "FLOAT16")),
    _call("logsigmoid_backward_testcase_009_normal_dtype_not_the_same", "ACLNN_ERR_PARAM_INVALID",
          _t(P, "FLOAT16"), _t(P), gradInput=_t(P)),
    *[_call(f"logsigmoid_backward_testcase_010_normal_format[{fmt}]", "ACLNN_SUCCESS", _t(P, fmt=fmt), _t(P, fmt=fmt),
            note="the same format on every tensor")
      for fmt in ("ND", "NC1HWC0", "FRACTAL_NZ")],
    _call("logsigmoid_backward_testcase_011_normal_format", "ACLNN_SUCCESS", _t(P), _t(P, fmt="NCHW"),
          note="self and buffer in NCHW, gradOutput and gradInput in ND"),
    _call("logsigmoid_backward_testcase_012_normal_different_format", "ACLNN_SUCCESS", _t(P), _t(P, fmt="NC1HWC0"),
          note="self and buffer in NC1HWC0, gradOutput and gradInput in ND"),
    _call("logsigmoid_backward_testcase_013_exception_different_shape", "ACLNN_ERR_PARAM_INVALID",
          _t(P), _t([1, 1, 4, 4])),
    _call("logsigmoid_backward_testcase_014_normal_not_contiguous_float", "ACLNN_SUCCESS",
          _t([2, 5], strides=TRANSPOSED, values=(1,) * 10), _t([2, 5], strides=TRANSPOSED, value_range=(-1, 1))),
    _call("logsigmoid_backward_testcase_015_normal_not_contiguous_float16", "ACLNN_SUCCESS",
          _t([2, 5], "FLOAT16", strides=TRANSPOSED, values=(1,) * 10),
          _t([2, 5], "FLOAT16", strides=TRANSPOSED, value_range=(-1, 1))),
    _call("logsigmoid_backward_testcase_016_exception_complex64_dtype_not_supported", "ACLNN_ERR_PARAM_INVALID",
          _t(P, "COMPLEX64"), _t(P, "COMPLEX64")),
    _call("logsigmoid_backward_testcase_017_exception_complex128_dtype_not_supported", "ACLNN_ERR_PARAM_INVALID",
          _t(P, "COMPLEX128"), _t(P, "COMPLEX128")),
    _call("logsigmoid_backward_testcase_018_normal_large_dims", "ACLNN_SUCCESS",
          _t([1, 2, 3, 4, 5, 6, 7, 8, 9], value_range=(1, 1)), _t([1, 2, 3, 4, 5, 6, 7, 8, 9], value_range=(-10, 10)),
          note="9 dimensions: no rank limit in this op's checks"),
    _call("logsigmoid_backward_testcase_019_normal_self_empty_tensor", "ACLNN_ERR_PARAM_INVALID",
          _t([16, 16], value_range=(-1, 1)), _t([0])),
    _call("logsigmoid_backward_testcase_020_exception_gradOutput_empty_tensor", "ACLNN_ERR_PARAM_INVALID",
          _t([0]), _t([16, 16], value_range=(-1, 1))),
    _call("ascend910B2_case_bf16", "ACLNN_SUCCESS",
          _t([2, 5], "BF16", strides=TRANSPOSED, values=(1,) * 10),
          _t([2, 5], "BF16", strides=TRANSPOSED, value_range=(-1, 1))),
    _call("logsigmoid_backward_testcase_021_normal_1d_shape", "ACLNN_SUCCESS",
          _t([256], value_range=(0, 2)), _t([256], value_range=(-5, 5))),
    _call("logsigmoid_backward_testcase_022_normal_7d_shape", "ACLNN_SUCCESS",
          _t([1, 2, 3, 4, 5, 6, 7], "FLOAT16", value_range=(-1, 1)),
          _t([1, 2, 3, 4, 5, 6, 7], "FLOAT16", value_range=(-10, 10))),
    _call("logsigmoid_backward_testcase_023_normal_large_shape", "ACLNN_SUCCESS",
          _t([1024, 1024], value_range=(0, 1)), _t([1024, 1024], value_range=(-5, 5))),
    _call("logsigmoid_backward_testcase_024_normal_value_range", "ACLNN_SUCCESS",
          _t([2, 4, 6, 8], value_range=(-1, 1)), _t([2, 4, 6, 8], value_range=(-100, 100))),
    _call("logsigmoid_backward_testcase_025_normal_scalar", "ACLNN_SUCCESS",
          _t([], value_range=(0, 1)), _t([], value_range=(-1, 1))),
    _call("logsigmoid_backward_testcase_026_exception_negative_dim", "ACLNN_ERR_PARAM_INVALID",
          _t([1, 2, 3, 4, 5, 6, 7, 8, 9], value_range=(1, 1)), _t([-1, -1], value_range=(-10, 10)),
          note="a shape with negative dimensions"),
    _call("logsigmoid_backward_testcase_027_normal_bf16_3d", "ACLNN_SUCCESS",
          _t([32, 64, 128], "BF16", value_range=(0, 2)), _t([32, 64, 128], "BF16", value_range=(-5, 5))),
]
