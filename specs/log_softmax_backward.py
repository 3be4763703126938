"""aclnnLogSoftmaxBackward: the vector-Jacobian product of log_softmax along `dim`, from the forward's output."""
from codegen.spec import *

z, y, g, dim = symbols("z output gradOutput dim", real=True)

SPEC = Op(
    name="aclnnLogSoftmaxBackward",
    forward_name="LogSoftmax",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("反向传播的梯度值,即上一层的输出梯度。公式中的gradOutput。",
                        "the incoming gradient, w.r.t. the log_softmax output; gradOutput in the formula.")),
        Tensor("output", y, role=FORWARD_OUTPUT,
               doc=Text("aclnnLogSoftmax函数的输出值。公式中的output,shape和数据类型与gradOutput一致。",
                        "the output of the forward log_softmax (log-probabilities); output in the formula; "
                        "gradOutput's shape and dtype.")),
        Attr("dim", dim, type="int64",
             doc=Text("log_softmax计算所沿的维度,取值范围[-n, n-1](n为gradOutput的维数,0维按1维计)。",
                      "the dimension the log_softmax was taken along, in [-n, n-1] (n is gradOutput's rank; rank "
                      "0 counts as 1).")),
        Output("out", dtype_from="gradOutput",
               doc=Text("对log_softmax正向输入的梯度,shape与gradOutput一致;数据类型不检查,结果转换为out的数据类型。",
                        "the gradient w.r.t. the log_softmax input; gradOutput's shape; its dtype is not checked, "
                        "the result is cast to it.")),
    ],
    wrt=z,
    forward=z - log(DimSum(exp(z))),
    reduce_dim="dim",
    backward=g - exp(y) * DimSum(g),
    dtypes={
        "ascend910": ["FLOAT16", "FLOAT"],
        "ascend310p": ["FLOAT16", "FLOAT"],
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend950": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    # the library's order (op_api/aclnn_logsoftmax_backward.cpp): output's null check first; on every product
    # listed here an empty gradOutput or output returns success before any other check; output's dtype is
    # checked before gradOutput's; out's dtype is not checked at all (the result is cast to it)
    null_order=["output", "gradOutput", "out"],
    rules=[
        EmptyReturns("gradOutput", "output"),
        DtypeSupported("output", "gradOutput"),
        DtypeSame("gradOutput", "output"),
        MaxRank("gradOutput", "output", n=8),
        ShapeSame("gradOutput", "output", "out"),
        DimInRange("dim", "gradOutput"),
    ],
    # the aclnn page's call example (its "log-probabilities" are positive: not a real log_softmax output)
    example=Example(shape=(4, 2),
                    values={"gradOutput": [0, 1, 2, 3, 4, 5, 6, 7], "output": [1, 1, 1, 2, 2, 2, 3, 3], "dim": 0}),
    notes=[
        Text("out的数据类型不检查:结果按FLOAT计算后转换为out的数据类型(文档:其他数据类型通过自动cast能力支持);复数类型没有"
             "kernel,返回ACLNN_ERR_INNER_FIND_KERNEL_ERROR。",
             "out's dtype is not checked: the result is computed in FLOAT and cast to it (the docs: other dtypes are "
             "supported by an automatic cast); complex dtypes have no kernel and return "
             "ACLNN_ERR_INNER_FIND_KERNEL_ERROR."),
        Text("gradOutput或output为空Tensor时,在其他检查之前直接返回成功(算子库在Ascend 950以外的产品上如此)。dim的取值范围为"
             "[-n, n-1]:文档写的[-n, n]在dim=n时与算子库不符(dim=n返回ACLNN_ERR_PARAM_INVALID)。",
             "An empty gradOutput or output returns success before any other check (the library does so on every "
             "product but the Ascend 950). dim must lie in [-n, n-1]: the docs' [-n, n] is wrong at dim = n, which "
             "the library refuses with ACLNN_ERR_PARAM_INVALID."),
    ],
    description=Text(
        "完成aclnnLogSoftmax的反向传播:根据log_softmax的输出与上一层的梯度,沿dim计算对log_softmax输入的梯度。",
        "Backward of log_softmax: from the log_softmax output and the incoming gradient, the gradient w.r.t. the "
        "log_softmax input along dim."),
)
