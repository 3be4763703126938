"""aclnnGeluBackward: the gradient of GELU in its tanh approximation, as the library's kernel computes it."""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)
# inner = sqrt(2/pi)*(x + 0.044715*x**3); 0.5*(1 + tanh(inner)) = sigmoid(2*inner)
beta = sqrt(2 / pi)
kappa = Rational(44715, 1000000)
u = 2 * beta * (x + kappa * x**3)
du = 2 * beta * (1 + 3 * kappa * x**2)

FLOATS = {
    "ascend910": ["FLOAT", "FLOAT16"],
    "ascend310p": ["FLOAT", "FLOAT16"],
    "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"],
    "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"],
    "ascend950": ["FLOAT", "FLOAT16", "BFLOAT16"],
}
# an input may be an integer when the pair promotes to a float (the library's call example: INT32 gradOutput)
INTS = ["INT8", "INT16", "INT32", "INT64", "UINT8", "BOOL"]
INPUTS = {soc: dts + INTS for soc, dts in FLOATS.items()}

SPEC = Op(
    name="aclnnGeluBackward",
    forward_name="Gelu",
    params=[
        Tensor("gradOutput", g, role=GRAD, dtypes=INPUTS,
               doc=Text("公式中的gradOutput,上一层传回的梯度,与self满足broadcast关系。",
                        "gradOutput in the formula, the incoming gradient; broadcasts with self.")),
        Tensor("self", x, role=FORWARD_INPUT, dtypes=INPUTS,
               doc=Text("公式中的x,Gelu的正向输入,与gradOutput满足broadcast关系。",
                        "x in the formula, the forward input of Gelu; broadcasts with gradOutput.")),
        Output("gradInput", c_type="const aclTensor *", dtype_from=("gradOutput", "self"),
               doc=Text("对x的梯度,shape为gradOutput与self broadcast后的shape。",
                        "the gradient w.r.t. x; its shape is the broadcast of gradOutput's and self's.")),
    ],
    wrt=x,
    forward=x * sigmoid(u),   # = x*(1 + tanh(u/2))/2
    # the library's kernel form: sigmoid(u) + x*sigmoid(u)*(1 - sigmoid(u))*du, with 1 - sigmoid(u) written
    # sigmoid(-u) so that neither side cancels
    backward=g * (sigmoid(u) + x * sigmoid(u) * sigmoid(-u) * du),
    dtypes=FLOATS,
    # (two integers promote to an integer, which PromotedSupported refuses: an integer is read as FLOAT)
    compute={d: "FLOAT" for d in INTS},
    rules=[
        PromotedSupported("gradOutput", "self"),
        DtypeSupported("gradOutput", "self", "gradInput"),
        MaxRank("gradOutput", "self", n=8),
        Broadcastable("gradOutput", "self"),
        ShapeIsBroadcast("gradInput", "gradOutput", "self"),
        PromotedCastable("gradInput", "gradOutput", "self"),
        EmptyReturns("gradOutput", "self"),
    ],
    example=Example(shape=(4, 2), values={"gradOutput": 1, "self": [0, 1, 2, 3, 4, 5, 6, 7]}),
    notes=[
        Text("公式的选择:文档给出erf形式的GELU导数,而算子库的kernel(activation/gelu_grad的arch35实现)、README与测试的golden"
             "都计算tanh近似0.5x(1+tanh(√(2/π)(x+0.044715x³)))的导数;这里按kernel计算tanh近似的导数(两者之差最大约8.7e-4,"
             "在x≈2处)。erf形式请用aclnnGeluBackwardV2的approximate=\"none\"。对应PyTorch的"
             "gelu_backward(approximate=\"tanh\")。",
             "Which formula: the docs give the derivative of the erf GELU, but the library's kernel (the arch35 "
             "kernel of activation/gelu_grad), its README and its test golden all compute the derivative of the "
             "tanh approximation 0.5x(1 + tanh(√(2/π)(x + 0.044715x³))); this operator follows the kernel (the two "
             "differ by at most about 8.7e-4, near x = 2). For the erf form use aclnnGeluBackwardV2 with "
             "approximate=\"none\". The PyTorch counterpart is gelu_backward(approximate=\"tanh\")."),
        Text("gradOutput与self的数据类型可以不同,按aclnn的类型推导规则推导后计算;gradInput的数据类型须可由推导后的类型转换得到"
             "(CANN的op_api不检查gradInput的数据类型,结果转换为它的类型)。x=-inf时结果为`nan`(CANN的kernel给0)。",
             "gradOutput and self may differ in dtype: they are promoted by aclnn's rules and computed in the "
             "promoted dtype, which must cast to gradInput's (CANN's op_api does not check gradInput's dtype and "
             "casts the result to it). x = -inf gives `nan` (CANN's kernel gives 0)."),
    ],
    torch=Torch("gelu_backward", "gradOutput", "self", approximate=Const("tanh")),
    description=Text("Gelu激活函数的反向传播(tanh近似)。", "Backward of the Gelu activation (tanh approximation)."),
)
