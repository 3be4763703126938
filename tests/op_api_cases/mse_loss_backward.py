"""aclnnMseLossBackward: CANN's op_api unit tests as data.

The source lives under tests/ut/op_host/ (not tests/ut/op_api/); the build collects op_api tests from both
(cmake/func.cmake, add_all_ut_sources). Every case runs on the harness's default SoC (HARNESS_PRODUCT, Atlas A2);
the file sets none ("ascend910B2_" is only a name). Tensors built without a value range get the harness's default
[-2, 2]. No case compares values. The file has no tests numbered 08-10.

Tests 11 and 12 call the first phase but assert nothing (an assertion of ACLNN_ERR_INNER_NULLPTR is commented out in
each). Their arguments pass every op_api check, so they are kept as success cases marked "unasserted" in the note:
what CANN returns after the checks depends on its kernel launch, which is outside what these cases describe.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnMseLossBackward"
SOURCE = "loss/mse_loss_grad_v2/tests/ut/op_host/test_aclnn_mse_loss_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

NONE, MEAN, SUM = 0, 1, 2
P = "aclnnMseLossBackward_"
_UNASSERTED = ("unasserted: the test checks no status (a commented-out line expected ACLNN_ERR_INNER_NULLPTR); "
               "every op_api argument check passes")


def _mse(name, grad, self, target, out, reduction, expect="ACLNN_SUCCESS", note="", prefix=P):
    return case(prefix + name, gradOutput=grad, self=self, target=target, reduction=reduction, out=out,
                expect=expect, note=note)


def _r(shape, dtype="FLOAT", fmt="ND", rng=(-2, 2), **view):
    return T(shape, dtype, fmt, value_range=rng, **view)


_VIEW = dict(strides=(1, 5), storage_shape=(4, 5))
_ANY = T((10, 5), "FLOAT", "ND")
_D9 = (2, 3, 4, 5, 6, 7, 8, 9, 10)
_I16 = _r((7, 8, 9, 10), "INT16")

CASES = [
    _mse("01_float_nd_none", _r((2, 2, 3, 2), rng=(-1, 1)), _r((1, 2, 3, 2), rng=(-1, 1)),
         _r((2, 2, 1, 2), rng=(-1, 1)), T((2, 2, 3, 2)), NONE, note="out takes the three-way broadcast shape"),
    _mse("02_float16_nchw_mean", _r((1, 3, 2), "FLOAT16", rng=(-1, 1)),
         _r((2, 3, 2), "FLOAT16", "NCHW", rng=(-1, 1)), _r((3, 2), "FLOAT16", "NCHW", rng=(-1, 1)),
         T((2, 3, 2), "FLOAT16", "NCHW"), MEAN),
    _mse("03_float_float16_nhwc_sum", _r((2, 2), rng=(-1, 1)), _r((2, 2), "FLOAT", "NHWC", rng=(-1, 1)),
         _r((2, 2), "FLOAT", "NHWC", rng=(-1, 1)), T((2, 2), "FLOAT16", "NHWC"), SUM,
         note="out FLOAT16 with FLOAT inputs: out only has to be in the support list"),
    _mse("04_float16_float_nhwc_mean", _r((2, 2), "FLOAT16", rng=(-1, 1)), _r((2, 2), "FLOAT16", "NDHWC", rng=(-1, 1)),
         _r((2, 2), "FLOAT16", "NDHWC", rng=(-1, 1)), T((2, 2), "FLOAT", "NDHWC"), MEAN),
    _mse("05_float_nd_empty_tensor_none", T((1, 0, 1, 2)), T((1, 1, 0, 2)), T((1, 0, 1, 2)), T((1, 0, 0, 2)), NONE,
         note="broadcast shape (1,0,0,2): empty, workspace 0"),
    _mse("06_float_nd_empty_tensor_mean", T((1, 0, 1, 2)), T((1, 1, 0, 2)), T((1, 0, 1, 2)), T((1, 0, 0, 2)), MEAN),
    _mse("07_float_nd_empty_tensor_sum", T((1, 0, 1, 2)), T((1, 1, 0, 2)), T((1, 0, 1, 2)), T((1, 0, 0, 2)), SUM),
    _mse("11_float_hwcn_input_not_contiguous", _r((5, 4), fmt="HWCN", **_VIEW), _r((5, 4), fmt="HWCN", **_VIEW),
         _r((5, 4), fmt="HWCN", **_VIEW), T((5, 4), "FLOAT", "HWCN"), NONE, note=_UNASSERTED),
    _mse("12_float_ncdhw_out_not_contiguous", _r((5, 4), fmt="NCDHW"), _r((5, 4), fmt="NCDHW"),
         _r((5, 4), fmt="NCDHW", **_VIEW), T((5, 4), "FLOAT", "NCDHW", **_VIEW), NONE, note=_UNASSERTED),
    _mse("13_reduction_error", _r((8,)), _r((8,)), _r((8,)), T((8,)), 3, "ACLNN_ERR_PARAM_INVALID"),
    _mse("14_input_out_nullptr_1", NULL, _ANY, _ANY, _ANY, NONE, "ACLNN_ERR_PARAM_NULLPTR"),
    _mse("14_input_out_nullptr_2", _ANY, NULL, _ANY, _ANY, NONE, "ACLNN_ERR_PARAM_NULLPTR"),
    _mse("14_input_out_nullptr_3", _ANY, _ANY, NULL, _ANY, NONE, "ACLNN_ERR_PARAM_NULLPTR"),
    _mse("14_input_out_nullptr_4", _ANY, _ANY, _ANY, NULL, NONE, "ACLNN_ERR_PARAM_NULLPTR"),
    _mse("15_aclnnMseLossBackward_input_error_shape", _r((123, 11, 2)), _r((123, 11, 2)), _r((123, 8, 2)),
         T((123, 11, 2)), NONE, "ACLNN_ERR_PARAM_INVALID", note="target (123,8,2) does not broadcast"),
    _mse("16_aclnnMseLossBackward_error_output_dtype", _r((6, 2, 1, 2)), _r((6, 2, 1, 2)), _r((6, 2, 1, 2)),
         T((6, 2, 1, 2), "INT32"), NONE, "ACLNN_ERR_PARAM_INVALID", note="out INT32 is not in the support list"),
    _mse("17_aclnnMseLossBackward_error_input_dtype", _r((6, 2, 1, 2), "INT32"), _r((6, 2, 1, 2), "INT32"),
         _r((6, 2, 1, 2), "INT32"), T((6, 2, 1, 2)), NONE, "ACLNN_ERR_PARAM_INVALID",
         note="equal dtypes, but self INT32 is not in the support list"),
    _mse("18_aclnnMseLossBackward_diff_input_dtype_1", _r((6, 2, 1, 2), "INT32"), _r((6, 2, 1, 2)),
         _r((6, 2, 1, 2)), T((6, 2, 1, 2)), NONE, "ACLNN_ERR_PARAM_INVALID",
         note="gradOutput INT32, self FLOAT: the dtypes must be equal"),
    _mse("18_aclnnMseLossBackward_diff_input_dtype_2", _r((6, 2, 1, 2)), _r((6, 2, 1, 2)),
         _r((6, 2, 1, 2), "INT32"), T((6, 2, 1, 2)), NONE, "ACLNN_ERR_PARAM_INVALID",
         note="target INT32, self FLOAT"),
    _mse("19_aclnnMseLossBackward_input_error_shape_len_1", _r(_D9, "INT32"), _I16, _I16, _I16, NONE,
         "ACLNN_ERR_PARAM_INVALID",
         note="meant: gradOutput has 9 dims; the dtype-equality rule runs first and rejects it (INT32 vs INT16)"),
    _mse("19_aclnnMseLossBackward_input_error_shape_len_2", _I16, _r(_D9, "INT32"), _I16, _I16, NONE,
         "ACLNN_ERR_PARAM_INVALID", note="meant: self has 9 dims; rejected by the dtype rules first"),
    _mse("19_aclnnMseLossBackward_input_error_shape_len_3", _I16, _I16, _r(_D9, "INT32"), _I16, NONE,
         "ACLNN_ERR_PARAM_INVALID", note="meant: target has 9 dims; rejected by the dtype rules first"),
    _mse("20_float_hwcn_ndhwc_mean", _r((2, 2), rng=(-1, 1)), _r((2, 2), "FLOAT", "HWCN", rng=(-1, 1)),
         _r((2, 2), "FLOAT", "NDHWC", rng=(-1, 1)), T((2, 2)), MEAN, note="mixed formats are not checked"),
    _mse("21_aclnnMseLossBackward_output_error_shape_none", _r((123, 11, 2)), _r((123, 1, 2)), _r((123, 11, 1)),
         T((123, 8, 2)), NONE, "ACLNN_ERR_PARAM_INVALID", note="out (123,8,2) is not the broadcast (123,11,2)"),
    _mse("22_aclnnMseLossBackward_input_error_shape", _r((123, 11, 2)), _r((123, 8, 2)), _r((123, 11, 2)),
         T((123, 11, 2)), NONE, "ACLNN_ERR_PARAM_INVALID", note="gradOutput (123,11,2) and self (123,8,2)"),
    _mse("ascend910B2_aclnnMseLossBackward_02_bfloat16_nchw_mean", _r((1, 3, 2), "BF16", rng=(-1, 1)),
         _r((2, 3, 2), "BF16", "NCHW", rng=(-1, 1)), _r((3, 2), "BF16", "NCHW", rng=(-1, 1)),
         T((2, 3, 2), "BF16", "NCHW"), MEAN, prefix="",
         note="BF16 on the default SoC (A2): accepted"),
]
