"""Class-index targets: a tensor with a class axis, an integer target naming one class per sample, per-class
weights (NLLLoss, NLLLoss2d; the construct CrossEntropyLoss builds on).

    c = CLASS                                      # the element's coordinate along the class axis
    hit = Eq(c, t) & Ne(t, ignoreIndex)            # the sample's target class, unless the sample is ignored
    classes=ClassIndex("self", target="target", per_class=("weight",), per_sample=("gradOutput",)),
    forward=Piecewise((-w * x, hit), (0, True)),   # element (i, c) of the loss; a sample's loss is its sum over c
    loss_reduction=Reduction("reduction", mean=tw),   # totalWeight: the mean's divisor, a one-element input

The forward is written on the *grid*: one element per element of `tensor` (a sample i and a class c), with the
target of the sample, the weight of the class and the coordinate c as values of that element.  Gathering by
index is the sum over the class axis of a one-hot: Σ_c [c = t_i]·(-w_c·x_ic) = -w[t_i]·x[i, t_i], the
per-sample loss as the library writes it.  Each element of x appears in exactly one term of it, so the gradient
is elementwise on the grid (G_i·∂ℓ/∂x_ic, G_i the sample's gradient: g_i, g, or g/D for a mean), and the prover
proves it like any elementwise loss, deciding the index relations (c = t, t = ignoreIndex) case by case.

Every backend computes on the grid too: the kernel is the elementwise kernel of the grid op (`grid_op`), whose
tensors are views of the op's (`grid_shape`): a per-sample tensor (target, gradOutput of target's shape) gets
a class axis of 1 inserted, a per-class tensor (weight, C elements) lies along the class axis, a one-element
tensor (totalWeight, a reduced gradOutput) broadcasts, and CLASS is an arange along the class axis.  The class
axis is 1, or 0 for a tensor of rank 1 (a single sample, as PyTorch's nll_loss).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import sympy

# The element's coordinate along the class axis, an integer (0 <= CLASS < C).  In the kernels it is the internal
# tensor `classIndex`, an arange along the class axis.
CLASS = sympy.Symbol("classIndex", integer=True, nonnegative=True)
CLASS_TENSOR = "classIndex"


class GridSum(sympy.Function):
    """The sum of an expression of the operands over every element of the grid (every sample, every class): a
    class-index loss's mean divisor that the operator computes itself (CrossEntropyLossGrad's
    Σ_i weight[target[i]] over the samples not ignored, `GridSum(Piecewise((w, hit), (0, True)))`).  It never
    reads the variable differentiated, so the proof takes it as one positive number D; SymPy never evaluates it."""

    nargs = 1
    is_real = True

    def _latex(self, printer):
        return r"\sum_{i,c} \left(%s\right)" % printer._print(self.args[0])


@dataclass(frozen=True)
class ClassIndex:
    """`tensor` has a class axis (1, or 0 at rank 1); `target` holds one integer class per sample (tensor's shape
    without the class axis); `per_class` tensors hold C elements; `per_sample` tensors hold one element per
    sample (target's shape) or a single element (a reduced loss's gradient); any other input is one element."""
    tensor: str
    target: str
    per_class: tuple = ()
    per_sample: tuple = ()


def class_axis(rank: int) -> int:
    """The class axis of a tensor of `rank` dimensions: 1, or 0 for a single sample (rank 1)."""
    return 1 if rank >= 2 else 0


def grid_shape(kind: str, shape: tuple, grid: tuple) -> tuple:
    """The shape of the view of a tensor of `shape` on the grid of `grid` (the class-axis tensor's shape), for
    its `kind` ("sample", "class", "scalar" or "grid"): a view of the same elements that broadcasts to `grid`."""
    shape, grid = tuple(shape), tuple(grid)
    axis = class_axis(len(grid))
    if kind == "grid":
        return shape
    if kind == "class":
        return tuple(grid[axis] if d == axis else 1 for d in range(len(grid)))
    if kind == "sample" and math.prod(shape) != 1:
        return grid[:axis] + (1,) + grid[axis + 1:]   # target's shape (a check said so), a class axis of 1 inserted
    return (1,) * len(grid)   # one element: broadcasts (a sample's the same, with one sample)


def kind_of(op, name: str) -> str:
    """How a tensor of a class-index op lies on the grid: "grid" (the class-axis tensor, the output), "sample",
    "class", or "scalar" (one element)."""
    c = op.classes
    if name in (c.tensor, op.output.name):
        return "grid"
    if name == CLASS_TENSOR:
        return "class"
    if name == c.target or name in c.per_sample:
        return "sample"
    if name in c.per_class:
        return "class"
    return "scalar"


def grid_views(op, shapes: dict) -> dict:
    """{tensor name: the shape of its view on the grid} for a call with `shapes` {tensor name: shape} (the
    class-axis tensor's among them); CLASS_TENSOR's too."""
    grid = tuple(shapes[op.classes.tensor])
    out = {n: grid_shape(kind_of(op, n), s, grid) for n, s in shapes.items() if s is not None}
    out[CLASS_TENSOR] = grid_shape("class", (), grid)
    return out


def grid_op(op):
    """The elementwise op the kernels compute (cached on the op): the op's parameters, the internal INT64
    tensor CLASS_TENSOR after the inputs, and rules that broadcast every input into the class-axis tensor's
    shape.  Not a spec of its own: the op's proof is its proof (the forward and backward are the same)."""
    cached = op.__dict__.get("_grid_op")
    if cached is not None:
        return cached
    from . import rules as R
    from .op import Op
    from .params import OPERAND, Output, Tensor
    c = op.classes
    params = [p for p in op.params if not isinstance(p, Output)]
    ints = {soc: ["INT64"] for soc in op.dtypes}
    params.append(Tensor(CLASS_TENSOR, CLASS, role=OPERAND, dtypes=ints, doc=op.param(c.target).doc))
    params.append(op.output)
    others = [p.name for p in params if isinstance(p, Tensor) and p.name != c.tensor]
    rules = [R.BroadcastTo(*others, c.tensor), R.ShapeSame(c.tensor, op.output.name)]
    g = Op(name=op.name, params=params, wrt=op.wrt, forward=op.forward, backward=op.backward, dtypes=op.dtypes,
           rules=rules, description=op.description, forward_name=op.forward_name,
           loss_reduction=op.reduction, reduce_dim=op.reduce_dim, compute_dtype=op.compute_dtype,
           compute=dict(op.compute), at=dict(op.at), source=op.source)
    g.grid_of = op
    op.__dict__["_grid_op"] = g
    return g


def kernel_grid_op(op):
    """The grid op as one AI Core kernel computes it (cached on the op): every input read in FLOAT and the
    result written in FLOAT, cast to the output's dtype after, as the library's level 2 does (FLOAT16 promoted to
    FLOAT; class indices exact there up to 2^24).  Not a spec: it only carries the lowered forms."""
    cached = op.__dict__.get("_kernel_grid_op")
    if cached is not None:
        return cached
    import dataclasses
    from .params import Output, Tensor
    g = grid_op(op)
    floats = {soc: ["FLOAT"] for soc in op.dtypes}
    params = [dataclasses.replace(p, dtypes=None) if isinstance(p, (Tensor, Output)) else p for p in g.params]
    params, forms = _grid_sum_pass(g, params)
    k = dataclasses.replace(g, params=params, backward=forms, dtypes=floats, compute={}, loss_reduction=g.reduction)
    k.grid_of = op
    op.__dict__["_kernel_grid_op"] = k
    return k


# The kernel op's GridSum (kernel_grid_op): a one-element input holding the sum, a second one holding it scaled by
# 2^-66 (where the sum is beyond FLOAT's range, the first is inf: codegen.backends.ascendc.doublefloat), and the
# bool attribute choosing the pass that computes it.
GRID_SUM = "gridSum"
GRID_SCALED = "gridSumScaled"
GRID_PASS = "gridSumPass"


def _grid_sum_pass(g, params) -> tuple[list, list]:
    """(params, forms) of the kernel op of a grid op whose forms divide by a GridSum (CrossEntropyLossGrad's mean):
    one AI Core kernel cannot sum over the whole grid (its rows are tiled over the cores), so the sum becomes the
    one-element input GRID_SUM, and each form gets a second variant, GRID_PASS true, whose result is its row's sum
    of the summand at class 0 and 0 elsewhere: level 2 launches that variant, adds its result up (ReduceSum) and
    hands the sum to the form, and the sum scaled by 2^-66 as GRID_SCALED, which a kernel loads wherever it loads
    GRID_SUM (codegen.lower).  Forms without a GridSum get the same pass (every variant key needs a form); level 2
    launches it only where the form reads GRID_SUM."""
    import dataclasses
    from .functions import DimSum
    from .params import OPERAND, Attr, Output, Tensor
    sums = {e for f in g.formulas for e in sympy.sympify(f.expr).atoms(GridSum)}
    if not sums:
        return params, list(g.formulas)
    if len(sums) > 1:
        raise NotImplementedError(f"{g.name}: forms dividing by different GridSums ({', '.join(map(str, sums))})")
    total, choose = sympy.Symbol(GRID_SUM, real=True), sympy.Symbol(GRID_PASS)
    row_sum = sympy.Piecewise((DimSum(next(iter(sums)).args[0]), sympy.Eq(CLASS, 0)), (0, True))
    forms = []
    for f in g.formulas:
        forms.append(dataclasses.replace(f, expr=f.expr.replace(lambda e: isinstance(e, GridSum), lambda e: total),
                                         when={**f.when, GRID_PASS: False}))
        forms.append(dataclasses.replace(f, expr=row_sum, when={**f.when, GRID_PASS: True}))
    inputs = [p for p in params if not isinstance(p, Output)]
    outputs = [p for p in params if isinstance(p, Output)]
    doc = inputs[0].doc
    scaled = sympy.Symbol(GRID_SCALED, real=True)
    return inputs + [Tensor(GRID_SUM, total, role=OPERAND, doc=doc), Tensor(GRID_SCALED, scaled, role=OPERAND, doc=doc),
                     Attr(GRID_PASS, choose, type="bool", doc=doc)] + outputs, forms


def index_symbols(op) -> set:
    """The integer symbols an index relation may compare: CLASS, the target's symbol, int64 attributes."""
    from .params import Attr
    syms = {CLASS, op.param(op.classes.target).symbol} if op.classes is not None else set()
    return syms | {a.symbol for a in op.params if isinstance(a, Attr) and a.type == "int64" and a.symbol is not None
                   and a.name != op.loss_reduction}


def check(op, fail) -> None:
    """What a class-index op must say."""
    from .params import FORWARD_INPUT, Tensor
    c = op.classes
    names = {p.name: p for p in op.params}
    t = names.get(c.tensor)
    if not isinstance(t, Tensor) or (t.role != FORWARD_INPUT and op.reduce_dim is None):
        fail(f"classes: {c.tensor!r} must name the FORWARD_INPUT tensor")
    target = names.get(c.target)
    if not isinstance(target, Tensor) or target.symbol is None:
        fail(f"classes: target {c.target!r} must name a tensor with a symbol")
    if not target.dtypes or any(not all(d in ("INT64", "INT32", "UINT8", "INT8", "INT16") for d in dts)
                                for dts in target.dtypes.values()):
        fail(f"classes: target {c.target} must list integer dtypes of its own (dtypes={{soc: ['INT64', ...]}})")
    for n in c.per_class + c.per_sample:
        if not isinstance(names.get(n), Tensor):
            fail(f"classes: {n!r} is not a tensor parameter")
    if CLASS_TENSOR in names:
        fail(f"classes: a parameter may not be called {CLASS_TENSOR} (the class coordinate's name)")
    if op.split is not None:
        fail("classes: a split with class-index targets is not implemented")
    if op.reduce_dim is not None and op.reduce_dim != 1:
        fail("classes: a class-index op's row reduction (DimSum) runs along the class axis: reduce_dim=1")
    if op.reduce_dim is not None:
        _check_rows(op, fail)
    if op.output.sum_to is not None:
        fail("classes: the output has the class-axis tensor's shape (no sum_to)")
    if not sympy.sympify(op.forward).has(CLASS):
        fail("classes: the forward never reads CLASS (the element's class); write the gather as "
             "Piecewise((..., Eq(CLASS, target)), (0, True))")


def has_rows(op) -> bool:
    """A class-index op with a row along its class axis (DimSum): CrossEntropyLossGrad, whose gradient at every
    class reads the row's softmax and weight[target]."""
    return op.classes is not None and op.reduce_dim is not None


def _check_rows(op, fail) -> None:
    """What a class-index op with rows must say: the FORWARD_OUTPUT tensor holds a function of wrt (logProb =
    log_softmax(x)), no tensor holds wrt itself, and it is the class-axis tensor (its rank 2 is a rule's)."""
    from .params import FORWARD_INPUT, FORWARD_OUTPUT
    if any(t.role == FORWARD_INPUT for t in op.tensors):
        fail("classes with rows: the variable differentiated is held by no tensor; the FORWARD_OUTPUT tensor "
             "holds a function of it (holds=x - log(DimSum(exp(x))))")
    held = [t for t in op.tensors if t.role == FORWARD_OUTPUT]
    if len(held) != 1 or held[0].holds is None or op.wrt not in sympy.sympify(held[0].holds).free_symbols:
        fail(f"classes with rows: one FORWARD_OUTPUT tensor must say what it holds, a function of {op.wrt}")
    if held[0].name != op.classes.tensor:
        fail(f"classes with rows: the class-axis tensor {op.classes.tensor} must be the FORWARD_OUTPUT tensor")
