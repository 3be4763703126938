"""aclnnNLLLossBackward: the gradient of the negative log-likelihood loss w.r.t. self, (N, C) or (C,)."""
from codegen.spec import *

x, t, w, g, tw = symbols("self target weight gradOutput totalWeight", real=True)
reduction = Symbol("reduction", integer=True)
ignore = Symbol("ignoreIndex", integer=True)
hit = Eq(CLASS, t) & Ne(t, ignore)          # the sample's target class, unless the sample is ignored
TARGETS = ["INT64", "UINT8", "INT32"]
FLOATS = {
    "ascend910": ["FLOAT", "FLOAT16"],
    "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"],
    "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"],
    "ascend950": ["FLOAT", "FLOAT16", "BFLOAT16"],
}

SPEC = Op(
    name="aclnnNLLLossBackward",
    forward_name="NLLLoss",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,损失的梯度:reduction为0且self为2维时shape为(N),否则为单个元素(0维或1维)。"
                        "数据类型与self一致。",
                        "gradOutput in the formula, the gradient of the loss: shape (N) for reduction 0 with a 2-D "
                        "self, otherwise one element (rank 0 or 1); self's dtype.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("正向的输入x(对数概率),shape为(N, C)或(C)(单个样本),C为类别数。",
                        "the forward input x (log-probabilities), of shape (N, C) or (C) (a single sample), C the "
                        "class count.")),
        Tensor("target", t, role=OPERAND, dtypes={soc: TARGETS for soc in FLOATS},
               doc=Text("每个样本的类别索引,shape为(N)(self为(C)时为0维或(1)),取值在[0, C-1]或等于ignoreIndex。",
                        "the class index of each sample, shape (N) (rank 0 or (1) for a self of shape (C)), each "
                        "in [0, C-1] or equal to ignoreIndex.")),
        Tensor("weight", w, role=OPERAND,
               doc=Text("每个类别的权重,1维,C个元素,数据类型与self一致。",
                        "the weight of each class: 1-D with C elements, self's dtype.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("正向损失的reduce方式:0不做操作,1取平均(除以totalWeight),2求和。",
                      "how the forward loss was reduced: 0 none, 1 mean (divided by totalWeight), 2 sum.")),
        Attr("ignoreIndex", ignore, type="int64",
             doc=Text("target等于它的样本不参与损失,梯度为0。", "samples whose target equals it take no part in "
                      "the loss: their gradient is 0.")),
        Tensor("totalWeight", tw, role=OPERAND,
               doc=Text("正向计算的权重之和(未被忽略的样本的weight[target]之和),一个元素,仅reduction为1时使用。数据类型与self一致。",
                        "the forward's total weight (the sum of weight[target] over the samples not ignored): one "
                        "element, read only for reduction 1; self's dtype.")),
        Output("out", dtype_from="self",
               doc=Text("对self的梯度,shape与self一致;数据类型须能由self转换而来。",
                        "the gradient w.r.t. self, of self's shape; its dtype must be castable from self's.")),
    ],
    classes=ClassIndex("self", target="target", per_class=("weight",), per_sample=("gradOutput",)),
    wrt=x,
    # element (i, c) of the loss: a sample's loss -weight[t]·x[i, t] is the sum over its classes
    forward=Piecewise((-w * x, hit), (0, True)),
    loss_reduction=Reduction("reduction", mean=tw),
    backward=Piecewise((-w * g * Piecewise((1 / tw, Eq(reduction, 1)), (1, True)), hit), (0, True)),
    dtypes=FLOATS,
    compute={d: "FLOAT" for d in TARGETS},
    # the library's order (op_api/aclnn_nll_loss_backward.cpp, CheckParams): dtypes (weight, gradOutput and
    # totalWeight equal to self's, out castable from it, self's and target's in the lists), the reduction, the
    # shapes; an empty self then returns
    rules=[
        DtypeSame("self", "weight", "gradOutput", "totalWeight"),
        DtypeCastable("self", "out"),
        DtypeSupported("self", "target"),
        OneOf("reduction", [0, 1, 2]),
        MinRank("self", n=1),
        MaxRank("self", n=2),
        MaxRank("target", n=1),
        ClassTarget("target", "self"),
        MinRank("weight", n=1),
        MaxRank("weight", n=1),
        ClassCount("weight", "self"),
        OneElement("totalWeight"),
        SampleShaped("gradOutput", "self", "reduction"),
        ShapeSame("self", "out"),
    ],
    torch=Torch("nll_loss_backward", "gradOutput", "self", "target", "weight", "reduction", "ignoreIndex",
                "totalWeight"),
    notes=[
        Text("公式按(样本i, 类别c)逐元素写出:ℓ[i, c]在c等于target[i]且target[i]不等于ignoreIndex时为-weight[c]·self[i, c],"
             "否则为0;样本i的损失为ℓ[i, :]沿类别维之和,即-weight[target[i]]·self[i, target[i]]。梯度只在每个样本的目标类别"
             "处非零:reduction为0时为-weight[target[i]]·gradOutput[i],为2时为-weight[target[i]]·gradOutput,为1时再除以"
             "totalWeight。与文档、算子库的kernel和aten::nll_loss_backward一致。",
             "The formulas are written per element (sample i, class c): ℓ[i, c] is -weight[c]·self[i, c] where c "
             "equals target[i] and target[i] is not ignoreIndex, else 0; sample i's loss is the sum of ℓ[i, :] over "
             "the classes, -weight[target[i]]·self[i, target[i]]. The gradient is nonzero only at each sample's "
             "target class: -weight[target[i]]·gradOutput[i] for reduction 0, -weight[target[i]]·gradOutput for 2, "
             "divided by totalWeight for 1, as the docs, the library's kernel and aten::nll_loss_backward give it."),
        Text("totalWeight按给定值使用,不重新计算(与算子库一致);reduction为1且totalWeight为0时结果为`inf`或`nan`(算子库在"
             "Ascend 950上断言其不为0)。target不等于ignoreIndex且不在[0, C-1]内的样本梯度全为0(算子库不校验,行为未定义)。",
             "totalWeight is used as given, never recomputed (as the library does); for reduction 1 a totalWeight of "
             "0 gives `inf` or `nan` (the library asserts it nonzero on Ascend 950). A sample whose target is neither "
             "ignoreIndex nor in [0, C-1] gets a zero gradient row (the library does not check it)."),
        Text("类别索引与ignoreIndex在FLOAT中比较,C不超过2^24(16777216)时精确。self为1维(C)时target须为0维或(1)的单个元素;"
             "算子库接受长度为C的1维target并只读第一个元素,这里返回161002。out的数据类型只须能由self转换而来(与算子库"
             "一致,文档要求一致)。FLOAT16与BFLOAT16按FLOAT计算。",
             "Class indices and ignoreIndex are compared in FLOAT: exact for C up to 2^24 (16777216). For a 1-D self "
             "(C) the target must be one element of rank 0 or (1); the library also accepts a 1-D target of length C "
             "and reads its first element: here that is 161002. out's dtype need only be castable from self's (as the "
             "library checks; its docs say equal). FLOAT16 and BFLOAT16 compute in FLOAT."),
        Text("文档列出Atlas 训练系列产品(算子库的检查在其上只接受FLOAT、FLOAT16),未列出Atlas 推理系列产品(算子库的检查"
             "也接受):这里按文档与检查。",
             "The docs list the Atlas training series (where the library's checks take FLOAT and FLOAT16 only) and "
             "not the Atlas inference series (which the checks also accept): here as the docs and the checks say."),
    ],
    # the aclnn page's call example (target INT32 there; INT64 here, the first of the target's dtypes); the page
    # prints no result: this one is aten::nll_loss_backward's on the same data
    example=Example(shape=(2, 3), shapes={"gradOutput": (2,), "target": (2,), "weight": (3,), "totalWeight": (1,)},
                    values={"gradOutput": [3.1, 6.5], "self": [0, 1, 2, 3, 4, 5], "target": [0, 2],
                            "weight": [1.1, 1.2, 1.3], "totalWeight": 0, "reduction": 0, "ignoreIndex": -100},
                    expected=[-3.41, 0, 0, 0, 0, -8.45]),
    description=Text(
        "负对数似然损失函数的反向传播:计算损失对self的梯度。",
        "Backward of the negative log-likelihood loss: the gradient of the loss w.r.t. self."),
)
