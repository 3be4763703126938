"""aclnnHardshrinkBackward(gradOutput, self, lambd, gradInput): CANN's op_api unit tests as data.

Each tensor's dtype must be in the support list (A2: BF16, FLOAT, FLOAT16); gradOutput and self promote and
broadcast.  The empty-tensor shortcut runs BEFORE the broadcast check, so an empty gradOutput with any self shape
succeeds (case_empty_tensor).  Every case calls only the first phase.
"""
from tests.op_api_cases import NULL, S, T, case

OP = "aclnnHardshrinkBackward"
SOURCE = "activation/hard_shrink_grad/tests/ut/op_host/op_api/test_aclnn_hardshrink_backward.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

_G16 = (1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0)
_X16 = tuple(float(v) for v in range(1, 17))
_S4 = [1, 1, 4, 4]
_LAMBD = S(8.0, "FLOAT")


def _pair(dtype_g="FLOAT", dtype_x="FLOAT"):
    return dict(gradOutput=T(_S4, dtype_g, values=_G16), self=T(_S4, dtype_x, values=_X16))


CASES = [
    case("case_normal", **_pair(), lambd=_LAMBD, gradInput=T(_S4), expect="ACLNN_SUCCESS"),
    case("case_nullptr_1", **_pair(), lambd=_LAMBD, gradInput=NULL, expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_nullptr_2", **_pair(), lambd=NULL, gradInput=T(_S4), expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_nullptr_3", gradOutput=T(_S4, values=_G16), self=NULL, lambd=_LAMBD, gradInput=T(_S4),
         expect="ACLNN_ERR_PARAM_NULLPTR",
         note="CANN's test builds this null-self call but then re-runs the first (null gradInput) one by mistake; "
              "null self gives the same status by the code"),
    case("case_nullptr_4", gradOutput=NULL, self=T(_S4, values=_X16), lambd=_LAMBD, gradInput=T(_S4),
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    case("case_dtype_float16", **_pair("FLOAT16", "FLOAT16"), lambd=_LAMBD, gradInput=T(_S4, "FLOAT16"),
         expect="ACLNN_SUCCESS"),
    case("case_dtype_double", **_pair("DOUBLE", "DOUBLE"), lambd=_LAMBD, gradInput=T(_S4, "DOUBLE"),
         expect="ACLNN_ERR_PARAM_INVALID"),
    case("case_promote_dtype", **_pair("FLOAT", "FLOAT16"), lambd=_LAMBD, gradInput=T(_S4, "FLOAT16"),
         expect="ACLNN_SUCCESS", note="FLOAT and FLOAT16 promote to FLOAT, which can be cast to gradInput's FLOAT16"),
    case("case_broadcast_succ", gradOutput=T(_S4), self=T([1, 1, 1, 4], "FLOAT16", values=(1.0, 2.0, 3.0, 4.0)),
         lambd=_LAMBD, gradInput=T(_S4), expect="ACLNN_SUCCESS"),
    case("case_broadcast_fail", gradOutput=T(_S4, values=_G16),
         self=T([1, 1, 1, 3], "FLOAT16", values=(1.0, 2.0, 3.0)), lambd=_LAMBD,
         gradInput=T([1, 1, 1, 3], "FLOAT16"), expect="ACLNN_ERR_PARAM_INVALID",
         note="last dims 4 and 3 do not broadcast"),
    case("case_empty_tensor", gradOutput=T([0]), self=T([1, 1, 1, 4], "FLOAT16", values=(1.0, 2.0, 3.0, 4.0)),
         lambd=_LAMBD, gradInput=T([1, 1, 1, 4], "FLOAT16"), expect="ACLNN_SUCCESS",
         note="[0] and [1,1,1,4] do not broadcast, but the empty shortcut returns before the broadcast check"),
    case("case_not_contiguous", gradOutput=T([2, 4], strides=[1, 2], storage_shape=[4, 2]),
         self=T([2, 4], strides=[1, 2], storage_shape=[4, 2]), lambd=_LAMBD,
         gradInput=T([2, 4], strides=[1, 2], storage_shape=[4, 2]), expect="ACLNN_SUCCESS"),
]
