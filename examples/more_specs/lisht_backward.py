"""aclnnLishtBackward: the gradient of LiSHT(x) = x * tanh(x) (not a CANN operator: the LiSHT activation, in aclnn's
conventions): dx = dy * (tanh(x) + x * (1 - tanh(x)^2))."""
from codegen.spec import *

x, g = symbols("self gradOutput", real=True)

FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnLishtBackward",
    forward_name="LiSHT",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("LiSHT的正向输入x。", "x, the forward input.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=x * tanh(x),
    backward=g * (tanh(x) + x * (1 - tanh(x)**2)),
    dtypes={"ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        MaxRank("gradOutput", "self", "gradInput", n=8),
        ShapeSame("gradOutput", "self", "gradInput"),
    ],
    torch=TorchGrad(lambda torch, x: x * torch.tanh(x), "self"),
    description=Text("LiSHT的反向传播。", "Backward of LiSHT."),
)
