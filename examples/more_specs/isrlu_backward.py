"""aclnnIsrluBackward: the gradient of the inverse square root linear unit, ISRLU(x) = x for x >= 0 and
x / sqrt(1 + alpha*x^2) for x < 0 (Carlile et al. 2017; not a CANN operator: written in aclnn's conventions), with
alpha >= 0 a double attribute: gradOutput for x >= 0, gradOutput * (1 + alpha*x^2)^(-3/2) for x < 0.

For x < -1.8e19 x^2 leaves FLOAT and the kernel's factor (1 + alpha*x^2)^(-3/2) is 0, as in PyTorch's FLOAT
autograd: the exact gradient is below FLOAT's smallest subnormal there unless alpha is below 2.3e-9 or |gradOutput|
is huge."""


def _isrlu(torch, x, a):
    """ISRLU with the x < 0 form read at min(x, 0): torch.where's other branch leaks no nan into the gradient."""
    n = x.clamp(max=0)
    return torch.where(x >= 0, x, n / torch.sqrt(1 + a * n * n))
from codegen.spec import *

x, g, alpha = symbols("x gradOutput alpha", real=True)

FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnIsrluBackward",
    forward_name="ISRLU",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("ISRLU的正向输入x。", "x, the forward input.")),
        Attr("alpha", alpha, type="double", doc=Text("公式中的α,须不小于0。", "α in the formula; must be >= 0.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=Piecewise((x, x >= 0), (x / sqrt(1 + alpha * x**2), True)),
    # (alpha = 0 its own branch: alpha*x^2 is 0*inf = nan for |x| > 1.8e19 in FLOAT, where the gradient is g; x < 0
    # written out so that a nan x still falls through to the last branch: nan)
    backward=Piecewise((g, (x >= 0) | (Eq(alpha, 0) & (x < 0))), (g * (1 + alpha * x**2) ** Rational(-3, 2), True)),
    dtypes={"ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        MaxRank("gradOutput", "self", "gradInput", n=8),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha >= 0),
    ],
    torch=TorchGrad(_isrlu, "self", "alpha"),
    description=Text("ISRLU的反向传播。", "Backward of ISRLU."),
)
