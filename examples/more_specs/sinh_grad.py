"""aclnnSinhGrad: the gradient of sinh(x), dx = dy * cosh(x) (from the input x).

cosh is in the vocabulary: written (e^x + e^-x)/2 the kernels gave inf for 88.72 < |x| <= 89.41, where e^|x| leaves
FLOAT while cosh(x) does not (SymPy folds the overflow-free e^(|x| - ln 2) back into e^|x|/2); every backend's
cosh is finite there (codegen.expansions.cosh_form, NumPy's float64 cosh).
"""
from codegen.spec import *

x, dy = symbols("x dy", real=True)

FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnSinhGrad",
    forward_name="sinh",
    params=[
        Tensor("x", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Tensor("dy", dy, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Output("dx", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=sinh(x),
    backward=dy * cosh(x),
    dtypes={"ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("x", "dy", "dx"),
        DtypeSame("x", "dy", "dx"),
        MaxRank("x", "dy", "dx", n=8),
        ShapeSame("x", "dy", "dx"),
    ],
    torch=TorchGrad(lambda torch, x: torch.sinh(x), "x"),
    description=Text("sinh的反向传播。", "Backward of sinh."),
)
