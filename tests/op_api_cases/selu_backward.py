"""aclnnSeluBackward(gradOutput, result, gradInput): CANN's op_api unit tests as data.

The three tensors must share one dtype from the support list (A2: FLOAT, FLOAT16, INT32, INT8, BF16) and one shape;
there is no rank limit (more than 8 dims are flattened) and formats are not checked.  Loops over dtypes and formats
in CANN's tests become one case per iteration (suffix _1, _2, ... in loop order).  Every case calls only the first
phase.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnSeluBackward"
SOURCE = "activation/selu_grad/tests/ut/op_host/op_api/test_aclnn_selubackward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

_S4 = [2, 16, 32, 16]


def _all(shape, dtype="FLOAT", fmt="ND", value_range=(-2, 2)):
    return dict(gradOutput=T(shape, dtype, fmt, value_range=value_range), result=T(shape, dtype, fmt),
                gradInput=T(shape, dtype, fmt))


def _loop(name, values, make, expect, what):
    return [case(f"{name}_{i}", **make(v), expect=expect, note=f"one iteration of a loop over {what}: {v}")
            for i, v in enumerate(values, start=1)]


_BAD_DTYPES = ["DT_UNDEFINED", "INT16", "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "DOUBLE", "BOOL", "STRING",
               "COMPLEX64", "COMPLEX128"]
_FORMATS_4D = ["UNDEFINED", "NCHW", "NHWC", "ND", "NC1HWC0", "FRACTAL_Z", "NC1HWC0_C04", "HWCN", "NDHWC",
               "FRACTAL_NZ", "NCDHW", "NDC1HWC0", "FRACTAL_Z_3D", "NC", "NCL"]

CASES = [
    *_loop("test_selubackward_dataType_error", _BAD_DTYPES, lambda dt: _all(_S4, dt), "ACLNN_ERR_PARAM_INVALID",
           "unsupported dtypes (all three tensors)"),
    *_loop("test_selubackward_format_1", _FORMATS_4D, lambda f: _all(_S4, fmt=f), "ACLNN_SUCCESS",
           "formats on 4-D FLOAT tensors (formats are not checked)"),
    *_loop("test_selubackward_format_2", ["NDHWC", "NCDHW", "ND"], lambda f: _all([2, 16, 32, 16, 16], fmt=f),
           "ACLNN_SUCCESS", "formats on 5-D FLOAT tensors"),
    *_loop("test_selubackward_format_3", ["ND", "NCL"], lambda f: _all([2, 16, 32], fmt=f), "ACLNN_SUCCESS",
           "formats on 3-D FLOAT tensors"),
    case("test_selubackward_inconsistent_shape", gradOutput=T(_S4), result=T([2, 16, 32, 18]),
         gradInput=T([2, 16, 32, 15]), expect="ACLNN_ERR_PARAM_INVALID"),
    case("test_selubackward_inconsistent_dtype", gradOutput=T(_S4), result=T(_S4, "FLOAT16"), gradInput=T(_S4),
         expect="ACLNN_ERR_PARAM_INVALID", note="both dtypes are supported; the three must be equal"),
    case("test_selubackward_empty_input", **_all([0, 16], value_range=(-1, 1)), expect="ACLNN_SUCCESS"),
    case("test_selubackward_nullptr_input", gradOutput=T(_S4), result=NULL, gradInput=T(_S4),
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("test_selubackward_nullptr_out", gradOutput=T(_S4, value_range=(-1, 1)), result=T(_S4, value_range=(-1, 1)),
         gradInput=NULL, expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("test_selubackward_FP16", **_all([2, 16], "FLOAT16", value_range=(-1, 1)), expect="ACLNN_SUCCESS"),
    case("test_selubackward_INT32", **_all([2, 16], "INT32", value_range=(-1, 1)), expect="ACLNN_SUCCESS",
         note="integer dtypes are accepted"),
    case("test_selubackward_INT8", **_all([2, 16], "INT8", value_range=(-1, 1)), expect="ACLNN_SUCCESS"),
    case("test_selubackward_larger_than_8_dim", **_all([2, 2, 2, 2, 2, 2, 2, 2, 16], "FLOAT16", value_range=(-1, 1)),
         expect="ACLNN_SUCCESS", note="9 dimensions succeed: the op_api flattens ranks above 8 to 1-D"),
]
