"""aclnnSigmoidCrossEntropyWithLogitsGrad (CANN loss/sigmoid_cross_entropy_with_logits_grad, kernel only).

CANN's formula: gradient = (sigmoid(predict) - target) * dOut, the gradient w.r.t. the logits of the unreduced
binary cross entropy with logits, loss = max(x, 0) - x*t + log(1 + exp(-|x|)).
"""
from codegen.spec import *

x, t, g = symbols("predict target dOut", real=True)

SPEC = Op(
    name="aclnnSigmoidCrossEntropyWithLogitsGrad",
    forward_name="sigmoid_cross_entropy_with_logits",
    params=[
        Tensor("predict", x, role=FORWARD_INPUT, doc=Text("sigmoid之前的logits。", "the logits, before sigmoid.")),
        Tensor("target", t, role=OPERAND, doc=Text("标签,shape与predict一致。", "the labels, of predict's shape.")),
        Tensor("dOut", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Output("gradient", doc=Text("对predict的梯度。", "the gradient w.r.t. predict.")),
    ],
    wrt=x,
    forward=Max(x, 0) - x * t + log1p(exp(-Abs(x))),
    backward=(sigmoid(x) - t) * g,
    dtypes={
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend950": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("predict", "target", "dOut", "gradient"),
        DtypeSame("predict", "target", "dOut", "gradient"),
        MaxRank("predict", "target", "dOut", "gradient", n=8),
        ShapeSame("predict", "target", "dOut", "gradient"),
    ],
    torch=TorchGrad(lambda torch, x, t: torch.nn.functional.binary_cross_entropy_with_logits(x, t, reduction="none"),
                    "predict", "target"),
    description=Text("Sigmoid与二元交叉熵融合损失的反向传播。", "Backward of sigmoid cross entropy with logits."),
)
