"""aclnnConstantFactorBackward: one fuzzed formula

Regression (session 18, found by codegen.fuzz, seed 2121, batch 1): F = exp(tanh(√(2 + tanh(√(2 + tanh(7x/10)))))),
whose documented derivative holds 7/20 - 7 tanh(7x/10)²/20.  The lowering carried that sum as
CompensatedAdd(-c t², c, lo(c)), c = 7/20 (no FLOAT holds it): where t = ±1 (x = ±inf, and every |x| above 12 in
FLOAT) it gave lo(c), 1e-8, for the exact 0, on every backend and dtype (3.7e-11 at x = +inf).  A sum whose terms
all share the constant is c·(1 - t²) now (codegen.lower.compensate_constants).
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnConstantFactorBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=exp(tanh(sqrt(2 + tanh(sqrt(2 + tanh(7*x/10)))))),
    backward=gradOutput*(1 - tanh(sqrt(2 + tanh(sqrt(2 + tanh(7*x/10)))))**2)*(1 - tanh(sqrt(2 + tanh(7*x/10)))**2)*(Rational(7, 20) - 7*tanh(7*x/10)**2/20)*exp(tanh(sqrt(2 + tanh(sqrt(2 + tanh(7*x/10))))))/(2*sqrt(2 + tanh(sqrt(2 + tanh(7*x/10))))*sqrt(2 + tanh(7*x/10))),
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
