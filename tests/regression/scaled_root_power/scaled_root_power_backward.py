"""aclnnScaledRootPowerBackward: one fuzzed formula

Regression (session 22, found by codegen.fuzz, seed 3434, batch 2 on C): F = tanh((1 + x**2)**(3/2)) (a term of the formula
found), a spec that verifies did not build in C: "ConstantError: the constant 4.0173451106474757e+59 overflows float32".
codegen.rewrite.scaled_square_roots writes (1 + x**2)**(3/2) as (sqrt((x s)**2 + s**2)/s)**3, s = 2**-66 above
|x| = 2**62, and SymPy distributed the cube: root**3 * s**-3, the constant 2**198 outside FLOAT.  Fixed in the
rewrite: a power beyond +-1 of the scaled root is taken of root/s, formed first (Opaque).
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnScaledRootPowerBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=tanh((1 + x**2)**Rational(3, 2)),
    backward=3*gradOutput*x*sqrt(1 + x**2)*(1 - tanh((1 + x**2)**Rational(3, 2))**2),
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
