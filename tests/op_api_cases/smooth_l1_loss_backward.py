"""aclnnSmoothL1LossBackward: CANN's op_api unit tests as data.

Every case runs on the harness's default SoC (HARNESS_PRODUCT, Atlas A2): the file sets none, so the tests named
"ascend950_..." and "ascend910B2_..." run on A2 too. A test that loops is one case per iteration (_1, _2, ...).
Tensors built without a value range get the harness's default [-2, 2]. `beta` is a C float in the API. No case
compares values (case_normal hands in values but only the status is asserted). experimental/loss/
smooth_l1_loss_grad_v2/ holds an identical copy of these tests.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnSmoothL1LossBackward"
SOURCE = "loss/smooth_l1_loss_grad_v2/tests/ut/op_api/test_aclnn_smooth_l1_loss_backward_l2.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

NONE, MEAN, SUM = 0, 1, 2


def _s(name, grad, self, target, out, *, reduction=NONE, beta=1.0, expect="ACLNN_SUCCESS", note=""):
    return case(name, gradOut=grad, self=self, target=target, reduction=reduction, beta=beta, gradInput=out,
                expect=expect, note=note)


def _r(shape, dtype="FLOAT", fmt="ND", rng=(-2, 2), **view):
    return T(shape, dtype, fmt, value_range=rng, **view)


def _over_reductions(name, grad, self, target, out, note=""):
    """A test looping i = 0..3 over reduction: 0, 1, 2 succeed and 3 is rejected."""
    return [_s(f"{name}_{i + 1}", grad, self, target, out, reduction=i,
               expect="ACLNN_SUCCESS" if i < 3 else "ACLNN_ERR_PARAM_INVALID", note=note) for i in range(4)]


_E = _r((1, 0, 4, 1))                                     # the empty tensor of several tests
_F4 = _r((1, 4, 4, 1))
_DT = ("FLOAT", "FLOAT", "FLOAT", "DOUBLE")              # case_dtype_invalid rotates this list
_VIEW = dict(strides=(1, 5), storage_shape=(4, 5))
_FORMATS = ("NCHW", "NHWC", "ND", "HWCN", "NDHWC", "NCDHW", "NCL")

CASES = [
    _s("case_normal", T((1,), values=(0.1,)), T((1,), values=(0.32,)), T((1,), values=(1.0,)),
       T((1,), values=(0.1,)), note="values given but only the status is asserted"),
    _s("case_nullptr_1", NULL, _E, _E, _E, expect="ACLNN_ERR_PARAM_NULLPTR"),
    _s("case_nullptr_2", _E, NULL, _E, _E, expect="ACLNN_ERR_PARAM_NULLPTR"),
    _s("case_nullptr_3", _E, _E, NULL, _E, expect="ACLNN_ERR_PARAM_NULLPTR"),
    _s("case_nullptr_4", _E, _E, _E, NULL, expect="ACLNN_ERR_PARAM_NULLPTR"),
    _s("case_empty_tensor", _E, _E, _E, _E),
    _s("case_dtype_float", _F4, _F4, _F4, _F4),
    _s("case_dtype_float16", _r((1, 4, 4, 1), "FLOAT16"), _r((1, 4, 4, 1), "FLOAT16"), _r((1, 4, 4, 1), "FLOAT16"),
       _r((1, 4, 4, 1), "FLOAT16")),
    _s("case_dtype_promote", _r((1, 4, 4, 1), "FLOAT16"), _F4, _r((1, 4, 4, 1), "FLOAT16"),
       _r((1, 4, 4, 1), "FLOAT16"), note="promoted FLOAT result cast to a FLOAT16 gradInput"),
    *[_s(f"case_dtype_invalid_{i + 1}", _r((1, 4, 4, 1), _DT[i % 4]), _r((1, 4, 4, 1), _DT[(i + 1) % 4]),
         _r((1, 4, 4, 1), _DT[(i + 2) % 4]), T((1, 4, 4, 1), _DT[(i + 3) % 4]), expect="ACLNN_ERR_PARAM_INVALID",
         note="one of the four tensors is DOUBLE, which is not supported")
      for i in range(4)],
    _s("case_dim", _r((1, 1, 4, 1, 1, 1, 1, 1, 1)), _r((1, 1, 4, 1, 1, 1, 1, 1, 1)), _r((1, 1, 4, 1, 1, 1, 1, 1, 1)),
       _r((1, 1, 4, 1, 1, 1, 1, 1, 1)), expect="ACLNN_ERR_PARAM_INVALID", note="9 dimensions"),
    *_over_reductions("case_reduction", _r((1, 1, 4, 1)), _r((1, 1, 4, 1)), _r((1, 1, 4, 1)), _r((1, 1, 4, 1))),
    _s("case_broadcast_succ_1", T((1, 0, 4, 1)), T((4, 1)), T((1, 4, 2)), T((1, 0, 4, 2)),
       note="broadcast (1,0,4,2): empty result"),
    _s("case_broadcast_succ_2", T((1, 2, 4, 1)), T((4, 1)), T((1, 4, 2)), T((1, 2, 4, 2))),
    _s("case_broadcast_fail_1", T((1, 1, 4, 1)), T((3, 3)), T((1, 4, 2)), T((1, 1, 4, 2)),
       expect="ACLNN_ERR_PARAM_INVALID", note="gradOut (1,1,4,1) and self (3,3) do not broadcast"),
    _s("case_broadcast_fail_2", T((1, 1, 4, 1)), T((4, 3)), T((1, 4, 2)), T((1, 1, 4, 3)),
       expect="ACLNN_ERR_PARAM_INVALID", note="(1,1,4,3) and target (1,4,2) do not broadcast"),
    _s("case_beta", T((1, 1, 4, 1)), T((4, 2)), T((1, 4, 2)), T((1, 1, 4, 2)), beta=-1.0,
       expect="ACLNN_ERR_PARAM_INVALID", note="beta < 0"),
    _s("case_not_contiguous", _r((5, 4), rng=(1, 10), **_VIEW), _r((5, 4), rng=(1, 10), **_VIEW),
       _r((5, 4), rng=(1, 10), **_VIEW), _r((5, 4), rng=(1, 10), **_VIEW)),
    *[_s(f"case_format_{i + 1}", T((1, 1, 4, 4), "FLOAT", f), T((1, 1, 4, 4), "FLOAT", f), T((1, 1, 4, 4), "FLOAT", f),
         T((1, 1, 4, 4), "FLOAT", f), note=f"all four tensors {f}") for i, f in enumerate(_FORMATS)],
    _s("ascend910B2_case_dtype_bfloat16", _r((1, 4, 4, 1), "BF16"), _r((1, 4, 4, 1), "BF16"),
       _r((1, 4, 4, 1), "BF16"), _r((1, 4, 4, 1), "BF16")),
    _s("ascend950_case_empty_tensor", _E, _E, _E, _E),
    *_over_reductions("ascend950_case_reduction_dtype_float32", _r((1, 1, 4, 1)), _r((1, 1, 4, 1)),
                      _r((1, 1, 4, 1)), _r((1, 1, 4, 1))),
    *_over_reductions("ascend950_case_reduction_dtype_float16", _r((1, 1, 4, 1), "FLOAT16"),
                      _r((1, 1, 4, 1), "FLOAT16"), _r((1, 1, 4, 1), "FLOAT16"), _r((1, 1, 4, 1), "FLOAT16")),
    *_over_reductions("ascend950_case_reduction_dtype_bfloat16", _r((1, 1, 4, 1), "BF16"), _r((1, 1, 4, 1), "BF16"),
                      _r((1, 1, 4, 1), "BF16"), _r((1, 1, 4, 1), "BF16")),
    *_over_reductions("ascend950_case_scalar_reduction_dtype_float32", _r((1, 0, 4, 1)), _r((4, 1)),
                      _r((1, 4, 2)), T((1, 0, 4, 2)),
                      note="empty broadcast (1,0,4,2); reduction 3 is rejected before the empty return"),
    *_over_reductions("ascend950_case_scalar_reduction_dtype_float16", _r((1, 0, 4, 1), "FLOAT16"),
                      _r((4, 1), "FLOAT16"), _r((1, 4, 2), "FLOAT16"), T((1, 0, 4, 2), "FLOAT16")),
    *_over_reductions("ascend950_case_scalar_reduction_dtype_bfloat16", _r((1, 0, 4, 1), "BF16"),
                      _r((4, 1), "BF16"), _r((1, 4, 2), "BF16"), T((1, 0, 4, 2), "BF16")),
]
