"""aclnnBinaryCrossEntropyWithLogitsBackward: the gradient of BCE-with-logits w.r.t. the logits."""
from codegen.spec import *

x, t, g = symbols("x target gradOutput", real=True)
w, pw = symbols("weight posWeight", real=True)
reduction = Symbol("reduction", integer=True)
N = numel("self")

sigma = 1 / (1 + exp(-x))
mean_factor = Piecewise((1 / Max(1, N), Eq(reduction, 1)), (1, True))

SPEC = Op(
    name="aclnnBinaryCrossEntropyWithLogitsBackward",
    forward_name="BCEWithLogits",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("网络反向传播前一步的梯度值,shape可以broadcast到self的shape(reduction为1、2时是标量)。",
                        "the incoming gradient; broadcasts to self's shape (a scalar for reduction 1 and 2).")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("网络正向前一层的计算结果,即logits x。", "the logits x of the forward pass.")),
        Tensor("target", t, role=OPERAND,
               doc=Text("样本的标签值t,取值范围为0~1,shape与self一致。",
                        "the labels t, in 0..1; same shape as self.")),
        Tensor("weightOptional", w, role=OPERAND, optional=True, default=1,
               doc=Text("二分交叉熵权重w,shape可以broadcast到self的shape;为空时取全1。",
                        "the weight w; broadcasts to self's shape; null means all ones.")),
        Tensor("posWeightOptional", pw, role=OPERAND, optional=True, default=1,
               doc=Text("正类的权重pw,shape可以broadcast到self的shape;为空时取全1。",
                        "the positive-class weight pw; broadcasts to self's shape; null means all ones.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("对损失做的reduce操作:0不做操作,1取平均,2求和。",
                      "how the forward loss was reduced: 0 none, 1 mean, 2 sum.")),
        Output("out", dtype_from="target",
               doc=Text("对self的梯度,shape与self相同,数据类型与target相同。",
                        "the gradient w.r.t. self; self's shape and target's dtype.")),
    ],
    wrt=x,
    forward=-w * (pw * t * log(sigma) + (1 - t) * log(1 - sigma)),
    loss_reduction="reduction",
    backward=[
        Formula((sigma - t) * g * w * mean_factor, when={"posWeightOptional": ABSENT}),
        Formula(((pw * t + 1 - t) * sigma - pw * t) * g * w * mean_factor, when={"posWeightOptional": PRESENT}),
    ],
    dtypes={
        "ascend910": ["FLOAT16", "FLOAT"],
        "ascend310p": ["FLOAT16", "FLOAT"],
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend950": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "self", "target", "weightOptional", "posWeightOptional", "out"),
        DtypeSame("target", "out"),
        FormatSame("self", "target", "out"),
        MaxRank("gradOutput", "self", "target", "weightOptional", "posWeightOptional", "out", n=8),
        ShapeSame("self", "target", "out"),
        BroadcastTo("gradOutput", "weightOptional", "posWeightOptional", "self"),
        OneOf("reduction", [0, 1, 2]),
    ],
    notes=[
        Text("与旧版文档不同(以当前CANN算子库为准):self、target与out的数据格式须一致(例如out为NCHW而self为ND时返回"
             "161002);self可为0维。",
             "Unlike the older aclnn page, as the current CANN library checks: self, target and out must have the "
             "same format (an out in NCHW against a self in ND is 161002); self may have 0 dimensions."),
        Text("与CANN不同:self为空Tensor时仍校验target、out与各权重的shape;CANN在self为空时跳过shape校验。",
             "Unlike CANN: with an empty self the shapes of target, out and the weights are still checked; CANN "
             "skips its shape checks when self is empty."),
    ],
    # the aclnn page's call example and the results it prints (ascend.md §4)
    example=Example(shape=(2, 2),
                    values={"gradOutput": [0, 1, 2, 3], "self": [0, 1, 2, 3], "target": 0.1,
                            "weightOptional": [0, 1, 2, 3], "posWeightOptional": [0, 1, 2, 3], "reduction": 0},
                    expected=[0, 0.6310586, 3.0755071, 7.5878006]),
    description=Text(
        "将输入self执行logits计算,将得到的值与标签值target一起进行BCELoss的反向传播计算。",
        "Backward of BCE-with-logits: the gradient of the (weighted) binary cross-entropy of sigmoid(self) "
        "and target w.r.t. the logits self."),
)
