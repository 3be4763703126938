"""aclnnSigmoidBackward(gradOutput, output, gradInput): CANN's op_api unit tests as data.

`output` is sigmoid's forward result.  gradOutput, output and gradInput must be in {FLOAT, FLOAT16, DOUBLE,
COMPLEX64, COMPLEX128, BF16} (BF16 gradOutput only on A2/A3-class SoCs); gradOutput and output promote and broadcast
to gradInput's shape.  Every case calls only the first phase; case_1 also calls `TestPrecision()`, an empty function
in CANN's harness.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnSigmoidBackward"
SOURCE = "activation/sigmoid_grad/tests/ut/op_api/test_aclnn_sigmoid_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

_S4 = [1, 16, 1, 1]
_G16 = tuple(float(v) for v in range(1, 17))
_TWOS = (2.0,) * 16
_FORMATS = ["UNDEFINED", "NCHW", "NHWC", "ND", "NC1HWC0", "FRACTAL_Z", "NC1HWC0_C04", "HWCN", "NDHWC", "FRACTAL_NZ",
            "NCDHW", "NDC1HWC0", "FRACTAL_Z_3D"]


def _all(shape, dtype="FLOAT", fmt="ND", g_range=(-1, 1), y_range=(0, 1)):
    return dict(gradOutput=T(shape, dtype, fmt, value_range=g_range), output=T(shape, dtype, fmt, value_range=y_range),
                gradInput=T(shape, dtype, fmt))


CASES = [
    case("case_1", gradOutput=T(_S4, values=_G16), output=T(_S4, values=_TWOS), gradInput=T(_S4),
         expect="ACLNN_SUCCESS",
         note="output = 2 is outside sigmoid's range; precision case in CANN (TestPrecision, a no-op there)"),
    case("case_2", gradOutput=T([0]), output=T([0]), gradInput=T([0]), expect="ACLNN_SUCCESS"),
    case("case_3_1", gradOutput=NULL, output=T(_S4), gradInput=T(_S4), expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_3_2", gradOutput=T(_S4), output=NULL, gradInput=T(_S4), expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_4", gradOutput=T(_S4), output=T(_S4), gradInput=NULL, expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_5", gradOutput=T(_S4), output=T(_S4, "FLOAT16"), gradInput=T(_S4), expect="ACLNN_SUCCESS",
         note="FLOAT and FLOAT16 promote to FLOAT"),
    *[case(f"case_6_{i}", gradOutput=T(_S4, format=f), output=T(_S4, format=f), gradInput=T(_S4, format=f),
           expect="ACLNN_SUCCESS", note=f"one iteration of a loop over formats: {f} (formats are not checked)")
      for i, f in enumerate(_FORMATS, start=1)],
    case(f"case_6_{len(_FORMATS) + 1}", gradOutput=T(_S4), output=T(_S4), gradInput=T(_S4, format="NCHW"),
         expect="ACLNN_SUCCESS", note="ND inputs, NCHW output"),
    case("case_7", gradOutput=T(_S4), output=T([1, 1, 4, 4]), gradInput=T(_S4), expect="ACLNN_ERR_PARAM_INVALID",
         note="the broadcast shape [1,16,4,4] is not gradInput's shape"),
    case("case_8", gradOutput=T([1, 4, 1, 1]), output=T([1, 1, 4, 4], "FLOAT16"), gradInput=T([1, 4, 4, 4]),
         expect="ACLNN_SUCCESS", note="broadcast and promotion together"),
    case("case_9_1", gradOutput=T(_S4, "BF16", values=_G16), output=T(_S4, "BF16", values=_TWOS),
         gradInput=T(_S4, "BF16"), product="ascend910b", expect="ACLNN_SUCCESS",
         note="CANN's test expects success when the SoC is ASCEND910B (the harness default)"),
    case("case_9_2", gradOutput=T(_S4, "BF16", values=_G16), output=T(_S4, "BF16", values=_TWOS),
         gradInput=T(_S4, "BF16"), product="ascend910", expect="ACLNN_ERR_PARAM_INVALID",
         note="the test's else branch (any other SoC), never run by CANN's harness; the op_api code agrees for 910 "
              "and 310P, but accepts BF16 on ASCEND910_93 and (by the UT stub's enum order) the 950"),
    case("case_10", **_all([1, 2, 3, 4, 5, 6, 7, 8]), expect="ACLNN_SUCCESS", note="8 dimensions"),
    case("case_11", **_all([]), expect="ACLNN_SUCCESS", note="0-d tensors"),
    case("case_12", **_all([1024, 1024]), expect="ACLNN_SUCCESS"),
    case("case_13", **_all([2, 64, 112, 112], "FLOAT16", "NCHW"), expect="ACLNN_SUCCESS"),
    case("case_14", **_all([2, 4, 6, 8], g_range=(-100, 100)), expect="ACLNN_SUCCESS"),
]
