"""aclnnSigmoidRealBackward: one fuzzed formula

Regression (session 17, found by codegen.fuzz, seed 1919, batch 0; batch 7 found another): the Ascend C build
failed with "no Ascend C lowering for re: re(Sigmoid(c0 + x))": `codegen.rewrite.Sigmoid` declared nothing about
its values, so SymPy took the real part of a power of it.  σ of a real is real now (`_eval_is_extended_real`).
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnSigmoidRealBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=(1 + exp(1/(1 + exp(-x*exp(1/(1 + exp(alpha - x)))/(1 + x**2)))))**(Rational(2, 3)),
    backward=-2*gradOutput*(-exp(1/(1 + exp(alpha - x)))/(1 + x**2) + 2*x**2*exp(1/(1 + exp(alpha - x)))/(1 + x**2)**2 - x*exp(1/(1 + exp(alpha - x)))*exp(alpha - x)/((1 + x**2)*(1 + exp(alpha - x))**2))*exp(1/(1 + exp(-x*exp(1/(1 + exp(alpha - x)))/(1 + x**2))))*exp(-x*exp(1/(1 + exp(alpha - x)))/(1 + x**2))/(3*(1 + exp(1/(1 + exp(-x*exp(1/(1 + exp(alpha - x)))/(1 + x**2)))))**(Rational(1, 3))*(1 + exp(-x*exp(1/(1 + exp(alpha - x)))/(1 + x**2)))**2),
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
