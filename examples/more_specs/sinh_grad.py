"""aclnnSinhGrad: the gradient of sinh(x), dx = dy * cosh(x) = dy * (e^x + e^-x)/2 (from the input x).

Known gap: for 88.72 < |x| <= 89.41 e^|x| leaves FLOAT while cosh(x) does not, and every kernel gives inf where
PyTorch's coshf is finite (`opgen accuracy` lists these as overflows).  The form that avoids it, e^(|x| - ln 2),
cannot be written: SymPy turns exp(a - log(2)) into exp(a)/2 before the lowering sees it, and cosh is not in
the vocabulary.
"""
from codegen.spec import *
from sympy import sinh   # the forward only: cosh is not in the vocabulary, the backward writes it with exp

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
    backward=dy * (exp(x) + exp(-x)) / 2,
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
