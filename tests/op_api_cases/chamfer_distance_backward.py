"""aclnnChamferDistanceBackward: CANN's op_api unit tests as data.

The source lives under tests/ut/op_host/. Three tests run their body only when the SoC is ASCEND910B (the
harness's default, HARNESS_PRODUCT), so they carry product="ascend910b"; the fourth has no condition. Tensors are
built without values (the harness's default range [-2, 2], also for the INT32 index tensors). No case compares
values. The op has two outputs, gradXyz1 and gradXyz2.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnChamferDistanceBackward"
SOURCE = "loss/chamfer_distance_grad/tests/ut/op_host/test_aclnn_chamfer_distance_grad.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"


def _args(b, n, dtype, xyz1_dtype=None):
    """xyz1/xyz2 (b, n, 2), idx1/idx2 INT32 (b, n), gradDist1/2 (b, n), gradXyz1/2 (b, n, 2)."""
    return dict(xyz1=T((b, n, 2), xyz1_dtype or dtype), xyz2=T((b, n, 2), dtype), idx1=T((b, n), "INT32"),
                idx2=T((b, n), "INT32"), gradDist1=T((b, n), dtype), gradDist2=T((b, n), dtype),
                gradXyz1=T((b, n, 2), dtype), gradXyz2=T((b, n, 2), dtype))


CASES = [
    case("Ascend910B_case_float_normal", **_args(2, 1000, "FLOAT"), expect="ACLNN_SUCCESS", product="ascend910b"),
    case("Ascend910B_case_half_normal", **_args(32, 10000, "FLOAT16"), expect="ACLNN_SUCCESS", product="ascend910b"),
    case("Ascend910B_case_nullptr_normal", **{**_args(32, 10000, "FLOAT16"), "xyz1": NULL},
         expect="ACLNN_ERR_PARAM_NULLPTR", product="ascend910b"),
    case("Ascend910B_case_invalid_normal", **_args(32, 10000, "FLOAT16", xyz1_dtype="INT32"),
         expect="ACLNN_ERR_PARAM_INVALID", note="xyz1 INT32; runs on any SoC (no condition in the test)"),
]
