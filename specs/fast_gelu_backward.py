"""aclnnFastGeluBackward: the gradient of FastGelu(x) = x / (1 + exp(-1.702 x))."""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)
k = Rational(1702, 1000)
e = exp(-k * x)

SPEC = Op(
    name="aclnnFastGeluBackward",
    forward_name="FastGelu",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的dy,上一层传回的梯度。", "dy in the formula, the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("公式中的x,与正向的self相同。", "x in the formula, the self of the forward.")),
        Output("gradInput", doc=Text("公式中的dx,对x的梯度。", "dx in the formula, the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=x / (1 + e),
    # the docs' form: dy * ((1/(e+1) - 1)*(-1.702x) + 1) * 1/(e+1)
    backward=g * ((1 / (e + 1) - 1) * (-k * x) + 1) / (e + 1),
    dtypes={
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend950": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSame("gradOutput", "self", "gradInput"),
        DtypeSupported("gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        MaxRank("self", n=8),
    ],
    example=Example(shape=(3, 3), values={"gradOutput": 0, "self": 0}),
    notes=[
        Text("CANN的op_api还要求self、gradOutput与gradInput的数据格式一致(任意格式)。",
             "CANN's op_api also requires self, gradOutput and gradInput to have one format (any format)."),
    ],
    # PyTorch has no FastGelu: autograd of x*sigmoid(1.702x)
    torch=TorchGrad(lambda torch, x: x * torch.sigmoid(1.702 * x), "self"),
    description=Text("FastGelu激活函数的反向传播。", "Backward of the FastGelu activation."),
)
