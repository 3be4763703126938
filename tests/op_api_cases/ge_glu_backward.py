"""aclnnGeGluBackward: CANN's op_api unit tests as data.

Snake name: the aclnn name split at every capital, "GeGlu" → "ge_glu". The source file (under tests/ut/op_host/
op_api/) also tests aclnnGeGluV3Backward; those cases are in ge_glu_v3_backward.py. Every case runs on the harness's
default SoC (HARNESS_PRODUCT, Atlas A2); the file sets none. No case compares values.

Four tests (l2_geglu_backward_normal_FLOAT16_ND_SHAPE1..4: FLOAT16 self (2,920,256), (2,230,512), (2,50,1024),
(2,10,1024), dim -1, approximate 1) have their call and assertion commented out, so they are not cases here.
Five "abnormal" shape/attribute tests hand in an INT32 gradInput next to FLOAT16 tensors: the dtype rule
(all four tensors share one dtype) runs first and already rejects them; their notes name the rule each test meant.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnGeGluBackward"
SOURCE = "activation/ge_glu_grad_v2/tests/ut/op_host/op_api/test_aclnn_geglu_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

P = "l2_geglu_backward_"
_DTYPE_FIRST = "; the INT32 gradInput already fails the dtype rule, which runs first"


def _gg(name, grad, self, gelu, out, *, dim=-1, approximate=1, expect="ACLNN_SUCCESS", note=""):
    return case(P + name, gradOutput=grad, self=self, gelu=gelu, dim=dim, approximate=approximate, gradInput=out,
                expect=expect, note=note)


def _h(shape, dtype="FLOAT16", **kw):
    return T(shape, dtype, "ND", **kw)


CASES = [
    _gg("normal_empty_tensor", _h((0,)), _h((0,)), _h((0,)), _h((0,)), note="empty gradOutput: workspace 0"),
    _gg("abnormal_gradOutput_nullptr", NULL, _h((2,)), _h((2,)), _h((2,)), expect="ACLNN_ERR_PARAM_NULLPTR"),
    _gg("abnormal_self_nullptr", _h((2,)), NULL, _h((2,)), _h((2,)), expect="ACLNN_ERR_PARAM_NULLPTR"),
    _gg("abnormal_gelu_nullptr", _h((2,)), _h((2,)), NULL, _h((2,)), expect="ACLNN_ERR_PARAM_NULLPTR"),
    _gg("abnormal_gradInput_nullptr", _h((2,), "FLOAT"), _h((2,)), _h((2,)), NULL, expect="ACLNN_ERR_PARAM_NULLPTR",
        note="null checks come before the dtype rule (gradOutput FLOAT vs FLOAT16 self)"),
    _gg("abnormal_INT32", _h((2,), "INT32"), _h((2,), "INT32"), _h((2,), "INT32"), _h((2,), "INT32"),
        expect="ACLNN_ERR_PARAM_INVALID", note="INT32 is not supported"),
    _gg("abnormal_gradOutput_self_dtype_unequal", _h((2,)), _h((2,), "INT32"), _h((2,)), _h((2,)),
        expect="ACLNN_ERR_PARAM_INVALID"),
    _gg("abnormal_gradOutput_gelu_dtype_unequal", _h((2,)), _h((2,)), _h((2,), "INT32"), _h((2,)),
        expect="ACLNN_ERR_PARAM_INVALID"),
    _gg("abnormal_gradOutput_gradInput_dtype_unequal", _h((2,)), _h((2,)), _h((2,)), _h((2,), "INT32"),
        expect="ACLNN_ERR_PARAM_INVALID"),
    _gg("abnormal_gradOutput_gelu_shape_unequal", _h((2,)), _h((4,)), _h((3,)), _h((4,), "INT32"),
        expect="ACLNN_ERR_PARAM_INVALID", note="meant: gelu (3,) differs from gradOutput (2,)" + _DTYPE_FIRST),
    _gg("abnormal_self_gradInput_shape_unequal", _h((2,)), _h((4,)), _h((2,)), _h((5,), "INT32"),
        expect="ACLNN_ERR_PARAM_INVALID", note="meant: gradInput (5,) differs from self (4,)" + _DTYPE_FIRST),
    _gg("abnormal_dim_error", _h((2,)), _h((4,)), _h((2,)), _h((4,), "INT32"), dim=-2,
        expect="ACLNN_ERR_PARAM_INVALID", note="meant: dim -2 outside [-1, 0]" + _DTYPE_FIRST),
    _gg("abnormal_gradOutput_self_shape_error", _h((2,)), _h((3,)), _h((2,)), _h((3,), "INT32"),
        expect="ACLNN_ERR_PARAM_INVALID", note="meant: gradOutput (2,) is not half of self (3,)" + _DTYPE_FIRST),
    _gg("abnormal_CheckAttributeValue", _h((2,)), _h((4,)), _h((2,)), _h((4,), "INT32"), approximate=2,
        expect="ACLNN_ERR_PARAM_INVALID", note="meant: approximate 2 outside {0, 1}" + _DTYPE_FIRST),
    _gg("normal_uncontiguous", _h((2, 4), strides=(1, 2), storage_shape=(4, 2)),
        _h((2, 8), strides=(1, 2), storage_shape=(8, 2)), _h((2, 4), strides=(1, 2), storage_shape=(4, 2)),
        _h((2, 8), strides=(1, 2), storage_shape=(8, 2)), note="every tensor, gradInput included, a transposed view"),
]
