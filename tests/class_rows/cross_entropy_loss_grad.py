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
SOCS = ("ascend910b", "ascend910_93")

SPEC = Op(
    name="aclnnCrossEntropyLossGrad",
    forward_name="CrossEntropyLoss",
    params=[
        Tensor("gradLoss", g, role=GRAD,
               doc=Text("正向损失的梯度:reduction为none时shape为(N),否则为单个元素。",
                        "the gradient of the forward loss: shape (N) for reduction none, else one element.")),
        Tensor("logProb", y, role=FORWARD_OUTPUT, holds=x - log(DimSum(exp(x))),
               doc=Text("正向输入x的log_softmax,shape为(N, C)。", "log_softmax of the forward input x, (N, C).")),
        Tensor("target", t, role=OPERAND, dtypes={soc: ["INT64"] for soc in SOCS},
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
    compute={"INT64": "FLOAT"},
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
        ShapeSame("logProb", "out"),
    ],
    description=Text("交叉熵损失函数的反向传播:计算损失对logits的梯度。",
                     "Backward of the cross-entropy loss: the gradient of the loss w.r.t. the logits."),
)
