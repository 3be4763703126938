"""aclnnMseLossGrad (CANN experimental/loss/mse_loss_grad): MseLossBackward with the reduction as a string."""
from codegen.spec import *

x, t, g = symbols("self target gradOutput", real=True)
N = numel("self")

SPEC = Op(
    name="aclnnMseLossGrad",
    forward_name="mse_loss",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("预测值x。", "x, the prediction.")),
        Tensor("target", t, role=OPERAND, doc=Text("目标值。", "the target.")),
        Attr("reduction", type="string", c_type="char *",
             values={"none": "no reduction", "mean": "the mean", "sum": "the sum"},
             doc=Text("规约方式:none、mean、sum。", "the reduction: none, mean or sum.")),
        Output("out", doc=Text("对self的梯度。", "the gradient w.r.t. self.")),
    ],
    wrt=x,
    forward=(x - t) ** 2,
    loss_reduction=Reduction("reduction", mean=N),
    backward=[Formula(2 * (x - t) * g, when={"reduction": "none"}),
              Formula(2 * (x - t) * g / N, when={"reduction": "mean"}),
              Formula(2 * (x - t) * g, when={"reduction": "sum"})],
    dtypes={"ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"]},
    rules=[
        DtypeSupported("gradOutput", "self", "target", "out"),
        DtypeSame("gradOutput", "self", "target", "out"),
        MaxRank("gradOutput", "self", "target", "out", n=8),
        Broadcastable("gradOutput", "self", "target"),
        ShapeIsBroadcast("out", "gradOutput", "self", "target"),
        OneOf("reduction", ["none", "mean", "sum"]),
    ],
    description=Text("均方误差损失的反向传播。", "Backward of the mean squared error loss."),
)
