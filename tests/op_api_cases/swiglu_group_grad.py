"""aclnnSwigluGroupGrad: CANN's op_api unit tests as data.

All 27 cases of the file. The operator runs on the Ascend 950 only; its op_api checks no SoC, so every case is
run on ascend950 here (on the harness's default Atlas A2 our checker refuses every dtype: the op does not run
there). A null in `OUTPUT(dxOutDesc, nullptr)` is gradWeightOutOptional left null. No case compares values.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnSwigluGroupGrad"
SOURCE = "quant/swiglu_group_grad/tests/ut/op_host/op_api/test_aclnn_swiglu_group_grad.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"
P = "ascend950"


def _c(name, gy, x, dx, *, w=NULL, yo=NULL, gi=NULL, clamp=0.0, dw=NULL, expect="ACLNN_SUCCESS", note=""):
    return case(name, gradY=gy, x=x, weightOptional=w, yOriginOptional=yo, groupIndexOptional=gi,
                clampLimit=clamp, gradXOut=dx, gradWeightOutOptional=dw, expect=expect, product=P, note=note)


def _f(shape, dtype="FLOAT"):
    return T(shape, dtype, "ND", value_range=(-2, 2))


CASES = [
    _c("l2_normal_FLOAT_ND_no_options", _f((4, 16)), _f((4, 32)), _f((4, 32))),
    _c("l2_normal_FLOAT16_ND_no_options", _f((4, 16), "FLOAT16"), _f((4, 32), "FLOAT16"), _f((4, 32), "FLOAT16")),
    _c("l2_normal_BF16_ND_no_options", _f((4, 16), "BF16"), _f((4, 32), "BF16"), _f((4, 32), "BF16")),
    _c("l2_normal_FLOAT_ND_with_clamp", _f((4, 16)), _f((4, 32)), _f((4, 32)), clamp=3.0),
    _c("l2_normal_FLOAT_ND_with_topk_weight", _f((4, 16)), _f((4, 32)), _f((4, 32)), w=_f((4,)), yo=_f((4, 16)),
       dw=_f((4,)), note="a weight of shape [4]: only its element count is checked"),
    _c("l2_normal_FLOAT_ND_with_all_options", _f((4, 16)), _f((4, 32)), _f((4, 32)), w=_f((4, 1)),
       yo=_f((4, 16)), gi=T((1,), "INT64", values=(2,)), clamp=3.0, dw=_f((4, 1))),
    _c("l2_normal_FLOAT_ND_3d_no_options", _f((2, 4, 16)), _f((2, 4, 32)), _f((2, 4, 32))),
    _c("l2_normal_FLOAT_ND_3d_with_all_options", _f((2, 4, 16)), _f((2, 4, 32)), _f((2, 4, 32)),
       w=_f((2, 4, 1)), yo=_f((2, 4, 16)), gi=T((1,), "INT64", values=(5,)), clamp=3.0, dw=_f((2, 4, 1))),
    _c("l2_normal_FLOAT16_ND_large_shape", _f((64, 1024), "FLOAT16"), _f((64, 2048), "FLOAT16"),
       _f((64, 2048), "FLOAT16")),
    _c("l2_normal_FLOAT_ND_empty_tensor", _f((0, 16)), _f((0, 32)), _f((0, 32))),
    _c("l2_abnormal_dy_nullptr", NULL, _f((4, 32)), _f((4, 32)), expect="ACLNN_ERR_PARAM_NULLPTR"),
    _c("l2_abnormal_x_nullptr", _f((4, 16)), NULL, _f((4, 32)), expect="ACLNN_ERR_PARAM_NULLPTR"),
    _c("l2_abnormal_dxOut_nullptr", _f((4, 16)), _f((4, 32)), NULL, expect="ACLNN_ERR_PARAM_NULLPTR"),
    _c("l2_abnormal_topk_present_dtopk_nullptr", _f((4, 16)), _f((4, 32)), _f((4, 32)), w=_f((4, 1)),
       yo=_f((4, 16)), expect="ACLNN_ERR_PARAM_NULLPTR", note="weight given, gradWeightOut null"),
    _c("l2_abnormal_dtype_int8", T((4, 16), "INT8"), T((4, 32), "INT8"), T((4, 32), "INT8"),
       expect="ACLNN_ERR_PARAM_INVALID"),
    _c("l2_abnormal_dtype_double", T((4, 16), "DOUBLE"), T((4, 32), "DOUBLE"), T((4, 32), "DOUBLE"),
       expect="ACLNN_ERR_PARAM_INVALID"),
    _c("l2_abnormal_dtype_mismatch_dy_x", _f((4, 16)), _f((4, 32), "FLOAT16"), _f((4, 32)),
       expect="ACLNN_ERR_PARAM_INVALID"),
    _c("l2_normal_h_not_aligned", _f((4, 17)), _f((4, 34)), _f((4, 34))),
    _c("l2_normal_small_h", _f((4, 8)), _f((4, 16)), _f((4, 16))),
    _c("l2_abnormal_x_dim1_not_2h", _f((4, 16)), _f((4, 33)), _f((4, 33)), expect="ACLNN_ERR_PARAM_INVALID"),
    _c("l2_abnormal_dy_1d", _f((16,)), _f((32,)), _f((32,)), expect="ACLNN_ERR_PARAM_INVALID"),
    _c("l2_abnormal_zero_hidden_size", _f((4, 0)), _f((4, 0)), _f((4, 0)), expect="ACLNN_ERR_PARAM_INVALID",
       note="H = 0"),
    _c("l2_abnormal_topk_dtype_int32", _f((4, 16)), _f((4, 32)), _f((4, 32)), w=T((4, 1), "INT32"),
       yo=_f((4, 16)), dw=_f((4, 1)), expect="ACLNN_ERR_PARAM_INVALID"),
    _c("l2_abnormal_avail_token_dtype_float", _f((4, 16)), _f((4, 32)), _f((4, 32)), gi=_f((1,)),
       expect="ACLNN_ERR_PARAM_INVALID", note="a FLOAT groupIndex"),
    _c("l2_abnormal_empty_group_index", _f((4, 16)), _f((4, 32)), _f((4, 32)), gi=T((0,), "INT64"),
       expect="ACLNN_ERR_PARAM_INVALID"),
    _c("l2_abnormal_weight_without_y_origin", _f((4, 16)), _f((4, 32)), _f((4, 32)), w=_f((4, 1)),
       dw=_f((4, 1)), expect="ACLNN_ERR_PARAM_INVALID"),
    _c("l2_abnormal_y_origin_without_weight", _f((4, 16)), _f((4, 32)), _f((4, 32)), yo=_f((4, 16)),
       expect="ACLNN_ERR_PARAM_INVALID"),
    _c("l2_abnormal_negative_clamp_limit", _f((4, 16)), _f((4, 32)), _f((4, 32)), clamp=-1.0,
       expect="ACLNN_ERR_PARAM_INVALID"),
    _c("l2_abnormal_nan_clamp_limit", _f((4, 16)), _f((4, 32)), _f((4, 32)), clamp=float("nan"),
       expect="ACLNN_ERR_PARAM_INVALID"),
]
