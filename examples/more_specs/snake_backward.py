"""aclnnSnakeBackward: the gradients of Snake(x) = x + sin(alpha*x)^2 / (alpha + 1e-9), w.r.t. x and alpha.

Snake (Liu, Ziyin and Ueda, 2020) as BigVGAN's activations.Snake computes it: alpha is a learned tensor with one
value per channel (dimension 1 of x, [B, C, T]), and the 1e-9 beside it is BigVGAN's `no_div_by_zero`, so
alpha = 0 gives x and gradients g and 0 (alpha = -1e-9 divides by zero: inf or nan, as in BigVGAN).  Two
outputs as PReLU: gradInput, and gradAlpha summed over every position of its channel (shape [C]).
d/dx = 1 + 2 alpha sin(alpha x) cos(alpha x)/(alpha + eps) and d/dalpha = 2 x sin(alpha x) cos(alpha x)/(alpha + eps)
- sin(alpha x)^2/(alpha + eps)^2, written with sin(alpha x) cos(alpha x), not sin(2 alpha x): 2 alpha x leaves FLOAT
where alpha x does not (alpha = 3e38, x = -1.2: nan where the gradient is finite).
BigVGAN's `alpha_logscale=True` (alpha = exp(a)) is not this op: its gradAlpha is this one times exp(a).
"""
from codegen.spec import *

x, a, g = symbols("self alpha gradOutput", real=True)
eps = Rational(1, 10**9)

SPEC = Op(
    name="aclnnSnakeBackward",
    forward_name="Snake",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("Snake的正向输入x,[B, C, T]。", "x, the forward input, [B, C, T].")),
        Tensor("alpha", a, role=OPERAND, doc=Text("频率α,每个通道一个。", "the frequency α, one per channel.")),
        Output("gradInput", doc=Text("对self的梯度。", "the gradient w.r.t. self.")),
        Output("gradAlpha", wrt=a, sum_to="alpha",
               doc=Text("对alpha的梯度,在alpha被broadcast的轴上求和。",
                        "the gradient w.r.t. alpha, summed over the axes along which alpha was broadcast.")),
    ],
    wrt=x,
    forward=x + sin(a * x) ** 2 / (a + eps),
    backward=[
        # 1 + 2 sin cos alpha/(alpha + eps) as (sin + cos)^2 - 2 sin cos eps/(alpha + eps): 1 + 2 sin cos cancels
        # where sin(2 alpha x) is near -1 (10^-3 relative error in FLOAT), and 2*alpha leaves FLOAT at alpha = 3e38
        Formula(g * ((sin(a * x) + cos(a * x)) ** 2 - 2 * eps * sin(a * x) * cos(a * x) / (a + eps))),
        Formula(g * (2 * x * sin(a * x) * cos(a * x) / (a + eps) - sin(a * x) ** 2 / (a + eps) ** 2),
                output="gradAlpha"),
    ],
    dtypes={
        "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("self"),
        DtypeSame("self", "gradOutput", "alpha", "gradInput", "gradAlpha"),
        MaxRank("gradOutput", "self", "alpha", "gradInput", "gradAlpha", n=8),
        ShapeSame("self", "gradInput"),
        PerChannel("alpha", "self", dim=1),
        ChannelGrad("gradAlpha", "alpha", "self", dim=1),
        BroadcastTo("gradOutput", "self"),
    ],
    description=Text("Snake激活函数(BigVGAN)的反向传播:计算对输入与对α的梯度。",
                     "Backward of the Snake activation (BigVGAN): the gradients w.r.t. the input and w.r.t. alpha."),
)
