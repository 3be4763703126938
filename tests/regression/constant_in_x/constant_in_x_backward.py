"""aclnnConstantInXBackward: one fuzzed formula

Regression (session 22, found by codegen.fuzz, seed 3232, batch 3 on C): F = cosh(sigmoid(exp(sigmoid(target*sign(x -
1))))) is constant in x but at x = 1, so its backward is 0.  This session's rule that a tensor the formula does not
read makes no special value (unread_operand) took gradOutput for such a tensor: at gradOutput = nan the kernel's 0
(the formula's) was judged against the reference's nan*0 = nan and failed.  The gradient always counts as read
(codegen.accuracy.runner._read): the element is a documented special value again, as before that rule.
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)
target = Symbol("target", real=True)

SPEC = Op(
    name="aclnnConstantInXBackward",
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
    forward=cosh(1/(1 + exp(-exp(1/(1 + exp(-target*sign(-1 + x))))))),
    backward=0,
    at={Eq(x, 1): 0},
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "target", "gradInput"),
        ShapeSame("gradOutput", "self", "target", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
