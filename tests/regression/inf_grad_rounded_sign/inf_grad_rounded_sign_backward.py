"""aclnnInfGradRoundedSignBackward: one fuzzed formula

Written by codegen.fuzz (tests/regression).

Regression (issue 29, found by codegen.fuzz, seed 7; the oracle's special-value rule, codegen/accuracy/runner.py):
at self = ±10 with gradOutput = ±inf every backend gives the infinity of the wrong sign: the local derivative
-2*E*(1 - tanh(x)**2) + 4*exp(-x**2)/sqrt(pi) is -4.5e-8 exactly, but in FLOAT 1 - tanh(10)**2 is 0 and
exp(-100) a positive subnormal.  The kernels do what FLOAT arithmetic does (finite gradOutput passes, within the
bound); the oracle now counts a sign that the local derivative's rounding bound does not decide as documented,
not as a failure.
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnInfGradRoundedSignBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=(1 + (-E*tanh(x) + erf(x))**2)**(Rational(3, 2)),
    backward=3*gradOutput*sqrt(1 + (-E*tanh(x) + erf(x))**2)*(-E*tanh(x) + erf(x))*(-2*E*(1 - tanh(x)**2) + 4*exp(-x**2)/sqrt(pi))/2,
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
