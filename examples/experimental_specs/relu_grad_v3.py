"""aclnnReluGradV3 (CANN experimental/activation/relu_grad_v3): z = y if x > 0 else 0 (x the forward input, y the gradient)."""
from codegen.spec import *

x, y = symbols("x y", real=True)

SPEC = Op(
    name="aclnnReluGradV3",
    forward_name="relu",
    params=[
        Tensor("x", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Tensor("y", y, role=GRAD, doc=Text("上一层传回的梯度,与x同形状或只有一个元素。",
                                          "the incoming gradient, of x's shape or one element.")),
        Output("z", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=Piecewise((x, x > 0), (0, True)),
    backward=Piecewise((y, x > 0), (0, True)),
    at={Eq(x, 0): 0},
    dtypes={"ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16", "INT32", "UINT8", "INT8"]},
    compute={"INT32": "DOUBLE", "INT8": "DOUBLE", "UINT8": "DOUBLE"},
    rules=[
        DtypeSupported("x", "y", "z"),
        DtypeSame("x", "y", "z"),
        MaxRank("x", "y", "z", n=8),
        ShapeSameOrOneElement("y", "x"),   # CANN: y has x's shape or one element
        ShapeSame("x", "z"),
    ],
    torch=Torch("threshold_backward", "y", "x", Const(0)),   # y where x > 0
    description=Text("ReLU的反向传播。", "Backward of ReLU."),
)
