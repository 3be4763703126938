"""aclnnMseLossBackward: the gradient of the mean squared error (x - t)^2 w.r.t. self, in the broadcast shape."""
from codegen.spec import *

x, t, g = symbols("self target gradOutput", real=True)
reduction = Symbol("reduction", integer=True)
N = numel("self")

SPEC = Op(
    name="aclnnMseLossBackward",
    forward_name="MseLoss",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,损失的梯度;reduction为0时为每个元素的梯度,为1、2时通常只有一个元素。"
                        "与self、target满足broadcast关系,数据类型与self一致。",
                        "gradOutput in the formula, the gradient of the loss: one per element for reduction 0, "
                        "usually a single element for 1 and 2. Broadcasts with self and target; self's dtype.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("公式中的self,正向的预测值x。与gradOutput、target满足broadcast关系。",
                        "self in the formula, the forward prediction x. Broadcasts with gradOutput and target.")),
        Tensor("target", t, role=OPERAND,
               doc=Text("公式中的target,正向的目标值。与gradOutput、self满足broadcast关系,数据类型与self一致。",
                        "target in the formula, the forward target. Broadcasts with gradOutput and self; self's "
                        "dtype.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("正向损失的reduce方式:0不做操作,1取平均(除以self的元素个数),2求和。",
                      "how the forward loss was reduced: 0 none, 1 mean (divided by self's element count), "
                      "2 sum.")),
        Output("out", dtype_from="self",
               doc=Text("对self的梯度,shape为gradOutput、self、target broadcast后的shape;数据类型为支持列表中的任一类型,"
                        "结果转换为该类型。",
                        "the gradient w.r.t. self, in the broadcast shape of gradOutput, self and target; any dtype "
                        "of the support list (the result is cast to it).")),
    ],
    wrt=x,
    forward=(x - t) ** 2,
    loss_reduction=Reduction("reduction", mean=N),
    backward=2 * (x - t) * g * Piecewise((1 / N, Eq(reduction, 1)), (1, True)),
    dtypes={
        "ascend310p": ["FLOAT", "FLOAT16"],
        "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend950": ["FLOAT", "FLOAT16", "BFLOAT16"],
    },
    # the library's order (op_host/op_api/aclnn_mse_loss_backward.cpp): dtypes (the inputs' equal to self's, then
    # self's and out's in the list), the reduction, then ranks and the three-way broadcast
    rules=[
        DtypeSame("self", "gradOutput", "target"),
        DtypeSupported("self", "out"),
        OneOf("reduction", [0, 1, 2]),
        MaxRank("gradOutput", "self", "target", n=8),
        Broadcastable("gradOutput", "self", "target"),
        ShapeIsBroadcast("out", "gradOutput", "self", "target"),
    ],
    torch=Torch("mse_loss_backward", "gradOutput", "self", "target", "reduction"),
    # the aclnn page's call example (mean, with a gradOutput of four elements); the page prints no result: this
    # one is aten::mse_loss_backward's on the same data
    example=Example(shape=(2, 2),
                    values={"gradOutput": [0, 1, 2, 3], "self": [0, 1, 2, 3], "target": 1, "reduction": 1},
                    expected=[0, 0, 1, 3]),
    notes=[
        Text("reduction为1(mean)时除以self的元素个数,与算子库的kernel和aten::mse_loss_backward一致:当self的shape小于"
             "broadcast后的shape时,这不是对所有损失元素取平均的梯度(那要除以broadcast后的元素个数;PyTorch的F.mse_loss先"
             "broadcast再调用该kernel)。",
             "For reduction 1 (mean) the gradient is divided by self's element count, as the library's kernel and "
             "aten::mse_loss_backward do: when self is smaller than the broadcast shape this is not the gradient "
             "of the mean over all loss elements (which divides by the broadcast element count; PyTorch's "
             "F.mse_loss broadcasts before calling that kernel)."),
        Text("文档未列出Atlas 训练系列产品,但算子库的参数检查接受其FLOAT、FLOAT16:这里按文档不支持。",
             "The docs do not list the Atlas training series, though the library's checks accept FLOAT and FLOAT16 "
             "there: here it is unsupported, as documented."),
    ],
    description=Text(
        "均方误差损失函数的反向传播:计算损失(self - target)^2对self的梯度。",
        "Backward of the mean squared error loss: the gradient of (self - target)^2, reduced, w.r.t. self."),
)
