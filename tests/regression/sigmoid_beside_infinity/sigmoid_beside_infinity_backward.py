"""aclnnSigmoidBesideInfinityBackward: one fuzzed formula

Regression (session 18, found by codegen.fuzz, seed 2323, batch 2): the C kernel gave inf at self = inf, every
dtype, where the derivative's limit is finite (1.69 at the fuzzer's alpha and beta).  The sum computed in double
(codegen.cancellation.Extended) multiplies (x - alpha) by σ(-x), and opgen_sigmoid_ext clamps its argument at
-700 (σ(-inf) = e^-700, inf·e^-700 = inf).  A σ that a product multiplies by a factor of its own variable is
printed as opgen_sigmoid_ext0 now (exactly 0 there: the nan of inf·0, as NumPy gives, a documented difference).
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnSigmoidBesideInfinityBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=(x - alpha)*exp(1/(1 + exp(-beta - 1/(1 + exp(-x)))))/(1 + exp(-x)),
    backward=gradOutput*(exp(1/(1 + exp(-beta - 1/(1 + exp(-x)))))/(1 + exp(-x)) + (x - alpha)*exp(1/(1 + exp(-beta - 1/(1 + exp(-x)))))*exp(-x)/(1 + exp(-x))**2 + (x - alpha)*exp(1/(1 + exp(-beta - 1/(1 + exp(-x)))))*exp(-x)*exp(-beta - 1/(1 + exp(-x)))/((1 + exp(-x))**3*(1 + exp(-beta - 1/(1 + exp(-x))))**2)),
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
