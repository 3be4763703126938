"""aclnnSwigluGroupGrad: the gradients of w·SiLU(x0')·x1' w.r.t. x and w, x0' = min(x0, c) and x1' = clamp(x1, -c,
c) when c = clampLimit > 0 (c = 0: no clamp), x0 and x1 the front and back halves of x's last axis, w the optional
per-row weight; with groupIndexOptional only gradX's first sum(groupIndex) rows are computed, the others hold 0.
gradWeight = Σ_h gradY·yOrigin per row, the derivative of w·yOrigin (yOrigin the unweighted forward output)."""
from codegen.spec import *

a, b, g, w, yo, c = symbols("a b gradY weightOptional yOriginOptional clampLimit", real=True)

x0c = Piecewise((Min(a, c), c > 0), (a, True))            # x0' (clampLimit 0: no clamp)
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
    name="aclnnSwigluGroupGrad",
    forward_name="SwigluGroup",
    params=[
        Tensor("gradY", g, role=GRAD,
               doc=Text("公式中的gradY,正向输出的梯度。shape为[T, H]或[B, S, H],数据类型与x一致。",
                        "gradY in the formula, the gradient w.r.t. the forward's output: [T, H] or [B, S, H], x's "
                        "dtype.")),
        Tensor("x", role=FORWARD_INPUT,
               doc=Text("正向的输入,shape为[T, 2H]或[B, S, 2H]:最后一维的前半为x0,后半为x1。",
                        "the forward input, [T, 2H] or [B, S, 2H]: the front half of its last axis is x0, the back "
                        "half x1.")),
        Tensor("weightOptional", w, role=OPERAND, optional=True, default=1, dtypes=FLOAT_ONLY,
               doc=Text("可选,MoE权重,每行一个(元素个数为gradY除最后一维外各维之积,如[T]或[T, 1])。为空时gY0 = gradY。",
                        "optional, the MoE weight, one per row (as many elements as gradY has rows, e.g. [T] or "
                        "[T, 1]). Null: gY0 = gradY.")),
        Tensor("yOriginOptional", yo, role=OPERAND, optional=True,
               doc=Text("可选,正向SwiGLU的输出(未乘weight),shape与gradY一致;须与weightOptional同时提供。",
                        "optional, the forward SwiGLU's output (not multiplied by the weight), gradY's shape; given "
                        "together with weightOptional.")),
        Tensor("groupIndexOptional", role=OPERAND, optional=True, dtypes={"ascend950": ["INT64"]},
               doc=Text("可选,1维非空:各组的行数。不为空时gradXOut只计算前min(Σ groupIndex, rows)行,其余行为0。",
                        "optional, 1-D and not empty: each group's row count. When given, only gradXOut's first "
                        "min(Σ groupIndex, rows) rows are computed; the other rows are 0.")),
        Attr("clampLimit", c, type="float",
             doc=Text("公式中的c,截断门限,大于等于0;0表示不截断。", "c in the formula, the clamp limit, at least 0; 0: no clamp.")),
        Output("gradXOut", c_type="aclTensor *", dtype_from="x",
               doc=Text("对x的梯度,shape与x一致,数据类型与x一致。", "the gradient w.r.t. x: x's shape and dtype.")),
        Output("gradWeightOutOptional", wrt=w, optional=True, sum_to="weightOptional", dtype_from="weightOptional",
               dtypes=FLOAT_ONLY,
               doc=Text("可选,对weight的梯度,shape与weightOptional一致,FLOAT;weightOptional不为空时必须提供。",
                        "optional, the gradient w.r.t. the weight: weightOptional's shape, FLOAT; required when "
                        "weightOptional is given.")),
    ],
    split=Split("x", dim=-1, rows="groupIndexOptional"),
    wrt=(a, b),
    forward=w * x0c * s0 * x1c,
    # the kernel's masks are strict (CompareScalar LT/GT): at x0 = c and x1 = ±c the gradient is 0, the outer
    # side's; with no clamp (c = 0) there is no kink there
    backward=[Formula(d_a * Piecewise((1, (a < c) | (c <= 0)), (0, True)), wrt=a,
                      at={Eq(a, c): Piecewise((0, c > 0), (d_a, True))}),
              Formula(d_b * Piecewise((1, ((b > -c) & (b < c)) | (c <= 0)), (0, True)), wrt=b,
                      at={Eq(b, c): Piecewise((0, c > 0), (d_b, True)), Eq(b, -c): Piecewise((0, c > 0), (d_b, True))}),
              # gradWeight: the derivative of w·y w.r.t. w, y the forward output the caller passes as yOrigin,
              # summed over the row (sum_to the per-row weight)
              Formula(g * yo, output="gradWeightOutOptional", forward=w * yo)],
    dtypes={"ascend950": PRODUCTS_950},
    # the op_api's order (CheckParams): nulls; gradWeightOut when weight is given; weight and yOrigin together;
    # clampLimit; dtypes; shapes
    rules=[
        NotNullWhen("gradWeightOutOptional", "weightOptional"),
        PresentWith("weightOptional", "yOriginOptional"),
        PresentWith("yOriginOptional", "weightOptional"),
        Requires("clampLimit", c >= 0),
        DtypeSupported("gradY", "x"),
        DtypeSame("gradY", "x", "gradXOut"),
        DtypeSupported("weightOptional"),
        DtypeSame("gradY", "yOriginOptional"),
        DtypeSupported("groupIndexOptional", "gradWeightOutOptional"),
        MinRank("gradY", n=2),
        MaxRank("gradY", n=3),
        ShapeHalved("gradY", "x", axis=-1),
        DimAtLeast("gradY", dim=-1, n=1),
        ShapeSame("x", "gradXOut"),
        PerRow("weightOptional", "gradY"),
        ShapeSame("weightOptional", "gradWeightOutOptional"),
        ShapeSame("gradY", "yOriginOptional"),
        MinRank("groupIndexOptional", n=1),
        MaxRank("groupIndexOptional", n=1),
        NotEmpty("groupIndexOptional"),
    ],
    torch=TorchGrad(_torch_forward, "x", "weightOptional", "clampLimit"),
    # the aclnn page's call example with H = 4 for 256 (every input 1, weight [T, 1], clampLimit 0, no groupIndex);
    # the page passes BFLOAT16 tensors the bit pattern 1 (9.2e-41) where it means 1.0: here 1.0
    example=Example(shape=(2, 8), shapes={"gradY": (2, 4), "weightOptional": (2, 1), "yOriginOptional": (2, 4),
                                          "gradWeightOutOptional": (2, 1)},
                    values={"gradY": 1.0, "x": 1.0, "weightOptional": 1.0, "yOriginOptional": 1.0,
                            "clampLimit": 0.0}),
    notes=[
        Text("x沿最后一维切分为前半x0与后半x1;clampLimit > 0时x0' = min(x0, c)、x1' = clamp(x1, -c, c),clampLimit = 0表示不截断。"
             "gY0 = gradY·weight(weight为空时gY0 = gradY);x0的梯度为gY0·x1'·dSiLU(x0')·I(x0 < c),x1的梯度为gY0·SiLU(x0')·"
             "I(-c < x1 < c)。两个掩码都是严格不等式(算子库kernel的CompareScalar LT/GT):x0 = c与x1 = ±c处梯度为0。",
             "x is split into its front half x0 and back half x1 along the last axis; with clampLimit > 0, x0' = "
             "min(x0, c) and x1' = clamp(x1, -c, c), and clampLimit = 0 means no clamp. gY0 = gradY·weight (gradY "
             "when weight is null); the gradient w.r.t. x0 is gY0·x1'·dSiLU(x0')·I(x0 < c), that w.r.t. x1 "
             "gY0·SiLU(x0')·I(-c < x1 < c). Both masks are strict (the library kernel's CompareScalar LT/GT): at "
             "x0 = c and x1 = ±c the gradient is 0."),
        Text("gradWeightOutOptional[t] = Σ_h gradY[t, h]·yOrigin[t, h],即w·yOrigin对w的导数沿行求和;只有yOrigin为未乘weight的"
             "正向输出y时它才是Σ gradY·w·y对w的梯度(算子库的golden在缺少yOrigin时也按未加权的y计算)。CANN文档称yOrigin"
             "“已乘weight”,那样得到的是w·Σ gradY·y,并非梯度:这里按yOrigin为未加权输出说明。gradWeight不受groupIndex的行掩码"
             "影响(与文档、kernel一致)。weightOptional为空时不计算gradWeightOutOptional(不写入)。",
             "gradWeightOutOptional[t] = Σ_h gradY[t, h]·yOrigin[t, h], the derivative of w·yOrigin w.r.t. w summed "
             "along the row; it is the gradient of Σ gradY·w·y w.r.t. w only when yOrigin is the unweighted forward "
             "output y (the library's golden computes the unweighted y when yOrigin is missing). CANN's docs say "
             "yOrigin is \"already multiplied by the weight\", which would give w·Σ gradY·y, no gradient: this page "
             "takes yOrigin as the unweighted output. gradWeight is not masked by groupIndex's row count (docs and "
             "kernel agree). With weightOptional null, gradWeightOutOptional is not computed (nor written)."),
        Text("groupIndexOptional不为空时只计算gradXOut的前validRows = min(Σ groupIndex, rows)行(rows为gradY除最后一维外各维之积),"
             "其余行写0;Σ为负时按0行处理(与算子库kernel的ComputeValidRowCount一致)。weightOptional只校验元素个数([T]与[T, 1]均可),"
             "按行读取。",
             "With groupIndexOptional given, only gradXOut's first validRows = min(Σ groupIndex, rows) rows are "
             "computed (rows: the product of gradY's sizes but the last) and the other rows are written 0; a "
             "negative sum counts as 0 rows (as the library kernel's ComputeValidRowCount). weightOptional is checked "
             "by its element count only ([T] and [T, 1] both pass) and read one value per row."),
        Text("调用示例取H = 4(文档为256);文档示例向BFLOAT16张量写入位模式1(即9.2e-41)而意指1.0,这里用1.0。",
             "The call example takes H = 4 (the docs' 256); the docs' example fills BFLOAT16 tensors with the bit "
             "pattern 1 (9.2e-41) where it means 1.0: here 1.0."),
    ],
    description=Text(
        "SwiGLU(带截断)的反向传播:x沿最后一维均分为x0、x1,计算w·SiLU(x0')·x1'对x的梯度;可选的weight逐行加权并输出其梯度,"
        "可选的groupIndex限定gradX计算的行数。",
        "Backward of a clamped SwiGLU: x is split into x0 and x1 along its last axis, and the gradient of "
        "w·SiLU(x0')·x1' w.r.t. x is computed; an optional weight per row scales it and gets its own gradient, an "
        "optional groupIndex limits the rows of gradX computed."),
)
