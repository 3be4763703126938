"""Input sets generated from a spec, PyTorch-OpInfo style: one list of `Sample`s per op and dtype.

Nothing here names an operator.  The generator reads the spec's structure: which tensor holds the forward
input x or output y (roles, per documented form), gradOutput, the other operands, the scalars and the relations
the proof assumes about them (`codegen.verify.cases`: every variant, every loss reduction, each scalar known
to be >= 0 both > 0 and == 0), the branch points (the forward's Piecewise conditions solved for x), and the
shape rules (what may broadcast, the minimum and maximum rank).  Groups:

  typical            x ~ N(0, 3), gradOutput ~ U(-2, 2), operands ~ U(0, 1)
  branch points      each boundary b of the forward's conditions (0, ±λ), b ± 1 and 2 ulps, b ± 1e-3
  large              ±10 … ± the dtype's max, log-spaced; ±88.5 … ±89.375 where FLOAT's exp overflows
  tiny               ± the smallest subnormal, the largest subnormal, the smallest normal, 1e-4 …
  periodic           (a sin or cos of x) the values nearest ±k·pi/2, k up to 41721, and ±65536 (where Ascend C's
                     reduction changes method: Cody-Waite below, Payne-Hanek beyond)
  special            x = ±0, ±inf, nan
  special gradOutput gradOutput = ±0, ±inf, nan, ±max, tiny, at typical, branch, large and special x
  special operands   each operand = ±0, ±inf, nan, max, -1.5, 2.5
  layout: …          broadcast shapes (from Broadcastable / BroadcastTo rules), empty, rank 0 (unless a
                     MinRank rule forbids it), rank 8, non-contiguous views with a strided `out=`

A tensor holding the forward *output* gets y = F(x) of those x, computed exactly and rounded to the dtype (a
value that rounding pushes out of the forward's image is dropped: it is no forward output).  For a DimSum
forward (softmax) whole rows are generated the same way, from rows of z: typical, wide (tiny and subnormal
probabilities, near one-hot), and rows with -inf, +inf, nan, equal and huge entries.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import mpmath
import numpy as np
import sympy

from codegen.spec import rules as R
from codegen.spec.dtypes import DTYPES
from codegen.spec.params import UNUSED
from codegen.verify.cases import cases, sample_scalars

from .dtypes import FORMATS, Format, round_to
from .reference import Reference, _cached, forward_fn

INF, NAN = float("inf"), float("nan")


def _held(held, vals) -> dict:
    """{the held tensor's name: its values}, or {} for an op that no tensor holds x or y of (a linear forward:
    DropoutBackward reads its mask and gradient alone, and its derivative is the same at every x)."""
    return {} if held is None else {held.name: vals}


@dataclass
class Sample:
    case: str                       # variant, reduction and scalar setting, e.g. "isResult=true, alpha = 0"
    group: str                      # one of the groups above
    kw: dict                        # kernel keywords (no product)
    out: np.ndarray | None = None   # preallocated output view (layout: non-contiguous), passed as out=
    holder: np.ndarray | None = None  # the buffer `out` views; what lies outside the view must stay untouched
    shape: tuple = ()               # the output shape the rules require
    extra: dict = field(default_factory=dict)


@dataclass
class Sizes:
    typical: int       # elements of the typical group (elementwise)
    rows: tuple        # (rows, row length) of coupled typical samples
    draws: int         # scalar draws per case
    layouts: bool      # layout groups for every case (else only the first case of the op)
    grads: int         # how many of the special gradOutput values (a reduced loss needs one call per value)
    # (rows, row length) of the wide rows: the C kernels sum a row of at least OPGEN_WIDE_ROW (513) elements in
    # eight partial sums and finish it while they sum the next, in blocks of OPGEN_BLOCK (1024) elements: lengths
    # that are a multiple of no vector width (past one block in the full sets) take those paths and their tails
    wide: tuple = (2, 600)


FAST = Sizes(typical=48, rows=(4, 12), draws=1, layouts=False, grads=5)
FULL = Sizes(typical=1024, rows=(32, 40), draws=3, layouts=True, grads=9, wide=(3, 2100))


# ---- values in a format ---------------------------------------------------------------------------------
def _in(fmt: Format, values) -> np.ndarray:
    """float64 values rounded (once, to nearest even) to `fmt`, kept as float64."""
    with np.errstate(over="ignore"):
        a = np.asarray(values, dtype=np.float64)
        return a.astype(fmt.np).astype(np.float64)


def _step(fmt: Format, v: float, k: int) -> float:
    """v moved by k representable values of `fmt` (towards +inf for k > 0); -0 and +0 count as one value."""
    nbits = 8 * np.dtype(fmt.np).itemsize
    unsigned = {16: np.uint16, 32: np.uint32}[nbits]
    sign = 1 << (nbits - 1)
    u = int(np.array([v], dtype=fmt.np).view(unsigned)[0])
    o = u if u < sign else -(u - sign)
    o += k
    u = o if o >= 0 else (-o) | sign
    return float(np.array([u], dtype=unsigned).view(fmt.np)[0])


# where FLOAT's exp overflows and a result built from it may not: e^x/2 (cosh, sinh) is finite up to
# ln(2*max) = 89.4159, e^x up to ln(max) = 88.7228 (kernels compute in FLOAT, so the window is FLOAT's)
EXP_EDGE = [88.5, 88.75, 89.0, 89.375]


def large(fmt: Format, k: int = 8) -> list:
    mags = list(np.logspace(1, np.log10(fmt.max), k)) + [fmt.max]
    return [s * m for m in mags for s in (1, -1)]


def exp_edge(fmt: Format) -> list:
    """±EXP_EDGE where the dtype holds them (FLOAT and BFLOAT16, whose range reaches the window)."""
    return [s * m for m in EXP_EDGE if fmt.max > 1e38 and round_to(m, fmt) == m for s in (1, -1)]


# k*pi/2 for these k: where sin or cos of x is 0 (their relative accuracy: the argument reduction), up to where Ascend
# C's Cody-Waite reduction ends (41721*pi/2 = 65535.5; codegen.expansions.SIN_REDUCED_UP_TO; beyond it, FLOAT's
# closest floats to k*pi/2 are in tests/test_vocabulary_kernels.py's BEYOND_REDUCTION)
PERIODIC_K = [1, 2, 3, 4, 7, 100, 1001, 41721]


def periodic(fmt: Format) -> list:
    """The dtype's values nearest k*pi/2, both signs, and the edge of Ascend C's Cody-Waite reduction (65536)."""
    vals = [s * round_to(k * np.pi / 2, fmt) for k in PERIODIC_K for s in (1, -1)] + [65536.0, -65536.0]
    return [v for v in vals if abs(v) <= fmt.max]


def tiny(fmt: Format) -> list:
    mags = [fmt.min_subnormal, 2 * fmt.min_subnormal, fmt.tiny - fmt.min_subnormal, fmt.tiny, 1.5 * fmt.tiny,
            1e-8, 1e-4]
    return [s * m for m in mags for s in (1, -1)]


SPECIAL = [0.0, -0.0, INF, -INF, NAN]


def special_grads(fmt: Format) -> list:
    return [0.0, INF, NAN, fmt.max, fmt.min_subnormal, -0.0, -INF, -fmt.max, fmt.tiny]


SPECIAL_OPERANDS = [0.0, -0.0, INF, -INF, NAN, 3.0e38, -1.5, 2.5]


def _branch_solutions(op, ref: Reference, scal: list) -> list:
    """The forward's branch points in x: its Piecewise conditions solved for x and the spec's declared points,
    the scalars substituted (sympy expressions; some move with an operand, SmoothL1's x = target ± β)."""
    rels = set()
    for pw in ref.forward.atoms(sympy.Piecewise):
        for _, c in pw.args:
            rels |= c.atoms(sympy.core.relational.Relational)
    subs = {p.symbol: s for p, s in zip(ref.scalars, scal)}
    sols = [p for p, _, _ in op.declared(ref.variant.formula)]
    for r in rels:
        try:
            sols += list(sympy.solve(r.lhs - r.rhs, op.wrt))
        except NotImplementedError:
            continue
    return [sympy.sympify(sol).subs(subs) for sol in sols]


def _near(fmt: Format, b: float) -> list:
    """b rounded to `fmt`, its neighbours 1 and 2 values away and 1e-3 (relative, at least absolute) either side."""
    b = float(_in(fmt, [b])[0])
    return [b] + [_step(fmt, b, k) for k in (-2, -1, 1, 2)] + [b - 1e-3 * max(1, abs(b)), b + 1e-3 * max(1, abs(b))]


def branch_points(op, ref: Reference, scal: list, fmt: Format) -> list:
    """The forward's fixed branch points in x (its Piecewise conditions solved), their neighbours, and 0."""
    bounds = {0.0}
    for v in _branch_solutions(op, ref, scal):
        if v.is_number and v.is_real:
            bounds.add(float(v))
    out = []
    for b in sorted(bounds):
        out += _near(fmt, b)
    if 0.0 in bounds:
        out.append(-0.0)
    return out


def moving_branch_points(op, ref: Reference, scal: list) -> list:
    """The forward's branch points in x that move with the operands (x = target ± β): expressions in the
    operands' symbols only (a point depending on anything else is no point the inputs can aim at)."""
    symbols = {t.symbol for t in ref.operands}
    return [v for v in _branch_solutions(op, ref, scal) if v.free_symbols and v.free_symbols <= symbols]


def own_dtypes(op, kernel_dtype: str, skip=()) -> dict:
    """{tensor name: DType} of the tensors (but `skip`) whose own dtype table (`Tensor(dtypes=...)`) has no
    `kernel_dtype` on any product: each is generated in the first dtype of its table (ReluGradV4's UINT8 mask)."""
    out = {}
    for t in op.tensors:
        table = getattr(t, "dtypes", None)
        if not table or t.name in skip:
            continue
        names = [d for dts in table.values() for d in dts]
        if kernel_dtype not in names and DTYPES[names[0]].numpy_dtype() is not None:
            out[t.name] = DTYPES[names[0]]
    return out


# ---- the case context: one variant, reduction and scalar setting ---------------------------------------
class Context:
    def __init__(self, op, case, fmt: Format, rng, sizes: Sizes):
        self.op, self.case, self.fmt, self.rng, self.sizes = op, case, fmt, rng, sizes
        self.variant = case.variant
        self.ref = _cached(op.name, op, tuple(sorted(case.variant.key.items())))
        self.scalar_kw = self._scalars()
        self.scal = [mpmath.mpf(float(self.scalar_kw[p.py_name])) for p in self.ref.scalars]
        self.reduction = case.reduction
        self.label = case.label
        self.bools = {t.name for t in op.bool_tensors}   # truth values (a mask): True/False, passed as BOOL
        # a tensor whose own dtype table (`Tensor(dtypes=...)`) lacks the kernel's dtype (ReluGradV4's UINT8 mask):
        # its values are generated in its own dtype ({name: DType}), the others in the kernel's
        self.own = own_dtypes(op, fmt.name, self.bools)
        if not self.ref.coupled:
            _, self.fwd = forward_fn(op, self.variant)

    def _scalars(self) -> dict:
        """Scalars (float32 values, as the kernels read them) and attributes for this case."""
        op, kw = self.op, {}
        # (the case's substitutions decide: a sign, a value, an order of two scalars, an interval)
        draw = {"positive": lambda: self.rng.uniform(0.25, 2), "negative": lambda: -self.rng.uniform(0.25, 2),
                "any": lambda: self.rng.uniform(-2, 2)}
        for sym, v in sample_scalars(self.case, lambda kind: draw[kind]()).items():
            p = next(q for q in op.reals if q.symbol == sym)
            kw[p.py_name] = float(np.float32(float(v)))
        for a in op.attrs:
            if a.name in self.variant.key:
                kw[a.py_name] = self.variant.key[a.name]
            elif a.type in ("bool", "string") or (a.values and a.name != op.loss_reduction):
                kw[a.py_name] = a.typical   # (an enumerated int64 no form of this variant depends on)
            elif a.name == op.loss_reduction:
                kw[a.py_name] = int(self.case.reduction)
            elif op.dim_attr and a.name == op.reduce_dim:
                kw[a.py_name] = -1
        for a in op.attrs:   # an int64 the forward compares an operand with (`Ne(target, ignoreIndex)`): its default
            if a.type == "int64" and a.py_name not in kw and a in self.ref.scalars:
                kw[a.py_name] = a.typical
        return kw

    @property
    def scalar_grad(self) -> bool:
        """A reduced loss (mean, sum) has a scalar gradient."""
        return bool(self.op.loss_reduction) and self.reduction not in (None, 0)

    # ---- tensors ------------------------------------------------------------------------------------
    def operand(self, t, shape) -> np.ndarray:
        """Typical values of the operand `t`: U(0, 1) in the dtype, or for a BOOL tensor true with
        probability 1/4 (as 0.0/1.0; `make` passes it as BOOL)."""
        if t.name in self.bools:
            return (self.rng.uniform(0, 1, shape) < 0.25).astype(np.float64)
        u = self.rng.uniform(0, 1, shape)
        sign = self.case.subs.get(t.symbol)
        if sign is not None:   # an operand whose sign is a case of the proof (codegen.verify.cases._operand_signs)
            # (a value in terms of a scalar, `ignoreIndex + target_t`: the scalar as this case calls with it)
            sign = sympy.sympify(sign).xreplace({p.symbol: sympy.sympify(self.scalar_kw[p.py_name])
                                                 for p in self.ref.scalars if p.py_name in self.scalar_kw})
            if sign.is_number:          # a value the operand selects a form at (cases._operand_selections)
                u = np.full(shape, float(sign))
            elif sign.is_Symbol:
                u = u * (-1 if sign.is_negative else 1)
            else:                       # an interval: c - t, c + t, a + (b - a) t/(1 + t) with t > 0
                (s,) = sign.free_symbols
                u = sympy.lambdify(s, sign, "numpy")(2 * u + 1e-3) * np.ones(shape)
        return self.values_in(t.name, u)

    # ---- a tensor's own dtype -------------------------------------------------------------------------
    def np_dtype(self, name):
        """The NumPy dtype the tensor `name` is passed in: its own (`own_dtypes`) or the kernel's."""
        return self.own[name].numpy_dtype() if name in self.own else self.fmt.np

    def values_in(self, name, values) -> np.ndarray:
        """float64 values as the tensor `name` holds them (kept as float64): rounded to the kernel's format, or to
        the nearest integer of its own integer dtype, nan where that dtype cannot hold the value (out of range,
        ±inf, nan: `y_of_x` drops such a y as no forward output)."""
        if name not in self.own:
            return _in(self.fmt, values)
        dt = self.own[name]
        if dt.is_float and dt.name in FORMATS:
            return _in(FORMATS[dt.name], values)
        info = np.iinfo(dt.numpy_dtype())
        with np.errstate(invalid="ignore"):
            a = np.rint(np.asarray(values, dtype=np.float64))
            return np.where((a >= info.min) & (a <= info.max), a, np.nan)

    def rounded(self, name, v) -> float:
        """One exact value (mpf) as the tensor `name` holds it (see `values_in`), a Python float."""
        if name not in self.own:
            return round_to(v, self.fmt)
        try:
            f = float(v)
        except TypeError:   # a complex value: the forward left its domain
            return float("nan")
        return float(self.values_in(name, [f])[0])

    def held_is_y(self) -> bool:
        return self.ref.y_tensor is not None

    def y_of_x(self, xs, ops) -> tuple[np.ndarray, np.ndarray]:
        """(y = F(x) rounded to the dtype, mask of the values still inside the forward's image)."""
        ys, ok = [], []
        for i, x in enumerate(xs):
            o = [mpmath.mpf(float(a[i])) for a in ops]
            xm = mpmath.mpf(x)
            if mpmath.isinf(xm):
                xm = mpmath.mpf("1e300") * (1 if x > 0 else -1)
            try:
                y = self.rounded(self.ref.y_tensor.name, self.fwd(xm, *o, *self.scal))
            except ZeroDivisionError:   # a pole of the forward (1/x at 0, ReciprocalGrad): no y to give
                ys.append(float("nan"))
                ok.append(False)
                continue
            ys.append(y)
            # (a nan y of an integer tensor is a value its dtype cannot hold: no forward output it can be given)
            ok.append(self._in_image(mpmath.mpf(y), o) and not (np.isnan(y) and self.ref.y_tensor.name in self.own))
        return np.array(ys), np.array(ok, bool)

    def _in_image(self, y, o) -> bool:
        ref = self.ref
        if mpmath.isnan(y):
            return True
        for b in range(len(ref.inverse)):
            try:
                xb = ref.inverse[b](y, *o, *self.scal)
            except ZeroDivisionError:
                if b == len(ref.inverse) - 1:
                    return True
                continue
            if isinstance(xb, mpmath.mpf) and (b == len(ref.inverse) - 1 or bool(ref.cond[b](xb, *o, *self.scal))):
                return True
        return False

    def at_moving_point(self, point, k: int = 4) -> tuple[list, dict]:
        """(x, operands) near a branch point that moves with the operands (`point`, an expression in their
        symbols): `k` typical operand draws, each with x at the point as the dtype rounds it and its neighbours."""
        operands = self.ref.operands
        f = sympy.lambdify([t.symbol for t in operands], point, "mpmath")
        ops = {t.name: self.operand(t, k) for t in operands}
        xs, which = [], []
        for i in range(k):
            try:
                b = f(*[mpmath.mpf(float(ops[t.name][i])) for t in operands])
            except ZeroDivisionError:   # no point for this draw (x2 + margin/target at target = 0: no branch on x)
                continue
            near = _near(self.fmt, float(b)) if mpmath.isfinite(b) else []
            xs += near
            which += [i] * len(near)
        return xs, {name: v[which] for name, v in ops.items()}

    def elementwise(self, group, xs, gs=None, opnds=None) -> list[Sample]:
        """Samples of 1-D values: x (or the y of those x), gradOutput and operands, element by element."""
        fmt, rng, op = self.fmt, self.rng, self.op
        xs = _in(fmt, xs)
        n = len(xs)
        ops = {t.name: self.operand(t, n) for t in self.ref.operands}
        ops.update({k: self.values_in(k, v) for k, v in (opnds or {}).items()})
        held = self.ref.x_tensor or self.ref.y_tensor
        vals = xs
        if self.held_is_y():
            vals, ok = self.y_of_x(xs, [ops[t.name] for t in self.ref.operands])
            keep = ok
            vals, xs = vals[keep], xs[keep]
            ops = {k: v[keep] for k, v in ops.items()}
            if gs is not None and np.size(gs) == len(keep):
                gs = np.asarray(gs, dtype=np.float64)[keep]
            n = len(vals)
        # leading axes of 1 up to the minimum rank the rules allow (MultiLabelSoftMargin's [1, n]), as `rows` does
        min_rank = max([r.n for r in op.rules if isinstance(r, R.MinRank)] + [1])
        shape = (1,) * (min_rank - 1) + (n,)
        tensors = {k: np.reshape(v, shape) for k, v in {**_held(held, vals), **ops}.items()}
        if self.scalar_grad:
            gvals = [rng.uniform(-2, 2)] if gs is None else list(np.atleast_1d(gs))
            return [self._sample(group, tensors, np.array(_in(fmt, [g])[0]), shape) for g in gvals]
        g = _in(fmt, rng.uniform(-2, 2, n) if gs is None else np.broadcast_to(gs, (n,)))
        return [self._sample(group, tensors, np.reshape(g, shape), shape)]

    def rows(self, group, z, g=None, opnds=None) -> list[Sample]:
        """A sample of rows along `dim` (the last axis here) for a DimSum forward: y (or x) from rows of z, the
        operands (a mask) typical unless given in `opnds`, per element."""
        fmt = self.fmt
        z = np.asarray(z, dtype=np.float64)
        held = self.ref.x_tensor or self.ref.y_tensor
        ops = {t.name: self.operand(t, z.shape) for t in self.ref.operands}
        ops.update({k: np.asarray(v, np.float64) if k in self.bools else _in(fmt, v) for k, v in (opnds or {}).items()})
        if self.held_is_y():
            vals = self.y_rows(z, ops)
        else:
            vals = _in(fmt, z)
        g = _in(fmt, self.rng.uniform(-2, 2, z.shape) if g is None else g)
        # leading axes of 1 up to the minimum rank the rules allow (a rank-4 op's [1, 1, rows, length])
        min_rank = max([r.n for r in self.op.rules if isinstance(r, R.MinRank)] + [0])
        shape = (1,) * max(min_rank - z.ndim, 0) + z.shape
        tensors = {k: np.reshape(v, shape) for k, v in {**_held(held, vals), **ops}.items()}
        return [self._sample(group, tensors, np.reshape(g, shape), shape)]

    def y_rows(self, z, ops: dict) -> np.ndarray:
        """The forward's outputs of the rows (last axis) of z with the operands `ops` (same shape), rounded."""
        lists = [ops[t.name].reshape(-1, z.shape[-1]) for t in self.ref.operands]
        out = []
        # at 40 digits, not mpmath's default 53 bits: the one-element row's log-softmax x - log(e^x) must be 0,
        # not -2^-54 (a y no row gives, whose exact gradient is g·(1 - e^y) = 6e-17 where every kernel gives 0)
        with mpmath.workdps(40):
            for r, row in enumerate(z.reshape(-1, z.shape[-1])):
                o = [[mpmath.mpf(float(a[r, i])) for a in lists] for i in range(len(row))]
                out.append([self.rounded(self.ref.y_tensor.name, v)
                            for v in self.ref.forward_row([mpmath.mpf(t) for t in row], self.scal, o)])
        return np.array(out, dtype=np.float64).reshape(z.shape)

    def typical_tensors(self, shape, dim=-1, cut=None) -> dict:
        """Typical values of every present tensor for an output of `shape` (rows along `dim`); `cut`: {name:
        function} making a tensor broadcast (to a leading axis of 1, to one element).  A row's y is the forward of
        the operands it is called with: they are cut before it is computed."""
        cut = cut or {}
        fmt, rng = self.fmt, self.rng
        held = self.ref.x_tensor or self.ref.y_tensor
        n = int(np.prod(shape))
        if self.ref.coupled:
            moved = np.moveaxis(np.empty(shape or (1,)), dim, -1)
            z = rng.normal(0, 2, moved.shape)
            ops = {t.name: self.operand(t, moved.shape) for t in self.ref.operands}
            if cut and ops:   # (layouts cut along the last axis only: rows there, moved is shape)
                ops = {k: np.broadcast_to(cut[k](v), v.shape) if k in cut else v for k, v in ops.items()}
            if self.held_is_y() and z.size == 0:
                vals = np.zeros(shape)
            elif self.held_is_y():
                vals = np.moveaxis(self.y_rows(z, ops), -1, dim).reshape(shape)
            else:
                vals = _in(fmt, np.moveaxis(z, -1, dim).reshape(shape))
            out = {**_held(held, vals), **{k: np.moveaxis(v, -1, dim).reshape(shape) for k, v in ops.items()}}
        else:
            ops = {t.name: self.operand(t, n) for t in self.ref.operands}
            xs = _in(fmt, rng.normal(0, 3, n))
            if self.held_is_y():
                ys, ok = self.y_of_x(xs, [ops[t.name] for t in self.ref.operands])
                ys[~ok] = 0.0
                xs = ys
            out = {**_held(held, xs.reshape(shape)), **{k: v.reshape(shape) for k, v in ops.items()}}
        out[self.op.grad.name] = _in(fmt, rng.uniform(-2, 2, () if self.scalar_grad else shape))
        for t in self.op.tensors:
            if self.op.role_of(t.name, self.variant.formula) == UNUSED:
                out[t.name] = _in(fmt, rng.normal(0, 1, shape))
        for k, f in cut.items():
            if np.ndim(out[k]) == len(shape):
                out[k] = f(np.ascontiguousarray(out[k]))
        return out

    def _sample(self, group, tensors: dict, g, shape) -> Sample:
        tensors = dict(tensors)
        tensors[self.op.grad.name] = g
        for t in self.op.tensors:
            if self.op.role_of(t.name, self.variant.formula) == UNUSED and t.name not in tensors:
                tensors[t.name] = _in(self.fmt, self.rng.normal(0, 1, shape))
        return self.make(group, tensors, shape)

    def make(self, group, tensors: dict, shape, **extra) -> Sample:
        kw = dict(self.scalar_kw)
        for t in self.op.tensors:
            if self.variant.key.get(t.name) == "absent":
                kw[t.py_name] = None
            else:
                a = np.asarray(tensors[t.name])
                kw[t.py_name] = np.asarray(a != 0) if t.name in self.bools else a.astype(self.np_dtype(t.name))
        if self.op.output.sum_to:   # the gradient summed back to that input's own shape
            shape = np.shape(kw[self.op.param(self.op.output.sum_to).py_name])
        return Sample(self.label, group, kw, shape=tuple(shape), **extra)


# ---- groups ---------------------------------------------------------------------------------------------
def value_groups(ctx: Context) -> list[Sample]:
    fmt, rng, out = ctx.fmt, ctx.rng, []
    if ctx.ref.coupled:
        return row_groups(ctx)
    bp = branch_points(ctx.op, ctx.ref, ctx.scal, fmt)
    out += ctx.elementwise("typical", rng.normal(0, 3, ctx.sizes.typical))
    out += ctx.elementwise("branch points", bp)
    for point in moving_branch_points(ctx.op, ctx.ref, ctx.scal):
        xs, opnds = ctx.at_moving_point(point)
        out += ctx.elementwise("branch points", xs, opnds=opnds)
    out += ctx.elementwise("large", large(fmt) + exp_edge(fmt))
    out += ctx.elementwise("tiny", tiny(fmt))
    if ctx.ref.periodic:   # a sin or cos of x: near its zeros
        out += ctx.elementwise("periodic", periodic(fmt))
    out += ctx.elementwise("special", SPECIAL * 2, gs=[1.0] * 5 + [-2.5] * 5)
    xs = list(rng.normal(0, 3, 3)) + bp[:3] + large(fmt, 2)[:2] + SPECIAL
    gspec = special_grads(fmt)
    if ctx.scalar_grad:
        gspec = gspec[:ctx.sizes.grads]
        out += [s for g in gspec for s in ctx.elementwise("special gradOutput", xs, gs=[g])]
    else:
        out += ctx.elementwise("special gradOutput", [x for x in xs for _ in gspec], gs=gspec * len(xs))
    for t in ctx.ref.operands:
        xs = list(rng.normal(0, 3, 3))
        special = [0.0, 1.0] if t.name in ctx.bools else SPECIAL_OPERANDS
        vals = [v for v in special for _ in xs]
        out += ctx.elementwise("special operands", xs * len(special), opnds={t.name: vals})
    return out


def row_groups(ctx: Context) -> list[Sample]:
    rng, fmt = ctx.rng, ctx.fmt
    r, L = ctx.sizes.rows
    out = []
    out += ctx.rows("typical", rng.normal(0, 2, (r, L)))
    out += ctx.rows("tiny", rng.normal(0, 30, (r, L)))      # tiny, subnormal and zero probabilities
    special = np.zeros((8, 6))
    special[0, 0] = -INF                                      # a zero probability
    special[1, :3] = -INF
    special[2, 2] = INF                                       # exp(inf)/inf: nan
    special[3, 1] = NAN
    special[4] = 7.0                                          # equal probabilities
    special[5, 0], special[5, 1] = 1e30, -1e30                # one-hot from huge logits
    special[6] = [0, np.log(fmt.min_subnormal), np.log(fmt.tiny), -1e4, 1, 2]
    special[7] = [-0.0, 0.5, -0.5, 1, -1, 88]
    out += ctx.rows("special", special)
    g = rng.uniform(-2, 2, (9, 6))
    for i, v in enumerate(special_grads(fmt)):
        g[i, i % 6] = v
    out += ctx.rows("special gradOutput", rng.normal(0, 2, (9, 6)), g=g)
    out += ctx.rows("large", rng.normal(0, 2, (4, 6)), g=rng.choice([-1, 1], (4, 6)) * np.array(large(fmt, 12)[:24]).reshape(4, 6))
    for t in ctx.ref.operands:
        if t.name in ctx.bools:   # rows masked everywhere, nowhere, all but one position, every other one
            m = np.zeros((4, 6))
            m[0], m[2, 1:], m[3, ::2] = 1, 1, 1
            g = rng.uniform(-2, 2, (4, 6))
            g[0, 0], g[2, 3], g[3, 0] = NAN, INF, NAN   # masked: no effect on the position itself
            out += ctx.rows("special masks", rng.normal(0, 2, (4, 6)), g=g, opnds={t.name: m})
    # wide rows, typical but for a few probabilities whose exp leaves double's range (a log-softmax y below -708:
    # the row finish's range scan falls back to the exp with its selects for that block only) and a zero one
    z = rng.normal(0, 2, ctx.sizes.wide)
    z[0, 300], z[0, -1], z[-1, 7] = -1e4, -INF, -800.0
    out += ctx.rows("wide rows", z)
    # rows of exactly OPGEN_UNROLLED_ROW (64) elements: the C kernels compile those apart, with the length known
    out += ctx.rows("rows of 64", rng.normal(0, 2, (3, 64)))
    return out


def layout_groups(ctx: Context) -> list[Sample]:
    op, out = ctx.op, []
    coupled = ctx.ref.coupled
    min_rank = max([r.n for r in op.rules if isinstance(r, R.MinRank)] + [0])
    max_rank = min([r.n for r in op.rules if isinstance(r, R.MaxRank)] + [8])
    dim_attr = op.dim_attr.py_name if op.dim_attr else None
    # the rows' axis: one the call chooses (dim), else the op's own
    row_dim = (lambda d: d) if dim_attr or not coupled else (lambda d: op.reduce_axis({}))
    lead = (2, 3, 1, 2, 1, 1)

    def ranked(shape):
        """`shape` with leading axes (2, 3, ...) up to the minimum rank the rules allow (a rank-4 op)."""
        k = max(min_rank - len(shape), 0)
        return tuple(lead[:k]) + tuple(shape)

    def whole(group, shape, dim=-1, **extra):
        s = ctx.make(group, ctx.typical_tensors(shape, row_dim(dim)), shape, **extra)
        if dim_attr:
            s.kw[dim_attr] = dim
        return s
    if min_rank == 0:
        out.append(whole("layout: rank 0", (), 0))
    rank_max = (2, 1, 3, 1, 2, 1, 2, 2)[:max_rank]
    out.append(whole(f"layout: rank {max_rank}", rank_max, 2 if coupled else -1))
    for shape in [(0,), (2, 0, 3) if max_rank >= 3 else (0, 3)[:max_rank]]:   # (no rank above the rules')
        s = whole("layout: empty", ranked(shape), -1)
        out.append(s)
    # non-contiguous inputs and a strided out= (views of 2-D buffers, with leading axes of 1 up to the minimum rank)
    pad = (None,) * max(min_rank - 2, 0)
    s = whole("layout: non-contiguous", (1,) * len(pad) + (6, 5), 0 if coupled else -1)
    for k, v in list(s.kw.items()):
        if isinstance(v, np.ndarray) and v.ndim == 2 + len(pad):
            buf = np.zeros((13, 11), v.dtype)
            buf[1::2, 1:11:2] = v.reshape(6, 5)
            s.kw[k] = buf[1::2, 1:11:2][pad]
    s.holder = np.full((6, 11), np.nan, dtype=ctx.fmt.np)
    s.out = s.holder[:, 1::2][pad]
    out.append(s)
    # broadcasting the rules allow
    bshape = ranked((6, 5))
    first = len(bshape) - 2   # the axis a broadcast operand is cut to 1 along
    # inputs a ShapeSame rule ties to another input keep the whole shape (RMSNorm's dy and x beside a broadcast
    # gamma): a cut one would be a call the rules refuse, not a broadcast they allow
    inputs = {t.name for t in op.tensors}
    tied = set()
    for r in op.rules:
        if isinstance(r, R.ShapeSame) and len([q for q in r.params if q in inputs]) >= 2:
            tied |= {q for q in r.params if q in inputs}
    for r in op.rules:
        if isinstance(r, R.Broadcastable):
            t = ctx.typical_tensors(bshape)
            a, b = r.params[0], r.params[1]
            if np.ndim(t[a]) == 0 or np.ndim(t[b]) == 0:   # a reduced loss's gradOutput: one element, no axis to cut
                continue
            if a in tied and b in tied:
                continue
            if a not in tied:
                t[a] = t[a][(slice(None),) * first + ((slice(None), slice(0, 1)) if b not in tied else (slice(0, 1),))]
            if b not in tied:
                t[b] = t[b][(slice(None),) * first + (slice(0, 1),)]
            out.append(ctx.make(f"layout: broadcast {a} {list(t[a].shape)} with {b} {list(t[b].shape)}",
                                {k: v for k, v in t.items()}, bshape))
        if isinstance(r, R.BroadcastTo):
            present = [n for n in r.params[:-1] if ctx.variant.key.get(n) != "absent"]
            if not present:   # (every tensor that would broadcast is absent in this variant)
                continue
            # (a ShapeSameOrOneElement broadcasts one element only: no cut along an axis)
            for cut in ((),) if isinstance(r, R.ShapeSameOrOneElement) else ((1, 5), ()):
                # cut to 1 along the first axis, or to one element (of rank 0, or of the minimum rank); a broadcast
                # along listed axes only (BroadcastTo(axes=...)): to 1 along the first listed axis, or along all
                f = (lambda a: a[:1]) if cut else (lambda a: a.reshape(-1)[0].reshape((1,) * min_rank))
                if r.axes is not None:
                    f = (lambda a, ax=r.axes[:1] if cut else r.axes: a[tuple(
                        slice(0, 1) if i in {x % a.ndim for x in ax} else slice(None) for i in range(a.ndim))])
                t = ctx.typical_tensors(bshape, cut={n: f for n in present})
                out.append(ctx.make(f"layout: broadcast {', '.join(present)} {list(np.shape(t[present[0]]))} "
                                    f"to {r.params[-1]}", t, bshape))
    return out


def samples(op, dtype: str, sizes: Sizes = FAST, seed: int = 0) -> list[Sample]:
    """Every sample of one op in one dtype (deterministic for a seed)."""
    if op.classes is not None:   # integer targets, per-class weights (codegen.accuracy.classes)
        from .classes import samples as class_samples
        return class_samples(op, dtype, sizes, seed)
    if op.sequence is not None:   # the unmasked op's, time-major, with lengths (codegen.accuracy.sequence)
        from .sequence import samples as sequence_samples
        return sequence_samples(op, dtype, sizes, seed)
    if op.split is not None:   # made of its half ops' samples (codegen.accuracy.split)
        from .split import samples as split_samples
        return split_samples(op, dtype, sizes, seed)
    fmt = FORMATS[dtype]
    rng = np.random.default_rng([seed, sum(map(ord, op.name)), sum(map(ord, dtype))])
    out = []
    for i, case in enumerate(cases(op)):
        for _ in range(sizes.draws):
            ctx = Context(op, case, fmt, rng, sizes)
            out += value_groups(ctx)
            if sizes.layouts or i == 0:
                out += layout_groups(ctx)
    return out
