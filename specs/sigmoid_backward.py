"""aclnnSigmoidBackward: the gradient of sigmoid, from the forward's output y."""
from codegen.spec import *

z, y, g = symbols("x output gradOutput", real=True)

SPEC = Op(
    name="aclnnSigmoidBackward",
    forward_name="sigmoid",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的grad_output,与output满足broadcast关系。",
                        "grad_output in the formula; broadcasts with output.")),
        Tensor("output", y, role=FORWARD_OUTPUT,
               doc=Text("公式中的σ(x),sigmoid正向的输出,与gradOutput满足broadcast关系。",
                        "σ(x) in the formula, the output of the forward sigmoid; broadcasts with gradOutput.")),
        Output("gradInput", dtype_from=("gradOutput", "output"),
               doc=Text("公式中的grad_input,shape为gradOutput与output broadcast后的shape。",
                        "grad_input in the formula; its shape is the broadcast of gradOutput's and output's.")),
    ],
    wrt=z,
    forward=1 / (1 + exp(-z)),
    backward=g * y * (1 - y),
    dtypes={
        "ascend910": ["FLOAT", "FLOAT16", "DOUBLE", "COMPLEX64", "COMPLEX128"],
        "ascend310p": ["FLOAT", "FLOAT16", "DOUBLE", "COMPLEX64", "COMPLEX128"],
        "ascend910b": ["FLOAT", "FLOAT16", "DOUBLE", "COMPLEX64", "COMPLEX128", "BFLOAT16"],
        "ascend910_93": ["FLOAT", "FLOAT16", "DOUBLE", "COMPLEX64", "COMPLEX128", "BFLOAT16"],
        "ascend950": ["FLOAT", "FLOAT16", "DOUBLE", "COMPLEX64", "COMPLEX128", "BFLOAT16"],
    },
    # DOUBLE and the complex dtypes run on the library's AI CPU kernel, in DOUBLE and complex double (for complex
    # dtypes the gradient is gradOutput * conj(output * (1 - output)): its attr complex_conj)
    compute={"DOUBLE": "DOUBLE", "COMPLEX64": "COMPLEX", "COMPLEX128": "COMPLEX"},
    rules=[
        DtypeSupported("gradOutput", "output", "gradInput"),
        MaxRank("gradOutput", "output", n=8),
        PromotedSupported("gradOutput", "output"),
        PromotedCastable("gradInput", "gradOutput", "output"),
        Broadcastable("gradOutput", "output"),
        ShapeIsBroadcast("gradInput", "gradOutput", "output"),
    ],
    example=Example(shape=(2, 2), values={"gradOutput": 1, "output": [1, 2, 3, 4]}),
    notes=[
        Text("output不检查取值范围:超出(0, 1)的值照公式计算(调用示例中的1、2、3、4即如此)。",
             "output's values are not checked: values outside (0, 1) are computed by the formula (as the call "
             "example's 1, 2, 3, 4 are)."),
    ],
    torch=Torch("sigmoid_backward", "gradOutput", "output"),
    description=Text("sigmoid函数的反向传播:根据sigmoid的输出与上一层的梯度,计算对sigmoid输入的梯度。",
                     "Backward of sigmoid: from the sigmoid output and the incoming gradient, the gradient w.r.t. the "
                     "sigmoid input."),
)
