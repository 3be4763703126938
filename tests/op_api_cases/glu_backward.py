"""aclnnGluBackward: CANN's op_api unit tests as data.

Every case runs on the harness's default SoC (HARNESS_PRODUCT, Atlas A2); the file sets none. Tensors are built
without values (the harness's default range [-2, 2]) unless noted. No case compares values.

Fourteen tests of the file build their arguments but never call the first phase, so they assert nothing and are not
cases here: test_glu_backward_normal_self_float_dim_positive, ..._float_dim_nopositive, ..._double_dim_nopositive,
..._self_empty_tensor, ..._float_8dim_tensor02, ..._float_8dim_tensor, ..._double_8dim_tensor, and the seven
..._float_dim_{int16,int32,int8,uint8,uint16,uint32,uint64} variants (which only vary the C type of `dim`).
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnGluBackward"
SOURCE = "activation/glu_grad/tests/ut/op_api/test_aclnn_glu_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

P = "test_glu_backward_"
_D9 = (2, 2, 2, 2, 2, 2, 2, 2, 2)


def _glu(name, grad, self, dim, out, expect="ACLNN_SUCCESS", note=""):
    return case(P + name, gradOut=grad, self=self, dim=dim, out=out, expect=expect, note=note)


def _f(shape, dtype="FLOAT", **kw):
    return T(shape, dtype, "ND", **kw)


CASES = [
    _glu("normal_self_float16_dim_nopositive", _f((2, 2, 6), "FLOAT16"), _f((2, 4, 6), "FLOAT16"), -2,
         _f((2, 4, 6), "FLOAT16")),
    _glu("gradout_is_null", NULL, _f((2, 4, 6)), -2, _f((2, 4, 6)), "ACLNN_ERR_PARAM_NULLPTR"),
    _glu("self_is_null", _f((2, 2, 6)), NULL, -2, _f((2, 2, 6)), "ACLNN_ERR_PARAM_NULLPTR"),
    _glu("out_is_null", _f((2, 2, 6)), _f((2, 4, 6)), -2, NULL, "ACLNN_ERR_PARAM_NULLPTR"),
    _glu("self_is_int64", _f((2, 2, 6)), _f((2, 4, 6), "INT64"), -2, _f((2, 4, 6)), "ACLNN_ERR_PARAM_INVALID",
         note="INT64 self is not supported"),
    _glu("self_is_bf16", _f((2, 2, 6)), _f((2, 4, 6), "BF16"), -2, _f((2, 4, 6)), "ACLNN_ERR_PARAM_INVALID",
         note="BF16 self is supported on A2; rejected because gradOut (FLOAT) must have self's dtype"),
    _glu("out_is_int64", _f((2, 2, 6)), _f((2, 4, 6)), -2, _f((2, 4, 6), "INT64"), "ACLNN_ERR_PARAM_INVALID",
         note="out must have self's dtype"),
    _glu("gradout_is_int64", _f((2, 2, 6), "INT64"), _f((2, 4, 6)), -2, _f((2, 4, 6)), "ACLNN_ERR_PARAM_INVALID"),
    _glu("out_is_bf16", _f((2, 2, 6)), _f((2, 4, 6)), -2, _f((2, 4, 6), "BF16"), "ACLNN_ERR_PARAM_INVALID",
         note="out BF16 differs from self FLOAT"),
    _glu("dim_is_less_than_left", _f((2, 2, 6)), _f((2, 4, 6)), -4, _f((2, 4, 6)), "ACLNN_ERR_PARAM_INVALID",
         note="dim must lie in [-3, 2]"),
    _glu("dim_is_bigger_than_right", _f((2, 2, 6)), _f((2, 4, 6)), 3, _f((2, 4, 6)), "ACLNN_ERR_PARAM_INVALID"),
    _glu("dim_of_self_not_even", _f((2, 4, 2)), _f((2, 4, 5)), 2, _f((2, 4, 5)), "ACLNN_ERR_PARAM_INVALID",
         note="self's dim 2 has odd size 5"),
    _glu("gradout_shape_is_error", _f((2, 3, 6)), _f((2, 4, 6)), 1, _f((2, 4, 6)), "ACLNN_ERR_PARAM_INVALID",
         note="gradOut must be (2,2,6)"),
    _glu("out_shape_is_error", _f((2, 2, 6)), _f((2, 4, 6)), 1, _f((2, 4, 7)), "ACLNN_ERR_PARAM_INVALID",
         note="out must equal self's shape"),
    _glu("gradout_dim_bigger_8", _f(_D9), _f((2, 2, 2)), 0, _f((2, 2, 2)), "ACLNN_ERR_PARAM_INVALID"),
    _glu("self_dim_bigger_8", _f((2, 2, 2)), _f(_D9), 0, _f((2, 2, 2)), "ACLNN_ERR_PARAM_INVALID"),
    _glu("out_dim_bigger_8", _f((2, 2, 6)), _f((2, 2, 2)), 0, _f(_D9), "ACLNN_ERR_PARAM_INVALID"),
    _glu("self_dim_is_0", _f((2, 2, 6)), _f(()), 0, _f((2, 2, 2)), "ACLNN_ERR_PARAM_INVALID",
         note="self must have at least one dimension"),
    _glu("gradout_dim_is_0", _f(()), _f((2, 4, 6)), 0, _f((2, 4, 6)), "ACLNN_ERR_PARAM_INVALID",
         note="gradOut must be (1,4,6)"),
    _glu("to_contiguous", _f((1, 4)), _f((2, 4), strides=(1, 2), storage_shape=(4, 2)), 0, _f((2, 4)),
         note="self is a transposed view of a (4,2) buffer"),
    _glu("to_contiguous02", _f((2, 3)), _f((2, 6), strides=(1, 2), storage_shape=(6, 2)), -1, _f((2, 6))),
    _glu("gradout_to_contiguous", _f((2, 3), strides=(1, 2), storage_shape=(3, 2)), _f((2, 6)), -1, _f((2, 6))),
    _glu("gradout_self_to_contiguous", _f((2, 3), strides=(1, 2), storage_shape=(3, 2)),
         _f((2, 6), strides=(1, 2), storage_shape=(6, 2)), -1, _f((2, 6))),
    _glu("date_range_f1_1", _f((2, 4, 4), value_range=(-1, 1)), _f((2, 4, 8), value_range=(-1, 1)), 2,
         _f((2, 4, 8))),
]
