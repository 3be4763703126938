"""aclnnMeanLossBackward: a valid spec that tests/test_vocabulary.py edits into invalid ones (its backward replaced
by one outside the expression vocabulary)."""
from codegen.spec import *

x, g, t = symbols("x gradOutput target", real=True)
reduction = Symbol("reduction", integer=True)

SPEC = Op(
    name="aclnnMeanLossBackward",
    forward_name="MeanLoss",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "the forward input x.")),
        Tensor("target", t, role=OPERAND, doc=Text("目标。", "the target.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("损失的reduce方式。", "how the loss was reduced.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=x * t,
    loss_reduction="reduction",
    backward=g * t * Piecewise((1 / numel("self"), Eq(reduction, 1)), (1, True)),
    dtypes={"ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"]},
    rules=[
        DtypeSupported("gradOutput", "self", "target", "gradInput"),
        DtypeSame("gradOutput", "self", "target", "gradInput"),
        MaxRank("gradOutput", "self", "target", "gradInput", n=8),
        ShapeSame("self", "target", "gradInput"),
        BroadcastTo("gradOutput", "self"),
        OneOf("reduction", [0, 1, 2]),
    ],
    description=Text("测试用的损失。", "A test loss."),
)
