"""aclnnClippedSwigluGrad's mathematics (proof only: the backends cannot run the op yet, see docs/spec-language-losses.md,
"Not yet in the language"): the gradient of y = x0'·σ(α·x0')·(x1' + bias), x0' = min(x0, l), x1' = clamp(x1, -l, l),
x0 and x1 the halves of x (here: the front and back halves along dim, the interleaved=false layout without
groupIndex; the library's interleaved layout and groupIndex's row mask are what the backends lack)."""
from codegen.spec import *

a, b, g, dim, alpha, lim, bias = symbols("a b gradY dim alpha limit bias", real=True)

x0c = Min(a, lim)                       # x0' = min(x0, l)
x1c = Max(Min(b, lim), -lim)            # x1' = clamp(x1, -l, l)
s = sigmoid(alpha * x0c)

SPEC = Op(
    name="aclnnClippedSwigluGrad",
    forward_name="ClippedSwiglu",
    params=[
        Tensor("gradY", g, role=GRAD, doc=Text("公式中的gradY。", "gradY in the formula.")),
        Tensor("x", role=FORWARD_INPUT, doc=Text("ClippedSwiglu的输入。", "the ClippedSwiglu input.")),
        Attr("dim", dim, type="int64", doc=Text("切分的维度。", "the dimension x is split along.")),
        Attr("alpha", alpha, type="double", doc=Text("公式中的α。", "α in the formula.")),
        Attr("limit", lim, type="double", doc=Text("公式中的l,大于0。", "l in the formula, above 0.")),
        Attr("bias", bias, type="double", doc=Text("公式中的bias。", "bias in the formula.")),
        Output("gradXOut", c_type="const aclTensor *", dtype_from="x",
               doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    split=Split("x", dim="dim"),
    wrt=(a, b),
    forward=x0c * s * (x1c + bias),
    # the documented masks are inclusive (the kernel's CompareScalar LE/GE): at x0 = l and x1 = ±l the gradient
    # is the inner side's, as PyTorch's clamp backward gives
    backward=[Formula(g * (x1c + bias) * s * (1 + alpha * x0c * (1 - s)) * Piecewise((1, a <= lim), (0, True)),
                      wrt=a, at={Eq(a, lim): g * (x1c + bias) * s * (1 + alpha * x0c * (1 - s))}),
              Formula(g * x0c * s * Piecewise((1, (b >= -lim) & (b <= lim)), (0, True)), wrt=b,
                      at={Eq(b, lim): g * x0c * s, Eq(b, -lim): g * x0c * s})],
    dtypes={"ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"], "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"]},
    rules=[
        DtypeSupported("x"),
        DtypeSame("x", "gradY", "gradXOut"),
        Requires("limit", lim > 0),
        DimInRange("dim", "x"),
        DimEven("x", "dim"),
        ShapeHalved("gradY", "x", "dim"),
        ShapeSame("x", "gradXOut"),
    ],
    description=Text("ClippedSwiglu的反向传播。", "Backward of ClippedSwiglu."),
)
