"""aclnnFiniteBeyondDtypeBackward: one fuzzed formula

Regression (session 22, found by codegen.fuzz, seed 3434, batch 2 on C, FLOAT16): x = -65504, g = -1.158: the
kernel 13592, the exact result -inf (the value, -7.5e5, leaves FLOAT16).  Its size and sign are rounding's: the
argument pi**2 x**2 = 4.2e10 of cos is off in FLOAT by far more than 2 pi, and the formula's rounding-error bound
(2e14) exceeds its value.  The oracle excused only an infinity there (rounding_sign_infinity); now an element whose
exact result leaves the dtype is judged as any other, by the formula's value and twice its bound plus one ulp (an
infinity where that interval reaches past the dtype's largest value; codegen.accuracy.runner).
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnFiniteBeyondDtypeBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=erfc((1 + exp(-tanh(alpha - x)))**(Rational(2, 3)) - sin(pi**2*x**2)),
    backward=-2*gradOutput*(-2*x*pi**2*cos(pi**2*x**2) + (2 - 2*tanh(alpha - x)**2)*exp(-tanh(alpha - x))/(3*(1 + exp(-tanh(alpha - x)))**(Rational(1, 3))))*exp(-((1 + exp(-tanh(alpha - x)))**(Rational(2, 3)) - sin(pi**2*x**2))**2)/sqrt(pi),
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
