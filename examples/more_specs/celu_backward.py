"""aclnnCeluBackward: the gradient of CELU(x) = max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

CANN has the forward only (activation/celu, celu_v2); this backward is PyTorch's (autograd of F.celu), with
alpha a double attribute. The forward divides by alpha, so alpha = 0 is refused by a rule (PyTorch raises
"ZeroDivisionError" there too).
"""
from codegen.spec import *

x, g, alpha = symbols("x gradOutput alpha", real=True)

SPEC = Op(
    name="aclnnCeluBackward",
    forward_name="CELU",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("CELU的正向输入x。", "x, the forward input.")),
        Attr("alpha", alpha, type="double", doc=Text("公式中的α,不能为0。", "α in the formula; must not be 0.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=Piecewise((x, x > 0), (alpha * (exp(x / alpha) - 1), True)),
    backward=Piecewise((g, x > 0), (g * exp(x / alpha), True)),
    dtypes={
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        MaxRank("gradOutput", "self", "gradInput", n=8),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", Ne(alpha, 0)),
    ],
    torch=TorchGrad(lambda torch, x, a: torch.nn.functional.celu(x, alpha=a), "self", "alpha"),
    description=Text("CELU的反向传播。", "Backward of CELU."),
)
