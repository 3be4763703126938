"""A row reduction with a BOOL mask and a scale (the shape of ScaledMaskedSoftmaxBackward's mathematics): the
gradient of y = softmax(scale·z) over the positions the mask leaves, 0 where it is set."""
from codegen.spec import *

z, y, g, m = symbols("z y gradOutput mask", real=True)
scale = Symbol("scale", real=True)
FLOATS = ["FLOAT", "FLOAT16"]

SPEC = Op(
    name="aclnnMaskedSoftmaxBackward",
    params=[
        Tensor("gradOutput", g, role=GRAD),
        Tensor("y", y, role=FORWARD_OUTPUT),
        Tensor("mask", m, role=OPERAND, dtypes={"ascend910b": ["BOOL"]}),
        Attr("scale", scale, type="double"),
        Output("out"),
    ],
    wrt=z,
    forward=Piecewise((0, m), (exp(scale * z), True)) / DimSum(Piecewise((0, m), (exp(scale * z), True))),
    reduce_dim=-1,
    backward=Piecewise((0, m), (scale * (g * y - DimSum(g * y) * y), True)),
    dtypes={"ascend910b": FLOATS},
    rules=[DtypeSupported("gradOutput", "y", "out"), ShapeSame("gradOutput", "y", "mask", "out")],
    description=Text("带掩码与缩放的softmax反向。", "Backward of a scaled softmax with masked positions."),
)
