"""aclnnEluBackward: the gradient of ELU, from the forward input (isResult false) or output (isResult true)."""
from codegen.spec import *

x, g, v = symbols("x gradOutput selfOrResult", real=True)
alpha, scale, input_scale = symbols("alpha scale inputScale", real=True)
is_result = Symbol("isResult")

SPEC = Op(
    name="aclnnEluBackward",
    forward_name="ELU",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("ELU正向输出的梯度。", "the gradient w.r.t. the ELU output.")),
        Scalar("alpha", alpha, doc=Text("ELU的激活系数α。", "α, the ELU activation coefficient.")),
        Scalar("scale", scale, doc=Text("ELU的缩放系数。", "the ELU output scale.")),
        Scalar("inputScale", input_scale, doc=Text("ELU输入的缩放系数。", "the ELU input scale.")),
        Attr("isResult", is_result, type="bool",
             doc=Text("selfOrResult是否为ELU正向的输出。", "whether selfOrResult holds the ELU forward output.")),
        Tensor("selfOrResult", v, role=FORWARD_INPUT,
               doc=Text("isResult为false时是ELU正向的输入x,为true时是正向的输出y。",
                        "the forward input x when isResult is false, the forward output y when it is true.")),
        Output("gradInput", dtype_from="gradOutput",
               doc=Text("对ELU正向输入的梯度,数据类型须可由gradOutput转换得到。",
                        "the gradient w.r.t. the ELU input; its dtype must be castable from gradOutput's.")),
    ],
    wrt=x,
    forward=Piecewise((scale * x, x > 0), (scale * alpha * (exp(x * input_scale) - 1), True)),
    # the forward has a kink at x == 0: aclnn takes the `<= 0` branch there, in both forms
    at={Eq(x, 0): g * input_scale * alpha * scale},
    backward=[
        Formula(Piecewise((g * scale, v > 0), (g * input_scale * alpha * scale * exp(v * input_scale), True)),
                when={"isResult": False}),
        Formula(Piecewise((g * scale, v > 0), (g * input_scale * (v + alpha * scale), True)),
                when={"isResult": True}, roles={"selfOrResult": FORWARD_OUTPUT},
                assume=(scale > 0, input_scale > 0)),
    ],
    dtypes={
        "ascend910": ["FLOAT", "FLOAT16"],
        "ascend310p": ["FLOAT", "FLOAT16"],
        "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend950": ["FLOAT", "FLOAT16", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "selfOrResult", "gradInput"),
        DtypeSame("gradOutput", "selfOrResult"),
        DtypeCastable("gradOutput", "gradInput"),
        MaxRank("gradOutput", "selfOrResult", "gradInput", n=8),
        ShapeSame("gradOutput", "selfOrResult", "gradInput"),
        Requires("alpha", alpha >= 0, when=is_result),
    ],
    notes=[
        Text("与CANN的op_api单元测试不同:gradInput须为当前产品支持的浮点类型;CANN允许gradOutput的类型可转换到的任何类型"
             "(其单元测试将FLOAT结果写入COMPLEX64的gradInput)。BOOL类型的aclScalar与非数(not-a-number)的alpha(isResult为true时)"
             "被拒绝(161002),CANN接受前者,其“alpha < 0”判断对非数不成立。",
             "Unlike CANN's op_api unit test: gradInput must have a float dtype the product supports; CANN takes any "
             "dtype gradOutput's can be cast to (its unit test writes a FLOAT result to a COMPLEX64 gradInput). "
             "A BOOL aclScalar and a not-a-number alpha with isResult true are refused (161002): CANN takes the former, and "
             "its `alpha < 0` test lets it through."),
    ],
    # the aclnn page's call example and the results it prints (ascend.md §4)
    example=Example(shape=(2, 2),
                    values={"gradOutput": [-2, -1, 0, 1], "selfOrResult": [-2, -1, 0, 1], "alpha": 1, "scale": 1,
                            "inputScale": 1, "isResult": True},
                    expected=[2, 0, 0, 1]),
    description=Text(
        "完成ELU激活函数的反向计算,输出ELU激活函数正向输入的梯度。",
        "Backward of the ELU activation: the gradient w.r.t. the ELU forward input."),
)
