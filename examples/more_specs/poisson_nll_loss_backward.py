"""aclnnPoissonNllLossBackward: the gradient of PoissonNLLLoss w.r.t. its input; the bool logInput chooses the form
(exp(x) - t·x, or x - t·log(x + eps)), reduced none/mean/sum. `full` adds Stirling's term of the target only,
a constant for the derivative: accepted and documented, never read by the backward."""
from codegen.spec import *

x, t, g, eps = symbols("self target gradOutput eps", real=True)
reduction = Symbol("reduction", integer=True)
log_input, full = symbols("logInput full")
N = numel("self")
factor = Piecewise((1 / N, Eq(reduction, 1)), (1, True))

SPEC = Op(
    name="aclnnPoissonNllLossBackward",
    forward_name="PoissonNLLLoss",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("泊松分布的预测值。", "the prediction.")),
        Tensor("target", t, role=OPERAND, doc=Text("目标值。", "the target.")),
        Attr("logInput", log_input, type="bool",
             doc=Text("为true时self是对数率,否则是率本身。", "true: self is the log-rate; false: the rate itself.")),
        Attr("full", full, type="bool",
             doc=Text("是否加Stirling近似项(只与target有关,不影响梯度)。",
                      "whether the forward adds Stirling's term (of the target only: no effect on the gradient).")),
        Attr("eps", eps, type="double", doc=Text("logInput为false时加在self上的小数。",
                                                 "added to self in the log when logInput is false.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("损失的规约方式。", "how the forward loss was reduced.")),
        Output("gradInput", doc=Text("对self的梯度。", "the gradient w.r.t. self.")),
    ],
    wrt=x,
    forward=exp(x) - t * x,
    loss_reduction=Reduction("reduction", mean=N),
    backward=[
        Formula(g * (exp(x) - t) * factor, when={"logInput": True}),
        Formula(g * (1 - t / (x + eps)) * factor, when={"logInput": False}, forward=x - t * log(x + eps)),
    ],
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
        Requires("eps", eps >= 0),
    ],
    torch=TorchGrad(lambda torch, x, t, li, full, eps, r: torch.nn.functional.poisson_nll_loss(
        x, t, log_input=li, full=full, eps=eps, reduction={0: "none", 1: "mean", 2: "sum"}[r]),
        "self", "target", "logInput", "full", "eps", "reduction"),
    description=Text("PoissonNLLLoss对输入的反向传播。", "Backward of PoissonNLLLoss w.r.t. its input."),
)
