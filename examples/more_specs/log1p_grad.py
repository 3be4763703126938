"""aclnnLog1pGrad: the gradient of log1p(x) = log(1 + x), dx = dy / (1 + x), defined for x > -1."""
from codegen.spec import *

x, dy = symbols("x dy", real=True)

FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnLog1pGrad",
    forward_name="log1p",
    params=[
        Tensor("x", x, role=FORWARD_INPUT, doc=Text("正向输入x,须大于-1。", "x, the forward input, above -1.")),
        Tensor("dy", dy, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Output("dx", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=log1p(x),
    backward=dy / (1 + x),
    dtypes={"ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("x", "dy", "dx"),
        DtypeSame("x", "dy", "dx"),
        MaxRank("x", "dy", "dx", n=8),
        ShapeSame("x", "dy", "dx"),
    ],
    torch=TorchGrad(lambda torch, x: torch.log1p(x), "x"),
    description=Text("log1p的反向传播。", "Backward of log1p."),
)
