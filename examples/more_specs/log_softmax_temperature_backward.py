"""aclnnLogSoftmaxTemperatureBackward: the gradient of log_softmax(x / tau) along `dim`, from the forward's output
y, tau > 0 a host scalar (distillation's log-probabilities; not a CANN operator: written in aclnn's conventions):
dx = (g - exp(y) * sum(g)) / tau."""
from codegen.spec import *

z, y, g, tau = symbols("z output gradOutput tau", real=True)
dim = Symbol("dim", integer=True)

FLOATS = ["FLOAT16", "FLOAT", "BFLOAT16"]
SPEC = Op(
    name="aclnnLogSoftmaxTemperatureBackward",
    forward_name="log_softmax_temperature",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("output", y, role=FORWARD_OUTPUT, doc=Text("正向输出y。", "y, the forward output.")),
        Attr("dim", dim, type="int64", doc=Text("log_softmax计算的维度。", "the dimension log_softmax ran along.")),
        Scalar("tau", tau, dtype="FLOAT", doc=Text("温度τ,须大于0。", "the temperature τ; must be positive.")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=z,
    forward=z / tau - log(DimSum(exp(z / tau))),
    reduce_dim="dim",
    backward=(g - exp(y) * DimSum(g)) / tau,
    dtypes={"ascend910b": FLOATS, "ascend910_93": FLOATS},
    rules=[
        DtypeSupported("gradOutput", "output", "gradInput"),
        DtypeSame("gradOutput", "output", "gradInput"),
        MaxRank("gradOutput", "output", "gradInput", n=8),
        ShapeSame("gradOutput", "output", "gradInput"),
        DimInRange("dim", "gradOutput"),
        Requires("tau", tau > 0),
    ],
    description=Text("带温度的log_softmax的反向传播。", "Backward of log_softmax with a temperature."),
)
