"""The independent reference: the spec's *forward*, differentiated by SymPy and evaluated exactly in mpmath.

Nothing here reads the documented backward, the stability rewrites or any kernel.  For one op and one kernel
variant (absent optional tensors replaced by their default):

* elementwise forward y = F(x, operands, scalars): the derivative of each Piecewise branch, `diff` then
  `simplify` (which also removes the cancellation of forms like 1 - 1/(1 + exp(-x)), so no precision is lost
  at large |x|).  At a branch point the branch the forward's Piecewise selects there applies (|x| == λ is in
  Softshrink's dead zone, ELU's x == 0 in its `<= 0` branch); so does a nan, which fails every comparison.
  When the kernel is given the forward *output* y (a FORWARD_OUTPUT role), each branch is inverted
  symbolically (x = F_b⁻¹(y)) and its derivative written in y; the first branch whose pre-image satisfies its
  condition applies, the last branch otherwise.
* a DimSum forward (softmax: F(z, S) with S = Σ_row h(z)): the chain rule on that structure,
      out_i = g_i ∂F/∂z(z_i, S) + Σ_m h_m'(z_i) Σ_j g_j ∂F/∂S_m(z_j, S),
  the whole row in high precision.  Given y, z_i = F⁻¹(y_i) at S = 1 (the normaliser a forward output
  implies), so a row of y that sums to one is exactly a forward output.
* a loss reduction (BCE): out_i = g · ∂l_i/∂x_i, divided for a mean by the divisor the spec's `Reduction`
  declares (numel(self), the output's numel, ...), an empty count counting as 1.

gradOutput enters as a limit: g · d with d exactly 0 is 0 even for g = ±inf (the function is 0 along g), and
±inf inputs of the differentiated variable are replaced by ±1e300, where every derivative here has reached its
limit in every float format.  A held y that is no forward output (no real pre-image, e.g. a softmax
"probability" of -1) has no reference: it is excluded and counted.  Each sample is evaluated at two precisions
and re-evaluated at higher ones until both round to the same value in the output dtype; elements that never
settle are excluded and counted too, never guessed.
"""
from __future__ import annotations

from functools import lru_cache

import mpmath
import numpy as np
import sympy

from codegen.spec import ABSENT, PRESENT, DimSum
from codegen.spec.params import FORWARD_INPUT, FORWARD_OUTPUT, OPERAND

from .dtypes import Format, round_to

BIG = mpmath.mpf("1e300")          # stands for ±inf in the differentiated variable
OUTSIDE = "outside"                # a y that is no forward output (no real pre-image): no reference value
PRECISIONS = [(40, 80), (160, 320), (640, 1280)]   # decimal digits: evaluate at both, escalate on disagreement
_Y = sympy.Symbol("Y__", real=True)


def _shapes(op, kw, out_shape) -> dict:
    """{tensor parameter name: shape} of a call, the output's being `out_shape` (a loss's mean divisor)."""
    shapes = {t.name: np.shape(kw[t.py_name]) for t in op.tensors if kw.get(t.py_name) is not None}
    shapes[op.output.name] = tuple(out_shape)
    return shapes


def variant_of(op, kw):
    """The op's kernel variant that a call with keywords `kw` runs."""
    key = {}
    for name in op.variant_keys():
        p = op.param(name)
        value = kw.get(p.py_name)
        if p.kind == "attr":
            key[name] = value if p.type == "string" else bool(value)
        else:
            key[name] = ABSENT if value is None else PRESENT
    return next(v for v in op.variants if v.key == key)


def _branches(expr):
    if isinstance(expr, sympy.Piecewise):
        return [(e, c) for e, c in expr.args]
    return [(expr, sympy.true)]


def _lamb(args, expr):
    return sympy.lambdify(args, expr, modules="mpmath")


def _derivative(e, z):
    """d e / dz, simplified; nan where the forward is nan (LogitGrad outside its domain: SymPy's diff of the
    constant nan is 0)."""
    if e.has(sympy.nan):
        return sympy.nan
    return sympy.simplify(sympy.diff(e, z))


class Reference:
    """The exact gradient of calls of one op variant."""

    def __init__(self, op, variant):
        self.op, self.variant = op, variant
        formula = variant.formula
        absent = {t.symbol: sympy.sympify(t.default) for t in op.tensors if variant.key.get(t.name) == ABSENT}
        fwd = sympy.sympify(op.forward_of(formula)).xreplace(absent)
        role = lambda t: op.role_of(t.name, formula)
        self.x_tensor = next((t for t in op.tensors if role(t) == FORWARD_INPUT), None)
        self.y_tensor = next((t for t in op.tensors if role(t) == FORWARD_OUTPUT), None)
        self.operands = [t for t in op.tensors if role(t) == OPERAND and t.symbol not in absent]
        self.scalars = [p for p in op.scalars + op.attrs
                        if p.symbol in fwd.free_symbols and p.name not in (op.reduce_dim, op.loss_reduction)]
        z = op.wrt
        rest = [t.symbol for t in self.operands] + [p.symbol for p in self.scalars]
        self.coupled = fwd.has(DimSum)
        if not self.coupled:
            self._elementwise(fwd, z, rest)
        else:
            self._dimsum(fwd, z, rest)

    # ---- building -------------------------------------------------------------------------------------
    def _elementwise(self, fwd, z, rest):
        br = _branches(fwd)
        if self.y_tensor is None:
            d = sympy.Piecewise(*[(_derivative(e, z), c) for e, c in br]) if len(br) > 1 \
                else _derivative(fwd, z)
            self.deriv = _lamb([z] + rest, d)
            return
        self.inverse, self.cond, self.dy = [], [], []
        for e, c in br:
            sol = sympy.solve(sympy.Eq(_Y, e), z)
            if len(sol) != 1:
                raise ValueError(f"{self.op.name}: cannot invert the forward branch {e} (solutions: {sol})")
            self.inverse.append(_lamb([_Y] + rest, sol[0]))
            self.cond.append(_lamb([z] + rest, c))
            self.dy.append(_lamb([_Y] + rest, _derivative(e, z).subs(z, sol[0])))

    def _dimsum(self, fwd, z, rest):
        if self.operands:
            raise ValueError(f"{self.op.name}: a DimSum forward with operands is not supported by the reference")
        holders, inner = [], []

        def hold(a):
            s = sympy.Dummy("S")
            holders.append(s)
            inner.append(a.args[0])
            return s
        F = fwd.replace(lambda a: isinstance(a, DimSum), hold)
        args = [z] + holders + rest
        self.F = _lamb(args, F)
        self.h = [_lamb([z] + rest, h) for h in inner]
        self.dFz = _lamb(args, sympy.simplify(sympy.diff(F, z)))
        self.dFS = [_lamb(args, sympy.simplify(sympy.diff(F, s))) for s in holders]
        self.dh = [_lamb([z] + rest, sympy.simplify(sympy.diff(h, z))) for h in inner]
        self.n_sums = len(holders)
        if self.y_tensor is not None:
            sol = sympy.solve(sympy.Eq(_Y, F.xreplace({s: 1 for s in holders})), z)
            if len(sol) != 1:
                raise ValueError(f"{self.op.name}: cannot invert the forward {F} (solutions: {sol})")
            self.zinv = _lamb([_Y] + rest, sol[0])

    # ---- evaluation -----------------------------------------------------------------------------------
    def _d_elementwise(self, v, ops, scal):
        """dF/dx at the element holding v (x, or y for a FORWARD_OUTPUT tensor)."""
        if mpmath.isinf(v):
            v = BIG if v > 0 else -BIG
        if self.y_tensor is None:
            try:
                return self.deriv(v, *ops, *scal)
            except ZeroDivisionError:   # a pole of the derivative (LogitGrad's x = 0, 1): ±inf, the sign of both
                h = mpmath.mpf(10) ** (-mpmath.mp.dps // 2)          # sides near it, nan when they differ
                sides = [self.deriv(v + s * h, *ops, *scal) for s in (-1, 1)]
                signs = {mpmath.sign(d) for d in sides}
                return mpmath.inf * signs.pop() if len(signs) == 1 else mpmath.nan
        for b in range(len(self.dy) - 1):
            try:
                xb = self.inverse[b](v, *ops, *scal)
            except ZeroDivisionError:
                continue
            if isinstance(xb, mpmath.mpf) and bool(self.cond[b](xb, *ops, *scal)):
                return self.dy[b](v, *ops, *scal)
        try:
            if not isinstance(self.inverse[-1](v, *ops, *scal), mpmath.mpf):
                return OUTSIDE
        except ZeroDivisionError:
            pass  # a branch constant in x (alpha = 0): its image is one point, the derivative is still defined
        try:
            return self.dy[-1](v, *ops, *scal)
        except ZeroDivisionError:
            return mpmath.nan

    @staticmethod
    def _times_g(g, d):
        if isinstance(d, str):
            return d
        if d == 0 and mpmath.isinf(g):
            return mpmath.mpf(0)  # the limit along g of g·0
        return g * d

    def values(self, kw: dict, shape: tuple, only=None) -> np.ndarray:
        with np.errstate(all="ignore"):  # nan and inf inputs are intended here
            return self._values(kw, shape, only)

    def _values(self, kw: dict, shape: tuple, only=None) -> np.ndarray:
        """The exact result (object array of mpf) of the call `kw` whose output has `shape`, at the current
        mpmath precision."""
        op = self.op
        held = self.x_tensor or self.y_tensor
        mp = lambda a: np.vectorize(mpmath.mpf, otypes=[object])(np.asarray(a).astype(np.float64)) \
            if np.size(a) else np.empty(np.shape(a), dtype=object)
        bshape = shape
        v = np.broadcast_to(mp(kw[held.py_name]), bshape)
        g = np.broadcast_to(mp(kw[op.grad.py_name]), bshape)
        opnd = [np.broadcast_to(mp(kw[t.py_name]), bshape) for t in self.operands]
        scal = [mpmath.mpf(float(kw[p.py_name])) for p in self.scalars]
        red = int(kw[op.param(op.loss_reduction).py_name]) if op.loss_reduction else 0
        d = op.reduction.divisor_value(op, red, _shapes(op, kw, shape)) if op.loss_reduction else None
        scale = mpmath.mpf(1) / d if d is not None else 1
        out = np.empty(bshape, dtype=object)
        if not self.coupled:
            for idx in np.ndindex(*bshape):
                if only is not None and not only[idx]:
                    out[idx] = mpmath.mpf(0)   # not asked for (already settled at a lower precision)
                    continue
                d = self._d_elementwise(v[idx], [o[idx] for o in opnd], scal)
                r = self._times_g(g[idx], d)
                out[idx] = r if isinstance(r, str) else r * scale
            return out
        dim = int(kw[op.param(op.reduce_dim).py_name]) if op.reduce_dim else -1
        rows_v = np.moveaxis(np.reshape(v, bshape or (1,)), dim, -1)
        rows_g = np.moveaxis(np.reshape(g, bshape or (1,)), dim, -1)
        res = np.empty(rows_v.shape, dtype=object)
        for idx in np.ndindex(*rows_v.shape[:-1]):
            res[idx] = self._row(list(rows_v[idx]), list(rows_g[idx]), scal)
        return np.reshape(np.moveaxis(res, -1, dim), bshape)

    def _row(self, v, g, scal):
        if self.y_tensor is not None:
            z = [self.zinv(y, *scal) for y in v]
            S = [mpmath.mpf(1)] * self.n_sums
            if not all(self._is_preimage(t, y, S, scal) for t, y in zip(z, v)):
                return [OUTSIDE] * len(z)
        else:
            z = list(v)
            S = None
        z = [(BIG if t > 0 else -BIG) if isinstance(t, mpmath.mpf) and mpmath.isinf(t) else t for t in z]
        if not all(isinstance(t, mpmath.mpf) for t in z):   # log of a negative: y is no forward output
            return [OUTSIDE] * len(z)
        if S is None:
            S = [mpmath.fsum(h(t, *scal) for t in z) for h in self.h]
        outer = [mpmath.fsum(self._times_g(gj, dFS(zj, *S, *scal)) for gj, zj in zip(g, z)) for dFS in self.dFS]
        out = []
        for zi, gi in zip(z, g):
            acc = self._times_g(gi, self.dFz(zi, *S, *scal))
            for m in range(self.n_sums):
                acc += self._times_g(outer[m], self.dh[m](zi, *scal))
            out.append(acc)
        return out

    def _is_preimage(self, z, y, S, scal) -> bool:
        """Whether F(z, S) is y: a real pre-image that maps back (y = inf has a pre-image z = inf, but no
        softmax output is infinite)."""
        if not isinstance(z, mpmath.mpf):
            return False
        if mpmath.isnan(y) or mpmath.isnan(z):
            return True
        zz = (BIG if z > 0 else -BIG) if mpmath.isinf(z) else z
        back = self.F(zz, *S, *scal)
        return not mpmath.isinf(y) and abs(back - y) <= mpmath.mpf(10) ** -20 * max(abs(y), mpmath.mpf(10) ** -300)

    def forward_row(self, z, scal):
        """Forward outputs of a row of inputs z (DimSum forwards), exactly; used to build y inputs."""
        S = [mpmath.fsum(h(t, *scal) for t in z) for h in self.h]
        return [self.F(t, *S, *scal) for t in z]

    # ---- rounding -------------------------------------------------------------------------------------
    def rounded(self, kw: dict, shape: tuple, fmt: Format) -> tuple[np.ndarray, np.ndarray]:
        """(the exact result rounded once to `fmt`, as float64; mask of the elements without a reference:
        held y values that are no forward output, or results that did not settle at the highest precision)."""
        result, outside, todo = None, None, None
        for lo, hi in PRECISIONS:
            a, out_lo = self._at(kw, shape, fmt, lo, todo)
            b, _ = self._at(kw, shape, fmt, hi, todo)
            same = (a == b) | (np.isnan(a) & np.isnan(b))
            if result is None:
                outside = out_lo
            result = b if todo is None else np.where(todo, b, result)
            unsettled = ~same if todo is None else (todo & ~same)
            if not unsettled.any():
                return result, outside
            # elementwise ops re-evaluate only the elements that did not settle; a row couples its elements
            todo = unsettled if not self.coupled else None
        return result, outside | unsettled

    def _at(self, kw, shape, fmt, dps, only=None):
        with mpmath.workdps(dps), np.errstate(over="ignore"):  # a result beyond the dtype's range rounds to inf
            vals = self.values(kw, shape, only)
            outside = np.vectorize(lambda v: isinstance(v, str), otypes=[bool])(vals) if vals.size \
                else np.zeros(shape, bool)
            r = np.vectorize(lambda v: float("nan") if isinstance(v, str) else round_to(v, fmt),
                             otypes=[np.float64])(vals) if vals.size else np.zeros(shape)
            return r, outside


@lru_cache(maxsize=None)
def _cached(op_key, op, variant_key):
    variant = next(v for v in op.variants if tuple(sorted(v.key.items())) == variant_key)
    return Reference(op, variant)


def reference_for(op, kw) -> Reference:
    v = variant_of(op, kw)
    return _cached(op.name, op, tuple(sorted(v.key.items())))


def forward_fn(op, variant):
    """The forward F(x, operands, scalars) of an elementwise op as an mpmath function (to build y inputs)."""
    ref = _cached(op.name, op, tuple(sorted(variant.key.items())))
    absent = {t.symbol: sympy.sympify(t.default) for t in op.tensors if variant.key.get(t.name) == ABSENT}
    fwd = sympy.sympify(op.forward_of(variant.formula)).xreplace(absent)
    args = [op.wrt] + [t.symbol for t in ref.operands] + [p.symbol for p in ref.scalars]
    return ref, _lamb(args, fwd)


__all__ = ["Reference", "reference_for", "variant_of", "forward_fn"]
