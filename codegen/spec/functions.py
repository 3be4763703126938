"""SymPy functions the spec language adds to plain SymPy.

`DimSum(e)`   the sum of the elementwise expression `e` along the operator's reduction dimension, kept as a
              dimension of size one (keepdim) so it broadcasts back over the row: softmax's `sum_dim(g*y)`.
`numel(name)` the element count of a tensor parameter, a positive integer symbol (BCE's mean uses it);
              `numel(BROADCAST)` that of the broadcast shape of every input tensor (KL's mean).
`dim_size(name, axis)`  a tensor's (or the broadcast shape's) extent along an axis (KL's batchmean: B[0]).
`Reduction`   how a loss's reduction attribute reduces the forward's elementwise loss (`Op.loss_reduction`).
`sigmoid(u)`  1/(1 + exp(-u)), plain SymPy: every backend evaluates it without overflow (codegen.rewrite).
"""
from __future__ import annotations

import math
import re

import sympy


class DimSum(sympy.Function):
    """Sum along the operator's `reduce_dim` attribute, keepdim=True.

    One argument: the elementwise summand.  It is not evaluated by SymPy; the verifier expands it over explicit
    rows and the kernel backends lower it to a row reduction.
    """

    nargs = 1
    is_real = True

    def _latex(self, printer):
        return r"\sum_{\mathrm{dim}} \left(%s\right)" % printer._print(self.args[0])


def numel(param_name: str) -> sympy.Symbol:
    """The element count of tensor `param_name` (a positive integer, 0 only for empty tensors which skip compute)."""
    return sympy.Symbol(f"numel_{param_name}", integer=True, positive=True)


def numel_param(sym: sympy.Symbol) -> str | None:
    """Inverse of `numel` and `dim_size`: the count's name behind a count symbol ("self", "broadcast",
    "broadcast_dim0"), or None."""
    return sym.name[len("numel_"):] if sym.name.startswith("numel_") else None


# The broadcast shape B of every input tensor of the call, as a count's name: `numel(BROADCAST)`,
# `dim_size(BROADCAST, 0)`.  It is the shape the kernels compute on; an output declared `Output(sum_to=...)` is
# the gradient summed from B back to one input's own shape.
BROADCAST = "broadcast"


def dim_size(param_name: str, axis: int) -> sympy.Symbol:
    """The extent of tensor `param_name` (or of BROADCAST) along `axis` (>= 0; a rank-0 shape counts as (1,)):
    KL's batchmean divides by `dim_size(BROADCAST, 0)`.  A count symbol like `numel`, named `numel_<t>_dim<a>`."""
    if not isinstance(axis, int) or axis < 0:
        raise ValueError(f"dim_size({param_name!r}, {axis!r}): the axis must be an int >= 0")
    return sympy.Symbol(f"numel_{param_name}_dim{axis}", integer=True, positive=True)


# The axis of a count along the call's reduction dim, whichever it is (reduce_dim="dim": the attribute's value,
# normalized to the shape's rank): a row's length, `DimSum(1)`, along an attribute's dim.  Only the lowering writes
# it (`row_length`); every backend computes it per call beside the other counts, from the call's dim.
ROW_AXIS = "row"


def row_length(param_name: str) -> sympy.Symbol:
    """The extent of `param_name` (or BROADCAST) along the call's reduction dim (ROW_AXIS), `numel_<t>_dimrow`."""
    return sympy.Symbol(f"numel_{param_name}_dim{ROW_AXIS}", integer=True, positive=True)


def count_parts(name: str) -> tuple[str, int | str | None]:
    """A count's name split into (tensor or BROADCAST, axis: an int, ROW_AXIS, or None for the element count)."""
    m = re.fullmatch(rf"(.+)_dim(\d+|{ROW_AXIS})", name)
    if not m:
        return name, None
    return m.group(1), ROW_AXIS if m.group(2) == ROW_AXIS else int(m.group(2))


def count_value(name: str, shapes: dict, dim: int | None = None) -> int:
    """The value of count `name` from `shapes` {tensor name or BROADCAST: shape} (0 for an empty count); a count
    along ROW_AXIS reads the call's reduction dim `dim` (negative from the end)."""
    tensor, axis = count_parts(name)
    shape = tuple(shapes[tensor])
    if axis is None:
        return int(math.prod(shape))
    shape = shape or (1,)
    if axis == ROW_AXIS:
        if dim is None:
            raise ValueError(f"count {name}: a row's length needs the call's reduction dim")
        return int(shape[dim % len(shape)])
    return int(shape[axis]) if axis < len(shape) else 1


# ---- loss reductions -------------------------------------------------------------------------------------------
# What each named value of a reduction attribute does to the forward's elementwise loss ℓ (its `Attr.values`
# name the modes: {0: "none", 1: "mean", 2: "sum", 3: "batchmean"}, or the strings themselves for a C string):
#   none       gradOutput holds one gradient per loss element (the loss is ℓ itself)
#   sum        the loss is Σℓ; gradOutput is one number
#   mean       the loss is Σℓ / D, D the divisor the spec declares (the library's choice: numel of self, of the
#              broadcast shape, ...); gradOutput is one number
#   batchmean  the same, with its own divisor (KL's dim 0)
REDUCTION_MODES = ("none", "sum", "mean", "batchmean")
DIVIDING_MODES = ("mean", "batchmean")


class Reduction:
    """`Op.loss_reduction`: the attribute that reduces the forward's loss, and the divisor of each dividing mode.

        Reduction("reduction", mean=numel("self"))                    BCE, MSE: the mean divides by self's numel
        Reduction("reduction", mean=numel("gradInput"))               L1: by the broadcast shape's (the output's)
        Reduction("reduction", mean=numel("self"), batchmean=...)     KL's batchmean

    The divisors are the forward's definition (the docs print the reduced loss with them, the proof
    differentiates it); the backward formula states its own factor, which the proof must find equal.  A spec
    may write just the attribute's name, `loss_reduction="reduction"`: the mean then divides by the numel of
    the tensor holding the forward input.

    An int64 attribute needs a `OneOf` rule listing its values: any other value would be computed as `none`
    without a word.  `unchecked=True` says the library does accept any value that way (KlDivBackward: values
    other than 0-3 mean none), and the spec's notes say so on the page."""

    def __init__(self, attr: str, unchecked: bool = False, **divisors):
        self.attr = attr
        self.unchecked = unchecked
        self.divisors = {k: sympy.sympify(v) for k, v in divisors.items()}

    def __repr__(self):
        args = "".join(f", {k}={v}" for k, v in self.divisors.items())
        return f"Reduction({self.attr!r}{args}{', unchecked=True' if self.unchecked else ''})"

    def mode(self, op, value) -> str:
        """The mode ("none", "sum", "mean", "batchmean") of one value of the attribute."""
        attr = op.param(self.attr)
        if attr.type == "string":
            return str(value)   # a string names its mode itself; its `values` only describe it for the pages
        return attr.values[value] if value in attr.values else str(value)

    def divisor(self, op, value):
        """The divisor D of the loss for one value of the attribute (None for none and sum)."""
        return self.divisors.get(self.mode(op, value))

    def divisor_value(self, op, value, shapes: dict, values: dict | None = None):
        """The divisor of one call, from `shapes` {tensor parameter name: shape} (the output's included): None
        for none and sum; an empty count counts as 1, as nothing is computed then.  A one-element input dividing
        (NLLLoss's totalWeight) takes its value from `values` {symbol: number}: the divisor is then that number
        (an int otherwise)."""
        d = self.divisor(op, value)
        if d is None:
            return None
        counts = {s: max(1, count_value(numel_param(s), shapes)) for s in d.free_symbols if numel_param(s)}
        d = sympy.sympify(d.xreplace(counts))   # (a bare count replaced is a Python int)
        if d.free_symbols and values:
            d = d.xreplace({s: sympy.Float(float(v), 60) if not isinstance(v, sympy.Basic) else v
                            for s, v in values.items() if d.has(s)})   # (a symbol, or a GridSum's value)
        return int(d) if d.is_Integer else d

    def gradient_scale(self, op, value, g):
        """What multiplies each element's local derivative in the VJP: g for none and sum, g/D for a mean."""
        d = self.divisor(op, value)
        return g if d is None else g / d


def sigmoid(u) -> sympy.Expr:
    """The logistic function 1/(1 + exp(-u)), as a plain SymPy expression (the backends' stable form comes from
    codegen.rewrite, which recognises this shape)."""
    return 1 / (1 + sympy.exp(-u))
