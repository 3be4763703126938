"""aclnnMeanCenterBackward: the gradient of y = x - mean(x) along a dim (the centring step of a layer norm)."""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)
dim = Symbol("dim", integer=True)

SPEC = Op(
    name="aclnnMeanCenterBackward",
    forward_name="mean_center",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Attr("dim", dim, type="int64", doc=Text("求均值的维度。", "the dimension the mean is taken along.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=x - DimSum(x) / DimSum(1),
    reduce_dim="dim",
    backward=g - DimSum(g) / DimSum(1),
    dtypes={
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "gradInput"),
        DtypeSame("gradOutput", "gradInput"),
        MaxRank("gradOutput", "gradInput", n=8),
        ShapeSame("gradOutput", "gradInput"),
        DimInRange("dim", "gradOutput"),
    ],
    description=Text("沿一维减去均值的反向传播。", "Backward of subtracting the mean along a dimension."),
)
