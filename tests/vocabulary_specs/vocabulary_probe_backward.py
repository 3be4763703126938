"""aclnnVocabularyProbeBackward: one test operator whose backward uses the whole expression vocabulary.

`which` picks, per element, one term of a Piecewise: term k of the forward is F_k(x) and term k of the backward is
its derivative, written as a user would (tests/test_vocabulary_kernels.py evaluates each derivative with mpmath
and holds every backend to it).  A Piecewise selects bitwise, so a term that is inf or nan where another is
tested cannot leak into it; one operator means one build per backend for all of them.  `lossOnly` selects a
second form, of a mean-reduced loss, that reads numel("self") but not self itself.
"""
from codegen.spec import *

x, g, k, t = symbols("x gradOutput which target", real=True)
alpha = Symbol("alpha", real=True)
loss_only = Symbol("lossOnly")
reduction = Symbol("reduction", integer=True)
mean = Piecewise((1 / numel("self"), Eq(reduction, 1)), (1, True))
softplus = log(1 + exp(x))

# (forward F_k, backward f_k = F_k')
TERMS = [
    # the lost parentheses and live buffer: an expanded square in a denominator, a value read twice
    (exp(x) / (1 + x**2), exp(x) * (x - 1)**2 / (1 + x**2)**2),
    (x * erf(x) + exp(-x**2) / sqrt(pi), erf(x)),
    (x * erfc(x) - exp(-x**2) / sqrt(pi), erfc(x)),
    # GELU: sqrt(2), pi, a rational coefficient
    (x * (1 + erf(x / sqrt(2))) / 2, (1 + erf(x / sqrt(2))) / 2 + x * exp(-x**2 / 2) / sqrt(2 * pi)),
    # Mish, written without tanh (the algebraic form: a squared denominator, exp(3x))
    (x * tanh(softplus),
     exp(x) * (4 * (x + 1) + 4 * exp(2 * x) + exp(3 * x) + exp(x) * (4 * x + 6)) / (2 * exp(x) + exp(2 * x) + 2)**2),
    # Mish with tanh, log1p (what log(1 + exp(x)) becomes) and the stable sigmoid
    (x * tanh(softplus), tanh(softplus) + x * (1 - tanh(softplus)**2) * sigmoid(x)),
    (Abs(x)**3 / 3, x**2 * sign(x)),
    # clamp(x, -alpha, alpha): nested Min/Max with a scalar parameter
    (Piecewise((-alpha * x, x < -alpha), (x**2 / 2 + alpha**2 / 2, x <= alpha), (alpha * x, True)),
     Max(Min(x, alpha), -alpha)),
    # constants: sqrt(2), pi, E, log(2), 1/3, 1/sqrt(2 pi)
    (sqrt(2) * pi * x + E * x**2 + log(2) * x**3 / 3 + x / 3 + x / sqrt(2 * pi),
     sqrt(2) * pi + 2 * E * x + log(2) * x**2 + Rational(1, 3) + 1 / sqrt(2 * pi)),
    ((1 + x) * log1p(x) - x, log1p(x)),
    (expm1(x) - x, expm1(x)),
    (2 * x**Rational(5, 2) / 5, x**Rational(3, 2)),
    (2 * sqrt(x), 1 / sqrt(x)),
    (-1 / (3 * x**3), x**-4),
    # relations inside And/Not, a unary minus of a power
    (Piecewise((x**2 / 2, And(x > -1, Not(x > 1))), (Abs(x) - Rational(1, 2), True)),
     Piecewise((x, And(x > -1, Not(x > 1))), (sign(x), True))),
    (log(exp(x) + exp(-x)), tanh(x)),
    (-x**3 / 3 + x * log(2), -x**2 + log(2)),
    (x / (alpha + 2) - Max(x, 0)**2 / 2, 1 / (alpha + 2) - Max(x, 0)),
    # functions of scalars only (computed once per call, in each backend's prelude)
    (erf(alpha) * x**2 / 2 + tanh(alpha) * sign(alpha - 1) * x + sigmoid(alpha) * x**3 / 3 + expm1(alpha) * x,
     erf(alpha) * x + tanh(alpha) * sign(alpha - 1) + sigmoid(alpha) * x**2 + expm1(alpha)),
    # a condition on a scalar beside one on the tensor
    (Piecewise((x**2 / 2, And(x > 0, alpha > 1)), (x, True)), Piecewise((x, And(x > 0, alpha > 1)), (1, True))),
    # cosh and sinh, each the other's derivative: finite where e^|x| is not (88.72 < |x| <= 89.41)
    (sinh(x), cosh(x)),
    (cosh(x), sinh(x)),
    # sin and cos, each the other's derivative: near multiples of pi/2, at the Ascend C reduction's edge (65536)
    (-cos(x), sin(x)),
    (sin(x), cos(x)),
]


def _select(terms):
    return Piecewise(*[(term, k < i + Rational(1, 2)) for i, term in enumerate(terms[:-1])], (terms[-1], True))


SPEC = Op(
    name="aclnnVocabularyProbeBackward",
    forward_name="VocabularyProbe",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "the forward input x.")),
        Tensor("which", k, role=OPERAND, doc=Text("每个元素所用的项。", "the term each element uses.")),
        Tensor("target", t, role=OPERAND, doc=Text("损失的目标。", "the loss target.")),
        Scalar("alpha", alpha, doc=Text("一个标量参数。", "a scalar parameter.")),
        Attr("lossOnly", loss_only, type="bool", doc=Text("只用损失项。", "the loss form only.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("损失的reduce方式。", "how the loss was reduced.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=Piecewise((x * t, loss_only), (_select([f for f, _ in TERMS]), True)),
    loss_reduction="reduction",
    backward=[
        Formula(g * _select([d for _, d in TERMS]) * mean, when={"lossOnly": False}),
        Formula(g * t * mean, when={"lossOnly": True}),
    ],
    dtypes={"ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"]},
    rules=[
        DtypeSupported("gradOutput", "self", "which", "target", "gradInput"),
        DtypeSame("gradOutput", "self", "which", "target", "gradInput"),
        MaxRank("gradOutput", "self", "which", "target", "gradInput", n=8),
        ShapeSame("self", "which", "target", "gradInput"),
        BroadcastTo("gradOutput", "self"),
        OneOf("reduction", [0, 1, 2]),
        Requires("alpha", alpha >= 0),
    ],
    description=Text("词汇表测试算子。", "A test operator for the expression vocabulary."),
)
