"""aclnnReciprocalGrad: the gradient of 1/x from its output y (CANN's ReciprocalGrad: z = -dy*y^2)."""
from codegen.spec import *

x = Symbol("x", real=True, nonzero=True)   # 1/x is defined for x != 0
y, dy = symbols("y dy", real=True)

FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnReciprocalGrad",
    forward_name="reciprocal",
    params=[
        Tensor("y", y, role=FORWARD_OUTPUT, doc=Text("正向输出y = 1/x。", "y = 1/x, the forward output.")),
        Tensor("dy", dy, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Output("z", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=1 / x,
    backward=-dy * y**2,
    dtypes={"ascend910": ["FLOAT16", "FLOAT"], "ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("y", "dy", "z"),
        DtypeSame("y", "dy", "z"),
        MaxRank("y", "dy", "z", n=8),
        ShapeSame("y", "dy", "z"),
    ],
    description=Text("倒数的反向传播,由正向输出计算。", "Backward of the reciprocal, from the forward's output."),
)
