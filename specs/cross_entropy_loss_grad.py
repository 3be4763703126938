"""aclnnCrossEntropyLossGrad: the gradient of the cross-entropy loss w.r.t. the logits x, from logProb =
log_softmax(x) (N, C), the class-index target and the per-class weight; the mean divides by the total weight of
the samples not ignored, which the operator computes itself."""
from codegen.spec import *

x, y, t, w, g = symbols("x logProb target weightOptional gradLoss", real=True)
ignore = Symbol("ignoreIndex", integer=True)
ls = Symbol("labelSmoothing", real=True)
C = dim_size("logProb", 1)                       # the class count
kept = Ne(t, ignore)                             # the sample takes part in the loss
hit = Eq(CLASS, t) & kept                        # the sample's target class
# the mean's divisor: Σ_i weight[target[i]] over the samples not ignored, a sum over the whole grid
TOTAL = GridSum(Piecewise((w, hit), (0, True)))


def gradient(G):
    """The library's formula: G·mask·((1 - ls)·w[t]·(exp(logProb) - onehot(t)) + ls/C·(exp(logProb)·Σ_k w_k - w))."""
    gathered = DimSum(Piecewise((w, Eq(CLASS, t)), (0, True)))       # weight[target[i]] at every class of row i
    onehot = Piecewise((1, Eq(CLASS, t)), (0, True))
    return Piecewise((G * ((1 - ls) * gathered * (exp(y) - onehot) + ls / C * (exp(y) * DimSum(w) - w)), kept),
                     (0, True))


FLOATS = ["FLOAT", "FLOAT16", "BFLOAT16"]
SOCS = ("ascend910b", "ascend910_93", "ascend950")

SPEC = Op(
    name="aclnnCrossEntropyLossGrad",
    forward_name="CrossEntropyLoss",
    params=[
        Tensor("gradLoss", g, role=GRAD,
               doc=Text("正向损失的梯度:reduction为none时shape为(N),否则为单个元素。",
                        "the gradient of the forward loss: shape (N) for reduction none, else one element.")),
        Tensor("logProb", y, role=FORWARD_OUTPUT, holds=x - log(DimSum(exp(x))),
               doc=Text("正向输入x的log_softmax,shape为(N, C)。", "log_softmax of the forward input x, (N, C).")),
        # INT32 targets on the Ascend 950 only (the aclnn page)
        Tensor("target", t, role=OPERAND, dtypes={soc: ["INT64"] + ["INT32"] * (soc == "ascend950") for soc in SOCS},
               doc=Text("每个样本的类别索引,shape为(N),取值在[0, C-1]或等于ignoreIndex。",
                        "the class index of each sample, shape (N), in [0, C-1] or equal to ignoreIndex.")),
        Tensor("weightOptional", w, role=OPERAND, optional=True, default=1,
               dtypes={soc: ["FLOAT"] for soc in SOCS},
               doc=Text("每个类别的权重,1维,C个元素,FLOAT;为空时全为1。",
                        "the weight of each class: 1-D, C elements, FLOAT; all 1 when null.")),
        Tensor("gradZlossOptional", role=UNUSED, optional=True, default=0,
               doc=Text("zloss的梯度,当前不支持,传入时不生效。", "the zloss gradient: not supported, ignored if given.")),
        Tensor("lseForZlossOptional", role=UNUSED, optional=True, default=0,
               doc=Text("zloss的lse,当前不支持,传入时不生效。", "the zloss lse: not supported, ignored if given.")),
        Attr("reductionOptional", type="string", c_type="char *",
             values={"none": "none", "mean": "mean", "sum": "sum"},
             doc=Text("正向损失的reduce方式:none、mean(除以未被忽略样本的weight[target]之和)或sum。",
                      "how the forward loss was reduced: none, mean (divided by the sum of weight[target] over the "
                      "samples not ignored) or sum.")),
        Attr("ignoreIndex", ignore, type="int64",
             doc=Text("target等于它的样本不参与损失,梯度为0。",
                      "samples whose target equals it take no part in the loss: their gradient is 0.")),
        Attr("labelSmoothing", ls, type="double",
             doc=Text("标签平滑系数,取值[0, 1]。", "the label smoothing, in [0, 1].")),
        Attr("lseSquareScaleForZloss", Symbol("lseSquareScaleForZloss", real=True), type="double",
             doc=Text("zloss的缩放系数,当前不支持,不生效。", "the zloss scale: not supported, has no effect.")),
        Output("out", dtype_from="gradLoss",
               doc=Text("对x的梯度,shape为(N, C),数据类型与gradLoss一致。",
                        "the gradient w.r.t. x, (N, C), gradLoss's dtype.")),
    ],
    classes=ClassIndex("logProb", target="target", per_class=("weightOptional",), per_sample=("gradLoss",)),
    wrt=x,
    reduce_dim=1,
    # element (i, c) of the loss; sample i's loss, the sum over its classes, is
    # -(1 - ls)·w[t]·logp[i, t] - ls/C·Σ_c w[c]·logp[i, c] (PyTorch's cross_entropy with label smoothing)
    forward=Piecewise((-(1 - ls) * w * (x - log(DimSum(exp(x)))), hit), (0, True))
    + Piecewise((-ls / C * w * (x - log(DimSum(exp(x)))), kept), (0, True)),
    loss_reduction=Reduction("reductionOptional", mean=TOTAL),
    backward=[Formula(gradient(g), when={"reductionOptional": "none"}),
              Formula(gradient(g), when={"reductionOptional": "sum"}),
              Formula(gradient(g / TOTAL), when={"reductionOptional": "mean"})],
    dtypes={soc: FLOATS for soc in SOCS},
    compute={"INT64": "FLOAT", "INT32": "FLOAT"},
    # the generated aclnn's checks (the def's dtype combinations), then infer-shape's and the tiling's
    rules=[
        DtypeSupported("gradLoss", "logProb", "target", "weightOptional"),
        DtypeSame("gradLoss", "logProb", "out"),
        OneOf("reductionOptional", ["mean", "none", "sum"]),
        MinRank("logProb", n=2),
        MaxRank("logProb", n=2),
        MaxRank("target", n=1),
        ClassTarget("target", "logProb"),
        MinRank("weightOptional", n=1),
        MaxRank("weightOptional", n=1),
        ClassCount("weightOptional", "logProb"),
        SampleShaped("gradLoss", "logProb", "reductionOptional"),
        ShapeSame("logProb", "out"),
    ],
    notes=[
        Text("out是对正向输入logits x的梯度(不是对logProb的梯度),logProb = log_softmax(x):与文档的公式、算子库的kernel和"
             "PyTorch对F.cross_entropy的autograd一致。mean的除数为未被忽略样本的weight[target]之和,由算子自己计算(不是"
             "输入):NumPy在计算行之前对整个网格求和,C在第二阶段先遍历一次网格(double累加,舍入一次到FLOAT),Ascend C先以"
             "kernel的gridSumPass变体得到每行之和,再由ReduceSum相加。所有样本都被忽略时结果全为0;未被忽略样本的权重之和为0时"
             "结果为`inf`或`nan`。",
             "out is the gradient w.r.t. the forward's logits x (not w.r.t. logProb), logProb = log_softmax(x): as the "
             "docs' formula, the library's kernel and PyTorch's autograd of F.cross_entropy give it. The mean's divisor, "
             "the sum of weight[target] over the samples not ignored, is computed by the operator (it is not an "
             "input): NumPy sums it over the whole grid before the rows, C in a pass over the grid first in phase 2 "
             "(summed in double, rounded once to FLOAT), Ascend C by the kernel's gridSumPass variant (each row's "
             "sum) added up by ReduceSum. With every sample ignored the result is all 0; with the kept samples' "
             "weights summing to 0 it is `inf` or `nan`."),
        Text("labelSmoothing:文档称当前仅支持0.0,算子库A2的kernel有其计算路径,这里按PyTorch的label_smoothing计算任意值"
             "(公式中的ls项)。gradZlossOptional、lseForZlossOptional和lseSquareScaleForZloss被接受但不生效(与文档一致)。"
             "target仅INT64(A2/A3;INT32仅Ascend 950支持)。target既不等于ignoreIndex也不在[0, C-1]内时,gather得到的"
             "权重为0(算子库越界读取,行为未定义)。类别索引在FLOAT中比较,C不超过2^24时精确。未知的reduction字符串返回"
             "161002(算子库A2的tiling不拒绝它并按none计算,Ascend 950拒绝)。FLOAT16与BFLOAT16按FLOAT计算。",
             "labelSmoothing: the docs say only 0.0 is supported; the library's A2 kernel has a path for it, and here "
             "any value is computed as PyTorch's label_smoothing (the ls terms of the formula). gradZlossOptional, "
             "lseForZlossOptional and lseSquareScaleForZloss are accepted and have no effect (as the docs say). "
             "target is INT64 only (A2/A3; INT32 is Ascend 950's). A target that is neither ignoreIndex nor in "
             "[0, C-1] gathers a weight of 0 (the library reads past the weight: no result is promised). Class indices are compared "
             "in FLOAT: exact for C up to 2^24. An unknown reduction string is 161002 (the library's A2 tiling "
             "accepts it as none, Ascend 950's refuses it). FLOAT16 and BFLOAT16 compute in FLOAT."),
        Text("文档的调用示例把target的数据写成std::vector<float>再拷入INT64张量(第二个索引读到缓冲区之外);这里的示例"
             "使用INT64数据[0, 0],结果即文档预填的[-0.0091, 0.0409, 0.0409]每行(g/2·(exp(-0.2) - [1, 0, 0]))。",
             "The docs' call example fills the INT64 target from a std::vector<float> (its second index is read past "
             "the buffer); the example here uses INT64 data [0, 0], and its result is the one the docs pre-fill, "
             "[-0.0091, 0.0409, 0.0409] per row (g/2·(exp(-0.2) - [1, 0, 0]))."),
    ],
    # the aclnn page's call example: logProb all -0.2 (not a normalised log-softmax: the formula does not need one),
    # both targets 0, weights 1, the mean over 2 samples; its out buffer is pre-filled with the rounded result
    # [-0.0091, 0.0409, 0.0409] per row, which is g/2·(exp(-0.2) - [1, 0, 0])
    example=Example(shape=(2, 3), shapes={"gradLoss": (), "target": (2,), "weightOptional": (3,)},
                    values={"gradLoss": 0.1, "logProb": [-0.2] * 6, "target": [0, 0], "weightOptional": [1, 1, 1],
                            "reductionOptional": "mean", "ignoreIndex": -100, "labelSmoothing": 0,
                            "lseSquareScaleForZloss": 0},
                    expected=[-0.00906346, 0.04093654, 0.04093654, -0.00906346, 0.04093654, 0.04093654]),
    description=Text("交叉熵损失函数的反向传播:计算损失对logits的梯度。",
                     "Backward of the cross-entropy loss: the gradient of the loss w.r.t. the logits."),
)
