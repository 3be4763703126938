"""aclnnRoundingSignInfinityBackward: one fuzzed formula

Regression (session 22, found by codegen.fuzz with the grammar's second tensor `target`, seed 3232, batch 0 on C):
F = sin(sigmoid(cos((beta + x)**2*(x - target)**2))) in FLOAT16 at x = ±157.125: the exact result leaves FLOAT16
(±inf), and every backend gives the infinity of the other sign: the argument (beta + x)**2*(x - target)**2, 6e8, is
rounded in FLOAT by far more than pi, so the sign of its sin, and of the result, is rounding's (the formula's
rounding-error bound exceeds its value).  The oracle judged the special value by class and failed it; such an
infinity is documented now, as `_sign_unsure` documents one of an infinite gradOutput (codegen.accuracy.runner).
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)
target = Symbol("target", real=True)

SPEC = Op(
    name="aclnnRoundingSignInfinityBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Tensor("target", target, role=OPERAND, doc=Text("正向的另一个输入。", "another forward operand, constant for the derivative.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=sin(1/(1 + exp(-cos((beta + x)**2*(x - target)**2)))),
    backward=-gradOutput*((beta + x)**2*(-2*target + 2*x) + (x - target)**2*(2*beta + 2*x))*cos(1/(1 + exp(-cos((beta + x)**2*(x - target)**2))))*exp(-cos((beta + x)**2*(x - target)**2))*sin((beta + x)**2*(x - target)**2)/(1 + exp(-cos((beta + x)**2*(x - target)**2)))**2,
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "target", "gradInput"),
        ShapeSame("gradOutput", "self", "target", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
