"""aclnnUnreadOperandBackward: two fuzzed formulas, one per setting of f0

Regression (session 22, found by codegen.fuzz with the grammar's new second tensor `target`, seed 77): in a batch
spec one formula reads target and another, F = tanh(tanh(alpha**2*x**2)), does not.  The oracle took a nan or inf
in any tensor for a special-value input, judged by class alone, so at target = -inf the second formula's elements
were special values: the 0 that FLOAT's 1 - tanh(u)**2 gives for the exact -1.9e-15 (x = -4.26) failed, though
within the formula's rounding-error bound (the same element with target finite passes).  A tensor the call's
variant does not read makes no special value now (codegen.accuracy.runner._read); KlDivBackward's self and
BinaryCrossEntropyWithLogitsTargetBackward's target are such tensors in the catalog.
"""
from sympy import erf, erfc, sign, tanh
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)
target = Symbol("target", real=True)
f0 = Symbol("f0")

SPEC = Op(
    name="aclnnUnreadOperandBackward",
    forward_name="F",
    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Tensor("target", target, role=OPERAND, doc=Text("正向的另一个输入。", "another forward operand, constant for the derivative.")),
        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
        Attr("f0", f0, type="bool", doc=Text("选择公式。", "selects the formula.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=Piecewise(
        (target*x, ~f0),
        (tanh(tanh(alpha**2*x**2)), True),
    ),
    backward=[
        Formula(gradOutput*target, when={'f0': False}),
        Formula(2*gradOutput*x*alpha**2*(1 - tanh(alpha**2*x**2)**2)*(1 - tanh(tanh(alpha**2*x**2))**2), when={'f0': True}),
    ],
    dtypes={"ascend910b": ['FLOAT', 'FLOAT16', 'BFLOAT16']},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "target", "gradInput"),
        ShapeSame("gradOutput", "self", "target", "gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
