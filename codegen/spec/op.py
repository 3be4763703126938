"""The operator declaration: `Op` and its documented backward `Formula`s."""
from __future__ import annotations

import dataclasses
import itertools
import re
from dataclasses import dataclass, field

import sympy

from ..keep import kept_for
from .functions import Reduction, numel
from .params import (Attr, FORWARD_INPUT, FORWARD_OUTPUT, GRAD, IntArray, Output, Param, Scalar, Tensor, Text, UNUSED,
                     snake)
from .rules import NotNull, Rule
from .classes import ClassIndex, grid_op
from .outputs import output_ops
from .split import Split, half_ops
from .rewrites import kernel_form
from .sequence import IN_SEQUENCE, SequenceMask, unmasked

ABSENT = "absent"    # `Formula.when` value: the optional tensor is null
PRESENT = "present"  # `Formula.when` value: the optional tensor is given


@dataclass(eq=False)
class Formula:
    """One documented form of the backward, valid where `when` holds.

    expr    the result element as SymPy, over the parameters' symbols (Piecewise for branches, DimSum for a
            reduction along `reduce_dim`, `numel("self")` for an element count).
    when    {bool attribute: True | False}, {string or int64 attribute: one of its `values`} and/or {optional
            tensor: ABSENT | PRESENT}; {} means always.
    roles   tensor roles that differ in this form, e.g. {"selfOrResult": FORWARD_OUTPUT} for ELU's isResult.
    assume  extra SymPy relations on scalars under which this form is exact (stated in the docs and used by
            the proof), e.g. (scale > 0, inputScale > 0).
    forward the forward of this form when it differs from the op's (GeluBackwardV2's tanh approximation): the
            form is proven against it.
    at      declared values at points where the forward is not differentiable, for this form only (the op's
            `at` applies to every form; an entry here replaces the op's entry for the same point).
    rewrites (Rewrite(...), ...): identities the kernels compute this form with, each proven on its own
            (codegen.spec.rewrites): 1 - tanh²(u) as 4σ(2u)σ(-2u), which does not cancel.
    """
    expr: sympy.Expr
    when: dict = field(default_factory=dict)
    roles: dict = field(default_factory=dict)
    assume: tuple = ()
    forward: sympy.Expr | None = None
    at: dict = field(default_factory=dict)
    wrt: sympy.Symbol | None = None   # a split op's form: the half it differentiates (codegen.spec.split)
    output: str | None = None         # an op with several outputs: the output this form computes (None: the
                                      # first), codegen.spec.outputs
    rewrites: tuple = ()              # Rewrite identities the kernels compute this form with (codegen.spec.rewrites)


@dataclass
class Variant:
    """One specialisation a kernel is generated for: bool attributes and optional-tensor presence fixed."""
    key: dict              # {bool, string or int64 attr, optional tensor: True/False | a listed value | ABSENT/PRESENT}
    formula: Formula       # the documented form that applies
    expr: sympy.Expr       # formula.expr with absent optionals replaced by their default
    half: str = ""         # a split op's: the half's symbol ('a', 'b') whose gradient this variant computes

    @property
    def kernel_expr(self) -> sympy.Expr:
        """What the kernels compute: `expr` with the formula's proven rewrites applied (codegen.spec.rewrites)."""
        # (a sequence-masked form is computed unmasked, the positions past the length written 0 after:
        # codegen.spec.sequence)
        expr = unmasked(self.expr) if sympy.sympify(self.expr).has(IN_SEQUENCE) else self.expr
        return kernel_form(expr, self.formula.rewrites) if self.formula.rewrites else expr

    @property
    def suffix(self) -> str:
        """A C/Python identifier fragment naming the variant, '' when the op has a single variant."""
        parts = [self.half] if self.half else []
        for k, v in self.key.items():
            parts.append(f"{snake(k)}_{re.sub(r'[^a-z0-9]+', '_', str(v).lower()).strip('_')}")
        return "__".join(parts)


@dataclass(eq=False)
class Op:
    """One aclnn backward operator.  See the header of `codegen.spec` for every field's meaning."""
    name: str                          # "aclnnSoftmaxBackward"
    params: list                       # Tensor / Scalar / Attr / Output, in aclnn order
    wrt: sympy.Symbol                  # the forward input x the backward differentiates
    forward: sympy.Expr                # the forward y = f(x, ...) elementwise (DimSum for reductions)
    backward: object                   # SymPy expression, a Formula, or a list of Formula
    dtypes: dict                       # {soc: [dtype names]} for every tensor (unless a param overrides)
    rules: list                        # Rule objects after the null checks, in check order
    description: Text                  # 算子功能 / what the operator does
    forward_name: str = ""             # the forward function's name in formulas, e.g. "LogSigmoid"
    reduce_dim: str | int | None = None  # int64 attribute that DimSum reduces along, or a fixed axis (-1: the last)
    loss_reduction: object = None      # the attribute reducing the forward's loss: its name or a Reduction
                                       # (after construction always the name; the Reduction is `reduction`)
    compute_dtype: str = "FLOAT"       # FLOAT16/BFLOAT16/FLOAT are loaded as, computed in, and rounded once from it
    compute: dict = field(default_factory=dict)  # {dtype outside those three: "FLOAT" | "DOUBLE" | "COMPLEX"}
    notes: list = field(default_factory=list)  # extra Text constraints for the docs (约束与限制)
    example: object = None             # Example: the call example's data (None: defaults from the structure)
    null_order: list | None = None     # the null checks' order when the library's differs from the parameters'
    torch: object = None               # the PyTorch equivalent (codegen.spec.torch), for accuracy and bench
    at: dict = field(default_factory=dict)  # {Eq(wrt, point): the backward's value there} where f' has no value
    split: Split | None = None         # the forward input split in halves along an attribute (codegen.spec.split)
    classes: ClassIndex | None = None  # class-index targets: the forward on the (sample, class) grid (codegen.spec.classes)
    sequence: SequenceMask | None = None  # positions past an IntArray's length along a time axis (codegen.spec.sequence)
    source: str = ""                   # file the spec was loaded from (set by the loader)

    def __post_init__(self):
        # `loss_reduction` may be a Reduction; the rest of the framework reads the attribute's name there
        self._reduction = self.loss_reduction if isinstance(self.loss_reduction, Reduction) else None
        if self._reduction is not None:
            self.loss_reduction = self._reduction.attr

    @property
    def reduction(self):
        """The loss reduction as a `Reduction` (None for an op without one): a bare attribute name means the mean
        divides by the numel of the tensor holding the forward input."""
        if self.loss_reduction is None or self._reduction is not None:
            return self._reduction
        x = next((t.name for t in self.tensors if t.role == FORWARD_INPUT), None)
        return Reduction(self.loss_reduction, **({"mean": numel(x)} if x else {}))

    # ---- names -------------------------------------------------------------------------------------------
    @property
    def api_name(self) -> str:
        """'SoftmaxBackward'."""
        return self.name[len("aclnn"):]

    @property
    def snake_name(self) -> str:
        """'softmax_backward' — the op name of the Python API and of generated files.  An acronym is one word, as
        CANN's file names have it: NLLLoss2dBackward → 'nll_loss2d_backward'."""
        return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", self.api_name).lower()

    # ---- parameters --------------------------------------------------------------------------------------
    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def tensors(self) -> list[Tensor]:
        return [p for p in self.params if isinstance(p, Tensor)]

    @property
    def output(self) -> Output:
        """The first output (an op's only one, but for several-output ops: `outputs`, `per_output`)."""
        return next(p for p in self.params if isinstance(p, Output))

    @property
    def outputs(self) -> list[Output]:
        return [p for p in self.params if isinstance(p, Output)]

    @property
    def default_product(self) -> str:
        """The product a Python call runs on without `product=`: ascend910b, or the first of the op's table when it
        does not run there (SwigluGroupGrad: Ascend 950 only)."""
        from .products import DEFAULT_PRODUCT
        return DEFAULT_PRODUCT if DEFAULT_PRODUCT in self.dtypes else next(iter(self.dtypes))

    @property
    def per_output(self) -> list:
        """An op with several outputs as one single-output op per output (codegen.spec.outputs); [] for an op
        with one output."""
        return kept_for(self, "per_output", lambda: output_ops(self)) if len(self.outputs) > 1 else []

    @property
    def output_dtype_sources(self) -> tuple:
        """The inputs whose (promoted) dtype is the output's default dtype."""
        f = self.output.dtype_from
        if isinstance(f, (tuple, list)):
            return tuple(f)
        return (f or self.tensors[0].name,)

    @property
    def scalars(self) -> list[Scalar]:
        return [p for p in self.params if isinstance(p, Scalar)]

    @property
    def reals(self) -> list:
        """The real-valued parameters a formula reads like a number: aclScalars, double and float attributes."""
        return [p for p in self.params if isinstance(p, Scalar) or (isinstance(p, Attr) and p.is_real)]

    @property
    def int_arrays(self) -> list[IntArray]:
        return [p for p in self.params if isinstance(p, IntArray)]

    @property
    def attrs(self) -> list[Attr]:
        return [p for p in self.params if isinstance(p, Attr)]

    @property
    def grad(self) -> Tensor:
        return next(t for t in self.tensors if t.role == GRAD)

    def symbol_names(self) -> dict:
        """{symbol: aclnn parameter name} for every parameter that has a symbol."""
        return {p.symbol: p.name for p in self.params if p.symbol is not None}

    def dtypes_of(self, name: str) -> dict:
        """{soc: [dtype names]} for one tensor parameter."""
        p = self.param(name)
        return getattr(p, "dtypes", None) or self.dtypes

    @property
    def products(self) -> list[str]:
        return list(self.dtypes)

    def compute_of(self, dtype: str) -> str:
        """The dtype a call computes in when its inputs promote to `dtype` (aclnn's deduction table)."""
        return self.compute.get(dtype, self.compute_dtype)

    @property
    def computes(self) -> list[str]:
        """Every compute dtype some call of the op uses: "FLOAT" first, then "DOUBLE" and "COMPLEX" when a dtype
        computes in it."""
        claimed = {d for t in [self.dtypes] + [getattr(p, "dtypes", None) or {} for p in self.params]
                   for dts in t.values() for d in dts}
        out = ["FLOAT"] if claimed - set(self.compute) or any(v == "FLOAT" for v in self.compute.values()) else []
        return out + [c for c in ("DOUBLE", "COMPLEX") if c in self.compute.values()]

    @property
    def bool_tensors(self) -> list[Tensor]:
        """Tensors of dtype BOOL on every product (ScaledMaskedSoftmaxBackward's mask): their symbol is a truth value,
        read only in the conditions of a Piecewise (true where the element is nonzero)."""
        return [t for t in self.tensors if t.dtypes and all(set(d) == {"BOOL"} for d in t.dtypes.values())]

    @property
    def dim_attr(self) -> Attr | None:
        """The int64 attribute naming DimSum's axis (None for a fixed axis or no row reduction)."""
        return self.param(self.reduce_dim) if isinstance(self.reduce_dim, str) else None

    def reduce_axis(self, kw: dict) -> int | None:
        """The axis DimSum reduces along in a call (`kw`: the Python API's keywords, or the checked values): the
        dim attribute's value, or the fixed axis; None without a row reduction."""
        if self.reduce_dim is None:
            return None
        return int(kw[self.dim_attr.py_name]) if self.dim_attr else int(self.reduce_dim)

    # ---- rules -------------------------------------------------------------------------------------------
    def pointers(self) -> list[Param]:
        """Every required pointer parameter: tensors, the output, aclScalars, aclIntArrays and C strings that are
        not optional."""
        return [p for p in self.params
                if (isinstance(p, (Tensor, Output, Scalar, IntArray)) or (isinstance(p, Attr) and p.type == "string"))
                and not getattr(p, "optional", False)]

    @property
    def null_rules(self) -> list[Rule]:
        """Null checks, first of all, one per required pointer parameter, in parameter order (or `null_order`)."""
        names = [p.name for p in self.pointers()]
        if self.null_order:
            names = list(self.null_order)
        return [NotNull(n) for n in names]

    @property
    def all_rules(self) -> list[Rule]:
        return self.null_rules + list(self.rules)

    # ---- formulas and variants ---------------------------------------------------------------------------
    @property
    def formulas(self) -> list[Formula]:
        if isinstance(self.backward, Formula):   # one Formula, written without a list (its `at=` or rewrites)
            return [self.backward]
        return list(self.backward) if isinstance(self.backward, (list, tuple)) else [Formula(self.backward)]

    def variant_keys(self) -> list[str]:
        """Names a kernel specialises on: bool, string and enumerated int64 attributes a formula's `when` names,
        then optional tensors."""
        attrs = [a.name for a in self.attrs if a.type in ("bool", "string", "int64")
                 and any(a.name in f.when for f in self.formulas)]
        # an optional tensor never read (CrossEntropyLossGrad's zloss inputs, role UNUSED) chooses nothing
        # nor does a split op's row count (codegen.spec.split: the call reads it, not the kernels)
        rows = self.split.rows if self.split is not None else None
        return attrs + [t.name for t in self.tensors if t.optional and t.role != UNUSED and t.name != rows]

    def variant_choices(self, name: str) -> list:
        """The values a variant key takes: False/True, a string or int64 attribute's `values`, or ABSENT/PRESENT."""
        p = self.param(name)
        if isinstance(p, Attr):
            return [False, True] if p.type == "bool" else list(p.values)
        return [ABSENT, PRESENT]

    def variant_key(self, kw: dict) -> dict:
        """The variant key of a call with Python keywords `kw` (a null optional tensor is None)."""
        key = {}
        for name in self.variant_keys():
            p = self.param(name)
            key[name] = selector_value(p, kw.get(p.py_name))
        return key

    def formula_for(self, key: dict) -> Formula | None:
        """The first formula whose `when` agrees with `key`."""
        for f in self.formulas:
            if all(key.get(k) == v for k, v in f.when.items()):
                return f
        return None

    @property
    def halves(self) -> list:
        """A split op's two half ops (codegen.spec.split), [] for any other."""
        return kept_for(self, "halves", lambda: half_ops(self)) if self.split is not None else []

    @property
    def grid(self):
        """A class-index op's grid op (codegen.spec.classes): the elementwise op its kernels compute; None for any
        other."""
        return kept_for(self, "grid", lambda: grid_op(self)) if self.classes is not None else None

    @property
    def variants(self) -> list[Variant]:
        if self.split is not None:   # each half op's variants, named after the half
            return [dataclasses.replace(v, half=str(h.wrt)) for h in self.halves for v in h.variants]
        keys = self.variant_keys()
        choices = [self.variant_choices(k) for k in keys]
        out = []
        for values in itertools.product(*choices):
            key = dict(zip(keys, values))
            f = self.formula_for(key)
            if f is None:
                continue  # the validator reports uncovered combinations
            subs = {self.param(k).symbol: self.param(k).default for k, v in key.items() if v == ABSENT}
            out.append(Variant(key, f, f.expr.subs(subs) if subs else f.expr))
        return out

    def forward_of(self, formula: Formula):
        """The forward a form is the derivative of: its own, or the op's."""
        return formula.forward if formula.forward is not None else self.forward

    def role_of(self, tensor: str, formula: Formula) -> str:
        return formula.roles.get(tensor, self.param(tensor).role)

    def symbol_of_role(self, role: str, formula: Formula):
        for t in self.tensors:
            if self.role_of(t.name, formula) == role:
                return t.symbol
        return None

    def x_symbol(self, formula: Formula):
        """The symbol holding the forward input in this formula (None when only y is given)."""
        return self.symbol_of_role(FORWARD_INPUT, formula)

    def y_symbol(self, formula: Formula):
        return self.symbol_of_role(FORWARD_OUTPUT, formula)

    # ---- declared values at branch points ------------------------------------------------------------------
    def declared(self, formula: Formula) -> list[tuple]:
        """[(point, value, relation as written)] of the declared values that apply to `formula`: the op's `at`,
        with the formula's own `at` replacing an entry for the same relation.  `Eq(Abs(x), c)` declares both
        x = c and x = -c."""
        table = dict(self.at)
        table.update(formula.at)
        out = []
        for rel, value in table.items():
            for point in points_of(rel, self.wrt):
                out.append((point, sympy.sympify(value), rel))
        return out


def selector_value(p: Param, value):
    """What a call's value of variant key `p` is in a variant's key: a bool attribute's truth, a string's or an
    int64 attribute's value (an int64 outside its `values` selects no variant: its OneOf rule refuses it), an
    optional tensor's ABSENT/PRESENT."""
    if isinstance(p, Attr):
        return {"bool": bool, "int64": int}.get(p.type, lambda v: v)(value)
    return ABSENT if value is None else PRESENT


def fixed_value(p: Attr, value):
    """The SymPy value a variant fixes attribute `p`'s symbol to: a truth value for a bool, an integer for an int64."""
    if p.type == "bool":
        return sympy.true if value else sympy.false
    return sympy.Integer(value)


def points_of(rel, x) -> list:
    """The points x = c that `Eq(x, c)`, `Eq(a*x + b, c)` or `Eq(Abs(x), c)` names; ValueError for anything else."""
    if not isinstance(rel, sympy.Eq):
        raise ValueError(f"{rel!r} is not Eq(x, point) (write Eq(x, c): `x == c` in Python compares expressions)")
    e = rel.lhs - rel.rhs
    a = sympy.Dummy("a")
    inner = [b for b in e.atoms(sympy.Abs) if x in b.free_symbols and b.args[0] != x]
    if len(inner) == 1:   # Eq(Abs(f), c), f linear in x (HingeLoss-like |t*x| = 1): the points of f = c and f = -c
        rest = e.xreplace({inner[0]: a})
        k = sympy.diff(rest, a)
        if x not in rest.free_symbols and k != 0 and not k.free_symbols & {a}:
            c = sympy.simplify(-(rest - k * a) / k)
            f = inner[0].args[0]
            return list(dict.fromkeys(points_of(sympy.Eq(f, c), x) + points_of(sympy.Eq(f, -c), x)))
    e_abs = e.xreplace({sympy.Abs(x): a})
    var = a if x not in e_abs.free_symbols and a in e_abs.free_symbols else x
    e = e_abs if var is a else e
    slope = sympy.diff(e, var)
    if var not in e.free_symbols or slope.free_symbols & {var, x} or slope == 0:
        raise ValueError(f"{rel} does not name a point of {x} (write Eq({x}, c) or Eq(Abs({x}), c), c free of {x})")
    c = sympy.simplify(-(e - slope * var) / slope)
    return [c] if var is x else ([c] if c == 0 else [c, -c])
