"""aclnnPiecewiseConditionBackward: one fuzzed formula

Written by codegen.fuzz (tests/regression).

Regression (issue 29, found by codegen.fuzz, seed 37, in F = (2 + tanh(sqrt(1 + exp(tanh(Piecewise(...))))))**(3/2)):
tanh's expansion compares its argument, here a Piecewise, and SymPy writes `Piecewise((u, k), (v, True)) < 0`
as ITE(k, u < 0, v < 0), which the Ascend C lowering had no mask for (NotImplementedError at build time).  It
is now (k & (u < 0)) | (~k & (v < 0)), And/Or/Not of bit masks (codegen/backends/ascendc/lowering.py).
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnPiecewiseConditionBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=tanh(Piecewise((x - alpha, beta + x >= 0), (x, True))),
    backward=gradOutput*(1 - tanh(Piecewise((x - alpha, beta + x >= 0), (x, True)))**2),
    at={Eq(x, -beta): gradOutput*(1 - tanh(alpha + beta)**2)},
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
