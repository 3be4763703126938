"""aclnnSquareplusBackward: the gradient of squareplus(x) = (x + sqrt(x^2 + b)) / 2, b > 0 a host scalar (not a
CANN operator: Barron's squareplus, in aclnn's conventions): dx = dy * (1 + x / sqrt(x^2 + b)) / 2."""
from codegen.spec import *

x, g, b = symbols("self gradOutput b", real=True)

FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnSquareplusBackward",
    forward_name="squareplus",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("squareplus的正向输入x。", "x, the forward input.")),
        Scalar("b", b, dtype="FLOAT", doc=Text("公式中的b,须大于0。", "b in the formula; must be positive.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=(x + sqrt(x**2 + b)) / 2,
    # the kernels compute 1 + x/sqrt(x^2 + b) without its cancellation for x < 0 (b/(s*(s - x)), s = sqrt(x^2 + b))
    # and without x^2's overflow for x > 0 (1 + 1/sqrt(1 + b/x^2))
    backward=Formula(g * (1 + x / sqrt(x**2 + b)) / 2,
                     rewrites=(Rewrite(lambda u: 1 + u / sqrt(u**2 + b),
                                       lambda u: Piecewise((1 + 1 / sqrt(1 + b / u**2), u > 0),
                                                           (b / (sqrt(u**2 + b) * (sqrt(u**2 + b) - u)), True))),)),
    dtypes={"ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        MaxRank("gradOutput", "self", "gradInput", n=8),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("b", b > 0),
    ],
    torch=TorchGrad(lambda torch, x, b: (x + torch.sqrt(x * x + b)) / 2, "self", "b"),
    description=Text("squareplus的反向传播。", "Backward of squareplus."),
)
