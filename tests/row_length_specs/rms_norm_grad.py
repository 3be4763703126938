"""aclnnRmsNormGrad (a test spec, not a catalog operator): the gradient of RMSNorm(x) = x * gamma / sqrt(mean(x^2) +
eps) w.r.t. x along the attribute `dim`, its mean a row sum over the row's length DimSum(1) (the broadcast shape's
extent along the call's dim), gamma broadcast along the rows; rms_norm_grad_x.py is the same op along axis 1."""
from codegen.spec import *

x, g, gamma, eps, dim = symbols("x dy gamma epsilon dim", real=True)
n = DimSum(1)
r = sqrt(DimSum(x**2) / n + eps)

SPEC = Op(
    name="aclnnRmsNormGrad",
    forward_name="RmsNorm",
    params=[
        Tensor("dy", g, role=GRAD, doc=Text("上一层的梯度。", "the incoming gradient.")),
        Tensor("x", x, role=FORWARD_INPUT, doc=Text("正向输入。", "the forward input.")),
        Tensor("gamma", gamma, role=OPERAND, doc=Text("缩放。", "the scale, broadcast along dim.")),
        Attr("epsilon", eps, type="double", doc=Text("防止除零。", "added to the mean square.")),
        Attr("dim", dim, type="int64", doc=Text("归一化所沿的维度。", "the dimension the mean square is taken along.")),
        Output("dx", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=x * gamma / r,
    reduce_dim="dim",
    backward=g * gamma / r - x * DimSum(g * gamma * x) / (n * r**3),
    dtypes={"ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"]},
    rules=[
        DtypeSupported("dy", "x", "gamma", "dx"),
        DtypeSame("dy", "x", "gamma", "dx"),
        MaxRank("dy", "x", n=8),
        ShapeSame("dy", "x", "dx"),
        Broadcastable("x", "gamma"),
        DimInRange("dim", "x"),
        Requires("epsilon", eps > 0),
    ],
    description=Text("RMSNorm的反向。", "Backward of RMSNorm w.r.t. x along dim."),
)
