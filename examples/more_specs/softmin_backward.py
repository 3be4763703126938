"""aclnnSoftminBackward: the gradient of softmin(x) = softmax(-x) along `dim`, from the forward's output y.

A row reduction (DimSum along an int64 attribute) whose input holds the forward's result: d/dx of softmax(-x) is
the softmax gradient with its sign flipped, -(y*g - y*sum(y*g)).
"""
from codegen.spec import *

z, y, g = symbols("z output gradOutput", real=True)
dim = Symbol("dim", integer=True)

SPEC = Op(
    name="aclnnSoftminBackward",
    forward_name="softmin",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("output", y, role=FORWARD_OUTPUT, doc=Text("softmin的正向输出y。", "y, the forward output.")),
        Attr("dim", dim, type="int64", doc=Text("softmin计算的维度。", "the dimension softmin ran along.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=z,
    forward=exp(-z) / DimSum(exp(-z)),
    reduce_dim="dim",
    backward=y * DimSum(g * y) - y * g,
    dtypes={
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "output", "gradInput"),
        DtypeSame("gradOutput", "output", "gradInput"),
        MaxRank("gradOutput", "output", "gradInput", n=8),
        ShapeSame("gradOutput", "output", "gradInput"),
        DimInRange("dim", "gradOutput"),
    ],
    description=Text("softmin的反向传播。", "Backward of softmin."),
)
