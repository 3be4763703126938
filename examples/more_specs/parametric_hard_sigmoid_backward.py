"""aclnnParametricHardSigmoidBackward: the gradient of ONNX's HardSigmoid(x) = max(0, min(1, alpha*x + beta)) with
alpha and beta host scalars (ONNX's defaults 0.2 and 0.5; PyTorch's hardsigmoid is alpha = 1/6, beta = 1/2). Not a
CANN operator: written in aclnn's conventions.

The gradient is alpha*gradOutput where 0 < alpha*x + beta < 1 and 0 elsewhere, at the two kinks too (as
PyTorch's hardsigmoid_backward, which passes nothing at x = ±3). alpha may have either sign or be 0.
"""
from codegen.spec import *

x, g, alpha, beta = symbols("x gradOutput alpha beta", real=True)
u = alpha * x + beta

FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnParametricHardSigmoidBackward",
    forward_name="HardSigmoid",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, dtype="FLOAT", doc=Text("公式中的斜率α。", "α, the slope.")),
        Scalar("beta", beta, dtype="FLOAT", doc=Text("公式中的偏移β。", "β, the offset.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=Piecewise((0, u <= 0), (1, u >= 1), (u, True)),
    backward=Piecewise((alpha * g, (u > 0) & (u < 1)), (0, True)),
    at={Eq(u, 0): 0, Eq(u, 1): 0},
    dtypes={"ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        MaxRank("gradOutput", "self", "gradInput", n=8),
        ShapeSame("gradOutput", "self", "gradInput"),
    ],
    # (autograd of clamp passes the gradient at the kinks, where this op gives 0: PyTorch's hardsigmoid_backward)
    torch=TorchGrad(lambda torch, x, a, b: torch.clamp(a * x + b, 0, 1), "self", "alpha", "beta"),
    description=Text("参数化HardSigmoid的反向传播。", "Backward of the parametric HardSigmoid."),
)
