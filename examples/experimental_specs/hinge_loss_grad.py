"""aclnnHingeLossGrad (CANN experimental/loss/hinge_loss_grad): the gradient of max(0, 1 - target * predict)."""
from codegen.spec import *

x, t, g = symbols("predict target gradOutput", real=True)

SPEC = Op(
    name="aclnnHingeLossGrad",
    forward_name="hinge_loss",
    params=[
        Tensor("predict", x, role=FORWARD_INPUT, doc=Text("预测值x。", "x, the prediction.")),
        Tensor("target", t, role=OPERAND, doc=Text("目标值y。", "y, the target.")),
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Output("gradInput", doc=Text("对predict的梯度。", "the gradient w.r.t. predict.")),
    ],
    wrt=x,
    forward=Max(0, 1 - t * x),
    backward=Piecewise((-t * g, t * x < 1), (0, True)),
    at={Eq(t * x, 1): 0},   # at the kink target*predict = 1 the gradient is 0, as max(0, .)'s in PyTorch
    dtypes={"ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"]},
    rules=[
        DtypeSupported("predict", "target", "gradOutput", "gradInput"),
        DtypeSame("predict", "target", "gradOutput", "gradInput"),
        MaxRank("predict", "target", "gradOutput", "gradInput", n=8),
        ShapeSame("predict", "target", "gradOutput", "gradInput"),
    ],
    # PyTorch has no hinge loss of this form: autograd of relu(1 - target*predict)
    torch=TorchGrad(lambda torch, x, t: torch.relu(1 - t * x), "predict", "target"),
    description=Text("HingeLoss的反向传播。", "Backward of the hinge loss."),
)
