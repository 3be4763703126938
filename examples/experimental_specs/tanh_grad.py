"""aclnnTanhGrad (CANN experimental/activation/tanh_grad): dx = dy * (1 - y*y), y = tanh(x)."""
from codegen.spec import *

x, y, dy = symbols("x y dy", real=True)

SPEC = Op(
    name="aclnnTanhGrad",
    forward_name="tanh",
    params=[
        Tensor("y", y, role=FORWARD_OUTPUT, doc=Text("正向输出y = tanh(x)。", "y = tanh(x), the forward output.")),
        Tensor("dy", dy, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Output("dx", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=tanh(x),
    backward=dy * (1 - y * y),
    dtypes={"ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"]},
    rules=[
        DtypeSupported("y", "dy", "dx"),
        DtypeSame("y", "dy", "dx"),
        MaxRank("y", "dy", "dx", n=8),
        ShapeSame("y", "dy", "dx"),
    ],
    description=Text("Tanh的反向传播。", "Backward of Tanh."),
)
