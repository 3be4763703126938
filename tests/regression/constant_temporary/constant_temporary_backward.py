"""aclnnConstantTemporaryBackward: one fuzzed formula

Regression (session 17, found by codegen.fuzz, seed 1717, batch 5): the backward cancels at two roots ±x0 (the
forward is even), so the two near-root series (codegen.cancellation) share coefficients up to their sign, and
CSE made temporaries of two constants (-c).  The Ascend C lowering bound them as tile values: `Add(f4, -0.0456F,
f6, calc)`, an Add of a C++ float and a tile, did not compile.  A temporary with no tensor in it is a scalar now,
printed inline (codegen/backends/ascendc/lowering.py, `bind`).
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnConstantTemporaryBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=sqrt(1 + exp(Rational(1, 4) - erf(log(1 + exp(-x**2)))/2))*erf(log(1 + exp(-x**2))),
    backward=gradOutput*(-4*x*sqrt(1 + exp(Rational(1, 4) - erf(log(1 + exp(-x**2)))/2))*exp(-x**2)*exp(-log(1 + exp(-x**2))**2)/(sqrt(pi)*(1 + exp(-x**2))) + x*erf(log(1 + exp(-x**2)))*exp(-x**2)*exp(-log(1 + exp(-x**2))**2)*exp(Rational(1, 4) - erf(log(1 + exp(-x**2)))/2)/(sqrt(pi)*(1 + exp(-x**2))*sqrt(1 + exp(Rational(1, 4) - erf(log(1 + exp(-x**2)))/2)))),
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
