"""aclnnGeluBackwardV2: the gradient of GELU, exact (approximate="none", erf) or of its tanh approximation."""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)
# "tanh": 0.5*x*(1 + tanh(inner)), inner = sqrt(2/pi)*(x + 0.044715*x**3), and 0.5*(1 + tanh(inner)) = sigmoid(u)
beta = sqrt(2 / pi)
kappa = Rational(44715, 1000000)
u = 2 * beta * (x + kappa * x**3)
du = 2 * beta * (1 + 3 * kappa * x**2)
# "none": Phi(x) = (1 + erf(x/sqrt(2)))/2, for x < 0 as erfc(|x|/sqrt(2))/2, which does not cancel (SymPy would
# turn erfc(-x/sqrt(2)) back into 2 - erfc(x/sqrt(2))).  Both branches name erfc(|x|/sqrt(2)) (for x >= 0 it is
# erfc(x/sqrt(2)), bit for bit), so that the kernels, which compute both branches of a select, call erfc once:
# the C kernel computed two, and ran 0.2-0.5x PyTorch's speed.
cdf = Piecewise((erfc(Abs(x) / sqrt(2)) / 2, x < 0), (1 - erfc(Abs(x) / sqrt(2)) / 2, True))

SPEC = Op(
    name="aclnnGeluBackwardV2",
    forward_name="Gelu",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,上一层传回的梯度,与self满足broadcast关系。",
                        "gradOutput in the formula, the incoming gradient; broadcasts with self.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("公式中的x,Gelu的正向输入,与gradOutput满足broadcast关系。",
                        "x in the formula, the forward input of Gelu; broadcasts with gradOutput.")),
        Attr("approximate", type="string", c_type="char *",
             values={"none": "the exact GELU, x·Φ(x) (erf)", "tanh": "its tanh approximation"},
             doc=Text("计算使用的gelu近似算法,\"none\"或\"tanh\"(区分大小写)。",
                      "the GELU form: \"none\" or \"tanh\" (case-sensitive).")),
        Output("gradInput", dtype_from=("gradOutput", "self"),
               doc=Text("对x的梯度,shape为gradOutput与self broadcast后的shape,数据类型为推导后的类型。",
                        "the gradient w.r.t. x; its shape is the broadcast of gradOutput's and self's, its dtype "
                        "the promoted one.")),
    ],
    wrt=x,
    # x*Phi(x), Phi(x) = (1 + erf(x/sqrt(2)))/2
    forward=x * (1 + erf(x / sqrt(2))) / 2,
    backward=[
        Formula(g * (cdf + x * exp(-x**2 / 2) / sqrt(2 * pi)), when={"approximate": "none"}),
        Formula(g * (sigmoid(u) + x * sigmoid(u) * sigmoid(-u) * du), when={"approximate": "tanh"},
                forward=x * sigmoid(u)),   # = x*(1 + tanh(u/2))/2
    ],
    dtypes={
        "ascend910": ["FLOAT", "FLOAT16"],
        "ascend310p": ["FLOAT", "FLOAT16"],
        "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend950": ["FLOAT", "FLOAT16", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        PromotedSupported("gradOutput", "self"),
        PromotedSame("gradInput", "gradOutput", "self"),
        Broadcastable("gradOutput", "self"),
        ShapeIsBroadcast("gradInput", "gradOutput", "self"),
        OneOf("approximate", ["none", "tanh"]),
        EmptyReturns("gradOutput", "self"),
    ],
    example=Example(shape=(4, 2), values={"gradOutput": 1, "self": [0, 1, 2, 3, 4, 5, 6, 7],
                                          "approximate": "tanh"}),
    notes=[
        Text("approximate=\"none\"为精确的GELU导数Φ(x)+xφ(x)(文档的erf形式,按erfc计算以免x<0时相消);\"tanh\"为tanh近似"
             "0.5x(1+tanh(√(2/π)(x+0.044715x³)))的导数,文档未给出,这里按算子kernel(arch35的GeluGradV2)与PyTorch的"
             "gelu_backward(approximate=\"tanh\")计算。两种形式各自对其正向证明。",
             "approximate=\"none\" is the exact GELU derivative Φ(x) + xφ(x) (the docs' erf form, evaluated "
             "through erfc so that it does not cancel for x < 0); \"tanh\" is the derivative of the tanh "
             "approximation 0.5x(1 + tanh(√(2/π)(x + 0.044715x³))), which the docs do not write out: computed "
             "as the library's kernel (arch35 GeluGradV2) and PyTorch's gelu_backward(approximate=\"tanh\") do. "
             "Each form is proven against its own forward."),
        Text("gradOutput与self的数据类型可以不同,按aclnn的类型推导规则推导;gradInput的数据类型须与推导后的类型一致。"
             "CANN的op_api不检查维数(文档写0-8维),这里同样不限制。approximate为空指针时返回ACLNN_ERR_PARAM_NULLPTR,"
             "取值在数据类型与shape检查之后检查。",
             "gradOutput and self may differ in dtype and are promoted by aclnn's rules; gradInput must have the "
             "promoted dtype. CANN's op_api checks no rank limit (the docs say 0-8 dimensions), nor does this one. "
             "A null approximate returns ACLNN_ERR_PARAM_NULLPTR; its value is checked after the dtypes and "
             "shapes."),
        Text("CANN文档的调用示例用std::vector<int>的1填充ACL_FLOAT类型的gradOutput,其字节作为FLOAT是非规格化数1.4e-45,"
             "因此打印的结果全为0;这里的示例传gradOutput=1。",
             "CANN's call example fills its ACL_FLOAT gradOutput from a std::vector<int> of 1s, whose bytes read as "
             "FLOAT are the denormal 1.4e-45, so it prints 0 for every element; the example here passes "
             "gradOutput = 1."),
        Text("self为±inf时,两种形式在这里的每个后端(NumPy、C、Ascend C)和每种数据类型上都得到`nan`(x·φ(x)为inf·0),与PyTorch的"
             "gelu_backward相同,而不是极限值(+inf处为gradOutput,-inf处为0);self为±1e4等有限值时得到极限值。算子库的kernel"
             "并不一致:公开的arch35(Ascend 950)GeluGradV2在\"none\"形式下同样得到`nan`,在\"tanh\"形式下把为`nan`的项置0,"
             "得到极限值;仓库experimental目录中的kernel把|x|截断到30,\"none\"形式也得到极限值;Atlas A2/A3实际使用的kernel"
             "不在公开源码中,无法确认。这里保留`nan`。",
             "At self = ±inf both forms give `nan` here on every backend (NumPy, C, Ascend C) and in every dtype "
             "(x·φ(x) is inf·0), as PyTorch's gelu_backward does, rather than the limits (gradOutput at +inf, 0 at "
             "-inf); finite values such as ±1e4 give the limits. The library's kernels differ: the public arch35 "
             "(Ascend 950) GeluGradV2 gives `nan` in the \"none\" form too, and in the \"tanh\" form replaces its "
             "`nan` term by 0, giving the limits; the kernel under experimental/ in the library's repository clamps "
             "|x| at 30, giving the limits in the \"none\" form; the kernel Atlas A2/A3 actually run is not in the "
             "public sources, so which one they follow is not known here. `nan` is kept."),
    ],
    torch=Torch("gelu_backward", "gradOutput", "self", approximate="approximate"),
    description=Text("Gelu激活函数的反向传播,approximate选择精确形式或tanh近似。",
                     "Backward of the Gelu activation; approximate chooses the exact form or the tanh approximation."),
)
