"""aclnnAtanGrad: the gradient of atan(x), dx = dy / (1 + x^2) (CANN's AtanGrad, from the input x)."""
from codegen.spec import *
from sympy import atan   # the forward only: the backward is in the vocabulary

x, dy = symbols("x dy", real=True)

FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnAtanGrad",
    forward_name="atan",
    params=[
        Tensor("x", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Tensor("dy", dy, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Output("dx", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=atan(x),
    backward=dy / (1 + x**2),
    dtypes={"ascend910": ["FLOAT16", "FLOAT"], "ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("x", "dy", "dx"),
        DtypeSame("x", "dy", "dx"),
        MaxRank("x", "dy", "dx", n=8),
        ShapeSame("x", "dy", "dx"),
    ],
    description=Text("atan的反向传播。", "Backward of atan."),
)
