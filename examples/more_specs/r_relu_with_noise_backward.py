"""aclnnRReluWithNoiseBackward: the gradient of RReLU w.r.t. self.  Training multiplies by the noise tensor the
forward filled (its random slope, drawn from U(lower, upper), where x <= 0, and 1 elsewhere); evaluation passes
the gradient where x > 0 and multiplies it by the mean slope (lower + upper)/2 elsewhere (PyTorch's
rrelu_with_noise_backward, whose training form also needs upper - lower > 1e-6: else it is the evaluation's)."""
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
    # evaluation: the mean slope below 0 (the kink x = 0 takes it, as PyTorch's leaky_relu_backward)
    forward=Piecewise((x, x > 0), ((lower + upper) / 2 * x, True)),
    backward=[
        # training: the forward was y = noise * x, its noise 1 where x > 0 (PyTorch multiplies by noise alone)
        Formula(g * r, when={"training": True}, forward=r * x),
        Formula(Piecewise((g, x > 0), (g * (lower + upper) / 2, True)), when={"training": False},
                at={Eq(x, 0): g * (lower + upper) / 2}),
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
