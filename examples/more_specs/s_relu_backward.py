"""aclnnSReluBackward: the gradient of the S-shaped ReLU (Jin et al. 2016): slope al below tl, 1 between, ar above tr."""
from codegen.spec import *

x, g = symbols("self gradOutput", real=True)
tl, al, tr, ar = symbols("tl al tr ar", real=True)

SPEC = Op(
    name="aclnnSReluBackward",
    forward_name="SReLU",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("tl", tl, doc=Text("左阈值。", "the left threshold.")),
        Scalar("al", al, doc=Text("左斜率。", "the slope below tl.")),
        Scalar("tr", tr, doc=Text("右阈值,不小于tl。", "the right threshold; at least tl.")),
        Scalar("ar", ar, doc=Text("右斜率。", "the slope above tr.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=Piecewise((tr + ar * (x - tr), x > tr), (tl + al * (x - tl), x < tl), (x, True)),
    backward=Piecewise((g * ar, x > tr), (g * al, x < tl), (g, True)),
    at={Eq(x, tl): g, Eq(x, tr): g},
    dtypes={
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        MaxRank("gradOutput", "self", "gradInput", n=8),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("tr", tl <= tr),
    ],
    torch=TorchGrad(lambda torch, x, tl, al, tr, ar: torch.where(
        x > tr, tr + ar * (x - tr), torch.where(x < tl, tl + al * (x - tl), x)), "self", "tl", "al", "tr", "ar"),
    description=Text("SReLU的反向传播。", "Backward of SReLU."),
)
