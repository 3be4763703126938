"""aclnnSigmoidFocalLossBackward: the gradient w.r.t. the logits of torchvision's sigmoid focal loss,
alpha_t * BCE(x, t) * (1 - p_t)^gamma, p = sigmoid(x), p_t = p t + (1 - p)(1 - t), reduced none/mean/sum."""
from codegen.spec import *

x, t, g = symbols("self target gradOutput", real=True)
gamma, alpha = symbols("gamma alpha", real=True)
reduction = Symbol("reduction", integer=True)
N = numel("self")


def log_sigmoid(z):
    return Min(z, 0) - log1p(exp(-Abs(z)))


def power(base, e):
    """base**e for base >= 0 and a scalar e: the vocabulary has no power with a symbolic exponent, and
    exp(e*log(base)) alone is nan at 0**0 (0*log 0), where PyTorch's pow gives 1."""
    return Piecewise((1, Eq(e, 0)), (exp(e * log(base)), True))


ce = -(t * log_sigmoid(x) + (1 - t) * log_sigmoid(-x))      # BCE with logits
q = sigmoid(x) * (1 - t) + sigmoid(-x) * t                    # 1 - p_t, without the cancellation of 1 - p_t
# (the backward's p - t is written sigmoid(x)(1 - t) - sigmoid(-x) t likewise: exact for a 0/1 target at |x| >> 1)
alpha_t = Piecewise((alpha * t + (1 - alpha) * (1 - t), alpha >= 0), (1, True))
mean_factor = Piecewise((1 / N, Eq(reduction, 1)), (1, True))

FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnSigmoidFocalLossBackward",
    forward_name="sigmoid_focal_loss",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("损失的梯度。", "the gradient of the loss.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("logits x。", "the logits x.")),
        Tensor("target", t, role=OPERAND, doc=Text("目标,取值[0, 1]。", "the target, in [0, 1].")),
        Attr("gamma", gamma, type="double", doc=Text("调制因子的指数,不小于0。", "the focusing exponent, at least 0.")),
        Attr("alpha", alpha, type="double",
             doc=Text("正类的权重;小于0表示不加权。", "the weight of the positive class; below 0: no weighting.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("损失的规约方式。", "how the loss was reduced.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=alpha_t * ce * power(q, gamma),
    loss_reduction=Reduction("reduction", mean=N),
    backward=g * mean_factor * alpha_t * ((sigmoid(x) * (1 - t) - sigmoid(-x) * t) * power(q, gamma)
                                          + gamma * ce * power(q, gamma - 1) * (1 - 2 * t) * sigmoid(x)
                                          * sigmoid(-x)),
    dtypes={"ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("gradOutput", "self", "target", "gradInput"),
        DtypeSame("self", "target", "gradInput"),
        MaxRank("gradOutput", "self", "target", n=8),
        BroadcastTo("gradOutput", "target", "self"),
        ShapeSame("self", "gradInput"),
        OneOf("reduction", [0, 1, 2]),
        Requires("gamma", gamma >= 0),
    ],
    description=Text("sigmoid focal loss对logits的反向传播。", "Backward of the sigmoid focal loss w.r.t. the logits."),
)
