"""aclnnGeluBackward(gradOutput, self, gradInput): CANN's op_api unit tests as data.

gradOutput and self broadcast and promote (FLOAT, FLOAT16, BF16 on A2); gradInput must have the broadcast shape.
Formats are not checked.  Every case calls only the first phase and checks its status; the value checks CANN
sketches (`TestPrecision`) are commented out in this file.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnGeluBackward"
SOURCE = "activation/gelu_grad/tests/ut/op_api/test_aclnn_gelu_grad.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"
PRODUCT = "ascend910b"

_ONES10 = (1.0,) * 10
_SHAPE4 = [1, 16, 1, 1]

CASES = [
    case("gelu_backward_testcase_001_normal_float32", gradOutput=T([2, 5], values=_ONES10),
         self=T([2, 5], value_range=(-1, 1)), gradInput=T([2, 5]), expect="ACLNN_SUCCESS"),
    case("Ascend950_gelu_backward_testcase_001_normal_float32", gradOutput=T([1, 5], values=(1.0,) * 5),
         self=T([2, 5], value_range=(-1, 1)), gradInput=T([2, 5]), expect="ACLNN_SUCCESS",
         note="named after the 950 but sets no SoC, so it runs on the default A2; gradOutput broadcasts over dim 0"),
    case("gelu_backward_testcase_002_normal_float16", gradOutput=T([2, 5], "FLOAT16", values=_ONES10),
         self=T([2, 5], "FLOAT16", value_range=(-1, 1)), gradInput=T([2, 5], "FLOAT16"), expect="ACLNN_SUCCESS"),
    case("gelu_backward_testcase_003_normal_empty_tensor", gradOutput=T([0]), self=T([0]), gradInput=T([0]),
         expect="ACLNN_SUCCESS"),
    case("gelu_backward_testcase_004_exception_null_gradOutput", gradOutput=NULL, self=T(_SHAPE4),
         gradInput=T(_SHAPE4), expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("gelu_backward_testcase_005_exception_null_self", gradOutput=T(_SHAPE4), self=NULL,
         gradInput=T(_SHAPE4), expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("gelu_backward_testcase_006_exception_null_gradInput", gradOutput=T(_SHAPE4), self=T(_SHAPE4),
         gradInput=NULL, expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("gelu_backward_testcase_007_exception_float64_dtype_not_supported", gradOutput=T(_SHAPE4, "DOUBLE"),
         self=T(_SHAPE4), gradInput=T(_SHAPE4, "DOUBLE"), expect="ACLNN_ERR_PARAM_INVALID",
         note="DOUBLE and FLOAT promote to DOUBLE, which is not in the support list"),
    case("gelu_backward_testcase_008_normal_dtype_not_the_same", gradOutput=T(_SHAPE4), self=T(_SHAPE4, "FLOAT16"),
         gradInput=T(_SHAPE4), expect="ACLNN_SUCCESS", note="FLOAT and FLOAT16 promote to FLOAT"),
    case("gelu_backward_testcase_009_normal_dtype_not_the_same", gradOutput=T(_SHAPE4, "FLOAT16"), self=T(_SHAPE4),
         gradInput=T(_SHAPE4), expect="ACLNN_SUCCESS"),
    *[case(f"gelu_backward_testcase_010_normal_format_{i}", gradOutput=T(_SHAPE4, format=fmt),
           self=T(_SHAPE4, format=fmt), gradInput=T(_SHAPE4, format=fmt), expect="ACLNN_SUCCESS",
           note=f"one iteration of a loop over formats: {fmt} for all three tensors (formats are not checked)")
      for i, fmt in enumerate(["ND", "NC1HWC0", "FRACTAL_NZ"], start=1)],
    case("gelu_backward_testcase_011_normal_format", gradOutput=T(_SHAPE4), self=T(_SHAPE4, format="NCHW"),
         gradInput=T(_SHAPE4), expect="ACLNN_SUCCESS", note="mixed ND/NCHW formats are accepted"),
    case("gelu_backward_testcase_012_normal_different_format", gradOutput=T(_SHAPE4),
         self=T(_SHAPE4, format="NC1HWC0"), gradInput=T(_SHAPE4), expect="ACLNN_SUCCESS"),
    case("gelu_backward_testcase_013_exception_different_shape", gradOutput=T(_SHAPE4), self=T([1, 1, 4, 4]),
         gradInput=T(_SHAPE4), expect="ACLNN_ERR_PARAM_INVALID",
         note="[1,16,1,1] and [1,1,4,4] broadcast to [1,16,4,4], which is not gradInput's shape"),
    case("gelu_backward_testcase_014_normal_not_contiguous_float",
         gradOutput=T([2, 5], strides=[1, 2], storage_shape=[5, 2], values=_ONES10),
         self=T([2, 5], strides=[1, 2], storage_shape=[5, 2], value_range=(-1, 1)),
         gradInput=T([2, 5], strides=[1, 2], storage_shape=[5, 2]), expect="ACLNN_SUCCESS"),
    case("gelu_backward_testcase_015_normal_not_contiguous_float16",
         gradOutput=T([2, 5], "FLOAT16", strides=[1, 2], storage_shape=[5, 2], values=_ONES10),
         self=T([2, 5], "FLOAT16", strides=[1, 2], storage_shape=[5, 2], value_range=(-1, 1)),
         gradInput=T([2, 5], "FLOAT16", strides=[1, 2], storage_shape=[5, 2]), expect="ACLNN_SUCCESS"),
    case("gelu_backward_testcase_016_exception_complex64_dtype_not_supported", gradOutput=T(_SHAPE4, "COMPLEX64"),
         self=T(_SHAPE4, "COMPLEX64"), gradInput=T(_SHAPE4, "COMPLEX64"), expect="ACLNN_ERR_PARAM_INVALID"),
    case("gelu_backward_testcase_017_exception_complex128_dtype_not_supported",
         gradOutput=T(_SHAPE4, "COMPLEX128"), self=T(_SHAPE4, "COMPLEX128"), gradInput=T(_SHAPE4, "COMPLEX128"),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("gelu_backward_testcase_018_normal_large_dims", gradOutput=T([1, 2, 2, 2, 2, 2, 2, 2, 2], value_range=(1, 1)),
         self=T([1, 2, 2, 2, 2, 2, 2, 2, 2], value_range=(-10, 10)), gradInput=T([1, 2, 2, 2, 2, 2, 2, 2, 2]),
         expect="ACLNN_ERR_PARAM_INVALID", note="9 dimensions: more than 8"),
    case("gelu_backward_testcase_019_normal_self_empty_tensor", gradOutput=T([16, 16], value_range=(-1, 1)),
         self=T([0]), gradInput=T([16, 16]), expect="ACLNN_ERR_PARAM_INVALID",
         note="[16,16] and [0] do not broadcast; the shape check runs before the empty-tensor shortcut"),
    case("gelu_backward_testcase_020_exception_gradOutput_empty_tensor", gradOutput=T([0]),
         self=T([16, 16], value_range=(-1, 1)), gradInput=T([0]), expect="ACLNN_ERR_PARAM_INVALID",
         note="[0] and [16,16] do not broadcast"),
    case("gelu_backward_testcase_021_normal_broadcast_shape", gradOutput=T([16]),
         self=T([16, 16], value_range=(-1, 1)), gradInput=T([16, 16]), expect="ACLNN_SUCCESS"),
    case("gelu_backward_testcase_022_normal_broadcast_shape", gradOutput=T([16, 5, 5]),
         self=T([5, 5], value_range=(-1, 1)), gradInput=T([16, 5, 5]), expect="ACLNN_SUCCESS"),
    case("gelu_backward_testcase_023_large_shape", gradOutput=T([1024, 1024], value_range=(-1, 1)),
         self=T([1024, 1024], value_range=(-2, 2)), gradInput=T([1024, 1024]), expect="ACLNN_SUCCESS"),
    case("gelu_backward_testcase_024_5d_shape", gradOutput=T([2, 4, 8, 16, 32], "FLOAT16", value_range=(-1, 1)),
         self=T([2, 4, 8, 16, 32], "FLOAT16", value_range=(-1, 1)), gradInput=T([2, 4, 8, 16, 32], "FLOAT16"),
         expect="ACLNN_SUCCESS"),
    case("gelu_backward_testcase_025_scalar", gradOutput=T([]), self=T([]), gradInput=T([]), expect="ACLNN_SUCCESS"),
    case("gelu_backward_testcase_026_nchw_format",
         gradOutput=T([2, 64, 112, 112], "FLOAT16", "NCHW", value_range=(-1, 1)),
         self=T([2, 64, 112, 112], "FLOAT16", "NCHW", value_range=(-2, 2)),
         gradInput=T([2, 64, 112, 112], "FLOAT16", "NCHW"), expect="ACLNN_SUCCESS"),
    case("gelu_backward_testcase_027_specific_values",
         gradOutput=T([8], values=(1.0, 0.5, -0.5, 0.0, 1.0, 2.0, -1.0, 0.0)),
         self=T([8], values=(0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 0.0, 3.0)), gradInput=T([8]), expect="ACLNN_SUCCESS",
         note="explicit values, but only the status is checked"),
    case("gelu_backward_testcase_028_bf16_dtype", gradOutput=T([2, 4, 6, 8], "BF16", value_range=(-1, 1)),
         self=T([2, 4, 6, 8], "BF16", value_range=(-1, 1)), gradInput=T([2, 4, 6, 8], "BF16"),
         expect="ACLNN_SUCCESS", note="BF16 is accepted on A2/A3 and the 950 only"),
    case("gelu_backward_testcase_029_int_dtype", gradOutput=T([2, 4], "INT32"), self=T([2, 4], "INT32"),
         gradInput=T([2, 4], "INT32"), expect="ACLNN_ERR_PARAM_INVALID"),
    case("gelu_backward_testcase_030_undefined_dtype", gradOutput=T([2, 4], "DT_UNDEFINED"),
         self=T([2, 4], "DT_UNDEFINED"), gradInput=T([2, 4], "DT_UNDEFINED"), expect="ACLNN_ERR_PARAM_INVALID",
         note="ACL_DT_UNDEFINED tensors: promotion yields UNDEFINED"),
]
