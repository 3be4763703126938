"""aclnnTrigKinkProofBackward: one fuzzed formula

Regression (session 22, found by codegen.fuzz, seed 3131, batch 1): the proof of F = cos((-2x*sign(beta + x)/3 +
(1 + x**2)**-3)**2) did not finish in 120 CPU-s (the batch's in 300): `proof.tidy` simplified the one-sided
derivatives at the jump x = -beta for the proof's table, and simplify's trigsimp spent minutes on their sin and
cos.  tidy leaves an expression with a trigonometric function as it is, as it did one with a hyperbolic or error
function (codegen.verify.proof); the proof takes seconds.
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnTrigKinkProofBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=cos(((1 + x**2)**(-3) - 2*x*sign(beta + x)/3)**2),
    backward=-gradOutput*((1 + x**2)**(-3) - 2*x*sign(beta + x)/3)*(-4*sign(beta + x)/3 - 12*x/(1 + x**2)**4)*sin(((1 + x**2)**(-3) - 2*x*sign(beta + x)/3)**2),
    at={Eq(x, -beta): -12*beta*gradOutput*sin((1 + beta**2)**(-6))/(1 + beta**2)**7},
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
