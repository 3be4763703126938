"""aclnnSoftshrinkBackward: the gradient of Softshrink (x - λ above λ, x + λ below -λ, 0 between)."""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)
lam = Symbol("lambda", real=True)

SPEC = Op(
    name="aclnnSoftshrinkBackward",
    forward_name="Softshrink",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,与self满足broadcast规则。",
                        "gradOutput in the formula; broadcasts with self.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("公式中的x,Softshrink的正向输入,与gradOutput满足broadcast规则。",
                        "x in the formula, the forward input; broadcasts with gradOutput.")),
        Scalar("lambda", lam, dtype="FLOAT",
               doc=Text("公式中的λ,须大于等于0。", "λ in the formula; must be at least 0.")),
        Output("gradInput",
               doc=Text("公式中的gradInput,shape为gradOutput与self broadcast后的shape。",
                        "gradInput in the formula; its shape is the broadcast of gradOutput's and self's.")),
    ],
    wrt=x,
    forward=Piecewise((x - lam, x > lam), (x + lam, x < -lam), (0, True)),
    backward=Piecewise((g, x > lam), (g, x < -lam), (0, True)),
    # the forward has kinks at |x| == λ: aclnn gives 0 there (the derivative from inside the dead zone)
    at={Eq(Abs(x), lam): 0},
    # the current CANN library (op_api/aclnn_softshrink_backward.cpp): BFLOAT16 on A2/A3, and the inference series
    dtypes={
        "ascend910": ["FLOAT16", "FLOAT"],
        "ascend310p": ["FLOAT16", "FLOAT"],
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend950": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    # no DtypeSame: inputs of different dtypes are computed in FLOAT, as CANN casts them
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        MaxRank("gradOutput", "self", "gradInput", n=8),
        Broadcastable("gradOutput", "self"),
        ShapeIsBroadcast("gradInput", "gradOutput", "self"),
        Requires("lambda", lam >= 0),
    ],
    notes=[
        Text("与旧版文档不同(以当前CANN算子库为准):支持Atlas 推理系列产品;Atlas A2/A3支持BFLOAT16;gradOutput与self"
             "的数据类型可以不同(均按FLOAT计算),gradInput可为当前产品支持的任一数据类型,结果舍入一次到该类型。",
             "Unlike the older aclnn page, as the current CANN library: the Atlas inference series is supported; "
             "BFLOAT16 on Atlas A2/A3; gradOutput and self may have different dtypes (both computed in FLOAT), "
             "and gradInput may have any dtype the product supports, the result rounded once to it."),
        Text("与CANN不同:gradInput的数据类型与输入提升后的类型不同时,CANN的一段接口内部出错(ViewCopy不做类型转换),"
             "此处则转换;lambda为非数(not-a-number)时拒绝(161002),CANN的“lambda < 0”判断对非数不成立。",
             "Unlike CANN: where gradInput's dtype differs from the inputs' promoted dtype CANN's phase 1 fails "
             "inside (its ViewCopy does not cast), here the result is cast; a not-a-number lambda is refused (161002), "
             "where CANN's `lambda < 0` test lets it through."),
    ],
    # the aclnn page's call example and the results it prints (ascend.md §4)
    example=Example(shape=(4, 2),
                    values={"gradOutput": [0, 1, 2, 3, 4, 5, 6, 7], "self": [1, 1, 1, 2, 1, 2, 3, 3],
                            "lambda": 1.2},
                    expected=[0, 0, 0, 3, 0, 5, 6, 7]),
    description=Text(
        "Softshrink函数的反向传播。",
        "Backward of the Softshrink function."),
)
