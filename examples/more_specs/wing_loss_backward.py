"""aclnnWingLossBackward: the gradient of the Wing loss (Feng et al. 2018) w.r.t. self, with an optional weight and a
reduction."""
from codegen.spec import *

x, t, w, g = symbols("self target weightOptional gradOutput", real=True)
omega, epsilon = symbols("omega epsilon", real=True)
reduction = Symbol("reduction", integer=True)
N = numel("self")
d = x - t
C = omega - omega * log(1 + omega / epsilon)
mean_factor = Piecewise((1 / N, Eq(reduction, 1)), (1, True))

SPEC = Op(
    name="aclnnWingLossBackward",
    forward_name="wing_loss",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("预测值x。", "x, the prediction.")),
        Tensor("target", t, role=OPERAND, doc=Text("目标值。", "the target.")),
        Tensor("weightOptional", w, role=OPERAND, optional=True, default=1,
               doc=Text("每个元素的权重,可为空。", "a weight per element; may be null (all 1).")),
        Attr("omega", omega, type="double", doc=Text("非线性区的宽度,须大于0。", "the width of the log part; > 0.")),
        Attr("epsilon", epsilon, type="double", doc=Text("曲率,须大于0。", "the curvature; > 0.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("规约方式。", "the reduction.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=w * Piecewise((omega * log(1 + Abs(d) / epsilon), Abs(d) < omega), (Abs(d) - C, True)),
    loss_reduction=Reduction("reduction", mean=N),
    backward=g * w * mean_factor * Piecewise((omega * sign(d) / (epsilon + Abs(d)), Abs(d) < omega), (sign(d), True)),
    at={Eq(x, t): 0, Eq(x, t + omega): g * w * mean_factor, Eq(x, t - omega): -g * w * mean_factor},
    dtypes={
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "self", "target", "weightOptional", "gradInput"),
        DtypeSame("self", "gradOutput", "target", "weightOptional", "gradInput"),
        MaxRank("gradOutput", "self", "target", "weightOptional", "gradInput", n=8),
        BroadcastTo("gradOutput", "target", "weightOptional", "self"),
        ShapeSame("self", "gradInput"),
        OneOf("reduction", [0, 1, 2]),
        Requires("omega", omega > 0),
        Requires("epsilon", epsilon > 0),
    ],
    torch=TorchGrad(lambda torch, x, t, w, om, ep, r: (lambda e: {0: e, 1: e.mean(), 2: e.sum()}[r])(
        (1 if w is None else w) * torch.where((x - t).abs() < om, om * torch.log1p((x - t).abs() / ep),
                                              (x - t).abs() - (om - om * torch.log1p(torch.tensor(om / ep))))),
        "self", "target", "weightOptional", "omega", "epsilon", "reduction"),
    description=Text("Wing损失的反向传播。", "Backward of the Wing loss."),
)
