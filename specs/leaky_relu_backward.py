"""aclnnLeakyReluBackward: the gradient of LeakyReLU, from the forward input or (selfIsResult) its output."""
from codegen.spec import *

x, g, v = symbols("x gradOutput self", real=True)
slope = Symbol("negativeSlope", real=True)
is_result = Symbol("selfIsResult")

SPEC = Op(
    name="aclnnLeakyReluBackward",
    forward_name="LeakyRelu",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,与self满足broadcast关系。", "gradOutput in the formula; broadcasts with self.")),
        Tensor("self", v, role=FORWARD_INPUT,
               doc=Text("公式中的self:selfIsResult为false时是正向的输入x,为true时是正向的输出。",
                        "self in the formula: the forward input x when selfIsResult is false, the forward output "
                        "when it is true.")),
        Scalar("negativeSlope", slope, doc=Text("公式中的negativeSlope,x小于等于0时的斜率。",
                                                 "negativeSlope in the formula, the slope for x <= 0.")),
        Attr("selfIsResult", is_result, type="bool",
             doc=Text("self是否为正向的输出。", "whether self holds the forward output.")),
        Output("out", dtype_from=("gradOutput", "self"),
               doc=Text("对x的梯度,shape为gradOutput与self broadcast后的shape。",
                        "the gradient w.r.t. x; its shape is the broadcast of gradOutput's and self's.")),
    ],
    wrt=x,
    forward=Piecewise((x, x > 0), (slope * x, True)),
    # the kink x = 0 takes the slope branch, as the library's kernel (self > 0 is false there)
    at={Eq(x, 0): g * slope},
    backward=[
        # x == 0 (and a nan x) take the slope branch
        Formula(Piecewise((g, v > 0), (g * slope, True)), when={"selfIsResult": False}),
        Formula(Piecewise((g, v > 0), (g * slope, True)), when={"selfIsResult": True},
                roles={"self": FORWARD_OUTPUT}),
    ],
    dtypes={
        "ascend910": ["FLOAT", "FLOAT16", "DOUBLE"],
        "ascend310p": ["FLOAT", "FLOAT16", "DOUBLE"],
        "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16", "DOUBLE"],
        "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16", "DOUBLE"],
        "ascend950": ["FLOAT", "FLOAT16", "BFLOAT16", "DOUBLE"],
    },
    # DOUBLE runs on the library's AI CPU kernel, in DOUBLE
    compute={"DOUBLE": "DOUBLE"},
    rules=[
        DtypeSupported("gradOutput", "self"),
        MaxRank("gradOutput", "self", n=8),
        Broadcastable("gradOutput", "self"),
        ShapeIsBroadcast("out", "gradOutput", "self"),
        Requires("negativeSlope", slope >= 0, when=is_result),
        PromotedCastable("out", "gradOutput", "self"),
        EmptyReturns("self"),
    ],
    example=Example(shape=(4,), values={"gradOutput": [2, 3, 4, 5], "self": [1, 2, 3, 4], "negativeSlope": 0.01,
                                        "selfIsResult": True}),
    notes=[
        Text("selfIsResult为true时self是正向的输出y,negativeSlope须大于等于0(此时y与x同号,同一判断适用)。",
             "With selfIsResult true, self holds the forward output y and negativeSlope must be at least 0 (y "
             "then has x's sign, so the same test applies)."),
        Text("gradOutput与self的数据类型可以不同,按aclnn的类型推导规则推导后计算;out的数据类型须可由推导后的类型转换得到。"
             "只有self为空Tensor时在最后提前返回成功。",
             "gradOutput and self may differ in dtype: they are promoted by aclnn's rules and computed in the "
             "promoted dtype, which must cast to out's. Only an empty self returns success early, after every "
             "check."),
    ],
    torch=Torch("leaky_relu_backward", "gradOutput", "self", "negativeSlope", "selfIsResult"),
    description=Text("LeakyRelu激活函数的反向传播。", "Backward of the LeakyRelu activation."),
)
