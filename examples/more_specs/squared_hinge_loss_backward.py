"""aclnnSquaredHingeLossBackward: the gradient of the squared hinge loss max(0, 1 - target*self)^2 w.r.t. self,
target ±1 (any real value is taken as written), reduced none/mean/sum by an int64 code (not a CANN operator: Keras's
SquaredHinge, in aclnn's loss conventions): dx = -2 * dy * target * max(0, 1 - target*self)."""
from codegen.spec import *

x, t, g = symbols("self target gradOutput", real=True)
reduction = Symbol("reduction", integer=True)
N = numel("self")
mean_factor = Piecewise((1 / N, Eq(reduction, 1)), (1, True))


def _loss(torch, x, t, r):
    """PyTorch's float64 squared hinge loss, reduced as `reduction` says."""
    loss = torch.clamp(1 - t.expand_as(x) * x, min=0) ** 2
    return {0: loss, 1: loss.mean(), 2: loss.sum()}[r]


FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnSquaredHingeLossBackward",
    forward_name="squared_hinge_loss",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度;reduction为1或2时只有一个元素。",
                                                    "the incoming gradient; one element when reduction is 1 or 2.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("预测值。", "the prediction.")),
        Tensor("target", t, role=OPERAND, doc=Text("目标值,取1或-1,可broadcast到self。",
                                                   "the target, 1 or -1; broadcasts to self.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("规约方式:0 none,1 mean,2 sum。", "the reduction: 0 none, 1 mean, 2 sum.")),
        Output("gradInput", doc=Text("对self的梯度。", "the gradient w.r.t. self.")),
    ],
    wrt=x,
    forward=Max(0, 1 - t * x)**2,
    loss_reduction=Reduction("reduction", mean=N),
    backward=-2 * g * t * Max(0, 1 - t * x) * mean_factor,
    dtypes={"ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("gradOutput", "self", "target", "gradInput"),
        DtypeSame("self", "gradOutput", "target", "gradInput"),
        MaxRank("gradOutput", "self", "target", "gradInput", n=8),
        BroadcastTo("gradOutput", "target", "self"),
        ShapeSame("self", "gradInput"),
        OneOf("reduction", [0, 1, 2]),
    ],
    torch=TorchGrad(_loss, "self", "target", "reduction"),
    description=Text("平方hinge损失的反向传播。", "Backward of the squared hinge loss."),
)
