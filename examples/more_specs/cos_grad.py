"""aclnnCosGrad: the gradient of cos(x), -dy*sin(x) (PyTorch's derivative of torch.cos; CANN has aclnnCos).

sin is right for every FLOAT on every backend (sin(3e38) too; Ascend C reduces |x| > 65536 by Payne-Hanek:
docs/vocabulary.md).
"""
from codegen.spec import *

x, dy = symbols("x dy", real=True)

SPEC = Op(
    name="aclnnCosGrad",
    forward_name="Cos",
    params=[
        Tensor("x", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Tensor("dy", dy, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Output("z", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=cos(x),
    backward=-dy * sin(x),
    dtypes={
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("x", "dy", "z"),
        DtypeSame("x", "dy", "z"),
        MaxRank("x", "dy", "z", n=8),
        ShapeSame("x", "dy", "z"),
    ],
    torch=TorchGrad(lambda torch, x: torch.cos(x), "x"),
    description=Text("cos的反向传播。", "Backward of cos."),
)
