"""aclnnRReluWithNoiseBackward: the gradient of RReLU w.r.t. self: x > 0 passes the gradient; below, training
multiplies by the forward's random slope (the noise tensor, which held it), evaluation by the mean slope
(lower + upper)/2 (PyTorch's rrelu_with_noise_backward; the slopes are drawn from U(lower, upper))."""
from codegen.spec import *

x, g, r = symbols("self gradOutput noise", real=True)
lower, upper = symbols("lower upper", real=True)
training = Symbol("training")

FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnRReluWithNoiseBackward",
    forward_name="rrelu",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Tensor("noise", r, role=OPERAND, doc=Text("正向训练时x<=0处的随机斜率(其余为1),shape与self一致。",
                                                  "the random slope the training forward drew where x <= 0 (1 "
                                                  "elsewhere), of self's shape.")),
        Attr("lower", lower, type="double", doc=Text("斜率均匀分布的下界。", "the lower bound of the slopes.")),
        Attr("upper", upper, type="double", doc=Text("斜率均匀分布的上界,须不小于lower。",
                                                     "the upper bound of the slopes; at least lower.")),
        Attr("training", training, type="bool", doc=Text("是否为训练模式。", "whether the forward was training.")),
        Output("gradInput", doc=Text("对self的梯度。", "the gradient w.r.t. self.")),
    ],
    wrt=x,
    forward=Piecewise((x, x > 0), (r * x, True)),
    backward=[
        Formula(Piecewise((g, x > 0), (g * r, True)), when={"training": True}, at={Eq(x, 0): g * r}),
        Formula(Piecewise((g, x > 0), (g * (lower + upper) / 2, True)), when={"training": False},
                forward=Piecewise((x, x > 0), ((lower + upper) / 2 * x, True)), at={Eq(x, 0): g * (lower + upper) / 2}),
    ],
    dtypes={"ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("gradOutput", "self", "noise", "gradInput"),
        DtypeSame("self", "gradOutput", "noise", "gradInput"),
        MaxRank("gradOutput", "self", "noise", "gradInput", n=8),
        ShapeSame("self", "gradOutput", "noise", "gradInput"),
        Requires("upper", lower <= upper),
    ],
    torch=Torch("rrelu_with_noise_backward", "gradOutput", "self", "noise", "lower", "upper", "training", Const(False)),
    description=Text("RReLU的反向传播。", "Backward of RReLU."),
)
