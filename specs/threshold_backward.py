"""aclnnThresholdBackward: the gradient of Threshold (x above threshold, a constant below)."""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)
th = Symbol("threshold", real=True)

SPEC = Op(
    name="aclnnThresholdBackward",
    forward_name="Threshold",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,与self满足broadcast关系。", "gradOutput in the formula; broadcasts with self.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("公式中的self,Threshold的正向输入。", "self in the formula, the forward input of Threshold.")),
        Scalar("threshold", th, doc=Text("公式中的threshold。", "threshold in the formula.")),
        Output("out", dtype_from="self",
               doc=Text("对self的梯度,shape为gradOutput与self broadcast后的shape,数据类型与self一致。",
                        "the gradient w.r.t. self; its shape is the broadcast of gradOutput's and self's, its "
                        "dtype self's.")),
    ],
    wrt=x,
    forward=Piecewise((x, x > th), (0, True)),
    # x == threshold gives 0; a nan x passes gradOutput (the kernel tests x <= threshold)
    backward=Piecewise((0, x <= th), (g, True)),
    # the jump x = threshold gives 0, the kernel's x <= threshold
    at={Eq(x, th): 0},
    dtypes={
        "ascend910": ["FLOAT", "FLOAT16", "INT32", "INT8", "UINT8"],
        "ascend310p": ["FLOAT", "FLOAT16", "INT32", "INT8", "UINT8"],
        "ascend910b": ["FLOAT", "BFLOAT16", "FLOAT16", "INT32", "INT8", "UINT8"],
        "ascend910_93": ["FLOAT", "BFLOAT16", "FLOAT16", "INT32", "INT8", "UINT8"],
        "ascend950": ["FLOAT", "BFLOAT16", "FLOAT16", "INT32", "INT8", "UINT8"],
    },
    # integers select gradOutput as it is: computed in DOUBLE, which holds every one of them exactly
    compute={"INT32": "DOUBLE", "INT8": "DOUBLE", "UINT8": "DOUBLE"},
    null_order=["threshold", "out", "gradOutput", "self"],
    rules=[
        DtypeSupported("gradOutput", "self"),
        DtypeSame("self", "gradOutput", "out"),
        MaxRank("gradOutput", "self", n=8),
        Broadcastable("self", "gradOutput"),
        ShapeIsBroadcast("out", "self", "gradOutput"),
    ],
    example=Example(shape=(2, 2), values={"self": [0.2, 1.2, 2.2, 3.2], "gradOutput": [4.5, 4.4, 4.3, 4.2],
                                          "threshold": 1.0}),
    notes=[
        Text("x等于threshold时梯度为0,x为`nan`时梯度透传,与PyTorch的threshold_backward一致。CANN在|threshold|小于"
             "FLT_EPSILON时改用ReluGrad(gradOutput乘以x>0的掩码,与0比较):那时x<=0处无穷大或`nan`的gradOutput得到`nan`"
             "而不是0,0与threshold之间的x按0判断;这里总按threshold选择。",
             "x equal to threshold gives 0 and a `nan` x passes gradOutput, as PyTorch's threshold_backward. CANN "
             "switches to ReluGrad when |threshold| is below FLT_EPSILON (gradOutput times the mask x > 0, "
             "compared with 0): there an infinite or `nan` gradOutput at x <= 0 gives `nan` instead of 0, and an x "
             "between 0 and threshold is judged against 0; here the selection against threshold always applies."),
    ],
    torch=Torch("threshold_backward", "gradOutput", "self", "threshold"),
    description=Text("Threshold激活函数的反向传播。", "Backward of the Threshold activation."),
)
