"""aclnnNumberOfRowSumsBackward: one fuzzed formula

Regression (session 23, found by codegen.fuzz's row productions, fuzz11's first row batch, every backend and
dtype): F = sin(x/2) - DimSum(sin(x/2))/DimSum(1), a mean-center of sin(x/2).  The oracle's bound broke on it
("no error bound: TypeError: Cannot convert expression to float"), so every record failed: 1/DimSum(1), the
row's length, is a number to SymPy (DimSum(1) has no free symbol), and codegen.accuracy.bound evaluated it as a
constant before reading it as a Pow of a DimSum.  examples/more_specs' MeanCenterBackward (g - DimSum(g)/DimSum(1))
had no bound either.  Fixed in codegen.accuracy.bound: a number holding a DimSum or GridSum is no constant.
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)

SPEC = Op(
    name="aclnnNumberOfRowSumsBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=-DimSum(sin(x/2))/DimSum(1) + sin(x/2),
    backward=gradOutput*cos(x/2)/2 - DimSum(gradOutput)*cos(x/2)/(2*DimSum(1)),
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
