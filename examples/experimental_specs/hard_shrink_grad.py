"""aclnnHardShrinkGrad (CANN experimental/activation/hard_shrink_grad): grad if |self| > lambd else 0."""
from codegen.spec import *

x, g, lam = symbols("self gradOutput lambda", real=True)

SPEC = Op(
    name="aclnnHardShrinkGrad",
    forward_name="HardShrink",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Scalar("lambd", lam, dtype="FLOAT", doc=Text("公式中的λ,须大于等于0。", "λ in the formula; must be at least 0.")),
        Output("output", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=Piecewise((x, Abs(x) > lam), (0, True)),
    backward=Piecewise((g, Abs(x) > lam), (0, True)),
    at={Eq(x, lam): 0, Eq(x, -lam): 0},   # |self| <= lambd gives 0, as PyTorch
    dtypes={"ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"]},
    rules=[
        DtypeSupported("gradOutput", "self", "output"),
        DtypeSame("gradOutput", "self", "output"),
        MaxRank("gradOutput", "self", "output", n=8),
        ShapeSame("gradOutput", "self", "output"),
        Requires("lambd", lam >= 0),
    ],
    torch=Torch("hardshrink_backward", "gradOutput", "self", "lambd"),
    description=Text("HardShrink的反向传播。", "Backward of HardShrink."),
)
