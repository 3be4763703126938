"""aclnnHardSigmoidGradV2 (CANN experimental/activation/hard_sigmoid_grad_v2): grad/6 if -3 < self < 3 else 0."""
from codegen.spec import *

x, g = symbols("self gradOutput", real=True)

SPEC = Op(
    name="aclnnHardSigmoidGradV2",
    forward_name="HardSigmoid",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=Piecewise((0, x <= -3), (1, x >= 3), (x / 6 + Rational(1, 2), True)),
    backward=Piecewise((0, x <= -3), (0, x >= 3), (g / 6, True)),
    at={Eq(x, -3): 0, Eq(x, 3): 0},   # the ends of (-3, 3) give 0, as PyTorch
    dtypes={"ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"]},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        MaxRank("gradOutput", "self", "gradInput", n=8),
        ShapeSame("gradOutput", "self", "gradInput"),
    ],
    torch=Torch("hardsigmoid_backward", "gradOutput", "self"),
    description=Text("HardSigmoid的反向传播。", "Backward of HardSigmoid."),
)
