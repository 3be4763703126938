"""aclnnSmoothL1LossBackward: the gradient of the smooth L1 (Huber-like) loss with threshold beta w.r.t. self."""
from codegen.spec import *

x, t, g = symbols("self target gradOut", real=True)
beta = Symbol("beta", real=True)
reduction = Symbol("reduction", integer=True)
N = numel("self")
d = x - t

SPEC = Op(
    name="aclnnSmoothL1LossBackward",
    forward_name="SmoothL1Loss",
    params=[
        Tensor("gradOut", g, role=GRAD,
               doc=Text("公式中的gradOut,损失的梯度;reduction为0时为每个元素的梯度,为1、2时通常只有一个元素。"
                        "与self、target满足broadcast关系。",
                        "gradOut in the formula, the gradient of the loss: one per element for reduction 0, usually "
                        "a single element for 1 and 2. Broadcasts with self and target.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("公式中的self,正向的预测值x。与gradOut、target满足broadcast关系。",
                        "self in the formula, the forward prediction x. Broadcasts with gradOut and target.")),
        Tensor("target", t, role=OPERAND,
               doc=Text("公式中的target,正向的目标值。与gradOut、self满足broadcast关系。",
                        "target in the formula, the forward target. Broadcasts with gradOut and self.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("正向损失的reduce方式:0不做操作,1取平均(除以self的元素个数),2求和。",
                      "how the forward loss was reduced: 0 none, 1 mean (divided by self's element count), "
                      "2 sum.")),
        Attr("beta", beta, type="float",
             doc=Text("公式中的beta,二次区与线性区的分界,须大于等于0。",
                      "beta in the formula, where the quadratic part meets the linear one; at least 0.")),
        Output("gradInput", dtype_from=("gradOut", "self", "target"),
               doc=Text("对self的梯度,shape为gradOut、self、target broadcast后的shape;数据类型须可由三个输入推导后的"
                        "数据类型转换得到。",
                        "the gradient w.r.t. self, in the broadcast shape of gradOut, self and target; its dtype "
                        "must be castable from the dtype the three inputs promote to.")),
    ],
    wrt=x,
    # 0.5 d^2 / beta inside (-beta, beta), |d| - beta/2 outside (beta = 0: |d| everywhere)
    forward=Piecewise((d ** 2 / (2 * beta), Abs(d) < beta), (Abs(d) - beta / 2, True)),
    loss_reduction=Reduction("reduction", mean=N),
    # ±gradOut where |d| >= beta (±1 at |d| = beta: the gradient is continuous), d/beta·gradOut inside; at d = 0
    # with beta = 0 the gradient is 0 (sign(0) = 0, as the docs' formula says)
    backward=Piecewise((g, (d >= beta) & (d > 0)), (-g, (d <= -beta) & (d < 0)), (d / beta * g, Abs(d) < beta),
                       (0, True)) * Piecewise((1 / N, Eq(reduction, 1)), (1, True)),
    # with beta = 0 the loss is |x - t|, which has no derivative at x = t: the kernel's value there is 0
    at={Eq(x, t): 0},
    dtypes={
        "ascend910": ["FLOAT", "FLOAT16"],
        "ascend310p": ["FLOAT", "FLOAT16"],
        "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend950": ["FLOAT", "FLOAT16", "BFLOAT16"],
    },
    # the library's order (op_api/aclnn_smooth_l1_loss_backward.cpp): each dtype in the list, the ranks of the
    # three inputs, the reduction, beta (a nan fails too), then the promotion, the cast to gradInput and the
    # broadcast
    rules=[
        DtypeSupported("gradOut", "self", "target", "gradInput"),
        MaxRank("gradOut", "self", "target", n=8),
        OneOf("reduction", [0, 1, 2]),
        Requires("beta", beta >= 0),
        PromotedSupported("gradOut", "self", "target"),
        PromotedCastable("gradInput", "gradOut", "self", "target"),
        Broadcastable("gradOut", "self", "target"),
        ShapeIsBroadcast("gradInput", "gradOut", "self", "target"),
    ],
    torch=Torch("smooth_l1_loss_backward", "gradOut", "self", "target", "reduction", "beta"),
    # the aclnn page's call example; the page prints no result: this one is aten::smooth_l1_loss_backward's
    # (self - target = -1 lies on |d| = beta and gives -1 both ways)
    example=Example(shape=(4, 2),
                    values={"gradOut": 1, "self": [0, 1, 2, 3, 4, 5, 6, 7], "target": 1, "reduction": 0,
                            "beta": 1.0},
                    expected=[-1, 0, 1, 1, 1, 1, 1, 1]),
    notes=[
        Text("文档的公式只写了beta=1、且未含gradOut与reduction。这里按算子库的kernel与PyTorch:|self - target|小于beta时梯度为"
             "(self - target)/beta·gradOut,否则为sign(self - target)·gradOut(|self - target|等于beta时为±gradOut,"
             "梯度连续);reduction为1(mean)时除以self的元素个数。",
             "The docs' formula is written for beta = 1 and leaves out gradOut and the reduction. As the library's "
             "kernel and PyTorch compute it: where |self - target| < beta the gradient is "
             "(self - target)/beta·gradOut, elsewhere sign(self - target)·gradOut (±gradOut at |self - target| = "
             "beta: the gradient is continuous); for reduction 1 (mean) it is divided by self's element count."),
        Text("beta=0时self等于target处的梯度为0(sign(0)=0,如文档公式)。算子库在此处不一致:gradOut为张量时kernel给`nan`,"
             "gradOut只有一个元素时给0;aten::smooth_l1_loss_backward给-gradOut。beta按FLOAT使用(C接口为float)。",
             "With beta = 0 the gradient where self equals target is 0 (sign(0) = 0, as the docs' formula says). "
             "The library is not consistent there: its kernel gives `nan` for a gradOut tensor and 0 for a "
             "one-element gradOut; aten::smooth_l1_loss_backward gives -gradOut. beta is used in FLOAT (a C float "
             "in the interface)."),
    ],
    description=Text(
        "SmoothL1损失函数的反向传播:计算以beta为分界的平滑L1损失对self的梯度。",
        "Backward of the smooth L1 loss: the gradient w.r.t. self of the loss that is quadratic within beta of "
        "the target and linear beyond."),
)
