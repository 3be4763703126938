"""aclnnSineActivationBackward: the gradient of SIREN's activation sin(omega0*x) (Sitzmann et al., 2020).

omega0 is a double attribute (30 in SIREN's layers).  d/dx = omega0*cos(omega0*x).  omega0*x leaves FLOAT for
|x| > 3.4e38/|omega0|, where the kernels give nan (sin and cos of an argument FLOAT cannot hold), as PyTorch's
FLOAT does.  (Ascend C reduces |omega0*x| > 65536 by Payne-Hanek: docs/vocabulary.md.)
"""
from codegen.spec import *

x, g, w = symbols("x gradOutput omega0", real=True)

SPEC = Op(
    name="aclnnSineActivationBackward",
    forward_name="SineActivation",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度。", "the incoming gradient.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
        Attr("omega0", w, type="double", doc=Text("频率ω0(SIREN中为30)。", "the frequency ω0 (30 in SIREN).")),
        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
    wrt=x,
    forward=sin(w * x),
    backward=g * w * cos(w * x),
    dtypes={
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", "gradInput"),
        MaxRank("gradOutput", "self", "gradInput", n=8),
        ShapeSame("gradOutput", "self", "gradInput"),
    ],
    torch=TorchGrad(lambda torch, x, w: torch.sin(w * x), "self", "omega0"),
    description=Text("SIREN正弦激活sin(ω0·x)的反向传播。", "Backward of SIREN's sine activation sin(ω0·x)."),
)
