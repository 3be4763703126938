"""aclnnKlDivTargetBackward: the gradient of the Kullback-Leibler divergence loss w.r.t. target, summed back to
target's shape where target was broadcast."""
from codegen.spec import *

x, t, g = symbols("self target gradOutput", real=True)
reduction = Symbol("reduction", integer=True)
log_target = Symbol("logTarget")
B0 = dim_size(BROADCAST, 0)        # the broadcast shape's first extent: batchmean's divisor
N = numel(BROADCAST)               # its element count: mean's divisor
factor = Piecewise((1 / N, Eq(reduction, 1)), (1 / B0, Eq(reduction, 3)), (1, True))


def _kl(torch, x, t, r, lt):
    """PyTorch's kl_div summed, divided for mean by the broadcast element count and for batchmean by the broadcast
    shape's first extent, as the library does (F.kl_div's batchmean divides by self.size(0))."""
    loss = torch.nn.functional.kl_div(x, t, reduction="none" if r not in (1, 2, 3) else "sum", log_target=bool(lt))
    shape = torch.broadcast_shapes(x.shape, t.shape)
    return loss / {1: shape.numel(), 3: shape[0:1].numel()}[r] if r in (1, 3) else loss


SPEC = Op(
    name="aclnnKlDivTargetBackward",
    forward_name="KlDiv",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,损失的梯度;shape须能broadcast到self与target broadcast后的shape(不能扩大它)。",
                        "gradOutput in the formula, the gradient of the loss; broadcasts to the broadcast shape of "
                        "self and target without enlarging it.")),
        Tensor("self", x, role=OPERAND,
               doc=Text("公式中的self,正向的输入(对数概率);与target满足broadcast关系。",
                        "self in the formula, the forward input (log-probabilities); broadcasts with target.")),
        Tensor("target", t, role=FORWARD_INPUT,
               doc=Text("公式中的target,正向的目标值,求梯度的对象;logTarget为true时为对数形式。与self满足broadcast关系。",
                        "target in the formula, the forward target, the input differentiated; in log form when "
                        "logTarget is true; broadcasts with self.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum", 3: "batchmean"},
             doc=Text("正向损失的reduce方式:0不做操作,1取平均(除以broadcast后的元素个数),2求和,3 batchmean(除以broadcast后"
                      "shape的第0维);其他值按0处理。",
                      "how the forward loss was reduced: 0 none, 1 mean (divided by the broadcast element count), "
                      "2 sum, 3 batchmean (divided by the broadcast shape's dim 0); any other value means 0.")),
        Attr("logTarget", log_target, type="bool",
             doc=Text("target是否为对数形式。", "whether target is given in log form.")),
        Output("gradTarget", dtype_from="target", sum_to="target",
               doc=Text("对target的梯度,shape、数据类型与target一致(target被broadcast时在broadcast的轴上求和);数据类型须能由"
                        "self转换而来。",
                        "the gradient w.r.t. target, of target's shape and dtype (summed over the axes along which "
                        "target was broadcast); its dtype must also be castable from self's.")),
    ],
    wrt=t,
    forward=t * (log(t) - x),
    loss_reduction=Reduction("reduction", mean=N, batchmean=B0, unchecked=True),   # (the notes: not validated)
    backward=[
        Formula(g * factor * (log(t) - x + 1), when={"logTarget": False}),
        Formula(g * factor * exp(t) * (t - x + 1), when={"logTarget": True}, forward=exp(t) * (t - x)),
    ],
    dtypes={
        "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend950": ["FLOAT", "FLOAT16", "BFLOAT16"],
    },
    # the library's order (op_api/aclnn_kl_div_target_backward.cpp): gradTarget castable from self, each dtype in
    # the list, gradTarget's equal to target's; the ranks, broadcast(self, target), gradOutput into it, gradTarget
    # of target's shape; no private format on any of the four.  The library then returns for an empty self without
    # writing gradTarget, which keeps what it held when target is not empty (self (0, 1), target (1, 1)): no
    # EmptyReturns here, so that gradTarget gets the gradient of a loss without terms, zeros
    rules=[
        DtypeCastable("self", "gradTarget"),
        DtypeSupported("gradOutput", "self", "target", "gradTarget"),
        DtypeSame("target", "gradTarget"),
        MaxRank("gradOutput", "self", "target", "gradTarget", n=8),
        Broadcastable("self", "target"),
        BroadcastsInto("gradOutput", "self", "target"),
        ShapeSame("target", "gradTarget"),
        FormatNotPrivate("gradOutput", "self", "target", "gradTarget"),
    ],
    torch=TorchGrad(_kl, "self", "target", "reduction", "logTarget"),
    # the aclnn page's call example (= examples/test_aclnn_kl_div_target_backward.cpp), which prints no expected
    # values: these are PyTorch's float64 autograd of F.kl_div w.r.t. target on the same data, agreeing with an
    # mpmath derivative of t*(log t - x) at 30 digits (2(ln 2 - 1), 3(ln 3 - 2), 5(ln 5 - 4), 8(ln 8 - 7))
    example=Example(shape=(2, 2),
                    values={"gradOutput": [2, 3, 5, 8], "self": [2, 3, 5, 8], "target": [2, 3, 5, 8],
                            "reduction": 0, "logTarget": False},
                    expected=[-0.6137056, -2.7041631, -11.9528104, -39.3644677]),
    notes=[
        Text("logTarget为false时梯度为gradOutput·(log(target) - self + 1),为true时为gradOutput·exp(target)·(target - self "
             "+ 1),与文档一致;reduction为1时再除以self与target broadcast后的元素个数,为3(batchmean)时除以broadcast后shape的"
             "第0维(文档未写,按算子库的kernel与PyTorch的autograd)。",
             "The gradient is gradOutput·(log(target) - self + 1) for logTarget false and gradOutput·exp(target)·"
             "(target - self + 1) for true, as documented; for reduction 1 it is divided by the element count of the "
             "broadcast shape of self and target, for 3 (batchmean) by that shape's dim 0 (not in the docs: as the "
             "library's kernel and PyTorch's autograd compute it)."),
        Text("target被broadcast时(shape小于self与target broadcast后的shape),梯度在broadcast后的shape上计算,再在broadcast的轴上"
             "求和回到target的shape,与算子库(ReduceSum)和PyTorch的autograd一致。logTarget为false时target须大于0:target为0时"
             "算子库与PyTorch给`nan`,这里给-inf·gradOutput(导数的极限);target小于0时三者都给`nan`。",
             "Where target is broadcast (smaller than the broadcast shape of self and target), the gradient is "
             "computed on the broadcast shape and summed over the broadcast axes back to target's shape, as the "
             "library (ReduceSum) and PyTorch's autograd do. For logTarget false target must be positive: at "
             "target = 0 the library and PyTorch give `nan`, this gives -inf·gradOutput (the derivative's limit); "
             "below 0 all three give `nan`."),
        Text("reduction不做校验:0、1、2、3以外的值按0(none)处理,与算子库一致。gradTarget的数据类型须与target一致,且能由self"
             "转换而来。四个Tensor都不能是私有格式(NC1HWC0、FRACTAL_Z、FRACTAL_NZ等),与算子库一致(该检查在shape检查之后)。self"
             "为空Tensor而target不为空时(self broadcast后为空),算子库直接返回、不写gradTarget;这里写入0(没有任何项的损失的梯度)。文档只列出Atlas A2/A3系列产品(及Ascend 950):这里按文档"
             "列出A2/A3。",
             "reduction is not validated: values other than 0, 1, 2 and 3 mean 0 (none), as in the library. "
             "gradTarget's dtype must equal target's and be castable from self's. The four tensors may not have "
             "a private format (NC1HWC0, FRACTAL_Z, FRACTAL_NZ, ...), as in the library (checked after the shapes). "
             "Where self is empty and target is not (the broadcast shape is empty), the library returns without writing "
             "gradTarget; this writes zeros, the gradient of a loss without terms. The docs list the "
             "Atlas A2/A3 series (and Ascend 950): the A2/A3 series are listed here."),
    ],
    description=Text(
        "进行KL散度损失函数(aclnnKlDiv)的target反向计算:计算损失对target的梯度。",
        "Backward of the Kullback-Leibler divergence loss w.r.t. target: the gradient of the loss w.r.t. target."),
)
