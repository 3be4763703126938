"""What `opgen bench` measures: op × layout × dtype × size, and the inputs of each call.

A `Layout` says how one op is called (shapes, `dim`, reduction, optional tensors, bool attributes) and makes
its keyword arguments for a given element count.  Inputs are plain NumPy random data in each tensor's valid
range (the tests' samplers are not used: the benchmark must not depend on tests/); they are made lazily, one
case at a time, so that a 2^24-element case holds only its own arrays.  Values only need to be typical: the
kernels' speed does not depend on them (no data-dependent branches), but a NaN or denormal flood could.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from codegen.runtime.checks import NUMPY_DTYPES
from codegen.spec import DEFAULT_PRODUCT, Op

from . import placement

DTYPES = ("FLOAT", "FLOAT16", "BFLOAT16")
DEFAULT_SIZES = tuple(range(10, 25, 2))       # 2^10, 2^12, ..., 2^24 elements
QUICK_SIZES = (16,)
ROWS = (64, 1024, 32768)                       # softmax: the reduced dimension's length
COLS = 1024                                    # Softshrink's broadcast gradOutput is (1, COLS)
CHANNELS = 32                                  # a per-channel tensor's length (PReLU's weight): self (n/COLS, 32, 32)
QUERIES = 16                                   # a rank-4 row op's S1 (ScaledMaskedSoftmax's [B, 1, 16, row])


@dataclass(frozen=True)
class Layout:
    op: str                                    # snake_case op name
    label: str                                 # what the report prints
    make: Callable                             # (rng, n, np dtype) -> kernel keywords (no out=)
    quick: bool = False                        # part of --quick
    divisor: int = 1                           # n must be a multiple of it (row length, broadcast width)
    columnwise: bool = False                   # reduces along dim 0: the vector loops run across n // divisor


@dataclass(frozen=True)
class Case:
    layout: Layout
    dtype: str                                 # aclnn dtype name
    n: int                                     # elements of the output

    @property
    def op(self) -> str:
        return self.layout.op

    def inputs(self, seed: int = 0, offset: int = 0) -> dict:
        """The kernel keywords (arrays in this case's dtype, each starting `offset` bytes past a cache line:
        placement.py), made now: same seed, same data."""
        rng = np.random.default_rng(seed)
        kw = self.layout.make(rng, self.n, NUMPY_DTYPES[self.dtype])
        return {k: placement.place(v, offset) if isinstance(v, np.ndarray) else v for k, v in kw.items()}


# ---- data --------------------------------------------------------------------------------------------
# np.asarray: for shape () NumPy's generators return a scalar, and a kernel argument must be an array
def _normal(rng, shape, dt, scale=1.0):
    return np.asarray(rng.standard_normal(shape, dtype=np.float32) * np.float32(scale)).astype(dt)


def _uniform(rng, shape, dt, lo, hi):
    return np.asarray(rng.uniform(lo, hi, shape)).astype(np.float32).astype(dt)


def _log_sigmoid(rng, n, dt):
    x = _normal(rng, n, dt, 3)
    # PyTorch's CPU kernel reads `buffer` (exp(-|x|), its forward's intermediate); ours ignores it
    buffer = np.exp(-np.abs(x.astype(np.float32))).astype(dt)
    return dict(grad_output=_normal(rng, n, dt), self=x, buffer=buffer)


def _softmax(row: int, dim: int, log: bool = False):
    def make(rng, n, dt):
        shape = (n // row, row) if dim == -1 else (row, n // row)
        # positive entries summing to about 1 along `dim`: a plausible softmax output (log_softmax: their logs)
        y = _uniform(rng, shape, dt, 0, 2 / row) if not log else \
            np.log(_uniform(rng, shape, np.float32, 0.5 / row, 1.5 / row)).astype(dt)
        return dict(grad_output=_normal(rng, shape, dt), output=y, dim=dim)
    return make


def _softshrink(broadcast: bool):
    def make(rng, n, dt):
        shape = (n // COLS, COLS) if broadcast else (n,)
        g = _normal(rng, (1, COLS) if broadcast else shape, dt)
        return dict(grad_output=g, self=_normal(rng, shape, dt), lambd=0.5)
    return make


def _elu(is_result: bool):
    def make(rng, n, dt):
        x = rng.standard_normal(n, dtype=np.float32)
        if is_result:                          # the forward's output, elu(x) > -alpha
            x = np.where(x > 0, x, np.expm1(np.minimum(x, 0)))
        return dict(grad_output=_normal(rng, n, dt), alpha=1.0, scale=1.0, input_scale=1.0,
                    is_result=is_result, self_or_result=x.astype(dt))
    return make


def _bce(reduction: int, weights: bool):
    def make(rng, n, dt):
        # mean and sum reduce the loss to a scalar, so gradOutput is one element (shape ())
        g = _normal(rng, (), dt) if reduction else _normal(rng, n, dt)
        return dict(grad_output=g, self=_normal(rng, n, dt, 2), target=_uniform(rng, n, dt, 0, 1),
                    weight_optional=_uniform(rng, n, dt, 0.5, 1.5) if weights else None,
                    pos_weight_optional=_uniform(rng, n, dt, 0.5, 2) if weights else None,
                    reduction=reduction)
    return make


def _bce_probabilities(reduction: int, weight: bool):
    def make(rng, n, dt):
        # self holds probabilities: outside (0, 1) the gradient is w(x - t)/1e-12, beyond FLOAT16's range
        g = _normal(rng, (), dt) if reduction else _normal(rng, n, dt)
        return dict(grad_output=g, self=_uniform(rng, n, dt, 0.01, 0.99), target=_uniform(rng, n, dt, 0, 1),
                    weight_optional=_uniform(rng, n, dt, 0.5, 1.5) if weight else None, reduction=reduction)
    return make


def _layouts() -> list[Layout]:
    out = [Layout("log_sigmoid_backward", "contiguous", _log_sigmoid, quick=True)]
    for name, log in (("softmax_backward", False), ("log_softmax_backward", True)):
        for dim, where in ((-1, "last"), (0, "first")):
            for row in ROWS:
                out.append(Layout(name, f"dim {where}, row {row}", _softmax(row, dim, log),
                                  quick=row == 1024, divisor=row, columnwise=dim == 0))
    out += [Layout("softshrink_backward", "contiguous", _softshrink(False), quick=True),
            Layout("softshrink_backward", f"gradOutput (1, {COLS}) broadcast", _softshrink(True), divisor=COLS),
            Layout("elu_backward", "isResult false", _elu(False), quick=True),
            Layout("elu_backward", "isResult true", _elu(True))]
    for weights in (False, True):
        for reduction, name in ((0, "none"), (1, "mean"), (2, "sum")):
            label = f"reduction {name}" + (", weight + posWeight" if weights else "")
            out.append(Layout("binary_cross_entropy_with_logits_backward", label, _bce(reduction, weights),
                              quick=reduction == 0 and not weights))
            out.append(Layout("binary_cross_entropy_backward", label.replace(" + posWeight", ""),
                              _bce_probabilities(reduction, weights), quick=reduction == 0 and not weights))
    return out


LAYOUTS = _layouts()


# ---- layouts read off a spec ---------------------------------------------------------------------------
def _derivable(op: Op) -> bool:
    """An op whose layouts follow from its shape rules: an elementwise one (a loss reduction is a layout of its
    own; several outputs are written by one call, outputs.py), a class-index one, or one reducing a fixed axis
    (ScaledMaskedSoftmaxBackward's last).  A row op whose axis is a parameter (Softmax's `dim`) has hand-written
    layouts above."""
    return op.reduce_dim is None or op.classes is not None or isinstance(op.reduce_dim, int)


def _own_dtype(t, dt):
    """The NumPy dtype of tensor `t` in a case of dtype `dt`: `dt`, unless the tensor has a dtype table of its
    own on the default product without it (ScaledMaskedSoftmaxBackward's BOOL mask, CrossEntropyLossGrad's
    FLOAT weight): then its first."""
    table = (t.dtypes or {}).get(DEFAULT_PRODUCT)
    if not table or any(NUMPY_DTYPES[d] == dt for d in table):
        return dt
    return NUMPY_DTYPES[table[0]]


def _channels(op: Op) -> dict:
    """{tensor: dim} of the per-channel tensors (PerChannel: PReLU's weight, one value per channel of self)."""
    from codegen.spec import rules as R
    return {r.params[0]: r.dim for r in op.rules if isinstance(r, R.PerChannel)}


def _data_shape(op: Op, n: int, broadcast: bool) -> tuple:
    """The shape of a derived layout's full-size tensors: (n,), or (n / COLS, COLS) where gradOutput broadcasts
    along rows, or (n / COLS, CHANNELS, COLS / CHANNELS) (channels along axis 1) for an op with a per-channel
    tensor."""
    if _channels(op):
        return (n // COLS, CHANNELS, COLS // CHANNELS)
    return (n // COLS, COLS) if broadcast else (n,)


def _broadcasts_grad(op: Op) -> bool:
    """Whether a rule lets gradOutput broadcast (Broadcastable, ShapeIsBroadcast, BroadcastTo naming it)."""
    from codegen.spec import rules as R
    g = op.grad.name
    return any(isinstance(r, (R.Broadcastable, R.ShapeIsBroadcast, R.BroadcastTo)) and g in r.params
               for r in op.rules)


def _forward_of(op: Op, variant, values: dict):
    """y = forward(x) in float64 for the op's scalars' values (for a tensor that holds the forward output)."""
    import sympy
    subs = {p.symbol: values[p.py_name] for p in op.reals if values.get(p.py_name) is not None}
    subs.update({p.symbol: float(p.default) for p in op.scalars if p.optional and values.get(p.py_name) is None})
    f = sympy.lambdify([op.wrt], sympy.sympify(op.forward_of(variant.formula)).subs(subs),
                       modules=["scipy", "numpy"])
    return lambda x: np.asarray(f(x), dtype=np.float64)


def _spec_make(op: Op, variant, broadcast: bool, reduction: int | None = None):
    """The `make` of a derived layout: the spec's example scalars and attributes (the aclnn page's values), the
    variant's bool and string attributes and optional tensors, and data by each tensor's role.  A loss's
    `reduction` value replaces the example's; for a dividing or summing mode gradOutput is one element (shape ()),
    the gradient of a scalar loss."""
    from codegen.spec import ABSENT
    from codegen.spec.example import resolve
    from codegen.spec.params import FORWARD_INPUT, FORWARD_OUTPUT, GRAD, UNUSED
    ex = resolve(op)
    fixed = {}
    for p in op.params:
        if p.kind == "scalar":
            fixed[p.py_name] = ex.scalars[p.name]
        elif p.kind == "attr":
            fixed[p.py_name] = variant.key.get(p.name, ex.attrs[p.name])
    if reduction is not None:
        fixed[op.param(op.loss_reduction).py_name] = reduction

    channels = _channels(op)

    def make(rng, n, case_dt):
        shape = _data_shape(op, n, broadcast)
        kw = dict(fixed)
        x = rng.standard_normal(shape) * 3
        for t in op.tensors:
            role = op.role_of(t.name, variant.formula)
            dt = _own_dtype(t, case_dt)   # (ReluGradV4's UINT8 mask: its own table's dtype)
            if variant.key.get(t.name) == ABSENT:
                kw[t.py_name] = None
            elif role == GRAD:
                kw[t.py_name] = _normal(rng, () if reduction else (1,) + shape[1:] if broadcast else shape, dt)
            elif t.name in channels:   # one value per channel (a PReLU slope)
                kw[t.py_name] = _uniform(rng, (shape[channels[t.name]],), dt, 0.05, 0.5)
            elif role == FORWARD_INPUT and t.name == "target":
                # a target differentiated (KL's, BCE's) holds a distribution's values: positive, as the mpmath check
                # of the proof draws targets (KL's log(target) has no value below 0)
                kw[t.py_name] = _uniform(rng, shape, dt, 0.2, 2)
            elif role == FORWARD_INPUT:
                kw[t.py_name] = np.asarray(x).astype(np.float32).astype(dt)
            elif role == FORWARD_OUTPUT:
                with np.errstate(all="ignore"):
                    y = _forward_of(op, variant, kw)(x)
                    if np.issubdtype(dt, np.integer):   # an integer tensor holds y rounded, within its range
                        info = np.iinfo(dt)
                        y = np.clip(np.rint(np.nan_to_num(y)), info.min, info.max)
                    kw[t.py_name] = y.astype(np.float32).astype(dt)
            elif role == UNUSED:
                kw[t.py_name] = _normal(rng, shape, dt)
            else:
                kw[t.py_name] = _uniform(rng, shape, dt, 0.2, 2)
        return kw
    return make


def _split_make(op: Op):
    """The `make` of a split op's layout: the example's attributes, the input (n / COLS, COLS) ~ N(0, 3) split
    along dim -1, gradOutput and any other tensor (n / COLS, COLS / 2), a row count null."""
    from codegen.spec.example import resolve
    from codegen.spec.params import GRAD
    from codegen.spec.split import tied_values
    ex = resolve(op)
    fixed = {p.py_name: ex.scalars[p.name] if p.kind == "scalar" else ex.attrs[p.name]
             for p in op.params if p.kind in ("scalar", "attr")}
    if op.split.dim_attr:
        fixed[op.param(op.split.dim_attr).py_name] = -1

    def make(rng, n, dt):
        kw = dict(fixed)
        half = (n // COLS, COLS // 2)
        for t in op.tensors:
            if t.name == op.split.tensor:
                kw[t.py_name] = _normal(rng, (n // COLS, COLS), dt, 3.0)
            elif t.name == op.split.rows:   # a row count (ClippedSwigluGrad's groupIndex): null, every row
                kw[t.py_name] = None
            elif t.role == GRAD:
                kw[t.py_name] = _normal(rng, half, dt)
            else:
                kw[t.py_name] = _uniform(rng, half, dt, 0.2, 2)
        kw.update(tied_values(op, kw))   # a tensor holding a function of a half: the forward's value
        return kw
    return make


def _classes_make(op: Op, reduction: int):
    """The `make` of a class-index op's layout (codegen.spec.classes): self (n / COLS, COLS) (COLS classes), or
    (n / COLS, 16, 64, 1) for a 4-D one (16 classes); targets in [0, C) with one in ten equal to ignoreIndex
    (-100), weights in [0.2, 2), totalWeight in [0.5, 4); gradOutput per sample for none, else one element."""
    from codegen.spec import rules as R
    from codegen.spec.classes import kind_of
    rank = max([r.n for r in op.rules if isinstance(r, R.MinRank) and op.classes.tensor in r.params] + [2])
    from codegen.spec.example import resolve
    from codegen.spec.params import FORWARD_OUTPUT, UNUSED
    none = op.reduction.mode(op, reduction) == "none"
    ex = resolve(op)

    def make(rng, n, dt):
        grid = (n // COLS, COLS) if rank == 2 else (n // COLS, 16, 64) + (1,) * (rank - 3)
        samples = grid[:1] + grid[2:]
        kw = {op.param(op.loss_reduction).py_name: reduction}
        for a in op.attrs:
            if a.type == "int64" and a.name != op.loss_reduction:
                kw[a.py_name] = -100
            elif a.name != op.loss_reduction:   # (CrossEntropyLossGrad's labelSmoothing: the example's)
                kw[a.py_name] = ex.attrs[a.name]
        target = rng.integers(0, grid[1], samples)
        target[rng.uniform(0, 1, samples) < 0.1] = -100
        for t in op.tensors:
            kind, tdt = kind_of(op, t.name), _own_dtype(t, dt)
            if t.name == op.classes.target:
                kw[t.py_name] = target.astype(np.int64)
            elif t.role == UNUSED and t.optional:   # (accepted and ignored: CrossEntropyLossGrad's zloss inputs)
                kw[t.py_name] = None
            elif t.role == op.grad.role:
                kw[t.py_name] = _normal(rng, samples if none else (), tdt)
            elif kind == "grid" and t.role == FORWARD_OUTPUT:   # log_softmax's output (CrossEntropy's logProb)
                kw[t.py_name] = np.log(_uniform(rng, grid, np.float32, 0.5 / grid[1], 1.5 / grid[1])).astype(tdt)
            elif kind == "grid":
                kw[t.py_name] = _normal(rng, grid, tdt, 3.0)
            elif kind == "class":
                kw[t.py_name] = _uniform(rng, (grid[1],), tdt, 0.2, 2)
            else:
                kw[t.py_name] = _uniform(rng, (1,), tdt, 0.5, 4)
        return kw
    return make


def _row_lengths(op: Op) -> list[int]:
    """The ROWS a fixed-axis row op takes: those its DimAtMost rules on gradOutput allow (ScaledMaskedSoftmax's
    S2 <= 4096: 64 and 1024)."""
    from codegen.spec import rules as R
    most = min([r.n for r in op.rules if isinstance(r, R.DimAtMost) and op.grad.name in r.params], default=None)
    return [row for row in ROWS if most is None or row <= most]


def _row_shape(op: Op, n: int, row: int) -> tuple:
    """A fixed-axis row op's full shape: rows of `row` along the last axis, at gradOutput's least rank (at least
    2); from rank 3, QUERIES rows per [.., S1, S2] block and the rest on axis 0 ([n / (16 row), 1, 16, row])."""
    from codegen.spec import rules as R
    rank = max([r.n for r in op.rules if isinstance(r, R.MinRank) and op.grad.name in r.params] + [2])
    if rank == 2:
        return (n // row, row)
    return (n // (QUERIES * row),) + (1,) * (rank - 3) + (QUERIES, row)


def _row_make(op: Op, row: int):
    """The `make` of a fixed-axis row op's layout (reduce_dim an int; the last axis): the example's scalars and
    attributes; gradOutput ~ N(0, 1); the forward's output a plausible softmax output (positive, about 1 per
    row); the forward's input N(0, 3); a tensor a BroadcastTo rule lets broadcast along given axes has 1 there
    (ScaledMaskedSoftmax's mask [1, 1, S1, S2], an attention mask shared by the batch and heads), a BOOL one true
    at one position in four; any other U(0.2, 2)."""
    from codegen.spec import rules as R
    from codegen.spec.example import resolve
    from codegen.spec.params import FORWARD_INPUT, FORWARD_OUTPUT, GRAD
    ex = resolve(op)
    fixed = {p.py_name: ex.scalars[p.name] if p.kind == "scalar" else ex.attrs[p.name]
             for p in op.params if p.kind in ("scalar", "attr")}
    along = {r.params[0]: r.axes for r in op.rules if isinstance(r, R.BroadcastTo) and r.axes}

    def make(rng, n, dt):
        shape = _row_shape(op, n, row)
        kw = dict(fixed)
        for t in op.tensors:
            tdt = _own_dtype(t, dt)
            own = tuple(1 if i in {a % len(shape) for a in along.get(t.name, ())} else s
                        for i, s in enumerate(shape))
            if tdt == np.bool_:
                kw[t.py_name] = rng.uniform(0, 1, own) < 0.25
            elif t.role == GRAD:
                kw[t.py_name] = _normal(rng, own, tdt)
            elif t.role == FORWARD_OUTPUT:
                kw[t.py_name] = _uniform(rng, own, tdt, 0, 2 / row)
            elif t.role == FORWARD_INPUT:
                kw[t.py_name] = _normal(rng, own, tdt, 3.0)
            else:
                kw[t.py_name] = _uniform(rng, own, tdt, 0.2, 2)
        return kw
    return make


def _row_label(op: Op, row: int) -> str:
    from codegen.spec import rules as R
    shape = _row_shape(op, (QUERIES * row) << 1, row)
    label = f"{op.grad.name} {_shape_text(shape)}"
    for r in op.rules:
        if isinstance(r, R.BroadcastTo) and r.axes:
            own = tuple(1 if i in {a % len(shape) for a in r.axes} else s for i, s in enumerate(shape))
            label += f", {r.params[0]} {_shape_text(own)}"
    return label


def _shape_text(shape: tuple) -> str:
    """A layout's shape for its label, axis 0 written as what it is for every n: "n/(16·1024)"."""
    rest = [str(s) for s in shape[1:]]
    first = "1" if shape[0] == 1 else f"n/{int(np.prod(shape[1:]))}"
    return "(" + ", ".join([first] + rest) + ")"


def derived_layouts(op: Op) -> list[Layout]:
    """The layouts of an op without hand-written ones, from its spec alone: a split op's, a class-index op's
    (each reduction), a fixed-axis row op's (each row length); else every kernel variant contiguous (with a
    per-channel tensor: (n/COLS, CHANNELS, COLS/CHANNELS)), and the first variant with gradOutput broadcast along
    axis 0 where the rules allow it."""
    if not _derivable(op):
        return []
    if op.split is not None:   # codegen.spec.split: the input (n / COLS, COLS) split along its last axis
        return [Layout(op.snake_name, f"{op.split.tensor} ({COLS} per row) split along the last axis",
                       _split_make(op), quick=True, divisor=COLS)]
    if op.classes is not None:   # codegen.spec.classes: (samples, classes) grids, each reduction
        from codegen.spec import rules as R
        four = any(isinstance(r, R.MinRank) and r.n == 4 for r in op.rules)
        grid = f"(n/{COLS}, 16, 64, 1)" if four else f"(n/{COLS}, {COLS})"
        return [Layout(op.snake_name, f"{op.classes.tensor} {grid}, reduction {name}",
                       _classes_make(op, value), quick=name == "none", divisor=COLS)
                for value, name in sorted(op.param(op.loss_reduction).values.items())]
    if op.reduce_dim is not None:   # a fixed-axis row op: each row length its rules allow
        rows = _row_lengths(op)
        return [Layout(op.snake_name, _row_label(op, row), _row_make(op, row), quick=row == 1024,
                       divisor=int(np.prod(_row_shape(op, 1 << 30, row)[1:])))
                for row in rows]
    out = []
    modes = [(None, "")]
    if op.loss_reduction:   # a loss: each reduction mode (none: gradOutput per element; else one element)
        modes = [(value, f"reduction {name}") for value, name in sorted(op.param(op.loss_reduction).values.items())]
    # every variant in the first mode, the first variant in every other mode
    pairs = [(v, modes[0]) for v in op.variants] + [(op.variants[0], m) for m in modes[1:]]
    channels = _channels(op)
    plain = "contiguous"
    if channels:   # (PReLU: self (n/1024, 32, 32), its weight one value per channel)
        plain = f"{next(iter(channels))} per channel, {_shape_text(_data_shape(op, COLS << 1, False))}"
    divisor = COLS if channels else 1
    for i, (v, (reduction, mode)) in enumerate(pairs):
        label = ", ".join([mode] * bool(mode) + [f"{k} {str(val).lower()}" for k, val in v.key.items()]) or plain
        out.append(Layout(op.snake_name, label, _spec_make(op, v, False, reduction), quick=i == 0, divisor=divisor))
    if _broadcasts_grad(op):
        grad = (1,) + _data_shape(op, COLS, True)[1:]
        label = ", ".join([f"gradOutput {tuple(grad)} broadcast"] + [modes[0][1]] * bool(modes[0][1]))
        out.append(Layout(op.snake_name, label, _spec_make(op, op.variants[0], True, modes[0][0]), divisor=COLS))
    return out


def layouts(ops: dict[str, Op]) -> list[Layout]:
    """Every layout of `ops`: the hand-written ones above, and those derived from the specs of the others."""
    known = {lay.op for lay in LAYOUTS}
    out = [lay for lay in LAYOUTS if lay.op in ops]
    for name, op in ops.items():
        if name not in known:
            out += derived_layouts(op)
    return out


def without_layouts(ops: dict[str, Op]) -> list[str]:
    """Ops that no layout benchmarks (a row op whose axis is a parameter, with no hand-written layouts here; none
    today, and tests/test_bench.py fails when a new spec is one): `opgen bench` names them and measures the rest."""
    known = {lay.op for lay in layouts(ops)}
    return [name for name in ops if name not in known]


def select(ops: dict[str, Op], quick: bool = False, sizes=None) -> list[Case]:
    """Every case of `ops`: the dtypes each op supports on the default product, sizes 2^k for k in `sizes`.
    Grouped by op, then layout, then dtype, then size (the report's order).  Ops without layouts are left out
    (see without_layouts)."""
    sizes = sizes or (QUICK_SIZES if quick else DEFAULT_SIZES)
    out = []
    for lay in layouts(ops):
        if lay.op not in ops or (quick and not lay.quick):
            continue
        for dtype in DTYPES:
            if dtype not in ops[lay.op].dtypes.get(DEFAULT_PRODUCT, []):
                continue
            for k in sizes:
                n = 1 << k
                if n % lay.divisor == 0:
                    out.append(Case(lay, dtype, n))
    return out
