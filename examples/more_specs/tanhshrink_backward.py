"""aclnnTanhshrinkBackward: the gradient of Tanhshrink(x) = x - tanh(x), in half precision only.

A half-precision-only operator (FLOAT16 everywhere, BFLOAT16 where the product has it): its kernels compute in
FLOAT and round once. d/dx (x - tanh x) = tanh(x)^2.
"""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)

SPEC = Op(
    name="aclnnTanhshrinkBackward",
    forward_name="Tanhshrink",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("Tanhshrink的正向输入x。", "x, the forward input.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=x - tanh(x),
    backward=g * tanh(x) ** 2,
    dtypes={
        "ascend910": ["FLOAT16"],
        "ascend910b": ["FLOAT16", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        MaxRank("gradOutput", "self", "gradInput", n=8),
        Broadcastable("gradOutput", "self"),
        ShapeIsBroadcast("gradInput", "gradOutput", "self"),
    ],
    torch=TorchGrad(lambda torch, x: torch.nn.functional.tanhshrink(x), "self"),
    description=Text("Tanhshrink的反向传播。", "Backward of Tanhshrink."),
)
