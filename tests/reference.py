"""Independent references for kernel tests: the spec's *forward*, differentiated in mpmath.

Nothing here reads the documented backward.  For an element, the reference is the derivative of the loss
that the op's definition implies (Σ g·y for no reduction, g·Σy for sum, g·Σy/N for mean), taken numerically
by `mpmath.diff` at 30 digits on the forward evaluated with `DimSum` summed over the row.  When a kernel is
given the forward *output* y (ELU's isResult, softmax's output) the forward input is recovered first: by
bisection on the monotone forward branch (elementwise ops), or from a pre-image the test supplies (softmax,
whose inputs the test builds exactly on the simplex).
"""
from __future__ import annotations

import itertools

import mpmath
import numpy as np
import sympy

from codegen.spec import ABSENT, DimSum
from codegen.spec.functions import BROADCAST
from codegen.spec.params import FORWARD_INPUT, FORWARD_OUTPUT, OPERAND

DPS = 30


def _variant(op, kw):
    key = op.variant_key(kw)
    return next(v for v in op.variants if v.key == key)


def _mp(a):
    return np.vectorize(lambda v: mpmath.mpf(float(v)), otypes=[object])(np.asarray(a, dtype=np.float64))


class Forward:
    """The forward of one op as an mpmath function of (x, operands…, scalars…) with DimSum per row."""

    def __init__(self, op, variant):
        self.op = op
        absent = {t.symbol: sympy.sympify(t.default) for t in op.tensors if variant.key.get(t.name) == ABSENT}
        self.operands = [t for t in op.tensors if t.role == OPERAND and t.symbol not in absent]
        self.scalars = op.reals + [a for a in op.attrs if a.type == "int64" and a.name != op.reduce_dim
                                   and a.name != op.loss_reduction]
        expr = sympy.sympify(op.forward_of(variant.formula)).xreplace(absent)
        self.holders, self.inner = [], []

        def hold(a):
            d = sympy.Dummy()
            self.holders.append(d)
            self.inner.append(sympy.lambdify(self._args(), a.args[0], modules="mpmath"))
            return d
        outer = expr.replace(lambda a: isinstance(a, DimSum), hold)
        self.fn = sympy.lambdify(self._args() + self.holders, outer, modules="mpmath")
        self.coupled = bool(self.holders)

    def _args(self):
        return [self.op.wrt] + [t.symbol for t in self.operands] + [p.symbol for p in self.scalars]

    def row(self, z, ops, scal):
        """Forward outputs of a row: z[i] and ops[i] (operand values) per element."""
        sums = [mpmath.fsum(f(z[k], *ops[k], *scal) for k in range(len(z))) for f in self.inner]
        return [self.fn(z[i], *ops[i], *scal, *sums) for i in range(len(z))]

    def one(self, z, ops, scal):
        return self.fn(z, *ops, *scal)


def _diff(f, z):
    """mpmath.diff at rising precision until two results agree to 20 digits.

    A forward like log(1/(1 + exp(-x))) cancels catastrophically for large x (1 + e^-87 is 1 at 30 digits),
    so a fixed working precision can be wrong in every digit; doubling it until the derivative settles is not.
    Returns nan where there is no derivative (a kink) or it does not settle; tests judge those points by
    PyTorch instead.
    """
    with mpmath.workdps(4 * DPS):  # a kink (branch point) has no derivative: report nan there
        h = mpmath.mpf(10) ** -12 * max(1, abs(z))
        left, right = (f(z) - f(z - h)) / h, (f(z + h) - f(z)) / h
        if abs(left - right) > mpmath.mpf(10) ** -6 * max(1, abs(left), abs(right)):
            return mpmath.nan
    prev = None
    for dps in (DPS * 2 ** k for k in range(9)):
        with mpmath.workdps(dps):
            d = mpmath.diff(f, z)
        if prev is not None and abs(d - prev) <= mpmath.mpf(10) ** -20 * abs(d):
            return d
        prev = d
    return mpmath.nan  # beyond ~7700 digits (|x| >~ 1e4 through log(1 + exp(-x))): no mpmath reference


def _invert(f, y, lo=-200, hi=200):
    """x with f(x) = y for an increasing f, by bisection in mpmath."""
    a, b = mpmath.mpf(lo), mpmath.mpf(hi)
    fa, fb = f(a) - y, f(b) - y
    if fa > 0 or fb < 0:
        raise ValueError(f"{y} is outside the forward's range on [{lo}, {hi}]")
    for _ in range(220):
        m = (a + b) / 2
        if f(m) - y > 0:
            b = m
        else:
            a = m
    return (a + b) / 2


def vjp(op, kw: dict, preimage=None) -> np.ndarray:
    """The reference gradient (an object array of mpf) for the kernel call `kw` (same keywords as the kernel)."""
    mpmath.mp.dps = DPS
    variant = _variant(op, kw)
    fwd = Forward(op, variant)
    formula = variant.formula
    xt = next((t for t in op.tensors if op.role_of(t.name, formula) == FORWARD_INPUT), None)
    yt = next((t for t in op.tensors if op.role_of(t.name, formula) == FORWARD_OUTPUT), None)
    gt = op.grad
    held = xt or yt
    shape = np.broadcast_shapes(*[np.shape(kw[t.py_name]) for t in [held, gt] + fwd.operands])
    if op.loss_reduction:   # a loss: the shape its output rules give (self's, or the broadcast of the inputs)
        from codegen.runtime.calls import output_shape
        shape = output_shape(op, kw)
    shapes = {t.name: np.shape(kw[t.py_name]) for t in op.tensors
              if kw.get(t.py_name) is not None and t.name != op.output.name}
    out_shape, broadcast = shape, np.broadcast_shapes(*shapes.values())
    if op.output.sum_to:    # the loss lives on the broadcast shape of every input; its gradient is summed back below
        shape = broadcast
    vals = {t.name: np.broadcast_to(_mp(kw[t.py_name]), shape) for t in [held] + fwd.operands}
    g = np.broadcast_to(_mp(kw[gt.py_name]), shape)
    scal = [mpmath.mpf(float(kw[p.py_name])) for p in fwd.scalars]
    ops_at = lambda idx: [vals[t.name][idx] for t in fwd.operands]
    red = kw.get(op.param(op.loss_reduction).py_name) if op.loss_reduction else 0
    counted = {**shapes, op.output.name: out_shape, BROADCAST: broadcast}
    divisor = op.reduction.divisor_value(op, red, counted) if op.loss_reduction else None
    out = np.empty(shape, dtype=object)
    if not fwd.coupled:
        for idx in itertools.product(*[range(s) for s in shape]):
            if xt is not None:
                z = vals[xt.name][idx]
            else:
                z = _invert(lambda t: fwd.one(t, ops_at(idx), scal), vals[yt.name][idx])
            d = _diff(lambda t: fwd.one(t, ops_at(idx), scal), z)
            if xt is None and mpmath.isnan(d) and preimage is not None:
                # y has no unique pre-image (LeakyRelu's y = 0 at slope 0: every x <= 0): the x it came from
                d = _diff(lambda t: fwd.one(t, ops_at(idx), scal), mpmath.mpf(float(np.reshape(preimage, shape)[idx])))
            out[idx] = g[idx] * d / (divisor or 1)
        return _sum_to(out, out_shape) if op.output.sum_to else out
    # coupled along dim: one row at a time
    dim = op.reduce_axis(kw)
    nd = max(len(shape), 1)
    shp = shape if shape else (1,)
    dim = dim % nd
    z_all = _mp(preimage) if preimage is not None else vals[xt.name]
    z_all = np.reshape(z_all, shp)
    g_r = np.reshape(g, shp)
    out_r = np.empty(shp, dtype=object)
    others = [range(s) if i != dim else [slice(None)] for i, s in enumerate(shp)]
    ops_all = [np.reshape(vals[t.name], shp) for t in fwd.operands]   # per element (a mask)
    for sel in itertools.product(*others):
        z = list(z_all[sel])
        gs = list(g_r[sel])
        ops_row = [[o[sel][j] for o in ops_all] for j in range(len(z))]
        for j in range(len(z)):
            def loss(t, j=j):
                zz = list(z)
                zz[j] = t
                return mpmath.fsum(gi * yi for gi, yi in zip(gs, fwd.row(zz, ops_row, scal)))
            out_r[sel][j] = _diff(loss, z[j])
    return np.reshape(out_r, shape)


def _sum_to(full: np.ndarray, shape: tuple) -> np.ndarray:
    """The chain rule through broadcasting: each element of an input broadcast to `full`'s shape receives the sum
    of the gradients of the elements it was copied to (the leading axes broadcasting added, and its axes of
    extent 1 that were stretched)."""
    lead = full.ndim - len(shape)
    summed = full.sum(axis=tuple(range(lead))) if lead else full
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and summed.shape[i] != 1)
    if stretched:
        summed = summed.sum(axis=stretched, keepdims=True)
    if full.size == 0 or 0 in shape:
        return np.zeros(shape, dtype=object)
    return np.asarray(summed, dtype=object).reshape(shape)


def _real(v) -> float:
    """A real value as a float; a complex one (a real function outside its domain: KL's log of a negative target)
    is nan, as codegen.accuracy.dtypes rounds it."""
    if isinstance(v, (mpmath.mpc, complex)):
        return float(v.real) if v.imag == 0 else float("nan")
    return float(v)


def to_float(ref) -> np.ndarray:
    with np.errstate(invalid="ignore"):  # nan marks "no derivative here" (a kink, or outside the domain)
        return np.vectorize(_real, otypes=[np.float64])(ref)
