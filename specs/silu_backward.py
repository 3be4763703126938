"""aclnnSiluBackward: the gradient of SiLU(x) = x * sigmoid(x)."""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)
sigma = 1 / (1 + exp(-x))

SPEC = Op(
    name="aclnnSiluBackward",
    forward_name="SiLU",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,上一层传回的梯度。", "gradOutput in the formula, the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("公式中的x,SiLU的正向输入。", "x in the formula, the forward input of SiLU.")),
        Output("gradInput", doc=Text("公式中的gradInput,对x的梯度。", "gradInput in the formula, the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=x * sigma,
    # the docs' sigma*(1 + x - x*sigma), written as the library's kernel computes it: x*(1 - sigma) has no
    # cancellation for large x, where x - x*sigma loses every digit
    backward=g * sigma * (1 + x * (1 - sigma)),
    dtypes={
        "ascend910": ["FLOAT16", "FLOAT"],
        "ascend910b": ["BFLOAT16", "FLOAT16", "FLOAT"],
        "ascend910_93": ["BFLOAT16", "FLOAT16", "FLOAT"],
        "ascend950": ["BFLOAT16", "FLOAT16", "FLOAT"],
    },
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradInput", "gradOutput", "self"),
        MaxRank("gradOutput", "self", n=8),
        ShapeSame("gradOutput", "self", "gradInput"),
    ],
    example=Example(shape=(2, 3), values={"gradOutput": 1, "self": [1, 2, 3, 4, 5, 6]}),
    torch=Torch("silu_backward", "gradOutput", "self"),
    description=Text("SiLU激活函数的反向传播。", "Backward of the SiLU activation."),
)
