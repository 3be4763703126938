"""aclnnThresholdBackward: the gradient of Threshold (x above the threshold, `value` at or below it).

Regression (issue 29, item 5): an extra branch gives 5*gradOutput at x == threshold, where the forward jumps.
On main this verified (reported as a "convention": any value passed at a point where the forward is not
differentiable); now the point has no declared value, and verification fails naming x = threshold.
"""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)
th, value = symbols("threshold value", real=True)

SPEC = Op(
    name="aclnnThresholdBackward",
    forward_name="Threshold",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("threshold", th, doc=Text("阈值。", "the threshold.")),
        Scalar("value", value, doc=Text("替换值。", "the replacement value.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=Piecewise((x, x > th), (value, True)),
    backward=Piecewise((5 * g, Eq(x, th)), (g, x > th), (0, True)),
    dtypes={"ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"]},
    rules=[DtypeSupported("gradOutput", "self", "gradInput"), DtypeSame("gradOutput", "self", "gradInput"),
           ShapeSame("gradOutput", "self", "gradInput")],
    description=Text("Threshold的反向传播。", "Backward of Threshold."),
)
