"""aclnnPreluBackward(gradOutput, self, weight, gradInput, gradWeight): CANN's op_api unit tests as data.

All five tensors share self's dtype (A2: FLOAT, FLOAT16, BF16).  gradOutput broadcasts to self's shape, gradInput
has self's shape, weight has 1 element or self.shape[1] elements; gradWeight has weight's shape when weight has one
element and shape [C] otherwise.  Every case calls only the first phase; the cases CANN marks for a value check call
`TestPrecision()`, an empty function in CANN's harness, so only the status is checked.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnPreluBackward"
SOURCE = "activation/p_relu_grad_update/tests/ut/op_host/op_api/test_aclnn_prelu_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

_PREC = "precision case in CANN (TestPrecision, a no-op there); ported as a status case"
_R = (-1, 1)
_S = [2, 2, 3, 2]


def _args(x=_S, g=None, w=(2,), gi=None, gw=None, dtype="FLOAT", fmt="ND", dtypes=None, x_range=_R):
    """gradOutput/self/weight/gradInput/gradWeight; shapes default to self's / weight's, dtypes to `dtype`."""
    d = dict(zip(["gradOutput", "self", "weight", "gradInput", "gradWeight"], dtypes or [dtype] * 5))
    return dict(gradOutput=T(list(g or x), d["gradOutput"], fmt, value_range=x_range),
                self=T(list(x), d["self"], fmt, value_range=x_range),
                weight=T(list(w), d["weight"], fmt, value_range=_R),
                gradInput=T(list(gi or x), d["gradInput"], fmt),
                gradWeight=T(list(gw or w), d["gradWeight"], fmt))


def _null(name):
    a = _args()
    a[name] = NULL
    return a


CASES = [
    case("prelu_backward_testcase_001_normal_float32", **_args(), expect="ACLNN_SUCCESS", note=_PREC),
    case("prelu_backward_testcase_002_normal_float16_nchw", **_args(dtype="FLOAT16", fmt="NCHW"),
         expect="ACLNN_SUCCESS", note="all five tensors NCHW, including the 1-D weight"),
    case("prelu_backward_testcase_003_normal_float16_nhwc", **_args(dtype="FLOAT16", fmt="NHWC"),
         expect="ACLNN_SUCCESS"),
    case("prelu_backward_testcase_004_normal_ndhwc", **_args(fmt="NDHWC"), expect="ACLNN_SUCCESS", note=_PREC),
    case("prelu_backward_testcase_005_normal_ncdhw", **_args(fmt="NCDHW"), expect="ACLNN_SUCCESS", note=_PREC),
    case("prelu_backward_testcase_006_normal_empty_tensor", **_args(x=[0, 2, 3, 2]), expect="ACLNN_SUCCESS"),
    case("prelu_backward_testcase_007_exception_null_gradOutput", **_null("gradOutput"),
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("prelu_backward_testcase_008_exception_null_self", **_null("self"), expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("prelu_backward_testcase_009_exception_null_weight", **_null("weight"), expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("prelu_backward_testcase_010_exception_null_gradInput", **_null("gradInput"),
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("prelu_backward_testcase_011_exception_null_gradweight", **_null("gradWeight"),
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("prelu_backward_testcase_012_exception_float64_dtype_not_supported", **_args(dtype="DOUBLE"),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("prelu_backward_testcase_013_normal_dtype_not_the_same",
         **_args(dtypes=["FLOAT", "FLOAT16", "FLOAT16", "FLOAT16", "FLOAT16"]), expect="ACLNN_ERR_PARAM_INVALID",
         note="no promotion: gradOutput must have self's dtype"),
    case("prelu_backward_testcase_014_normal_dtype_not_the_same",
         **_args(dtypes=["FLOAT16", "FLOAT16", "FLOAT", "FLOAT16", "FLOAT16"]), expect="ACLNN_ERR_PARAM_INVALID",
         note="weight's dtype differs"),
    case("prelu_backward_testcase_015_normal_dtype_not_the_same",
         **_args(dtypes=["FLOAT16", "FLOAT16", "FLOAT16", "FLOAT", "FLOAT16"]), expect="ACLNN_ERR_PARAM_INVALID",
         note="gradInput's dtype differs"),
    case("prelu_backward_testcase_016_normal_dtype_not_the_same",
         **_args(dtypes=["FLOAT16", "FLOAT16", "FLOAT16", "FLOAT16", "FLOAT"]), expect="ACLNN_ERR_PARAM_INVALID",
         note="gradWeight's dtype differs"),
    case("prelu_backward_testcase_017_normal_self_empty_tensor", **_args(x=[0, 2, 3, 2], g=[1, 2, 3, 2]),
         expect="ACLNN_SUCCESS", note="gradOutput [1,2,3,2] broadcasts to the empty self [0,2,3,2]"),
    case("prelu_backward_testcase_018_exception_gradOutput_empty_tensor", **_args(x=[0, 2, 3, 2]),
         expect="ACLNN_SUCCESS"),
    case("prelu_backward_testcase_019_exception_weight_invalid_shape", **_args(w=(0,), gw=(2,)),
         expect="ACLNN_ERR_PARAM_INVALID", note="weight has 0 elements: neither 1 nor the channel count 2"),
    case("prelu_backward_testcase_020_exception_different_shape", **_args(x=[2, 2, 4, 2], g=_S, gi=_S),
         expect="ACLNN_ERR_PARAM_INVALID", note="gradInput's shape differs from self's"),
    case("prelu_backward_testcase_021_exception_weight_shape_invalid",
         **_args(x=[2, 2, 4, 2], g=_S, gi=_S, w=(3,), gw=(2,)), expect="ACLNN_ERR_PARAM_INVALID"),
    case("prelu_backward_testcase_022_weight_one_element", **_args(x=[2, 4, 3, 2], w=(1,)), expect="ACLNN_SUCCESS",
         note="one shared weight. " + _PREC),
    case("prelu_backward_testcase_023_weight_one_element", **_args(x=[2, 4, 3, 2], w=(1, 1)),
         expect="ACLNN_SUCCESS", note="a one-element weight may have any shape; gradWeight must match it. " + _PREC),
    case("prelu_backward_testcase_024_weight_one_element_multi_dim", **_args(x=[2, 4, 3, 2], w=(1, 1), gw=(1,)),
         expect="ACLNN_ERR_PARAM_INVALID", note="weight [1,1] but gradWeight [1]"),
    case("prelu_backward_testcase_025_weight_shape_multi_dim", **_args(x=[2, 4, 3, 2], w=(2, 2), gw=(4,)),
         expect="ACLNN_SUCCESS",
         note="a [2,2] weight has C=4 elements; gradWeight must then be 1-D [4]. " + _PREC),
    case("prelu_backward_testcase_026_normal_not_contiguous_float",
         gradOutput=T([3, 5, 6], strides=[30, 1, 5], storage_shape=[3, 6, 5]),
         self=T([3, 5, 6], strides=[30, 1, 5], storage_shape=[3, 6, 5]), weight=T([5], value_range=_R),
         gradInput=T([3, 5, 6]), gradWeight=T([5]), expect="ACLNN_SUCCESS", note=_PREC),
    case("prelu_backward_testcase_027_normal_large_dims", **_args(g=[1, 2, 3, 4, 5, 6, 7, 8, 9]),
         expect="ACLNN_ERR_PARAM_INVALID", note="gradOutput has 9 dimensions"),
    case("prelu_backward_testcase_028_normal_large_dims", **_args(x=[1, 2, 3, 4, 5, 6, 7, 8, 9], g=_S, gi=_S),
         expect="ACLNN_ERR_PARAM_INVALID", note="self has 9 dimensions"),
    case("prelu_backward_testcase_029_exception_gradOutput_shape", **_args(x=[1, 2, 3, 2], g=_S),
         expect="ACLNN_ERR_PARAM_INVALID", note="gradOutput [2,2,3,2] does not broadcast TO self [1,2,3,2]"),
    case("prelu_backward_testcase_030_normal_bf16", **_args(dtype="BF16"), expect="ACLNN_SUCCESS"),
    case("prelu_backward_testcase_031_8d_shape", **_args(x=[1, 2, 3, 4, 5, 6, 7, 8]), expect="ACLNN_SUCCESS"),
    case("prelu_backward_testcase_032_large_shape", **_args(x=[1024, 1024], w=(1024,)), expect="ACLNN_SUCCESS"),
    case("prelu_backward_testcase_033_value_range", **_args(x=[2, 4, 6, 8], w=(4,), x_range=(-100, 100)),
         expect="ACLNN_SUCCESS"),
]
