"""aclnnL1NormalizeBackward: the gradient of y = x / (sum(|x|) + eps) along a dim."""
from codegen.spec import *

x, g = symbols("self gradOutput", real=True)
dim = Symbol("dim", integer=True)
eps = Symbol("eps", real=True)
s = DimSum(Abs(x)) + eps

SPEC = Op(
    name="aclnnL1NormalizeBackward",
    forward_name="l1_normalize",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Attr("dim", dim, type="int64", doc=Text("归一化的维度。", "the dimension normalized along.")),
        Attr("eps", eps, type="double", doc=Text("分母加的正数。", "the positive number added to the denominator.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=x / s,
    reduce_dim="dim",
    backward=g / s - sign(x) * DimSum(g * x) / s**2,
    at={Eq(x, 0): g / s},
    dtypes={
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        MaxRank("gradOutput", "self", "gradInput", n=8),
        ShapeSame("gradOutput", "self", "gradInput"),
        DimInRange("dim", "gradOutput"),
        Requires("eps", eps > 0),
    ],
    torch=TorchGrad(lambda torch, x, d, e: x / (x.abs().sum(d, keepdim=True) + e), "self", "dim", "eps"),
    description=Text("L1归一化的反向传播。", "Backward of L1 normalization along a dimension."),
)
