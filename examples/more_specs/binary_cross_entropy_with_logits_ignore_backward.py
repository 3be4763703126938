"""aclnnBinaryCrossEntropyWithLogitsIgnoreBackward: the gradient w.r.t. self of the binary cross entropy with
logits, max(x, 0) - x*t + log(1 + exp(-|x|)), where elements whose target equals `ignoreIndex` (segmentation's
255, or -100) contribute nothing; reduced none or sum by aclnn's int64 code (0, 2). The mean over the elements not ignored (PyTorch's
convention for an ignore index) is not in the language: a mean divisor must be numel of a tensor.
Not a CANN operator: written in aclnn's conventions.
"""
from codegen.spec import *


def _torch_loss(torch, x, t, ignore, reduction):
    """PyTorch's BCE with logits where target != ignoreIndex, 0 elsewhere, reduced (none or sum)."""
    kept = t != ignore
    loss = torch.nn.functional.binary_cross_entropy_with_logits(x, torch.where(kept, t, 0 * t), reduction="none")
    loss = torch.where(kept, loss, 0 * loss)
    return loss if reduction == 0 else loss.sum()


x, t, g = symbols("self target gradOutput", real=True)
ignore = Symbol("ignoreIndex", integer=True)
reduction = Symbol("reduction", integer=True)
kept = Ne(t, ignore)

SPEC = Op(
    name="aclnnBinaryCrossEntropyWithLogitsIgnoreBackward",
    forward_name="binary_cross_entropy_with_logits_ignore",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("logits x。", "x, the logits.")),
        Tensor("target", t, role=OPERAND, doc=Text("目标概率,等于ignoreIndex的元素被忽略。",
                                                   "the target probability; elements equal to ignoreIndex are ignored.")),
        Attr("ignoreIndex", ignore, type="int64", doc=Text("被忽略的目标值。", "the target value that is ignored.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 2: "sum"},
             doc=Text("规约方式:0 none,2 sum。", "the reduction: 0 none or 2 sum.")),
        Output("gradInput", doc=Text("对self的梯度。", "the gradient w.r.t. self.")),
    ],
    wrt=x,
    forward=Piecewise((Max(x, 0) - x * t + log(1 + exp(-Abs(x))), kept), (0, True)),
    loss_reduction=Reduction("reduction"),
    backward=Piecewise((g * (sigmoid(x) - t), kept), (0, True)),
    dtypes={
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "self", "target", "gradInput"),
        DtypeSame("self", "gradOutput", "target", "gradInput"),
        MaxRank("gradOutput", "self", "target", "gradInput", n=8),
        BroadcastTo("gradOutput", "self"),
        ShapeSame("self", "target", "gradInput"),
        OneOf("reduction", [0, 2]),
    ],
    torch=TorchGrad(_torch_loss, "self", "target", "ignoreIndex", "reduction"),
    description=Text("带忽略值的BCEWithLogits的反向传播。", "Backward of BCE with logits with an ignored target value."),
)
