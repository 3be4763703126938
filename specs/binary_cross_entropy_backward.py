"""aclnnBinaryCrossEntropyBackward: the gradient of the binary cross-entropy of probabilities w.r.t. self."""
from codegen.spec import *

x, t, g, w = symbols("self target gradOutput weight", real=True)
reduction = Symbol("reduction", integer=True)
N = numel("self")
# the library's kernel and PyTorch divide by max(x(1 - x), 1e-12): finite where x is 0 or 1 or outside [0, 1]
# (written as the two pieces of that max, the forward's own)
FLOOR = Rational(1, 10**12)
LOW, HIGH = (Rational(1, 2) - s * sqrt(Rational(1, 4) - FLOOR) for s in (1, -1))   # x(1 - x) = 1e-12


def loss(u):
    return -w * (t * log(u) + (1 - t) * log(1 - u))


def quadratic(u):
    return w * (u - t) ** 2 / (2 * FLOOR)


SPEC = Op(
    name="aclnnBinaryCrossEntropyBackward",
    forward_name="BinaryCrossEntropy",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,损失的梯度,shape可以broadcast到self的shape(reduction为1、2时通常只有一个元素)。",
                        "gradOutput in the formula, the gradient of the loss; broadcasts to self's shape (usually "
                        "one element for reduction 1 and 2).")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("公式中的self,正向的输入概率x,取值范围通常为(0, 1)。",
                        "self in the formula, the forward input probabilities x, usually in (0, 1).")),
        Tensor("target", t, role=OPERAND,
               doc=Text("公式中的target,样本的标签值,取值范围为0~1;shape可以broadcast到self的shape。",
                        "target in the formula, the labels, in 0..1; broadcasts to self's shape.")),
        Tensor("weightOptional", w, role=OPERAND, optional=True, default=1,
               doc=Text("公式中的weight,每个元素的权重,shape可以broadcast到self的shape;为空时取全1。",
                        "weight in the formula, a weight per element; broadcasts to self's shape; null means all "
                        "ones.")),
        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"},
             doc=Text("正向损失的reduce方式:0不做操作,1取平均(除以self的元素个数),2求和。",
                      "how the forward loss was reduced: 0 none, 1 mean (divided by self's element count), "
                      "2 sum.")),
        Output("out", dtype_from=("self", "target", "gradOutput", "weightOptional"),
               doc=Text("对self的梯度,shape与self一致;数据类型须可由输入推导后的数据类型转换得到。",
                        "the gradient w.r.t. self, of self's shape; its dtype must be castable from the dtype the "
                        "inputs promote to.")),
    ],
    wrt=x,
    # the loss -w(t·log x + (1 - t)·log(1 - x)); where x(1 - x) < 1e-12 (x at or beyond 0 and 1) the kernels'
    # gradient w(x - t)/1e-12 is the derivative of the quadratic continuation written in that piece, shifted on
    # each side to meet the loss where x(1 - x) = 1e-12 (a continuous forward: no jump at LOW or HIGH)
    forward=Piecewise((quadratic(x) + loss(LOW) - quadratic(LOW), (x * (1 - x) < FLOOR) & (x < Rational(1, 2))),
                      (quadratic(x) + loss(HIGH) - quadratic(HIGH), x * (1 - x) < FLOOR),
                      (loss(x), True)),
    loss_reduction=Reduction("reduction", mean=N),
    backward=Piecewise((g * w * (x - t) / FLOOR, x * (1 - x) < FLOOR), (g * w * (x - t) / (x * (1 - x)), True))
    * Piecewise((1 / N, Eq(reduction, 1)), (1, True)),
    dtypes={
        "ascend910": ["FLOAT", "FLOAT16"],
        "ascend310p": ["FLOAT", "FLOAT16"],
        "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend950": ["FLOAT", "FLOAT16", "BFLOAT16"],
    },
    # the library's order (op_api/aclnn_binary_cross_entropy_backward.cpp): ranks, each dtype in the list, the
    # formats of self, target and weight, (the shapes, skipped for an empty self), the reduction, the cast from the
    # promoted dtype, then the empty return; every one of them is 161002, so the shapes are checked last here,
    # after the empty return, with the same codes
    rules=[
        MaxRank("gradOutput", "self", "target", "weightOptional", "out", n=8),
        DtypeSupported("self", "gradOutput", "target", "out", "weightOptional"),
        FormatSame("self", "target", "weightOptional"),
        OneOf("reduction", [0, 1, 2]),
        PromotedCastable("out", "self", "target", "gradOutput", "weightOptional"),
        EmptyReturns("self"),
        ShapeSame("self", "out"),
        BroadcastTo("target", "weightOptional", "gradOutput", "self"),
    ],
    torch=Torch("binary_cross_entropy_backward", "gradOutput", "self", "target", "weightOptional", "reduction"),
    # the aclnn page's call example; the page prints no result: this one is aten::binary_cross_entropy_backward's
    # on the same data, 0.1·(0.3 - 0.5)/(0.3·0.7)
    example=Example(shape=(2, 2),
                    values={"gradOutput": 0.1, "self": 0.3, "target": 0.5, "weightOptional": 1, "reduction": 0},
                    expected=[-0.0952381] * 4),
    notes=[
        Text("文档的公式未写出分母的下限与reduction。按算子库的kernel与PyTorch:梯度为gradOutput·weight·(self - target)/"
             "max(self·(1 - self), 1e-12),reduction为1(mean)时再除以self的元素个数。self为0、1或在[0, 1]之外时结果有限"
             "(如self=0、target=0.5时为-5e11·gradOutput);正向在该处按其导数为此值的二次延拓证明(平移到在self·(1 - self)=1e-12处与损失相接,正向连续)。",
             "The docs' formula leaves out the denominator's floor and the reduction. As the library's kernel and "
             "PyTorch compute it: the gradient is gradOutput·weight·(self - target)/max(self·(1 - self), 1e-12), "
             "divided by self's element count for reduction 1 (mean). At self = 0 or 1 or outside [0, 1] the result "
             "is finite (-5e11·gradOutput at self = 0, target = 0.5); the proof reads the forward there as the "
             "quadratic continuation whose derivative that is, shifted to meet the loss where self·(1 - self) = 1e-12 (a "
             "continuous forward)."),
        Text("算子库在self为空Tensor时跳过shape检查(任意shape的out、target都成功);这里同样在self为空时直接返回成功,"
             "但reduction与数据类型的检查先于它进行,与算子库相同。",
             "The library skips the shape checks when self is empty (any shape of out and target succeeds); so "
             "does this, after the reduction and dtype checks, as in the library."),
    ],
    description=Text(
        "二元交叉熵损失函数的反向传播:计算损失-weight·(target·log(self) + (1 - target)·log(1 - self))对self的梯度。",
        "Backward of the binary cross-entropy loss: the gradient of -weight·(target·log(self) + (1 - target)·"
        "log(1 - self)), reduced, w.r.t. self."),
)
