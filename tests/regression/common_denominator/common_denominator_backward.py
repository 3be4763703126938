"""aclnnCommonDenominatorBackward: one fuzzed formula

Written by codegen.fuzz (tests/regression).

Regression (issue 29, found by codegen.fuzz):
the stability rewrites (optims_c99's FuncMinusOneOptim, codegen.rewrite) put this backward over one common
denominator, (x**2 + 1)**3*(9*x**2 + 4)**4 under a polynomial of degree 10: inf/inf = nan beyond x = 10**4 in
FLOAT (NumPy), where the documented form is finite.
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnCommonDenominatorBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=((1 + 9*x**2/4)**(-3) - 6*x)*sign(beta + x)/(1 + x**2)**2,
    backward=gradOutput*((-6 - 27*x/(2*(1 + 9*x**2/4)**4))*sign(beta + x)/(1 + x**2)**2
                        - 4*x*((1 + 9*x**2/4)**(-3) - 6*x)*sign(beta + x)/(1 + x**2)**3),
    at={Eq(x, -beta): 0},
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
