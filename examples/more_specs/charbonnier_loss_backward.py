"""aclnnCharbonnierLossBackward: the gradient of the Charbonnier loss sqrt((self - target)^2 + eps^2) w.r.t. self,
reduced none/mean/sum by an int64 code (not a CANN operator: the smooth L1 of image restoration, in aclnn's loss
conventions): dx = dy * e / sqrt(e^2 + eps^2), e = self - target.  The kernels computed it as written, 0 where
|e| > 1.8e19 (e^2 overflows FLOAT; the answer is ±dy), as PyTorch's FLOAT does; the lowering now scales e and eps
by 2^-66 under the root there (codegen.rewrite.scaled_square_roots), with nothing written here."""
from codegen.spec import *

x, t, g, eps = symbols("self target gradOutput eps", real=True)
reduction = Symbol("reduction", integer=True)
N = numel("self")
mean_factor = Piecewise((1 / N, Eq(reduction, 1)), (1, True))


def _loss(torch, x, t, r, eps):
    """PyTorch's float64 Charbonnier loss, reduced as `reduction` says."""
    e = x - t.expand_as(x)
    loss = torch.sqrt(e * e + eps * eps)
    return {0: loss, 1: loss.mean(), 2: loss.sum()}[r]


FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnCharbonnierLossBackward",
    forward_name="charbonnier_loss",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度;reduction为1或2时只有一个元素。",
                                                    "the incoming gradient; one element when reduction is 1 or 2.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("预测值。", "the prediction.")),
        Tensor("target", t, role=OPERAND, doc=Text("目标值,可broadcast到self。", "the target; broadcasts to self.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("规约方式:0 none,1 mean,2 sum。", "the reduction: 0 none, 1 mean, 2 sum.")),
        Attr("eps", eps, type="double", doc=Text("公式中的ε,须大于0。", "ε in the formula; must be positive.")),
        Output("gradInput", doc=Text("对self的梯度。", "the gradient w.r.t. self.")),
    ],
    wrt=x,
    forward=sqrt((x - t)**2 + eps**2),
    loss_reduction=Reduction("reduction", mean=N),
    backward=g * (x - t) / sqrt((x - t)**2 + eps**2) * mean_factor,
    dtypes={"ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("gradOutput", "self", "target", "gradInput"),
        DtypeSame("self", "gradOutput", "target", "gradInput"),
        MaxRank("gradOutput", "self", "target", "gradInput", n=8),
        BroadcastTo("gradOutput", "target", "self"),
        ShapeSame("self", "gradInput"),
        OneOf("reduction", [0, 1, 2]),
        Requires("eps", eps > 0),
    ],
    torch=TorchGrad(_loss, "self", "target", "reduction", "eps"),
    description=Text("Charbonnier损失的反向传播。", "Backward of the Charbonnier loss."),
)
