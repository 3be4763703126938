"""aclnnL1LossBackward: the gradient of the absolute error |x - t| w.r.t. self, in the broadcast shape."""
from codegen.spec import *

x, t, g = symbols("self target gradOutput", real=True)
reduction = Symbol("reduction", integer=True)
N = numel("gradInput")

SPEC = Op(
    name="aclnnL1LossBackward",
    forward_name="L1Loss",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,损失的梯度;reduction为0时为每个元素的梯度,为1、2时通常只有一个元素。"
                        "与self、target满足broadcast关系。",
                        "gradOutput in the formula, the gradient of the loss: one per element for reduction 0, "
                        "usually a single element for 1 and 2. Broadcasts with self and target.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("公式中的self,正向的预测值x。与gradOutput、target满足broadcast关系。",
                        "self in the formula, the forward prediction x. Broadcasts with gradOutput and target.")),
        Tensor("target", t, role=OPERAND,
               doc=Text("公式中的target,正向的目标值。与gradOutput、self满足broadcast关系。",
                        "target in the formula, the forward target. Broadcasts with gradOutput and self.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("正向损失的reduce方式:0不做操作,1取平均(除以broadcast后的元素个数),2求和。",
                      "how the forward loss was reduced: 0 none, 1 mean (divided by the broadcast element "
                      "count), 2 sum.")),
        Output("gradInput", dtype_from=("gradOutput", "self", "target"),
               doc=Text("对self的梯度,shape为gradOutput、self、target broadcast后的shape;数据类型须可由三个输入推导后的"
                        "数据类型转换得到。",
                        "the gradient w.r.t. self, in the broadcast shape of gradOutput, self and target; its dtype "
                        "must be castable from the dtype the three inputs promote to.")),
    ],
    wrt=x,
    forward=Abs(x - t),
    loss_reduction=Reduction("reduction", mean=N),
    # sign(self - target) with sign(0) = 0, as the library's kernel (two compares and selects) and PyTorch give
    backward=Piecewise((g, x > t), (-g, x < t), (0, True)) * Piecewise((1 / N, Eq(reduction, 1)), (1, True)),
    # |x - t| has no derivative at x = t: the kernel's value there is 0 (sign(0))
    at={Eq(x, t): 0},
    dtypes={
        "ascend910": ["FLOAT", "FLOAT16"],
        "ascend310p": ["FLOAT", "FLOAT16"],
        "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend950": ["FLOAT", "FLOAT16", "BFLOAT16"],
    },
    # the library's order (op_api/aclnn_l1_loss_backward.cpp): the reduction first, then only the promoted dtype
    # and the cast to gradInput, then ranks and the broadcast of self, gradOutput and target
    rules=[
        OneOf("reduction", [0, 1, 2]),
        PromotedSupported("gradOutput", "self", "target"),
        PromotedCastable("gradInput", "gradOutput", "self", "target"),
        MaxRank("self", "target", "gradOutput", "gradInput", n=8),
        Broadcastable("self", "gradOutput", "target"),
        ShapeIsBroadcast("gradInput", "self", "gradOutput", "target"),
    ],
    torch=TorchGrad(lambda torch, x, t, r: torch.nn.functional.l1_loss(
        x, t, reduction={0: "none", 1: "mean", 2: "sum"}[r]), "self", "target", "reduction"),
    # the aclnn page's call example (mean, with a gradOutput of four elements); the page prints no result: this
    # one is the kernel's formula, sign(x - 1)*g/4
    example=Example(shape=(2, 2),
                    values={"gradOutput": [0, 1, 2, 3], "self": [0, 1, 2, 3], "target": 1, "reduction": 1},
                    expected=[0, 0, 0.5, 0.75]),
    notes=[
        Text("文档未给出公式。按算子库的kernel与PyTorch:梯度为sign(self - target)·gradOutput,self等于target时为0;"
             "reduction为1(mean)时除以broadcast后的元素个数(kernel按广播后的target计数)。",
             "The docs give no formula. As the library's kernel and PyTorch compute it: the gradient is "
             "sign(self - target)·gradOutput, 0 where self equals target; for reduction 1 (mean) it is divided by "
             "the broadcast element count (the kernel counts the broadcast target)."),
        Text("gradInput为broadcast后的shape(不像PyTorch的autograd那样对self被broadcast的维度求和)。",
             "gradInput has the broadcast shape (it is not summed over the axes along which self was broadcast, "
             "as PyTorch's autograd would)."),
    ],
    description=Text(
        "L1损失函数(平均绝对误差)的反向传播:计算损失|self - target|对self的梯度。",
        "Backward of the L1 loss (mean absolute error): the gradient of |self - target|, reduced, w.r.t. self."),
)
