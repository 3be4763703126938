"""aclnnGeGluBackward: the gradient of GeGlu(self) = a·GELU(b), a and b the halves of self along dim, where the
forward's GELU(b) comes in as the tensor `gelu`."""
from codegen.spec import *

a, b, g, G, dim, approximate = symbols("a b gradOutput gelu dim approximate", real=True)

# GELU(b) = b·Φ(b) (approximate = 0, erf) or its tanh approximation b·σ(u) = 0.5b(1 + tanh(u/2)) (approximate = 1),
# u = 2·√(2/π)·(b + 0.044715b³), as GeluBackwardV2 writes them
beta = sqrt(2 / pi)
kappa = Rational(44715, 1000000)
u = 2 * beta * (b + kappa * b**3)
du = 2 * beta * (1 + 3 * kappa * b**2)
# Φ(b) for b < 0 as erfc(|b|/√2)/2, which does not cancel
cdf = Piecewise((erfc(Abs(b) / sqrt(2)) / 2, b < 0), (1 - erfc(b / sqrt(2)) / 2, True))
GELU = Piecewise((b * sigmoid(u), Eq(approximate, 1)), (b * (1 + erf(b / sqrt(2))) / 2, True))

SPEC = Op(
    name="aclnnGeGluBackward",
    forward_name="GeGlu",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,GeGlu输出的梯度。shape为self在dim维上减半后的shape,数据类型与self一致。",
                        "gradOutput in the formula, the gradient w.r.t. the GeGlu output: self's shape with dim "
                        "halved, self's dtype.")),
        Tensor("self", role=FORWARD_INPUT,
               doc=Text("GeGlu的输入,沿dim均分为前半a(线性的一半)与后半b(经GELU激活的一半)。dim维的大小为偶数。",
                        "the GeGlu input, split along dim into a first half a (the linear one) and a second half b "
                        "(the one GELU activates); an even size along dim.")),
        Tensor("gelu", G, role=OPERAND, holds=GELU,
               doc=Text("公式中的gelu,正向输出的GELU(b)。shape与gradOutput一致,数据类型与self一致。",
                        "gelu in the formula, GELU(b) as the forward returned it: gradOutput's shape, self's "
                        "dtype.")),
        Attr("dim", dim, type="int64",
             doc=Text("self被均分的维度,取值范围[-n, n-1](n为self的维数)。",
                      "the dimension self is split along, in [-n, n-1] (n is self's rank).")),
        Attr("approximate", approximate, type="int64", values={0: "none (erf)", 1: "tanh"},
             doc=Text("GELU的形式:0为精确的erf形式,1为tanh近似。",
                      "the GELU form: 0 the exact erf form, 1 the tanh approximation.")),
        Output("gradInput", dtype_from="self",
               doc=Text("对self的梯度,shape与self一致:沿dim依次为对a与对b的梯度。数据类型与self一致。",
                        "the gradient w.r.t. self, of self's shape: the gradients w.r.t. a and w.r.t. b, one "
                        "after the other along dim; self's dtype.")),
    ],
    split=Split("self", dim="dim"),
    wrt=(a, b),
    forward=a * G,
    backward=[Formula(g * G, wrt=a),
              Formula(g * a * (cdf + b * exp(-b**2 / 2) / sqrt(2 * pi)), wrt=b, when={"approximate": 0}),
              Formula(g * a * (sigmoid(u) + b * sigmoid(u) * sigmoid(-u) * du), wrt=b, when={"approximate": 1})],
    dtypes={
        "ascend310p": ["FLOAT", "FLOAT16"],
        "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend950": ["FLOAT", "FLOAT16", "BFLOAT16"],
    },
    # the library's order (op_api/aclnn_geglu_backward.cpp): gradOutput's dtype in the list, the others equal to
    # it; gelu's shape gradOutput's, gradInput's self's; dim's range; gradOutput self's with dim halved; approximate
    rules=[
        DtypeSupported("gradOutput"),
        DtypeSame("gradOutput", "self", "gelu", "gradInput"),
        ShapeSame("gradOutput", "gelu"),
        ShapeSame("self", "gradInput"),
        MinRank("self", n=1),
        DimInRange("dim", "self"),
        ShapeHalved("gradOutput", "self", "dim"),
        DimEven("self", "dim"),
        OneOf("approximate", [0, 1]),
    ],
    torch=TorchGrad(lambda torch, x, d, approx: (lambda h: h[0] * torch.nn.functional.gelu(
        h[1], approximate=("none", "tanh")[approx]))(x.chunk(2, dim=d)), "self", "dim", "approximate"),
    # the aclnn page's call example, whose gelu is not GELU(b) (that of b = [-1, 1] is [-0.1588, 0.8412]): the
    # library multiplies by the tensor it is given.  The page prints no result: the first half is gelu·gradOutput
    # = [4, 1], the second autograd of a·GELU_tanh(b) (PyTorch)
    example=Example(shape=(2, 2), shapes={"gradOutput": (2, 1), "gelu": (2, 1)},
                    values={"gradOutput": [-2, -1], "self": [-2, -1, 0, 1], "gelu": [-2, -1], "dim": -1,
                            "approximate": 1},
                    expected=[4.0, -0.3318564, 1.0, -0.0]),
    notes=[
        Text("self沿dim均分为a(前半)与b(后半),GeGlu(self) = a·GELU(b),正向同时输出gelu = GELU(b)。gradInput沿dim的前半为"
             "gradOutput·gelu,直接使用传入的gelu(与算子库的kernel一致,不重新计算GELU(b));后半为gradOutput·a·GELU'(b),"
             "GELU'由b重新计算:approximate = 0为精确形式Φ(b) + bφ(b),1为tanh近似的导数。gelu不等于GELU(b)时(如文档的调用示例),"
             "前半仍是gradOutput·gelu。",
             "self is split along dim into a (the first half) and b (the second), GeGlu(self) = a·GELU(b), and the "
             "forward also returns gelu = GELU(b). The first half of gradInput along dim is gradOutput·gelu, from "
             "the gelu tensor as given (as the library's kernel computes it, without recomputing GELU(b)); the "
             "second is gradOutput·a·GELU'(b), GELU' recomputed from b: the exact Φ(b) + bφ(b) for approximate = "
             "0, the derivative of the tanh approximation for 1. Where gelu is not GELU(b) (as in the docs' call "
             "example), the first half is still gradOutput·gelu."),
        Text("approximate = 0时算子库的kernel用截断到[-3.92, 3.92]的有理函数近似erf,这里计算精确的erf形式。Atlas 推理系列产品上"
             "算子库只支持approximate = 1(approximate = 0在tiling中失败,561002),这里两者都支持。",
             "For approximate = 0 the library's kernel approximates erf by a rational function clamped to [-3.92, "
             "3.92]; here the exact erf form is computed. On the Atlas inference series the library supports only "
             "approximate = 1 (0 fails in its tiling, 561002); here both are supported."),
        Text("算子库的参数检查不限制维数(文档写1-8维);这里要求self至少1维。",
             "The library's checks set no maximum rank (the docs say 1-8 dimensions); here self needs at least "
             "one dimension."),
    ],
    description=Text(
        "GeGlu的反向传播:self沿dim均分为a、b两半,计算GeGlu(self) = a·GELU(b)对self的梯度,GELU(b)由正向输出的gelu给出。",
        "Backward of GeGlu: self is split along dim into halves a and b, and the gradient of GeGlu(self) = "
        "a·GELU(b) w.r.t. self is computed, GELU(b) given as the forward's output gelu."),
)
