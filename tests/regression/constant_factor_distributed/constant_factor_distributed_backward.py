"""aclnnConstantFactorDistributedBackward: one fuzzed formula

Regression (session 18, found by codegen.fuzz, seed 2424, batch 5): every backend gave 4.0e-9 at self = inf and
1.2e-7 at self = -inf (FLOAT), where the derivative is 0.  SymPy distributes 7/10·(1 - tanh(u)²) into
-0.7·t² + 0.7, and codegen.lower.compensate_constants carried the constant 7/10 as hi + lo, (-0.7·t² + hi) + lo:
at tanh(u) = ±1 the first sum is exactly 0 and lo = 1.2e-8 is left.  A sum whose every term carries the constant
is that product again now, 0.7·(1 - t²).
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnConstantFactorDistributedBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=-alpha + log(tanh(7*x/10) + 2) + tanh(x),
    backward=gradOutput*(Rational(7,10)*(1 - tanh(7*x/10)**2)/(tanh(7*x/10) + 2) + 1 - tanh(x)**2),
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
