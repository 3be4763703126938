"""aclnnRsqrtGrad: the gradient of rsqrt(x) = 1/sqrt(x) from its output y (CANN's RsqrtGrad: z = -dy*y^3/2)."""
from codegen.spec import *

x = Symbol("x", positive=True)          # rsqrt's domain
y, dy = symbols("y dy", real=True)

FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnRsqrtGrad",
    forward_name="rsqrt",
    params=[
        Tensor("y", y, role=FORWARD_OUTPUT, doc=Text("正向输出y = rsqrt(x)。", "y = rsqrt(x), the forward output.")),
        Tensor("dy", dy, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Output("z", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=1 / sqrt(x),
    backward=-dy * y**3 / 2,
    dtypes={"ascend910": ["FLOAT16", "FLOAT"], "ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("y", "dy", "z"),
        DtypeSame("y", "dy", "z"),
        MaxRank("y", "dy", "z", n=8),
        ShapeSame("y", "dy", "z"),
    ],
    description=Text("rsqrt的反向传播,由正向输出计算。", "Backward of rsqrt, from the forward's output."),
)
