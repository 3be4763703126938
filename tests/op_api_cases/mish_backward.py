"""aclnnMishBackward(gradOutput, self, gradInput): CANN's op_api unit tests as data.

self's dtype must cast to gradInput's; gradOutput, self and gradInput must each be in the support list (A2: FLOAT,
FLOAT16, BF16); gradOutput and self broadcast to gradInput's shape (rank <= 8).  Every case calls only the first
phase; the cases CANN marks for a value check call `TestPrecision()`, an empty function in CANN's harness.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnMishBackward"
SOURCE = "activation/mish_grad/tests/ut/op_host/op_api/test_aclnn_mish_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

_PREC = "precision case in CANN (TestPrecision, a no-op there); ported as a status case"
_S = [2, 2, 3, 2]
_R = (-1, 1)


def _all(shape, dtype="FLOAT", fmt="ND", value_range=_R):
    return dict(gradOutput=T(shape, dtype, fmt, value_range=value_range),
                self=T(shape, dtype, fmt, value_range=value_range), gradInput=T(shape, dtype, fmt))


CASES = [
    case("case_001_float", **_all(_S), expect="ACLNN_SUCCESS", note=_PREC),
    case("case_broadcast_001_float", gradOutput=T(_S, value_range=_R), self=T([2, 2, 3, 1], value_range=_R),
         gradInput=T(_S), expect="ACLNN_SUCCESS", note="self broadcasts along the last dim. " + _PREC),
    case("case_002_float16", **_all(_S, "FLOAT16"), expect="ACLNN_SUCCESS", note=_PREC),
    case("case_003_float64", **_all(_S, "DOUBLE"), expect="ACLNN_ERR_PARAM_INVALID"),
    case("case_004_invalid_type_int", **_all(_S, "INT32"), expect="ACLNN_ERR_PARAM_INVALID"),
    case("case_005_promotetype", gradOutput=T([2, 3, 2], value_range=_R), self=T([2, 3, 2], "FLOAT16", value_range=_R),
         gradInput=T([2, 3, 2]), expect="ACLNN_SUCCESS", note="FLOAT and FLOAT16 promote to FLOAT. " + _PREC),
    case("case_006_empty_tensor", **_all([1, 1, 0, 2], value_range=None), expect="ACLNN_SUCCESS",
         note="the doc says empty tensors are not supported, but the op_api returns success. " + _PREC),
    case("case_007_not_contiguous",
         gradOutput=T([5, 4], strides=[1, 5], storage_shape=[4, 5], value_range=(-2, 2)),
         self=T([5, 4], strides=[1, 5], storage_shape=[4, 5], value_range=(-2, 2)),
         gradInput=T([5, 4], format="HWCN"), expect="ACLNN_SUCCESS",
         note="transposed inputs; a contiguous HWCN output. " + _PREC),
    case("case_008_nullptr_1", gradOutput=NULL, self=T([10, 5]), gradInput=T([10, 5]),
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_008_nullptr_2", gradOutput=T([10, 5]), self=NULL, gradInput=T([10, 5]),
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_008_nullptr_3", gradOutput=T([10, 5]), self=T([10, 5]), gradInput=NULL,
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_009_max_dim", gradOutput=T([1, 2, 3, 4, 5, 6, 7, 8, 9]), self=T([1, 1, 2, 3]),
         gradInput=T([1, 1, 2, 3]), expect="ACLNN_ERR_PARAM_INVALID", note="gradOutput has 9 dimensions"),
    case("case_010_cant_broadcast", gradOutput=T([1, 2, 2, 3]), self=T([1, 3, 2, 3]), gradInput=T([1, 1, 2, 3]),
         expect="ACLNN_ERR_PARAM_INVALID", note="dims 2 and 3 do not broadcast"),
    case("case_011_bfloat16_1", **_all(_S, "BF16"), product="ascend910b", expect="ACLNN_SUCCESS",
         note="CANN's test expects success when the SoC is ASCEND910B or ASCEND910_93 (the harness default)"),
    case("case_011_bfloat16_2", **_all(_S, "BF16"), product="ascend910", expect="ACLNN_ERR_PARAM_INVALID",
         note="the test's else branch (any other SoC), never run by CANN's harness; the op_api code agrees for "
              "910 and 310P, but on the 950 BF16 is accepted"),
    case("case_012_8d_shape", **_all([1, 2, 3, 4, 5, 6, 7, 8]), expect="ACLNN_SUCCESS", note="8 dimensions"),
    case("case_013_scalar", **_all([]), expect="ACLNN_SUCCESS", note="0-d tensors"),
    case("case_014_large_shape", **_all([1024, 1024], "FLOAT16"), expect="ACLNN_SUCCESS"),
    case("case_015_nchw_format", **_all([2, 64, 112, 112], "FLOAT16", "NCHW"), expect="ACLNN_SUCCESS"),
    case("case_016_value_range", **_all([2, 4, 6, 8], value_range=(-100, 100)), expect="ACLNN_SUCCESS"),
]
