"""aclnnSequenceTanhBackward: not a CANN operator -- a spec that uses the `const aclIntArray *` parameter kind as
CtcLossBackward's inputLengths does: one length per batch element of a time-major [T, N, ...] input, the frames at
or past a sequence's length taking no part in the forward (y = 0 there), so their gradient is 0
(tests/test_int_array.py)."""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)

SPEC = Op(
    name="aclnnSequenceTanhBackward",
    forward_name="SequenceTanh",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度,shape为[T, N, ...]。",
                                                    "the incoming gradient, of shape [T, N, ...].")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向的输入x,shape为[T, N, ...]。",
                                                      "x, the forward input, of shape [T, N, ...].")),
        IntArray("inputLengths", doc=Text("每个批次元素的序列长度,长度为N,取值在[0, T]之内。",
                                          "each batch element's sequence length: N values in [0, T].")),
        Output("gradInput", doc=Text("对x的梯度,序列长度之后的位置为0。",
                                     "the gradient w.r.t. x, 0 at and past each sequence's length.")),
    ],
    wrt=x,
    sequence=SequenceMask("inputLengths", time=0, batch=1),
    forward=Piecewise((tanh(x), IN_SEQUENCE), (0, True)),    # y[t, b] = 0 from t = inputLengths[b] on
    # 1 - tanh(x)^2 cancels in FLOAT for |x| > 9: the kernels compute the equal 4*sigmoid(2x)*sigmoid(-2x)
    backward=Formula(Piecewise((g * (1 - tanh(x)**2), IN_SEQUENCE), (0, True)),
                     rewrites=(Rewrite(lambda u: 1 - tanh(u)**2, lambda u: 4 * sigmoid(2 * u) * sigmoid(-2 * u)),)),
    dtypes={"ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"]},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        MinRank("self", n=2),
        ShapeSame("self", "gradOutput", "gradInput"),
        ArrayLength("inputLengths", "self", dim=1),
        ArrayInRange("inputLengths", 0, dim_size("self", 0)),
    ],
    example=Example(shape=(3, 2), values={"gradOutput": 1, "self": [0, 0.5, 1, -1, 2, -2], "inputLengths": [3, 1]}),
    description=Text("一个测试用的算子:按序列长度屏蔽的tanh的反向。",
                     "An operator for the tests: the backward of tanh masked by sequence lengths."),
)
