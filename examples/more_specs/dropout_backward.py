"""aclnnDropoutBackward: the gradient of dropout, y = x * mask / (1 - p), given the forward's BOOL mask."""
from codegen.spec import *

x, g, m = symbols("self gradOutput mask", real=True)
p = Symbol("p", real=True)

FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnDropoutBackward",
    forward_name="dropout",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("mask", m, role=OPERAND, dtypes={"ascend910b": ["BOOL"], "ascend910_93": ["BOOL"]},
               doc=Text("正向保留的元素为true。", "true where the forward kept the element.")),
        Attr("p", p, type="double", doc=Text("丢弃概率,取值[0, 1)。", "the drop probability, in [0, 1).")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=Piecewise((x / (1 - p), m), (0, True)),
    backward=Piecewise((g / (1 - p), m), (0, True)),
    dtypes={"ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("gradOutput", "mask", "gradInput"),
        DtypeSame("gradOutput", "gradInput"),
        MaxRank("gradOutput", "mask", "gradInput", n=8),
        ShapeSame("gradOutput", "mask", "gradInput"),
        Requires("p", (p >= 0) & (p < 1)),
    ],
    description=Text("Dropout的反向传播。", "Backward of dropout."),
)
