"""aclnnTanhKinkProofBackward: one fuzzed formula

Written by codegen.fuzz (tests/regression).

Regression (issue 29, found by codegen.fuzz, seed 7): the proof did not finish (SymPy's simplify, its trigsimp
factoring over algebraic extensions, for more than 15 minutes in a batch, 30 s and more alone) on the one-sided
derivatives at the jump x = -1/4, which hold tanh(beta - 1/4); codegen.verify.proof no longer simplifies values
with a hyperbolic or error function.
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnTanhKinkProofBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=((1 + exp(Rational(1, 4) + 3*x/4))**(-3) + 1/(2 + tanh(beta + x)))*sign(Rational(1, 2) + 2*x),
    backward=gradOutput*((-1 + tanh(beta + x)**2)/(2 + tanh(beta + x))**2 - 9*exp(Rational(1, 4) + 3*x/4)/(4*(1 + exp(Rational(1, 4) + 3*x/4))**4))*sign(Rational(1, 2) + 2*x),
    at={Eq(x, Rational(-1, 4)): 0},
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
