"""aclnnKlDivBackward: the gradient of the Kullback-Leibler divergence loss w.r.t. self, summed back to self's
shape where self was broadcast."""
from codegen.spec import *

x, t, g = symbols("self target gradOutput", real=True)
reduction = Symbol("reduction", integer=True)
log_target = Symbol("logTarget")
B0 = dim_size(BROADCAST, 0)        # the broadcast shape's first extent: batchmean's divisor
N = numel(BROADCAST)               # its element count: mean's divisor
factor = Piecewise((1 / N, Eq(reduction, 1)), (1 / B0, Eq(reduction, 3)), (1, True))


def _kl(torch, x, t, r, lt):
    """PyTorch's kl_div summed, divided for mean by the broadcast element count (what its mean does) and for
    batchmean by the broadcast shape's first extent as the library does (F.kl_div's batchmean divides by
    self.size(0), which differs where self is broadcast along dim 0)."""
    loss = torch.nn.functional.kl_div(x, t, reduction="none" if r not in (1, 2, 3) else "sum", log_target=bool(lt))
    shape = torch.broadcast_shapes(x.shape, t.shape)
    return loss / {1: shape.numel(), 3: shape[0:1].numel()}[r] if r in (1, 3) else loss


SPEC = Op(
    name="aclnnKlDivBackward",
    forward_name="KlDiv",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,损失的梯度;shape须能broadcast到self与target broadcast后的shape(不能扩大它)。",
                        "gradOutput in the formula, the gradient of the loss; broadcasts to the broadcast shape of "
                        "self and target without enlarging it.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("公式中的self,正向的输入(对数概率),求梯度的对象;与target满足broadcast关系。",
                        "self in the formula, the forward input (log-probabilities), the input differentiated; "
                        "broadcasts with target.")),
        Tensor("target", t, role=OPERAND,
               doc=Text("公式中的target,正向的目标值;logTarget为true时为对数形式。与self满足broadcast关系。",
                        "target in the formula, the forward target, in log form when logTarget is true; "
                        "broadcasts with self.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum", 3: "batchmean"},
             doc=Text("正向损失的reduce方式:0不做操作,1取平均(除以broadcast后的元素个数),2求和,3 batchmean(除以broadcast后"
                      "shape的第0维);其他值按0处理。",
                      "how the forward loss was reduced: 0 none, 1 mean (divided by the broadcast element count), "
                      "2 sum, 3 batchmean (divided by the broadcast shape's dim 0); any other value means 0.")),
        Attr("logTarget", log_target, type="bool",
             doc=Text("target是否为对数形式。", "whether target is given in log form.")),
        Output("out", dtype_from="self", sum_to="self",
               doc=Text("对self的梯度,shape与self一致(self被broadcast时在broadcast的轴上求和);数据类型须能由self转换而来。",
                        "the gradient w.r.t. self, of self's shape (summed over the axes along which self was "
                        "broadcast); its dtype must be castable from self's.")),
    ],
    wrt=x,
    forward=t * (log(t) - x),
    loss_reduction=Reduction("reduction", mean=N, batchmean=B0, unchecked=True),   # (the notes: not validated)
    backward=[
        Formula(-t * g * factor, when={"logTarget": False}),
        Formula(-exp(t) * g * factor, when={"logTarget": True}, forward=exp(t) * (t - x)),
    ],
    dtypes={
        "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend950": ["FLOAT", "FLOAT16", "BFLOAT16"],
    },
    # the library's order (op_api/aclnn_kl_div_backward.cpp): out castable from self, each dtype in the list, then
    # the ranks, broadcast(self, target), gradOutput into it, out of self's shape; reduction is never validated
    rules=[
        DtypeCastable("self", "out"),
        DtypeSupported("gradOutput", "self", "target", "out"),
        MaxRank("gradOutput", "self", "target", "out", n=8),
        Broadcastable("self", "target"),
        BroadcastsInto("gradOutput", "self", "target"),
        ShapeSame("self", "out"),
    ],
    torch=TorchGrad(_kl, "self", "target", "reduction", "logTarget"),
    # the aclnn page's call example; the page prints no result: this one is PyTorch's autograd on the same data
    example=Example(shape=(2, 2),
                    values={"gradOutput": [2, 3, 5, 8], "self": [2, 3, 5, 8], "target": [2, 3, 5, 8],
                            "reduction": 0, "logTarget": False},
                    expected=[-4, -9, -25, -64]),
    notes=[
        Text("文档未给出公式(指向ops-math的aclnnKlDiv)。按算子库的kernel与PyTorch的autograd:logTarget为false时梯度为"
             "-target·gradOutput,为true时为-exp(target)·gradOutput,reduction为1时再除以self与target broadcast后的元素个数,"
             "为3(batchmean)时除以broadcast后shape的第0维。",
             "The docs give no formula (they point to aclnnKlDiv in ops-math). As the library's kernel and "
             "PyTorch's autograd compute it: the gradient is -target·gradOutput for logTarget false and "
             "-exp(target)·gradOutput for true, divided for reduction 1 by the element count of the broadcast "
             "shape of self and target, and for 3 (batchmean) by that shape's dim 0."),
        Text("self被broadcast时(shape小于self与target broadcast后的shape),梯度在broadcast后的shape上计算,再在broadcast的轴上"
             "求和回到self的shape,与算子库(ReduceSum)和PyTorch的autograd一致。batchmean除以broadcast后shape的第0维,与算子库"
             "一致;PyTorch的F.kl_div除以self自身的第0维,二者在self沿第0维被broadcast时不同。",
             "Where self is broadcast (smaller than the broadcast shape of self and target), the gradient is "
             "computed on the broadcast shape and summed over the broadcast axes back to self's shape, as the "
             "library (ReduceSum) and PyTorch's autograd do. batchmean divides by the broadcast shape's dim 0 as "
             "the library does; PyTorch's F.kl_div divides by self's own dim 0, which differs where self is "
             "broadcast along dim 0."),
        Text("reduction不做校验:0、1、2、3以外的值按0(none)处理,与算子库一致。out的数据类型只须能由self转换而来(算子库不要求"
             "二者一致,与文档不同)。文档只列出Atlas A2/A3系列产品(算子库的检查在Atlas 训练系列与推理系列产品上也接受"
             "FLOAT、FLOAT16):这里按文档。",
             "reduction is not validated: values other than 0, 1, 2 and 3 mean 0 (none), as in the library. out's "
             "dtype need only be castable from self's (the library does not require them equal, unlike its "
             "docs). The docs list only the Atlas A2/A3 series (the library's checks also accept FLOAT and "
             "FLOAT16 on the Atlas training and inference series): here as documented."),
    ],
    description=Text(
        "KL散度损失函数的反向传播:计算损失对self的梯度。",
        "Backward of the Kullback-Leibler divergence loss: the gradient of the loss w.r.t. self."),
)
