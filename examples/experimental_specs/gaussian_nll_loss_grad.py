"""aclnnGaussianNllLossGrad (CANN experimental/loss/gaussian_nll_loss_grad): the gradients w.r.t. input and var of
the Gaussian negative log-likelihood 0.5 * (log(max(var, eps)) + (input - target)^2 / max(var, eps)) (+ a constant
when `full`).

Two outputs.  As PyTorch's gaussian_nll_loss, var is clamped to eps without a gradient through the clamp, so
gradVar is 0.5 * (1/v - d^2/v^2) with v = max(var, eps) everywhere: the form of gradVar differentiates the loss
continued linearly in var below eps (the function whose derivative that is), gradInput the clamped loss."""
from codegen.spec import *

x, t, v, g = symbols("input target var gradOutput", real=True)
eps = Symbol("eps", positive=True)
full = Symbol("full")
N = numel("input")

d = x - t
vc = Max(v, eps)
loss = Rational(1, 2) * (log(vc) + d ** 2 / vc)
# the loss in var as PyTorch differentiates it: linear below eps with the slope at eps
loss_in_var = Piecewise((Rational(1, 2) * (log(v) + d ** 2 / v), v > eps),
                        (Rational(1, 2) * (log(eps) + d ** 2 / eps)
                         + Rational(1, 2) * (1 / eps - d ** 2 / eps ** 2) * (v - eps), True))
grad_input = g * d / vc
grad_var = g * Rational(1, 2) * (1 / vc - d ** 2 / vc ** 2)

SPEC = Op(
    name="aclnnGaussianNllLossGrad",
    forward_name="gaussian_nll_loss",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("input", x, role=FORWARD_INPUT, doc=Text("高斯分布的均值。", "the mean of the Gaussian.")),
        Tensor("target", t, role=OPERAND, doc=Text("样本值。", "the sample.")),
        Tensor("var", v, role=OPERAND, doc=Text("高斯分布的方差。", "the variance of the Gaussian.")),
        Attr("full", full, type="bool", doc=Text("损失是否含常数项。", "whether the loss has its constant term.")),
        Attr("eps", eps, type="float", doc=Text("var的下限,须大于0。", "the floor of var; must be above 0.")),
        Attr("reduction", type="string", c_type="const char *",
             values={"none": "no reduction", "mean": "the mean", "sum": "the sum"},
             doc=Text("规约方式:none、mean、sum。", "the reduction: none, mean or sum.")),
        Output("gradInput", doc=Text("对input的梯度。", "the gradient w.r.t. input.")),
        Output("gradVar", wrt=v, doc=Text("对var的梯度。", "the gradient w.r.t. var.")),
    ],
    wrt=x,
    forward=loss,
    loss_reduction=Reduction("reduction", mean=N),
    backward=[
        Formula(grad_input, when={"reduction": "none"}),
        Formula(grad_input / N, when={"reduction": "mean"}),
        Formula(grad_input, when={"reduction": "sum"}),
        Formula(grad_var, when={"reduction": "none"}, output="gradVar", forward=loss_in_var),
        Formula(grad_var / N, when={"reduction": "mean"}, output="gradVar", forward=loss_in_var),
        Formula(grad_var, when={"reduction": "sum"}, output="gradVar", forward=loss_in_var),
    ],
    dtypes={"ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"]},
    rules=[
        DtypeSupported("gradOutput", "input", "target", "var", "gradInput", "gradVar"),
        DtypeSame("input", "gradOutput", "target", "var", "gradInput", "gradVar"),
        MaxRank("gradOutput", "input", "target", "var", "gradInput", "gradVar", n=8),
        ShapeSame("input", "target", "var"),
        ShapeSame("input", "gradInput"),         # one rule per output: each output is emitted as an op of its own
        ShapeSame("input", "gradVar"),
        BroadcastTo("gradOutput", "input"),
        OneOf("reduction", ["none", "mean", "sum"]),
        Requires("eps", eps > 0),
    ],
    description=Text("高斯负对数似然损失的反向传播。", "Backward of the Gaussian negative log-likelihood loss."),
)
