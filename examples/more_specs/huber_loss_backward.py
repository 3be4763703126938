"""aclnnHuberLossBackward: the gradient of the Huber loss w.r.t. self, weighted, reduced by an int64 code.

CANN has a kernel only (experimental/loss/huber_loss_grad: e = predictions - targets, grad = e where |e| <= delta,
delta*sign(e) elsewhere); this is its aclnn form with PyTorch's huber_loss arguments plus an optional weight:
loss = w * (e^2/2 where |e| <= delta, delta*(|e| - delta/2) elsewhere), reduced none/mean/sum.
"""
from codegen.spec import *

x, t, g, w, delta = symbols("self target gradOutput weightOptional delta", real=True)
reduction = Symbol("reduction", integer=True)
N = numel("self")
mean_factor = Piecewise((1 / N, Eq(reduction, 1)), (1, True))
e = x - t


def _reduced(loss, reduction):
    """PyTorch's reduction of the elementwise loss (mean: over self's elements, which the loss has)."""
    return {0: loss, 1: loss.mean(), 2: loss.sum()}[reduction]

SPEC = Op(
    name="aclnnHuberLossBackward",
    forward_name="huber_loss",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("预测值。", "the prediction.")),
        Tensor("target", t, role=OPERAND, doc=Text("目标值。", "the target.")),
        Tensor("weightOptional", w, role=OPERAND, optional=True, default=1,
               doc=Text("每个元素的权重,可为空(全1)。", "a weight per element; may be null (all 1).")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("规约方式:0 none,1 mean,2 sum。", "the reduction: 0 none, 1 mean, 2 sum.")),
        Attr("delta", delta, type="double", doc=Text("公式中的δ,须大于0。", "δ in the formula; must be positive.")),
        Output("out", doc=Text("对self的梯度。", "the gradient w.r.t. self.")),
    ],
    wrt=x,
    forward=w * Piecewise((e**2 / 2, Abs(e) <= delta), (delta * (Abs(e) - delta / 2), True)),
    loss_reduction=Reduction("reduction", mean=N),
    backward=Piecewise((g * w * e, Abs(e) <= delta), (g * w * delta * sign(e), True)) * mean_factor,
    dtypes={
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "self", "target", "weightOptional", "out"),
        DtypeSame("self", "gradOutput", "target", "weightOptional", "out"),
        MaxRank("gradOutput", "self", "target", "weightOptional", "out", n=8),
        BroadcastTo("gradOutput", "target", "weightOptional", "self"),
        ShapeSame("self", "out"),
        OneOf("reduction", [0, 1, 2]),
        Requires("delta", delta > 0),
    ],
    torch=TorchGrad(lambda torch, x, t, w, r, d: _reduced(
        (1 if w is None else w) * torch.nn.functional.huber_loss(x, t.expand_as(x), reduction="none", delta=d), r),
        "self", "target", "weightOptional", "reduction", "delta"),
    description=Text("HuberLoss的反向传播。", "Backward of the Huber loss."),
)
