"""aclnnGeGluV3Backward: the gradient of GeGluV3(self) = a·GELU(b), or GELU(a)·b with activateLeft, a and b the
halves of self along dim, where the forward's GELU of the activated half comes in as the tensor `gelu`."""
from codegen.spec import *

a, b, g, G, dim, approximate = symbols("a b gradOutput gelu dim approximate", real=True)
left = Symbol("activateLeft")

# GELU(v) = v·Φ(v) (approximate = 0, erf) or its tanh approximation v·σ(u) = 0.5v(1 + tanh(u/2)) (approximate = 1),
# u = 2·√(2/π)·(v + 0.044715v³), as GeluBackwardV2 writes them; v is the activated half: b, or a with activateLeft
beta = sqrt(2 / pi)
kappa = Rational(44715, 1000000)


def gelu(v):
    return Piecewise((v * sigmoid(2 * beta * (v + kappa * v**3)), Eq(approximate, 1)),
                     (v * (1 + erf(v / sqrt(2))) / 2, True))


def gelu_prime_erf(v):
    """Φ(v) + vφ(v), Φ(v) for v < 0 as erfc(|v|/√2)/2, which does not cancel."""
    cdf = Piecewise((erfc(Abs(v) / sqrt(2)) / 2, v < 0), (1 - erfc(v / sqrt(2)) / 2, True))
    return cdf + v * exp(-v**2 / 2) / sqrt(2 * pi)


def gelu_prime_tanh(v):
    u = 2 * beta * (v + kappa * v**3)
    return sigmoid(u) + v * sigmoid(u) * sigmoid(-u) * 2 * beta * (1 + 3 * kappa * v**2)


SPEC = Op(
    name="aclnnGeGluV3Backward",
    forward_name="GeGluV3",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,GeGluV3输出的梯度。shape为self在dim维上减半后的shape,数据类型与self一致。",
                        "gradOutput in the formula, the gradient w.r.t. the GeGluV3 output: self's shape with dim "
                        "halved, self's dtype.")),
        Tensor("self", role=FORWARD_INPUT,
               doc=Text("GeGluV3的输入,沿dim均分为前半a与后半b,activateLeft为true时a经GELU激活,否则b。dim维的大小为偶数。",
                        "the GeGluV3 input, split along dim into a first half a and a second half b; GELU activates "
                        "a when activateLeft is true, else b. An even size along dim.")),
        Tensor("gelu", G, role=OPERAND, holds=Piecewise((gelu(a), left), (gelu(b), True)),
               doc=Text("公式中的gelu,正向输出的GELU(激活的一半)。shape与gradOutput一致,数据类型与self一致。",
                        "gelu in the formula, GELU of the activated half as the forward returned it: gradOutput's "
                        "shape, self's dtype.")),
        Attr("dim", dim, type="int64",
             doc=Text("self被均分的维度,取值范围[-n, n-1](n为self的维数)。",
                      "the dimension self is split along, in [-n, n-1] (n is self's rank).")),
        Attr("approximate", approximate, type="int64", values={0: "none (erf)", 1: "tanh"},
             doc=Text("GELU的形式:0为精确的erf形式,1为tanh近似。",
                      "the GELU form: 0 the exact erf form, 1 the tanh approximation.")),
        Attr("activateLeft", left, type="bool",
             doc=Text("为true时激活前半a(GeGluV3(self) = GELU(a)·b),为false时激活后半b(a·GELU(b))。",
                      "true: GELU activates the first half a (GeGluV3(self) = GELU(a)·b); false: the second half b "
                      "(a·GELU(b)).")),
        Output("gradInput", dtype_from="self",
               doc=Text("对self的梯度,shape与self一致:沿dim依次为对a与对b的梯度。数据类型与self一致。",
                        "the gradient w.r.t. self, of self's shape: the gradients w.r.t. a and w.r.t. b, one "
                        "after the other along dim; self's dtype.")),
    ],
    split=Split("self", dim="dim"),
    wrt=(a, b),
    forward=Piecewise((G * b, left), (a * G, True)),
    backward=[Formula(g * G, wrt=a, when={"activateLeft": False}),
              Formula(g * b * gelu_prime_erf(a), wrt=a, when={"activateLeft": True, "approximate": 0}),
              Formula(g * b * gelu_prime_tanh(a), wrt=a, when={"activateLeft": True, "approximate": 1}),
              Formula(g * G, wrt=b, when={"activateLeft": True}),
              Formula(g * a * gelu_prime_erf(b), wrt=b, when={"activateLeft": False, "approximate": 0}),
              Formula(g * a * gelu_prime_tanh(b), wrt=b, when={"activateLeft": False, "approximate": 1})],
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
    torch=TorchGrad(lambda torch, x, d, approx, left: (lambda a, b, f: f(a) * b if left else a * f(b))(
        *x.chunk(2, dim=d), lambda v: torch.nn.functional.gelu(v, approximate=("none", "tanh")[approx])),
        "self", "dim", "approximate", "activateLeft"),
    # the aclnn page's call example (activateLeft false: GeGluBackward's), whose gelu is not GELU(b) (that of b =
    # [-1, 1] is [-0.1588, 0.8412]): the library multiplies by the tensor it is given.  The page prints no result:
    # the first half is gelu·gradOutput = [4, 1], the second autograd of a·GELU_tanh(b) (PyTorch)
    example=Example(shape=(2, 2), shapes={"gradOutput": (2, 1), "gelu": (2, 1)},
                    values={"gradOutput": [-2, -1], "self": [-2, -1, 0, 1], "gelu": [-2, -1], "dim": -1,
                            "approximate": 1, "activateLeft": False},
                    expected=[4.0, -0.3318564, 1.0, -0.0]),
    notes=[
        Text("self沿dim均分为a(前半)与b(后半)。activateLeft为false时GeGluV3(self) = a·GELU(b),与aclnnGeGluBackward相同;为true时"
             "GeGluV3(self) = GELU(a)·b。正向同时输出gelu = GELU(激活的一半)。未激活一半的梯度为gradOutput·gelu,直接使用传入的gelu"
             "(与算子库的kernel一致,不重新计算GELU);激活一半的梯度为gradOutput·(另一半)·GELU',GELU'由该半重新计算:approximate = 0"
             "为精确形式Φ + xφ,1为tanh近似的导数。文档未给出反向公式,这里按算子库的kernel。",
             "self is split along dim into a (the first half) and b (the second). With activateLeft false, "
             "GeGluV3(self) = a·GELU(b), as aclnnGeGluBackward; with true, GeGluV3(self) = GELU(a)·b. The forward "
             "also returns gelu = GELU of the activated half. The gradient w.r.t. the half GELU does not activate is "
             "gradOutput·gelu, from the gelu tensor as given (as the library's kernel computes it, without "
             "recomputing GELU); that w.r.t. the activated half is gradOutput·(the other half)·GELU', GELU' "
             "recomputed from that half: the exact Φ + xφ for approximate = 0, the derivative of the tanh "
             "approximation for 1. The docs give no backward formula: this is the library's kernel."),
        Text("approximate = 0时算子库的kernel用截断到[-3.92, 3.92]的有理函数近似erf,这里计算精确的erf形式。Atlas 推理系列产品上"
             "算子库只支持approximate = 1(approximate = 0在tiling中失败,561002),这里两者都支持。",
             "For approximate = 0 the library's kernel approximates erf by a rational function clamped to [-3.92, "
             "3.92]; here the exact erf form is computed. On the Atlas inference series the library supports only "
             "approximate = 1 (0 fails in its tiling, 561002); here both are supported."),
        Text("算子库的参数检查不限制维数(文档写1-8维);这里要求self至少1维。activateLeft不做检查。",
             "The library's checks set no maximum rank (the docs say 1-8 dimensions); here self needs at least "
             "one dimension. activateLeft is not checked."),
    ],
    description=Text(
        "GeGluV3的反向传播:self沿dim均分为a、b两半,计算GeGluV3(self)(a·GELU(b),activateLeft为true时GELU(a)·b)对self的梯度,"
        "GELU由正向输出的gelu给出。",
        "Backward of GeGluV3: self is split along dim into halves a and b, and the gradient of GeGluV3(self) "
        "(a·GELU(b), or GELU(a)·b with activateLeft) w.r.t. self is computed, GELU given as the forward's output "
        "gelu."),
)
