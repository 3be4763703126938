"""aclnnTanhOfPiecewiseBackward: one fuzzed formula

Regression (session 17, found by codegen.fuzz, seed 1717, batch 8, every dtype): tanh's expansion
(codegen.expansions) compares its operand with 0; the operand holds a Piecewise whose condition CSE made a
temporary, and SymPy simplified the folded ITE to one branch's comparison, so the Ascend C kernel took tanh's
branch by the sign of the wrong piece (sigmoid_of_series is the sigmoid's form of the same defect).  An
expansion's operand holding a Piecewise is now a bound symbol (codegen/backends/ascendc/lowering.py, `_operand`).
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnTanhOfPiecewiseBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=log(2 + tanh(-log(1 + 1/(1 + exp(-x/(1 + alpha))))/2 + Piecewise((-1 + 2*x, alpha - x < 0), (-2*x/3, True)))),
    backward=gradOutput*(1 - tanh(-log(1 + 1/(1 + exp(-x/(1 + alpha))))/2 + Piecewise((-1 + 2*x, alpha - x < 0), (-2*x/3, True)))**2)*(-exp(-x/(1 + alpha))/((1 + 1/(1 + exp(-x/(1 + alpha))))*(1 + exp(-x/(1 + alpha)))**2*(2 + 2*alpha)) + Piecewise((2, alpha - x < 0), (Rational(-2, 3), True)))/(2 + tanh(-log(1 + 1/(1 + exp(-x/(1 + alpha))))/2 + Piecewise((-1 + 2*x, alpha - x < 0), (-2*x/3, True)))),
    at={Eq(x, alpha): gradOutput*(1 - tanh(log(1 + 1/(1 + exp(-alpha/(1 + alpha))))/2 + 2*alpha/3)**2)*(Rational(-2, 3) - exp(-alpha/(1 + alpha))/((1 + 1/(1 + exp(-alpha/(1 + alpha))))*(1 + exp(-alpha/(1 + alpha)))**2*(2 + 2*alpha)))/(2 - tanh(log(1 + 1/(1 + exp(-alpha/(1 + alpha))))/2 + 2*alpha/3))},
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
