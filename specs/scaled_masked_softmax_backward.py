"""aclnnScaledMaskedSoftmaxBackward: the gradient of softmax(scale·x) over the last axis with masked positions
left out, from the forward's output."""
from codegen.spec import *

z, y, g, m = symbols("z y gradOutput mask", real=True)
scale = Symbol("scale", real=True)
triu = Symbol("fixTriuMask")

AI_CORE = ["FLOAT", "FLOAT16", "BFLOAT16"]

SPEC = Op(
    name="aclnnScaledMaskedSoftmaxBackward",
    forward_name="ScaledMaskedSoftmax",
    params=[
        Tensor("gradOutput", g, role=GRAD,
               doc=Text("反向传播的梯度值,即上一层的输出梯度,公式中的gradOutput。shape为[B,N,S1,S2]。",
                        "the incoming gradient, gradOutput in the formula; shape [B,N,S1,S2].")),
        Tensor("y", y, role=FORWARD_OUTPUT,
               doc=Text("softmax函数的输出值,公式中的y;数据类型与shape与gradOutput一致。",
                        "the output of the forward softmax, y in the formula; gradOutput's dtype and shape.")),
        Tensor("mask", m, role=OPERAND, dtypes={"ascend910b": ["BOOL"], "ascend910_93": ["BOOL"]},
               doc=Text("用于对计算结果进行掩码,公式中的mask:为true的位置结果为0。shape为[B,N,S1,S2]、[B,1,S1,S2]、"
                        "[1,N,S1,S2]或[1,1,S1,S2]。",
                        "the mask, mask in the formula: where it is true the result is 0. Shape [B,N,S1,S2], "
                        "[B,1,S1,S2], [1,N,S1,S2] or [1,1,S1,S2].")),
        Attr("scale", scale, type="double",
             doc=Text("用于对输出进行缩放,公式中的scale。", "the scale of the output, scale in the formula.")),
        Attr("fixTriuMask", triu, type="bool",
             doc=Text("是否在算子内生成上三角的mask,仅支持false。",
                      "whether the operator generates an upper-triangular mask itself; only false is supported.")),
        Output("out",
               doc=Text("对softmax正向输入的梯度,公式中的out;数据类型与shape与gradOutput一致。",
                        "the gradient w.r.t. the forward input, out in the formula; gradOutput's dtype and shape.")),
    ],
    wrt=z,
    # y = softmax(scale·z) along the last axis, a masked position contributing nothing (exp(-inf) = 0)
    forward=Piecewise((0, m), (exp(scale * z), True)) / DimSum(Piecewise((0, m), (exp(scale * z), True))),
    reduce_dim=-1,
    backward=Piecewise((0, m), (scale * (g * y - DimSum(g * y) * y), True)),
    dtypes={"ascend910b": AI_CORE, "ascend910_93": AI_CORE},
    # the library's order (op_host/op_api/aclnn_scaled_masked_softmax_backward.cpp); FRACTAL_NZ formats are
    # refused there between the dtype and the shape checks
    rules=[
        DtypeSupported("gradOutput", "y", "mask", "out"),
        FormatNotPrivate("gradOutput", "y", "mask", "out"),
        MinRank("gradOutput", n=4),
        MaxRank("gradOutput", n=4),
        DimAtMost("gradOutput", dim=-1, n=4096),
        ShapeSame("gradOutput", "y", "out"),
        MinRank("mask", n=4),
        MaxRank("mask", n=4),
        # mask [B|1, N|1, S1, S2]: only B and N may be 1 (op_api CheckShape)
        BroadcastTo("mask", "gradOutput", axes=(0, 1)),
        Requires("fixTriuMask", Not(triu)),
        DtypeSame("gradOutput", "y", "out"),
    ],
    # the aclnn page's call example (its y is not a real softmax output)
    example=Example(shape=(2, 2, 2, 2),
                    values={"gradOutput": list(range(1, 17)), "y": list(range(1, 17)),
                            "mask": [1, 1, 0, 0] * 4, "scale": 1.0, "fixTriuMask": False}),
    notes=[
        Text("gradOutput、y、out的数据类型须一致,如文档所写;算子库的接口层不检查这一点:y的数据类型不同时由内部算子拒绝,out的数据类型不同时"
             "它把out的数据类型改为gradOutput的并按该类型写入out的内存。这里返回ACLNN_ERR_PARAM_INVALID,在所有其他检查之后。",
             "gradOutput, y and out must have one dtype, as the docs say; the library's interface layer does not "
             "check it: a y of another dtype is refused by its inner operator, an out of another dtype has its "
             "dtype overwritten with gradOutput's and gradOutput's dtype written into its memory. Here it returns "
             "ACLNN_ERR_PARAM_INVALID, after every other check."),
        Text("掩码为true的位置结果为0(不论gradOutput、y的取值,包括非数值);行内求和包含被掩码的位置,如算子库的kernel。计算是确定性的"
             "(文档:算子库默认非确定性)。S2=0时为空Tensor,直接返回成功(文档写S2的范围为(0, 4096],算子库的接口层接受S2=0)。",
             "Where the mask is true the result is 0, whatever gradOutput and y hold (not-a-number values too); the row sum includes "
             "the masked positions, as the library's kernel computes it. The computation is deterministic (the "
             "library's default is not). S2 = 0 is an empty tensor and succeeds (the docs give S2 in (0, 4096]; "
             "the library's interface layer accepts S2 = 0)."),
        Text("算子库在Atlas A2/A3上拒绝FRACTAL_NZ格式(在数据类型检查之后、shape检查之前);这里在同一位置拒绝所有私有格式(NC1HWC0、"
             "FRACTAL_Z、FRACTAL_NZ等):kernel按ND读取数据,其他私有格式同样读不对。out支持非连续Tensor(文档:不支持)。",
             "The library refuses the FRACTAL_NZ format on Atlas A2/A3 (after the dtype checks, before the shape "
             "checks); here every private format (NC1HWC0, FRACTAL_Z, FRACTAL_NZ, ...) is refused at that place: the "
             "kernels read the data as ND and would misread any private layout. A non-contiguous out is accepted "
             "(the docs: not supported)."),
        Text("mask的shape须为[B或1, N或1, S1, S2]:只有前两维可以为1并broadcast,S1、S2须与gradOutput一致(算子库接口层CheckShape);"
             "NumPy的broadcast规则允许的[B,N,1,S2]等shape在这里被拒绝。",
             "mask's shape must be [B or 1, N or 1, S1, S2]: only the first two axes may be 1 and broadcast, S1 and "
             "S2 must be gradOutput's (the library's CheckShape); shapes NumPy would broadcast, such as [B,N,1,S2], "
             "are refused."),
        Text("与CANN的op_api单元测试不同:含负数维度的shape(y、mask各一例)在创建aclTensor时即被拒绝(aclCreateTensor返回空指针),"
             "在第一段接口之前。",
             "Unlike two of CANN's op_api unit tests: a shape with negative dimensions (one in y, one in mask) is "
             "refused when the aclTensor is created (aclCreateTensor returns NULL), before phase 1."),
    ],
    description=Text("softmax的反向传播,并对结果进行缩放以及掩码。",
                     "Backward of softmax, with the result scaled and masked."),
)
