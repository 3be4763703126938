"""aclnnGluBackward: the gradient of GLU(self) = a·sigmoid(b), a and b the halves of self along dim."""
from codegen.spec import *

a, b, g, dim = symbols("a b gradOut dim", real=True)

_SELF = [1.4021, -2.2242, -0.2267, 1.0049, -0.9057, -1.2181, 1.4031, -0.1750, -0.2705, -1.3884, 0.2565, -0.7543,
         -0.3368, 0.3036, 0.4370, 1.9198, 0.0974, 0.9725, -1.7963, -1.9863, 2.2742, 1.0436, 1.6882, 0.7845,
         0.5129, 0.7107, -0.0894, -1.7567, 1.5542, 1.5608, -1.0318, -0.5742, 0.1330, -1.4514, -2.5802, -0.4738,
         0.2548, -1.7638, 0.8152, 0.5531, 0.1251, 0.8516, -0.0048, -0.9011, -0.4680, 0.2906, -0.0880, 0.3975]

SPEC = Op(
    name="aclnnGluBackward",
    forward_name="GLU",
    params=[
        Tensor("gradOut", g, role=GRAD,
               doc=Text("公式中的gradOut,GLU输出的梯度。shape为self在dim维上减半后的shape,数据类型与self一致。",
                        "gradOut in the formula, the gradient w.r.t. the GLU output: self's shape with dim halved, "
                        "self's dtype.")),
        Tensor("self", role=FORWARD_INPUT,
               doc=Text("GLU的输入,沿dim均分为前半a与后半b。维数为1-8,dim维的大小为偶数。",
                        "the GLU input, split along dim into a first half a and a second half b; 1 to 8 "
                        "dimensions, an even size along dim.")),
        Attr("dim", dim, type="int64",
             doc=Text("self被均分的维度,取值范围[-n, n-1](n为self的维数)。",
                      "the dimension self is split along, in [-n, n-1] (n is self's rank).")),
        Output("out", c_type="const aclTensor *", dtype_from="self",
               doc=Text("对self的梯度,shape与self一致:沿dim依次为对a与对b的梯度。数据类型与self一致。",
                        "the gradient w.r.t. self, of self's shape: the gradients w.r.t. a and w.r.t. b, one "
                        "after the other along dim; self's dtype.")),
    ],
    split=Split("self", dim="dim"),
    wrt=(a, b),
    forward=a * sigmoid(b),
    backward=[Formula(g * sigmoid(b), wrt=a),
              Formula(g * a * sigmoid(b) * (1 - sigmoid(b)), wrt=b)],
    dtypes={
        "ascend910": ["FLOAT", "FLOAT16", "DOUBLE"],
        "ascend310p": ["FLOAT", "FLOAT16", "DOUBLE"],
        "ascend910b": ["FLOAT", "FLOAT16", "DOUBLE", "BFLOAT16"],
        "ascend910_93": ["FLOAT", "FLOAT16", "DOUBLE", "BFLOAT16"],
        "ascend950": ["FLOAT", "FLOAT16", "DOUBLE", "BFLOAT16"],
    },
    # DOUBLE is neither cast nor split off on the library's A2/A3 path: SplitV, Sigmoid, Mul and ConcatD in DOUBLE
    compute={"DOUBLE": "DOUBLE"},
    # the library's order (op_api/aclnn_glu_backward.cpp): self's null check first; self's dtype in the list,
    # gradOut's and out's equal to it; the ranks; then dim's range, the even size, gradOut's and out's shapes
    null_order=["self", "gradOut", "out"],
    rules=[
        DtypeSupported("self"),
        DtypeSame("self", "gradOut", "out"),
        MaxRank("self", "out", "gradOut", n=8),
        MinRank("self", n=1),
        DimInRange("dim", "self"),
        DimEven("self", "dim"),
        ShapeHalved("gradOut", "self", "dim"),
        ShapeSame("self", "out"),
    ],
    torch=Torch("glu_backward", "gradOut", "self", "dim"),
    # the aclnn page's call example; the page prints no result: this one is aten::glu_backward's on the same data
    example=Example(shape=(2, 4, 6), shapes={"gradOut": (1, 4, 6)},
                    values={"self": _SELF, "gradOut": 1, "dim": 0},
                    expected=[0.6254861, 0.6705558, 0.4776649, 0.1472041, 0.8255195, 0.8264681, 0.2627353, 0.3602683,
                              0.5332011, 0.1897862, 0.07042364, 0.3837172, 0.5633576, 0.1463151, 0.6932165,
                              0.6348545, 0.5312343, 0.7009027, 0.4988, 0.2888245, 0.3850897, 0.572143, 0.4780142,
                              0.5980869, 0.3284465, -0.4913496, -0.05656191, 0.1261502, -0.1304544, -0.1746982,
                              0.2717881, -0.04033313, -0.06732682, -0.2134907, 0.01679155, -0.1783756, -0.08284802,
                              0.03792175, 0.09293565, 0.445037, 0.02425498, 0.2038731, -0.4490724, -0.4079958,
                              0.5385206, 0.2554685, 0.421234, 0.1885773]),
    notes=[
        Text("self沿dim均分为a(前半)与b(后半),GLU(self) = a·sigmoid(b);out沿dim的前半为对a的梯度gradOut·sigmoid(b),"
             "后半为对b的梯度gradOut·a·sigmoid(b)·(1 - sigmoid(b)),与算子库(SplitV、Sigmoid、Mul、ConcatD)和"
             "aten::glu_backward一致。",
             "self is split along dim into a (the first half) and b (the second), GLU(self) = a·sigmoid(b); the first "
             "half of out along dim is the gradient w.r.t. a, gradOut·sigmoid(b), the second the gradient w.r.t. b, "
             "gradOut·a·sigmoid(b)·(1 - sigmoid(b)), as the library computes it (SplitV, Sigmoid, Mul, ConcatD) "
             "and aten::glu_backward."),
        Text("DOUBLE按DOUBLE计算(算子库在Atlas A2/A3上不转换DOUBLE);FLOAT16、BFLOAT16按FLOAT计算。",
             "DOUBLE computes in DOUBLE (the library does not cast it on Atlas A2/A3); FLOAT16 and BFLOAT16 compute "
             "in FLOAT."),
    ],
    description=Text(
        "GLU(门控线性单元)的反向传播:self沿dim均分为a、b两半,计算GLU(self) = a·sigmoid(b)对self的梯度。",
        "Backward of the gated linear unit: self is split along dim into halves a and b, and the gradient of "
        "GLU(self) = a·sigmoid(b) w.r.t. self is computed."),
)
