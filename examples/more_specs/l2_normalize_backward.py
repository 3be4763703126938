"""aclnnL2NormalizeBackward: the gradient of y = x / sqrt(sum(x^2) + eps) along a dim (F.normalize's form with eps
inside the root)."""
from codegen.spec import *

x, g = symbols("self gradOutput", real=True)
dim = Symbol("dim", integer=True)
eps = Symbol("eps", real=True)
sq = DimSum(x**2) + eps                  # the squared norm

SPEC = Op(
    name="aclnnL2NormalizeBackward",
    forward_name="l2_normalize",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Attr("dim", dim, type="int64", doc=Text("归一化的维度。", "the dimension normalized along.")),
        Attr("eps", eps, type="double", doc=Text("根号内加的正数。", "the positive number added under the root.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=x / sqrt(sq),
    reduce_dim="dim",
    backward=(g - x * (DimSum(g * x) / sq)) / sqrt(sq),   # not x*DimSum(g*x)/norm**3: its x*DimSum overflows
    # FLOAT16 only: in FLOAT and BFLOAT16 (x up to 3.4e38) x**2 leaves FLOAT's range, where Ascend C's row sum gives
    # nan (NumPy and C redo such a row in float64), and g - x*(sum/sq) leaves it at g = -max before the division by
    # the norm brings it back (docs/spec-language-losses.md, not yet in the language)
    dtypes={
        "ascend910b": ["FLOAT16"],
        "ascend910_93": ["FLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        MaxRank("gradOutput", "self", "gradInput", n=8),
        ShapeSame("gradOutput", "self", "gradInput"),
        DimInRange("dim", "gradOutput"),
        Requires("eps", eps > 0),
    ],
    torch=TorchGrad(lambda torch, x, d, e: x / torch.sqrt((x * x).sum(d, keepdim=True) + e), "self", "dim", "eps"),
    description=Text("L2归一化的反向传播。", "Backward of L2 normalization along a dimension."),
    notes=[Text("仅支持FLOAT16:FLOAT与BFLOAT16的x**2可超出FLOAT范围。",
                "FLOAT16 only: in FLOAT and BFLOAT16, x**2 can leave FLOAT's range.")],
)
