"""aclnnMultilabelSoftMarginLossBackward: the gradient of MultiLabelSoftMarginLoss w.r.t. its input (N, C):
loss_n = -(1/C) Σ_c w_c (y log σ(x) + (1 - y) log σ(-x)), a mean over the class axis, then reduced over the
samples (none/mean/sum). The per-sample gradient of `none` is given as (N, 1), broadcast along the classes."""
from codegen.spec import *

x, y, w, g = symbols("self target weightOptional gradOutput", real=True)
reduction = Symbol("reduction", integer=True)
C = dim_size("self", 1)          # the classes: every sample's loss is a mean over them
N = dim_size("self", 0)          # the samples: mean's divisor


def log_sigmoid(z):
    return Min(z, 0) - log(1 + exp(-Abs(z)))


SPEC = Op(
    name="aclnnMultilabelSoftMarginLossBackward",
    forward_name="MultiLabelSoftMarginLoss",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("上一层传回的梯度,每个样本一个(N, 1),或规约后的一个元素。",
                        "the incoming gradient: one per sample, (N, 1), or one element when reduced.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("输入(N, C)。", "the input, (N, C).")),
        Tensor("target", y, role=OPERAND, doc=Text("多标签目标,0或1。", "the multi-label target, 0 or 1.")),
        Tensor("weightOptional", w, role=OPERAND, optional=True, default=1,
               doc=Text("每个类别的权重(C,)。", "a weight per class, (C,).")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("损失的规约方式。", "how the forward loss was reduced.")),
        Output("gradInput", doc=Text("对self的梯度。", "the gradient w.r.t. self.")),
    ],
    wrt=x,
    forward=-w * (y * log_sigmoid(x) + (1 - y) * log_sigmoid(-x)) / C,
    loss_reduction=Reduction("reduction", mean=N),
    backward=g * w * (1 / (1 + exp(-x)) - y) / C * Piecewise((1 / N, Eq(reduction, 1)), (1, True)),
    dtypes={
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "self", "target", "weightOptional", "gradInput"),
        DtypeSame("self", "gradOutput", "target", "weightOptional", "gradInput"),
        MinRank("self", n=2),
        MaxRank("gradOutput", "self", "target", "weightOptional", "gradInput", n=2),
        ShapeSame("self", "target", "gradInput"),
        BroadcastTo("gradOutput", "weightOptional", "self"),
        OneOf("reduction", [0, 1, 2]),
    ],
    torch=TorchGrad(lambda torch, x, y, w, r: torch.nn.functional.multilabel_soft_margin_loss(
        x, y, weight=w, reduction={0: "none", 1: "mean", 2: "sum"}[r]), "self", "target", "weightOptional",
        "reduction"),
    description=Text("MultiLabelSoftMarginLoss对输入的反向传播。",
                     "Backward of MultiLabelSoftMarginLoss w.r.t. its input."),
)
