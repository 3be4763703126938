"""aclnnPreluBackward: the gradients of PReLU(x) = x for x > 0, weight[c]·x otherwise, w.r.t. x and the weight.

Two outputs, each proved on its own (codegen.spec.outputs): gradInput w.r.t. self, and gradWeight w.r.t. weight,
summed over every position of its channel.  weight holds one value per channel, dimension 1 of self (PerChannel),
and gradWeight has shape [C] (ChannelGrad), as CANN's op_api checks.  Every backend emits it and it passes the
oracle per output (tests/test_several_outputs.py); the per-op parametrized tests take it like any other op
(tests/samples.py builds its weight per channel and compares every output).
"""
from codegen.spec import *

x, w, g = symbols("self weight gradOutput", real=True)

SPEC = Op(
    name="aclnnPreluBackward",
    forward_name="PReLU",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("PReLU的正向输入x。", "x, the forward input.")),
        Tensor("weight", w, role=OPERAND, doc=Text("负半轴的斜率,每个通道一个。", "the negative slope, one per channel.")),
        Output("gradInput", doc=Text("对self的梯度。", "the gradient w.r.t. self.")),
        Output("gradWeight", wrt=w, sum_to="weight",
               doc=Text("对weight的梯度,在weight被broadcast的轴上求和。",
                        "the gradient w.r.t. weight, summed over the axes along which weight was broadcast.")),
    ],
    wrt=x,
    forward=Piecewise((x, x > 0), (w * x, True)),
    backward=[
        Formula(Piecewise((g, x > 0), (g * w, True))),                       # gradInput (the first output)
        Formula(Piecewise((0, x > 0), (g * x, True)), output="gradWeight"),  # gradWeight, before its sum
    ],
    # x = 0: the library's kernel takes the negative branch (gradInput = weight·gradOutput)
    at={Eq(x, 0): g * w},
    dtypes={
        "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend950": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend910": ["FLOAT", "FLOAT16"],
    },
    rules=[
        DtypeSupported("self"),
        DtypeSame("self", "gradOutput", "weight", "gradInput", "gradWeight"),
        MaxRank("gradOutput", "self", "weight", "gradInput", "gradWeight", n=8),
        ShapeSame("self", "gradInput"),
        PerChannel("weight", "self", dim=1),
        ChannelGrad("gradWeight", "weight", "self", dim=1),
        BroadcastTo("gradOutput", "self"),
        EmptyReturns("gradOutput", "self", "weight"),
    ],
    notes=[
        Text("weight按通道读取:元素个数为1时用于所有通道,否则其C个元素(任意shape,按行优先顺序)排在self的第1维上;"
             "self为1维或0维时没有通道维,weight只能有1个元素。",
             "weight is read per channel: one element serves every channel, otherwise its C elements (any shape, in "
             "row-major order) lie along dimension 1 of self; a self of rank 0 or 1 has no channel axis, so weight "
             "must have one element."),
        Text("gradWeight的shape:CANN文档写作与weight一致,CANN的检查(op_api)要求weight有C≠1个元素时为[C]"
             "(weight为[2, 2]时gradWeight为[4]),只有1个元素时与weight一致;本实现按检查。",
             "gradWeight's shape: CANN's docs say weight's; CANN's check (op_api) requires [C] when weight has "
             "C != 1 elements (a [2, 2] weight takes a [4] gradWeight) and weight's shape when it has one; this "
             "implementation follows the check."),
        Text("输入为空Tensor时第一段接口直接返回成功,gradInput与gradWeight都不写入(与CANN一致)。",
             "An empty input makes phase 1 return success at once; neither gradInput nor gradWeight is written "
             "(as in CANN)."),
    ],
    # CANN's example (examples/test_aclnn_prelu_backward.cpp): x = 0 takes the negative branch
    example=Example(shape=(4, 2), shapes={"weight": (2,), "gradWeight": (2,)},
                    values={"self": list(range(8)), "weight": [0.5, 0.5], "gradOutput": 1.0}),
    description=Text("PReLU的反向传播:计算对输入与对权重的梯度。",
                     "Backward of PReLU: the gradients w.r.t. the input and w.r.t. the weight."),
)
