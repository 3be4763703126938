"""aclnnMarginRankingLossBackward: both gradients of the margin ranking loss, max(0, -y*(x1 - x2) + margin).

Two outputs (the gradients w.r.t. input1 and input2), a branch condition whose coefficient of x is another
tensor's element (y), a double margin and an int64 reduction. PyTorch's F.margin_ranking_loss; y is +1 or -1.
"""
from codegen.spec import *

x1, x2, y, g, margin = symbols("input1 input2 target gradOutput margin", real=True)
reduction = Symbol("reduction", integer=True)
N = numel("input1")
mean_factor = Piecewise((1 / N, Eq(reduction, 1)), (1, True))
hinge = -y * (x1 - x2) + margin
active = hinge >= 0          # PyTorch's clamp_min(0) passes the gradient at 0 too

SPEC = Op(
    name="aclnnMarginRankingLossBackward",
    forward_name="margin_ranking_loss",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("input1", x1, role=FORWARD_INPUT, doc=Text("第一个输入x1。", "x1, the first input.")),
        Tensor("input2", x2, role=OPERAND, doc=Text("第二个输入x2。", "x2, the second input.")),
        Tensor("target", y, role=OPERAND, doc=Text("标签y,取1或-1。", "y, the label: 1 or -1.")),
        Attr("margin", margin, type="double", doc=Text("间隔。", "the margin.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("规约方式:0 none,1 mean,2 sum。", "the reduction: 0 none, 1 mean, 2 sum.")),
        Output("gradInput1", doc=Text("对input1的梯度。", "the gradient w.r.t. input1.")),
        Output("gradInput2", wrt=x2, doc=Text("对input2的梯度。", "the gradient w.r.t. input2.")),
    ],
    wrt=x1,
    forward=Piecewise((hinge, active), (0, True)),
    loss_reduction=Reduction("reduction", mean=N),
    backward=[
        # at the kink each output's own active value (PyTorch's): a value per output goes on its form
        Formula(Piecewise((-y * g, active), (0, True)) * mean_factor, at={Eq(hinge, 0): -y * g * mean_factor}),
        Formula(Piecewise((y * g, active), (0, True)) * mean_factor, output="gradInput2",
                at={Eq(hinge, 0): y * g * mean_factor}),
    ],
    dtypes={
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "input1", "input2", "target", "gradInput1", "gradInput2"),
        DtypeSame("input1", "gradOutput", "input2", "target", "gradInput1", "gradInput2"),
        MaxRank("gradOutput", "input1", "input2", "target", "gradInput1", "gradInput2", n=8),
        BroadcastTo("gradOutput", "input2", "target", "input1"),
        ShapeSame("input1", "gradInput1"),
        ShapeSame("input1", "gradInput2"),
        OneOf("reduction", [0, 1, 2]),
    ],
    torch=TorchGrad(lambda torch, a, b, y, m, r: torch.nn.functional.margin_ranking_loss(
        a, b.expand_as(a), y.expand_as(a), margin=m, reduction={0: "none", 1: "mean", 2: "sum"}[r]),
        "input1", "input2", "target", "margin", "reduction"),
    description=Text("MarginRankingLoss的反向传播。", "Backward of the margin ranking loss."),
)
