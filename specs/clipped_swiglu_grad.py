"""aclnnClippedSwigluGrad: the gradient of ClippedSwiglu(x) = x0'·σ(α·x0')·(x1' + bias), x0' = min(x0, l),
x1' = clamp(x1, -l, l), x0 and x1 the halves of x: the even and odd elements of each row (interleaved) or its
front and back halves, a row being the block of x's axes from dim on; with groupIndexOptional only the first
sum(groupIndex) rows are computed, the others hold 0."""
from codegen.spec import *

a, b, g, dim, alpha, lim, bias = symbols("a b gradY dim alpha limit bias", real=True)
inter = Symbol("interleaved")

x0c = Min(a, lim)                       # x0' = min(x0, l)
x1c = Max(Min(b, lim), -lim)            # x1' = clamp(x1, -l, l)
s = sigmoid(alpha * x0c)
INT64 = {"ascend910b": ["INT64"], "ascend910_93": ["INT64"], "ascend950": ["INT64"]}


def _torch_forward(torch, x, d, alpha, limit, bias, interleaved, group):
    """The forward on [pre, cut], as the docs define it: rows from sum(groupIndex) on are multiplied by 0."""
    d %= x.dim()
    pre, cut = 1, 1
    for n in x.shape[:d]:
        pre *= n
    for n in x.shape[d:]:
        cut *= n
    rows = x.reshape(pre, cut)
    x0, x1 = (rows[:, 0::2], rows[:, 1::2]) if interleaved else rows.chunk(2, dim=1)
    a0 = torch.clamp(x0, max=limit)
    y = a0 * torch.sigmoid(alpha * a0) * (torch.clamp(x1, -limit, limit) + bias)
    if group is not None:
        valid = max(0, min(int(group.sum()), pre))
        y = y * (torch.arange(pre) < valid).to(y.dtype)[:, None]
    shape = list(x.shape)
    shape[d] //= 2
    return y.reshape(shape)


SPEC = Op(
    name="aclnnClippedSwigluGrad",
    forward_name="ClippedSwiglu",
    params=[
        Tensor("gradY", g, role=GRAD,
               doc=Text("公式中的gradY,正向输出的梯度。shape为x在dim维上减半后的shape,数据类型与x一致。",
                        "gradY in the formula, the gradient w.r.t. the forward's output: x's shape with dim "
                        "halved, x's dtype.")),
        Tensor("x", role=FORWARD_INPUT,
               doc=Text("ClippedSwiglu的输入,dim维的大小为偶数。从dim起的各维合为一行,切分为x0与x1(见interleaved)。",
                        "the ClippedSwiglu input, of even size along dim. The axes from dim on form one row, "
                        "split into x0 and x1 (see interleaved).")),
        Tensor("groupIndexOptional", role=OPERAND, optional=True, dtypes=INT64,
               doc=Text("可选,1维:各组的行数。不为空时只计算前min(Σ groupIndex, pre)行(pre为dim之前各维之积),其余行的梯度为0。",
                        "optional, 1-D: each group's row count. When given, only the first min(Σ groupIndex, pre) "
                        "rows are computed (pre is the product of the axes before dim); the other rows' gradient "
                        "is 0.")),
        Attr("dim", dim, type="int64",
             doc=Text("合轴与切分的维度,取值范围[-n, n-1](n为x的维数)。",
                      "the dimension the rows start at and x is split along, in [-n, n-1] (n is x's rank).")),
        Attr("alpha", alpha, type="double", doc=Text("公式中的α,建议为1.702。", "α in the formula; 1.702 is usual.")),
        Attr("limit", lim, type="double",
             doc=Text("公式中的l,截断的门限,大于0,建议为7.0。", "l in the formula, the clamp limit: above 0; 7.0 is usual.")),
        Attr("bias", bias, type="double", doc=Text("公式中的bias,建议为1.0。", "bias in the formula; 1.0 is usual.")),
        Attr("interleaved", inter, type="bool",
             doc=Text("为true时x0、x1为每行的偶数位与奇数位元素,为false时为每行的前半与后半。",
                      "true: x0 and x1 are the even and the odd elements of each row; false: its front and back "
                      "halves.")),
        Output("gradXOut", c_type="const aclTensor *", dtype_from="x",
               doc=Text("对x的梯度,shape与x一致,按x0、x1在x中的位置写回。数据类型与x一致。",
                        "the gradient w.r.t. x, of x's shape, each half's written where x0 and x1 are in x; x's "
                        "dtype.")),
    ],
    split=Split("x", dim="dim", interleaved="interleaved", rows="groupIndexOptional"),
    wrt=(a, b),
    forward=x0c * s * (x1c + bias),
    # the documented masks are inclusive (the kernel's CompareScalar LE/GE): at x0 = l and x1 = ±l the gradient
    # is the inner side's, as PyTorch's clamp backward gives
    backward=[Formula(g * (x1c + bias) * s * (1 + alpha * x0c * (1 - s)) * Piecewise((1, a <= lim), (0, True)),
                      wrt=a, at={Eq(a, lim): g * (x1c + bias) * s * (1 + alpha * x0c * (1 - s))}),
              Formula(g * x0c * s * Piecewise((1, (b >= -lim) & (b <= lim)), (0, True)), wrt=b,
                      at={Eq(b, lim): g * x0c * s, Eq(b, -lim): g * x0c * s})],
    dtypes={"ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"], "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"],
            "ascend950": ["FLOAT", "FLOAT16", "BFLOAT16"]},
    # the library's generated aclnn layer checks null pointers and the def's dtypes; its tiling (561002) checks
    # the rest in this order, which is kept here with ACLNN_ERR_PARAM_INVALID (see the notes)
    rules=[
        DtypeSupported("x"),
        DtypeSame("x", "gradY", "gradXOut"),
        MaxRank("x", "gradY", "gradXOut", n=8),
        MinRank("x", n=1),
        Requires("limit", lim > 0),
        DimInRange("dim", "x"),
        DimEven("x", "dim"),
        ShapeHalved("gradY", "x", "dim"),
        DtypeSupported("groupIndexOptional"),
        MinRank("groupIndexOptional", n=1),
        MaxRank("groupIndexOptional", n=1),
        ShapeSame("x", "gradXOut"),
    ],
    torch=TorchGrad(_torch_forward, "x", "dim", "alpha", "limit", "bias", "interleaved", "groupIndexOptional"),
    # the aclnn page's call example (x and gradY all 1); the page prints no result: this one is PyTorch's autograd
    example=Example(shape=(2, 32), shapes={"gradY": (2, 16)},
                    values={"gradY": [1.0] * 32, "x": [1.0] * 64, "dim": -1, "alpha": 1.702, "limit": 7.0,
                            "bias": 1.0, "interleaved": True},
                    expected=[2.1355591, 0.8457958] * 32),
    notes=[
        Text("x按dim合轴为[pre, cut](pre为dim之前各维之积,cut为其余各维之积),每行切分为x0与x1:interleaved为true时x0[p, h] = "
             "x[p, 2h]、x1[p, h] = x[p, 2h + 1](奇偶位在合并后的整行上交替,dim之后还有维度时并非沿dim的切片),为false时为每行的前半与后半"
             "(即沿dim的前半与后半)。gradY按[pre, cut/2]读取,gradXOut按相同位置写回。",
             "x is viewed as [pre, cut] by dim (pre the product of the axes before dim, cut that of the rest) and "
             "each row is split into x0 and x1: with interleaved true x0[p, h] = x[p, 2h] and x1[p, h] = "
             "x[p, 2h + 1] (even and odd positions alternate over the whole merged row: with axes after dim these "
             "are not slices along dim); with interleaved false the front and back halves of each row (the halves "
             "along dim). gradY is read as [pre, cut/2] and gradXOut written at the same positions."),
        Text("x0' = min(x0, l),x1' = clamp(x1, -l, l),s = σ(α·x0');x0的梯度为gradY·(x1' + bias)·s·(1 + α·x0'·(1 - s))·"
             "I(x0 ≤ l),x1的梯度为gradY·x0'·s·I(-l ≤ x1 ≤ l)。两个掩码都包含边界(算子库kernel的CompareScalar LE/GE),"
             "与PyTorch中clamp的反向一致。PyTorch没有对应算子:对照为正向的自动微分。",
             "x0' = min(x0, l), x1' = clamp(x1, -l, l), s = σ(α·x0'); the gradient w.r.t. x0 is gradY·(x1' + bias)·"
             "s·(1 + α·x0'·(1 - s))·I(x0 ≤ l), that w.r.t. x1 gradY·x0'·s·I(-l ≤ x1 ≤ l). Both masks include the "
             "bound (the library kernel's CompareScalar LE/GE), as PyTorch's clamp backward does. PyTorch has no "
             "such op: the counterpart is autograd of the forward."),
        Text("groupIndexOptional不为空时只计算前validRows = min(Σ groupIndex, pre)行,其余行写0,与算子库的kernel一致"
             "(其ZeroInvalidRows)。文档要求各元素大于等于0,算子库不校验;Σ为负时其kernel写到输出之外,这里按0行处理(整个输出为0)。"
             "空的groupIndex(0个元素)之和为0。",
             "With groupIndexOptional given, only the first validRows = min(Σ groupIndex, pre) rows are computed "
             "and the other rows are written 0, as the library's kernel does (its ZeroInvalidRows). The docs "
             "require every element to be at least 0 and the library does not check it; with a negative sum its "
             "kernel writes outside the output: here that counts as 0 rows (the whole output is 0). An empty "
             "groupIndex (0 elements) sums to 0."),
        Text("形状与属性在参数检查中校验,返回ACLNN_ERR_PARAM_INVALID:算子库在tiling中才校验(ACLNN_ERR_INNER_TILING_ERROR,"
             "561002),且不比较gradXOut的各维与数据类型(其代码读的是gradY的数据类型);这里要求gradXOut与x的shape、数据类型一致。"
             "算子库不支持非连续Tensor;这里接受任意步长,按合轴后的行读写。",
             "The shapes and attributes are checked with the arguments, ACLNN_ERR_PARAM_INVALID: the library checks "
             "them only in its tiling (ACLNN_ERR_INNER_TILING_ERROR, 561002), and compares neither gradXOut's "
             "dimensions nor its dtype (its code reads gradY's dtype); here gradXOut must have x's shape and dtype. "
             "The library takes contiguous tensors only; here any strides are accepted, read and written by the "
             "merged rows."),
    ],
    description=Text(
        "ClippedSwiglu的反向传播:x按dim合轴为行并切分为x0、x1(奇偶位或前后半),计算x0'·σ(α·x0')·(x1' + bias)对x的梯度;"
        "可选的groupIndex限定计算的行数。",
        "Backward of ClippedSwiglu: x is viewed as rows from dim on and split into x0 and x1 (even and odd "
        "positions, or front and back halves), and the gradient of x0'·σ(α·x0')·(x1' + bias) w.r.t. x is "
        "computed; an optional groupIndex limits the rows computed."),
)
