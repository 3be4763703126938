"""aclnnAcosGrad: the gradient of acos(x), dx = -dy / sqrt(1 - x^2), defined for |x| < 1 (from the input x)."""
from codegen.spec import *
from sympy import acos   # the forward only: the backward is in the vocabulary

x, dy = symbols("x dy", real=True)

FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnAcosGrad",
    forward_name="acos",
    params=[
        Tensor("x", x, role=FORWARD_INPUT, doc=Text("正向输入x,取值范围(-1, 1)。", "x, the forward input, in (-1, 1).")),
        Tensor("dy", dy, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Output("dx", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=acos(x),
    backward=-dy / sqrt(1 - x**2),
    dtypes={"ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("x", "dy", "dx"),
        DtypeSame("x", "dy", "dx"),
        MaxRank("x", "dy", "dx", n=8),
        ShapeSame("x", "dy", "dx"),
    ],
    torch=TorchGrad(lambda torch, x: torch.acos(x), "x"),
    description=Text("acos的反向传播。", "Backward of acos."),
)
