"""aclnnSwishBackward: the gradient of Swish(x) = x * sigmoid(beta * x), beta 1.0 when betaOptional is null."""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)
beta = Symbol("betaOptional", real=True)
s = 1 / (1 + exp(-beta * x))

SPEC = Op(
    name="aclnnSwishBackward",
    forward_name="Swish",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,上一层传回的梯度。", "gradOutput in the formula, the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("公式中的x,Swish的正向输入。", "x in the formula, the forward input of Swish.")),
        Scalar("betaOptional", beta, optional=True, default=1.0,
               doc=Text("公式中的β,可为空指针,为空时取1.0。", "β in the formula; may be null, which means 1.0.")),
        Output("gradInput", doc=Text("公式中的gradInput,对x的梯度。", "gradInput in the formula, the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=x * s,
    backward=g * s * (1 + beta * x * (1 - s)),
    dtypes={
        "ascend910": ["FLOAT16", "FLOAT"],
        "ascend310p": ["FLOAT16", "FLOAT"],
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend950": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "self"),
        DtypeSame("gradInput", "gradOutput", "self"),
        MaxRank("gradOutput", "self", "gradInput", n=8),
        ShapeSame("gradOutput", "self", "gradInput"),
    ],
    example=Example(shape=(2, 3), values={"gradOutput": 1, "self": [1, 2, 3, 4, 5, 6], "betaOptional": 1.1}),
    notes=[
        Text("β可取任意值(包括0与负数),与CANN的op_api一致。", "β may take any value, 0 and negative ones included, as in "
             "CANN's op_api."),
    ],
    # PyTorch has no Swish with beta: autograd of x*sigmoid(beta*x)
    torch=TorchGrad(lambda torch, x, beta: x * torch.sigmoid(beta * x), "self", "betaOptional"),
    description=Text("Swish激活函数的反向传播。", "Backward of the Swish activation."),
)
