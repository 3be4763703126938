"""aclnnNegativeDenominatorBackward: one fuzzed formula

Written by codegen.fuzz (tests/regression).

Regression (issue 29, found by codegen.fuzz, seed 7): the C kernel's phase-1 constant -1/(alpha + 1)**2 printed
`-1/(p.alpha + 1)*(p.alpha + 1)`: SymPy's printers parenthesize the factors of a negative product at the level of
`+`; codegen.backends.infix prints the sign apart and the rest at the level of `*`.
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnNegativeDenominatorBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=sqrt(2 + tanh(erfc(x/(1 + alpha))))*sign(-1 + alpha*x),
    backward=-gradOutput*(1 - tanh(erfc(x/(1 + alpha)))**2)*exp(-x**2/(1 + alpha)**2)*sign(-1 + alpha*x)/(sqrt(pi)*(1 + alpha)*sqrt(2 + tanh(erfc(x/(1 + alpha))))),
    at={Eq(x, 1/alpha): 0},
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
