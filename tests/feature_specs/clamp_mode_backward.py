"""aclnnClampModeBackward: not a CANN operator -- a spec that uses the language features no catalog operator
combines: an order of two scalars as a precondition (`Requires("high", low <= high)`), a string attribute that
chooses the form, and a float attribute read by one form (tests/test_specs_and_cli.py)."""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)
low, high, factor = symbols("low high factor", real=True)

SPEC = Op(
    name="aclnnClampModeBackward",
    forward_name="ClampMode",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向的输入x。", "x, the forward input.")),
        Scalar("low", low, doc=Text("下界。", "the lower bound.")),
        Scalar("high", high, doc=Text("上界,不小于low。", "the upper bound, at least low.")),
        Attr("mode", type="string", values={"plain": "the clamp", "scaled": "factor times the clamp"},
             doc=Text("plain或scaled。", "plain or scaled.")),
        Attr("factor", factor, type="float", doc=Text("scaled的系数。", "the factor of scaled.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=Piecewise((high, x >= high), (low, x <= low), (x, True)),
    backward=[
        Formula(Piecewise((g, (x > low) & (x < high)), (0, True)), when={"mode": "plain"}),
        Formula(Piecewise((g * factor, (x > low) & (x < high)), (0, True)), when={"mode": "scaled"},
                forward=factor * Piecewise((high, x >= high), (low, x <= low), (x, True))),
    ],
    # the kinks x = low and x = high give 0 (the open interval), in both forms
    at={Eq(x, low): 0, Eq(x, high): 0},
    dtypes={"ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"]},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        ShapeSame("gradOutput", "self", "gradInput"),
        Requires("high", low <= high),
        OneOf("mode", ["plain", "scaled"]),
    ],
    example=Example(shape=(2, 2), values={"gradOutput": [1, 2, 3, 4], "self": [-2, 0.5, 1.5, 3], "low": -1.0,
                                          "high": 2.0, "mode": "scaled", "factor": 0.5}),
    description=Text("一个测试用的算子。", "An operator for the tests."),
)
