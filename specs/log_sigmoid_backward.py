"""aclnnLogSigmoidBackward: the gradient of LogSigmoid(x) = log(1 / (1 + exp(-x)))."""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)

ALL = ["gradOutput", "self", "buffer", "gradInput"]
CHECKED = ["gradOutput", "self", "gradInput"]   # CANN checks no dtype or shape of buffer, which it never reads

SPEC = Op(
    name="aclnnLogSigmoidBackward",
    forward_name="LogSigmoid",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,上一层传回的梯度。", "gradOutput in the formula, the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("公式中的x,LogSigmoid的正向输入。", "x in the formula, the forward input of LogSigmoid.")),
        Tensor("buffer", role=UNUSED,
               doc=Text("正向计算的中间结果,暂不使用,但不能为空。",
                        "the forward pass's intermediate result; unused, but must not be null.")),
        Output("gradInput",
               doc=Text("公式中的gradInput,对正向输入x的梯度。", "gradInput in the formula, the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=log(1 / (1 + exp(-x))),
    backward=g / (1 + exp(x)),
    dtypes={
        "ascend910": ["FLOAT16", "FLOAT"],
        "ascend310p": ["FLOAT16", "FLOAT"],
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend950": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported(*CHECKED),
        DtypeSame(*CHECKED),
        # buffer's dtype is checked here, though CANN does not (see the notes): a Python call may pass anything
        # for it, and the C backend must be able to hand it to C
        DtypeSupported("buffer"),
        MaxRank(*ALL, n=16),
        ShapeSame(*CHECKED),
    ],
    notes=[
        Text("与旧版文档不同(以当前CANN算子库的参数校验为准):buffer的数据类型与shape无需与其他Tensor一致"
             "(CANN均不校验;此处其数据类型须为当前产品支持的类型);"
             "不限制维度为8维(CANN的op_api单元测试以9维运行),此处上限为aclCreateTensor所接受的16维。",
             "Unlike the older aclnn page, as the current CANN library checks: buffer need not have the dtype or the "
             "shape of the other tensors (CANN checks neither; here its dtype must be one the product supports); there is no limit of 8 dimensions (CANN's op_api unit test runs 9), "
             "here the limit is the 16 that aclCreateTensor accepts."),
        Text("与CANN的op_api单元测试不同:含负数维度的shape在创建aclTensor时即被拒绝(aclCreateTensor返回空指针),"
             "不会进入一段接口。",
             "Unlike CANN's op_api unit test: a shape with negative dimensions is refused when the aclTensor is "
             "created (aclCreateTensor returns NULL), before phase 1."),
    ],
    # the aclnn page's call example and the results it prints (ascend.md §4)
    example=Example(shape=(2, 2),
                    values={"gradOutput": [1, 1, 1, 1], "self": [1, 2, 3, 4], "buffer": [1, 2, 3, 4]},
                    expected=[0.2689414, 0.1192029, 0.0474259, 0.0179862]),
    description=Text(
        "LogSigmoid的反向传播,根据上一层传播的梯度与LogSigmoid正向输入计算其梯度输入。",
        "Backward of LogSigmoid: the gradient w.r.t. the forward input, from the incoming gradient and that input."),
)
