"""aclnnBinaryCrossEntropyWithLogitsTargetBackward: the gradient of BCE-with-logits w.r.t. the target."""
from codegen.spec import *

x, t, g = symbols("self target gradOutput", real=True)
w, pw = symbols("weight posWeight", real=True)
reduction = Symbol("reduction", integer=True)
N = numel("target")


def log_sigmoid(z):
    """log(1/(1 + exp(-z))) as min(z, 0) - log1p(exp(-|z|)): finite for every finite z (no exp overflow)."""
    return Min(z, 0) - log1p(exp(-Abs(z)))


SPEC = Op(
    name="aclnnBinaryCrossEntropyWithLogitsTargetBackward",
    forward_name="BCEWithLogits",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,损失的梯度,shape可以broadcast到self的shape(reduction为1、2时通常只有一个元素)。",
                        "gradOutput in the formula, the gradient of the loss; broadcasts to self's shape (usually "
                        "one element for reduction 1 and 2).")),
        Tensor("self", x, role=OPERAND,
               doc=Text("公式中的self,正向的logits x。", "self in the formula, the forward's logits x.")),
        Tensor("target", t, role=FORWARD_INPUT,
               doc=Text("公式中的target,正向的标签值,求梯度的对象;shape与self一致。",
                        "target in the formula, the forward's labels, the input differentiated; of self's shape.")),
        Tensor("weightOptional", w, role=OPERAND, optional=True, default=1,
               doc=Text("公式中的weight,二分交叉熵权重,shape可以broadcast到self的shape;为空时取全1。",
                        "weight in the formula, the loss weight; broadcasts to self's shape; null means all ones.")),
        Tensor("posWeightOptional", pw, role=OPERAND, optional=True, default=1,
               doc=Text("公式中的posWeight,正类的权重,shape可以broadcast到self的shape;为空时取全1。",
                        "posWeight in the formula, the positive-class weight; broadcasts to self's shape; null "
                        "means all ones.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("正向损失的reduce方式:0不做操作,1取平均(除以target的元素个数),2求和。",
                      "how the forward loss was reduced: 0 none, 1 mean (divided by target's element count), "
                      "2 sum.")),
        Output("gradTarget", dtype_from="target",
               doc=Text("对target的梯度,shape、数据类型与target一致。",
                        "the gradient w.r.t. target; target's shape and dtype.")),
    ],
    wrt=t,
    # -w(pw·t·log σ(x) + (1 - t)·log(1 - σ(x))), log(1 - σ(x)) = log σ(-x), each log σ in its overflow-free form
    forward=-w * (pw * t * log_sigmoid(x) + (1 - t) * log_sigmoid(-x)),
    loss_reduction=Reduction("reduction", mean=N),
    # linear in the target: the gradient does not depend on it
    backward=g * w * (log_sigmoid(-x) - pw * log_sigmoid(x)) * Piecewise((1 / N, Eq(reduction, 1)), (1, True)),
    dtypes={
        "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"],
    },
    # the library's order (op_api/aclnn_binary_cross_entropy_with_logits_target_backward.cpp): ranks, each dtype in
    # the list and gradTarget's equal to target's, the formats of self, target and gradTarget, (the shapes, skipped
    # for an empty self), the reduction, the empty return; the shapes are 161002 like the reduction, so they come
    # after the empty return here
    rules=[
        MaxRank("gradOutput", "self", "target", "weightOptional", "posWeightOptional", "gradTarget", n=8),
        DtypeSupported("gradOutput", "self", "target", "weightOptional", "posWeightOptional", "gradTarget"),
        DtypeSame("target", "gradTarget"),
        FormatSame("self", "target", "gradTarget"),
        OneOf("reduction", [0, 1, 2]),
        EmptyReturns("self"),
        ShapeSame("self", "target", "gradTarget"),
        BroadcastTo("gradOutput", "weightOptional", "posWeightOptional", "self"),
    ],
    torch=TorchGrad(lambda torch, x, t, w, pw, r: torch.nn.functional.binary_cross_entropy_with_logits(
        x, t, weight=w, pos_weight=pw, reduction={0: "none", 1: "mean", 2: "sum"}[r]),
        "self", "target", "weightOptional", "posWeightOptional", "reduction"),
    # the aclnn page's call example; the page prints no result: this one is PyTorch's autograd on the same data
    example=Example(shape=(2, 2),
                    values={"gradOutput": [0, 1, 2, 3], "self": [0, 1, 2, 3], "target": 0.1,
                            "weightOptional": [0, 1, 2, 3], "posWeightOptional": [0, 1, 2, 3], "reduction": 0},
                    expected=[0, -1.0, -7.4922881, -26.1254272]),
    notes=[
        Text("文档未给出公式。按算子库的实现(LogSigmoid的组合)与PyTorch的autograd:梯度为gradOutput·weight·(log σ(-self) - "
             "posWeight·log σ(self)),reduction为1(mean)时再除以target的元素个数;它与target的值无关。",
             "The docs give no formula. As the library composes it (from LogSigmoid) and PyTorch's autograd gives "
             "it: the gradient is gradOutput·weight·(log σ(-self) - posWeight·log σ(self)), divided by target's "
             "element count for reduction 1 (mean); it does not depend on target's values."),
        Text("文档只列出Atlas A2/A3系列产品(算子库的检查在所有产品上接受FLOAT、FLOAT16、BFLOAT16):这里按文档。算子库在self为"
             "空Tensor时跳过shape检查;这里同样在self为空时直接返回成功,reduction与数据类型的检查先于它进行。",
             "The docs list only the Atlas A2/A3 series (the library's checks accept FLOAT, FLOAT16 and BFLOAT16 on "
             "every product): here as documented. The library skips the shape checks when self is empty; so does "
             "this, after the reduction and dtype checks."),
    ],
    description=Text(
        "将输入self执行logits计算,将得到的值与标签值target一起进行BCELoss关于target的反向传播计算。",
        "Backward of BCE-with-logits w.r.t. the target: the gradient of the (weighted) binary cross-entropy of "
        "sigmoid(self) and target w.r.t. target."),
)
