"""aclnnLogCoshLossBackward: the gradient of the log-cosh loss w * log(cosh(self - target)) w.r.t. self: w*tanh(e),
weighted by an optional tensor, reduced none/mean/sum by an int64 code (not a CANN operator: Keras's LogCosh, in
aclnn's loss conventions)."""
from codegen.spec import *
from sympy import cosh   # the forward only: its derivative is tanh, in the vocabulary

x, t, g, w = symbols("self target gradOutput weightOptional", real=True)
reduction = Symbol("reduction", integer=True)
N = numel("self")
mean_factor = Piecewise((1 / N, Eq(reduction, 1)), (1, True))


def _loss(torch, x, t, w, r):
    """log(cosh(e)) without overflow (e + softplus(-2e) - log 2), weighted, reduced as `reduction` says."""
    e = x - t.expand_as(x)
    loss = e + torch.nn.functional.softplus(-2 * e) - 0.6931471805599453
    loss = loss if w is None else w * loss
    return {0: loss, 1: loss.mean(), 2: loss.sum()}[r]


FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnLogCoshLossBackward",
    forward_name="log_cosh_loss",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度;reduction为1或2时只有一个元素。",
                                                    "the incoming gradient; one element when reduction is 1 or 2.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("预测值。", "the prediction.")),
        Tensor("target", t, role=OPERAND, doc=Text("目标值,可broadcast到self。", "the target; broadcasts to self.")),
        Tensor("weightOptional", w, role=OPERAND, optional=True, default=1,
               doc=Text("每个元素的权重,可为空(全1)。", "a weight per element; may be null (all 1).")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("规约方式:0 none,1 mean,2 sum。", "the reduction: 0 none, 1 mean, 2 sum.")),
        Output("gradInput", doc=Text("对self的梯度。", "the gradient w.r.t. self.")),
    ],
    wrt=x,
    forward=w * log(cosh(x - t)),
    loss_reduction=Reduction("reduction", mean=N),
    backward=g * w * tanh(x - t) * mean_factor,
    dtypes={"ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("gradOutput", "self", "target", "weightOptional", "gradInput"),
        DtypeSame("self", "gradOutput", "target", "weightOptional", "gradInput"),
        MaxRank("gradOutput", "self", "target", "weightOptional", "gradInput", n=8),
        BroadcastTo("gradOutput", "target", "weightOptional", "self"),
        ShapeSame("self", "gradInput"),
        OneOf("reduction", [0, 1, 2]),
    ],
    torch=TorchGrad(_loss, "self", "target", "weightOptional", "reduction"),
    description=Text("LogCosh损失的反向传播。", "Backward of the log-cosh loss."),
)
