"""aclnnHardswishBackwardV2(gradOutput, self, out): CANN's op_api unit tests as data.

gradOutput, self and out must share one dtype from the support list (A2: FLOAT, FLOAT16, BF16) and one shape (no
broadcast, rank <= 8); formats are not checked.  Every case calls only the first phase; the cases CANN marks for a
value check call `TestPrecision()`, an empty function in CANN's harness, so only the status is checked.

The same 16 tests (same names and expectations) exist for aclnnHardswishBackward in
`activation/hard_swish_grad/tests/ut/op_host/op_api/test_hardswish_backward.cpp`; this V2 file is the one CANN
compiles.  The two ops differ only in the kernel's value at x = -3 and x = 3, which no case checks.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnHardswishBackwardV2"
SOURCE = "activation/hard_swish_grad_v2/tests/ut/op_host/op_api/test_aclnn_hardswish_backward_v2.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

_PREC = "precision case in CANN (TestPrecision, a no-op there); ported as a status case"
_R = (-2, 2)


def _fmt_case(fmt):
    return case(f"normal_dtype_float32_format_{fmt.lower()}", gradOutput=T([2, 3], format=fmt, value_range=_R),
                self=T([2, 3], format=fmt, value_range=_R), out=T([2, 3], format=fmt), expect="ACLNN_SUCCESS",
                note=f"{fmt} on a 2-D tensor: formats are not checked. " + _PREC)


CASES = [
    *[_fmt_case(fmt) for fmt in ["ND", "NHWC", "NCHW", "HWCN", "NCDHW", "NDHWC"]],
    case("normal_empty_tensor", gradOutput=T([0, 3]), self=T([0, 3]), out=T([0, 3]), expect="ACLNN_SUCCESS",
         note=_PREC),
    case("abnormal_grad_output_nullptr", gradOutput=NULL, self=T([2, 3]), out=T([2, 3]),
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("abnormal_self_nullptr", gradOutput=T([2, 3]), self=NULL, out=T([2, 3]), expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("abnormal_out_nullptr", gradOutput=T([2, 3]), self=T([2, 3]), out=NULL, expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("abnormal_dtype_grad_output_int64", gradOutput=T([2, 3], "INT64"), self=T([2, 3]), out=T([2, 3]),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("abnormal_dtype_self_int64", gradOutput=T([2, 3]), self=T([2, 3], "INT64"), out=T([2, 3]),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("abnormal_dtype_grad_output_self_unequal", gradOutput=T([2, 3]), self=T([2, 3], "FLOAT16"), out=T([2, 3]),
         expect="ACLNN_ERR_PARAM_INVALID", note="no promotion: gradOutput and out must have self's dtype"),
    case("abnormal_shape_grad_output_self_unequal", gradOutput=T([2, 3]), self=T([1, 3]), out=T([2, 3]),
         expect="ACLNN_ERR_PARAM_INVALID", note="[2,3] vs [1,3]: no broadcasting"),
    case("abnormal_shape_dim_greater_than_threshold", gradOutput=T([7, 9, 11, 3, 4, 6, 9, 2, 2]),
         self=T([7, 9, 11, 3, 4, 6, 9, 2, 2]), out=T([7, 9, 11, 3, 4, 6, 9, 2, 2]),
         expect="ACLNN_ERR_PARAM_INVALID", note="9 dimensions"),
    case("ascend910B2_hardswish_grad_bf16_precision", gradOutput=T([2, 3], "BF16", value_range=_R),
         self=T([2, 3], "BF16", value_range=_R), out=T([2, 3], "BF16"), expect="ACLNN_SUCCESS",
         note="BF16 is accepted on A2/A3 and the 950; no TestPrecision call despite the name"),
]
