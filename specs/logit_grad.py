"""aclnnLogitGrad: the gradient of logit(x) = log(z / (1 - z)), z = x clamped to [eps, 1 - eps] (eps >= 0)."""
from codegen.spec import *

x, dy = symbols("x dy", real=True)
eps = Symbol("eps", real=True)
nan = Float("nan")

# The library's kernel: a window [lo, 1 - lo] with lo = eps for eps >= 0 and 0 otherwise, and the value outside
# it: 0 for eps >= 0 (the derivative of the clamp), nan for eps < 0 (logit is not real there).  (A nan eps makes
# lo nan and the window empty: everything nan, as the docs say.)
lo = Max(eps, 0)
hi = 1 - lo
outside = Piecewise((0, eps >= 0), (nan, True))
backward = Piecewise((dy / (x * (1 - x)), (x >= lo) & (x <= hi)), (outside, True))

SPEC = Op(
    name="aclnnLogitGrad",
    forward_name="logit",
    params=[
        Tensor("x", x, role=FORWARD_INPUT, doc=Text("公式中的x,logit的正向输入。", "x in the formula, the forward input of logit.")),
        Tensor("dy", dy, role=GRAD, doc=Text("公式中的dy,上一层传回的梯度。", "dy in the formula, the incoming gradient.")),
        Attr("eps", eps, type="double",
             doc=Text("公式中的eps,x的截断值;小于0时不截断(建议取-1)。",
                      "eps in the formula, where x is clamped; below 0 nothing is clamped (-1 is suggested).")),
        Output("out", c_type="const aclTensor *",
               doc=Text("公式中的dx,对x的梯度,数据类型、shape与x一致。",
                        "dx in the formula, the gradient w.r.t. x; x's dtype and shape.")),
    ],
    wrt=x,
    # logit of x clamped to [eps, 1 - eps] for eps >= 0 (the constants written so that no branch is 1/0 for any
    # eps); for eps < 0 unclamped, and not real outside [0, 1]
    forward=Piecewise((nan, (eps < 0) & ((x < 0) | (x > 1))),
                      (log(eps) - log(1 - eps), (eps >= 0) & (x < eps)),
                      (log(1 - eps) - log(eps), (eps >= 0) & (x > 1 - eps)),
                      (log(x / (1 - x)), True)),
    backward=backward,
    # the ends of the window (and x = 0, 1, where logit itself ends) are the kernel's closed window: the formula
    # there (infinite at x = 0 or 1 inside the window), and the value outside it just beyond
    at={Eq(x, lo): backward, Eq(x, hi): backward, Eq(x, 0): backward, Eq(x, 1): backward},
    dtypes={
        "ascend910b": ["BFLOAT16", "FLOAT16", "FLOAT"],
        "ascend910_93": ["BFLOAT16", "FLOAT16", "FLOAT"],
        "ascend950": ["BFLOAT16", "FLOAT16", "FLOAT"],
    },
    rules=[
        DtypeSupported("x", "dy", "out"),
        DtypeSame("x", "dy", "out"),
        ShapeSame("x", "dy", "out"),
    ],
    example=Example(shape=(1, 4), values={"x": [0.1, 0.2, 0.3, 0.4], "dy": [1, 2, 3, 4], "eps": -1.0}),
    notes=[
        Text("按算子kernel:eps大于等于0时窗口为[eps, 1-eps],窗口外为0(eps大于0.5时窗口为空,全为0;文档称eps大于1时为`nan`、"
             "eps=1时为无穷大,与kernel不符);eps小于0时窗口为[0, 1],窗口外为`nan`。x为`nan`时eps大于等于0得0,"
             "否则得`nan`;x=0或1在窗口内时得无穷大。eps为`nan`时全部为`nan`,如文档所写(CANN的kernel按eps小于0处理)。",
             "As the library's kernel computes it: for eps >= 0 the window is [eps, 1 - eps] and outside it the "
             "gradient is 0 (for eps > 0.5 the window is empty and everything is 0; the docs' `nan` for eps > 1 "
             "and infinity for eps = 1 are not what the kernel gives); for eps < 0 the window is "
             "[0, 1] and outside it the gradient is `nan`. A `nan` x gives 0 for eps >= 0 and `nan` otherwise; "
             "x = 0 or 1 inside the window gives infinity. A `nan` eps gives `nan` everywhere, as the docs say "
             "(CANN's kernel reads it as eps < 0)."),
        Text("eps在kernel中按FLOAT使用(CANN的OpDef把它声明为Float属性)。CANN的接口不检查x、dy、out的shape;这里要求三者一致,"
             "如文档所写。", "eps is used in FLOAT by the kernels (CANN's OpDef declares it a Float attribute). CANN's "
             "interface does not check the shapes of x, dy and out; here they must be equal, as the docs say."),
    ],
    torch=Torch("logit_backward", "dy", "x", "eps"),
    description=Text("logit函数的反向传播。", "Backward of the logit function."),
)
