"""aclnnSigmoidTimesInfinityBackward: one fuzzed formula

Regression (session 18, found by codegen.fuzz, seed 1919, batch 5): F = log(1 + exp(-9x²)) + 3·erf(x - α +
x/(1 + α))/2, whose derivative -18x·σ(-9x²) + ... tends to 0 at x = ±inf.  The C kernel gave ∓inf·gradOutput
there: its sum computed in double read σ(-9x²) as opgen_sigmoid_ext, which clamps the argument at -700, so
∞·e^-700 was ∞ where NumPy and Ascend C give the nan of ∞·0 (the accuracy rules' documented class for an exact 0
at an infinite input).  A σ that multiplies a factor reading its argument's symbols is opgen_sigmoid_ext0 now
(codegen/backends/c/extended.py, _factor_sigmoids).
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnSigmoidTimesInfinityBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=3*erf(x - alpha + x/(1 + alpha))/2 + log(1 + exp(-9*x**2)),
    backward=gradOutput*((3 + 3/(1 + alpha))*exp(-(x - alpha + x/(1 + alpha))**2)/sqrt(pi) - 18*x*exp(-9*x**2)/(1 + exp(-9*x**2))),
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
