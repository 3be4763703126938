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
        Scalar("lambd", lam, dtype="FLOAT",
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
    dtypes={
        "ascend910": ["FLOAT16", "FLOAT"],
        "ascend910b": ["FLOAT16", "FLOAT"],
        "ascend910_93": ["FLOAT16", "FLOAT"],
    },
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        MaxRank("gradOutput", "self", "gradInput", n=8),
        Broadcastable("gradOutput", "self"),
        ShapeIsBroadcast("gradInput", "gradOutput", "self"),
        Requires("lambd", lam >= 0),
    ],
    # the aclnn page's call example and the results it prints (ascend.md §4)
    example=Example(shape=(4, 2),
                    values={"gradOutput": [0, 1, 2, 3, 4, 5, 6, 7], "self": [1, 1, 1, 2, 1, 2, 3, 3],
                            "lambd": 1.2},
                    expected=[0, 0, 0, 3, 0, 5, 6, 7]),
    description=Text(
        "Softshrink函数的反向传播。",
        "Backward of the Softshrink function."),
)
