"""aclnnSinBeyondReductionBackward: one fuzzed formula

Regression (session 22, found by codegen.fuzz, seed 3232, batch 0 on Ascend C: -sin(alpha/2 - x/2)*Min(pi, alpha*x - 1);
this is its sin alone).  Ascend C then reduced a sin or cos argument up to 65535.5 only and gave nan past it,
documented: the oracle listed that nan with the documented overflows, and judged it again against the formula's
rounding-error bound, finite there (x = 2.3e6: the argument -1.15e6 is exact to 0.06), so every such element
failed as beyond the bound.  Since session 22 Ascend C reduces every FLOAT argument
(codegen/backends/ascendc/sincos.py) and nothing is documented there: the case stays, judged as any other.
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnSinBeyondReductionBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=sin(alpha/2 - x/2),
    backward=-gradOutput*cos(alpha/2 - x/2)/2,
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
