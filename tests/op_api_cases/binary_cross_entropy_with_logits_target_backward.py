"""aclnnBinaryCrossEntropyWithLogitsTargetBackward: CANN's op_api unit tests as data.

Every case runs on the harness's default SoC (HARNESS_PRODUCT, Atlas A2); the file sets none (the prefix
"Ascend910B2_" of the last test is only a name). The source file is named test_binary_cross_entropy_with_logits_...
without the "aclnn_" the build's glob (cmake/ut.cmake: test_aclnn_*.cpp) picks up, so CANN's build probably never
compiles these tests: treat their verdicts as the authors' intent, checked here against the op_api code. A test that
loops over the three reductions is three cases (_1 none, _2 mean, _3 sum). No case compares values.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnBinaryCrossEntropyWithLogitsTargetBackward"
SOURCE = "activation/log_sigmoid/tests/ut/op_api/test_binary_cross_entropy_with_logits_target_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

NONE, MEAN, SUM = 0, 1, 2
SHAPE = (1, 2, 3, 4, 5)          # 120 elements


def _t(dtype, fmt="ND", *, fill=None, shape=SHAPE, **view):
    n = 1
    for d in shape:
        n *= d
    if fill is None:
        return T(shape, dtype, fmt, value_range=(0, 1), **view)
    return T(shape, dtype, fmt, values=(float(fill),) * n, **view)


def _each_reduction(name, *, dtype, weight, pos_weight, out_dtype=None, **kw):
    """One case per reduction of a test that loops over none, mean and sum."""
    return [case(f"{name}_{i + 1}", gradOutput=_t(dtype), self=_t(dtype), target=_t(dtype, fill=1.0),
                 weightOptional=weight, posWeightOptional=pos_weight, reduction=r,
                 gradTarget=T(SHAPE, out_dtype or dtype, "ND"), expect="ACLNN_SUCCESS", **kw)
            for i, r in enumerate((NONE, MEAN, SUM))]


_F32 = dict(gradOutput=_t("FLOAT"), self=_t("FLOAT"), target=_t("FLOAT", fill=1.0))
_VIEW = dict(shape=(5, 4), strides=(1, 5), storage_shape=(4, 5))      # a transposed view of a (4, 5) buffer

CASES = [
    *_each_reduction("case_f16_reduce_valid", dtype="FLOAT16", weight=_t("FLOAT16", fill=2.0),
                     pos_weight=_t("FLOAT16", fill=2.0)),
    *_each_reduction("case_f32_reduce_valid", dtype="FLOAT", weight=_t("FLOAT", fill=2.0),
                     pos_weight=_t("FLOAT16", fill=2.0), note="posWeight FLOAT16 among FLOAT tensors: promoted"),
    *_each_reduction("case_f16_reduce_valid_no_weight", dtype="FLOAT16", weight=NULL,
                     pos_weight=_t("FLOAT16", fill=2.0)),
    *_each_reduction("case_f32_reduce_none_no_weight", dtype="FLOAT", weight=NULL, pos_weight=_t("FLOAT", fill=2.0)),
    *_each_reduction("case_f16_reduce_valid_no_posWeight", dtype="FLOAT16", weight=_t("FLOAT16", fill=2.0),
                     pos_weight=NULL),
    *_each_reduction("case_f32_reduce_valid_no_posWeight", dtype="FLOAT", weight=_t("FLOAT", fill=2.0),
                     pos_weight=NULL),
    *[case(f"case_contiguous_{i + 1}", gradOutput=_t("FLOAT", **_VIEW), self=_t("FLOAT", **_VIEW),
           target=_t("FLOAT", fill=1.0, **_VIEW), weightOptional=_t("FLOAT", fill=2.0, **_VIEW),
           posWeightOptional=_t("FLOAT", fill=2.0, **_VIEW), reduction=r, gradTarget=T((5, 4), "FLOAT", "ND"),
           expect="ACLNN_SUCCESS", note="non-contiguous inputs (transposed views), contiguous output")
      for i, r in enumerate((NONE, MEAN, SUM))],
    case("case_empty", gradOutput=T((2, 0), "FLOAT", "ND", value_range=(0, 1)),
         self=T((2, 0), "FLOAT", "ND", value_range=(0, 1)), target=T((2, 0), "FLOAT", "ND"),
         weightOptional=T((2, 0), "FLOAT", "ND"), posWeightOptional=T((2, 0), "FLOAT", "ND"), reduction=MEAN,
         gradTarget=T((2, 0), "FLOAT", "ND"), expect="ACLNN_SUCCESS",
         note="empty self returns before the dtype-promotion check: workspace 0"),
    case("case_dtype_promotion", gradOutput=_t("FLOAT16"), self=_t("FLOAT16"), target=_t("FLOAT", fill=1.0),
         weightOptional=_t("FLOAT16", fill=2.0), posWeightOptional=_t("FLOAT16", fill=2.0), reduction=NONE,
         gradTarget=T(SHAPE, "FLOAT", "ND"), expect="ACLNN_SUCCESS",
         note="target FLOAT, the rest FLOAT16; gradTarget must have target's dtype"),
    case("case_self_float32_type_promotion", gradOutput=_t("FLOAT16"), self=_t("FLOAT"),
         target=_t("FLOAT", fill=1.0), weightOptional=_t("FLOAT16", fill=2.0),
         posWeightOptional=_t("FLOAT16", fill=2.0), reduction=NONE, gradTarget=T(SHAPE, "FLOAT", "ND"),
         expect="ACLNN_SUCCESS"),
    case("case_NC1HWC0", gradOutput=_t("FLOAT", "NC1HWC0", shape=(1, 2, 3, 4, 16)),
         self=_t("FLOAT", "NC1HWC0", shape=(1, 2, 3, 4, 16)),
         target=_t("FLOAT", "NC1HWC0", fill=1.0, shape=(1, 2, 3, 4, 16)),
         weightOptional=_t("FLOAT", "NC1HWC0", fill=2.0, shape=(1, 2, 3, 4, 16)),
         posWeightOptional=_t("FLOAT", "NC1HWC0", fill=2.0, shape=(1, 2, 3, 4, 16)), reduction=MEAN,
         gradTarget=T((1, 2, 3, 4, 16), "FLOAT", "NC1HWC0"), expect="ACLNN_SUCCESS",
         note="any format passes when self, target and gradTarget share it"),
    case("case_FRACTAL_Z", gradOutput=_t("FLOAT", "FRACTAL_Z", shape=(16, 16, 16, 16)),
         self=_t("FLOAT", "FRACTAL_Z", shape=(16, 16, 16, 16)),
         target=_t("FLOAT", "FRACTAL_Z", fill=1.0, shape=(16, 16, 16, 16)),
         weightOptional=_t("FLOAT", "FRACTAL_Z", fill=2.0, shape=(16, 16, 16, 16)),
         posWeightOptional=_t("FLOAT", "FRACTAL_Z", fill=2.0, shape=(16, 16, 16, 16)), reduction=MEAN,
         gradTarget=T((16, 16, 16, 16), "FLOAT", "FRACTAL_Z"), expect="ACLNN_SUCCESS"),
    # four calls in one test, weight and posWeight null throughout
    case("case_unsupport_dtype_1", gradOutput=_t("INT64"), self=_t("INT64"), target=_t("INT64", fill=1.0),
         weightOptional=NULL, posWeightOptional=NULL, reduction=NONE, gradTarget=T(SHAPE, "INT64", "ND"),
         expect="ACLNN_ERR_PARAM_INVALID", note="every tensor INT64"),
    case("case_unsupport_dtype_2", gradOutput=_t("INT64"), self=_t("FLOAT"), target=_t("INT64", fill=1.0),
         weightOptional=NULL, posWeightOptional=NULL, reduction=NONE, gradTarget=T(SHAPE, "INT64", "ND"),
         expect="ACLNN_ERR_PARAM_INVALID", note="gradOutput INT64"),
    case("case_unsupport_dtype_3", gradOutput=_t("FLOAT"), self=_t("FLOAT"), target=_t("INT64", fill=1.0),
         weightOptional=NULL, posWeightOptional=NULL, reduction=NONE, gradTarget=T(SHAPE, "INT64", "ND"),
         expect="ACLNN_ERR_PARAM_INVALID", note="target and gradTarget INT64"),
    case("case_unsupport_dtype_4", **_F32, weightOptional=NULL, posWeightOptional=NULL, reduction=NONE,
         gradTarget=T(SHAPE, "INT64", "ND"), expect="ACLNN_ERR_PARAM_INVALID", note="only gradTarget INT64"),
    case("case_dimension8", gradOutput=_t("FLOAT", shape=(1, 2, 3, 4, 5, 6, 7, 8, 9)),
         self=_t("FLOAT", shape=(1, 2, 3, 4, 5, 6, 7, 8, 9)),
         target=_t("FLOAT", fill=1.0, shape=(1, 2, 3, 4, 5, 6, 7, 8, 9)), weightOptional=NULL,
         posWeightOptional=NULL, reduction=SUM, gradTarget=T((1, 2, 3, 4, 5, 6, 7, 8, 9), "FLOAT", "ND"),
         expect="ACLNN_ERR_PARAM_INVALID", note="9 dimensions"),
    case("case_out_format_invalid", gradOutput=_t("FLOAT", shape=(1, 2, 3, 4)), self=_t("FLOAT", shape=(1, 2, 3, 4)),
         target=T((1, 2, 3, 4), "FLOAT", "ND", values=(1.0,) * 24), weightOptional=NULL, posWeightOptional=NULL,
         reduction=SUM, gradTarget=T((1, 2, 3, 4), "FLOAT", "NCHW"), expect="ACLNN_ERR_PARAM_INVALID",
         note="gradTarget NCHW while self is ND: formats must match (the test hands target 362880 ones for its 24 "
              "elements; values do not affect the status)"),
    case("case_unsupport_shape", gradOutput=_t("FLOAT", shape=(3, 1, 4, 2, 5)), self=_t("FLOAT"),
         target=_t("FLOAT", fill=1.0, shape=(5, 4, 3, 2, 1)), weightOptional=NULL, posWeightOptional=NULL,
         reduction=SUM, gradTarget=T((), "FLOAT", "ND"), expect="ACLNN_ERR_PARAM_INVALID",
         note="target (5,4,3,2,1) differs from self (1,2,3,4,5): the first shape rule broken"),
    case("case_null_1", gradOutput=NULL, self=_t("FLOAT"), target=_t("FLOAT", fill=1.0), weightOptional=NULL,
         posWeightOptional=NULL, reduction=SUM, gradTarget=T(SHAPE, "FLOAT", "ND"),
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_null_2", gradOutput=_t("FLOAT"), self=NULL, target=_t("FLOAT", fill=1.0), weightOptional=NULL,
         posWeightOptional=NULL, reduction=SUM, gradTarget=T(SHAPE, "FLOAT", "ND"),
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_null_3", gradOutput=_t("FLOAT"), self=_t("FLOAT"), target=NULL, weightOptional=NULL,
         posWeightOptional=NULL, reduction=SUM, gradTarget=T(SHAPE, "FLOAT", "ND"),
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_null_4", **_F32, weightOptional=NULL, posWeightOptional=NULL, reduction=SUM, gradTarget=NULL,
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    *_each_reduction("Ascend910B2_case_bf16_reduce_valid", dtype="BF16", weight=_t("BF16", fill=2.0),
                     pos_weight=_t("BF16", fill=2.0)),
]
