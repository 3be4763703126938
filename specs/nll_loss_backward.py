"""aclnnNLLLossBackward: the gradient of the negative log-likelihood loss w.r.t. its input (N, C) or (C,)."""
from codegen.spec import *

x, t, w, g, tw = symbols("self target weight gradOutput totalWeight", real=True)
reduction = Symbol("reduction", integer=True)
ignore = Symbol("ignoreIndex", integer=True)
c = class_index()
# the sample's target class, unless the sample is ignored
hit = Eq(c, t) & Ne(t, ignore)
FLOATS = {"ascend910": ["FLOAT", "FLOAT16"],
          "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"],
          "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"]}

SPEC = Op(
    name="aclnnNLLLossBackward",
    forward_name="NLLLoss",
    params=[
        Tensor("gradOutput", g, role=GRAD, layout=BATCH,
               doc=Text("公式中的gradOutput,损失的梯度:reduction为0且self为2维时shape为(N,),否则只有一个元素。",
                        "gradOutput in the formula, the gradient of the loss: of shape (N,) for reduction 0 with a "
                        "2-D self, else one element.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("公式中的self,正向的输入(对数概率),shape为(N, C)或(C,)。",
                        "self in the formula, the forward input (log-probabilities), of shape (N, C) or (C,).")),
        Tensor("target", t, role=OPERAND, layout=BATCH,
               dtypes={soc: ["INT64", "UINT8", "INT32"] for soc in FLOATS},
               doc=Text("公式中的target,每个样本的类别索引,取值范围[0, C-1](或等于ignoreIndex);shape为(N,)或()。",
                        "target in the formula, each sample's class index, in [0, C-1] (or ignoreIndex); of shape "
                        "(N,) or ().")),
        Tensor("weight", w, role=OPERAND, layout=CLASS,
               doc=Text("公式中的weight,每个类别的权重,shape为(C,)。", "weight in the formula, one weight per class, "
                                                              "of shape (C,).")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("正向损失的reduce方式:0不做操作,1取平均(除以totalWeight),2求和。",
                      "how the forward loss was reduced: 0 none, 1 mean (divided by totalWeight), 2 sum.")),
        Attr("ignoreIndex", ignore, type="int64",
             doc=Text("公式中的ignoreIndex,target等于它的样本不参与计算,梯度为0。",
                      "ignoreIndex in the formula: the samples whose target equals it get no gradient.")),
        Tensor("totalWeight", tw, role=OPERAND,
               doc=Text("公式中的totalWeight,正向计算得到的未被忽略样本的权重之和,只有一个元素;仅在reduction为1时使用。",
                        "totalWeight in the formula, the forward's sum of the weights of the samples not ignored; "
                        "one element, used only for reduction 1.")),
        Output("out", dtype_from="self",
               doc=Text("对self的梯度,shape与self一致;数据类型须可由self的数据类型转换得到。",
                        "the gradient w.r.t. self, of self's shape; its dtype must be castable from self's.")),
    ],
    class_dim=-1,
    wrt=x,
    # each element's term of its sample's loss: -w[c]*x[n, c] on the sample's target class, 0 on the others (so
    # the sample's loss, the sum over its classes, is -w[target]*x[n, target])
    forward=Piecewise((-w * x, hit), (0, True)),
    loss_reduction=Reduction("reduction", mean=tw),
    backward=Piecewise((-w * g * Piecewise((1 / tw, Eq(reduction, 1)), (1, True)), hit), (0, True)),
    dtypes=FLOATS,
    # the library's order (op_api/aclnn_nll_loss_backward.cpp): the float dtypes equal to self's and out
    # castable from it, self's and target's in their lists, the reduction, then the shapes
    rules=[
        DtypeSame("self", "weight", "gradOutput", "totalWeight"),
        DtypeCastable("self", "out"),
        DtypeSupported("self", "target"),
        OneOf("reduction", [0, 1, 2]),
        MinRank("self", n=1),
        MaxRank("self", n=2),
        MaxRank("target", n=1),
        ShapeIsBatch("target", "self"),
        MinRank("weight", n=1),
        MaxRank("weight", n=1),
        NumelIsClasses("weight", "self"),
        OneElement("totalWeight"),
        When(Eq(reduction, 0), ShapeIsBatch("gradOutput", "self")),
        When(Ne(reduction, 0), MaxRank("gradOutput", n=1), OneElement("gradOutput")),
        ShapeSame("self", "out"),
    ],
    torch=Torch("nll_loss_backward", "gradOutput", "self", "target", "weight", "reduction", "ignoreIndex",
                "totalWeight"),
    # the aclnn page's call example (an INT32 target); the page prints no result: this one is
    # aten::nll_loss_backward's on the same data
    example=Example(shape=(2, 3),
                    values={"gradOutput": [3.1, 6.5], "self": [0, 1, 2, 3, 4, 5], "target": [0, 2],
                            "weight": [1.1, 1.2, 1.3], "totalWeight": [0], "reduction": 0, "ignoreIndex": -100},
                    shapes={"gradOutput": (2,), "target": (2,), "weight": (3,), "totalWeight": (1,)},
                    dtypes={"target": "INT32"},
                    expected=[-3.41, 0, 0, 0, 0, -8.45]),
    notes=[
        Text("out中每个样本只有目标类别的位置非0:-weight[target]·gradOutput(reduction为1时再除以totalWeight);"
             "target等于ignoreIndex的样本整行为0。totalWeight按给定值使用,不重新计算。",
             "In out each sample is non-zero only at its target class: -weight[target]·gradOutput (divided by "
             "totalWeight for reduction 1); a sample whose target equals ignoreIndex gets a row of zeros. "
             "totalWeight is used as given, never recomputed."),
        Text("target的值不做检查(算子库也不检查):超出[0, C-1]且不等于ignoreIndex的样本得到整行0(算子库的行为未定义,"
             "PyTorch报错)。类别索引按FLOAT比较,类别数须小于2^24。self为1维时target与gradOutput可为0维或只有一个元素的"
             "1维Tensor(算子库只在C为1时接受1维的target)。",
             "target's values are not checked (nor are they by the library): a sample whose target is outside "
             "[0, C-1] and not ignoreIndex gets a row of zeros (undefined in the library; PyTorch raises). Class "
             "indices are compared in FLOAT: fewer than 2^24 classes. With a 1-D self, target and gradOutput may "
             "be 0-D or 1-D with one element (the library accepts a 1-D target only when C is 1)."),
        Text("文档未列出Atlas 推理系列产品(算子库的检查接受其FLOAT、FLOAT16):这里按文档不支持。out的数据类型只须可由self转换"
             "(文档写须与self一致)。",
             "The docs do not list the Atlas inference series (the library's checks accept FLOAT and FLOAT16 "
             "there): here it is unsupported, as documented. out's dtype only has to be castable from self's (the "
             "docs say equal)."),
    ],
    description=Text(
        "负对数似然损失(NLLLoss)的反向传播:计算损失对输入self的梯度。",
        "Backward of the negative log-likelihood loss: the gradient of the loss w.r.t. its input self."),
)
