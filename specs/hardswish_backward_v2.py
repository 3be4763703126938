"""aclnnHardswishBackwardV2: the gradient of Hardswish(x) = x * relu6(x + 3) / 6, open middle interval."""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)

SPEC = Op(
    name="aclnnHardswishBackwardV2",
    forward_name="Hardswish",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,上一层传回的梯度。", "gradOutput in the formula, the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("公式中的x,Hardswish的正向输入。", "x in the formula, the forward input of Hardswish.")),
        Output("out", doc=Text("公式中的out,对x的梯度。", "out in the formula, the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=Piecewise((0, x <= -3), (x, x >= 3), (x * (x + 3) / 6, True)),
    # The open middle interval: x = -3 gives 0 and x = 3 gives gradOutput (the one-sided derivatives from
    # outside, as PyTorch); a nan x passes gradOutput.
    backward=Piecewise((0, x <= -3), (g * (x / 3 + Rational(1, 2)), x < 3), (g, True)),
    # the kinks take the outer branches, as the library's V2 kernel (x = -3: 0, x = 3: gradOutput)
    at={Eq(x, -3): 0, Eq(x, 3): g},
    dtypes={
        "ascend910": ["FLOAT16", "FLOAT"],
        "ascend910b": ["BFLOAT16", "FLOAT16", "FLOAT"],
        "ascend910_93": ["BFLOAT16", "FLOAT16", "FLOAT"],
        "ascend950": ["BFLOAT16", "FLOAT16", "FLOAT"],
    },
    rules=[
        DtypeSupported("gradOutput", "self"),
        DtypeSame("self", "gradOutput", "out"),
        MaxRank("gradOutput", "self", n=8),
        ShapeSame("self", "gradOutput", "out"),
    ],
    example=Example(shape=(4, 2), values={"self": [0, 1, 2, 3, 4, 5, 6, 7], "gradOutput": [0, 1, 2, 3, 4, 5, 6, 7]}),
    notes=[
        Text("与aclnnHardswishBackward只在x=±3处不同:中间区间为开区间,x=-3时为0,x=3时为gradOutput(与PyTorch的"
             "hardswish_backward一致);x为`nan`时梯度透传。",
             "It differs from aclnnHardswishBackward only at x = ±3: the middle interval is open, so x = -3 gives 0 "
             "and x = 3 gives gradOutput (as PyTorch's hardswish_backward); a `nan` x passes gradOutput."),
    ],
    torch=Torch("hardswish_backward", "gradOutput", "self"),
    description=Text("激活函数Hardswish的反向传播(公式在x=±3处做了调整)。",
                     "Backward of the Hardswish activation (the formula adjusted at x = ±3)."),
)
