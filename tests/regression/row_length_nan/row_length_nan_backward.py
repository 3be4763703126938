"""aclnnRowLengthNanBackward: one fuzzed formula

Regression (session 23, found by codegen.fuzz's row productions, seed 29, on NumPy, every dtype):
F = alpha*x - DimSum(alpha*x)/DimSum(1) (a mean-center of alpha*x), backward alpha*g - alpha*DimSum(g)/DimSum(1),
which reads no x.  In a row holding x = nan the kernel gave the finite alpha*(g - mean(g)) everywhere (right: no
element's gradient depends on x), and the oracle's reference gave nan for the whole row: its chain rule
out_i = g_i dF/dz + sum_m h_m'(z_i) sum_j g_j dF/dS_m counted the row's length S_2 = DimSum(1) too, whose
dF/dS_2 = S_1/S_2**2 is nan there and h_2' = 0: 0 times nan.  Fixed in codegen.accuracy.reference: a row sum whose
summand does not read z adds nothing to the gradient.
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnRowLengthNanBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=alpha*x - DimSum(alpha*x)/DimSum(1),
    backward=alpha*gradOutput - alpha*DimSum(gradOutput)/DimSum(1),
    reduce_dim=-1,
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
