"""aclnnSqrtGrad: the gradient of y = sqrt(x), written in the forward's output y (CANN's SqrtGrad: dx = dy/(2y))."""
from codegen.spec import *

x = Symbol("x", positive=True)          # sqrt's domain: the proof runs over x > 0
y, g = symbols("y dy", real=True)

SPEC = Op(
    name="aclnnSqrtGrad",
    forward_name="sqrt",
    params=[
        Tensor("y", y, role=FORWARD_OUTPUT, doc=Text("正向输出y = sqrt(x)。", "y = sqrt(x), the forward output.")),
        Tensor("dy", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Output("z", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=sqrt(x),
    backward=g / (2 * y),
    dtypes={
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("y", "dy", "z"),
        DtypeSame("y", "dy", "z"),
        MaxRank("y", "dy", "z", n=8),
        ShapeSame("y", "dy", "z"),
    ],
    torch=TorchGrad(lambda torch, y, g: torch.sqrt(y), "y", "dy"),
    description=Text("Sqrt的反向传播,以正向输出表示。", "Backward of sqrt, written in the forward's output."),
)
