"""aclnnMishBackward: the gradient of Mish(x) = x * tanh(softplus(x))."""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)
t = tanh(log1p(exp(x)))   # tanh(softplus(x))

SPEC = Op(
    name="aclnnMishBackward",
    forward_name="Mish",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的grad,上一层传回的梯度,与self满足broadcast关系。",
                        "grad in the formula, the incoming gradient; broadcasts with self.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("公式中的x,Mish的正向输入,与gradOutput满足broadcast关系。",
                        "x in the formula, the forward input of Mish; broadcasts with gradOutput.")),
        Output("gradInput", dtype_from=("gradOutput", "self"),
               doc=Text("对x的梯度,shape为gradOutput与self broadcast后的shape。",
                        "the gradient w.r.t. x; its shape is the broadcast of gradOutput's and self's.")),
    ],
    wrt=x,
    forward=x * t,
    # the form of the library's experimental docs: grad*(tanhx + x*(1 - tanhx**2)*sigmoid(x))
    backward=g * (t + x * (1 - t**2) * sigmoid(x)),
    dtypes={
        "ascend910": ["FLOAT", "FLOAT16"],
        "ascend310p": ["FLOAT", "FLOAT16"],
        "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend950": ["FLOAT", "FLOAT16", "BFLOAT16"],
    },
    rules=[
        PromotedCastable("gradInput", "self"),
        DtypeSupported("gradOutput", "self", "gradInput"),
        MaxRank("gradOutput", "self", "gradInput", n=8),
        Broadcastable("self", "gradOutput"),
        ShapeIsBroadcast("gradInput", "self", "gradOutput"),
        EmptyReturns("self", "gradOutput", "gradInput"),
    ],
    example=Example(shape=(4, 2), values={"gradOutput": [0, 1, 2, 3, 4, 5, 6, 7], "self": [1, 1, 1, 2, 2, 2, 3, 3]}),
    notes=[
        Text("aclnn文档未给出公式;这里按算子库experimental目录的文档与kernel(arch35的MishGrad)计算精确导数"
             "grad·(tanh(softplus(x)) + x·(1-tanh²(softplus(x)))·σ(x)),与PyTorch的mish_backward一致。x=±inf时为`nan`。",
             "The aclnn docs give no formula: this is the exact derivative grad·(tanh(softplus(x)) + "
             "x·(1 - tanh²(softplus(x)))·σ(x)), as the library's experimental docs and its kernel (arch35 "
             "MishGrad) compute it and as PyTorch's mish_backward does. x = ±inf gives `nan`."),
        Text("gradOutput与self的数据类型可以不同,在推导后的类型中计算,结果转换为gradInput的类型;self的类型须能转换为gradInput的"
             "类型(最先检查)。文档称不支持空Tensor,但CANN的op_api在任一Tensor为空时返回成功,这里与op_api一致。",
             "gradOutput and self may differ in dtype: computed in the promoted dtype and cast to gradInput's; "
             "self's dtype must cast to gradInput's (checked first). The docs say empty tensors are not "
             "supported, but CANN's op_api succeeds when any tensor is empty; so does this one."),
    ],
    torch=Torch("mish_backward", "gradOutput", "self"),
    description=Text("Mish激活函数的反向传播。", "Backward of the Mish activation."),
)
