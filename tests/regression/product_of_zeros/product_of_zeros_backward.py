"""aclnnProductOfZerosBackward: one fuzzed formula

Regression (session 22, found by codegen.fuzz, seed 3434, batch 0 on NumPy, FLOAT and BFLOAT16):
F = log(tanh(x**3) + 2)**2 at x = -2.80, g = 1.356: the kernel 0, the exact result 3.2e-36, judged "beyond the
bound".  The kernel is right (FLOAT's 1 - tanh(u)**2 is 0 past |u| = 9, and log(2 + tanh(u)) is log(1) = 0); the
oracle's bound was not: evaluated in float64, both factors 1 - tanh(x**3)**2 and log(2 + tanh(x**3)) are 0 there,
and the first-order bound of a product, sum_i E(a_i) prod_{j != i} |a_j|, is then 0 (each term has the other
factor's 0).  Fixed in codegen.accuracy.bound: a product's bound is prod(|a_i| + E(a_i)) - prod(|a_i|), the higher
orders included.
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnProductOfZerosBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=log(2 + tanh(x**3))**2,
    backward=6*gradOutput*x**2*(1 - tanh(x**3)**2)*log(2 + tanh(x**3))/(2 + tanh(x**3)),
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
