r"""The spec language: one operator = one Python file in `specs/` that binds `SPEC = Op(...)`.

Write `from codegen.spec import *` at the top of a spec; it brings every name below plus the SymPy names a
formula needs (`symbols Symbol exp expm1 log log1p sqrt tanh cosh sinh sin cos erf erfc sign Abs Max Min Piecewise Eq Ne And Or Not
Rational Float pi E`) and `sigmoid(u)`, 1/(1 + exp(-u)).  Which constructs a backward may use, and what each backend
does with them: codegen.vocabulary (docs/vocabulary.md); a spec using anything else is refused when it loads.

Names in scope and conventions
------------------------------
Op(...)                    the operator; its fields, in the order a spec usually writes them:
  name                     aclnn name, "aclnn" + CamelCase: "aclnnSoftmaxBackward".  The Python op name is
                           the rest in snake_case ("softmax_backward"); generated files use it too.
  forward_name             the forward function's name in the docs' formulas ("LogSigmoid").
  params                   parameters in aclnn prototype order (the C prototype is generated from this list):
    Tensor(name, symbol, role=..., optional=False, default=None, dtypes=None, doc=Text(zh, en))
                           an input `const aclTensor *`.  `symbol` is the SymPy symbol that stands for one of
                           its elements in formulas; `role` says what it holds (below).  An optional tensor
                           may be null (`None` in Python); it then counts as all `default`.
    Scalar(name, symbol, dtype="FLOAT", optional=False, default=None, doc=...)
                           a host `const aclScalar *`, read in the compute dtype.  An optional one may be null
                           (Python None), which means `default` (SwishBackward's betaOptional: 1.0).
    Attr(name, symbol, type="int64"|"bool"|"double"|"float"|"string", values={}, c_type=None, doc=...)
                           a value of that C kind: int64_t, bool, double, float, or a C string (`const char *`,
                           `c_type="char *"` where the header says so).  A double or float is read like a scalar;
                           a string takes no symbol, lists its accepted strings in `values` ({string: doc}),
                           needs a OneOf rule with them, may choose a Formula (`when={"approximate": "tanh"}`),
                           and is null-checked like a pointer.  `values` names enumerated int64 values for docs.
    IntArray(name, c_type="const aclIntArray *", optional=False, doc=...)
                           a host array of int64 (CtcLossBackward's inputLengths), a list/tuple/1-D integer ndarray
                           in Python; null-checked (161001); no symbol: rules state its length (ArrayLength) and
                           values (ArrayInRange), formulas read it through a SequenceMask (codegen.spec.sequence).
    Output(name, dtype_from=None, dtypes=None, c_type=None, doc=...)
                           the `aclTensor *` result (`c_type="const aclTensor *"` where the header says so).  Its
                           default dtype (when the Python caller gives neither `out=` nor `out_dtype=`) is
                           `dtype_from`'s dtype -- the promoted dtype of a tuple of inputs -- else the first
                           tensor's.  `sum_to="t"`: the gradient of a broadcast input t, summed back to t's shape.
                           Several outputs (codegen.spec.outputs): `wrt=w` makes this one the gradient w.r.t. the
                           input whose symbol is w (default: the op's `wrt`); each is proven on its own.
  roles                    GRAD            gradient w.r.t. the forward output (exactly one tensor)
                           FORWARD_INPUT   holds the forward input x (the variable differentiated)
                           FORWARD_OUTPUT  holds the forward output y = forward(x)
                           OPERAND         another forward operand, constant for the derivative (target)
                           UNUSED          accepted, checked, never read
  wrt                      the symbol x the forward is written in.  It need not be a parameter's symbol:
                           softmax's forward is in z while the kernel only sees y.
  forward                  y = f(x, operands, scalars) for one element, as SymPy.  `DimSum(e)` sums `e` along
                           `reduce_dim` (keepdim); Piecewise branches are tried in order, `True` last.
  reduce_dim               the int64 Attr that DimSum reduces along (softmax's "dim").
  loss_reduction           the int64 Attr that reduces the forward's output to a loss: 0 none (elementwise),
                           1 mean, 2 sum.  gradOutput is then the gradient of that loss.
  backward                 the documented backward, as SymPy over the parameters' symbols, or a list of
    Formula(expr, when={}, roles={}, assume=(), at={})
                           forms valid where `when` holds: {bool attr: True/False}, {string attr: one of its
                           strings} and/or {optional tensor: ABSENT/PRESENT}.  The first matching form applies.  `roles` overrides tensor roles
                           for the form (ELU's selfOrResult holds y when isResult is true); `assume` lists the
                           scalar relations under which the form is exact (ELU's isResult form: scale > 0,
                           inputScale > 0), stated in the docs and assumed by the proof.
  at                       {Eq(x, point): value}: what the backward gives where the forward is not
                           differentiable (a kink or a jump of a branch, Abs, sign, Min/Max), as aclnn
                           documents it: Softshrink `at={Eq(Abs(x), lam): 0}`, a threshold `at={Eq(x, th): 0}`.
                           `Eq(Abs(x), c)` declares x = c and x = -c; the point may depend on scalars; the
                           value may use gradOutput, scalars, operands and x (taken at the point).  The proof
                           checks every branch point of the forward and of the backward: where the forward is
                           differentiable the backward must give the derivative; where it is not, the point
                           must be declared and the backward must give exactly the declared value (an
                           undeclared point fails, naming it); the docs list the declared values.  A declared
                           value also stands where a degenerate scalar makes the forward smooth (Softshrink
                           with λ = 0 keeps 0 at x = 0: the docs say it is not the derivative).
                           `Formula(..., at={...})` overrides an entry for one form; `Formula(..., output="gradWeight")`
                           says which of several outputs a form computes (default: the first); each such
                           output is `Output(wrt=symbol)`, proved on its own; the NumPy kernel returns them
                           all, as a tuple in parameter order (codegen.spec.outputs).
                           `Formula(..., rewrites=(Rewrite(written, kernel), ...))`: the kernels compute the
                           form with each written(u) replaced by the equal kernel(u) (codegen.spec.rewrites), each
                           identity proven on its own; the proof and the docs keep the form as written.
  sequence                 SequenceMask(lengths, time=0, batch=1): IN_SEQUENCE, a truth value per element, is
                           t < lengths[b] (t its coordinate along `time`, b along `batch`, lengths an IntArray).
                           Write forward=Piecewise((f, IN_SEQUENCE), (0, True)) and each form likewise: the proof
                           takes IN_SEQUENCE true (as any form) and false (forward constant in x, form exactly 0);
                           the kernels compute the form where it is true and write 0 past each length.
  classes                  ClassIndex(tensor, target=, per_class=(), per_sample=()): class-index targets
                           (NLLLoss, codegen.spec.classes).  The forward and backward are written per element
                           of `tensor` (a sample and a class), `CLASS` the element's class; target, per-sample
                           and per-class tensors are read per sample and per class.  ClassTarget, ClassCount,
                           OneElement and SampleShaped check their shapes; a one-element input may divide a
                           mean (`Reduction("reduction", mean=totalWeight)`).
  numel("self")            a symbol for a tensor's element count (BCE's mean divides by max(1, numel));
                           numel(BROADCAST) the broadcast shape's, dim_size(BROADCAST, 0) its first extent.
  dtypes                   {SoC: [dtype, ...]} — which dtypes every tensor accepts on which product.  SoCs:
                           ascend910 (training series), ascend310p (inference series), ascend910b (A2),
                           ascend910_93 (A3), ascend310b (200I/500 A2), ascend950 (950PR/950DT).  A product not
                           listed is not supported.
                           dtypes: FLOAT, FLOAT16, BFLOAT16, and DOUBLE, INT8, INT16, INT32, INT64, UINT8, BOOL
                           when `compute` says what they compute in.  A tensor can override with its own `dtypes=`.
  compute_dtype            "FLOAT": every kernel loads FLOAT16/BFLOAT16 as FLOAT, computes in FLOAT and rounds
                           once (round to nearest even) to the output dtype.
  compute                  {dtype outside those three: "FLOAT" | "DOUBLE"}: what a call whose inputs promote to
                           it computes in (the library's choice; the docs state it).  DOUBLE kernels: NumPy
                           float64, C opgen_wide.c, Ascend C hands them to the C kernel (CANN's AI CPU).  An
                           integer output is rounded to nearest (ties to even), saturated, nan as 0.
  rules                    phase-1 argument rules after the automatic null checks, in the order they run (the
                           library's order).  Each rule reports the first parameter that breaks it; all return
                           ACLNN_ERR_PARAM_INVALID (161002).  Null checks (161001) come first and are derived
                           from the parameters: every non-optional Tensor, Output, Scalar and IntArray, and every
                           string Attr, in parameter order or in `null_order`.  Last, both checkers refuse a dtype no
                           kernel reads or writes with 561003.
    DtypeSupported(*tensors)       dtype is in the table for the running product
    DtypeSame(ref, *tensors)       same dtype as ref
    DtypeCastable(src, dst)        dst's dtype can be cast from src's (aclnn CanCast: dtypes.can_cast)
    PromotedSupported(*inputs)     their dtypes promote (aclnn's deduction table) to a dtype of the table
    PromotedCastable(out, *inputs) out's dtype can be cast from the inputs' promoted dtype
    PromotedSame(out, *inputs)     out's dtype is the inputs' promoted dtype
    MaxRank(*tensors, n=8)         at most n dimensions
    MinRank(*tensors, n=1)         at least n dimensions
    FormatSame(ref, *tensors)      same format (aclFormat label) as ref
    FormatNotPrivate(*tensors)     no private format (NC1HWC0, FRACTAL_Z, ...: CANN's op::IsPrivateFormat)
    ShapeSame(ref, *tensors)       same shape as ref
    Broadcastable(a, b)            a and b broadcast together (NumPy rules)
    BroadcastTo(*tensors, target)  each broadcasts to exactly target's shape (axes=(0, 1): along those only)
    ShapeSameOrOneElement(*tensors, target)  each has target's shape or exactly one element (broadcast)
    ShapeIsBroadcast(out, a, b)    out's shape is the broadcast of a's and b's
    BroadcastsInto(g, a, b)        g broadcasts to exactly the broadcast of a's and b's (may not enlarge it)
    DimInRange(attr, tensor)       attr in [-n, n-1], n = rank (rank 0 counts as 1)
    ClassTarget(target, tensor)    tensor's shape without its class axis (a 1-D tensor: one element)
    ClassCount(weight, tensor)     as many elements as tensor has classes
    PerChannel(w, tensor, dim=1)   1 element, or C = tensor.shape[dim] elements of any shape; the kernels read w
                           laid along dim ([1, C, 1, ...]), and a gradient summed back to w sums every other axis
    ChannelGrad(gw, w, tensor, dim=1)  gw (w's gradient) has shape [C] when w has C != 1 elements, else w's shape
    PerRow(w, tensor)              one element per row of tensor (the product of its sizes but the last), any shape;
                           the kernels read w laid along those axes ([..., 1]), broadcast along the row
    NotEmpty(*tensors)             at least one element
    NotNullWhen(out, t)            the optional out must not be null when the optional t is given (161001; listed
                           first, right after the derived null checks)
    PresentWith(t, u)              the optional u must be given when the optional t is (161002)
    DimAtLeast(*tensors, dim=-1, n)  dimension dim is at least n (a tensor without it passes)
    OneElement(*tensors)           exactly one element, any rank
    SampleShaped(g, tensor, red)   per sample of tensor for reduction none, else one element of rank <= 1
    ArrayLength(array, t, dim=0)   the IntArray has as many values as t's size along dim (which t must have)
    ArrayInRange(array, low, high) every value in [low, high]; a bound is an int or dim_size(t, axis)
    OneOf(attr, values)            attr is one of values
    Requires(param, cond, when=True)  a SymPy condition on scalars/attrs (e.g. lam >= 0, or an order min <= max),
                           checked when `when` holds; the proof assumes it.
    EmptyReturns(*tensors)         one of them empty: phase 1 succeeds here, the later checks do not run.
  null_order               [names]: the null checks' order when the library's differs from the parameters'.
  cases of the proof       each scalar on each side of and at its critical values (where branch points meet,
                           conditions on it switch, Max/Min arguments are equal, a coefficient of x changes
                           sign), and two scalars that are both branch points in every order; Requires and
                           `assume` (also `Ne(beta, 0)`) remove the cases they exclude.
  empty tensors            always supported: a tensor with a 0 in its shape that passes the checks gives
                           workspace 0 and success, and nothing is computed.
  description              Text(zh, en): the 算子功能 sentence of the docs.
  notes                    [Text(zh, en), ...]: extra 约束与限制 lines for the docs.
  torch                    Torch("aten_op", *args, **kwargs) or TorchGrad(fn, *args): the PyTorch counterpart
                           (codegen.spec.torch), for `opgen accuracy` and `opgen bench`; args name parameters,
                           Const(v) is a literal.
  example                  Example(shape=(2, 2), values={...}, shapes={...}, expected=[...]): the data of the
                           call example (调用示例) the C backend generates and the docs show, in FLOAT:
                           tensors by name as a flat row-major list or one number for every element, scalars
                           and attributes by value, an optional tensor left out is null; `expected` is the
                           result the aclnn page documents (the tests hold the example's output to it).
                           Without `example`, simple data is chosen from the parameters.
Text(zh, en)               a short text in both doc languages.
ABSENT, PRESENT            values of an optional tensor in `Formula.when`.
"""
from sympy import (Abs, And, E, Eq, Float, Max, Min, Ne, Not, Or, Piecewise, Rational, Symbol, cos, cosh, erf, erfc,
                   exp, log, pi, sign, sin, sinh, sqrt, symbols, tanh)
from sympy.codegen.cfunctions import expm1, log1p

from .dtypes import DTYPES, KERNEL_DTYPES, DType
from .example import Example
from .functions import BROADCAST, DimSum, Reduction, dim_size, numel, sigmoid
from .op import ABSENT, PRESENT, Formula, Op, Variant
from .params import (FORWARD_INPUT, FORWARD_OUTPUT, GRAD, OPERAND, RESULT, UNUSED, Attr, IntArray, Output, Param,
                     Scalar, Tensor, Text)
from .sequence import IN_SEQUENCE, SequenceMask
from .products import DEFAULT_PRODUCT, PRODUCTS, Product
from .torch import Const, Torch, TorchGrad
from .split import Split
from .rewrites import Rewrite
from .classes import CLASS, ClassIndex, GridSum
from .rules import (ArrayInRange, ArrayLength, Broadcastable, ClassCount, ClassTarget, BroadcastsInto, BroadcastTo, DimAtLeast, DimAtMost, DimEven, DimInRange, DtypeCastable,
                    DtypeSame, DtypeSupported, EmptyReturns, FormatNotPrivate, FormatSame, MaxRank, MinRank, NotNull,
                    NotEmpty, NotNullWhen, OneElement, OneOf, PerChannel, ChannelGrad, PerRow, PresentWith, PromotedCastable, PromotedSame, PromotedSupported, Requires, Rule, SampleShaped, ShapeHalved,
                    ShapeIsBroadcast, ShapeSame, ShapeSameOrOneElement)

__all__ = [
    # SymPy
    "Abs", "And", "E", "Eq", "Float", "Max", "Min", "Ne", "Not", "Or", "Piecewise", "Rational", "Symbol", "erf",
    "erfc", "exp", "expm1", "log", "log1p", "pi", "sign", "sqrt", "symbols", "tanh", "cosh", "sinh", "sin", "cos", "sigmoid",
    # spec language
    "Op", "Formula", "Variant", "Example", "Tensor", "Scalar", "Attr", "IntArray", "Output", "Param", "Text", "DimSum", "numel",
    "dim_size", "BROADCAST", "Reduction",
    "ABSENT", "PRESENT", "GRAD", "FORWARD_INPUT", "FORWARD_OUTPUT", "OPERAND", "UNUSED", "RESULT",
    "DtypeSupported", "DtypeSame", "DtypeCastable", "FormatSame", "FormatNotPrivate", "MaxRank", "MinRank", "ShapeSame",
    "Broadcastable", "BroadcastTo", "ShapeSameOrOneElement", "ShapeIsBroadcast", "BroadcastsInto", "DimInRange",
    "DimAtLeast", "DimAtMost", "DimEven",
    "ShapeHalved", "Split", "Rewrite", "ClassIndex", "CLASS", "GridSum",
    "OneOf", "Requires", "NotNull", "Rule", "ClassTarget", "ClassCount", "OneElement", "SampleShaped",
    "PerChannel", "ChannelGrad", "PerRow", "NotEmpty", "NotNullWhen", "PresentWith", "SequenceMask", "IN_SEQUENCE", "ArrayLength", "ArrayInRange",
    "PromotedSupported", "PromotedCastable", "PromotedSame", "EmptyReturns", "Torch", "TorchGrad", "Const",
    "DTYPES", "KERNEL_DTYPES", "DType", "PRODUCTS", "Product", "DEFAULT_PRODUCT",
]
