"""aclnnSoftplusBackward: the gradient of Softplus(x) = log(1 + exp(beta*x)) / beta (x where beta*x > threshold)."""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)
beta, threshold = symbols("beta threshold", real=True)

FLOATS = {
    "ascend910": ["FLOAT", "FLOAT16", "DOUBLE"],
    "ascend910b": ["FLOAT", "FLOAT16", "DOUBLE", "BFLOAT16"],
    "ascend910_93": ["FLOAT", "FLOAT16", "DOUBLE", "BFLOAT16"],
    "ascend950": ["FLOAT", "FLOAT16", "DOUBLE", "BFLOAT16"],
}
INTS = ["INT8", "INT16", "INT32", "INT64", "UINT8", "BOOL"]

SPEC = Op(
    name="aclnnSoftplusBackward",
    forward_name="Softplus",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,上一层传回的梯度。", "gradOutput in the formula, the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, dtypes={soc: dts + INTS for soc, dts in FLOATS.items()},
               doc=Text("公式中的x,Softplus的正向输入。", "x in the formula, the forward input of Softplus.")),
        Scalar("beta", beta, doc=Text("公式中的β。", "β in the formula.")),
        Scalar("threshold", threshold, doc=Text("公式中的threshold,β*x大于它时梯度为gradOutput。",
                                                "threshold in the formula: above it (in β*x) the gradient is "
                                                "gradOutput.")),
        Output("gradInput", dtype_from="gradOutput",
               doc=Text("对x的梯度,shape与self一致。", "the gradient w.r.t. x; self's shape.")),
    ],
    wrt=x,
    forward=Piecewise((x, beta * x > threshold), (log(1 + exp(beta * x)) / beta, True)),
    # beta*x == threshold takes the sigmoid branch (the docs and the library's kernel): the forward jumps there
    # for every threshold but the one where both branches meet
    at={Eq(beta * x, threshold): g / (1 + exp(-threshold))},
    backward=[Formula(Piecewise((g, beta * x > threshold), (g / (1 + exp(-beta * x)), True)),
                      assume=(Ne(beta, 0),))],
    dtypes=FLOATS,
    # the library casts every dtype outside FLOAT16, BFLOAT16 and FLOAT to FLOAT first, DOUBLE too
    compute={"DOUBLE": "FLOAT", **{d: "FLOAT" for d in INTS}},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        MaxRank("gradOutput", "self", "gradInput", n=8),
        ShapeSame("self", "gradOutput", "gradInput"),
    ],
    example=Example(shape=(4, 2), values={"gradOutput": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
                                          "self": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
                                          "beta": 1.1, "threshold": 1.2}),
    notes=[
        Text("β=0时正向没有定义,反向按β趋于0的极限计算(β*x=0,不大于threshold≥0时取sigmoid分支,梯度为gradOutput/2);"
             "CANN不拒绝β=0。",
             "At β = 0 the forward is not defined; the backward is its limit as β goes to 0 (β*x = 0, the sigmoid "
             "branch while threshold >= 0: gradOutput/2). CANN does not refuse β = 0."),
        Text("beta与threshold为空指针时返回ACLNN_ERR_PARAM_NULLPTR,如文档所写(CANN的op_api不检查,会解引用空指针)。",
             "A null beta or threshold returns ACLNN_ERR_PARAM_NULLPTR, as the docs say (CANN's op_api does not "
             "check them and dereferences the null pointer)."),
        Text("gradOutput、self与gradInput的数据类型可以不同,都在FLOAT中计算。",
             "gradOutput, self and gradInput may differ in dtype; everything is computed in FLOAT."),
    ],
    torch=Torch("softplus_backward", "gradOutput", "self", "beta", "threshold"),
    description=Text("Softplus激活函数的反向传播。", "Backward of the Softplus activation."),
)
