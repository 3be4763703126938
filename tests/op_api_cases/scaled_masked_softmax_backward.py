"""aclnnScaledMaskedSoftmaxBackward(gradOutput, y, mask, scale, fixTriuMask, out): CANN's op_api unit tests as data.

gradOutput, y and out must each be FLOAT, FLOAT16 or BF16 and share one 4-D shape [B,N,S1,S2] (S2 <= 4096 on the A2);
mask is a required 4-D BOOL [B|1, N|1, S1, S2]; FRACTAL_NZ is refused on the A2; fixTriuMask must be false (checked
after the shapes).  scale is 1.0 and fixTriuMask false unless noted.  Every case calls only the first phase (CANN
uses `TestGetWorkspaceSizeWithNNopbaseInner`, which keeps the executor).
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnScaledMaskedSoftmaxBackward"
SOURCE = ("vfusion/scaled_masked_softmax_grad_v2/tests/ut/op_host/op_api/"
          "test_aclnn_scaled_masked_softmax_backward.cpp")
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

_S = [1, 2, 4, 128]


def _args(g=_S, y=_S, m=_S, o=_S, dg="FLOAT16", dy="FLOAT16", dm="BOOL", do="FLOAT16", fmt="ND", triu=False):
    return dict(gradOutput=T(g, dg, fmt), y=T(y, dy, fmt), mask=T(m, dm, fmt), scale=1.0, fixTriuMask=triu,
                out=T(o, do, fmt))


def _null(name, **kw):
    a = _args(**kw)
    a[name] = NULL
    return a


CASES = [
    case("test_scaled_masked_softmax_backward_null_y_grad", **_null("gradOutput"), expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("test_scaled_masked_softmax_backward_null_y", **_null("y", dg="INT32"), expect="ACLNN_ERR_PARAM_NULLPTR",
         note="null checks come before the dtype check (gradOutput is INT32 here)"),
    case("test_scaled_masked_softmax_backward_null_mask", **_null("mask", dg="INT32"),
         expect="ACLNN_ERR_PARAM_NULLPTR", note="mask is required, although the op_api later tests it for null"),
    case("test_scaled_masked_softmax_backward_null_output", **_null("out"), expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("test_scaled_masked_softmax_backward_wrong_dtype_y_grad", **_args(dg="INT32", dy="INT32", do="INT32"),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("test_scaled_masked_softmax_backward_wrong_dtype_mask", **_args(dm="FLOAT16"),
         expect="ACLNN_ERR_PARAM_INVALID", note="mask must be BOOL"),
    case("test_scaled_masked_softmax_backward_wrong_format", **_args(fmt="FRACTAL_NZ"),
         expect="ACLNN_ERR_PARAM_INVALID", note="FRACTAL_NZ is refused on non-950 SoCs"),
    case("test_scaled_masked_softmax_backward_wrong_shape_y_grad", **_args(g=[1, 2, 4, -1]),
         expect="ACLNN_ERR_PARAM_INVALID", note="a negative dimension in gradOutput's shape"),
    case("test_scaled_masked_softmax_backward_wrong_dim_y_grad", **_args(g=[1, 2, 4]),
         expect="ACLNN_ERR_PARAM_INVALID", note="gradOutput must be 4-D"),
    case("test_scaled_masked_softmax_backward_wrong_dim_y_grad_and_y", **_args(y=[1, 2, 4, 1024]),
         expect="ACLNN_ERR_PARAM_INVALID", note="y's shape differs from gradOutput's"),
    case("test_scaled_masked_softmax_backward_wrong_dim_mask", **_args(m=[1, 2, 4]), expect="ACLNN_ERR_PARAM_INVALID",
         note="mask must be 4-D"),
    case("test_scaled_masked_softmax_backward_wrong_shape_mask", **_args(m=[1, 2, 4, -1]),
         expect="ACLNN_ERR_PARAM_INVALID", note="a negative dimension in mask's shape"),
    case("test_scaled_masked_softmax_backward_error_broadcast", **_args(g=[4, 4, 4, 128], y=[4, 4, 4, 128],
                                                                        o=[4, 4, 4, 128]),
         expect="ACLNN_ERR_PARAM_INVALID", note="mask [1,2,...]: N = 2 is neither 4 nor 1"),
    case("test_scaled_masked_softmax_backward_wrong_fix_triu_mask", **_args(y=[1, 2, 4, 1024], triu=True),
         expect="ACLNN_ERR_PARAM_INVALID",
         note="fixTriuMask=true, but y's shape also differs and the shape check runs first, so this case fails on "
              "the shape, not on fixTriuMask"),
]
