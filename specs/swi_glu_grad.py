"""aclnnSwiGluGrad: the gradient of SwiGlu(x) = SiLU(a)·b, a and b the halves of x along dim."""
from codegen.spec import *

a, b, g, dim = symbols("a b yGrad dim", real=True)

SPEC = Op(
    name="aclnnSwiGluGrad",
    forward_name="SwiGlu",
    params=[
        Tensor("yGrad", g, role=GRAD,
               doc=Text("公式中的yGrad,SwiGlu输出的梯度。shape为x在dim维上减半后的shape,数据类型与x一致。",
                        "yGrad in the formula, the gradient w.r.t. the SwiGlu output: x's shape with dim halved, "
                        "x's dtype.")),
        Tensor("x", role=FORWARD_INPUT,
               doc=Text("SwiGlu的输入,沿dim均分为前半a(激活的一半)与后半b。dim维的大小为偶数。",
                        "the SwiGlu input, split along dim into a first half a (the activated one) and a second "
                        "half b; an even size along dim.")),
        Attr("dim", dim, type="int64",
             doc=Text("x被均分的维度,取值范围[-n, n-1](n为x的维数)。",
                      "the dimension x is split along, in [-n, n-1] (n is x's rank).")),
        Output("out", c_type="const aclTensor *", dtype_from="x",
               doc=Text("对x的梯度,shape与x一致:沿dim依次为对a与对b的梯度。数据类型与x一致。",
                        "the gradient w.r.t. x, of x's shape: the gradients w.r.t. a and w.r.t. b, one after the "
                        "other along dim; x's dtype.")),
    ],
    split=Split("x", dim="dim"),
    wrt=(a, b),
    forward=a * sigmoid(a) * b,
    backward=[Formula(g * (sigmoid(a) + sigmoid(a) * (1 - sigmoid(a)) * a) * b, wrt=a),
              Formula(g * sigmoid(a) * a, wrt=b)],
    dtypes={
        "ascend310p": ["FLOAT16", "FLOAT"],
        "ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"],
        "ascend950": ["FLOAT16", "FLOAT", "BFLOAT16"],
    },
    # the generated aclnn layer of the library (op_host/swi_glu_grad_def.cpp): null pointers, then one dtype for
    # the three tensors from the def's list; dim's range (the docs: 161002); the shapes are checked here too (the
    # library checks them in its tiling, 561002: see the notes)
    rules=[
        DtypeSupported("x"),
        DtypeSame("x", "yGrad", "out"),
        MaxRank("x", "yGrad", "out", n=8),
        MinRank("x", n=1),
        DimInRange("dim", "x"),
        DimEven("x", "dim"),
        ShapeHalved("yGrad", "x", "dim"),
        ShapeSame("x", "out"),
    ],
    torch=TorchGrad(lambda torch, x, d: (lambda h: torch.nn.functional.silu(h[0]) * h[1])(x.chunk(2, dim=d)),
                    "x", "dim"),
    # the aclnn page's call example; the page prints no result: this one is PyTorch's autograd of SiLU(a)·b
    example=Example(shape=(2, 32), shapes={"yGrad": (2, 16)},
                    values={"yGrad": list(range(-2, 30)), "x": list(range(-2, 62)), "dim": -1},
                    expected=[2.541959, -1.084942, 0.0, 15.7704, 39.26823, 62.02193, 84.21317, 107.7875, 133.6271,
                              161.8791, 192.4505, 225.2221, 260.1062, 297.0496, 336.0227, 377.0102, 0.4768117,
                              0.2689414, 0.0, 0.7310586, 3.523188, 8.573167, 15.71222, 24.83268, 35.91099,
                              48.95536, 63.97854, 80.99001, 99.99546, 120.998, 143.9991, 168.9996, 644.0, 705.0,
                              768.0, 833.0, 900.0, 969.0, 1040.0, 1113.0, 1188.0, 1265.0, 1344.0, 1425.0, 1508.0,
                              1593.0, 1680.0, 1769.0, 420.0, 465.0, 512.0, 561.0, 612.0, 665.0, 720.0, 777.0, 836.0,
                              897.0, 960.0, 1025.0, 1092.0, 1161.0, 1232.0, 1305.0]),
    notes=[
        Text("x沿dim均分为a(前半)与b(后半),SwiGlu(x) = SiLU(a)·b;out沿dim的前半为yGrad·(σ(a) + σ(a)(1 - σ(a))·a)·b,"
             "后半为yGrad·σ(a)·a,与算子库的kernel一致。PyTorch没有对应算子:对照为SiLU(a)·b的自动微分。",
             "x is split along dim into a (the first half) and b (the second), SwiGlu(x) = SiLU(a)·b; the first half "
             "of out along dim is yGrad·(σ(a) + σ(a)(1 - σ(a))·a)·b, the second yGrad·σ(a)·a, as the library's "
             "kernel computes them. PyTorch has no such op: the counterpart is autograd of SiLU(a)·b."),
        Text("形状在参数检查中校验,返回ACLNN_ERR_PARAM_INVALID:算子库在tiling中才校验(ACLNN_ERR_INNER_TILING_ERROR,"
             "561002),且在Atlas A2/A3/推理系列上只要求x从dim起各维之积为偶数,把展平后的末段从中间切开;这里按文档沿dim均分,"
             "dim维大小为奇数时拒绝。Atlas 推理系列产品上算子库还要求每半行按64字节对齐,这里不要求。",
             "The shapes are checked with the arguments, ACLNN_ERR_PARAM_INVALID: the library checks them only in its "
             "tiling (ACLNN_ERR_INNER_TILING_ERROR, 561002), and on Atlas A2/A3 and the inference series only "
             "requires the product of x's dimensions from dim on to be even, cutting the flattened trailing block "
             "in the middle; here x is split along dim as documented, and an odd size there is refused. The "
             "library's 64-byte alignment of each half row on the Atlas inference series is not required here."),
    ],
    description=Text(
        "SwiGlu的反向传播:x沿dim均分为a、b两半,计算SwiGlu(x) = SiLU(a)·b对x的梯度。",
        "Backward of SwiGlu: x is split along dim into halves a and b, and the gradient of SwiGlu(x) = SiLU(a)·b "
        "w.r.t. x is computed."),
)
