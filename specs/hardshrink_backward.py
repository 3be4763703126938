"""aclnnHardshrinkBackward: the gradient of Hardshrink (x where |x| > lambd, 0 elsewhere)."""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)
lam = Symbol("lambd", real=True)
# the library computes a negative lambd as 0 (its docs: 当λ小于0时,按0计算)
bound = Max(lam, 0)

SPEC = Op(
    name="aclnnHardshrinkBackward",
    forward_name="Hardshrink",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,与self满足broadcast关系。", "gradOutput in the formula; broadcasts with self.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("公式中的x,Hardshrink的正向输入,与gradOutput满足broadcast关系。",
                        "x in the formula, the forward input of Hardshrink; broadcasts with gradOutput.")),
        Scalar("lambd", lam, doc=Text("公式中的λ,小于0时按0计算。", "λ in the formula; a negative λ is computed as 0.")),
        Output("gradInput", dtype_from=("gradOutput", "self"),
               doc=Text("对x的梯度,shape为gradOutput与self broadcast后的shape。",
                        "the gradient w.r.t. x; its shape is the broadcast of gradOutput's and self's.")),
    ],
    wrt=x,
    forward=Piecewise((x, Abs(x) > bound), (0, True)),
    # |x| == lambd gives 0 (the derivative from inside the dead zone); a nan x passes gradOutput, as the kernel's
    # test |x| <= lambd is false for it.
    backward=Piecewise((0, Abs(x) <= bound), (g, True)),
    # the kinks |x| == max(lambd, 0) give 0, the kernel's |x| <= lambd (for lambd <= 0, x = 0: the forward is
    # differentiable there, but the library's clamped lambd zeroes it)
    at={Eq(Abs(x), bound): 0},
    dtypes={
        "ascend910": ["FLOAT16", "FLOAT"],
        "ascend910b": ["BFLOAT16", "FLOAT16", "FLOAT"],
        "ascend910_93": ["BFLOAT16", "FLOAT16", "FLOAT"],
        "ascend950": ["BFLOAT16", "FLOAT16", "FLOAT"],
    },
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        MaxRank("gradOutput", "self", "gradInput", n=8),
        PromotedSupported("gradOutput", "self"),
        PromotedCastable("gradInput", "gradOutput", "self"),
        EmptyReturns("gradOutput", "self"),
        Broadcastable("gradOutput", "self"),
        ShapeIsBroadcast("gradInput", "gradOutput", "self"),
    ],
    example=Example(shape=(2, 2), values={"gradOutput": [0, 0, 1, 1], "self": [1, 2, 3, 4], "lambd": 2.0}),
    notes=[
        Text("|x|=λ时梯度为0;x为`nan`时梯度透传(与PyTorch的hardshrink_backward一致)。λ小于0时按0计算,此时只有x=0的梯度为0"
             "(PyTorch保留负的λ,不置零任何元素)。",
             "|x| = λ gives 0; a `nan` x passes gradOutput (as PyTorch's hardshrink_backward). A negative λ is "
             "computed as 0, so that only x = 0 gets 0 (PyTorch keeps the negative λ and zeroes nothing)."),
        Text("gradOutput与self的数据类型可以不同,按aclnn的类型推导规则推导后计算;gradInput的数据类型须可由推导后的类型转换得到。"
             "gradOutput或self为空Tensor时在broadcast检查之前即返回成功。",
             "gradOutput and self may differ in dtype: they are promoted by aclnn's rules and computed in the "
             "promoted dtype, which must cast to gradInput's. An empty gradOutput or self succeeds before the "
             "broadcast checks."),
    ],
    torch=Torch("hardshrink_backward", "gradOutput", "self", "lambd"),
    description=Text("激活函数Hardshrink的反向传播。", "Backward of the Hardshrink activation."),
)
