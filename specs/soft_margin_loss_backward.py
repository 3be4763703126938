"""aclnnSoftMarginLossBackward: the gradient of the soft margin loss log(1 + exp(-x*y)) w.r.t. self."""
from codegen.spec import *

x, y, g = symbols("self target gradOutput", real=True)
reduction = Symbol("reduction", integer=True)
N = numel("out")

SPEC = Op(
    name="aclnnSoftMarginLossBackward",
    forward_name="SoftMarginLoss",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,损失的梯度;reduction为0时为每个元素的梯度,为1、2时通常只有一个元素。"
                        "与self、target满足broadcast关系。",
                        "gradOutput in the formula, the gradient of the loss: one per element for reduction 0, "
                        "usually a single element for 1 and 2. Broadcasts with self and target.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("公式中的self,正向的预测值x。与gradOutput、target满足broadcast关系。",
                        "self in the formula, the forward prediction x. Broadcasts with gradOutput and target.")),
        Tensor("target", y, role=OPERAND,
               doc=Text("公式中的target,正向的标签y,通常取1或-1。与gradOutput、self满足broadcast关系。",
                        "target in the formula, the forward labels y, usually 1 or -1. Broadcasts with gradOutput "
                        "and self.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("正向损失的reduce方式:0不做操作,1取平均(除以broadcast后的元素个数),2求和。",
                      "how the forward loss was reduced: 0 none, 1 mean (divided by the broadcast element "
                      "count), 2 sum.")),
        Output("out", dtype_from=("gradOutput", "self", "target"),
               doc=Text("对self的梯度,shape为gradOutput、self、target broadcast后的shape;数据类型为支持列表中的任一类型,"
                        "结果转换为该类型。",
                        "the gradient w.r.t. self, in the broadcast shape of gradOutput, self and target; any dtype "
                        "of the support list (the result is cast to it).")),
    ],
    wrt=x,
    forward=log(1 + exp(-x * y)),
    loss_reduction=Reduction("reduction", mean=N),
    # -y*exp(-x*y)/(1 + exp(-x*y)), written -y/(1 + exp(x*y)): finite for every x*y
    backward=-y * g / (1 + exp(x * y)) * Piecewise((1 / N, Eq(reduction, 1)), (1, True)),
    dtypes={
        "ascend910": ["FLOAT", "FLOAT16"],
        "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend950": ["FLOAT", "FLOAT16", "BFLOAT16"],
    },
    # the library's order (op_api/aclnn_soft_margin_loss_backward.cpp): each dtype in the list, the ranks of the
    # three inputs, their broadcast and out's shape; the reduction is not checked there (see the notes)
    rules=[
        DtypeSupported("gradOutput", "self", "target", "out"),
        MaxRank("gradOutput", "self", "target", n=8),
        Broadcastable("gradOutput", "self", "target"),
        ShapeIsBroadcast("out", "gradOutput", "self", "target"),
        OneOf("reduction", [0, 1, 2]),
    ],
    torch=Torch("soft_margin_loss_backward", "gradOutput", "self", "target", "reduction"),
    # the aclnn page's call example (mean, with a gradOutput of four elements); the page prints no result: this
    # one is aten::soft_margin_loss_backward's on the same data
    example=Example(shape=(2, 2),
                    values={"gradOutput": [0, 1, 2, 3], "self": [0, 1, 2, 3], "target": 1, "reduction": 1},
                    expected=[0, -0.0672354, -0.0596015, -0.0355694]),
    notes=[
        Text("文档未给出公式。按算子的README与kernel:梯度为-target·exp(-self·target)/(1 + exp(-self·target))·gradOutput,"
             "这里按等价的-target/(1 + exp(self·target))·gradOutput计算:self·target小于约-88.7时算子库的kernel与PyTorch"
             "(exp上溢,inf/inf)给`nan`,这里给其极限-target·gradOutput。",
             "The docs give no formula. As the operator's README and kernel define it: the gradient is "
             "-target·exp(-self·target)/(1 + exp(-self·target))·gradOutput, computed here in the equivalent form "
             "-target/(1 + exp(self·target))·gradOutput: where self·target is below about -88.7 the library's "
             "kernel and PyTorch give `nan` (exp overflows: inf/inf), this gives the limit -target·gradOutput."),
        Text("reduction为1(mean)时除以broadcast后的元素个数,与算子库的kernel一致(aten::soft_margin_loss_backward除以self的"
             "元素个数,self被broadcast时结果不同)。算子库不检查reduction(超出0~2时越界读取其名称表);这里超出时返回"
             "ACLNN_ERR_PARAM_INVALID。",
             "For reduction 1 (mean) the gradient is divided by the broadcast element count, as the library's "
             "kernel does (aten::soft_margin_loss_backward divides by self's element count: the results differ "
             "when self is broadcast). The library does not check reduction (a value outside 0..2 reads past its "
             "table of names); here such a value returns ACLNN_ERR_PARAM_INVALID."),
    ],
    description=Text(
        "SoftMarginLoss的反向传播:计算二分类逻辑损失log(1 + exp(-self·target))对self的梯度。",
        "Backward of the soft margin loss: the gradient of the two-class logistic loss log(1 + exp(-self·target)), "
        "reduced, w.r.t. self."),
)
