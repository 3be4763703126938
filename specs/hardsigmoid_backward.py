"""aclnnHardsigmoidBackward: the gradient of Hardsigmoid(x) = relu6(x + 3) / 6."""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)
# the library's fixed constants (its README: alpha = 1/6, beta = 0.5)
alpha, beta = Rational(1, 6), Rational(1, 2)

SPEC = Op(
    name="aclnnHardsigmoidBackward",
    forward_name="Hardsigmoid",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,上一层传回的梯度。", "gradOutput in the formula, the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("公式中的x,Hardsigmoid的正向输入。", "x in the formula, the forward input of Hardsigmoid.")),
        Output("out", dtype_from=("gradOutput", "self"),
               doc=Text("对x的梯度,数据类型须可由gradOutput与self推导后的数据类型转换得到。",
                        "the gradient w.r.t. x; its dtype must be castable from the promoted dtype of gradOutput "
                        "and self.")),
    ],
    wrt=x,
    forward=Piecewise((0, alpha * x + beta <= 0), (1, alpha * x + beta >= 1), (alpha * x + beta, True)),
    # The library's README and kernel: the open interval 0 < alpha*x + beta < 1 (x = ±3 give 0); a nan x gives 0.
    # (SymPy reads it as -3 < x < 3, which the kernels compare.)
    backward=Piecewise((g * alpha, (alpha * x + beta > 0) & (alpha * x + beta < 1)), (0, True)),
    # the kinks x = -3 and x = 3 give 0 (the open interval of the library's kernel)
    at={Eq(alpha * x + beta, 0): 0, Eq(alpha * x + beta, 1): 0},
    dtypes={
        "ascend910": ["FLOAT16", "FLOAT"],
        "ascend310p": ["FLOAT16", "FLOAT"],
        "ascend910b": ["BFLOAT16", "FLOAT16", "FLOAT"],
        "ascend910_93": ["BFLOAT16", "FLOAT16", "FLOAT"],
        "ascend950": ["BFLOAT16", "FLOAT16", "FLOAT"],
    },
    rules=[
        DtypeSupported("gradOutput", "self"),
        PromotedCastable("out", "gradOutput", "self"),
        MaxRank("gradOutput", "self", "out", n=8),
        ShapeSame("self", "gradOutput", "out"),
    ],
    example=Example(shape=(4, 2), values={"self": [0, 1, 2, 3, 4, 5, 6, 7], "gradOutput": [0, 1, 2, 3, 4, 5, 6, 7]}),
    notes=[
        Text("aclnn文档没有给出公式,这里的公式取自算子仓库的README与kernel:梯度在0 < x/6 + 1/2 < 1(即-3 < x < 3)时为"
             "gradOutput/6,x=±3与x为`nan`时为0,与PyTorch的hardsigmoid_backward一致。kernel将x与±3比较;CANN的kernel把"
             "舍入到FLOAT的x/6 + 1/2与0、1比较,对小于3的最大FLOAT也得0(x/6 + 1/2舍入为1)。",
             "The aclnn page gives no formula; this one is the library's README and kernel: gradOutput/6 where "
             "0 < x/6 + 1/2 < 1 (that is -3 < x < 3), 0 at x = ±3 and for a `nan` x, as PyTorch's "
             "hardsigmoid_backward. The kernels compare x with ±3; CANN's kernel compares x/6 + 1/2, rounded to "
             "FLOAT, with 0 and 1, which also gives 0 for the largest FLOAT below 3 (x/6 + 1/2 rounds to 1)."),
        Text("gradOutput与self的数据类型可以不同,按aclnn的类型推导规则推导后计算;out的数据类型须可由推导后的类型转换得到。",
             "gradOutput and self may differ in dtype: they are promoted by aclnn's rules and computed in the "
             "promoted dtype; out's dtype must be one the promoted dtype can be cast to."),
    ],
    torch=Torch("hardsigmoid_backward", "gradOutput", "self"),
    description=Text("激活函数Hardsigmoid的反向传播。", "Backward of the Hardsigmoid activation."),
)
