"""aclnnSoftMarginLossBackward: CANN's op_api unit tests as data.

The source lives under tests/ut/op_host/op_api/ (a sibling test_aclnn_soft_margin_loss_backward_l0.cpp holds only a
licence header). Every case runs on the harness's default SoC (HARNESS_PRODUCT, Atlas A2); the file sets none
("ascend910B2_" is only a name). No case compares values. No test passes an out-of-range reduction: the op_api never
validates it (it indexes its reduction-name table with it), so CANN has no defined status for that input.
experimental/loss/soft_margin_loss_grad/ holds the same tests.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnSoftMarginLossBackward"
SOURCE = "loss/soft_margin_loss_grad/tests/ut/op_host/op_api/test_aclnn_soft_margin_loss_backward_l2.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

NONE, MEAN, SUM = 0, 1, 2
P = "soft_margin_loss_"


def _sm(name, grad, self, target, out, reduction=NONE, expect="ACLNN_SUCCESS", note=""):
    return case(P + name, gradOutput=grad, self=self, target=target, reduction=reduction, out=out, expect=expect,
                note=note)


def _x(dtype="FLOAT", shape=(2, 2)):
    return T(shape, dtype, "ND", value_range=(0, 1))


def _y(dtype="FLOAT"):
    return T((2, 2), dtype, "ND", values=(-1.0, 1.0, 1.0, -1.0))


_D9 = (2, 2, 3, 2, 2, 3, 2, 2, 3)

CASES = [
    _sm("backward_grad_output_nullptr", NULL, _x(), _y(), T((2, 2)), expect="ACLNN_ERR_PARAM_NULLPTR"),
    _sm("backward_self_nullptr", _x(), NULL, _y(), T((2, 2)), expect="ACLNN_ERR_PARAM_NULLPTR"),
    _sm("backward_target_nullptr", _x(), _x(), NULL, T((2, 2)), expect="ACLNN_ERR_PARAM_NULLPTR"),
    _sm("backward_out_nullptr", _x(), _x(), _y(), NULL, expect="ACLNN_ERR_PARAM_NULLPTR"),
    _sm("empty_tensor", _x(shape=(2, 0)), _x(shape=(2, 0)), T((2, 0), "FLOAT", "ND"), T((2, 0)),
        note="empty self: workspace 0 (the test hands the empty target four values; they are not used)"),
    _sm("backward_float32", _x(), _x(), _y(), T((2, 2))),
    _sm("backward_double", _x("DOUBLE"), _x("DOUBLE"), _y("DOUBLE"), T((2, 2), "DOUBLE"),
        expect="ACLNN_ERR_PARAM_INVALID", note="DOUBLE is not supported"),
    _sm("backward_reduction_mean", _x(), _x(), _y(), T((2, 2)), MEAN),
    _sm("backward_reduction_sum", _x(), _x(), _y(), T((2, 2)), SUM),
    _sm("shape_9d", _x(shape=_D9), _x(shape=_D9), T(_D9, "FLOAT", "ND"), T(_D9), expect="ACLNN_ERR_PARAM_INVALID",
        note="9 dimensions (the test hands target 4 values for its 1728 elements; not used by the checks)"),
    _sm("backward_diff_target_shape", _x(), _x(), T((2, 1), "FLOAT", "ND", values=(-1.0, 1.0)), T((2, 2)), SUM,
        note="target (2,1) broadcasts into (2,2)"),
    _sm("backward_float16_float32", _x(), _x("FLOAT16"), _y(), T((2, 2), "FLOAT16"),
        note="mixed FLOAT/FLOAT16 inputs are promoted; out FLOAT16 only has to be a supported dtype"),
    case("ascend910B2_soft_margin_loss_backward_bfloat16", gradOutput=_x("BF16"), self=_x("BF16"),
         target=_y("BF16"), reduction=NONE, out=T((2, 2), "BF16"), expect="ACLNN_SUCCESS"),
]
