"""aclnnNLLLoss2dBackward: the gradient of the negative log-likelihood loss w.r.t. self (N, C, H, W), per pixel."""
from codegen.spec import *

x, t, w, g, tw = symbols("self target weight gradOutput totalWeight", real=True)
reduction = Symbol("reduction", integer=True)
ignore = Symbol("ignoreIndex", integer=True)
hit = Eq(CLASS, t) & Ne(t, ignore)          # the pixel's target class, unless the pixel is ignored
TARGETS = ["INT64", "UINT8", "INT32"]
FLOATS = {
    "ascend910": ["FLOAT", "FLOAT16"],
    "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"],
    "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"],
    "ascend950": ["FLOAT", "FLOAT16", "BFLOAT16"],
}

SPEC = Op(
    name="aclnnNLLLoss2dBackward",
    forward_name="NLLLoss2d",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,损失的梯度:reduction为0时shape与target一致(N, H, W),否则为单个元素(0维或1维)。"
                        "数据类型与self一致。",
                        "gradOutput in the formula, the gradient of the loss: target's shape (N, H, W) for "
                        "reduction 0, otherwise one element (rank 0 or 1); self's dtype.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("正向的输入x(对数概率),4维(N, C, H, W),C为类别数。",
                        "the forward input x (log-probabilities): 4-D (N, C, H, W), C the class count.")),
        Tensor("target", t, role=OPERAND, dtypes={soc: TARGETS for soc in FLOATS},
               doc=Text("每个像素的类别索引,3维(N, H, W),取值在[0, C-1]或等于ignoreIndex。",
                        "the class index of each pixel: 3-D (N, H, W), each in [0, C-1] or equal to "
                        "ignoreIndex.")),
        Tensor("weight", w, role=OPERAND,
               doc=Text("每个类别的权重,C个元素,数据类型与self一致。",
                        "the weight of each class: C elements, self's dtype.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("正向损失的reduce方式:0不做操作,1取平均(除以totalWeight),2求和。",
                      "how the forward loss was reduced: 0 none, 1 mean (divided by totalWeight), 2 sum.")),
        Attr("ignoreIndex", ignore, type="int64",
             doc=Text("target等于它的像素不参与损失,梯度为0。", "pixels whose target equals it take no part in "
                      "the loss: their gradient is 0.")),
        Tensor("totalWeight", tw, role=OPERAND, c_type="aclTensor *",   # non-const in CANN's header
               doc=Text("正向计算的权重之和(未被忽略的像素的weight[target]之和),一个元素,仅reduction为1时使用。数据类型与self一致。",
                        "the forward's total weight (the sum of weight[target] over the pixels not ignored): one "
                        "element, read only for reduction 1; self's dtype.")),
        Output("out", dtype_from="self",
               doc=Text("对self的梯度,shape与self一致,数据类型与self一致。",
                        "the gradient w.r.t. self, of self's shape and dtype.")),
    ],
    classes=ClassIndex("self", target="target", per_class=("weight",), per_sample=("gradOutput",)),
    wrt=x,
    # element (n, c, h, w) of the loss: a pixel's loss -weight[t]·x[n, t, h, w] is the sum over its classes
    forward=Piecewise((-w * x, hit), (0, True)),
    loss_reduction=Reduction("reduction", mean=tw),
    backward=Piecewise((-w * g * Piecewise((1 / tw, Eq(reduction, 1)), (1, True)), hit), (0, True)),
    dtypes=FLOATS,
    compute={d: "FLOAT" for d in TARGETS},
    # the library's order (op_api/aclnn_nll_loss2d_backward.cpp, CheckParams): the null checks (out before
    # totalWeight), self's dtype, the others' equal to it, target's; the shapes (gradOutput's first, by the
    # reduction); the reduction's range last; an empty self then returns
    null_order=["gradOutput", "self", "target", "weight", "out", "totalWeight"],
    rules=[
        DtypeSupported("self"),
        DtypeSame("self", "gradOutput", "weight", "out", "totalWeight"),
        DtypeSupported("target"),
        SampleShaped("gradOutput", "self", "reduction"),
        MinRank("self", n=4),
        MaxRank("self", n=4),
        MinRank("target", n=3),
        MaxRank("target", n=3),
        ClassTarget("target", "self"),
        ClassCount("weight", "self"),
        ShapeSame("self", "out"),
        OneElement("totalWeight"),
        OneOf("reduction", [0, 1, 2]),
    ],
    torch=Torch("nll_loss2d_backward", "gradOutput", "self", "target", "weight", "reduction", "ignoreIndex",
                "totalWeight"),
    notes=[
        Text("文档未给出公式。按算子库(README与aclnnNLLLossBackward)与aten::nll_loss2d_backward逐像素计算:ℓ[n, c, h, w]在c"
             "等于target[n, h, w]且其不等于ignoreIndex时为-weight[c]·self[n, c, h, w],否则为0;像素的损失为沿类别维"
             "(第1维)之和。梯度只在每个像素的目标类别处非零:reduction为0时为-weight[target]·gradOutput[n, h, w],为2时为"
             "-weight[target]·gradOutput,为1时再除以totalWeight。",
             "The docs give no formula. As the library (its README and aclnnNLLLossBackward) and "
             "aten::nll_loss2d_backward compute it, per pixel: ℓ[n, c, h, w] is -weight[c]·self[n, c, h, w] where c "
             "equals target[n, h, w] and that is not ignoreIndex, else 0; a pixel's loss is the sum over the class "
             "axis (dimension 1). The gradient is nonzero only at each pixel's target class: "
             "-weight[target]·gradOutput[n, h, w] for reduction 0, -weight[target]·gradOutput for 2, divided by "
             "totalWeight for 1."),
        Text("gradOutput的shape校验按reduction在reduction的取值校验之前进行(与算子库一致):reduction为3且gradOutput逐像素时,"
             "报错的是gradOutput。reduction为0时这里把gradOutput与self去掉第1维后的shape比较(算子库与target的shape比较,"
             "二者在target合法时一致)。weight只校验元素个数(不校验维数),与算子库一致。",
             "gradOutput's shape is checked by the reduction before the reduction's range (as the library does): "
             "for reduction 3 with a per-pixel gradOutput, gradOutput is the parameter reported. For reduction 0 "
             "gradOutput is compared with self's shape without dimension 1 (the library compares it with target's, "
             "the same whenever target is valid). weight's element count is checked, not its rank, as the "
             "library does."),
        Text("totalWeight按给定值使用,不重新计算;target不等于ignoreIndex且不在[0, C-1]内的像素梯度全为0(算子库不校验)。"
             "类别索引与ignoreIndex在FLOAT中比较,C不超过2^24时精确。FLOAT16与BFLOAT16按FLOAT计算。文档列出Atlas 训练系列产品"
             "(算子库的检查在其上只接受FLOAT、FLOAT16),未列出Atlas 推理系列产品:这里按文档与检查。",
             "totalWeight is used as given, never recomputed; a pixel whose target is neither ignoreIndex nor in "
             "[0, C-1] gets a zero gradient (the library does not check it). Class indices and ignoreIndex are "
             "compared in FLOAT: exact for C up to 2^24. FLOAT16 and BFLOAT16 compute in FLOAT. The docs list the "
             "Atlas training series (where the library's checks take FLOAT and FLOAT16) and not the Atlas inference "
             "series: here as the docs and the checks say."),
    ],
    # the aclnn page's call example; the page prints no result: this one is aten::nll_loss2d_backward's
    example=Example(shape=(3, 5, 1, 1),
                    shapes={"gradOutput": (3, 1, 1), "target": (3, 1, 1), "weight": (5,), "totalWeight": (1,)},
                    values={"gradOutput": [2.7, 2.6, 2.5],
                            "self": [4.1, 4.2, 4.3, 4.4, 4.5, 4.6, 4.7, 4.8, 4.9, 5.0, 5.1, 5.2, 5.3, 5.4, 5.5],
                            "target": [2, 3, 1], "weight": 1, "totalWeight": 1, "reduction": 0,
                            "ignoreIndex": -100},
                    expected=[0, 0, -2.7, 0, 0, 0, 0, 0, -2.6, 0, 0, -2.5, 0, 0, 0]),
    description=Text(
        "二维负对数似然损失函数的反向传播:计算逐像素损失对self的梯度。",
        "Backward of the 2-D negative log-likelihood loss: the gradient of the per-pixel loss w.r.t. self."),
)
