"""aclnnNLLLoss2dBackward: CANN's op_api unit tests as data.

Snake name: "NLL" is one acronym and "2d" stays attached to "Loss", as in CANN's own header file name
(op_api/aclnn_nll_loss2d_backward.h): nll_loss2d_backward.

The source lives under tests/ut/op_host/. Every case runs on the harness's default SoC (HARNESS_PRODUCT, Atlas A2);
the file sets none ("ascend910B2_" is only a name). Tensors built without a value range get the harness's default
[-2, 2]; the class-index tests draw targets from [0, C] inclusive, so C itself may occur (the status does not depend
on target values: no op_api check reads them). No case compares values. aclnnNLLLossBackward (same folder) has no
op_api unit test at all.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnNLLLoss2dBackward"
SOURCE = "loss/nll_loss_grad/tests/ut/op_host/test_aclnn_nll_loss2d_backward_l2.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"

NONE, MEAN, SUM = 0, 1, 2


def _nll(name, grad, self, target, weight, total, out, *, reduction=NONE, ignore=-100, expect="ACLNN_SUCCESS",
         note=""):
    return case(name, gradOutput=grad, self=self, target=target, weight=weight, reduction=reduction,
                ignoreIndex=ignore, totalWeight=total, out=out, expect=expect, note=note)


def _set(n, c, h, w, dtype="FLOAT", fmt="ND", *, total=0.0, grad_shape=None, grad_dtype=None):
    """The usual argument set of the file: self (n,c,h,w), target (n,h,w) INT64 in [0, c], weight ones (c,),
    totalWeight [total], gradOutput (n,h,w) (reduction none) or grad_shape, out like self."""
    return dict(grad=T(grad_shape if grad_shape is not None else (n, h, w), grad_dtype or dtype, fmt),
                self=T((n, c, h, w), dtype, fmt), target=T((n, h, w), "INT64", fmt, value_range=(0, c)),
                weight=T((c,), dtype, fmt, value_range=(1, 1)), total=T((1,), dtype, fmt, values=(total,)),
                out=T((n, c, h, w), dtype, fmt))


def _call(name, s, **kw):
    return _nll(name, s["grad"], s["self"], s["target"], s["weight"], s["total"], s["out"], **kw)


_B = _set(3, 150, 5, 6)           # the base set of most tests

CASES = [
    _call("case_001", _set(30, 150, 5, 6, total=150.0, grad_shape=()), reduction=MEAN,
          note="mean with a 0-d gradOutput and totalWeight [150]"),
    _call("case_002", _B),
    _call("case_003", _set(30, 150, 5, 6, total=150.0, grad_shape=()), reduction=SUM),
    _call("case_004", _set(3, 150, 5, 6, grad_dtype="FLOAT16"), expect="ACLNN_ERR_PARAM_INVALID",
          note="gradOutput FLOAT16 while self is FLOAT: all float tensors must share self's dtype"),
    _call("case_007", _B, reduction=3, expect="ACLNN_ERR_PARAM_INVALID",
          note="reduction 3: the gradOutput-shape rule runs before the reduction rule and already rejects the "
               "(3,5,6) gradOutput (only reduction 0 accepts a per-pixel gradOutput)"),
    _nll("case_008", _B["grad"], _B["self"], _B["target"], _B["weight"], _B["total"], NULL,
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    _nll("case_009", NULL, _B["self"], _B["target"], _B["weight"], _B["total"], _B["out"],
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    _call("case_010", {**_set(3, 150, 5, 6, "UINT32"), "target": _B["target"]}, expect="ACLNN_ERR_PARAM_INVALID",
          note="UINT32 self (and weight, totalWeight, out) is not a supported dtype"),
    _nll("case_011", T((3, 5, 6), "FLOAT", "ND", strides=(30, 1, 5), storage_shape=(3, 6, 5)),
         T((3, 150, 5, 6), "FLOAT", "ND", strides=(4500, 30, 1, 5), storage_shape=(3, 150, 6, 5)),
         T((3, 5, 6), "INT64", "ND", strides=(30, 1, 5), storage_shape=(3, 6, 5), value_range=(0, 150)),
         _B["weight"], _B["total"], _B["out"], note="gradOutput, self and target are views with H and W swapped"),
    _call("case_012", _set(3, 150, 0, 6), note="H = 0: empty self, workspace 0"),
    _nll("case_013", T((3, 4, 6, 1)), T((3, 150, 4, 6, 1)), T((3, 4, 6, 1), "INT64", value_range=(0, 150)),
         _B["weight"], _B["total"], T((3, 150, 4, 6, 1)), expect="ACLNN_ERR_PARAM_INVALID",
         note="self has 5 dims (must be 4); gradOutput equals target's shape, so that rule passes first"),
    _call("case_014", _set(16, 64, 16, 8, fmt="NCHW")),
    _call("case_015", _set(8, 128, 16, 16, fmt="NHWC"), note="formats are not checked"),
    _call("case_016", _set(16, 256, 8, 16, fmt="HWCN")),
    _call("case_017", _set(16, 512, 16, 8, fmt="NDHWC")),
    _call("case_018", {**_set(16, 1024, 8, 8, fmt="NCDHW"),
                       "grad": T((16, 8, 8), "FLOAT", "NCDHW", value_range=(-1, 1)),
                       "self": T((16, 1024, 8, 8), "FLOAT", "NCDHW", value_range=(-1, 1))}),
    _call("case_019", _set(16, 32, 16, 16)),
    _call("case_020", {**_set(8, 1024, 8, 16, fmt="NCDHW"), "self": T((8, 1024, 8, 16), "FLOAT", "NCHW"),
                       "out": T((8, 1024, 8, 16), "FLOAT", "NCHW")},
          note="self/out NCHW, the others NCDHW: mixed formats pass"),
    _nll("case_021", _B["grad"], NULL, _B["target"], _B["weight"], _B["total"], _B["out"],
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    _nll("case_022", _B["grad"], _B["self"], NULL, _B["weight"], _B["total"], _B["out"],
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    _nll("case_023", _B["grad"], _B["self"], _B["target"], NULL, _B["total"], _B["out"],
         expect="ACLNN_ERR_PARAM_NULLPTR", note="weight is required (not optional as in PyTorch)"),
    _nll("case_024", _B["grad"], _B["self"], _B["target"], _B["weight"], NULL, _B["out"],
         expect="ACLNN_ERR_PARAM_NULLPTR"),
    _nll("case_025", T((3, 1, 1)), T((3, 5, 1, 1)), T((3, 1, 1), "INT64", values=(0, 2, 3)),
         T((5,), value_range=(-1, 1)), T((1,), values=(0,)), T((3, 5, 1, 1)), ignore=3,
         note="ignoreIndex 3 equals the third sample's target: that sample gets no gradient"),
    _call("case_027", _set(3, 150, 5, 6, grad_shape=(1,)), reduction=3, expect="ACLNN_ERR_PARAM_INVALID",
          note="a single-element gradOutput passes the shape rules; reduction 3 is then rejected"),
    _call("ascend910B2_case_028", _set(30, 150, 5, 6, "BF16", total=150.0, grad_shape=()), reduction=MEAN,
          note="BF16 on the default SoC (A2)"),
]
