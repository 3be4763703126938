"""aclnnSituGluGrad: the gradient of SituGlu(x) = situ(gate)·up', gate and up the halves of x along dim (gate the
first with activateLeft, else the second), situ(v) = β·tanh(v/β)·σ(v), up' = λ·tanh(up/λ) for λ > 0, else up."""
from codegen.spec import *

a, b, g, dim, beta, lam = symbols("a b gradY dim beta linearBeta", real=True)
left = Symbol("activateLeft")


def situ(v):
    return beta * tanh(v / beta) * sigmoid(v)


# what the kernels compute instead of the documented form (codegen.spec.rewrites; each identity is proven):
# 1 - tanh²(u) cancels in FLOAT where tanh(u) is near ±1 (1.6% off at u = 3.3, 0 from u = 9 on where the value
# is 6e-8); 4σ(2u)σ(-2u) is the same number without a difference.  1 - σ(v) likewise where σ(v) is near 1.
STABLE = (Rewrite(lambda u: 1 - tanh(u)**2, lambda u: 4 * sigmoid(2 * u) * sigmoid(-2 * u)),
          Rewrite(lambda v: 1 - sigmoid(v), lambda v: sigmoid(-v)))


def situ_prime(v):
    """d/dv β·tanh(v/β)·σ(v) as the docs and the library's kernel write it: σ(v)·((1 - t²) + β·t·(1 - σ(v)))."""
    t = tanh(v / beta)
    return sigmoid(v) * ((1 - t**2) + beta * t * (1 - sigmoid(v)))


def up(v):
    return Piecewise((lam * tanh(v / lam), lam > 0), (v, True))


def up_prime(v):
    return Piecewise((1 - tanh(v / lam)**2, lam > 0), (1, True))


NONZERO_BETA = (Ne(beta, 0),)   # the forward divides by β

SPEC = Op(
    name="aclnnSituGluGrad",
    forward_name="SituGlu",
    params=[
        Tensor("gradY", g, role=GRAD,
               doc=Text("公式中的gradY,SituGlu输出的梯度。shape为x在dim维上减半后的shape,数据类型与x一致。",
                        "gradY in the formula, the gradient w.r.t. the SituGlu output: x's shape with dim halved, "
                        "x's dtype.")),
        Tensor("x", role=FORWARD_INPUT,
               doc=Text("SituGlu的输入,沿dim均分为前半a与后半b:activateLeft为true时a为gate、b为up,否则相反。dim维的大小为偶数。",
                        "the SituGlu input, split along dim into a first half a and a second half b: a is the gate "
                        "and b the up half when activateLeft is true, the other way round otherwise; an even size "
                        "along dim.")),
        Attr("dim", dim, type="int64",
             doc=Text("x被均分的维度,取值范围[-n, n-1](n为x的维数)。",
                      "the dimension x is split along, in [-n, n-1] (n is x's rank).")),
        Attr("beta", beta, type="double",
             doc=Text("公式中的β,gate路径tanh的缩放,不为0。", "β in the formula, the gate path's tanh scale; not 0.")),
        Attr("linearBeta", lam, type="double",
             doc=Text("公式中的λ,大于0时up路径为λ·tanh(up/λ),否则up路径不变。",
                      "λ in the formula: above 0 the up path is λ·tanh(up/λ), otherwise up itself.")),
        Attr("activateLeft", left, type="bool",
             doc=Text("为true时前半为gate,为false时后半为gate。",
                      "true: the first half is the gate; false: the second half.")),
        Output("out", c_type="const aclTensor *", dtype_from="x",
               doc=Text("对x的梯度,shape与x一致:沿dim依次为对a与对b的梯度。数据类型与x一致。",
                        "the gradient w.r.t. x, of x's shape: the gradients w.r.t. a and w.r.t. b, one after the "
                        "other along dim; x's dtype.")),
    ],
    split=Split("x", dim="dim"),
    wrt=(a, b),
    forward=Piecewise((situ(a) * up(b), left), (up(a) * situ(b), True)),
    backward=[Formula(g * up(b) * situ_prime(a), wrt=a, when={"activateLeft": True}, assume=NONZERO_BETA,
                      rewrites=STABLE),
              Formula(g * situ(a) * up_prime(b), wrt=b, when={"activateLeft": True}, assume=NONZERO_BETA,
                      rewrites=STABLE[:1]),
              Formula(g * situ(b) * up_prime(a), wrt=a, when={"activateLeft": False}, assume=NONZERO_BETA,
                      rewrites=STABLE[:1]),
              Formula(g * up(a) * situ_prime(b), wrt=b, when={"activateLeft": False}, assume=NONZERO_BETA,
                      rewrites=STABLE)],
    dtypes={
        "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend950": ["FLOAT", "FLOAT16", "BFLOAT16"],
    },
    # the generated aclnn layer (op_host/situ_glu_grad_def.cpp): null pointers, then one dtype for the three
    # tensors; the shapes are checked here too (the library checks them in its tiling, 561002: see the notes)
    rules=[
        DtypeSupported("x"),
        DtypeSame("x", "gradY", "out"),
        ShapeSame("x", "out"),
        MinRank("x", n=1),
        DimInRange("dim", "x"),
        DimEven("x", "dim"),
        ShapeHalved("gradY", "x", "dim"),
    ],
    torch=TorchGrad(lambda torch, x, d, beta, lam, left: (lambda h: (lambda gate, upv: (
        beta * torch.tanh(gate / beta) * torch.sigmoid(gate)
        * (lam * torch.tanh(upv / lam) if lam > 0 else upv)))(*(h if left else h[::-1])))(x.chunk(2, dim=d)),
        "x", "dim", "beta", "linearBeta", "activateLeft"),
    # the aclnn page's call example; the page prints no result: this one is PyTorch's autograd of the forward
    example=Example(shape=(2, 32), shapes={"gradY": (2, 16)},
                    values={"gradY": list(range(32)), "x": list(range(64)), "dim": -1, "beta": 1.0,
                            "linearBeta": 0.0, "activateLeft": True},
                    expected=[0, 7.764994, 5.884047, 3.098029, 1.517415, 0.7169212, 0.3288113, 0.1470804, 0.06445201,
                              0.02777406, 0.01180505, 0.004960571, 0.002064481, 0.000852148, 0.0003492426,
                              0.0001422447, 0, 0.55677, 1.698225, 2.84359, 3.925421, 4.966085, 5.985091, 6.993611,
                              7.997315, 8.998889, 9.999546, 10.99982, 11.99993, 12.99997, 13.99999, 15, 9.720225e-12,
                              3.884226e-12, 1.598721e-12, 6.454837e-13, 2.309264e-13, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                              0, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]),
    notes=[
        Text("x沿dim均分为a(前半)与b(后半),activateLeft为true时gate = a、up = b,否则gate = b、up = a。SituGlu(x) = "
             "β·tanh(gate/β)·σ(gate)·up',λ = linearBeta大于0时up' = λ·tanh(up/λ),否则up' = up(λ ≤ 0,包括负值,不改变up,"
             "与算子库的kernel一致)。gate的梯度为gradY·up'·σ(gate)·((1 - t²) + β·t·(1 - σ(gate))),t = tanh(gate/β);"
             "up的梯度为gradY·β·t·σ(gate)·(1 - tanh²(up/λ))(λ > 0)或gradY·β·t·σ(gate)。PyTorch没有对应算子:对照为正向的自动微分。"
             "1 - tanh²(u)按相等的4σ(2u)σ(-2u)计算,在tanh(u)接近±1处不相消;1 - σ(gate)按σ(-gate)计算。",
             "x is split along dim into a (the first half) and b (the second); with activateLeft true gate = a and "
             "up = b, otherwise gate = b and up = a. SituGlu(x) = β·tanh(gate/β)·σ(gate)·up', where up' = "
             "λ·tanh(up/λ) when λ = linearBeta is above 0 and up' = up otherwise (λ ≤ 0, negative included, leaves "
             "up unchanged, as the library's kernel does). The gradient w.r.t. gate is gradY·up'·σ(gate)·((1 - t²) "
             "+ β·t·(1 - σ(gate))), t = tanh(gate/β); that w.r.t. up is gradY·β·t·σ(gate)·(1 - tanh²(up/λ)) for "
             "λ > 0, else gradY·β·t·σ(gate). PyTorch has no such op: the counterpart is autograd of the forward. "
             "1 - tanh²(u) is computed as 4σ(2u)σ(-2u), the same number, which does not cancel where tanh(u) is "
             "near ±1, and 1 - σ(gate) as σ(-gate)."),
        Text("β = 0不在公式的定义域内(正向除以β):算子库不拒绝,其kernel乘以1/β = inf,gate = 0处得到`nan`;这里同样不拒绝,"
             "结果不作规定。",
             "β = 0 is outside the formula's domain (the forward divides by β): the library does not refuse it and "
             "its kernel multiplies by 1/β = inf, giving `nan` where gate = 0; it is not refused here either, and the "
             "result is not specified."),
        Text("形状在参数检查中校验,返回ACLNN_ERR_PARAM_INVALID:算子库在tiling中才校验(ACLNN_ERR_INNER_TILING_ERROR,561002),"
             "且不比较gradY除dim外的各维;这里按文档要求gradY为x在dim维上减半后的shape。",
             "The shapes are checked with the arguments, ACLNN_ERR_PARAM_INVALID: the library checks them only in "
             "its tiling (ACLNN_ERR_INNER_TILING_ERROR, 561002) and does not compare gradY's axes other than dim; "
             "here gradY must have x's shape with dim halved, as the docs say."),
    ],
    description=Text(
        "SituGlu的反向传播:x沿dim均分为两半,一半为gate、另一半为up,计算SituGlu(x) = β·tanh(gate/β)·σ(gate)·up'对x的梯度。",
        "Backward of SituGlu: x is split along dim into halves, one the gate and the other the up half, and the "
        "gradient of SituGlu(x) = β·tanh(gate/β)·σ(gate)·up' w.r.t. x is computed."),
)
