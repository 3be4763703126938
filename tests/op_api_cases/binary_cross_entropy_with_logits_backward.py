"""aclnnBinaryCrossEntropyWithLogitsBackward: the op_api unit-test cases of CANN's operator library, as data
(format: __init__.py).

The file lives under op_host/ in CANN's tree (experimental/loss/sigmoid_cross_entropy_with_logits_grad_v2 holds
the same cases).  Every case runs on the file's default product, ascend910b (the op_api test stub's SoC;
`case_bf16_reduce_valid` expects success there).  Tests that loop over the reductions (0 none, 1 mean, 2 sum) give
one case each; `case_unsupport_dtype` and `case_null` make four calls each.
"""
from . import NULL, T, case

OP = "aclnnBinaryCrossEntropyWithLogitsBackward"
SOURCE = "loss/sigmoid_cross_entropy_with_logits_grad_v2/tests/ut/op_host/test_aclnn_binary_cross_entropy_with_logits_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

S5 = [1, 2, 3, 4, 5]
NONE, MEAN, SUM = 0, 1, 2


def _call(name, expect, gradOutput, self, target, weightOptional, posWeightOptional, reduction, out, note=""):
    return case(name, gradOutput=gradOutput, self=self, target=target, weightOptional=weightOptional,
                posWeightOptional=posWeightOptional, reduction=reduction, out=out, expect=expect, note=note)


def _t(shape, dtype="FLOAT", fmt="ND", **kw):
    return T(shape, dtype, fmt, **kw)


def _reductions(name, dtypes, weight=True, pos_weight=True, shape=S5, strides=None, out_strides=None):
    """The cases of a test looping over the three reductions; `dtypes` are those of gradOutput, self, target,
    weight, posWeight and out."""
    g, s, t, w, pw, o = dtypes
    n = 1
    for d in shape:
        n *= d
    return [_call(f"{name}[reduction={r}]", "ACLNN_SUCCESS",
                  _t(shape, g, strides=strides, value_range=(0, 1)), _t(shape, s, strides=strides, value_range=(0, 1)),
                  _t(shape, t, strides=strides, values=(1.0,) * n),
                  _t(shape, w, strides=strides, values=(2.0,) * n) if weight else NULL,
                  _t(shape, pw, strides=strides, values=(2.0,) * n) if pos_weight else NULL,
                  r, _t(shape, o, strides=out_strides))
            for r in (NONE, MEAN, SUM)]


H, F, B = "FLOAT16", "FLOAT", "BF16"
CASES = [
    *_reductions("case_f16_reduce_valid", (H, H, H, H, H, H)),
    *_reductions("case_f32_reduce_valid", (F, F, F, F, H, F)),
    *_reductions("case_f16_reduce_valid_no_weight", (H, H, H, None, H, H), weight=False),
    *_reductions("case_f32_reduce_none_no_weight", (F, F, F, None, F, F), weight=False),
    *_reductions("case_f16_reduce_valid_no_posWeight", (H, H, H, H, None, H), pos_weight=False),
    *_reductions("case_f32_reduce_valid_no_posWeight", (F, F, F, F, None, F), pos_weight=False),
    *_reductions("case_contiguous", (F,) * 6, shape=[5, 4], strides=[1, 5]),
    _call("case_empty", "ACLNN_SUCCESS", _t([2, 0]), _t([2, 0]), _t([2, 0]), _t([2, 0]), _t([2, 0]), NONE,
          _t([2, 0])),
    _call("case_dtype_promotion", "ACLNN_SUCCESS", _t(S5, H, value_range=(0, 1)), _t(S5, H, value_range=(0, 1)),
          _t(S5, F, values=(1.0,) * 120), _t(S5, H, values=(2.0,) * 120), _t(S5, H, values=(2.0,) * 120), NONE,
          _t(S5, F), note="FLOAT16 inputs, FLOAT target and out"),
    _call("case_self_float32_type_promotion", "ACLNN_SUCCESS", _t(S5, H, value_range=(0, 1)),
          _t(S5, F, value_range=(0, 1)), _t(S5, F, values=(1.0,) * 120), _t(S5, H, values=(2.0,) * 120),
          _t(S5, H, values=(2.0,) * 120), NONE, _t(S5, F)),
    _call("case_NC1HWC0", "ACLNN_SUCCESS", *[_t([1, 2, 3, 4, 16], fmt="NC1HWC0") for _ in range(5)], MEAN,
          _t([1, 2, 3, 4, 16], fmt="NC1HWC0"), note="every tensor in NC1HWC0"),
    _call("case_FRACTAL_Z", "ACLNN_SUCCESS", *[_t([16, 16, 16, 16], fmt="FRACTAL_Z") for _ in range(5)], MEAN,
          _t([16, 16, 16, 16], fmt="FRACTAL_Z"), note="every tensor in FRACTAL_Z"),
    _call("case_unsupport_dtype[1]", "ACLNN_ERR_PARAM_INVALID", _t(S5, "INT64"), _t(S5, "INT64"), _t(S5, "INT64"),
          NULL, NULL, NONE, _t(S5, "INT64")),
    _call("case_unsupport_dtype[2]", "ACLNN_ERR_PARAM_INVALID", _t(S5, "INT64"), _t(S5), _t(S5, "INT64"),
          NULL, NULL, NONE, _t(S5, "INT64")),
    _call("case_unsupport_dtype[3]", "ACLNN_ERR_PARAM_INVALID", _t(S5), _t(S5), _t(S5, "INT64"),
          NULL, NULL, NONE, _t(S5, "INT64")),
    _call("case_unsupport_dtype[4]", "ACLNN_ERR_PARAM_INVALID", _t(S5), _t(S5), _t(S5),
          NULL, NULL, NONE, _t(S5, "INT64")),
    _call("case_dimension8", "ACLNN_ERR_PARAM_INVALID", _t(S5 + [6, 7, 8, 9]), _t(S5 + [6, 7, 8, 9]),
          _t(S5 + [6, 7, 8, 9]), NULL, NULL, SUM, _t(S5 + [6, 7, 8, 9]), note="9 dimensions"),
    _call("case_out_format_invalid", "ACLNN_ERR_PARAM_INVALID", _t([1, 2, 3, 4]), _t([1, 2, 3, 4]),
          _t([1, 2, 3, 4]), NULL, NULL, SUM, _t([1, 2, 3, 4], fmt="NCHW"), note="out in NCHW, self in ND"),
    _call("case_unsupport_shape", "ACLNN_ERR_PARAM_INVALID", _t([3, 1, 4, 2, 5]), _t(S5), _t([5, 4, 3, 2, 1]),
          NULL, NULL, SUM, _t([])),
    _call("case_null[gradOutput]", "ACLNN_ERR_PARAM_NULLPTR", NULL, _t(S5), _t(S5), NULL, NULL, SUM, _t(S5)),
    _call("case_null[self]", "ACLNN_ERR_PARAM_NULLPTR", _t(S5), NULL, _t(S5), NULL, NULL, SUM, _t(S5)),
    _call("case_null[target]", "ACLNN_ERR_PARAM_NULLPTR", _t(S5), _t(S5), NULL, NULL, NULL, SUM, _t(S5)),
    _call("case_null[out]", "ACLNN_ERR_PARAM_NULLPTR", _t(S5), _t(S5), _t(S5), NULL, NULL, SUM, NULL),
    *_reductions("case_bf16_reduce_valid", (B,) * 6),
]
