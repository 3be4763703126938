"""aclnnLog1pFactorBackward: one fuzzed formula

Written by codegen.fuzz (tests/regression).

Regression (issue 29, found by codegen.fuzz, seed 7): SymPy's log1p_opt (in codegen.rewrite) factored the argument
first: log(1 + exp(-x**2)) became log1p(exp(x**2)) - x**2, 5% off at self = 3.79 and nan at self = 10 on every
backend; codegen.rewrite now rewrites log(1 + u) as log1p(u) on the expression as written.
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnLog1pFactorBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=sqrt(2 + tanh(E*x))*sqrt(2 + tanh(x/(1 + alpha)))*Abs(alpha - x)*log(1 + exp(-x**2)),
    backward=gradOutput*(-sqrt(2 + tanh(E*x))*sqrt(2 + tanh(x/(1 + alpha)))*log(1 + exp(-x**2))*sign(alpha - x) + E*sqrt(2 + tanh(x/(1 + alpha)))*(1 - tanh(E*x)**2)*Abs(alpha - x)*log(1 + exp(-x**2))/(2*sqrt(2 + tanh(E*x))) + sqrt(2 + tanh(E*x))*(1 - tanh(x/(1 + alpha))**2)*Abs(alpha - x)*log(1 + exp(-x**2))/(2*(1 + alpha)*sqrt(2 + tanh(x/(1 + alpha)))) - 2*x*sqrt(2 + tanh(E*x))*sqrt(2 + tanh(x/(1 + alpha)))*Abs(alpha - x)*exp(-x**2)/(1 + exp(-x**2))),
    at={Eq(x, alpha): 0},
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
