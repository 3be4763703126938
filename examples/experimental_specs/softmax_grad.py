"""aclnnSoftmaxGrad (CANN experimental/loss/softmax_grad): dx = y * (dy - sum_j(dy * y)) along the last axis."""
from codegen.spec import *

z, y, dy = symbols("z y dy", real=True)

SPEC = Op(
    name="aclnnSoftmaxGrad",
    forward_name="softmax",
    params=[
        Tensor("y", y, role=FORWARD_OUTPUT, doc=Text("正向输出y = softmax(z)。", "y = softmax(z), the forward output.")),
        Tensor("dy", dy, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Output("dx", doc=Text("对z的梯度。", "the gradient w.r.t. z.")),
    ],
    wrt=z,
    forward=exp(z) / DimSum(exp(z)),
    reduce_dim=-1,
    backward=y * (dy - DimSum(dy * y)),
    dtypes={"ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"]},
    rules=[
        DtypeSupported("y", "dy", "dx"),
        DtypeSame("y", "dy", "dx"),
        MinRank("y", "dy", "dx", n=1),
        MaxRank("y", "dy", "dx", n=8),
        ShapeSame("y", "dy", "dx"),
    ],
    description=Text("Softmax沿最后一维的反向传播。", "Backward of softmax along the last axis."),
)
