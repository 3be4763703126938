"""aclnnErfGrad: the gradient of erf(x), dx = dy * 2/sqrt(pi) * exp(-x^2) (from the input x)."""
from codegen.spec import *

x, dy = symbols("x dy", real=True)

FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnErfGrad",
    forward_name="erf",
    params=[
        Tensor("x", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Tensor("dy", dy, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Output("dx", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=erf(x),
    backward=dy * 2 / sqrt(pi) * exp(-x**2),
    dtypes={"ascend910": ["FLOAT16", "FLOAT"], "ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("x", "dy", "dx"),
        DtypeSame("x", "dy", "dx"),
        MaxRank("x", "dy", "dx", n=8),
        ShapeSame("x", "dy", "dx"),
    ],
    torch=TorchGrad(lambda torch, x: torch.erf(x), "x"),
    description=Text("erf的反向传播。", "Backward of erf."),
)
