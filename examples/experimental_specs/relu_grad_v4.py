"""aclnnReluGradV4 (CANN experimental/activation/relu_grad_v4): out = gradOutput where the UINT8 mask self != 0,
else 0; self is the mask relu's forward kept (1 where x > 0), threshold must be 0."""
from codegen.spec import *

x, m, g, thr = symbols("x self gradOutput threshold", real=True)

SPEC = Op(
    name="aclnnReluGradV4",
    forward_name="relu",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        # the mask is not relu(x) but is nonzero exactly where relu(x) is: the spec says it holds relu(x)
        Tensor("self", m, role=FORWARD_OUTPUT, dtypes={"ascend910b": ["UINT8"]},
               doc=Text("正向的掩码:x > 0处非0。", "the forward's mask: nonzero where x > 0.")),
        Scalar("threshold", thr, dtype="FLOAT", doc=Text("阈值,须为0。", "the threshold; must be 0.")),
        Output("out", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=Piecewise((x, x > 0), (0, True)),
    backward=Piecewise((g, Ne(m, 0)), (0, True)),
    at={Eq(x, 0): 0},
    dtypes={"ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16", "INT8", "UINT8", "INT32"]},
    compute={"INT32": "DOUBLE", "INT8": "DOUBLE", "UINT8": "DOUBLE"},
    rules=[
        DtypeSupported("gradOutput", "self", "out"),   # self against its own table: UINT8
        DtypeSame("gradOutput", "out"),
        MaxRank("gradOutput", "self", "out", n=8),
        ShapeSame("gradOutput", "self", "out"),
        Requires("threshold", Eq(thr, 0)),
    ],
    description=Text("ReLU以掩码表示的反向传播。", "Backward of ReLU from its mask."),
)
