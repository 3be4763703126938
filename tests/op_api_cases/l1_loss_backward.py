"""aclnnL1LossBackward: CANN's op_api unit tests as data.

Every case runs on the harness's default SoC (HARNESS_PRODUCT, Atlas A2); the file sets none (the "ascend950_" prefix
of the last test is only a name). Tensors built without a value range get the harness's default [-2, 2]. No case
compares values. The file has no test numbered 17. experimental/loss/l1_loss_grad/ has its own copy of these tests.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnL1LossBackward"
SOURCE = "loss/l1_loss_grad/tests/ut/op_api/test_aclnn_l1_loss_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

NONE, MEAN, SUM = 0, 1, 2
P = "aclnnL1LossBackward_"       # every test name starts with the API name


def _l1(name, grad, self, target, out, reduction, expect="ACLNN_SUCCESS", note=""):
    return case(P + name, gradOutput=grad, self=self, target=target, reduction=reduction, gradInput=out,
                expect=expect, note=note)


def _r(shape, dtype="FLOAT", fmt="ND", rng=(-2, 2), **view):
    return T(shape, dtype, fmt, value_range=rng, **view)


_VIEW = dict(strides=(1, 5), storage_shape=(4, 5))        # (5, 4) views of (4, 5) buffers
_ANY = T((10, 5), "FLOAT", "ND")
_D9 = (2, 3, 4, 5, 6, 7, 8, 9, 10)

CASES = [
    _l1("01_float_nd_none", _r((2, 2, 3, 2), rng=(-1, 1)), _r((1, 2, 3, 2), rng=(-1, 1)),
        _r((2, 2, 1, 2), rng=(-1, 1)), T((2, 2, 3, 2)), NONE,
        note="three-way broadcast; gradInput has the broadcast shape, larger than self"),
    _l1("02_float16_nchw_mean", _r((1, 3, 2), "FLOAT16", rng=(-1, 1)), _r((2, 3, 2), "FLOAT16", "NCHW", rng=(-1, 1)),
        _r((3, 2), "FLOAT16", "NCHW", rng=(-1, 1)), T((2, 3, 2), "FLOAT16", "NCHW"), MEAN),
    _l1("03_float_float16_ND_sum", _r((2, 2), rng=(-1, 1)), _r((2, 2), rng=(-1, 1)), _r((2, 2), rng=(-1, 1)),
        T((2, 2), "FLOAT16"), SUM, note="FLOAT inputs, FLOAT16 gradInput: the result is cast"),
    _l1("04_float16_float_ND_mean", _r((2, 2), "FLOAT16", rng=(-1, 1)), _r((2, 2), "FLOAT16", rng=(-1, 1)),
        _r((2, 2), "FLOAT16", rng=(-1, 1)), T((2, 2), "FLOAT"), MEAN),
    _l1("05_float_nd_empty_tensor_none", T((1, 0, 1, 2)), T((1, 1, 0, 2)), T((1, 0, 1, 2)), T((1, 0, 0, 2)), NONE,
        note="the broadcast of (1,0,1,2), (1,1,0,2), (1,0,1,2) is (1,0,0,2): empty, workspace 0"),
    _l1("06_float_nd_empty_tensor_mean", T((1, 0, 1, 2)), T((1, 1, 0, 2)), T((1, 0, 1, 2)), T((1, 0, 0, 2)), MEAN),
    _l1("07_float_nd_empty_tensor_sum", T((1, 0, 1, 2)), T((1, 1, 0, 2)), T((1, 0, 1, 2)), T((1, 0, 0, 2)), SUM),
    _l1("08_float_nd_out_shape_sum", T((1, 1, 1, 2)), T((1, 1, 1, 2)), T((1, 1, 1, 2)), T((1, 0, 0, 2)), SUM,
        "ACLNN_ERR_PARAM_INVALID", note="gradInput (1,0,0,2) is not the broadcast shape (1,1,1,2)"),
    _l1("09_float_ND_input_not_contiguous", _r((5, 4), **_VIEW), _r((5, 4), **_VIEW), _r((5, 4), **_VIEW),
        T((5, 4)), NONE),
    _l1("10_float_ND_out_not_contiguous", _r((5, 4)), _r((5, 4)), _r((5, 4)), T((5, 4), **_VIEW), NONE),
    _l1("11_float_ND_in_out_not_contiguous", _r((5, 4)), _r((5, 4)), _r((5, 4), **_VIEW), T((5, 4), **_VIEW), NONE),
    _l1("12_reduction_error", _r((8,)), _r((8,)), _r((8,)), T((8,)), 3, "ACLNN_ERR_PARAM_INVALID",
        note="reduction 3; checked right after the null checks"),
    _l1("13_input_out_nullptr_1", NULL, _ANY, _ANY, _ANY, NONE, "ACLNN_ERR_PARAM_NULLPTR"),
    _l1("13_input_out_nullptr_2", _ANY, NULL, _ANY, _ANY, NONE, "ACLNN_ERR_PARAM_NULLPTR"),
    _l1("13_input_out_nullptr_3", _ANY, _ANY, NULL, _ANY, NONE, "ACLNN_ERR_PARAM_NULLPTR"),
    _l1("13_input_out_nullptr_4", _ANY, _ANY, _ANY, NULL, NONE, "ACLNN_ERR_PARAM_NULLPTR"),
    _l1("14_aclnnL1LossBackward_input_error_shape", _r((123, 11, 2)), _r((123, 11, 2)), _r((123, 8, 2)),
        T((123, 11, 2)), NONE, "ACLNN_ERR_PARAM_INVALID", note="target (123,8,2) does not broadcast with (123,11,2)"),
    _l1("15_aclnnL1LossBackward_error_output_dtype", _r((6, 2, 1, 2)), _r((6, 2, 1, 2)), _r((6, 2, 1, 2)),
        T((6, 2, 1, 2), "INT32"), NONE, "ACLNN_ERR_PARAM_INVALID",
        note="the promoted FLOAT cannot be cast to an INT32 gradInput"),
    _l1("16_aclnnL1LossBackward_error_input_dtype", _r((6, 2, 1, 2), "INT32"), _r((6, 2, 1, 2), "INT32"),
        _r((6, 2, 1, 2), "INT32"), T((6, 2, 1, 2), "FLOAT"), NONE, "ACLNN_ERR_PARAM_INVALID",
        note="the promoted dtype INT32 is not in the support list (only the promoted dtype is checked)"),
    _l1("18_aclnnL1LossBackward_input_error_shape_len_1", _r(_D9, "INT32"), _r((7, 8, 9, 10), "INT16"),
        _r((7, 8, 9, 10), "INT16"), _r((7, 8, 9, 10), "INT16"), NONE, "ACLNN_ERR_PARAM_INVALID",
        note="meant: gradOutput has 9 dims; the dtype rules (integer inputs) run before the rank rule and reject it"),
    _l1("18_aclnnL1LossBackward_input_error_shape_len_2", _r((7, 8, 9, 10), "INT16"), _r(_D9, "INT32"),
        _r((7, 8, 9, 10), "INT16"), _r((7, 8, 9, 10), "INT16"), NONE, "ACLNN_ERR_PARAM_INVALID",
        note="meant: self has 9 dims; rejected by the dtype rule first"),
    _l1("18_aclnnL1LossBackward_input_error_shape_len_3", _r((7, 8, 9, 10), "INT16"), _r((7, 8, 9, 10), "INT16"),
        _r(_D9, "INT32"), _r((7, 8, 9, 10), "INT16"), NONE, "ACLNN_ERR_PARAM_INVALID",
        note="meant: target has 9 dims; rejected by the dtype rule first"),
    _l1("19_float_ND_ND_mean", _r((2, 2), rng=(-1, 1)), _r((2, 2), rng=(-1, 1)), _r((2, 2), rng=(-1, 1)),
        T((2, 2)), MEAN),
    _l1("20_aclnnL1LossBackward_output_error_shape_none", _r((123, 11, 2)), _r((123, 1, 2)), _r((123, 11, 1)),
        T((123, 8, 2)), NONE, "ACLNN_ERR_PARAM_INVALID", note="gradInput (123,8,2) is not the broadcast (123,11,2)"),
    _l1("21_aclnnL1LossBackward_input_error_shape", _r((123, 11, 2)), _r((123, 8, 2)), _r((123, 11, 2)),
        T((123, 11, 2)), NONE, "ACLNN_ERR_PARAM_INVALID", note="self (123,8,2) and gradOutput (123,11,2)"),
    _l1("22_aclnnL1LossBackward_input_error_shape_len_1", _r(_D9), _r((7, 8, 9, 10)), _r((7, 8, 9, 10)),
        _r((7, 8, 9, 10)), NONE, "ACLNN_ERR_PARAM_INVALID", note="gradOutput has 9 dims"),
    _l1("22_aclnnL1LossBackward_input_error_shape_len_2", _r((7, 8, 9, 10)), _r(_D9), _r((7, 8, 9, 10)),
        _r((7, 8, 9, 10)), NONE, "ACLNN_ERR_PARAM_INVALID", note="self has 9 dims"),
    _l1("22_aclnnL1LossBackward_input_error_shape_len_3", _r((7, 8, 9, 10)), _r((7, 8, 9, 10)), _r(_D9),
        _r((7, 8, 9, 10)), NONE, "ACLNN_ERR_PARAM_INVALID", note="target has 9 dims"),
    case("ascend950_aclnnL1LossBackward_input_scalar_grads", gradOutput=_r((), rng=(-1, 1)),
         self=_r((2, 2), rng=(-1, 1)), target=_r((2, 2), rng=(-1, 1)), reduction=MEAN, gradInput=T((2, 2)),
         expect="ACLNN_SUCCESS", note="0-d gradOutput (the usual shape for mean); the name's SoC is not set"),
]
