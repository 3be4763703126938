"""aclnnCosineSimilarityBackward: the gradient of cos = sum(a*b) / (|a| |b|) along `dim` w.r.t. x1 = a.

The forward reduces a row to one number; written per element, y_i = a_i b_i / (|a| |b|), its row sum is the
cosine, and gradOutput (one value per row, kept as a dimension of size 1) broadcasts along the row.
"""
from codegen.spec import *

a, b, g = symbols("x1 x2 gradOutput", real=True)
dim = Symbol("dim", integer=True)
na, nb = sqrt(DimSum(a**2)), sqrt(DimSum(b**2))

SPEC = Op(
    name="aclnnCosineSimilarityBackward",
    forward_name="cosine_similarity",
    params=[
        Tensor("gradOutput", g, role=GRAD, doc=Text("上一层传回的梯度,dim维大小为1。",
                                                    "the incoming gradient, of size 1 along dim.")),
        Tensor("x1", a, role=FORWARD_INPUT, doc=Text("正向输入x1。", "x1, the forward input differentiated.")),
        Tensor("x2", b, role=OPERAND, doc=Text("正向输入x2,shape与x1一致。", "x2, the other input, of x1's shape.")),
        Attr("dim", dim, type="int64", doc=Text("计算余弦相似度的维度。", "the dimension the similarity runs along.")),
        Output("gradX1", doc=Text("对x1的梯度。", "the gradient w.r.t. x1.")),
    ],
    wrt=a,
    forward=a * b / (na * nb),
    reduce_dim="dim",
    backward=g * b / (na * nb) - DimSum(g * a * b) / (na * nb) * a / na**2,
    dtypes={"ascend910b": ["FLOAT16", "FLOAT", "BFLOAT16"], "ascend910_93": ["FLOAT16", "FLOAT", "BFLOAT16"]},
    rules=[
        DtypeSupported("gradOutput", "x1", "x2", "gradX1"),
        DtypeSame("x1", "gradOutput", "x2", "gradX1"),
        MaxRank("gradOutput", "x1", "x2", "gradX1", n=8),
        ShapeSame("x1", "x2", "gradX1"),
        BroadcastTo("gradOutput", "x1"),
        DimInRange("dim", "x1"),
    ],
    description=Text("余弦相似度对x1的反向传播。", "Backward of the cosine similarity w.r.t. x1."),
)
