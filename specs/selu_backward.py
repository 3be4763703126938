"""aclnnSeluBackward: the gradient of SELU, from the forward's result y."""
from codegen.spec import *

x, y, g = symbols("x result gradOutput", real=True)
# SELU's constants, to the digits the library's README gives
alpha = Float("1.6732632423543772848170429916717", 40)
scale = Float("1.0507009873554804934193349852946", 40)

SPEC = Op(
    name="aclnnSeluBackward",
    forward_name="SELU",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的dE/dy,上一层传回的梯度。", "dE/dy in the formula, the incoming gradient.")),
        Tensor("result", y, role=FORWARD_OUTPUT,
               doc=Text("SELU正向的输出y。", "y, the output of the forward SELU.")),
        Output("gradInput", doc=Text("公式中的dE/dx,对x的梯度。", "dE/dx in the formula, the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=Piecewise((scale * x, x > 0), (scale * alpha * (exp(x) - 1), True)),
    # In y, as the library's README and kernel compute it: y == 0 takes the y <= 0 branch (the kernel's mask).
    backward=Piecewise((g * scale, y > 0), (g * (y + scale * alpha), True)),
    # the kink x = 0 (y = 0) takes the y <= 0 branch: gradOutput*scale*alpha
    at={Eq(x, 0): g * scale * alpha},
    dtypes={
        "ascend910": ["FLOAT", "FLOAT16", "INT32", "INT8"],
        "ascend310p": ["FLOAT", "FLOAT16", "INT32", "INT8"],
        "ascend910b": ["FLOAT", "FLOAT16", "INT32", "INT8", "BFLOAT16"],
        "ascend910_93": ["FLOAT", "FLOAT16", "INT32", "INT8", "BFLOAT16"],
        "ascend950": ["FLOAT", "FLOAT16", "INT32", "INT8", "BFLOAT16"],
    },
    # integers are converted to FLOAT, computed in FLOAT and rounded back (the library's kernel: CAST_RINT)
    compute={"INT32": "FLOAT", "INT8": "FLOAT"},
    rules=[
        DtypeSame("gradOutput", "result", "gradInput"),
        DtypeSupported("gradOutput", "result", "gradInput"),
        ShapeSame("gradOutput", "result", "gradInput"),
    ],
    example=Example(shape=(4, 2), values={"gradOutput": 1, "result": [-2, -1, 0, 1, 2, 3, -0.5, 0.5]}),
    notes=[
        Text("文档的公式写在x上且少了SELU的scale;这里按算子README与kernel,在正向输出y上计算:y>0时为scale*gradOutput,"
             "y<=0时为gradOutput*(y+scale*alpha)(y=0取后者,与kernel和PyTorch一致)。",
             "The docs' formula is written in x and leaves out SELU's scale; here it is computed in the forward "
             "output y, as the library's README and kernel do: scale*gradOutput for y > 0, "
             "gradOutput*(y + scale*alpha) for y <= 0 (y = 0 takes the latter, as the kernel and PyTorch)."),
        Text("不限制维数:CANN把8维以上的输入展平计算(文档写1-8维)。", "No rank limit: CANN flattens inputs of more "
             "than 8 dimensions (the docs say 1-8)."),
    ],
    # PyTorch's SELU backward: ELU's, from the result, with SELU's constants
    torch=Torch("elu_backward", "gradOutput", Const(float(alpha)), Const(float(scale)), 1.0, True, "result"),
    description=Text("SELU激活函数的反向传播。", "Backward of the SELU activation."),
)
