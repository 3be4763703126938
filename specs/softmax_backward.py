"""aclnnSoftmaxBackward: the vector-Jacobian product of softmax along `dim`."""
from codegen.spec import *

z, y, g, dim = symbols("z output gradOutput dim", real=True)

SPEC = Op(
    name="aclnnSoftmaxBackward",
    forward_name="softmax",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("反向传播的梯度值,即上一层的输出梯度。", "the incoming gradient, w.r.t. the softmax output.")),
        Tensor("output", y, role=FORWARD_OUTPUT,
               doc=Text("softmax函数的输出值y。", "y, the output of the forward softmax.")),
        Attr("dim", dim, type="int64",
             doc=Text("softmax计算所沿的维度。", "the dimension the softmax was taken along.")),
        Output("out", dtype_from="gradOutput",
               doc=Text("对softmax正向输入的梯度,数据类型可与gradOutput不同(结果转换为out的数据类型)。",
                        "the gradient w.r.t. the softmax input; its dtype may differ from gradOutput's "
                        "(the result is cast to it).")),
    ],
    wrt=z,
    forward=exp(z) / DimSum(exp(z)),
    reduce_dim="dim",
    backward=y * g - DimSum(g * y) * y,
    dtypes={
        "ascend910": ["FLOAT16", "FLOAT"],
        "ascend310p": ["FLOAT16", "FLOAT"],
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend950": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    rules=[
        DtypeSupported("gradOutput", "output", "out"),
        DtypeSame("gradOutput", "output"),
        MaxRank("gradOutput", "output", "out", n=8),
        ShapeSame("gradOutput", "output", "out"),
        DimInRange("dim", "gradOutput"),
    ],
    notes=[
        Text("与CANN的op_api单元测试不同:gradOutput或output为空Tensor时仍做全部校验(out的shape须与gradOutput一致);"
             "CANN在任一输入为空时跳过其余校验直接返回成功,不写out。",
             "Unlike CANN's op_api unit test: with an empty gradOutput or output every check still runs (out must "
             "have gradOutput's shape); CANN returns success before its other checks when an input is empty, and "
             "writes nothing."),
        Text("out的数据类型须为当前产品支持的浮点类型;CANN不校验out的数据类型,将结果转换为out的任意数据类型。",
             "out must have a float dtype the product supports; CANN does not check out's dtype and casts the "
             "result to whatever it is."),
    ],
    # the aclnn page's call example and the results it prints (ascend.md §4)
    example=Example(shape=(4, 2),
                    values={"gradOutput": [0, 1, 2, 3, 4, 5, 6, 7], "output": [1, 1, 1, 2, 2, 2, 3, 3], "dim": 0},
                    expected=[-28, -37, -26, -70, -48, -66, -66, -93]),
    description=Text(
        "softmax的反向传播:根据softmax的输出y与上一层的梯度,沿dim计算对softmax输入的梯度。",
        "Backward of softmax: from the softmax output y and the incoming gradient, the gradient w.r.t. the "
        "softmax input along dim."),
)
