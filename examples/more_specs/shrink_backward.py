"""aclnnShrinkBackward: the gradient of ONNX's Shrink (CANN activation/shrink, aclnnShrink).

Shrink(x) = x - bias for x > lambd, x + bias for x < -lambd, and 0 for -lambd <= x <= lambd; CANN clamps a
negative lambd to 0.  d/dx is 1 outside the dead zone and 0 inside it, its edges included (the forward jumps there
when bias != lambd: 0, as autograd of the torch.where form gives).  CANN has the forward only; this backward is the
derivative of its documented formula.
"""
from codegen.spec import *

x, g, lambd, bias = symbols("x gradOutput lambd bias", real=True)
edge = Max(lambd, 0)   # CANN: lambd < 0 is clamped to 0

SPEC = Op(
    name="aclnnShrinkBackward",
    forward_name="Shrink",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("Shrink的正向输入x。", "x, the forward input.")),
        Attr("lambd", lambd, type="float", doc=Text("阈值λ,小于0时按0处理。", "the threshold λ; below 0 it counts as 0.")),
        Attr("bias", bias, type="float", doc=Text("偏移量。", "the offset.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=Piecewise((x - bias, x > edge), (x + bias, x < -edge), (0, True)),
    backward=Piecewise((g, x > edge), (g, x < -edge), (0, True)),
    # the edges belong to the dead zone: 0 there (the forward is not differentiable at them)
    at={Eq(x, edge): 0, Eq(x, -edge): 0},
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
    torch=TorchGrad(lambda torch, x, lambd, bias: torch.where(x > max(lambd, 0), x - bias, torch.where(
        x < -max(lambd, 0), x + bias, torch.zeros_like(x))), "self", "lambd", "bias"),
    description=Text("Shrink(ONNX)的反向传播。", "Backward of ONNX's Shrink."),
)
