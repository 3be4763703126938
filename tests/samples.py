"""Sample inputs generated from a spec (PyTorch OpInfo style): every variant, typical values.

The generator reads only the spec's structure: tensor roles, optional tensors, attributes and the scalar
relations the proof assumes.  Tensors holding a forward *output* get values from the forward's image: for
elementwise ops the forward of random x (the reference inverts it), for a DimSum forward (softmax) exact
dyadic points of the simplex, y_i = k_i / 2^m with Σ k_i = 2^m, so that y is exactly a forward output in the
tested dtype and its pre-image log(y) is known.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import mpmath
import numpy as np
import sympy

from codegen.spec import ABSENT, DimSum
from codegen.spec.params import FORWARD_INPUT, FORWARD_OUTPUT, GRAD
from codegen.runtime.checks import NUMPY_DTYPES, dtype_name
from codegen.spec.split import tied_values
from codegen.verify.cases import cases, sample_scalars

NP = NUMPY_DTYPES
MANTISSA = {"FLOAT": 23, "FLOAT16": 10, "BFLOAT16": 7}


@dataclass
class Sample:
    kw: dict                       # kernel keywords (no product/out)
    variant: object
    preimage: np.ndarray | None = None
    label: str = ""
    extra: dict = field(default_factory=dict)


_CASES: dict = {}


def _cases_of(op) -> list:
    """cases(op), worked out once per op and process: SymPy reads the forward's branch points for it (up to 0.12 s
    of CPU for one op, LogitGrad's), and samples() asks for every variant of every call (samples() of every op
    and dtype: 3-4x less CPU with the cases kept)."""
    return per_op(_CASES, op, cases)


def _scalar_values(op, variant, rng):
    """The real scalars (aclScalars, double and float attributes) of one of the variant's proof cases, drawn at
    random: inside the signs, orders and intervals the case fixes (codegen.verify.cases), FLOAT values."""
    options = [c for c in _cases_of(op) if c.variant.key == variant.key]
    case = options[int(rng.integers(len(options)))]
    draw = {"positive": lambda: rng.uniform(0.25, 2), "negative": lambda: -rng.uniform(0.25, 2),
            "any": lambda: rng.uniform(-2, 2)}
    values = sample_scalars(case, lambda kind: draw[kind]())
    return {p.py_name: float(np.float32(float(values[p.symbol]))) for p in op.reals}


def samples(op, dtype: str, rng, n: int = 48) -> list[Sample]:
    """One sample per kernel variant (× each loss reduction value), `n` elements each."""
    if op.split is not None:
        return _split_samples(op, dtype, rng, n)
    if op.classes is not None:
        return _class_samples(op, dtype, rng, n)
    out = []
    t = NP[dtype]
    reductions = sorted(op.param(op.loss_reduction).values) if op.loss_reduction else [None]
    channel = channel_rules(op)
    for variant in op.variants:
        for red in reductions:
            kw = {}
            formula = variant.formula
            coupled = sympy.sympify(op.forward).has(DimSum)
            shape = ranked(op, (4, 12) if coupled else (n,))
            if channel:   # (2, C, n / 2C), or (1, n) where 2C does not divide n (n channels: exactly n elements,
                # as a test of lengths asks)
                shape = (2, CHANNELS, n // (2 * CHANNELS)) if n % (2 * CHANNELS) == 0 else (1, n)
            # a sum_to op's input is broadcast to (2, n): along an axis broadcasting adds (its shape (n,)) in
            # every other sample, along a stretched one (its shape (1, n)) in the others
            summed = op.output.sum_to
            if summed:
                shape, own = (2, n), ((n,), (1, n))[len(out) % 2]
            dim = None
            if op.dim_attr:
                dim = int(rng.integers(-2, 2))
                kw[op.dim_attr.py_name] = dim
            elif op.reduce_dim is not None:   # a fixed axis (ScaledMaskedSoftmaxBackward's last)
                dim = int(op.reduce_dim)
            if op.loss_reduction:
                kw[op.param(op.loss_reduction).py_name] = red
            for a in op.attrs:
                if a.name in variant.key or a.type in ("bool", "string"):
                    kw[a.py_name] = variant.key.get(a.name, a.typical)
            kw.update(_scalar_values(op, variant, rng))
            preimage = None
            full = shape
            for tensor in op.bool_tensors:   # drawn first: a forward output below is computed under them
                kw[tensor.py_name] = rng.uniform(0, 1, shape) < 0.25
            for tensor in op.tensors:
                if tensor in op.bool_tensors:
                    continue
                name = tensor.py_name
                role = op.role_of(tensor.name, formula)
                shape = own if tensor.name == summed else full
                if tensor.name in channel:   # C elements, then 1 (the next sample)
                    shape = (full[1],)
                if variant.key.get(tensor.name) == ABSENT:
                    kw[name] = None
                elif role == GRAD:
                    kw[name] = rng.uniform(-2, 2, shape).astype(t)
                elif role == FORWARD_INPUT and tensor.name == "target":
                    # a target differentiated (KL's, BCE's) holds a distribution's values, as an operand target: KL's
                    # log(target) has no value at 0 and below (the kernels give -inf and nan there)
                    kw[name] = rng.uniform(0.05, 1, shape).astype(t)
                elif role == FORWARD_INPUT:
                    kw[name] = (rng.standard_normal(shape) * 3).astype(t)
                elif role == FORWARD_OUTPUT and coupled:
                    _, z = _simplex(shape, dim, dtype, rng)
                    kw[name], preimage = _forward_rows(op, variant, kw, z, dim, t)
                elif role == FORWARD_OUTPUT:
                    # moderate x, so that y rounded to the dtype stays inside the forward's image
                    x = rng.uniform(-2.5, 3, shape)
                    kw[name] = _forward_elementwise(op, variant, kw, x).astype(t)
                    preimage = x   # where y has no unique pre-image (tests/reference.py)
                elif tensor.name == "target":
                    kw[name] = rng.uniform(0, 1, shape).astype(t)
                elif role == "unused":
                    kw[name] = rng.standard_normal(shape).astype(t)
                else:
                    kw[name] = rng.uniform(0.2, 2, shape).astype(t)
            label = ", ".join(f"{k}={v}" for k, v in variant.key.items())
            if red is not None:
                label += f" reduction={red}"
            out.append(Sample(kw, variant, preimage, label or "default"))
            if channel:   # the same call again with one element in each per-channel tensor
                one = {k: (v.reshape(-1)[:1].copy() if k in channel.values() else v) for k, v in kw.items()}
                out.append(Sample(one, variant, preimage, (label or "default") + " one weight"))
    return out


CHANNELS = 4


def min_rank(op) -> int:
    """The largest MinRank the rules set on any tensor (ScaledMaskedSoftmaxBackward's 4): a call whose tensors share
    one shape has at least that many dimensions."""
    from codegen.spec import rules as R
    return max([r.n for r in op.rules if isinstance(r, R.MinRank)] + [0])


def ranked(op, shape: tuple) -> tuple:
    """`shape` with leading axes of 1 up to the op's minimum rank."""
    return (1,) * max(min_rank(op) - len(shape), 0) + tuple(shape)


def max_rank(op) -> int:
    """The smallest MaxRank the rules set on any tensor (8 without one)."""
    from codegen.spec import rules as R
    return min([r.n for r in op.rules if isinstance(r, R.MaxRank)] + [8])


def along(op, kw: dict, dim: int) -> bool:
    """Set a row op's axis to `dim` in the call `kw`: the dim attribute's value; an op with a fixed axis
    (ScaledMaskedSoftmaxBackward's last) reduces along `dim` only when it is that axis (False: the case does not
    apply to it).  True for an op without a row reduction."""
    if op.dim_attr:
        kw[op.dim_attr.py_name] = dim
        return True
    if op.reduce_dim is None:
        return True
    nd = max(np.ndim(kw[op.grad.py_name]), 1)
    return -nd <= dim < nd and dim % nd == int(op.reduce_dim) % nd


def fit(op, kw: dict) -> dict:
    """A call built with every tensor in one shape, made to fit the op's structure: each tensor with leading axes of
    1 up to the op's minimum rank (a view of the same data: strides and offsets kept), a BOOL tensor (a mask) as
    BOOL (true where the value is below the median of its values: about half)."""
    out = dict(kw)
    for t in op.tensors:
        a = out.get(t.py_name)
        if not isinstance(a, np.ndarray):
            continue
        if t in op.bool_tensors and a.dtype != np.bool_:
            a = a.astype(np.float64) < (np.median(a.astype(np.float64)) if a.size else 0)
        if a.ndim < min_rank(op):
            a = a[(None,) * (min_rank(op) - a.ndim)]
        out[t.py_name] = a
    return out


def channel_rules(op) -> dict:
    """{tensor name: its py_name} of the tensors an op reads per channel (PerChannel: 1 or C elements along a
    dimension of another tensor, not broadcast the NumPy way)."""
    from codegen.spec import rules as R
    return {r.params[0]: op.param(r.params[0]).py_name for r in op.rules if isinstance(r, R.PerChannel)}


def channel_shapes(op, shape: tuple) -> dict:
    """{py_name: (C,)} for each per-channel tensor of a call whose other tensors have `shape`: C = shape[dim], 1
    where `shape` has no such dimension (what PerChannel admits besides one element)."""
    from codegen.spec import rules as R
    return {op.param(r.params[0]).py_name: ((shape[r.dim] if len(shape) > r.dim else 1),)
            for r in op.rules if isinstance(r, R.PerChannel)}


def results(op, got) -> tuple:
    """A kernel's result as a tuple, one array per output (an op with several returns a tuple already)."""
    return tuple(got) if op.per_output else (got,)


def reference_outputs(op, kw: dict, preimage=None) -> tuple:
    """The exact references (object arrays of mpf) of a call, one per output, from the forward differentiated in
    mpmath (tests/reference.py): for an op with several outputs each output's own op (`Op.per_output`), its
    per-channel tensors laid along their axis as the kernels read them (runtime.calls.channel_view), a summed
    output reshaped to the shape the op gives it (ChannelGrad's [C])."""
    from codegen.runtime.calls import channel_view, shape_of_output
    from codegen.spec import rules as R
    from . import reference
    if not op.per_output:
        return (reference.vjp(op, kw, preimage),)
    viewed = dict(kw)
    for r in op.rules:
        if isinstance(r, R.PerChannel):
            a, ref = op.param(r.params[0]).py_name, op.param(r.params[1]).py_name
            viewed[a] = channel_view(kw[a], np.shape(kw[ref]), r.dim)
    refs = []
    for sub in op.per_output:
        ref = reference.vjp(sub, viewed, preimage)
        if sub.output.sum_to:   # the chain rule through the channel view's broadcast
            ref = reference._sum_to(ref, np.shape(viewed[op.param(sub.output.sum_to).py_name]))
        refs.append(ref.reshape(shape_of_output(op, sub.output.name, kw)))
    return tuple(refs)


def _split_samples(op, dtype: str, rng, n: int) -> list[Sample]:
    """A split op (codegen.spec.split): one sample per distinct variant key (its variants are its halves, both
    run in every call), the input of shape (n, 2) split along its last axis: gradOutput and the other tensors
    (n, 1)."""
    from codegen.spec.split import extra_params, per_row_tensors
    t = NP[dtype]
    src = op.param(op.split.tensor)
    dim = op.param(op.split.dim_attr) if op.split.dim_attr else None   # (a fixed axis: Split(dim=-1))
    rows = per_row_tensors(op)
    extra = {p.name for p in extra_params(op)}
    out, seen = [], []
    for variant in op.variants:
        if variant.key in seen:
            continue
        seen.append(variant.key)
        kw = {dim.py_name: int(rng.choice([-1, 1]))} if dim else {}
        for a in op.attrs:
            if a.name in variant.key or a.type in ("bool", "string") or (a.values and (dim is None or a.name != dim.name)):
                kw[a.py_name] = variant.key.get(a.name, a.typical)
        half = op.halves[0]
        kw.update(_scalar_values(half, next(v for v in half.variants if v.key == variant.key), rng))
        for tensor in op.tensors:
            if tensor.name == src.name:
                kw[tensor.py_name] = (rng.standard_normal((n, 2)) * 3).astype(t)
            elif tensor.name == op.split.rows:   # a row count (codegen.spec.split): every one of the n rows
                kw[tensor.py_name] = np.array([n], np.int64)
            elif variant.key.get(tensor.name) == ABSENT or (tensor.name in extra and any(
                    variant.key.get(r) == ABSENT for r in rows)):   # (only an extra output reads it: with the rows')
                kw[tensor.py_name] = None
            elif tensor.name in rows:   # one value per row (PerRow), as [n]
                kw[tensor.py_name] = rng.uniform(0.2, 2, (n,)).astype(np.float32 if tensor.dtypes else t)
            elif tensor.role == GRAD:
                kw[tensor.py_name] = rng.uniform(-2, 2, (n, 1)).astype(t)
            else:
                own = {d for ds in (tensor.dtypes or {}).values() for d in ds}
                kw[tensor.py_name] = rng.uniform(0.2, 2, (n, 1)).astype(t if not own or dtype in own else np.float32)
        kw.update(tied_values(op, kw))   # a tensor holding a function of a half: the forward's value
        label = ", ".join(f"{k}={v}" for k, v in variant.key.items())
        out.append(Sample(kw, variant, None, label or "default"))
    return out


def _class_samples(op, dtype: str, rng, n: int) -> list[Sample]:
    """A class-index op (codegen.spec.classes): one sample per loss reduction, a grid of about `n` elements (its
    class-axis tensor of the lowest rank from 2 up it takes), integer targets in [0, C) with one in five ignored
    (ignoreIndex 1, a class of its own), per-class weights, a positive totalWeight."""
    from codegen.spec.classes import kind_of
    from codegen.spec import rules as R
    t = NP[dtype]
    lo = max([r.n for r in op.rules if isinstance(r, R.MinRank) and op.classes.tensor in r.params] + [2])
    classes = 4
    grid = (max(n // classes, 1), classes) + (1,) * (lo - 2)
    samples_shape = grid[:1] + grid[2:]
    out = []
    for red in sorted(op.param(op.loss_reduction).values):
        none = op.param(op.loss_reduction).values[red] == "none"
        kw = {op.param(op.loss_reduction).py_name: red}
        for a in op.attrs:
            if a.type == "int64" and a.name != op.loss_reduction:
                kw[a.py_name] = 1
        # the real attributes (CrossEntropyLossGrad's double labelSmoothing) inside a proof case of the reduction
        variant = next((v for v in op.variants if v.key.get(op.loss_reduction, red) == red
                        and ABSENT not in v.key.values()), op.variants[0])
        kw.update(_scalar_values(op, variant, rng))
        target = rng.integers(0, classes, samples_shape)
        target[rng.uniform(0, 1, samples_shape) < 0.2] = 1
        for tensor in op.tensors:
            kind = kind_of(op, tensor.name)
            if tensor.name == op.classes.target:
                kw[tensor.py_name] = target.astype(np.int64)
            elif tensor.role == GRAD:
                kw[tensor.py_name] = rng.uniform(-2, 2, samples_shape if none else ()).astype(t)
            elif kind == "grid":
                kw[tensor.py_name] = (rng.standard_normal(grid) * 3).astype(t)
            elif kind == "class":   # in its own dtype where it has a table of its own (CrossEntropyLossGrad's FLOAT)
                own = {d for ds in (tensor.dtypes or {}).values() for d in ds}
                kw[tensor.py_name] = rng.uniform(0.2, 2, classes).astype(t if not own or dtype in own
                                                                            else NP[sorted(own)[0]])
            else:
                kw[tensor.py_name] = np.array([rng.uniform(0.5, 4)]).astype(t)
        out.append(Sample(kw, variant, None, f"reduction={red}"))
    return out


def _simplex(shape, dim, dtype, rng):
    """Rows along `dim` of exact dyadic probabilities (k_i / 2^m, Σ k_i = 2^m) and their pre-image log y."""
    m = min(MANTISSA[dtype], 20)
    moved = np.moveaxis(np.empty(shape), dim, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    n = rows.shape[1]
    ks = np.empty(rows.shape, dtype=np.int64)
    for r in range(rows.shape[0]):
        ks[r] = _dyadic(rng.uniform(0.2, 1.0, n), m) * 2.0 ** m
    y = ks / 2.0 ** m
    mpmath.mp.dps = 30
    z = np.vectorize(lambda v: mpmath.log(mpmath.mpf(v)), otypes=[object])(y)
    back = lambda a: np.moveaxis(a.reshape(moved.shape), -1, dim)
    return back(y), back(z)


def _dyadic(w, m):
    """Probabilities k_i / 2^m (k_i >= 1, Σ k_i = 2^m) near the weights `w`."""
    k = np.maximum(1, np.floor(w / w.sum() * 2 ** m)).astype(np.int64)
    k[np.argmax(k)] += 2 ** m - k.sum()
    return k / 2.0 ** m


def _forward_rows(op, variant, kw, z, dim, t):
    """(y, preimage) for a tensor holding the forward output of a DimSum op, y in the NumPy dtype `t`.

    y = forward(z) along `dim` rounded to the dtype: for softmax the dyadic probabilities themselves, exact in
    every dtype.  Where rounding is not exact (log_softmax's logarithms), the preimage is moved so that the
    forward gives the rounded y exactly in every element of a row but one (Newton's method in mpmath on the
    other elements, that one's input held): the data then carry one rounding per row instead of one per element.
    That element is the row's best conditioned result, the smallest ratio of the backward's magnitude (sums and
    products over absolute values, tests/compare.py) to its value: where they nearly cancel (log_softmax's g
    and exp(y)·Σg), the rounding of y is amplified by that ratio (a 4-element FLOAT16 row held at its smallest
    output was 5 ulp off there, MERE 1.4e-4)."""
    from .compare import evaluate, magnitude
    from .reference import Forward
    fwd = Forward(op, variant)
    scal = [mpmath.mpf(float(kw[p.py_name])) for p in fwd.scalars]
    mpmath.mp.dps = 30
    moved = np.moveaxis(np.asarray(z), dim, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    # the operands per element of each row (a mask: 1.0 where true), read by the forward as the kernels read them
    operands = [np.moveaxis(np.broadcast_to(np.asarray(kw[t.py_name], np.float64), np.shape(z)), dim, -1)
                .reshape(rows.shape) for t in fwd.operands]
    row_ops = [[[mpmath.mpf(o[i, j]) for o in operands] for j in range(rows.shape[1])] for i in range(rows.shape[0])]
    exact = [np.array([float(v) for v in fwd.row([mpmath.mpf(v) for v in r], ops, scal)])
             for r, ops in zip(rows, row_ops)]
    name = next(tp.py_name for tp in op.tensors if tp.role == FORWARD_OUTPUT)
    estimate = {**kw, name: np.moveaxis(np.array(exact).reshape(moved.shape), -1, dim)}
    with np.errstate(all="ignore"):
        ratio = magnitude(op, estimate, dim) / np.abs(evaluate(op, estimate, dim))
    ratio = np.nan_to_num(np.moveaxis(ratio, dim, -1).reshape(rows.shape), nan=np.inf)
    ys, zs = [], []
    for r, y_exact, cond, none in zip(rows, exact, ratio, row_ops):
        r = [mpmath.mpf(v) for v in r]
        y = y_exact.astype(t).astype(np.float64)
        # the elements whose forward reads their input (a masked one is a constant: exact, and no unknown)
        moved_by = [fwd.row(r[:i] + [r[i] + 1] + r[i + 1:], none, scal)[i] for i in range(len(r))]
        live = [i for i in range(len(r)) if moved_by[i] != mpmath.mpf(y_exact[i])]
        k = min(live, key=lambda i: cond[i]) if live else None
        free = [i for i in live if i != k]
        if live and abs(mpmath.fsum(y_exact[i] for i in live) - 1) < 1e-12:
            # a distribution over the elements that read their input (a scaled or masked softmax, whose y is not
            # the dyadic simplex drawn): the dyadic simplex over those elements instead, exact in the dtype, and
            # the element held gets its share exactly too, every forward output then exact
            y[live] = _dyadic(y_exact[live], min(MANTISSA[dtype_name(np.zeros(0, t))], 20))

        def residual(*v, r=r, y=y, free=free, none=none):
            zz = list(r)
            for i, vi in zip(free, v):
                zz[i] = vi
            out = fwd.row(zz, none, scal)
            return [out[i] - mpmath.mpf(y[i]) for i in free]
        if free and max(abs(e) for e in residual(*[r[i] for i in free])) > 0:
            sol = mpmath.findroot(residual, [r[i] for i in free])
            sol = [sol] if len(free) == 1 else list(sol)
            for i, v in zip(free, sol):
                r[i] = v
        ys.append(y)
        zs.append(r)
    back = lambda a: np.moveaxis(np.array(a, dtype=object if a is zs else np.float64).reshape(moved.shape), -1, dim)
    return back(ys).astype(t), back(zs)


def _forward_elementwise(op, variant, kw, x):
    """y = forward(x) in float64, for tensors that hold the forward output of an elementwise op."""
    subs = {p.symbol: kw[p.py_name] for p in op.reals if kw.get(p.py_name) is not None}
    subs.update({p.symbol: float(p.default) for p in op.scalars if p.optional and kw.get(p.py_name) is None})
    f = sympy.lambdify([op.wrt], sympy.sympify(op.forward_of(variant.formula)).subs(subs), modules=["scipy", "numpy"])
    with np.errstate(all="ignore"):
        return np.asarray(f(x), dtype=np.float64)


SPLIT_SKIP = ("a split op's gradOutput has half its input's shape (codegen.spec.split): this test builds every tensor "
              "in one shape; tests/test_split.py covers its layouts, the oracle its values")


CLASSES_SKIP = ("a class-index op's target, weight and gradOutput have shapes of their own (codegen.spec.classes): "
                "this test builds every tensor in one shape; tests/test_classes.py covers its layouts and checks, "
                "the oracle its values")


def ascendc_cases(ops: dict) -> list[tuple]:
    """(op, product, input dtype, output dtype) for every op, product with an Ascend C architecture and dtype pair
    a call can ask for, under --deep (a summed-back output's FLOAT-writing instances are level 2's, not a call's,
    where its dtype is tied to an input's); in CI every op in every input dtype on one product or two
    (conftest.ci_sample), which keeps the simulator builds to one or two per op, and an output dtype other than
    the input's on one op of each kind.  tests/test_ascendc_values runs
    them; tests/test_accuracy measures Ascend C on the same products, reusing the binaries."""
    from codegen.backends.ascendc.plan import combos
    from codegen.backends.ascendc.socs import kernel_socs
    from codegen.runtime.calls import out_dtype_free
    from . import conftest
    every = conftest.ci_sample([(n, soc, din, dout) for n, op in ops.items() for soc in kernel_socs(op)
                                for din, dout in combos(op, soc) if din == dout or out_dtype_free(op)],
                               dtype=lambda c: c[2:])
    if conftest.DEEP:
        return every
    # an output dtype other than the input's (a cast on the store, the same template for every op): in CI on one
    # op of each kind among the ops that take one (about half of the cases were these, 6 per such op)
    mixed = conftest.ci_kinds({n: ops[n] for n, _, din, dout in every if din != dout})
    return [c for c in every if c[2] == c[3] or c[0] in mixed]


_PLANS: dict = {}


def ascendc_plan(op):
    """codegen.backends.ascendc.plan.plan(op), computed once per Op object: a plan is a function of the op alone,
    and planning again (the per-architecture tile sums) costs 0.1-0.3 s of CPU for an op of several variants on
    every call — the Ascend C tests ask for it per case (test_ascendc_values' lengths: 20 CPU-s of the CI run)."""
    from codegen.backends.ascendc.plan import plan
    return per_op(_PLANS, op, plan)


def per_op(table: dict, op, make):
    """make(op), computed once per Op object and kept in `table` (the op is kept with it: an id is unique only
    while its object lives)."""
    if id(op) not in table:
        table[id(op)] = (op, make(op))
    return table[id(op)][1]


def skip_split(op) -> None:
    """Skip a test that builds every tensor of a call in one shape for a split op (GluBackward) or a class-index
    op (NLLLossBackward)."""
    import pytest
    if op.split is not None:
        pytest.skip(SPLIT_SKIP)
    if op.classes is not None:
        pytest.skip(CLASSES_SKIP)


def int_arrays(op, p, shape: tuple):
    """A Hypothesis strategy for an aclIntArray parameter `p` (codegen.spec.params.IntArray) of a call whose tensors
    have `shape`: mostly valid (as many values as its ArrayLength rule asks, each in the range its ArrayInRange
    rule gives), else null, one value too many or too few, a value one past either end of the range, a negative
    value, or a huge one: every rule of the kind is reached and broken."""
    from hypothesis import strategies as st
    from codegen.spec import rules as R
    n = next((shape[r.dim] if len(shape) > r.dim else 1 for r in op.rules
              if isinstance(r, R.ArrayLength) and r.params[0] == p.name), 2)
    lo, hi = 0, 4
    for r in op.rules:
        if isinstance(r, R.ArrayInRange) and r.params[0] == p.name:
            ends = [r.bound(w) for w in ("low", "high")]
            lo, hi = [None if b is None else b[1] if b[0] == "int"
                      else ((shape or (1,))[b[2]] if b[2] < len(shape or (1,)) else 1) for b in ends]
            lo = lo if lo is not None else (hi - 4 if hi is not None else 0)
            hi = hi if hi is not None else lo + 4
    valid = st.lists(st.integers(lo, max(lo, hi)), min_size=n, max_size=n)
    bad = st.one_of(st.just(None), st.lists(st.integers(lo, max(lo, hi)), min_size=n + 1, max_size=n + 1),
                    st.lists(st.integers(lo, max(lo, hi)), min_size=max(n - 1, 0), max_size=max(n - 1, 0)),
                    valid.flatmap(lambda v: st.sampled_from([lo - 1, hi + 1, -1, 2 ** 62]).flatmap(
                        lambda x: st.integers(0, max(len(v) - 1, 0)).map(
                            lambda i: (v[:i] + [x] + v[i + 1:]) if v else [x]))))
    return st.one_of(valid, valid, bad)
