"""aclnnLinearLossBackward: the gradient of the loss t*x w.r.t. x, reduced by `reduction` (none, mean, sum).

Regression (issue 29): the backward reads `numel("self")` (the mean divides by it) but no element of self; the
NumPy kernel raised `NameError: name 'self' is not defined` on main.
"""
from codegen.spec import *

x, t, g = symbols("x target gradOutput", real=True)
reduction = Symbol("reduction", integer=True)
N = numel("self")

SPEC = Op(
    name="aclnnLinearLossBackward",
    forward_name="LinearLoss",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("损失的梯度。", "the gradient of the loss.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Tensor("target", t, role=OPERAND, doc=Text("系数t。", "the coefficient t.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("0不做操作,1取平均,2求和。", "0 none, 1 mean, 2 sum.")),
        Output("out", doc=Text("对self的梯度。", "the gradient w.r.t. self.")),
    ],
    wrt=x,
    forward=t * x,
    loss_reduction="reduction",
    backward=g * t * Piecewise((1 / Max(1, N), Eq(reduction, 1)), (1, True)),
    dtypes={"ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"]},
    rules=[
        DtypeSupported("gradOutput", "self", "target", "out"),
        DtypeSame("gradOutput", "self", "target", "out"),
        MinRank("self", n=1),
        ShapeSame("self", "target", "out"),
        OneOf("reduction", [0, 1, 2]),
    ],
    description=Text("线性损失的反向传播。", "Backward of a linear loss."),
)
