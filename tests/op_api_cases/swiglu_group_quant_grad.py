"""aclnnSwigluGroupQuantGrad: CANN's unit tests as data.

The operator has no op_api (its aclnn layer is generated from the def): its tests are the op_host tiling tests,
all 3 cases of the file, each a success (the tiling's GRAPH_SUCCESS: ACLNN_SUCCESS here). The operator runs on the
Ascend 950 only: every case is run on ascend950. The tiling test gives gradWeight's output a FLOAT dtype but no
shape when no weight is given: that output is left null here (nothing to compute). No case compares values.
"""
from tests.op_api_cases import NULL, T, case

OP = "aclnnSwigluGroupQuantGrad"
SOURCE = "activation/swiglu_group_quant_grad/tests/ut/op_host/test_swiglu_group_quant_grad_tiling.cpp"
COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"
P = "ascend950"


def _c(name, gy, x, dx, *, w=NULL, yo=NULL, gi=NULL, clamp=-1.0, dw=NULL, expect="ACLNN_SUCCESS", note=""):
    return case(name, gradY=gy, x=x, weightOptional=w, yOriginOptional=yo, groupIndexOptional=gi,
                clampLimit=clamp, gradXOut=dx, gradWeightOutOptional=dw, expect=expect, product=P, note=note)


def _f(shape, dtype="FLOAT"):
    return T(shape, dtype, "ND", value_range=(-2, 2))


CASES = [
    _c("swiglu_group_quant_grad_tiling_basic", _f((128, 512), "FLOAT16"), _f((128, 1024), "FLOAT16"),
       _f((128, 1024), "FLOAT16")),
    _c("swiglu_group_quant_grad_tiling_with_weight", _f((64, 512), "FLOAT16"), _f((64, 1024), "FLOAT16"),
       _f((64, 1024), "FLOAT16"), w=_f((64,)), yo=_f((64, 512), "FLOAT16"), dw=_f((64,))),
    _c("swiglu_group_quant_grad_tiling_with_clamp", _f((128, 1024)), _f((128, 2048)), _f((128, 2048)), clamp=7.0),
]
