"""aclnnQuickGeluBackward: the gradient of QuickGELU(x) = x * sigmoid(1.702 x), the constant written exactly."""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)
K = Rational(851, 500)          # 1.702, exactly (a Python float 1.702 is refused)
s = sigmoid(K * x)

SPEC = Op(
    name="aclnnQuickGeluBackward",
    forward_name="QuickGELU",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("QuickGELU的正向输入x。", "x, the forward input.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=x * s,
    backward=g * s * (1 + K * x * (1 - s)),
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
    torch=TorchGrad(lambda torch, g, x: x * torch.sigmoid(1.702 * x), "gradOutput", "self"),
    description=Text("QuickGELU(x·σ(1.702x))的反向传播。", "Backward of QuickGELU, x·σ(1.702x)."),
)
