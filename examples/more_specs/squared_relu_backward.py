"""aclnnSquaredReluBackward: the gradient of SquaredReLU(x) = max(0, x)^2 (So et al., Primer, 2021; CANN
activation/squared_relu has the forward).  d/dx = 2*max(0, x): 2x for x > 0, 0 otherwise (0 at x = 0, where both
sides agree), nan for a nan x.
"""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)

SPEC = Op(
    name="aclnnSquaredReluBackward",
    forward_name="SquaredRelu",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("SquaredReLU的正向输入x。", "x, the forward input.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    # x <= 0 first: a nan x fails it and takes the last branch, 2*g*x = nan (as autograd of torch.relu(x)**2)
    forward=Piecewise((0, x <= 0), (x ** 2, True)),
    backward=Piecewise((0, x <= 0), (2 * g * x, True)),
    dtypes={
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        MaxRank("gradOutput", "self", "gradInput", n=8),
        ShapeSame("gradOutput", "self", "gradInput"),
    ],
    torch=TorchGrad(lambda torch, x: torch.relu(x) ** 2, "self"),
    description=Text("SquaredReLU的反向传播。", "Backward of SquaredReLU."),
)
