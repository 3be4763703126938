"""aclnnSoftsignBackward (CANN experimental/activation/softsign_grad): output = gradients / (1 + |features|)^2."""
from codegen.spec import *

x, g = symbols("features gradients", real=True)

SPEC = Op(
    name="aclnnSoftsignBackward",
    forward_name="softsign",
    params=[
        Tensor("gradients", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("features", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Output("output", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=x / (1 + Abs(x)),
    backward=g / (1 + Abs(x)) ** 2,
    dtypes={"ascend950": ["FLOAT16", "FLOAT", "BFLOAT16"]},
    rules=[
        DtypeSupported("gradients", "features", "output"),
        DtypeSame("gradients", "features", "output"),
        MaxRank("gradients", "features", "output", n=8),
        ShapeSame("gradients", "features", "output"),
    ],
    description=Text("Softsign的反向传播。", "Backward of Softsign."),
)
