"""aclnnSwigluGroupQuantGrad: the gradients of w·SiLU(x0')·x1' w.r.t. x and w, x0' = min(x0, c) and x1' = clamp(x1,
-c, c) when c = clampLimit > 0 (c = -1: no clamp), x0 and x1 the front and back halves of x's last axis, w the
optional per-row weight; with groupIndexOptional only the first trunc = Σ groupIndex rows (each count cast to uint32,
summed modulo 2^32, as the library's kernel does) are computed, and the others of gradX *and* gradWeight hold 0.
gradWeight = Σ_h gradY·yOrigin per row, the derivative of w·yOrigin (yOrigin the unweighted forward output)."""
from codegen.spec import *

a, b, g, w, yo, c = symbols("a b gradY weightOptional yOriginOptional clampLimit", real=True)

x0c = Piecewise((Min(a, c), c > 0), (a, True))            # x0' (clampLimit -1: no clamp)
x1c = Piecewise((Max(Min(b, c), -c), c > 0), (b, True))   # x1'
s0 = sigmoid(x0c)
d_a = g * w * x1c * s0 * (1 + x0c * (1 - s0))             # gY0·x1'·dSiLU(x0'), gY0 = gradY·weight
d_b = g * w * x0c * s0                                     # gY0·SiLU(x0')
PRODUCTS_950 = ["FLOAT", "FLOAT16", "BFLOAT16"]
FLOAT_ONLY = {"ascend950": ["FLOAT"]}


def _torch_forward(torch, x, weight, clamp_limit):
    """The forward as the docs define it, in float64 (yOrigin and the row count are no inputs of autograd)."""
    h = x.shape[-1] // 2
    x0, x1 = x[..., :h], x[..., h:]
    if clamp_limit > 0:
        x0, x1 = torch.clamp(x0, max=clamp_limit), torch.clamp(x1, -clamp_limit, clamp_limit)
    y = x0 * torch.sigmoid(x0) * x1
    return y if weight is None else y * weight.reshape(x.shape[:-1] + (1,))


SPEC = Op(
    name="aclnnSwigluGroupQuantGrad",
    forward_name="SwigluGroupQuant",
    params=[
        Tensor("gradY", g, role=GRAD,
               doc=Text("公式中的gradY,正向输出的梯度。shape为x的shape最后一维减半,数据类型与x一致。",
                        "gradY in the formula, the gradient w.r.t. the forward's output: x's shape with the last "
                        "dimension halved, x's dtype.")),
        Tensor("x", role=FORWARD_INPUT,
               doc=Text("正向的输入,shape为[..., 2H]:最后一维的前半为x0,后半为x1。",
                        "the forward input, [..., 2H]: the front half of its last axis is x0, the back half x1.")),
        Tensor("weightOptional", w, role=OPERAND, optional=True, default=1, dtypes=FLOAT_ONLY,
               doc=Text("可选,MoE权重,每行一个(元素个数为gradY除最后一维外各维之积)。为空时gY0 = gradY。",
                        "optional, the MoE weight, one per row (as many elements as gradY has rows). Null: gY0 = "
                        "gradY.")),
        Tensor("yOriginOptional", yo, role=OPERAND, optional=True,
               doc=Text("可选,正向SwiGLU的输出(未乘weight),shape与gradY一致;weightOptional不为空时必须提供。",
                        "optional, the forward SwiGLU's output (not multiplied by the weight), gradY's shape; "
                        "required when weightOptional is given.")),
        Tensor("groupIndexOptional", role=OPERAND, optional=True, dtypes={"ascend950": ["INT64"]},
               doc=Text("可选,1维:各组的行数。不为空时gradXOut与gradWeightOutOptional只计算前trunc行,其余行为0。",
                        "optional, 1-D: each group's row count. When given, only the first trunc rows of gradXOut "
                        "and gradWeightOutOptional are computed; the other rows are 0.")),
        Attr("clampLimit", c, type="double",
             doc=Text("公式中的c,截断门限:-1表示不截断,否则须大于0。", "c in the formula, the clamp limit: -1 means no "
                      "clamp, any other value must be greater than 0.")),
        Output("gradXOut", dtype_from="x",
               doc=Text("对x的梯度,shape与x一致,数据类型与x一致。", "the gradient w.r.t. x: x's shape and dtype.")),
        Output("gradWeightOutOptional", wrt=w, optional=True, sum_to="weightOptional", dtype_from="weightOptional",
               dtypes=FLOAT_ONLY,
               doc=Text("可选,对weight的梯度,shape与weightOptional一致,FLOAT;weightOptional不为空时必须提供。",
                        "optional, the gradient w.r.t. the weight: weightOptional's shape, FLOAT; required when "
                        "weightOptional is given.")),
    ],
    # gradWeight is masked past the row count too (the docs' I(t < trunc), the kernel's ZeroOutTrunc), and the
    # counts add up as the kernel's uint32 groupTokenSum does
    split=Split("x", dim=-1, rows="groupIndexOptional", masks=("gradWeightOutOptional",), rows_sum="uint32"),
    wrt=(a, b),
    forward=w * x0c * s0 * x1c,
    # the kernel's masks are strict (CompareScalar LT/GT): at x0 = c and x1 = ±c the gradient is 0, the outer
    # side's; with no clamp (c = -1) there is no kink there
    backward=[Formula(d_a * Piecewise((1, (a < c) | (c <= 0)), (0, True)), wrt=a,
                      at={Eq(a, c): Piecewise((0, c > 0), (d_a, True))}),
              Formula(d_b * Piecewise((1, ((b > -c) & (b < c)) | (c <= 0)), (0, True)), wrt=b,
                      at={Eq(b, c): Piecewise((0, c > 0), (d_b, True)), Eq(b, -c): Piecewise((0, c > 0), (d_b, True))}),
              Formula(g * yo, output="gradWeightOutOptional", forward=w * yo)],
    dtypes={"ascend950": PRODUCTS_950},
    # no op_api: the generated aclnn layer checks null pointers (a weight given without gradWeightOut: the tiling
    # reads its shape), then the tiling's CheckOpAllParams in its order: input dtypes, output dtypes, clampLimit,
    # input shapes (gradY and x, weight, yOrigin, weight needs yOrigin, groupIndex), output shapes
    rules=[
        NotNullWhen("gradWeightOutOptional", "weightOptional"),
        DtypeSupported("gradY", "x"),
        DtypeSame("gradY", "x"),
        DtypeSupported("weightOptional"),
        DtypeSame("x", "yOriginOptional"),
        DtypeSupported("groupIndexOptional"),
        DtypeSame("x", "gradXOut"),
        DtypeSupported("gradWeightOutOptional"),
        Requires("clampLimit", Eq(c, -1) | (c > 0)),
        MinRank("gradY", n=1),
        MaxRank("gradY", n=8),
        ShapeHalved("gradY", "x", axis=-1),
        PerRow("weightOptional", "gradY"),
        ShapeSame("gradY", "yOriginOptional"),
        PresentWith("weightOptional", "yOriginOptional"),
        MinRank("groupIndexOptional", n=1),
        MaxRank("groupIndexOptional", n=1),
        ShapeSame("x", "gradXOut"),
        ShapeSame("weightOptional", "gradWeightOutOptional"),
    ],
    torch=TorchGrad(_torch_forward, "x", "weightOptional", "clampLimit"),
    # the example program's shapes, smaller: T = 2, H = 4 (every input 1, weight [T], clampLimit -1, groupIndex [1])
    example=Example(shape=(2, 8), shapes={"gradY": (2, 4), "weightOptional": (2,), "yOriginOptional": (2, 4),
                                          "gradWeightOutOptional": (2,), "groupIndexOptional": (1,)},
                    values={"gradY": 1.0, "x": 1.0, "weightOptional": 1.0, "yOriginOptional": 1.0,
                            "groupIndexOptional": [1], "clampLimit": -1.0}),
    notes=[
        Text("x沿最后一维切分为前半x0与后半x1;clampLimit > 0时x0' = min(x0, c)、x1' = clamp(x1, -c, c),clampLimit = -1表示不截断。"
             "gY0 = gradY·weight(weight为空时gY0 = gradY);x0的梯度为gY0·x1'·dSiLU(x0')·I(x0 < c),x1的梯度为gY0·SiLU(x0')·"
             "I(-c < x1 < c)。两个掩码都是严格不等式(算子库kernel的CompareScalar LT/GT)。",
             "x is split into its front half x0 and back half x1 along the last axis; with clampLimit > 0, x0' = "
             "min(x0, c) and x1' = clamp(x1, -c, c), and clampLimit = -1 means no clamp. gY0 = gradY·weight (gradY "
             "when weight is null); the gradient w.r.t. x0 is gY0·x1'·dSiLU(x0')·I(x0 < c), that w.r.t. x1 "
             "gY0·SiLU(x0')·I(-c < x1 < c). Both masks are strict (the library kernel's CompareScalar LT/GT)."),
        Text("gradWeightOutOptional[t] = Σ_h gradY[t, h]·yOrigin[t, h]·I(t < trunc),即w·yOrigin对w的导数沿行求和;"
             "与SwigluGroupGrad不同,groupIndex的行掩码也作用于gradWeight(文档公式与kernel的ZeroOutTrunc一致)。",
             "gradWeightOutOptional[t] = Σ_h gradY[t, h]·yOrigin[t, h]·I(t < trunc), the derivative of w·yOrigin "
             "w.r.t. w summed along the row; unlike SwigluGroupGrad, groupIndex's row mask applies to gradWeight too "
             "(the docs' formula and the kernel's ZeroOutTrunc agree)."),
        Text("trunc按算子库kernel计算:groupIndex的每个元素转换为uint32后求和(模2^32),再取min(和, rows)(rows为gradY除最后一维外"
             "各维之积)。因此负数回绕为很大的数:groupIndex = [-3]时trunc = rows(全部行),[5, -3]时trunc = 2。"
             "空的groupIndex之和为0(全部行为0)。",
             "trunc is computed as the library's kernel does: each element of groupIndex cast to uint32 and summed "
             "(modulo 2^32), then min(sum, rows) (rows: the product of gradY's sizes but the last). A negative "
             "count therefore wraps to a large one: groupIndex = [-3] gives trunc = rows (every row), [5, -3] gives "
             "trunc = 2. An empty groupIndex sums to 0 (every row 0)."),
        Text("算子没有op_api:形状与属性在参数检查中校验,返回ACLNN_ERR_PARAM_INVALID(算子库在tiling中校验,"
             "ACLNN_ERR_INNER_TILING_ERROR,561002);weightOptional不为空而gradWeightOutOptional为空返回ACLNN_ERR_PARAM_NULLPTR"
             "(算子库的tiling会读取其shape)。clampLimit为double,算子库按float比较(-1.0f)。",
             "The op has no op_api: the shapes and attributes are checked with the arguments, "
             "ACLNN_ERR_PARAM_INVALID (the library checks them in its tiling, ACLNN_ERR_INNER_TILING_ERROR, 561002); "
             "weightOptional given with gradWeightOutOptional null is ACLNN_ERR_PARAM_NULLPTR (the library's tiling "
             "reads its shape). clampLimit is a double, which the library compares as a float (-1.0f)."),
    ],
    description=Text(
        "SwiGLU(带截断)分组量化场景的反向传播:x沿最后一维均分为x0、x1,计算w·SiLU(x0')·x1'对x的梯度;可选的weight逐行加权并"
        "输出其梯度,可选的groupIndex限定gradX与gradWeight计算的行数。",
        "Backward of a clamped SwiGLU in the grouped-quantization setting: x is split into x0 and x1 along its last "
        "axis, and the gradient of w·SiLU(x0')·x1' w.r.t. x is computed; an optional weight per row scales it and "
        "gets its own gradient, an optional groupIndex limits the rows of gradX and gradWeight computed."),
)
