"""aclnnXLogYGrad: the gradient of xlogy(x, y) = x * log(y) w.r.t. x, log(y), summed back to x's shape where x was
broadcast against y (PyTorch's xlogy backward for self: 0 where x = 0 and y <= 0, as xlogy(0, y) = 0 there)."""
from codegen.spec import *

x, y, g = symbols("self other gradOutput", real=True)

FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnXLogYGrad",
    forward_name="xlogy",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x,与other满足broadcast关系。",
                                                         "x, the forward input; broadcasts with other.")),
        Tensor("other", y, role=OPERAND, doc=Text("正向输入y,与self满足broadcast关系。",
                                                   "y, the other forward input; broadcasts with self.")),
        Output("gradSelf", sum_to="self", doc=Text("对self的梯度,shape与self一致。",
                                                   "the gradient w.r.t. self, of self's shape.")),
    ],
    wrt=x,
    forward=Piecewise((0, Eq(x, 0)), (x * log(y), True)),
    backward=Piecewise((0, Eq(x, 0) & (y <= 0)), (g * log(y), True)),
    dtypes={"ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("gradOutput", "self", "other", "gradSelf"),
        DtypeSame("self", "gradOutput", "other", "gradSelf"),
        MaxRank("gradOutput", "self", "other", "gradSelf", n=8),
        Broadcastable("self", "other"),
        BroadcastsInto("gradOutput", "self", "other"),
        ShapeSame("self", "gradSelf"),
    ],
    torch=TorchGrad(lambda torch, x, y: torch.xlogy(x, y), "self", "other"),
    description=Text("xlogy对x的反向传播。", "Backward of xlogy w.r.t. x."),
)
