"""aclnnLogAddExpBackward: the gradients of y = log(exp(a) + exp(b)) w.r.t. both inputs, which broadcast together."""
from codegen.spec import *

a, b, g = symbols("self other gradOutput", real=True)

SPEC = Op(
    name="aclnnLogAddExpBackward",
    forward_name="logaddexp",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度,形状为两输入广播后的形状。",
                                                    "the incoming gradient, of the inputs' broadcast shape.")),
        Tensor("self", a, role=FORWARD_INPUT, doc=Text("正向输入a。", "a, the first forward input.")),
        Tensor("other", b, role=OPERAND, doc=Text("正向输入b。", "b, the second forward input.")),
        Output("gradSelf", sum_to="self", doc=Text("对a的梯度。", "the gradient w.r.t. a.")),
        Output("gradOther", wrt=b, sum_to="other", doc=Text("对b的梯度。", "the gradient w.r.t. b.")),
    ],
    wrt=a,
    forward=log(exp(a) + exp(b)),
    backward=[Formula(g * sigmoid(a - b)), Formula(g * sigmoid(b - a), output="gradOther")],
    dtypes={
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "self", "other", "gradSelf", "gradOther"),
        DtypeSame("gradOutput", "self", "other", "gradSelf", "gradOther"),
        MaxRank("gradOutput", "self", "other", "gradSelf", "gradOther", n=8),
        BroadcastTo("self", "other", "gradOutput"),
        ShapeSame("self", "gradSelf"),
        ShapeSame("other", "gradOther"),
    ],
    torch=TorchGrad(lambda torch, a, b: torch.logaddexp(a, b), "self", "other"),
    description=Text("LogAddExp的反向传播。", "Backward of LogAddExp."),
)
