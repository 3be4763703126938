"""aclnnBinaryCrossEntropyBackward: CANN's op_api unit tests as data.

Every case runs on the harness's default SoC (HARNESS_PRODUCT, Atlas A2); no test in the file sets one (the name
prefix "ascend910B2_" of the last test is only a name). The tests assert the status of the first phase only; the
harness's precision step is empty, so no case compares values.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnBinaryCrossEntropyBackward"
SOURCE = "loss/binary_cross_entropy_grad/tests/ut/op_api/test_aclnn_binary_cross_entropy_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

NONE, MEAN, SUM = 0, 1, 2
SHAPE = (1, 2, 3, 4, 5)          # 120 elements


def _full(dtype, fmt="ND", *, fill=None, shape=SHAPE, rng=(0, 1)):
    """A tensor of the file's usual shape: random in [0, 1], or every element equal to `fill`."""
    n = 1
    for d in shape:
        n *= d
    if fill is None:
        return T(shape, dtype, fmt, value_range=rng)
    return T(shape, dtype, fmt, values=(float(fill),) * n)


def _weighted(name, dtype, reduction):
    return case(name, gradOutput=_full(dtype), self=_full(dtype), target=_full(dtype, fill=1.0),
                weightOptional=_full(dtype, fill=2.0), reduction=reduction, out=T(SHAPE, dtype, "ND"),
                expect="ACLNN_SUCCESS")


def _unweighted(name, dtype, reduction):
    return case(name, gradOutput=_full(dtype), self=_full(dtype), target=_full(dtype, fill=1.0),
                weightOptional=NULL, reduction=reduction, out=T(SHAPE, dtype, "ND"), expect="ACLNN_SUCCESS")


_F32 = dict(gradOutput=_full("FLOAT"), self=_full("FLOAT"), target=_full("FLOAT", fill=1.0))

CASES = [
    _weighted("case_f16_reduce_none", "FLOAT16", NONE),
    _weighted("case_f16_reduce_mean", "FLOAT16", MEAN),
    _weighted("case_f16_reduce_sum", "FLOAT16", SUM),
    _weighted("case_f32_reduce_none", "FLOAT", NONE),
    _weighted("case_f32_reduce_mean", "FLOAT", MEAN),
    _weighted("case_f32_reduce_sum", "FLOAT", SUM),
    _unweighted("case_f16_reduce_none_no_weight", "FLOAT16", NONE),
    _unweighted("case_f16_reduce_mean_no_weight", "FLOAT16", MEAN),
    _unweighted("case_f16_reduce_sum_no_weight", "FLOAT16", SUM),
    _unweighted("case_f32_reduce_none_no_weight", "FLOAT", NONE),
    _unweighted("case_f32_reduce_mean_no_weight", "FLOAT", MEAN),
    _unweighted("case_f32_reduce_sum_no_weight", "FLOAT", SUM),
    case("case_empty", gradOutput=T((2, 0), "FLOAT", "ND", value_range=(0, 1)),
         self=T((2, 0), "FLOAT", "ND", value_range=(0, 1)), target=T((2, 0), "FLOAT", "ND"),
         weightOptional=T((2, 0), "FLOAT", "ND"), reduction=NONE, out=T((2, 0), "FLOAT", "ND"),
         expect="ACLNN_SUCCESS", note="empty self: checks pass, workspace 0, nothing computed"),
    # four calls in one test: integer dtypes anywhere are rejected by the dtype check
    case("case_unsupport_dtype_1", gradOutput=_full("INT64"), self=_full("INT64"), target=_full("INT64", fill=1.0),
         weightOptional=NULL, reduction=NONE, out=T(SHAPE, "INT64", "ND"), expect="ACLNN_ERR_PARAM_INVALID",
         note="every tensor INT64"),
    case("case_unsupport_dtype_2", gradOutput=_full("INT64"), self=_full("FLOAT"), target=_full("INT64", fill=1.0),
         weightOptional=NULL, reduction=NONE, out=T(SHAPE, "INT64", "ND"), expect="ACLNN_ERR_PARAM_INVALID",
         note="self FLOAT, the others INT64"),
    case("case_unsupport_dtype_3", gradOutput=_full("FLOAT"), self=_full("FLOAT"), target=_full("INT64", fill=1.0),
         weightOptional=NULL, reduction=NONE, out=T(SHAPE, "INT64", "ND"), expect="ACLNN_ERR_PARAM_INVALID",
         note="target and out INT64"),
    case("case_unsupport_dtype_4", **_F32, weightOptional=NULL, reduction=NONE, out=T(SHAPE, "INT64", "ND"),
         expect="ACLNN_ERR_PARAM_INVALID", note="only out INT64"),
    case("case_dimension8", gradOutput=_full("FLOAT", shape=(1, 2, 3, 4, 5, 6, 7, 8, 9)),
         self=_full("FLOAT", shape=(1, 2, 3, 4, 5, 6, 7, 8, 9)),
         target=_full("FLOAT", fill=1.0, shape=(1, 2, 3, 4, 5, 6, 7, 8, 9)), weightOptional=NULL, reduction=SUM,
         out=T((1, 2, 3, 4, 5, 6, 7, 8, 9), "FLOAT", "ND"), expect="ACLNN_ERR_PARAM_INVALID",
         note="9 dimensions: more than the 8 allowed"),
    case("case_dtype_promotion", gradOutput=_full("FLOAT16"), self=_full("FLOAT16"),
         target=_full("FLOAT16", fill=1.0), weightOptional=_full("FLOAT16", fill=2.0), reduction=NONE,
         out=T(SHAPE, "FLOAT", "ND"), expect="ACLNN_SUCCESS",
         note="FLOAT16 inputs, FLOAT out: the promoted FLOAT16 result can be cast to out's dtype"),
    case("case_unsupport_shape", gradOutput=_full("FLOAT", shape=(3, 1, 4, 2, 5)), self=_full("FLOAT"),
         target=_full("FLOAT", fill=1.0, shape=(5, 4, 3, 2, 1)), weightOptional=NULL, reduction=SUM,
         out=T((), "FLOAT", "ND"), expect="ACLNN_ERR_PARAM_INVALID",
         note="out is 0-d while self is (1,2,3,4,5); target and gradOutput do not broadcast to self either"),
    # four calls in one test: each required pointer null in turn (weight is null throughout)
    case("case_null_1", gradOutput=NULL, self=_full("FLOAT"), target=_full("FLOAT", fill=1.0), weightOptional=NULL,
         reduction=SUM, out=T(SHAPE, "FLOAT", "ND"), expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_null_2", gradOutput=_full("FLOAT"), self=NULL, target=_full("FLOAT", fill=1.0), weightOptional=NULL,
         reduction=SUM, out=T(SHAPE, "FLOAT", "ND"), expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_null_3", gradOutput=_full("FLOAT"), self=_full("FLOAT"), target=NULL, weightOptional=NULL,
         reduction=SUM, out=T(SHAPE, "FLOAT", "ND"), expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_null_4", **_F32, weightOptional=NULL, reduction=SUM, out=NULL, expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_NC1HWC0", gradOutput=_full("FLOAT", "NC1HWC0", shape=(1, 2, 3, 4, 16)),
         self=_full("FLOAT", "NC1HWC0", shape=(1, 2, 3, 4, 16)),
         target=_full("FLOAT", "NC1HWC0", fill=1.0, shape=(1, 2, 3, 4, 16)),
         weightOptional=_full("FLOAT", "NC1HWC0", fill=2.0, shape=(1, 2, 3, 4, 16)), reduction=MEAN,
         out=T((1, 2, 3, 4, 16), "FLOAT", "NC1HWC0"), expect="ACLNN_SUCCESS",
         note="a private format is accepted when self, target and weight share it (only formats are compared)"),
    case("case_FRACTAL_Z", gradOutput=_full("FLOAT", "FRACTAL_Z", shape=(16, 16, 16, 16)),
         self=_full("FLOAT", "FRACTAL_Z", shape=(16, 16, 16, 16)),
         target=_full("FLOAT", "FRACTAL_Z", fill=1.0, shape=(16, 16, 16, 16)),
         weightOptional=_full("FLOAT", "FRACTAL_Z", fill=2.0, shape=(16, 16, 16, 16)), reduction=MEAN,
         out=T((16, 16, 16, 16), "FLOAT", "FRACTAL_Z"), expect="ACLNN_SUCCESS"),
    case("case_non_contiguous",
         gradOutput=T((5, 4), "FLOAT", "ND", strides=(1, 5), storage_shape=(4, 5), value_range=(0, 1)),
         self=T((5, 4), "FLOAT", "ND", strides=(1, 5), storage_shape=(4, 5), value_range=(0, 1)),
         target=T((5, 4), "FLOAT", "ND", strides=(1, 5), storage_shape=(4, 5), values=(1.0,) * 20),
         weightOptional=T((5, 4), "FLOAT", "ND", strides=(1, 5), storage_shape=(4, 5), values=(2.0,) * 20),
         reduction=MEAN, out=T((5, 4), "FLOAT", "ND"), expect="ACLNN_SUCCESS",
         note="inputs are transposed views of (4, 5) buffers"),
    case("ascend910B2_case_bf16_reduce_sum", gradOutput=_full("BF16"), self=_full("BF16"),
         target=_full("BF16", fill=1.0), weightOptional=_full("BF16", fill=2.0), reduction=SUM,
         out=T(SHAPE, "BF16", "ND"), expect="ACLNN_SUCCESS",
         note="BF16 is accepted on the default SoC (A2); the name's SoC prefix is not acted on by the harness"),
]
