"""aclnnSigmoidTempsBackward: one fuzzed formula

Written by codegen.fuzz (tests/regression).

Regression (issue 29, found by codegen.fuzz, seed 37, in five formulas with nested sigmoids, such as
F = x*(x - alpha)*log(2)/(1 + exp(1/(1 + exp(-exp(-(beta + x)**2)))))): the Ascend C lowering CSE'd each
Sigmoid's stable form into temporaries named after the number of values bound so far, so two sigmoids could
get the same names and the second divided by the first one's 1 + e: 20% off at typical inputs, in every dtype.
The stable form is now lowered as it stands (codegen/backends/ascendc/lowering.py).
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnSigmoidTempsBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=x/(1 + exp(1/(1 + exp(-exp(-(beta + x)**2))))),
    backward=gradOutput*(1/(1 + exp(1/(1 + exp(-exp(-(beta + x)**2))))) - x*(-2*beta - 2*x)*exp(1/(1 + exp(-exp(-(beta + x)**2))))*exp(-(beta + x)**2)*exp(-exp(-(beta + x)**2))/((1 + exp(1/(1 + exp(-exp(-(beta + x)**2)))))**2*(1 + exp(-exp(-(beta + x)**2)))**2)),
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
