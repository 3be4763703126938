"""aclnnLogOfPowerBackward: one fuzzed formula

Written by codegen.fuzz (tests/regression).

Regression (found by codegen.fuzz, seed 2525, batches 9-15, in F = |3x/2 + 1/2|·log(1 + σ(x))·sign(αx - 1)):
the oracle's reference crashed, failing the whole batch: SymPy's simplify wrote the derivative's
3·log(1 + σ(x))·… as log(((2e^x + 1)/(e^x + 1))**(3(e^x + 1)(2e^x + 1))), whose exponent mpmath raised exactly as a
whole number (23 s at x = 1e10, OverflowError or MemoryError at x = 3e38).  codegen.accuracy.reference now writes
log(a**b) as b·log(a) for a > 0, and an evaluation mpmath cannot hold leaves that element without a reference value.
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnLogOfPowerBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=Abs(Rational(1, 2) + 3*x/2)*log(1 + 1/(1 + exp(-x)))*sign(-1 + alpha*x),
    backward=Formula(gradOutput*(3*log(1 + 1/(1 + exp(-x)))*sign(Rational(1, 2) + 3*x/2)*sign(-1 + alpha*x)/2
                                 + Abs(Rational(1, 2) + 3*x/2)*exp(-x)*sign(-1 + alpha*x)
                                 / ((1 + 1/(1 + exp(-x)))*(1 + exp(-x))**2)),
                     at={Eq(x, Rational(-1, 3)): 0, Eq(x, 1/alpha): 0}),
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
