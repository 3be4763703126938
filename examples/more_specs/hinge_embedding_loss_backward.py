"""aclnnHingeEmbeddingLossBackward: the gradient of HingeEmbeddingLoss w.r.t. its input, as PyTorch defines it:
ℓ = (t ≠ -1 ? x : 0) + (t ≠ 1 ? max(0, margin - x) : 0), so the target (±1) selects the form; reduced
none/mean/sum. At the kink x = margin PyTorch's clamp_min passes the gradient (declared: -g from the hinge)."""
from codegen.spec import *

x, t, g, margin = symbols("self target gradOutput margin", real=True)
reduction = Symbol("reduction", integer=True)
N = numel("self")
factor = Piecewise((1 / N, Eq(reduction, 1)), (1, True))
own = Piecewise((1, Ne(t, -1)), (0, True))        # the x term is taken unless t = -1
hinge = Piecewise((1, Ne(t, 1)), (0, True))       # the hinge term is taken unless t = 1

SPEC = Op(
    name="aclnnHingeEmbeddingLossBackward",
    forward_name="HingeEmbeddingLoss",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("输入x(距离)。", "x, the input (a distance).")),
        Tensor("target", t, role=OPERAND, doc=Text("标签,1或-1。", "the label, 1 or -1.")),
        Attr("margin", margin, type="double", doc=Text("间隔。", "the margin.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("损失的规约方式。", "how the forward loss was reduced.")),
        Output("gradInput", doc=Text("对self的梯度。", "the gradient w.r.t. self.")),
    ],
    wrt=x,
    forward=own * x + hinge * Max(0, margin - x),
    loss_reduction=Reduction("reduction", mean=N),
    backward=g * factor * (own - hinge * Piecewise((1, x <= margin), (0, True))),
    at={Eq(x, margin): g * factor * (own - hinge)},
    dtypes={
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "self", "target", "gradInput"),
        DtypeSame("self", "gradOutput", "target", "gradInput"),
        MaxRank("gradOutput", "self", "target", "gradInput", n=8),
        BroadcastTo("gradOutput", "target", "self"),
        ShapeSame("self", "gradInput"),
        OneOf("reduction", [0, 1, 2]),
    ],
    torch=TorchGrad(lambda torch, x, t, m, r: torch.nn.functional.hinge_embedding_loss(
        x, t, margin=m, reduction={0: "none", 1: "mean", 2: "sum"}[r]), "self", "target", "margin", "reduction"),
    description=Text("HingeEmbeddingLoss对输入的反向传播。", "Backward of HingeEmbeddingLoss w.r.t. its input."),
)
