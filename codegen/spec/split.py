"""A forward input split along a dimension into two halves with a function of both (the GLU family).

    split=Split("self", dim="dim"),
    wrt=(a, b),                                  # the halves: a = self[..., :n/2, ...], b = self[..., n/2:, ...]
    forward=a * sigmoid(b),                      # GLU, written on the halves
    backward=[Formula(g * sigmoid(b), wrt=a),    # out[..., :n/2, ...]: the gradient w.r.t. the first half
              Formula(g * a * sigmoid(b) * (1 - sigmoid(b)), wrt=b)],   # out[..., n/2:, ...]: the second's

A tensor may hold a function of one half that the forward computed and passed on (GeGlu's `gelu` = GELU(b)):

    Tensor("gelu", G, role=OPERAND, holds=gelu_of(b)),
    forward=a * G,
    backward=[Formula(g * G, wrt=a), Formula(g * a * gelu_prime(b), wrt=b, ...)],

The first half's gradient reads it as given (G depends on b only, a constant for d/da: the library multiplies by
the tensor, not by a recomputed GELU); the second half's forward is `a * gelu_of(b)`, the tensor substituted,
and its form may not read G (it is unused there).  `holds` may choose its half by a bool or int64 attribute
(GeGluV3's activateLeft: Piecewise((gelu_of(a), activateLeft), (gelu_of(b), True))): each variant of each half
substitutes what the tensor holds in that variant.

gradOutput has the forward's shape (the input's with `dim` halved); the output has the input's full shape, the
two halves' gradients concatenated along `dim`.  Everything that reasons per element (the proof, the exact
reference, the error bound, every kernel) sees the op as two elementwise *half ops* (`half_ops`) over the
halved shape, each with the two halves as tensors of their own: the first differentiates the forward w.r.t.
`a` with `b` an operand, the second w.r.t. `b`.  Only the calls differ: each backend cuts the input and the
output into their two halves along `dim` (views, no copy) and runs the first half op's kernel into the first
half of the output, the second's into the second.

Two layouts of the call beyond halves along `dim` (ClippedSwigluGrad's), each a view of the same elementwise
half ops, so that the proof is the halves' and only the cutting differs:

    split=Split("x", dim="dim", interleaved="interleaved", rows="groupIndexOptional"),

- `interleaved` names a bool attribute: when true, the halves are the even and the odd elements of each row, a
  row being the block of the axes from `dim` on read as one (x[p, 2h] and x[p, 2h + 1], x viewed as [pre, cut],
  pre the product of the axes before `dim` and cut that of the rest); gradOutput, of x's shape with `dim`
  halved, is read as [pre, cut/2] in the same order, and the output is filled the same way.  When false (and
  without the attribute) the halves are the front and back halves along `dim`.
- `rows` names an optional INT64 tensor (a 1-D list of group sizes): only the first min(sum, pre) rows of the
  [pre, cut] view are computed (a negative sum counts as 0) and the output's other rows hold 0, as the library's
  kernel writes them; null means every row.
- `masks` names extra outputs (below: the gradient of a per-row tensor) whose rows past the count hold 0 too
  (SwigluGroupQuantGrad's gradWeight: I(t < trunc)); the others are computed on every row (SwigluGroupGrad's).
- `rows_sum` says how the counts add up: "exact" (the default: the sum of the int64 values, a negative sum counting
  as 0 rows: SwigluGroupGrad's ComputeValidRowCount) or "uint32" (each count cast to uint32 and summed modulo
  2**32, then min(sum, pre): SwigluGroupQuantGrad's kernel, where a negative count wraps to a large one).
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import sympy

from .params import FORWARD_INPUT, OPERAND, UNUSED, Attr, Output, Tensor


@dataclass(frozen=True)
class Split:
    """The tensor split into halves, and the int64 attribute naming the dimension (negative counts from the end)."""
    tensor: str
    dim: str | int                   # an int64 Attr's name, or a fixed axis (-1: the last; SwigluGroupGrad's)
    interleaved: str | None = None   # a bool Attr: true takes the even and odd elements of each row as the halves
    rows: str | None = None          # an optional INT64 Tensor: only the first sum(...) rows are computed
    masks: tuple = ()                # extra outputs whose rows past the count hold 0 too (one value per row)
    rows_sum: str = "exact"          # how the counts add up: "exact" (a negative sum is 0 rows) or "uint32"

    @property
    def dim_attr(self) -> str | None:
        """The int64 attribute naming the split axis, None for a fixed axis (`dim=-1`)."""
        return None if isinstance(self.dim, int) else self.dim

    def dim_of(self, op, kw: dict, ndim: int) -> int:
        """The split axis (0 <= d < ndim) of the call `kw` (Python keywords) of a tensor of rank `ndim`."""
        d = self.dim if self.dim_attr is None else int(kw[op.param(self.dim).py_name])
        return d % max(ndim, 1)

    def axis_words(self, lang: str) -> str:
        """The split axis in a page's words: the attribute's name, or the fixed axis ('the last dimension')."""
        if self.dim_attr is not None:
            return self.dim
        if self.dim == -1:
            return {"zh": "最后一维", "en": "the last dimension"}[lang]
        return {"zh": f"第{self.dim}维", "en": f"dimension {self.dim}"}[lang]

    @property
    def merged(self) -> bool:
        """Whether the call views the tensors as rows [pre, cut] (interleaved or counted rows) rather than
        cutting them along dim."""
        return self.interleaved is not None or self.rows is not None


def half_tensor_name(op, h: int) -> str:
    """The internal tensor holding half `h` of the split input: the half's symbol ('a', 'b')."""
    return str(op.wrt[h])


def half_ops(op) -> list:
    """The two elementwise ops a split op is made of (cached on the op): half h differentiates `op.forward`
    w.r.t. `op.wrt[h]`, from the formulas whose `wrt` is that half.  Their tensors are gradOutput, the two
    halves and every other tensor of the op, their output is the op's: all of the halved shape."""
    cached = op.__dict__.get("_half_ops")
    if cached is not None:
        return cached
    from .op import Op   # (op.py imports this module)
    from . import rules as R
    split = op.split
    source = op.param(split.tensor)
    skipped = {p.name for p in extra_params(op)}
    rows_read = set(per_row_tensors(op))
    out = []
    for h, sym in enumerate(op.wrt):
        params = []
        for p in op.params:
            if p.name in skipped:
                continue   # a second output, or a tensor only its forms read (codegen.spec.split: extra outputs)
            if p.name == split.tensor:
                for k, s in enumerate(op.wrt):
                    params.append(Tensor(str(s), s, role=FORWARD_INPUT if k == h else OPERAND, dtypes=source.dtypes,
                                         doc=source.doc))
            elif p.name in (split.dim, split.interleaved, split.rows):
                continue   # the kernels never read them: the call cuts the halves (and counts the rows)
            elif isinstance(p, Tensor) and p.holds is not None:
                params.append(dataclasses.replace(p, holds=None))   # an operand, unused where it is tied (below)
            else:
                params.append(p)
        names = [p.name for p in params if isinstance(p, (Tensor, Output)) and p.name not in rows_read]
        forms = _forms_per_key(op, sym, [dataclasses.replace(f, wrt=None) for f in op.formulas if f.wrt == sym])
        # (each form's own forward is exact per variant; this one, every tie of this half substituted whatever
        # the variant, is what the half's validation reads: a function of the half)
        forward = sympy.sympify(op.forward).xreplace({t.symbol: t.holds for t in tied_tensors(op)
                                                     if sym in sympy.sympify(t.holds).free_symbols})
        half = Op(
            name=op.name, params=params, wrt=sym, forward=forward, backward=forms, dtypes=op.dtypes,
            # (the op's Requires too: conditions on its scalars, which the half's proof cases respect)
            # (a tensor per row, PerRow, is read broadcast along the row; the half op has it per element, and the
            # oracle calls the op with each element a row of its own: codegen.accuracy.runner.half_kernel)
            rules=[R.MinRank(*names, n=1), R.MaxRank(*names, n=8), R.ShapeSame(*names)]
            + [R.ShapeSame(names[0], *rows_read)] * bool(rows_read)
            + [r for r in op.rules if isinstance(r, R.Requires)], description=op.description, forward_name=op.forward_name,
            compute_dtype=op.compute_dtype, compute=dict(op.compute), at=dict(op.at), source=op.source)
        half.half_of = (op, h)
        out.append(half)
    op.__dict__["_half_ops"] = out
    return out


def per_row_tensors(op) -> list[str]:
    """The tensors read one value per row (`PerRow`): the kernels read them broadcast along the row."""
    from . import rules as R
    return [r.params[0] for r in op.rules if isinstance(r, R.PerRow)]


def extra_outputs(op) -> list:
    """A split op's outputs after the first (SwigluGroupGrad's gradWeightOutOptional): each the gradient w.r.t. a
    per-row tensor (`Output(wrt=w, sum_to=w)` with `PerRow(w, ...)`), computed by its own forms (`output=`, each
    with its own `forward=`) on gradOutput's shape and summed along the row; computed only when it is given and
    every optional tensor its forms read is (SwigluGroupGrad's gradWeight needs the weight and yOrigin)."""
    return op.outputs[1:] if op.split is not None else []


def extra_params(op) -> list:
    """The parameters only the extra outputs have: those outputs, and the tensors only their forms read (not the
    forward, not the halves' forms)."""
    extras = extra_outputs(op)
    if not extras:
        return []
    names = {o.name for o in extras}
    own = [f for f in op.formulas if f.output not in names]
    read = set().union(sympy.sympify(op.forward).free_symbols, *(sympy.sympify(f.expr).free_symbols for f in own))
    return [p for p in op.params if p.name in names
            or isinstance(p, Tensor) and p.symbol is not None and p.symbol not in read and p.role != UNUSED
            and any(p.symbol in sympy.sympify(f.expr).free_symbols for f in op.formulas if f.output in names)]


def split_output_ops(op) -> list:
    """A split op with extra outputs as one op per output (`Op.per_output`): the split op computing the first
    (its own halves, rows and forms; without the extra outputs and the tensors only they read), then per extra
    output an elementwise op on gradOutput's shape: gradOutput, the tensors its forms read (each required: the
    output is computed only when they are given), its per-row tensor as the FORWARD_INPUT (broadcast along the
    row, the output summed back to it), the scalars and attributes, its forms with their own forward."""
    from . import rules as R
    from .op import Op
    from .outputs import forms_of
    extras = extra_outputs(op)
    skipped = {p.name for p in extra_params(op)}
    first = op.outputs[0]
    params = [p for p in op.params if p.name not in skipped]
    names = {p.name for p in params}
    main = Op(name=op.name, params=params, wrt=op.wrt, forward=op.forward,
              backward=[f for f in op.formulas if f.output in (None, first.name)], dtypes=op.dtypes,
              rules=[r for r in op.rules if set(r.params) <= names], description=op.description,
              forward_name=op.forward_name, compute_dtype=op.compute_dtype, compute=dict(op.compute),
              at=dict(op.at), split=op.split, source=op.source, example=op.example)
    main.output_of = (op, first.name)
    out = [main]
    grad = op.grad
    for o in extras:
        forms = forms_of(op, o)
        read = set().union(*(sympy.sympify(f.expr).free_symbols | sympy.sympify(f.forward).free_symbols
                             for f in forms if f.forward is not None))
        sub_params = []
        for p in op.params:
            if p is o:
                sub_params.append(dataclasses.replace(p, wrt=None, optional=False))
            elif isinstance(p, Tensor) and p.symbol is not None and (p.symbol in read or p.name == grad.name):
                role = FORWARD_INPUT if p.symbol == o.wrt else (p.role if p.name == grad.name else OPERAND)
                sub_params.append(dataclasses.replace(p, role=role, optional=False, default=None))
            elif not isinstance(p, (Tensor, Output)) and p.symbol is not None and p.symbol in read:
                sub_params.append(p)
        tensors = [p.name for p in sub_params if isinstance(p, Tensor)]
        full = [n for n in tensors if n not in per_row_tensors(op)]
        w = next(p.name for p in sub_params if isinstance(p, Tensor) and p.symbol == o.wrt)
        # (the per-row tensor of gradOutput's shape here: the kernels read it broadcast along the row, and the
        # oracle measures this op element by element, each element a row of its own: codegen.accuracy.runner)
        rules = [R.MinRank(*tensors, n=1), R.MaxRank(*tensors, o.name, n=8), R.ShapeSame(*full, w, o.name)]
        sub = Op(name=op.name, params=sub_params, wrt=o.wrt, forward=forms[0].forward,
                 backward=[dataclasses.replace(f, forward=None) for f in forms], dtypes=op.dtypes, rules=rules,
                 description=op.description, forward_name=op.forward_name, compute_dtype=op.compute_dtype,
                 compute=dict(op.compute), source=op.source)
        sub.output_of = (op, o.name)
        out.append(sub)
    return out


def _forms_per_key(op, sym, forms: list) -> list:
    """Half `sym`'s forms, one per variant key of the whole op (GeGlu's first half has one form for both
    `approximate` values, the second one each): both halves then have the same variants, which every backend
    dispatches on together (one call of each half's kernel per key).  Where a tensor holds a function of this
    half in that variant, the form's forward has it substituted and the tensor is unused (`roles`)."""
    import itertools

    from .op import fixed_value
    skipped = {p.name for p in extra_params(op)}   # (only the extra outputs read them)
    keys = [k for k in op.variant_keys() if k not in skipped]
    out = []
    for values in itertools.product(*[op.variant_choices(k) for k in keys]):
        key = dict(zip(keys, values))
        f = next((f for f in forms if all(key.get(k) == v for k, v in f.when.items())), None)
        if f is None:
            continue
        fixed = {a.symbol: fixed_value(a, key[a.name]) for a in op.attrs if a.name in key and a.type != "string"}
        tied = {}
        for t in tied_tensors(op):
            e = sympy.sympify(t.holds).subs(fixed)
            if sym in e.free_symbols:
                tied[t] = e
        # (every form states its forward: the half op's own has every tie of the half substituted)
        changes = {"when": key, "forward": sympy.sympify(op.forward_of(f)).subs(fixed).xreplace(
            {t.symbol: e for t, e in tied.items()})}
        if tied:
            changes["roles"] = {**f.roles, **{t.name: UNUSED for t in tied}}
        out.append(dataclasses.replace(f, **changes))
    return out


def tied_tensors(op) -> list:
    """The op's tensors that hold a function of a half (`Tensor(holds=...)`)."""
    return [t for t in op.tensors if t.holds is not None]


def tied_values(op, kw: dict) -> dict:
    """{keyword: array} of every tensor that holds a function of a half, computed from the call `kw`'s input
    (in float64, rounded once to the input's dtype): the value the forward would have passed on.  Tests and
    samples use it to build calls the library's forward could make."""
    import numpy as np

    from codegen.runtime.blocks import halves
    src = np.asarray(kw[op.param(op.split.tensor).py_name])
    d = op.split.dim_of(op, kw, src.ndim)
    parts = [p.astype(np.float64) for p in halves(src, d)]
    values = {a.symbol: kw[a.py_name] for a in op.attrs + op.scalars
              if a.symbol is not None and kw.get(a.py_name) is not None}
    out = {}
    for t in tied_tensors(op):
        f = _numeric(sympy.sympify(t.holds).subs(values), tuple(op.wrt))
        with np.errstate(all="ignore"):
            out[t.py_name] = np.broadcast_to(np.asarray(f(*parts), np.float64), parts[0].shape).astype(src.dtype)
    return out


@functools.lru_cache(maxsize=64)
def _numeric(expr, args):
    """`expr` as a NumPy function of `args` (lambdify takes some 20 ms: samples call it once per call built)."""
    return sympy.lambdify(list(args), expr, modules=["scipy", "numpy"])


def check(op, fail) -> None:
    """What a split op must say, beyond what each half op's validation checks."""
    split = op.split
    names = {p.name: p for p in op.params}
    t = names.get(split.tensor)
    if not isinstance(t, Tensor) or t.role != FORWARD_INPUT:
        fail(f"split: {split.tensor!r} must name the FORWARD_INPUT tensor")
    if t.symbol is not None:
        fail(f"split: tensor {t.name} takes no symbol: its halves are wrt=(first, second)")
    d = names.get(split.dim) if split.dim_attr is not None else None
    if split.dim_attr is not None and (not isinstance(d, Attr) or d.type != "int64"):
        fail(f"split: dim {split.dim!r} must name an int64 Attr, or be a fixed axis (an int, -1 the last)")
    if isinstance(split.dim, bool) or (split.dim_attr is None and not isinstance(split.dim, int)):
        fail(f"split: dim {split.dim!r} must name an int64 Attr, or be a fixed axis (an int, -1 the last)")
    if split.dim_attr is None and isinstance(split.dim, int) and not isinstance(split.dim, bool):
        from .rules import ShapeHalved, ShapeSame, rank_bounds
        tied = {split.tensor}.union(*(r.params for r in op.rules if isinstance(r, (ShapeHalved, ShapeSame))
                                      and split.tensor in r.params))
        low = max(rank_bounds(op, tied)[0], 1)
        if not -low <= split.dim < low:   # (the axis wraps by the rank: dim=2 of a rank-2 x split axis 0)
            fail(f"split: the fixed axis dim={split.dim} is not an axis of every call's {split.tensor} (at least "
                 f"rank {low}, a MinRank rule on it or a tensor of its shape says: from {-low} to {low - 1})")
    if split.interleaved is not None:
        i = names.get(split.interleaved)
        if not isinstance(i, Attr) or i.type != "bool":
            fail(f"split: interleaved {split.interleaved!r} must name a bool Attr")
    if split.rows is not None:
        r = names.get(split.rows)
        if not isinstance(r, Tensor) or not r.optional or r.symbol is not None or not r.dtypes or any(
                set(v) != {"INT64"} for v in r.dtypes.values()):
            fail(f"split: rows {split.rows!r} must name an optional INT64 Tensor without a symbol (the group sizes: "
                 f"only the first sum(...) rows are computed)")
    if split.rows_sum not in ROWS_SUMS:
        fail(f"split: rows_sum {split.rows_sum!r} must be one of {', '.join(map(repr, ROWS_SUMS))}")
    if split.rows is None and (split.rows_sum != "exact" or split.masks):
        fail("split: rows_sum= and masks= need a row count (Split(..., rows=...))")
    if not isinstance(split.masks, tuple):
        fail("split: masks must be a tuple of extra outputs' names")
    extra_names = [o.name for o in extra_outputs(op)]
    for m in split.masks:
        if m not in extra_names:
            fail(f"split: masks names {m!r}, which is no extra output (an Output after the first, the gradient of "
                 f"a per-row tensor): only those have rows to zero past the count")
    if split.merged and tied_tensors(op):
        fail("split: a tensor holding a function of a half (holds=) with interleaved= or rows= is not implemented")
    if not isinstance(op.wrt, tuple) or len(op.wrt) != 2 or len(set(op.wrt)) != 2:
        fail("split: wrt must be the two halves' symbols, wrt=(first, second)")
    taken = {p.symbol for p in op.params if p.symbol is not None}
    for s in op.wrt:
        if s in taken:
            fail(f"split: the half {s} is also a parameter's symbol")
        if str(s) in names:
            fail(f"split: the half {s} has a parameter's name")
    extras = {o.name for o in extra_outputs(op)}
    for i, f in enumerate(op.formulas):
        if f.output in extras:
            continue   # an extra output's form (_check_extra_outputs)
        if f.wrt not in op.wrt:
            fail(f"backward formula {i + 1}: a split op's forms say which half they differentiate, "
                 f"Formula(..., wrt={op.wrt[0]}) or wrt={op.wrt[1]}")
    if op.reduce_dim is not None or op.loss_reduction is not None:
        fail("split: a row reduction or a loss reduction with a split is not implemented")
    _check_extra_outputs(op, fail)
    from .op import fixed_value
    for t in tied_tensors(op):
        free = sympy.sympify(t.holds).free_symbols
        if t.symbol is None or not free & set(op.wrt):
            fail(f"split: tensor {t.name} holds= a function of a half ({op.wrt[0]} or {op.wrt[1]}), and needs a "
                 f"symbol")
        scalars = {p.symbol for p in op.params if isinstance(p, (Attr,)) or p.kind == "scalar"}
        if free - set(op.wrt) - scalars:
            fail(f"split: tensor {t.name} holds= an expression of undefined symbol(s) "
                 f"{', '.join(sorted(map(str, free - set(op.wrt) - scalars)))}")
        for i, f in enumerate(op.formulas):
            fixed = {a.symbol: fixed_value(a, f.when[a.name]) for a in op.attrs
                     if a.name in f.when and a.type != "string"}
            own = f.wrt in sympy.sympify(t.holds).subs(fixed).free_symbols
            if own and t.symbol in sympy.sympify(f.expr).free_symbols:
                fail(f"backward formula {i + 1}: the form of d/d{f.wrt} reads {t.name}, which holds a function of "
                     f"{f.wrt} (write that function instead)")


def _check_extra_outputs(op, fail) -> None:
    """A split op's outputs after the first: each the gradient w.r.t. a per-row tensor, summed back to it, by forms
    of its own with their own forward; the split read as rows (`rows=`, the C runtime's executor for it)."""
    from . import rules as R
    rows_read = per_row_tensors(op)
    for o in extra_outputs(op):
        w = next((t for t in op.tensors if o.wrt is not None and t.symbol == o.wrt), None)
        if w is None or w.name not in rows_read or o.sum_to != w.name:
            fail(f"output {o.name}: a split op's second output is the gradient w.r.t. a tensor read per row, "
                 f"summed back to it: Output(wrt=<its symbol>, sum_to=<it>) with PerRow(<it>, ...)")
        forms = [f for f in op.formulas if f.output == o.name]
        if not forms or any(f.forward is None or f.wrt is not None for f in forms):
            fail(f"output {o.name}: its forms need a forward of their own (Formula(..., output={o.name!r}, "
                 f"forward=...)): the op's forward is written on the halves")
        if not op.split.rows or op.split.interleaved:
            fail(f"output {o.name}: a second output of a split op is implemented for a split read with a row count "
                 f"(Split(..., rows=...)) and not interleaved")
        if not any(isinstance(r, R.ShapeSame) and set(r.params) == {w.name, o.name} for r in op.rules):
            fail(f"output {o.name}: needs ShapeSame({w.name!r}, {o.name!r}) (the gradient has the tensor's shape)")
    for t in rows_read:
        if not isinstance(op.param(t), Tensor) or op.param(t).name == op.split.tensor:
            fail(f"PerRow({t}): an input tensor other than the split one")


ROWS_SUMS = ("exact", "uint32")   # Split.rows_sum: how the row counts add up (codegen.runtime.rows.row_count)
SECOND_HALF = "secondHalf"   # the kernel op's bool attribute choosing the second half's form


def kernel_op(op):
    """One elementwise op holding both halves' forms (cached on the op), for a backend that builds one kernel with
    a variant per half (Ascend C: one AI Core kernel, launched once per half): the half ops' tensors, and a bool
    attribute `secondHalf` choosing the form, true for the second half's.  Not a spec: nothing proves it (the
    half ops are proven), it only carries the lowered forms."""
    cached = op.__dict__.get("_kernel_op")
    if cached is not None:
        return cached
    import sympy

    from . import rules as R
    from .op import Op
    first, second = op.halves
    choose = sympy.Symbol(SECOND_HALF)
    params = [p for p in first.params if not isinstance(p, Output)]
    params.append(Attr(SECOND_HALF, choose, type="bool", doc=first.params[0].doc))
    params.append(first.output)
    forms = []
    for h, half in enumerate(op.halves):
        for f in half.formulas:
            roles = {half.param(str(s)).name: half.param(str(s)).role for s in op.wrt}
            forms.append(dataclasses.replace(f, when={**f.when, SECOND_HALF: bool(h)}, roles=roles))
    rules = [r for r in first.rules if isinstance(r, R.ShapeSame)]
    out = op.output.name
    if any(isinstance(r, (R.DtypeSame, R.PromotedSame)) and out in r.params for r in op.rules):
        # the output's dtype is the inputs' (GLU's out, self's): so is the kernel's, one dtype in and out
        rules.append(R.DtypeSame(*[t.name for t in first.tensors], out))
    k = Op(name=op.name, params=params, wrt=op.wrt[0], forward=op.forward, backward=forms, dtypes=op.dtypes,
           rules=rules, description=op.description, forward_name=op.forward_name,
           compute_dtype=op.compute_dtype, compute=dict(op.compute), source=op.source)
    op.__dict__["_kernel_op"] = k
    return k
