"""aclnnHardtanhBackward: the gradient of Hardtanh(x) = clamp(x, min, max)."""
from codegen.spec import *

x, g = symbols("x gradOutput", real=True)
lo, hi = symbols("min max", real=True)

SPEC = Op(
    name="aclnnHardtanhBackward",
    forward_name="Hardtanh",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("公式中的gradOutput,上一层传回的梯度,shape与self一致。",
                        "gradOutput in the formula, the incoming gradient; self's shape.")),
        Tensor("self", x, role=FORWARD_INPUT,
               doc=Text("公式中的x,Hardtanh的正向输入。", "x in the formula, the forward input of Hardtanh.")),
        Scalar("min", lo, doc=Text("线性区间的下界。", "the lower bound of the linear range.")),
        Scalar("max", hi, doc=Text("线性区间的上界。", "the upper bound of the linear range.")),
        Output("out", dtype_from="self",
               doc=Text("公式中的out,对x的梯度,shape与self一致。", "out in the formula, the gradient w.r.t. x; self's shape.")),
    ],
    wrt=x,
    # clamp(x, min, max) = min(max(x, min), max): when min > max it is max everywhere
    forward=Piecewise((hi, (x >= hi) | (lo >= hi)), (lo, x <= lo), (x, True)),
    # The library's kernel: 0 at and beyond both bounds, and for min > max everywhere; a `nan` x passes gradOutput.
    backward=Piecewise((0, (x <= lo) | (x >= hi)), (g, True)),
    # the kinks x = min and x = max give 0, as the library's kernel (PyTorch's hardtanh_backward too)
    at={Eq(x, lo): 0, Eq(x, hi): 0},
    dtypes={
        "ascend910": ["FLOAT16", "FLOAT"],
        "ascend310p": ["FLOAT16", "FLOAT"],
        "ascend910b": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend910_93": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend950": ["FLOAT", "FLOAT16", "BFLOAT16"],
        "ascend310b": ["FLOAT", "FLOAT16"],
    },
    null_order=["self", "gradOutput", "out", "min", "max"],
    rules=[
        DtypeSupported("gradOutput", "self", "out"),
        DtypeSame("gradOutput", "self"),
        MaxRank("gradOutput", "self", n=8),
        ShapeSame("gradOutput", "self"),
        ShapeSame("self", "out"),
    ],
    example=Example(shape=(4, 2),
                    values={"gradOutput": [0, 1, 2, 3, 4, 5, 6, 7], "self": [1, 1, 1, 2, 1, 2, 3, 3],
                            "min": 1.2, "max": 2.4}),
    notes=[
        Text("边界取值:按算子kernel与PyTorch的行为,x等于min或max时梯度为0(文档公式写作梯度透传);min大于max时梯度全为0;"
             "x为`nan`时梯度透传。",
             "At the bounds: as the library's kernel and PyTorch do, x equal to min or max gets gradient 0 (the "
             "docs' formula passes the gradient there); with min greater than max every gradient is 0 (the forward "
             "is the constant max); a `nan` x passes gradOutput."),
        Text("out的数据类型只需在支持列表中,可与self不同(结果转换为out的数据类型);out的shape须与self一致(CANN的op_api"
             "不检查,见其ViewCopy)。",
             "out's dtype need only be in the table and may differ from self's (the result is cast to it); out "
             "must have self's shape (CANN's op_api leaves that to its final ViewCopy)."),
    ],
    torch=Torch("hardtanh_backward", "gradOutput", "self", "min", "max"),
    description=Text("激活函数Hardtanh的反向传播。", "Backward of the Hardtanh activation."),
)
