"""aclnnKlDivTargetBackward: CANN's op_api unit tests as data.

Every case runs on the harness's default SoC (HARNESS_PRODUCT, Atlas A2); the file sets none. A tensor built without
a value range gets the harness's default [-2, 2] (value_range None). No case compares values.

Three shape tests (case_checkshape_*) pair a FLOAT gradTarget with a FLOAT16 target: the op_api's dtype rule
(gradTarget's dtype == target's) runs before the shape rules and already returns 161002, so the shape rule each test
is named after is not what rejects it; the notes say so.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnKlDivTargetBackward"
SOURCE = "loss/kl_div_target_loss_grad/tests/ut/op_api/test_aclnn_kl_div_target_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

NONE, MEAN, SUM, BATCHMEAN = 0, 1, 2, 3
_DTYPE_FIRST = "gradTarget FLOAT vs target FLOAT16 already fails the dtype rule, which runs before the shape rules"


def _kl(name, grad, self, target, grad_target, *, reduction=NONE, log_target=True, expect="ACLNN_SUCCESS",
        note=""):
    return case(name, gradOutput=grad, self=self, target=target, reduction=reduction, logTarget=log_target,
                gradTarget=grad_target, expect=expect, note=note)


def _r(shape, dtype="FLOAT", fmt="ND", rng=(-1, 1)):
    return T(shape, dtype, fmt, value_range=rng)


_NULL_ARGS = dict(gradOutput=_r((10, 3, 5, 24)), self=_r((10, 3, 5, 24)), target=_r((10, 3, 5, 24)),
                  reduction=NONE, logTarget=True, gradTarget=T((10, 3, 5, 24)))
_S4 = (3, 5, 4, 6)

CASES = [
    _kl("case_fp_reduction_none", T((3, 1)), T((3, 5)), _r((3, 5), rng=(0, 4)), T((3, 5)), log_target=False),
    _kl("case_fp_reduction_mean", T((3, 5, 2, 4)), _r((3, 5, 2, 4)), _r((3, 5, 2, 4)), T((3, 5, 2, 4)),
        reduction=MEAN, log_target=False),
    _kl("case_fp_reduction_sum", T((1, 2, 3, 4, 5), "FLOAT16"), _r((1, 2, 3, 4, 5), "FLOAT16"),
        _r((1, 2, 3, 4, 5), "FLOAT16"), T((1, 2, 3, 4, 5), "FLOAT16"), reduction=SUM, log_target=False),
    _kl("case_fp_reduction_batchmean", T(_S4), _r(_S4), _r(_S4), T(_S4), reduction=BATCHMEAN, log_target=False),
    _kl("case_fp_reduction_exceed", T(_S4), _r(_S4), _r(_S4), T(_S4), reduction=6, log_target=False,
        note="reduction 6 is accepted: never validated; treated as no scaling"),
    _kl("case_logtarget_true", T(_S4), _r(_S4), _r(_S4), T(_S4)),
    _kl("ascend910B2_case_fp_logtarget_true", T(_S4, "FLOAT16"), _r(_S4), _r(_S4, "FLOAT16"), T(_S4, "FLOAT16"),
        note="self FLOAT with FLOAT16 gradOutput/target/gradTarget: FLOAT can be cast to gradTarget's FLOAT16"),
    _kl("case_NHWC", _r((3, 1, 2, 5), fmt="NHWC"), _r((3, 1, 2, 5), fmt="NHWC"), _r((3, 1, 2, 5), fmt="NHWC"),
        T((3, 1, 2, 5), "FLOAT", "NHWC")),
    _kl("case_NDHWC", _r((3, 1, 2, 5, 4), fmt="NDHWC"), _r((3, 1, 2, 5, 4), fmt="NDHWC"),
        _r((3, 1, 2, 5, 4), fmt="NDHWC"), T((3, 1, 2, 5, 4), "FLOAT", "NDHWC")),
    _kl("case_empty_tensor", _r((3, 1, 0, 5)), _r((3, 1, 0, 5)), _r((3, 1, 0, 5)), T((3, 1, 0, 5))),
    _kl("case_onedim_tensor", _r((3,)), _r((3,)), _r((3,)), T((3,))),
    _kl("case_threedim_tensor", _r((3, 4, 1)), _r((3, 4, 6)), _r((3, 4, 6)), T((3, 4, 6))),
    _kl("case_fivedim_tensor", _r((3, 4, 6, 2, 3)), _r((3, 4, 6, 2, 3)), _r((3, 4, 6, 2, 3)), T((3, 4, 6, 2, 3))),
    _kl("case_dtype_promte", _r((3, 4, 1, 2, 3), "FLOAT16"), _r((3, 4, 1, 2, 3)), _r((3, 4, 1, 2, 3), "FLOAT16"),
        T((3, 4, 1, 2, 3), "FLOAT16")),
    _kl("case_checkshape_self_noequal_broadshape", _r((3, 4, 1, 3), "FLOAT16"), _r((3, 4, 6, 1)),
        _r((3, 4, 6, 1), "FLOAT16"), T((3, 4, 6, 1)), expect="ACLNN_ERR_PARAM_INVALID",
        note="meant: gradOutput (3,4,1,3) does not broadcast into (3,4,6,1); " + _DTYPE_FIRST),
    _kl("case_checkshape_target_not_broadcast", _r((3, 4, 1, 1), "FLOAT16"), _r((3, 4, 6, 3)),
        _r((3, 4, 6, 4), "FLOAT16"), T((3, 4, 6, 3)), expect="ACLNN_ERR_PARAM_INVALID",
        note="meant: self (3,4,6,3) and target (3,4,6,4) do not broadcast; " + _DTYPE_FIRST),
    _kl("case_checkshape_out_not_equal_self", _r((3, 4, 1, 1), "FLOAT16"), _r((3, 4, 6, 3)),
        _r((3, 4, 6, 1), "FLOAT16"), T((3, 4, 6, 5)), expect="ACLNN_ERR_PARAM_INVALID",
        note="meant: gradTarget (3,4,6,5) differs from target (3,4,6,1); " + _DTYPE_FIRST),
    _kl("case_checkdtype", _r((3, 4, 1, 1), "INT32"), _r((3, 4, 6, 3)), _r((3, 4, 6, 1), "FLOAT16"),
        T((3, 4, 6, 3)), expect="ACLNN_ERR_PARAM_INVALID", note="gradOutput INT32"),
    _kl("case_nine_dims", _r((10, 24, 3, 5, 10, 22, 42, 30, 24)), _r((3, 1, 0, 5)), _r((3, 1, 0, 5)),
        T((3, 1, 0, 5)), expect="ACLNN_ERR_PARAM_INVALID",
        note="gradOutput has 9 dims; checked before the empty-self return"),
    case("case_checknull_1", **{**_NULL_ARGS, "gradOutput": NULL}, expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_checknull_2", **{**_NULL_ARGS, "self": NULL}, expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_checknull_3", **{**_NULL_ARGS, "target": NULL}, expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_checknull_4", **{**_NULL_ARGS, "gradTarget": NULL}, expect="ACLNN_ERR_PARAM_NULLPTR"),
    _kl("case_broadcast_1", T((3, 1)), T((3, 5)), _r((3, 1), rng=(0, 4)), T((3, 1)), log_target=False,
        note="target smaller than self: the gradient is summed back to target's shape (3,1)"),
    _kl("case_broadcast_2", T((3, 1)), T((3, 5)), _r((3, 5), rng=(0, 4)), T((3, 5)), log_target=False),
    _kl("case_broadcast_3", T((3, 1, 1)), T((6, 3, 1, 7)), _r((3, 5, 1), rng=(0, 4)), T((3, 5, 1)),
        log_target=False, note="broadcast(self, target) = (6,3,5,7); gradTarget keeps target's (3,5,1)"),
]
