"""aclnnQuantileLossBackward: the gradient of the quantile (pinball) loss w.r.t. self, with e = target - self:
q*e where e >= 0, (q - 1)*e elsewhere; q in (0, 1) a host scalar; reduced none/mean/sum by an int64 code (not a CANN
operator: the quantile regression loss, in aclnn's loss conventions).  At e = 0 the gradient is the e >= 0 side's,
-q*dy (PyTorch's autograd of torch.where(e >= 0, q*e, (q - 1)*e))."""
from codegen.spec import *

x, t, g, q = symbols("self target gradOutput q", real=True)
reduction = Symbol("reduction", integer=True)
N = numel("self")
mean_factor = Piecewise((1 / N, Eq(reduction, 1)), (1, True))


def _loss(torch, x, t, q, r):
    """The pinball loss as torch.where (its gradient at e = 0 is the e >= 0 side's), reduced as `reduction` says."""
    e = t.expand_as(x) - x
    loss = torch.where(e >= 0, q * e, (q - 1) * e)
    return {0: loss, 1: loss.mean(), 2: loss.sum()}[r]


FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnQuantileLossBackward",
    forward_name="quantile_loss",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度;reduction为1或2时只有一个元素。",
                                                    "the incoming gradient; one element when reduction is 1 or 2.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("预测值。", "the prediction.")),
        Tensor("target", t, role=OPERAND, doc=Text("目标值,可broadcast到self。", "the target; broadcasts to self.")),
        Scalar("q", q, dtype="FLOAT", doc=Text("分位数q,取值范围(0, 1)。", "the quantile q, in (0, 1).")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("规约方式:0 none,1 mean,2 sum。", "the reduction: 0 none, 1 mean, 2 sum.")),
        Output("gradInput", doc=Text("对self的梯度。", "the gradient w.r.t. self.")),
    ],
    wrt=x,
    forward=Piecewise((q * (t - x), t - x >= 0), ((q - 1) * (t - x), True)),
    loss_reduction=Reduction("reduction", mean=N),
    backward=Piecewise((-q * g, t - x >= 0), ((1 - q) * g, True)) * mean_factor,
    at={Eq(t - x, 0): -q * g * mean_factor},   # the whole value there, the mean's 1/N included
    dtypes={"ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("gradOutput", "self", "target", "gradInput"),
        DtypeSame("self", "gradOutput", "target", "gradInput"),
        MaxRank("gradOutput", "self", "target", "gradInput", n=8),
        BroadcastTo("gradOutput", "target", "self"),
        ShapeSame("self", "gradInput"),
        OneOf("reduction", [0, 1, 2]),
        Requires("q", (q > 0) & (q < 1)),
    ],
    torch=TorchGrad(_loss, "self", "target", "q", "reduction"),
    description=Text("分位数损失的反向传播。", "Backward of the quantile (pinball) loss."),
)
