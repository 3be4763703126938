"""aclnnAsinhGrad: the gradient of asinh(x) from its output y, dx = dy / cosh(y) (CANN's AsinhGrad)."""
from codegen.spec import *
from sympy import asinh   # the forward only: the backward is in the vocabulary

x, y, dy = symbols("x y dy", real=True)

FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnAsinhGrad",
    forward_name="asinh",
    params=[
        Tensor("y", y, role=FORWARD_OUTPUT, doc=Text("正向输出y = asinh(x)。", "y = asinh(x), the forward output.")),
        Tensor("dy", dy, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Output("z", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=asinh(x),
    # dy / cosh(y); the kernels compute 1/(e^y + e^-y) as e^-|y|/(1 + e^-2|y|), which does not overflow where
    # the result is still a (subnormal) number, |y| > 88.7
    backward=Formula(2 * dy / (exp(y) + exp(-y)),
                     rewrites=(Rewrite(lambda u: 1 / (exp(u) + exp(-u)),
                                       lambda u: exp(-Abs(u)) / (1 + exp(-2 * Abs(u)))),)),
    dtypes={"ascend910": ["FLOAT16", "FLOAT"], "ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("y", "dy", "z"),
        DtypeSame("y", "dy", "z"),
        MaxRank("y", "dy", "z", n=8),
        ShapeSame("y", "dy", "z"),
    ],
    description=Text("asinh的反向传播,由正向输出计算。", "Backward of asinh, from the forward's output."),
)
