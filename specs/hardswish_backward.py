"""aclnnHardswishBackward: the gradient of Hardswish(x) = x * relu6(x + 3) / 6, closed middle interval."""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)

SPEC = Op(
    name="aclnnHardswishBackward",
    forward_name="Hardswish",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,上一层传回的梯度。", "gradOutput in the formula, the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("公式中的x,Hardswish的正向输入。", "x in the formula, the forward input of Hardswish.")),
        Output("out", doc=Text("公式中的out,对x的梯度。", "out in the formula, the gradient w.r.t. x.")),
    ],
    wrt=x,
    # The same continuous function as V2's, its middle interval closed: at a kink the gradient is the derivative
    # of the branch the forward selects there, so the forward states the convention the backward follows.
    forward=Piecewise((0, x < -3), (x, x > 3), (x * (x + 3) / 6, True)),
    # The docs' closed middle interval, as the library's kernel computes it: x = -3 gives -gradOutput/2 and x = 3
    # gives 1.5*gradOutput (the one-sided derivatives from inside); a nan x passes gradOutput.
    backward=Piecewise((0, x < -3), (g * (x / 3 + Rational(1, 2)), x <= 3), (g, True)),
    # the kinks take the middle branch, as the library's kernel (x = -3: -gradOutput/2, x = 3: 3*gradOutput/2)
    at={Eq(x, -3): -g / 2, Eq(x, 3): 3 * g / 2},
    dtypes={
        "ascend910": ["FLOAT16", "FLOAT"],
        "ascend910b": ["BFLOAT16", "FLOAT16", "FLOAT"],
        "ascend910_93": ["BFLOAT16", "FLOAT16", "FLOAT"],
        "ascend950": ["BFLOAT16", "FLOAT16", "FLOAT"],
    },
    rules=[
        DtypeSupported("self", "gradOutput"),
        DtypeSame("self", "gradOutput", "out"),
        MaxRank("gradOutput", "self", n=8),
        ShapeSame("self", "gradOutput", "out"),
    ],
    example=Example(shape=(4, 2), values={"self": [0, 1, 2, 3, 4, 5, 6, 7], "gradOutput": [0, 1, 2, 3, 4, 5, 6, 7]}),
    notes=[
        Text("x=±3处按文档与算子kernel取中间区间的值:x=-3时为-gradOutput/2,x=3时为1.5*gradOutput(PyTorch的hardswish_backward"
             "在这两点分别给0与gradOutput,与aclnnHardswishBackwardV2一致);x为`nan`时梯度透传。",
             "At x = ±3 the middle branch applies, as the docs and the library's kernel say: x = -3 gives "
             "-gradOutput/2 and x = 3 gives 1.5*gradOutput (PyTorch's hardswish_backward gives 0 and gradOutput "
             "there, as aclnnHardswishBackwardV2 does); a `nan` x passes gradOutput."),
        Text("CANN的experimental/activation/hard_swish_grad是另一个kernel,在x=±3处取两侧区间的值(0与gradOutput),"
             "其示例程序按此校验:在这两点它与本页不同,其余输入一致。",
             "CANN's experimental/activation/hard_swish_grad is another kernel, which takes the outer branches at "
             "x = ±3 (0 and gradOutput) and whose example program checks that: it differs from this page at those "
             "two points only."),
    ],
    torch=Torch("hardswish_backward", "gradOutput", "self"),
    description=Text("激活函数Hardswish的反向传播。", "Backward of the Hardswish activation."),
)
