"""The independent reference: the spec's *forward*, differentiated by SymPy and evaluated exactly in mpmath.

Nothing here reads the documented backward, the stability rewrites or any kernel.  For one op and one kernel
variant (absent optional tensors replaced by their default):

* elementwise forward y = F(x, operands, scalars): the derivative of each Piecewise branch, `diff` then
  `simplify` (which also removes the cancellation of forms like 1 - 1/(1 + exp(-x)), so no precision is lost
  at large |x|).  At a branch point the branch the forward's Piecewise selects there applies (|x| == λ is in
  Softshrink's dead zone, ELU's x == 0 in its `<= 0` branch); so does a nan, which fails every comparison.
  Abs, sign, Min and Max of x are branches too.  Where x lies exactly on a point the spec declares a value for
  (`Op.at`: where the forward is not differentiable), the reference is that declared value.  Bool attributes
  and absent optional tensors are fixed per kernel variant, in the forward too (a forward may depend on them).
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
limit in every float format; that limit is taken with the other operands fixed, so where an operand is infinite
too (L1Loss at self = target = inf: inf - inf) there is no reference value.  A held y that is no forward output
(no real pre-image, e.g. a softmax "probability" of -1) has no reference: it is excluded and counted; so is an element whose derivative takes an
exp of an argument beyond 2^4096 (exp(-3*exp(x)) at x = 3e38: mpmath would need the argument's exponent in
digits, and every float format has long reached the limit).  Each sample is evaluated at two precisions
and re-evaluated at higher ones until both round to the same value in the output dtype; elements that never
settle are excluded and counted too, never guessed.
"""
from __future__ import annotations

from functools import lru_cache

import mpmath
import numpy as np
import sympy

from codegen.spec import ABSENT, DimSum
from codegen.spec.op import fixed_value
from codegen.spec.classes import GridSum
from codegen.spec.functions import BROADCAST, count_value, numel_param
from codegen.spec.params import FORWARD_INPUT, FORWARD_OUTPUT, OPERAND

from codegen.verify.intervals import piecewise_form
from codegen.verify.proof import tidy

from .dtypes import Format, round_to_pair

BIG = mpmath.mpf("1e300")          # stands for ±inf in the differentiated variable
OUTSIDE = "outside"                # a y that is no forward output (no real pre-image): no reference value
OUT_OF_REACH = "out of reach"      # exp of an astronomically large argument (OutOfReach): no reference value
UNDEFINED = "undefined"            # x and an operand both infinite (inf - inf): no limit to take, no reference value
PRECISIONS = [(40, 80), (160, 320), (640, 1280)]   # decimal digits: evaluate at both, escalate on disagreement
_Y = sympy.Symbol("Y__", real=True)


def _shapes(op, kw, out_shape) -> dict:
    """{tensor parameter name: shape} of a call, the output's being `out_shape` (a loss's mean divisor)."""
    shapes = {t.name: np.shape(kw[t.py_name]) for t in op.tensors if kw.get(t.py_name) is not None}
    shapes[op.output.name] = tuple(out_shape)
    shapes[BROADCAST] = np.broadcast_shapes(*[s for n, s in shapes.items() if n != op.output.name])
    return shapes


def _summed_to(full: np.ndarray, shape: tuple) -> np.ndarray:
    """An `Output(sum_to=...)`'s exact values: the object array `full` (the broadcast shape) summed over the axes
    broadcasting added or stretched, to `shape`; a marker (a string: out of reach, outside) in a sum is the sum's."""
    lead = full.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and full.shape[lead + i] != 1)
    out = np.empty(shape, dtype=object)
    moved = np.moveaxis(full, axes, tuple(range(len(axes)))).reshape((-1,) + tuple(shape)) if full.size else None
    for idx in np.ndindex(*shape):
        terms = [] if moved is None else list(moved[(slice(None),) + idx])
        marker = next((t for t in terms if isinstance(t, str)), None)
        out[idx] = marker if marker is not None else mpmath.fsum(terms)
    return out


def variant_subs(op, variant) -> dict:
    """What a kernel variant fixes: absent optional tensors are their default, bool and int64 attributes their
    value (a string only selects the formula)."""
    out = {t.symbol: sympy.sympify(t.default) for t in op.tensors if variant.key.get(t.name) == ABSENT}
    out.update({a.symbol: fixed_value(a, variant.key[a.name]) for a in op.attrs
                if a.name in variant.key and a.type != "string"})
    return out


def variant_of(op, kw):
    """The op's kernel variant that a call with keywords `kw` runs."""
    key = op.variant_key(kw)
    return next(v for v in op.variants if v.key == key)


def _branches(expr):
    if isinstance(expr, sympy.Piecewise):
        return [(e, c) for e, c in expr.args]
    return [(expr, sympy.true)]


def _one_point(cond) -> bool:
    """Whether a folded branch's condition holds only where some e = 0 (it requires both e >= 0 and e <= 0): the
    fold of kinks that switch on opposite sides of one point (Max(x, 0) takes x <= 0 at 0, Abs(x) takes x >= 0)
    leaves such a piece, a mixture of the two sides valid at that point alone, whose derivative is neither side's
    (SigmoidCrossEntropyWithLogitsGrad's max(x, 0) + log(1 + exp(-|x|)) gave -1/2 - t at x = 0, where the forward
    is smooth with derivative 1/2 - t).  Its value is the forward's at the point, so dropping it from the
    derivative leaves the next branch, a one-sided derivative: the derivative where the forward is differentiable
    there, and where it is not the spec declares the value (`at=`), which the reference takes first."""
    rels = cond.args if isinstance(cond, sympy.And) else (cond,)
    ge, le = set(), set()
    for r in rels:
        if isinstance(r, (sympy.GreaterThan, sympy.LessThan)):
            d = sympy.expand(r.lhs - r.rhs)
            (ge if isinstance(r, sympy.GreaterThan) else le).add(d)
    return any(d in le or -d in ge for d in ge) or any(-d in le for d in le)


def _simpler(expr):
    """`simplify` for a derivative of modest size without hyperbolic or error functions (it removes cancellations
    such as 1 - 1/(1 + exp(-x)), which would otherwise cost digits); any other is left as it is (simplify would
    take minutes: 4 on the regression spec tanh_kink_proof; the precision escalation of `Reference.rounded` makes
    up for any cancellation)."""
    return tidy(expr, max_ops=30)


def _simplified(expr):
    """`simplify` of each branch's expression, the conditions left as `diff` gives them: the same values (the
    conditions are only not rewritten into shorter equivalents), without `simplify`'s work on the relations,
    which tests their equality at random complex points (nsimplify/pslq: ~3-7 s of CPU per DimSum op variant set,
    CrossEntropyLossGrad's six variants ~20x slower than their branches' simplification)."""
    if isinstance(expr, sympy.Piecewise):
        return sympy.Piecewise(*[(sympy.simplify(e), c) for e, c in expr.args])
    return sympy.simplify(expr)


class OutOfReach(ArithmeticError):
    """An exponential of an argument so large that mpmath would need its exponent's digits to reduce it
    (exp(-3*exp(alpha*x)) at x = 3e38): far beyond every float format, and not computable in useful time."""


MAX_EXP_BITS = 4096   # |argument| < 2^4096: argument reduction costs that many extra bits at most


def _guard(fn):
    def guarded(a, *rest):
        if isinstance(a, mpmath.mpf) and mpmath.isfinite(a) and mpmath.mag(a) > MAX_EXP_BITS:
            raise OutOfReach(f"{fn.__name__} of an argument near 2^{int(mpmath.mag(a))}")
        return fn(a, *rest)
    guarded.__name__ = fn.__name__
    return guarded


def _erfc(a):
    """mpmath's erfc, but for a > 2^400 (mpmath's own raises OverflowError beyond about 2^512, as at the 1e300
    standing for +inf): the asymptotic series' first term exp(-a^2)/(a sqrt(pi)), whose relative error 1/(2a^2)
    is far below any working precision here."""
    if isinstance(a, mpmath.mpf) and mpmath.isfinite(a) and a > 0 and mpmath.mag(a) > 400:
        return mpmath.exp(-a * a) / (a * mpmath.sqrt(mpmath.pi))
    return mpmath.erfc(a)


_erfc.__name__ = "erfc"
_GUARDED = {name: _guard(getattr(mpmath, name)) for name in ("exp", "expm1", "sinh", "cosh", "tanh", "erf")}
_GUARDED["erfc"] = _guard(_erfc)


def _log_of_power(expr):
    """log(a**b) as b*log(a) where a > 0 and b is real (the same value): simplify's logcombine writes
    3*log(a)*(e^x + 1)*(2e^x + 1) as log(a**(3*(e^x + 1)*(2e^x + 1))), whose exponent mpmath raises exactly as a
    whole number: 23 s at x = 1e10, a MemoryError or OverflowError at x = 3e38 (fuzz seed 2525)."""
    expr = sympy.sympify(expr)
    return expr.replace(lambda e: isinstance(e, sympy.log) and isinstance(e.args[0], sympy.Pow)
                        and e.args[0].base.is_positive and e.args[0].exp.is_real,
                        lambda e: e.args[0].exp * sympy.log(e.args[0].base))


def _lamb(args, expr):
    fn = sympy.lambdify(args, _log_of_power(expr), modules=[_GUARDED, "mpmath"])

    def reached(*a):
        try:
            return fn(*a)
        except (OverflowError, MemoryError) as e:   # an integer or exponent mpmath cannot hold: no value, not a crash
            raise OutOfReach(f"mpmath: {type(e).__name__}: {e}") from None
    return reached


def _derivative(e, z):
    """d e / dz, simplified; nan where the forward is nan (LogitGrad outside its domain: SymPy's diff of the
    constant nan is 0)."""
    if e.has(sympy.nan):
        return sympy.nan
    return _simpler(sympy.diff(e, z))


def _free_of(expr, z):
    """1 where the branch `expr` takes does not depend on z, else 0 (a Piecewise of 0/1 over its conditions)."""
    if isinstance(expr, sympy.Piecewise):
        return sympy.Piecewise(*[(sympy.Integer(0 if e.has(z) else 1), c) for e, c in expr.args])
    return sympy.Integer(0 if expr.has(z) else 1)


def _real_inverse(sols, e, c, z, rest):
    """Of several solutions of y = e(z) (tanh: two logarithms, one complex on the whole image), the ones that give
    z back from e(z) at points of the branch, the other symbols at 1/3: a real pre-image of every y."""
    if len(sols) <= 1:
        return sols
    probe = {s: sympy.Rational(1, 3) for s in rest}
    points = [z0 for z0 in (sympy.Rational(k, 7) for k in (3, -3, 12, -12, 29, -29))
              if bool(sympy.sympify(c).xreplace({z: z0, **probe}))]

    def round_trips(sol):
        for z0 in points:
            back = sympy.N(sol.xreplace({_Y: e.xreplace({z: z0, **probe}), **probe}), 30)
            if not back.is_real or abs(back - z0) > 1e-20:
                return False
        return bool(points)
    return [s for s in sols if round_trips(s)]


def _inverse_branches(name, F1, z, rest):
    """[(condition(z, *rest), inverse(y, *rest) or None, value(*rest) or None)] of the forward at S = 1, per
    branch: a branch that reads z is inverted (z = F_b⁻¹(y)); a branch constant in z (a masked position) has
    the one value it gives, and any z is its pre-image (0 is taken).  A constant branch must be chosen by the
    operands alone: a condition on z there has no pre-image to test."""
    out = []
    for e, c in _branches(F1):
        if e.has(z):
            sol = sympy.solve(sympy.Eq(_Y, e), z)
            if len(sol) != 1:
                raise ValueError(f"{name}: cannot invert the forward {e} (solutions: {sol})")
            out.append((_lamb([z] + rest, c), _lamb([_Y] + rest, sol[0]), None))
        else:
            if c != sympy.true and sympy.sympify(c).has(z):
                raise ValueError(f"{name}: the forward's constant branch {e} is chosen by a condition on "
                                 f"{z} ({c}): no pre-image of y to test it on")
            out.append((_lamb([z] + rest, c), None, _lamb(rest, e)))
    return out


class Reference:
    """The exact gradient of calls of one op variant."""

    def __init__(self, op, variant):
        self.op, self.variant = op, variant
        formula = variant.formula
        fixed = variant_subs(op, variant)
        fwd = piecewise_form(sympy.sympify(op.forward_of(formula)).xreplace(fixed), op.wrt)
        self.forward = fwd   # this variant's forward, Abs/sign/Min/Max written as branches
        role = lambda t: op.role_of(t.name, formula)
        self.x_tensor = next((t for t in op.tensors if role(t) == FORWARD_INPUT), None)
        self.y_tensor = next((t for t in op.tensors if role(t) == FORWARD_OUTPUT), None)
        self.operands = [t for t in op.tensors if role(t) == OPERAND and t.symbol not in fixed]
        declared = [(sympy.sympify(p).xreplace(fixed), v.xreplace(fixed)) for p, v, _ in op.declared(formula)]
        used = fwd.free_symbols.union(*[p.free_symbols | v.free_symbols for p, v in declared])
        self.scalars = [p for p in op.scalars + op.attrs
                        if p.symbol in used and p.name not in (op.reduce_dim, op.loss_reduction)]
        # element counts the forward reads (CrossEntropyLoss's C): values of the call, after the scalars
        self.counts = sorted((s for s in used if numel_param(s) is not None), key=str)
        z = op.wrt
        rest = [t.symbol for t in self.operands] + [p.symbol for p in self.scalars] + self.counts
        self.coupled = fwd.has(DimSum)
        # the arguments of sin and cos: where an infinite x or operand makes one unbounded (sin(x), not
        # sin(tanh(x))), the derivative has no limit for 1e300 to stand in for
        self.periodic = [_lamb([z] + rest, f.args[0]) for f in fwd.atoms(sympy.sin, sympy.cos)
                         if f.args[0].free_symbols & ({z} | {t.symbol for t in self.operands})]
        if not self.coupled:
            self._elementwise(fwd, z, rest)
        else:
            self._dimsum(fwd, z, rest)
        # declared values (Op.at): at x exactly on a declared point, the value the spec declares, not a derivative
        xs = [s for s in {z, getattr(self.x_tensor, "symbol", None)} if s is not None]
        g = op.grad.symbol
        self.declared = [(_lamb(rest, p), _lamb([z, g] + rest, v.xreplace({s: z for s in xs})))
                         for p, v in declared]

    # ---- building -------------------------------------------------------------------------------------
    def _elementwise(self, fwd, z, rest):
        br = _branches(fwd)
        if self.y_tensor is None:
            br = [(e, c) for e, c in br if not _one_point(c)] or br
            d = sympy.Piecewise(*[(_derivative(e, z), c) for e, c in br]) if len(br) > 1 \
                else _derivative(fwd, z)
            self.deriv = _lamb([z] + rest, d)
            return
        self.inverse, self.cond, self.dy = [], [], []
        for e, c in br:
            if not e.has(z):
                # a branch constant in x (ReLU's 0 for x <= 0): its derivative is 0 and its image one point;
                # the branches before it are tried first, so its pre-image only needs to satisfy no other's test
                self.inverse.append(_lamb([_Y] + rest, sympy.nan))
                self.cond.append(_lamb([z] + rest, c))
                self.dy.append(_lamb([_Y] + rest, sympy.Integer(0)))
                continue
            sol = _real_inverse(sympy.solve(sympy.Eq(_Y, e), z), e, c, z, rest)
            if len(sol) != 1:
                raise ValueError(f"{self.op.name}: cannot invert the forward branch {e} (solutions: {sol})")
            self.inverse.append(_lamb([_Y] + rest, sol[0]))
            self.cond.append(_lamb([z] + rest, c))
            # a rational function of y where one exists (Sigmoid: y - y**2, not the x-form at x = log(y/(1 - y)),
            # which divides by zero at y = 1, an output every float format reaches)
            d = _derivative(e, z).subs(z, sol[0])
            dy = sympy.cancel(sympy.simplify(d))
            if not dy.is_rational_function(_Y):   # tanh's cosh(log(...))**-2 is 1 - y**2 written in exponentials
                dy_exp = sympy.cancel(sympy.simplify(d.rewrite(sympy.exp)))
                dy = dy_exp if dy_exp.is_rational_function(_Y) else dy
            self.dy.append(_lamb([_Y] + rest, dy))

    def _dimsum(self, fwd, z, rest):
        """The row's structure F(z, S, operands) with S = Σ h(z, operands); the operands are per element (a
        mask), the scalars per call."""
        holders, inner = [], []

        def hold(a):
            s = sympy.Dummy("S")
            holders.append(s)
            inner.append(sympy.piecewise_fold(a.args[0]))
            return s
        F = sympy.piecewise_fold(fwd.replace(lambda a: isinstance(a, DimSum), hold))
        args = [z] + holders + rest
        self.F = _lamb(args, F)
        self.h = [_lamb([z] + rest, h) for h in inner]
        self.dFz = _lamb(args, _simplified(sympy.diff(F, z)))
        self.dFS = [_lamb(args, _simplified(sympy.diff(F, s))) for s in holders]
        dh = [_simplified(sympy.diff(h, z)) for h in inner]
        self.dh = [_lamb([z] + rest, d) for d in dh]
        # the sums whose summand does not read z (DimSum(1), the row's length) add nothing to the gradient: their
        # dh is exactly 0, never 0 times a nan dF/dS (a mean-center's S1/S2**2 where the row holds a nan; fuzz11)
        self.moving = [m for m, d in enumerate(dh) if d != 0]
        self.n_sums = len(holders)
        # where the branch the forward takes at an element does not read z there (a masked position: F and
        # every h constant in z), nothing depends on that z: its gradient is exactly 0, whatever gradOutput
        # holds (a nan too; autograd's masked_fill backward gives 0 there as well)
        flags = [_free_of(e, z) for e in [F] + inner]
        detached = sympy.Mul(*flags)
        self.detached = None if detached == 0 else _lamb([z] + rest, detached)
        self.held = None
        if self.y_tensor is not None and self.y_tensor.holds is not None:
            # a tensor holding a function of z (CrossEntropyLossGrad's logProb = z - log Σ exp(z)), at S = 1 as
            # the op reads it (exp(logProb) is the row's softmax): its pre-image from what it holds
            H = sympy.piecewise_fold(sympy.sympify(self.y_tensor.holds).replace(lambda a: isinstance(a, DimSum),
                                                                                 lambda a: sympy.Integer(1)))
            self.held = _lamb([z] + rest, H)
            self.y_branches = _inverse_branches(self.op.name, H, z, rest)
        elif self.y_tensor is not None:
            self.y_branches = _inverse_branches(self.op.name, F.xreplace({s: 1 for s in holders}), z, rest)

    # ---- evaluation -----------------------------------------------------------------------------------
    def _d_elementwise(self, v, ops, scal):
        """dF/dx at the element holding v (x, or y for a FORWARD_OUTPUT tensor)."""
        if mpmath.isinf(v):
            if self.oscillates(v, ops, scal):
                return mpmath.nan   # sin(x) has no limit as x -> inf: PyTorch's and every kernel's nan
            v = BIG if v > 0 else -BIG
        if self.y_tensor is None:
            try:
                return self.deriv(v, *ops, *scal)
            except ZeroDivisionError:   # a pole of the derivative (LogitGrad's x = 0, 1): ±inf, the sign of both
                h = mpmath.mpf(10) ** (-mpmath.mp.dps // 2)          # sides near it, nan when they differ; a side
                sides = [self.deriv(v + s * h, *ops, *scal) for s in (-1, 1)]  # outside the domain (nan, LogitGrad's
                signs = {mpmath.sign(d) for d in sides if not mpmath.isnan(d)}  # x < 0 at eps < 0) does not count
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

    def oscillates(self, v, ops, scal) -> bool:
        """Whether a sin or cos argument is unbounded where infinities in v and ops stand at +-1e300 (no limit)."""
        big = lambda a: (BIG if a > 0 else -BIG) if mpmath.isinf(a) else a   # noqa: E731
        for arg in self.periodic:
            try:
                a = arg(big(v), *[big(o) for o in ops], *scal)
            except (ZeroDivisionError, OutOfReach):
                return True
            if not (isinstance(a, mpmath.mpf) and mpmath.isfinite(a) and abs(a) < 1e6):
                return True
        return False

    def _declared_value(self, v, g, ops, scal):
        """The declared value (Op.at) when the element's x lies exactly on a declared point, else None."""
        if not self.declared or mpmath.isnan(v) or mpmath.isinf(v):
            return None
        x = v
        if self.y_tensor is not None:   # the element holds y: its pre-image under the branch that produced it
            x = None
            for b in range(len(self.inverse)):
                try:
                    xb = self.inverse[b](v, *ops, *scal)
                except ZeroDivisionError:
                    continue
                if isinstance(xb, mpmath.mpf) and (b == len(self.inverse) - 1 or bool(self.cond[b](xb, *ops, *scal))):
                    x = xb
                    break
            if x is None:
                return None
        for point, value in self.declared:
            try:
                at = point(*ops, *scal)
            except ZeroDivisionError:   # no such point for these operands (HingeLossGrad's 1/target at target = 0)
                continue
            if x == at:
                try:
                    return value(x, g, *ops, *scal)
                except ZeroDivisionError:   # a pole at the declared point (LogitGrad's x = 0 inside its window):
                    return None             # the derivative's own value there, ±inf by its sides
        return None

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
        if op.output.sum_to:   # every element of the broadcast shape, summed back to the output's shape below
            bshape, only = _shapes(op, kw, shape)[BROADCAST], None
        v = np.broadcast_to(mp(kw[held.py_name] if held is not None else np.zeros(bshape)), bshape)   # (any x: linear)
        g = np.broadcast_to(mp(kw[op.grad.py_name]), bshape)
        opnd = [np.broadcast_to(mp(kw[t.py_name]), bshape) for t in self.operands]
        shapes = _shapes(op, kw, shape)
        scal = [mpmath.mpf(float(kw[p.py_name])) for p in self.scalars] \
            + [mpmath.mpf(max(1, count_value(numel_param(c), shapes, op.reduce_axis(kw)))) for c in self.counts]
        red = 0
        if op.loss_reduction:
            red = kw[op.param(op.loss_reduction).py_name]
            red = red if op.param(op.loss_reduction).type == "string" else int(red)
        held_values = {t.symbol: np.asarray(kw[t.py_name], np.float64).reshape(-1)[0] for t in self.operands
                       if kw.get(t.py_name) is not None and np.size(kw[t.py_name]) == 1}
        if op.loss_reduction and sympy.sympify(op.reduction.divisor(op, red) or 0).has(GridSum):
            held_values.update(self._grid_sums(op.reduction.divisor(op, red), kw, bshape, opnd, scal))
        d = op.reduction.divisor_value(op, red, shapes, held_values) if op.loss_reduction else None
        if d is not None and not (mpmath.isfinite(mpmath.mpf(float(d))) and float(d) != 0):
            # a mean over a total weight the operator sums itself (GridSum) that is 0, inf or nan: no mean
            out = np.empty(bshape, dtype=object)
            out.fill(UNDEFINED)
            return out
        scale = 1 if d is None else mpmath.mpf(1) / (d if isinstance(d, int) else mpmath.mpf(float(d)))
        out = np.empty(bshape, dtype=object)
        if not self.coupled:
            for idx in np.ndindex(*bshape):
                if only is not None and not only[idx]:
                    out[idx] = mpmath.mpf(0)   # not asked for (already settled at a lower precision)
                    continue
                ops = [o[idx] for o in opnd]
                if mpmath.isinf(v[idx]) and any(mpmath.isinf(o) for o in ops):
                    out[idx] = UNDEFINED   # x -> inf is a limit only while the operands hold still
                    continue
                try:
                    r = self._declared_value(v[idx], g[idx], ops, scal)
                    if r is None:
                        d = self._d_elementwise(v[idx], ops, scal)
                        if not isinstance(d, str) and mpmath.isnan(d) and any(mpmath.isinf(o) for o in ops) \
                                and not self.oscillates(v[idx], ops, scal):
                            # an infinite operand where the simplified derivative is inf/inf (GLU's
                            # exp(b)/(exp(b) + 1) at b = inf): its limit, as for the differentiated variable
                            d = self._d_elementwise(v[idx], [(BIG if o > 0 else -BIG) if mpmath.isinf(o) else o
                                                             for o in ops], scal)
                        r = self._times_g(g[idx], d)
                except OutOfReach:
                    r = OUT_OF_REACH
                out[idx] = r if isinstance(r, str) else r * scale
            return _summed_to(out, shape) if op.output.sum_to else out
        dim = op.reduce_axis(kw) if op.reduce_dim is not None else -1
        rows = lambda a: np.moveaxis(np.reshape(a, bshape or (1,)), dim, -1)
        rows_v, rows_g = rows(v), rows(g)
        rows_o = [rows(o) for o in opnd]
        res = np.empty(rows_v.shape, dtype=object)
        for idx in np.ndindex(*rows_v.shape[:-1]):
            ops = [list(t) for t in zip(*[o[idx] for o in rows_o])] if rows_o else [[]] * rows_v.shape[-1]
            try:
                res[idx] = self._row(list(rows_v[idx]), list(rows_g[idx]), ops, scal)
            except OutOfReach:
                res[idx] = [OUT_OF_REACH] * rows_v.shape[-1]
            if scale != 1:   # a mean's divisor
                res[idx] = [r if isinstance(r, str) else r * scale for r in res[idx]]
        return np.reshape(np.moveaxis(res, -1, dim), bshape)

    def _grid_sums(self, divisor, kw, bshape, opnd, scal) -> dict:
        """{GridSum(e): its exact value} for a divisor summing `e` over the whole grid (of the operands)."""
        out = {}
        args = [t.symbol for t in self.operands] + [p.symbol for p in self.scalars] + self.counts
        for g in sympy.sympify(divisor).atoms(GridSum):
            f = _lamb(args, sympy.piecewise_fold(g.args[0].xreplace(variant_subs(self.op, self.variant))))
            out[g] = sympy.Float(mpmath.fsum(f(*[o[idx] for o in opnd], *scal) for idx in np.ndindex(*bshape)),
                                 mpmath.mp.dps)
        return out

    def _row(self, v, g, ops, scal):
        """The exact gradient of one row: v the held values (x or y), g gradOutput, ops[i] the operands at
        element i."""
        if self.y_tensor is not None:
            z = [self._z_of_y(y, o, scal) for y, o in zip(v, ops)]
            S = [mpmath.mpf(1)] * self.n_sums
            if not all(self._is_preimage(t, y, S, o, scal) for t, y, o in zip(z, v, ops)):
                return [OUTSIDE] * len(z)
        else:
            z = list(v)
            S = None
        z = [(BIG if t > 0 else -BIG) if isinstance(t, mpmath.mpf) and mpmath.isinf(t) else t for t in z]
        if not all(isinstance(t, mpmath.mpf) for t in z):   # log of a negative: y is no forward output
            return [OUTSIDE] * len(z)
        if S is None:
            S = [mpmath.fsum(h(t, *o, *scal) for t, o in zip(z, ops)) for h in self.h]
        if getattr(self.op, "grid_of", None) is not None and g and len(set(g)) == 1 and g[0] != 1:
            # a class-index op's row is one sample, its gradient one number G: the row's VJP at G = 1 times G
            # (an infinite G gives the sign of each element's derivative, not inf - inf across the row)
            return [r if isinstance(r, str) else self._times_g(g[0], r) for r in self._row(v, [mpmath.mpf(1)] * len(g),
                                                                                           ops, scal)]
        outer = {m: mpmath.fsum(self._times_g(gj, self.dFS[m](zj, *S, *o, *scal)) for gj, zj, o in zip(g, z, ops))
                 for m in self.moving}
        out = []
        for zi, gi, o in zip(z, g, ops):
            if self.detached is not None and self.detached(zi, *o, *scal):
                out.append(mpmath.mpf(0))
                continue
            acc = self._times_g(gi, self.dFz(zi, *S, *o, *scal))
            for m in self.moving:
                acc += self._times_g(outer[m], self.dh[m](zi, *o, *scal))
            out.append(acc)
        return out

    def _z_of_y(self, y, o, scal):
        """A pre-image z of the held y at S = 1 under the branch that gives it (None: none; 0 for a branch
        constant in z, which any z maps to)."""
        for b, (cond, inverse, value) in enumerate(self.y_branches):
            last = b == len(self.y_branches) - 1
            if inverse is None:
                if last or bool(cond(mpmath.mpf(0), *o, *scal)):
                    return mpmath.mpf(0)
                continue
            try:
                zb = inverse(y, *o, *scal)
            except ZeroDivisionError:
                continue
            if last or (isinstance(zb, mpmath.mpf) and bool(cond(zb, *o, *scal))):
                return zb
        return None

    def _is_preimage(self, z, y, S, o, scal) -> bool:
        """Whether F(z, S) is y: a real pre-image that maps back (y = inf has a pre-image z = inf, but no
        softmax output is infinite)."""
        if not isinstance(z, mpmath.mpf):
            return False
        if mpmath.isnan(y) or mpmath.isnan(z):
            return True
        zz = (BIG if z > 0 else -BIG) if mpmath.isinf(z) else z
        back = self.held(zz, *o, *scal) if self.held is not None else self.F(zz, *S, *o, *scal)
        return not mpmath.isinf(y) and abs(back - y) <= mpmath.mpf(10) ** -20 * max(abs(y), mpmath.mpf(10) ** -300)

    def forward_row(self, z, scal, ops=None):
        """Forward outputs of a row of inputs z (DimSum forwards), exactly; used to build y inputs.  `ops[i]`:
        the operands at element i.  A row whose sums are 0 (every position masked) gives nan where the branch
        divides by them."""
        ops = ops if ops is not None else [[]] * len(z)
        S = [mpmath.fsum(h(t, *o, *scal) for t, o in zip(z, ops)) for h in self.h]
        out = []
        for t, o in zip(z, ops):
            try:
                out.append(self.F(t, *S, *o, *scal))
            except ZeroDivisionError:
                out.append(mpmath.nan)
        return out

    # ---- rounding -------------------------------------------------------------------------------------
    def rounded(self, kw: dict, shape: tuple, fmt: Format) -> tuple[np.ndarray, np.ndarray]:
        """(the exact result rounded once to `fmt`, as float64; mask of the elements without a reference:
        held y values that are no forward output, or results that did not settle at the highest precision)."""
        result, unresolved, _ = self.rounded_ties(kw, shape, fmt)
        return result, unresolved

    def rounded_ties(self, kw: dict, shape: tuple, fmt: Format) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`rounded`, and the other neighbour of every exact result that is a midpoint of `fmt` (nan elsewhere):
        there both neighbours are correctly rounded (dtypes.round_to_pair)."""
        result, outside, todo, alt = None, None, None, None
        for lo, hi in PRECISIONS:
            a, out_lo, _ = self._at(kw, shape, fmt, lo, todo)
            b, _, b_alt = self._at(kw, shape, fmt, hi, todo)
            same = (a == b) | (np.isnan(a) & np.isnan(b))
            if result is None:
                outside = out_lo
            result = b if todo is None else np.where(todo, b, result)
            alt = b_alt if todo is None else np.where(todo, b_alt, alt)
            unsettled = ~same if todo is None else (todo & ~same)
            if not unsettled.any():
                return result, outside, alt
            # elementwise ops re-evaluate only the elements that did not settle; a row couples its elements
            todo = unsettled if not self.coupled else None
        return result, outside | unsettled, alt

    def _at(self, kw, shape, fmt, dps, only=None):
        with mpmath.workdps(dps), np.errstate(over="ignore"):  # a result beyond the dtype's range rounds to inf
            vals = self.values(kw, shape, only)
            outside = np.vectorize(lambda v: isinstance(v, str), otypes=[bool])(vals) if vals.size \
                else np.zeros(shape, bool)
            tie_bits = mpmath.mp.prec - 16    # the bits the values are good to (see dtypes.round_to)
            nan = float("nan")
            r, alt = np.vectorize(lambda v: (nan, nan) if isinstance(v, str) else round_to_pair(v, fmt, tie_bits),
                                  otypes=[np.float64, np.float64])(vals) if vals.size else (np.zeros(shape),) * 2
            return r, outside, alt


@lru_cache(maxsize=None)
def _cached(op_key, op, variant_key):
    variant = next(v for v in op.variants if tuple(sorted(v.key.items())) == variant_key)
    return Reference(op, variant)


def reference_for(op, kw) -> Reference:
    if op.classes is not None:   # its grid op's, on the call's views (codegen.accuracy.classes)
        from .classes import ClassReference
        return ClassReference(op)
    if op.split is not None:   # its halves' (codegen.accuracy.split)
        from .split import SplitReference
        return SplitReference(op)
    v = variant_of(op, kw)
    return _cached(op.name, op, tuple(sorted(v.key.items())))


def forward_fn(op, variant):
    """The forward F(x, operands, scalars) of an elementwise op as an mpmath function (to build y inputs)."""
    ref = _cached(op.name, op, tuple(sorted(variant.key.items())))
    fwd = sympy.sympify(op.forward_of(variant.formula)).xreplace(variant_subs(op, variant))
    args = [op.wrt] + [t.symbol for t in ref.operands] + [p.symbol for p in ref.scalars]
    return ref, _lamb(args, fwd)


__all__ = ["Reference", "reference_for", "variant_of", "forward_fn"]
