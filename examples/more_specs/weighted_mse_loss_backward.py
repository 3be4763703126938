"""aclnnWeightedMseLossBackward: both gradients of the weighted squared error w * (self - target)^2, reduced
none/mean/sum by a string (not a CANN operator: written in aclnn's conventions).

Two outputs: gradSelf in self's shape, gradTarget summed back to target's shape (target broadcasts to self, as a
per-feature reference row does); the weight, a required tensor, broadcasts to self too. The mean divides by
self's element count.
"""
from codegen.spec import *

x, t, w, g = symbols("self target weight gradOutput", real=True)
N = numel("self")
e = x - t

SPEC = Op(
    name="aclnnWeightedMseLossBackward",
    forward_name="weighted_mse_loss",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("预测值。", "the prediction.")),
        Tensor("target", t, role=OPERAND, doc=Text("目标值,可广播到self。", "the target; broadcasts to self.")),
        Tensor("weight", w, role=OPERAND, doc=Text("每个元素的权重,可广播到self。",
                                                   "a weight per element; broadcasts to self.")),
        Attr("reduction", type="string", c_type="const char *",
             values={"none": "no reduction", "mean": "the mean", "sum": "the sum"},
             doc=Text("规约方式:none、mean、sum。", "the reduction: none, mean or sum.")),
        Output("gradSelf", doc=Text("对self的梯度。", "the gradient w.r.t. self.")),
        Output("gradTarget", wrt=t, sum_to="target",
               doc=Text("对target的梯度,shape与target一致。", "the gradient w.r.t. target, in target's shape.")),
    ],
    wrt=x,
    forward=w * e**2,
    loss_reduction=Reduction("reduction", mean=N),
    backward=[
        Formula(2 * w * e * g, when={"reduction": "none"}),
        Formula(2 * w * e * g / N, when={"reduction": "mean"}),
        Formula(2 * w * e * g, when={"reduction": "sum"}),
        Formula(-2 * w * e * g, when={"reduction": "none"}, output="gradTarget"),
        Formula(-2 * w * e * g / N, when={"reduction": "mean"}, output="gradTarget"),
        Formula(-2 * w * e * g, when={"reduction": "sum"}, output="gradTarget"),
    ],
    dtypes={
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "self", "target", "weight", "gradSelf", "gradTarget"),
        DtypeSame("self", "gradOutput", "target", "weight", "gradSelf", "gradTarget"),
        MaxRank("gradOutput", "self", "target", "weight", "gradSelf", "gradTarget", n=8),
        BroadcastTo("gradOutput", "target", "weight", "self"),
        ShapeSame("self", "gradSelf"),
        ShapeSame("target", "gradTarget"),
        OneOf("reduction", ["none", "mean", "sum"]),
    ],
    description=Text("加权均方误差损失的反向传播。", "Backward of the weighted mean squared error."),
)
