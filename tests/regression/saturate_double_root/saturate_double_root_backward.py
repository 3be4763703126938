"""aclnnSaturateDoubleRootBackward: one fuzzed formula

Regression (session 22, found by codegen.fuzz's grammar, full vocabulary, seed 5): F = x*tanh(x**3) verified,
and no backend built it: the lowering clamps x where tanh(x**3) has saturated (codegen.saturate), bounding the
argument's roots and those of its derivative with SymPy's nroots, which does not converge at a multiple root
(3x**2's double root at 0): NoConvergence raised from every backend's lowering.  The roots are taken of each
polynomial's square-free part now (the same roots, each once).
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnSaturateDoubleRootBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=x*tanh(x**3),
    backward=gradOutput*(3*x**3*(1 - tanh(x**3)**2) + tanh(x**3)),
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
