"""aclnnRelu6Grad (CANN activation/relu6_grad, kernel only): the gradient of ReLU6(x) = min(max(x, 0), 6).

CANN's formula: backprops = gradients where 0 < features < 6, else 0 (the ends included: 0 there).
features has gradients' shape, or is one element [1].
"""
from codegen.spec import *

x, g = symbols("features gradients", real=True)

SPEC = Op(
    name="aclnnRelu6Grad",
    forward_name="relu6",
    params=[
        Tensor("gradients", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("features", x, role=FORWARD_INPUT,
               doc=Text("Relu6的正向输入,shape与gradients一致或为[1]。",
                        "the forward input of Relu6; gradients' shape, or one element [1].")),
        Output("backprops", doc=Text("对features的梯度,shape与gradients一致。",
                                     "the gradient w.r.t. features, of gradients' shape.")),
    ],
    wrt=x,
    forward=Piecewise((0, x <= 0), (x, x < 6), (6, True)),
    backward=Piecewise((g, (x > 0) & (x < 6)), (0, True)),
    at={Eq(x, 0): 0, Eq(x, 6): 0},   # CANN's kernel: 0 at both ends (PyTorch's hardtanh_backward too)
    dtypes={
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradients", "features", "backprops"),
        DtypeSame("gradients", "features", "backprops"),
        MaxRank("gradients", "features", "backprops", n=8),
        ShapeSameOrOneElement("features", "gradients"),
        ShapeSame("gradients", "backprops"),
    ],
    torch=Torch("hardtanh_backward", "gradients", "features", Const(0.0), Const(6.0)),
    description=Text("Relu6的反向传播。", "Backward of Relu6."),
)
