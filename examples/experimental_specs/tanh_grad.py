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
    # the kernels compute 1 - y*y as (1 - y)*(1 + y): exact for y near ±1 where 1 - y*y loses the bits of y*y
    # rounded (1084 ulp at y = 0.99985 in FLOAT); the proof checks the identity
    backward=Formula(dy * (1 - y * y), rewrites=(Rewrite(lambda u: 1 - u**2, lambda u: (1 - u) * (1 + u)),)),
    dtypes={"ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"]},
    rules=[
        DtypeSupported("y", "dy", "dx"),
        DtypeSame("y", "dy", "dx"),
        MaxRank("y", "dy", "dx", n=8),
        ShapeSame("y", "dy", "dx"),
    ],
    torch=Torch("tanh_backward", "dy", "y"),
    description=Text("Tanh的反向传播。", "Backward of Tanh."),
)
