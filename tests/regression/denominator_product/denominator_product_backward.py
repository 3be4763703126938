"""aclnnDenominatorProductBackward: one fuzzed formula

Written by codegen.fuzz (tests/regression).

Regression (issue 29, found by codegen.fuzz, seed 37, in F = 1/(1 + log(1 + Min(1/2 - x, x - alpha)**2)**2), FLOAT and
BFLOAT16): the NumPy and C printers divided by the product of the denominators, (1 + x**2)*(1 + log(1 + x**2)**2)**2,
which is 5e41 at x = 1.2e17 and overflows FLOAT: the kernels gave 0 where the exact result is 9e-23.  They now
divide by one denominator factor at a time, the order the oracle's bound assumes (codegen/backends/infix.py).
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnDenominatorProductBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=1/(1 + log(1 + x**2)**2),
    backward=-4*gradOutput*x*log(1 + x**2)/((1 + x**2)*(1 + log(1 + x**2)**2)**2),
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
