"""aclnnHardtanhBackward(gradOutput, self, min, max, out): CANN's op_api unit tests as data.

gradOutput, self and out must each be in the support list (A2: FLOAT, FLOAT16, BF16), gradOutput's dtype must equal
self's, and gradOutput and self must share one shape of rank <= 8; out's shape is not checked.  min and max are
FLOAT scalars (-1 and 1 in every case).  Every case calls only the first phase; the cases CANN marks for a value
check call `TestPrecision()`, an empty function in CANN's harness, so only the status is checked.
"""
from tests.op_api_cases import NULL, S, T, case

OP = "aclnnHardtanhBackward"
SOURCE = "activation/hardtanh_grad/tests/ut/op_api/test_aclnn_hardtanh_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

_PREC = "precision case in CANN (TestPrecision, a no-op there); ported as a status case"
_BOUNDS = {"min": S(-1.0, "FLOAT"), "max": S(1.0, "FLOAT")}
_R = (-2, 2)


def _all(dtype="FLOAT", fmt="ND", shape=(2, 3), value_range=None):
    return dict(gradOutput=T(list(shape), dtype, fmt, value_range=value_range),
                self=T(list(shape), dtype, fmt, value_range=value_range), **_BOUNDS,
                out=T(list(shape), dtype, fmt))


CASES = [
    case("normal_dtype_float32_format_nd", **_all(), expect="ACLNN_SUCCESS", note=_PREC),
    *[case(f"abnormal_dtype_ACL_{dt}_format_nd", **_all(dt), expect="ACLNN_ERR_PARAM_INVALID")
      for dt in ["INT64", "INT16", "INT8", "UINT8", "COMPLEX64", "COMPLEX128"]],
    case("normal_dtype_float16_format_nd", **_all("FLOAT16"), expect="ACLNN_SUCCESS", note=_PREC),
    case("Ascend910B2_normal_dtype_bf16_format_nd", **_all("BF16"), expect="ACLNN_SUCCESS",
         note="BF16 is accepted on A2/A3 and the 950"),
    *[case(f"normal_dtype_float32_format_{fmt.lower()}", **_all(fmt=fmt, value_range=_R), expect="ACLNN_SUCCESS",
           note=f"{fmt} on a 2-D tensor: formats are not checked. " + _PREC)
      for fmt in ["NHWC", "NCHW", "HWCN", "NCDHW", "NDHWC"]],
    case("normal_empty_tensor", **_all(shape=(0, 3)), expect="ACLNN_SUCCESS",
         note="the doc says empty tensors are not supported, but the op_api returns success. " + _PREC),
    case("abnormal_grad_output_nullptr", gradOutput=NULL, self=T([2, 3]), **_BOUNDS, out=T([2, 3]),
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("abnormal_self_nullptr", gradOutput=T([2, 3]), self=NULL, **_BOUNDS, out=T([2, 3]),
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("abnormal_out_nullptr", gradOutput=T([2, 3]), self=T([2, 3]), **_BOUNDS, out=NULL,
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("abnormal_dtype_grad_output_int64", gradOutput=T([2, 3], "INT64"), self=T([2, 3]), **_BOUNDS,
         out=T([2, 3]), expect="ACLNN_ERR_PARAM_INVALID"),
    case("abnormal_dtype_self_int64", gradOutput=T([2, 3]), self=T([2, 3], "INT64"), **_BOUNDS, out=T([2, 3]),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("abnormal_dtype_grad_output_self_unequal", gradOutput=T([2, 3]), self=T([2, 3], "FLOAT16"), **_BOUNDS,
         out=T([2, 3]), expect="ACLNN_ERR_PARAM_INVALID", note="no promotion: gradOutput must have self's dtype"),
    case("abnormal_shape_grad_output_self_unequal", gradOutput=T([2, 3]), self=T([1, 3]), **_BOUNDS, out=T([2, 3]),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("abnormal_shape_dim_greater_than_threshold", **_all(shape=(7, 9, 11, 3, 4, 6, 9, 2, 2)),
         expect="ACLNN_ERR_PARAM_INVALID", note="9 dimensions"),
]
