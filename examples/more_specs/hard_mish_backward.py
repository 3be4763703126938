"""aclnnHardMishBackward: the gradient of HardMish(x) = x/2 * min(2, max(0, x + 2)) (Mobile-friendly Mish,
"hard-mish"; not a CANN operator: written in aclnn's conventions): 0 for x < -2, x + 1 on [-2, 0], 1 for x > 0.

A kink at x = -2 (0 on the left, -1 on the right), none at 0 (both sides give 1). At -2 the value is the right
side's -gradOutput, as PyTorch's autograd of `x/2 * clamp(x + 2, 0, 2)` gives (clamp passes the gradient at its
bounds).
"""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)

FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnHardMishBackward",
    forward_name="HardMish",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("HardMish的正向输入x。", "x, the forward input.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=Piecewise((0, x < -2), (x, x > 0), (x * (x + 2) / 2, True)),
    # (the middle form last: a nan x fails every condition and takes it, so the gradient is nan, as autograd's)
    backward=Piecewise((0, x < -2), (g, x > 0), (g * (x + 1), True)),
    at={Eq(x, -2): -g},
    dtypes={"ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        MaxRank("gradOutput", "self", "gradInput", n=8),
        ShapeSame("gradOutput", "self", "gradInput"),
    ],
    torch=TorchGrad(lambda torch, x: x / 2 * torch.clamp(x + 2, 0, 2), "self"),
    description=Text("HardMish的反向传播。", "Backward of HardMish."),
)
