"""Symbolic proofs that a documented backward is the vector-Jacobian product of the forward.

Two methods, chosen by the shape of the forward:

* elementwise (no DimSum): the VJP is g·f'(x); for a loss, G·f'(x) with G = g (reduction none or sum) or g/D
  (a mean, D the divisor the spec's `Reduction` declares), since the loss Σ_i G_i·f(x_i) has that derivative
  w.r.t. x_j.  The real line is cut at every branch point
  of the forward's and the backward's conditions; on each open piece the active branches are decided
  symbolically and `g·f'(x) - backward` must simplify to 0.  When the backward is written in the forward
  output y (ELU's isResult), the forward branch is monotone on the piece, its image is computed from limits,
  and the backward's y-branch is decided on that image: this is the substitution of the forward's inverse.
  Branch points themselves are reported as the documented convention, next to both one-sided derivatives.
* coupled (DimSum): the forward is expanded over a row of symbolic length n with indexed
  symbols, the loss L = Σ g_i·y_i (none), g·Σ y_i (sum) or g·Σ y_i / n (mean) is differentiated with respect
  to x_j, and the residual against the backward at index j must be 0 for every 1 <= j <= n — a proof for
  general n; it is repeated on explicit rows of length 1…6 as an independent cross-check.  A BOOL tensor (a mask)
  that chooses between branches is read as a 0/1 number there: Piecewise((a, m), (b, True)) is m·a + (1 - m)·b,
  exact for m in {0, 1} wherever a and b are finite, and m² = m is used to simplify.
"""
from __future__ import annotations

import dataclasses
import hashlib

import sympy
from sympy.codegen.cfunctions import log1p
from sympy.functions.elementary.hyperbolic import HyperbolicFunction
from sympy.functions.elementary.trigonometric import TrigonometricFunction

from codegen.spec import ABSENT, DimSum, Op
from codegen.spec.op import fixed_value
from codegen.spec.functions import numel_param

from .cases import Case
from .intervals import (Undecided, atoms, first_piece, piecewise_form, sort_points, thresholds, truth_at,
                        truth_on)
from .result import Result

EXPLICIT_LENGTHS = (1, 2, 3, 4, 5, 6)
OUTSIDE = ("outside the forward's real domain",)
# the functions real on part of the line only, and where their argument must lie: the edges of that part are cut
# points of the proof, so that each piece is inside the forward's domain or outside it
_DOMAIN_BOUNDS = {sympy.log: (0,), log1p: (-1,), sympy.acos: (-1, 1), sympy.asin: (-1, 1), sympy.atanh: (-1, 1),
                  sympy.acosh: (1,)}


def domain_edges(forwards, x) -> list:
    """The points where an argument of log, log1p, a root, acos, asin, atanh or acosh in a forward branch reaches
    an edge of that function's real domain, for an argument polynomial in x of degree at most 2 (log1p(x): -1;
    acos(x): -1 and 1; log(1 - x**2): -1 and 1).  Other arguments give none (log(1 + exp(-x)) is real on the whole
    line, and solving it would cost seconds)."""
    out = []
    for f in forwards:
        nodes = [(n.args[0], _DOMAIN_BOUNDS[n.func]) for n in sympy.preorder_traversal(f)
                 if n.func in _DOMAIN_BOUNDS and n.args]
        nodes += [(n.base, (0,)) for n in sympy.preorder_traversal(f)
                  if isinstance(n, sympy.Pow) and n.exp.is_Rational and not n.exp.is_integer]
        for arg, bounds in nodes:
            if x not in arg.free_symbols or not arg.is_polynomial(x) or sympy.degree(arg, x) > 2:
                continue
            for b in bounds:
                out += [r for r in sympy.solve(sympy.Eq(arg, b), x) if r.is_real]
    return out


def live_domain_edges(pieces, trees, x) -> list:
    """The domain edges of each forward branch at which that branch is the one taken: an edge its own condition
    excludes is no point of the forward (the Wing loss's log(1 + (t - x)/epsilon) is the branch x < t, so its edge
    x = t + epsilon, where x >= t takes another branch, is none; ordering it against the branch point t + omega
    failed the proof). An edge where the branch taken cannot be decided is kept."""
    out = []
    for k, (f, _) in enumerate(pieces):
        for r in domain_edges([f], x):
            try:
                truths = [truth_at(t, r) for t in trees[:k + 1]]
            except Undecided:
                truths = [None]
            if truths[-1] is False or True in truths[:-1]:   # its own condition fails, or an earlier branch holds
                continue
            out.append(r)
    return out


def _nan_where_undefined(residual, ys) -> bool:
    """Whether a row's residual is 0 except nan on points (`Eq(x1_0, 0)`) where the forward itself is undefined: the
    cosine similarity's a*b/(|a||b|) on a row of one element, 0/0 at a = 0, where SymPy's derivative is nan."""
    if not isinstance(residual, sympy.Piecewise):
        return False
    for value, cond in residual.args:
        if is_zero(value):
            continue
        if value != sympy.nan or not isinstance(cond, sympy.Eq) or not cond.lhs.is_Symbol:
            return False
        if not any(sympy.sympify(y).subs(cond.lhs, cond.rhs).has(sympy.nan, sympy.zoo) for y in ys):
            return False
    return True


def not_real_on(f, x, lo, hi) -> bool:
    """Whether the forward branch f is visibly not a real number inside (lo, hi): at the piece's midpoint (or one
    from its finite end), its other symbols at a generic value of their sign (PoissonNLL's target 7/5, so that
    x - t*log(x + eps) is complex for x < -eps), it is complex, or infinite (x*log(y) at y = 0)."""
    if lo == -sympy.oo and hi == sympy.oo:
        m = sympy.Integer(0)
    elif lo == -sympy.oo:
        m = hi - 1
    elif hi == sympy.oo:
        m = lo + 1
    else:
        m = (lo + hi) / 2
    try:
        f = sympy.sympify(f)
        generic = {s: sympy.Rational(-7, 5) if s.is_negative else sympy.Rational(7, 5)
                   for s in f.free_symbols - {x} if isinstance(s, sympy.Symbol)}
        v = f.subs(x, m.subs(generic)).subs(generic)
    except (TypeError, ValueError):
        return False
    return bool(v.has(sympy.zoo) or v.is_extended_real is False)
# A loss reduction without DimSum couples the elements only through the mean's 1/n: rows of 1..3 exercise it
# (the general-length proof covers every n); SymPy needs seconds per length for BCE's sigmoid terms.
EXPLICIT_LENGTHS_LOSS = (1, 2, 3)


def is_zero(expr) -> bool:
    """Cheap canonical forms first, `simplify` last (it is slow, and rarely needed).  A value visibly non-zero
    at a point is a disproof, tried before simplify: the boundary checks ask about many expressions that are
    not zero (the two one-sided derivatives at a kink), and simplify would spend seconds on each."""
    expr = sympy.sympify(expr)
    if expr == 0:
        return True
    if _visibly_nonzero(expr):
        return False
    canonical = [sympy.expand, lambda e: sympy.cancel(sympy.together(e))]
    if expr.is_rational_function():
        # cancel first: `expand` multiplies out nested fractions term by term (fuzz seed 2323: a rational function
        # of two scalars at a kink, nested four deep, took expand past 4 minutes; cancel(together()) 0.06 s)
        canonical.reverse()
    for f in (_opaque_zero, *canonical, sympy.simplify):
        try:
            if f(expr) == 0:
                return True
        except (TypeError, NotImplementedError):
            continue
    e2 = sympy.expand(sympy.powsimp(sympy.expand(expr.rewrite(sympy.exp))))
    if sympy.simplify(e2) == 0:
        return True
    if expr.has(sympy.erfc):   # erfc(z) = 1 - erf(z), erf odd: SymPy's simplify does not use them
        return sympy.expand(expr.rewrite(sympy.erf)) == 0
    inverse = (sympy.asinh, sympy.acosh, sympy.atanh)
    if expr.has(*inverse):   # AsinhGrad from y: exp(asinh(x)) is x + sqrt(x**2 + 1) once asinh is a log
        return sympy.simplify(expr.replace(lambda a: isinstance(a, inverse), lambda a: a.rewrite(sympy.log))) == 0
    return False


def _signed(expr, x, lo, hi):
    """expr with Abs(x) resolved on an interval where x has one sign (GeluBackwardV2's erfc(|x|/sqrt(2)) for
    x < 0)."""
    if (hi - 0).is_nonpositive:
        return expr.subs(sympy.Abs(x), -x)
    if (lo - 0).is_nonnegative:
        return expr.subs(sympy.Abs(x), x)
    return expr


def _opaque_zero(expr):
    """expr with every function application an opaque symbol, the same for equal arguments (each argument brought to
    one rational form, `cancel(together())`, inside out), the rest cancelled: 0 only where expr is identically 0.
    Tried first: expand (and simplify after it) spun for minutes comparing a declared value with the backward at a
    kink, both tanh of one rational function of alpha written as differently nested fractions (fuzz seed 3131,
    batch 1: expand multiplied the nested fractions out; this takes 0.02 s)."""
    expr = sympy.sympify(expr)
    if expr.has(sympy.Piecewise):   # its conditions are no rational forms: the other tests take it
        return expr
    canon = expr.replace(
        lambda a: isinstance(a, sympy.Function) and a.args and all(isinstance(t, sympy.Expr) for t in a.args),
        lambda a: a.func(*[sympy.cancel(sympy.together(t)) for t in a.args]))
    held = {f: sympy.Dummy() for f in canon.atoms(sympy.Function)}
    return sympy.cancel(sympy.together(canon.xreplace(held)))


def same_value(a, b) -> bool:
    """Two values equal: the same expression (an infinite one, zoo*dy, too: its difference is not 0 but 2*zoo*dy),
    or their difference is 0."""
    return sympy.sympify(a) == sympy.sympify(b) or is_zero(a - b)


def sample_points(syms, count: int = 3) -> list[dict]:
    """`count` generic points {symbol: rational} of `syms`: about 1.3 to 2.5 in size, distinct per symbol and per
    point, of the sign a symbol's assumptions give it (negative or nonpositive: below 0; positive or nonnegative:
    above), the others' signs alternating between symbols and points.  None is a small round rational, so none
    is a branch point of the formulas the fuzzer draws.  (The one generator of `_visibly_nonzero` and
    codegen.fuzz.derive's comparison of a kink's values across cases.)"""
    points = []
    for k in range(count):
        point = {}
        for i, s in enumerate(syms):
            v = sympy.Rational(37 + 11 * i + 5 * k, 29 + 3 * k)     # ~1.3 .. 2.5, distinct per symbol
            point[s] = -v if s.is_negative or s.is_nonpositive else (v if s.is_positive or s.is_nonnegative
                                                                     else (v if (i + k) % 2 else -v))
        points.append(point)
    return points


def _visibly_nonzero(expr) -> bool:
    """Whether `expr` evaluates, at 30 digits, clearly away from 0 at one of a few points of its free symbols
    (respecting their sign assumptions).  Only ever says True for an expression that is not identically 0."""
    syms = sorted(expr.free_symbols, key=str)
    if any(not s.is_Symbol or s.is_integer for s in syms):
        return False
    for point in sample_points(syms):
        try:
            val = sympy.sympify(expr.xreplace(point)).evalf(30)
        except (TypeError, ValueError, ZeroDivisionError):
            continue
        if val.is_real and val.is_finite and abs(val) > sympy.Float("1e-15"):
            return True
        if val.is_real and val.is_finite and _tiny_but_settled(expr.xreplace(point), val):
            return True
    return False


def _tiny_but_settled(expr, val) -> bool:
    """A small value that 60 digits confirm to six: not the round-off of a zero, whose residue moves with the
    precision.  (Fuzz seed 2323: the one-sided derivatives of exp(tanh(...)) at a kink differ by (1 - tanh(u)^2)
    factors of 1e-17..1e-35 at the sample points; taken for zero, is_zero went on to `simplify` for minutes.)"""
    try:
        again = sympy.sympify(expr).evalf(60)
    except (TypeError, ValueError, ZeroDivisionError):
        return False
    return (again.is_real and again.is_finite and abs(again) > sympy.Float("1e-300")
            and abs(val - again) <= abs(again) * sympy.Float("1e-6"))


def tidy(expr, max_ops: int = 40):
    """`simplify` for the small expressions the table and the docs show; a large one as it is (seconds saved), and
    one with a hyperbolic, trigonometric or error function too: simplify's trigsimp factors over algebraic
    extensions, which took more than 15 minutes on `tanh(erfc(1/(alpha*(1 + alpha))))`-like values (found by
    codegen.fuzz), and more than 2 CPU-minutes on a one-sided derivative of cos(((1 + x**2)**-3 - 2x*sign(beta + x)/3)**2)
    at x = -beta (fuzz9, seed 3131)."""
    expr = sympy.sympify(expr)
    if sympy.count_ops(expr) > max_ops or expr.has(HyperbolicFunction, TrigonometricFunction, sympy.erf,
                                                   sympy.erfc):
        return expr
    return sympy.simplify(expr)


def _reduction_hint(value, declared, x) -> str:
    """A hint when the declared value misses a count factor the backward has (a mean reduction's 1/numel): at=
    declares the backward's whole value there (QuantileLossBackward's -q*g, declared without its 1/N)."""
    if is_zero(declared):
        return ""
    ratio = sympy.simplify(value / declared)
    counts = [s for s in ratio.free_symbols if str(s).startswith("numel_")]
    if not counts or ratio.has(x) or ratio == 1:
        return ""
    return (f"; at= declares the backward's whole value, the reduction's factor included: multiply the declared "
            f"value by {ratio}")


def _at(expr, x, t, side):
    """The one-sided limit of a branch's expression at t: its value there when finite (a branch is a smooth
    function where it is defined), SymPy's `limit` otherwise."""
    v = sympy.sympify(expr).subs(x, t)
    if not v.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        return tidy(v)
    return tidy(sympy.limit(expr, x, t, side))


def is_coupled(op: Op) -> bool:
    """Whether elements of the forward depend on other elements (DimSum).  A loss reduction alone does not couple
    them: the loss is Σ_i G_i·f(x_i) with G_i the gradient of the loss w.r.t. element i's loss (g_i for none, g
    for sum, g/D for a mean), so its derivative w.r.t. x_j is G_j·f'(x_j), proven elementwise like any other op."""
    return sympy.sympify(op.forward).has(DimSum)


def _pieces(expr):
    expr = sympy.piecewise_fold(expr)
    if isinstance(expr, sympy.Piecewise):
        return [(e, c) for e, c in expr.args]
    return [(expr, sympy.true)]


class CaseProof:
    """Holds the symbols of one case; `run()` returns the table lines."""

    def __init__(self, case: Case):
        self.case, self.op = case, case.op
        op, v = self.op, case.variant
        self.formula = v.formula
        self.subs = dict(case.subs)
        if op.loss_reduction and op.param(op.loss_reduction).symbol is not None:   # (a string's mode: a variant)
            self.subs[op.param(op.loss_reduction).symbol] = sympy.Integer(case.reduction)
        for a in op.attrs:  # bool and int64 attributes fixed by the variant
            if a.name in v.key and a.type in ("bool", "int64"):
                self.subs[a.symbol] = fixed_value(a, v.key[a.name])
        for t in op.tensors:  # a null optional tensor is all `default`, in the forward as in the backward
            if v.key.get(t.name) == ABSENT:
                self.subs[t.symbol] = sympy.sympify(t.default)
        # |e|, sign(e), Min/Max and kinks of an e in x as Piecewise branches (L1's |x - t| is x - t where x >= t,
        # t - x elsewhere), innermost first, so that the proof cuts the line where each changes and decides each piece
        self.forward = piecewise_form(sympy.sympify(op.forward_of(self.formula)).subs(self.subs), op.wrt)
        self.backward = sympy.sympify(v.expr).subs(self.subs)
        self.masks = {t.symbol for t in op.bool_tensors}
        # each mask's complement 1 - m as a 0/1 symbol of its own (`not_<mask>`): written 1 - m, the expansion of
        # a row sum of (1 - m_k)·e_k splits it into Σe_k - Σm_k·e_k, and SymPy's simplify then spent more than 15
        # minutes recombining the pairs (ScaledMaskedSoftmaxBackward's general-length proof); kept whole, the sums
        # are the softmax's with a factor, proven as fast.  m + not_m = 1 is used where a residual needs it.
        self.unset = {m: sympy.Symbol(f"not_{m}", real=True) for m in sorted(self.masks, key=str)}
        if self.masks and is_coupled(op):
            self.forward = _select_arithmetic(self.forward, self.unset)
            self.backward = _select_arithmetic(self.backward, self.unset)
        self.x = op.wrt
        self.g = op.grad.symbol
        # what multiplies each element's local derivative: g, or g/D for a mean with the declared divisor D
        self.scale = self.g if case.reduction is None else op.reduction.gradient_scale(op, case.reduction, self.g)
        self.scale_text = "g" if self.scale == self.g else f"(g/{self.g / self.scale})"
        self.xs = op.x_symbol(self.formula)
        self.ys = op.y_symbol(self.formula)
        self.label = case.label
        self.matched = set()   # (formula index, declared relation) that named a branch point of this case
        # (per formula: a kink of one formula does not match a value another formula declares at the same point)
        # (Formula compares by identity, and a bare-expression backward makes a new one per call: `when` names it)
        self.formula_index = next((i for i, f in enumerate(op.formulas)
                                   if f is self.formula or f.when == self.formula.when), None)

    def line(self, check, verdict, detail="", point=None):
        return Result(self.op.name, self.label, check, verdict, detail, point or {})

    # ---- elementwise -------------------------------------------------------------------------------------
    def elementwise(self):
        x, g = self.x, self.g
        bwd = self.backward
        in_y = self.ys is not None and self.ys in bwd.free_symbols
        if self.xs is not None and self.xs != x:
            bwd = bwd.subs(self.xs, x)
        u = self.ys if in_y else x
        fp = _pieces(piecewise_form(self.forward, x))
        bp = _pieces(piecewise_form(bwd, u))
        try:
            ftrees = [atoms(c, x) for _, c in fp]
            btrees = [atoms(c, u) for _, c in bp]
            pts = [c for t in ftrees for c in thresholds(t)]
            if in_y:
                for c in [c for t in btrees for c in thresholds(t)]:
                    for fe, _ in fp:
                        eq = sympy.simplify(fe - c)
                        if eq == 0 or x not in eq.free_symbols:
                            continue
                        pts += [s for s in sympy.solve(eq, x) if s.is_real is not False]
            else:
                pts += [c for t in btrees for c in thresholds(t)]
            pts = sort_points(pts + live_domain_edges(fp, ftrees, x))
        except (Undecided, NotImplementedError) as e:
            return [self.line("branch points", "FAILED", str(e))]
        # the forward's domain is the variable's: a `positive=True` x (sqrt, SqrtGrad) is proven on (0, oo)
        zero = sympy.Integer(0)
        low = zero if x.is_nonnegative else -sympy.oo
        high = zero if x.is_nonpositive else sympy.oo
        pts = [p for p in pts if not ((low == 0 and sympy.sympify(p).is_nonpositive)
                                      or (high == 0 and sympy.sympify(p).is_nonnegative))]
        # a `nonzero=True` x (1/x, ReciprocalGrad) is proven on each side of 0; 0 is no point of the domain
        hole = x.is_zero is False and low != 0 and high != 0
        if hole:
            pts = sort_points([p for p in pts if not is_zero(sympy.sympify(p))] + [zero])
        edges = [low] + pts + [high]
        lines, sides = [], []
        for lo, hi in zip(edges, edges[1:]):
            where = f"{x} in ({self.case.shown(lo)}, {self.case.shown(hi)})"
            try:
                k = first_piece(ftrees, lambda t: truth_on(t, lo, hi))
                fk = fp[k][0]
                vjp = self.scale * sympy.diff(fk, x)
                if in_y:
                    ylo, yhi, const = self._image(fk, lo, hi)
                    if const is not None:
                        m = first_piece(btrees, lambda t: truth_at(t, const))
                    else:
                        m = first_piece(btrees, lambda t: truth_on(t, ylo, yhi))
                    bexpr = bp[m][0].subs(u, fk)
                else:
                    m = first_piece(btrees, lambda t: truth_on(t, lo, hi))
                    bexpr = bp[m][0]
            except (Undecided, NotImplementedError) as e:
                lines.append(self.line(where, "FAILED", str(e)))
                sides.append(None)
                continue
            if fk != sympy.nan and x in sympy.sympify(fk).free_symbols and not_real_on(fk, x, lo, hi):
                # acos(x) for |x| > 1, log1p(x) for x < -1, x*log(y) for y < 0: no real forward, no derivative to
                # prove; the kernels' value there is theirs (nan from sqrt or log, or a branch's convention).  (A
                # constant piece, LogitGrad's clamp log(eps) - log(1 - eps), keeps its proof: its derivative is 0)
                lines.append(self.line(where, "domain", f"outside the forward's real domain ({fk} is not a real "
                                                        f"number here); the backward gives {bexpr}"))
                sides.append(OUTSIDE)
                continue
            sides.append((fk, vjp))
            if fk == sympy.nan:   # the forward is undefined here (LogitGrad outside [0, 1] for eps < 0)
                verdict = "proven" if bexpr == sympy.nan else "FAILED"
                lines.append(self.line(where, verdict, f"the forward is nan here and the backward gives {bexpr}"))
                continue
            residual = _signed(vjp - bexpr, x, lo, hi)
            if is_zero(residual):
                lines.append(self.line(where, "proven", f"backward branch {m + 1} = {self.scale_text}*d/dx forward "
                                                            f"branch {k + 1}"))
            else:
                lines.append(self.line(where, "FAILED", f"residual {sympy.simplify(residual)}",
                                       self._counterexample(residual, lo, hi)))
        for i, t in enumerate(pts):
            if not (hole and is_zero(sympy.sympify(t))):
                lines.append(self._boundary(t, ftrees, fp, btrees, bp, u, in_y, sides[i], sides[i + 1]))
        return lines + self._declared_elsewhere(pts, ftrees, fp, btrees, bp, u, in_y)

    def _declared_elsewhere(self, pts, ftrees, fp, btrees, bp, u, in_y):
        """A line for each declared point (Op.at, Formula.at) that is no branch point of this case: the forward is
        differentiable there, so the declared value must be the derivative the backward gives, or the docs and the
        accuracy reference (which read the declared value) claim a value the kernel does not give.  A point that
        is a branch point for some parameter values of the case only (x = 1 against 1/alpha for alpha > 0) is
        undecided: a formula declared another formula's kink, or one seen at alpha = 1 only (codegen.fuzz, seed 7)."""
        x, out = self.x, []
        for point, declared, rel in self.op.declared(self.formula):
            p = tidy(sympy.sympify(point).subs(self.subs))
            if p.is_real is False or any(is_zero(p - t) for t in pts):
                continue
            where = f"{x} = {self.case.shown(p)} (declared)"
            try:
                k = first_piece(ftrees, lambda tr: truth_at(tr, p))
                if in_y:
                    yp = tidy(fp[k][0].subs(x, p))
                    value = tidy(bp[first_piece(btrees, lambda tr: truth_at(tr, yp))][0].subs(u, yp))
                else:
                    value = tidy(bp[first_piece(btrees, lambda tr: truth_at(tr, p))][0].subs(x, p))
            except Undecided as e:
                out.append(self.line(where, "FAILED", f"declared, but not a branch point of this case for every "
                                                      f"value of its scalars ({e})"))
                continue
            v = declared.subs(self.subs).subs({self.op.wrt: p} | ({self.xs: p} if self.xs is not None else {}))
            if same_value(v, value):
                out.append(self.line(where, "proven", f"no branch point here: the declared value is the "
                                                      f"derivative the backward gives, {value}"))
            else:
                out.append(self.line(where, "FAILED", f"the spec declares {v} here (at=), but the forward is "
                                                      f"differentiable here and the backward gives its derivative "
                                                      f"{value}"))
        return out

    def _image(self, fk, lo, hi):
        """Image of the open interval (lo, hi) under the forward branch fk: (ylo, yhi, None) or the constant."""
        x = self.x
        d = sympy.simplify(sympy.diff(fk, x))
        if d == 0:
            return None, None, sympy.simplify(fk)
        a = sympy.limit(fk, x, lo, "+") if lo != -sympy.oo else sympy.limit(fk, x, -sympy.oo)
        b = sympy.limit(fk, x, hi, "-") if hi != sympy.oo else sympy.limit(fk, x, sympy.oo)
        if d.is_positive:
            return a, b, None
        if d.is_negative:
            return b, a, None
        raise Undecided(f"cannot show the forward branch {fk} is monotone (derivative {d}); a forward defined on "
                        f"part of the line only says so on its variable: Symbol('{x}', positive=True), "
                        f"negative=True or nonzero=True (1/x)")

    def _declared_at(self, t):
        """The value the spec declares at x = t (Op.at / Formula.at) in this case, or None."""
        found = None
        for point, value, rel in self.op.declared(self.formula):
            p = sympy.sympify(point).subs(self.subs)
            if not is_zero(p - t):
                continue
            self.matched.add((self.formula_index, rel))
            v = value.subs(self.subs).subs({self.op.wrt: t} | ({self.xs: t} if self.xs is not None else {}))
            if found is not None and not same_value(found, v):
                raise Undecided(f"two declared values at {self.x} = {t}: {found} and {v}")
            found = v
        return found

    def _boundary(self, t, ftrees, fp, btrees, bp, u, in_y, left, right):
        """The backward at a branch point t.  Where the forward is differentiable it must give the derivative;
        where it is not (a jump, a kink), the spec must declare the value (`at=`) and the backward must give it."""
        x = self.x
        where = f"{x} = {self.case.shown(t)}"
        try:
            k = first_piece(ftrees, lambda tr: truth_at(tr, t))
            if in_y:
                yt = tidy(fp[k][0].subs(x, t))
                m = first_piece(btrees, lambda tr: truth_at(tr, yt))
                value = tidy(bp[m][0].subs(u, yt))
            else:
                m = first_piece(btrees, lambda tr: truth_at(tr, t))
                value = tidy(bp[m][0].subs(x, t))
            declared = self._declared_at(t)
        except Undecided as e:
            return self.line(where, "FAILED", str(e))
        if left is None or right is None:
            return self.line(where, "FAILED", "a neighbouring interval was not decided")
        if OUTSIDE in (left, right):   # an edge of the forward's real domain (log1p at -1, acos at ±1)
            inside = right if left is OUTSIDE else left
            lim = None if inside is OUTSIDE else _at(inside[1], x, t, "+" if left is OUTSIDE else "-")
            return self.line(where, "domain", f"an edge of the forward's real domain: the backward gives {value}"
                                              + ("" if lim is None else f" (the derivative's limit from inside: "
                                                                        f"{lim})"))
        lim_l, lim_r = _at(left[1], x, t, "-"), _at(right[1], x, t, "+")
        f_t = tidy(fp[k][0].subs(x, t))
        continuous = all(side is fp[k][0] or is_zero(_at(side, x, t, d) - f_t)
                         for side, d in ((left[0], "-"), (right[0], "+")))
        finite = all(e.is_finite is not False and not e.has(sympy.zoo, sympy.nan) for e in (lim_l, lim_r, f_t))
        differentiable = continuous and finite and is_zero(lim_l - lim_r)
        side = ("the left derivative" if is_zero(value - lim_l) else
                "the right derivative" if is_zero(value - lim_r) else "neither one-sided derivative")
        convention = f"backward gives {value} ({side}; left {lim_l}, right {lim_r})"
        if declared is not None:
            if same_value(value, declared):
                return self.line(where, "convention", convention)
            return self.line(where, "FAILED", f"the spec declares {declared} here (at=), but the {convention}"
                                              + _reduction_hint(value, declared, x))
        if differentiable:
            if is_zero(value - lim_l):
                return self.line(where, "proven", f"the forward is differentiable here: the backward gives its "
                                                  f"derivative {value}")
            return self.line(where, "FAILED", f"the forward is differentiable here with derivative {lim_l}, but the "
                                              f"backward gives {value}")
        why = "the forward jumps" if not continuous else "left and right derivatives differ"
        # (in the spec's own symbols: a case's substitution, alpha = 1 + alpha_t, written back; the hint said
        # Eq(self, tl + tr_minus_tl) for SReLU's kink at tr, a symbol no spec has)
        # (not simplified: simplify may write cosh, which a spec cannot name)
        back = (lambda e: sympy.sympify(e).xreplace(self.case.back)) if self.case.back else (lambda e: e)
        line = self.line(where, "FAILED",
                         f"the forward is not differentiable here ({why}: left {lim_l}, right {lim_r}) and the spec "
                         f"declares no value; the backward gives {value}: declare the kernel's value, e.g. "
                         f"at={{Eq({self.op.wrt}, {back(t)}): ...}}")
        line.undeclared = [str(back(t)), str(back(value))]
        return line

    def _counterexample(self, residual, lo, hi):
        """A point in (lo, hi) where the residual is visibly non-zero, for the failure report."""
        import random
        rng = random.Random(0)
        syms = sorted(residual.free_symbols, key=str)
        for _ in range(200):
            pt = {}
            for s in syms:
                if s == self.x:
                    a = -5.0 if lo == -sympy.oo else None
                    b = 5.0 if hi == sympy.oo else None
                    try:
                        a = float(lo.subs(pt)) if a is None else (float(hi.subs(pt)) - 5 if b is None else a)
                        b = float(hi.subs(pt)) if b is None else (a + 10 if lo != -sympy.oo else b)
                    except (TypeError, ValueError):
                        continue
                    pt[s] = rng.uniform(a, b)
                elif s.is_integer and s.is_positive:   # a count (numel_self): a count, 2 to 8
                    pt[s] = rng.randint(2, 8)
                elif s.is_positive:
                    pt[s] = rng.uniform(0.1, 3)
                elif s.is_negative:
                    pt[s] = -rng.uniform(0.1, 3)
                else:
                    pt[s] = rng.uniform(-3, 3)
            if self.x in syms and self.x not in pt:
                continue
            try:
                val = complex(residual.subs(pt).evalf(30))
            except (TypeError, ValueError):
                continue
            if abs(val) > 1e-12:
                return {str(k): round(float(v), 6) for k, v in pt.items()} | {"residual": f"{val.real:.6g}"}
        return {}

    # ---- coupled (DimSum / loss reduction) ---------------------------------------------------------------
    @staticmethod
    def _row_element(expr, rep, expand_sum):
        """Replace per-element symbols by `rep` outside DimSum, and each DimSum by `expand_sum(summand)`.

        DimSum nodes are swapped for placeholders first so the replacement never reaches into the summands
        (whose symbols are indexed by the summation index, not by this element's).
        """
        holders = {}

        def hold(a):
            d = sympy.Dummy("dimsum")
            holders[d] = a.args[0]
            return d
        e = expr.replace(lambda a: isinstance(a, DimSum), hold)
        e = e.xreplace(rep)
        return e.xreplace({d: expand_sum(summand) for d, summand in holders.items()})

    def coupled_general(self):
        n = sympy.Symbol("n", integer=True, positive=True)
        i, j, k, m = sympy.symbols("i j k m", integer=True, positive=True)
        bases = self._bases()

        def y_of(idx):
            return self._row_element(self.forward, {s: b[idx] for s, b in bases.items()},
                                     lambda e: sympy.Sum(e.xreplace({s: b[k] for s, b in bases.items()}),
                                                         (k, 1, n)))
        red = self.case.reduction
        gb = bases.get(self.g)
        if red in (None, 0):
            loss = sympy.Sum(gb[i] * y_of(i), (i, 1, n))
        else:
            loss = sympy.Sum(y_of(i), (i, 1, n)) * self.g / (n if red == 1 else 1)
        vjp = sympy.diff(loss, bases[self.x][j]).doit()
        bwd = self._backward_row(j, n, bases, y_of)
        residual = _canonical_sums(self._idempotent(vjp - bwd)).subs(n, j + m)  # any row with j in it: n = j + m
        residual = sympy.piecewise_fold(residual.doit())
        if isinstance(residual, sympy.Piecewise):
            residual = residual.args[0][0] if residual.args[0][1] == sympy.true else residual
        for _ in range(3):  # simplify moves factors out of sums; re-canonicalise their indices each time
            residual = _canonical_sums(sympy.simplify(residual))
        if is_zero(residual) or is_zero(self._complements(residual, bases)):
            return [self.line("VJP, general row length n", "proven", "residual 0 for every 1 <= j <= n")]
        return [self.line("VJP, general row length n", "FAILED", f"residual {residual}")]

    def coupled_explicit(self):
        bad = []
        bases = self._bases()
        lengths = EXPLICIT_LENGTHS if sympy.sympify(self.op.forward).has(DimSum) else EXPLICIT_LENGTHS_LOSS
        for n in lengths:
            xs = [sympy.Symbol(f"{self.x}_{i}", real=True) for i in range(n)]
            per = {s: [sympy.Symbol(f"{s}_{i}", real=True) for i in range(n)] for s in bases}
            per[self.x] = xs

            def row(expr, idx):
                return self._row_element(expr, {s: per[s][idx] for s in per},
                                         lambda e: sympy.Add(*[row(e, kk) for kk in range(n)]))

            ys = [row(self.forward, i) for i in range(n)]
            red = self.case.reduction
            if red in (None, 0):
                loss = sympy.Add(*[per[self.g][i] * ys[i] for i in range(n)])
            else:
                loss = sympy.Add(*ys) * self.g / (n if red == 1 else 1)
            for jj in range(n):
                vjp = sympy.diff(loss, xs[jj])
                b = self._backward_explicit(jj, n, per, ys, row)
                if not is_zero(self._idempotent(vjp - b)) and not is_zero(self._complements(vjp - b, per)):
                    r = sympy.simplify(vjp - b)
                    if _nan_where_undefined(r, ys):
                        continue
                    bad.append((n, jj, r))
                    break
            if bad:
                break
        label = f"VJP, rows of length {lengths[0]}..{lengths[-1]}"
        if bad:
            n, jj, r = bad[0]
            return [self.line(label, "FAILED", f"length {n}, element {jj}: residual {r}")]
        return [self.line(label, "proven", "residual 0 at every element")]

    def _complements(self, expr, rows):
        """`expr` with every mask complement written 1 - m (`rows`: {symbol: IndexedBase or list of symbols})."""
        for m, u in self.unset.items():
            if u not in rows or m not in rows:
                continue
            if isinstance(rows[u], list):
                expr = expr.xreplace({a: 1 - b for a, b in zip(rows[u], rows[m])})
            else:
                expr = expr.replace(lambda e, u=u: isinstance(e, sympy.Indexed) and e.base == rows[u],
                                    lambda e, m=m: 1 - rows[m][e.indices])
        return self._idempotent(expr)

    def _idempotent(self, expr):
        """`expr` with every power of a mask element (or of its complement) reduced to the element itself (m**k = m
        for m in {0, 1})."""
        if not self.masks:
            return expr
        names = {str(s) for s in self.masks} | {str(u) for u in self.unset.values()}

        def is_mask(b):
            base = b.base if isinstance(b, sympy.Indexed) else b
            return str(base) in names or (isinstance(b, sympy.Symbol) and b.name.rsplit("_", 1)[0] in names)
        expr = sympy.expand(expr)
        return expr.replace(lambda e: isinstance(e, sympy.Pow) and e.exp.is_Integer and e.exp > 0 and is_mask(e.base),
                            lambda e: e.base)

    def _bases(self):
        """IndexedBase for each per-element symbol of the row (x, grad, y and operands)."""
        op = self.op
        syms = [self.x] + [t.symbol for t in op.tensors if t.symbol is not None] + list(self.unset.values())
        bases = {}
        for s in syms:
            if s == self.g and self.case.reduction in (1, 2):
                continue  # the gradient of a reduced loss is one scalar
            bases[s] = sympy.IndexedBase(str(s), real=True)
        return bases

    def _backward_row(self, j, n, bases, y_of):
        """The backward at element j of an indexed row of length n (DimSum as a Sum, y as the forward)."""
        b = self.backward
        subs = {}
        for s in b.free_symbols:
            t = numel_param(s) if isinstance(s, sympy.Symbol) else None
            if t is not None:
                subs[s] = n
        b = b.subs(subs)
        if self.xs is not None and self.xs != self.x:
            b = b.xreplace({self.xs: self.x})
        k2 = sympy.Symbol("k2", integer=True, positive=True)

        def at(expr, idx):
            rep = {s: base[idx] for s, base in bases.items()}
            if self.ys is not None:
                rep[self.ys] = y_of(idx)
            return self._row_element(expr, rep, lambda e: sympy.Sum(at(e, k2), (k2, 1, n)))
        return at(b, j)

    def _backward_explicit(self, jj, n, per, ys, row):
        """The backward at element jj of an explicit row (DimSum as a finite sum, y as the forward)."""
        b = self.backward
        b = b.subs({s: n for s in b.free_symbols if numel_param(s) is not None})
        if self.xs is not None and self.xs != self.x:
            b = b.xreplace({self.xs: self.x})

        def at(expr, idx):
            rep = {s: per[s][idx] for s in per}
            if self.ys is not None:
                rep[self.ys] = ys[idx]
            return self._row_element(expr, rep, lambda e: sympy.Add(*[at(e, kk) for kk in range(n)]))
        return at(b, jj)

    def run(self):
        from codegen.spec.classes import has_rows
        if has_rows(self.op):   # a row along the class axis: codegen.verify.class_rows
            from .class_rows import prove_rows
            return prove_rows(self)
        cases = index_cases(self.op, self.forward, self.backward, self.x)
        if not cases:
            return self._run()
        # class-index ops (codegen.spec.classes): each consistent truth of the index relations (c = t,
        # t = ignoreIndex) is a case of its own, proven with the relations replaced by their truth
        forward, backward, lines = self.forward, self.backward, []
        for truth, text in cases:
            self.forward, self.backward = _decide(forward, truth), _decide(backward, truth)
            lines += [dataclasses.replace(r, check=f"{text}: {r.check}") for r in self._run()]
        self.forward, self.backward = forward, backward
        return lines

    def _run(self):
        if is_coupled(self.op):
            if self.forward.has(sympy.Piecewise) or self.backward.has(sympy.Piecewise):
                kinked = [f.__name__ for f in (sympy.Abs, sympy.sign, sympy.Min, sympy.Max, sympy.Heaviside)
                          if sympy.sympify(self.op.forward_of(self.formula)).has(f)
                          or sympy.sympify(self.formula.expr).has(f)]
                via = f" ({', '.join(kinked)} in the formulas: read as Piecewise)" if kinked else " (Piecewise)"
                return [self.line("VJP", "FAILED", f"branches{via} in a row op (DimSum) are not supported: the row "
                                                   "proof has none but a BOOL mask's")]
            if self.op.declared(self.formula):
                return [self.line("at", "FAILED", "declared values (at=) need an elementwise op: a coupled op "
                                                  "(DimSum, loss reduction) has no branch points")]
            return self.coupled_general() + self.coupled_explicit()
        if self._branches_on_operands():
            return self.operand_branches()
        return self.elementwise()

    # ---- branches decided by other operands ------------------------------------------------------------------
    def _backward_in_x(self):
        bwd = self.backward
        return bwd.subs(self.xs, self.x) if self.xs is not None and self.xs != self.x else bwd

    def _branches_on_operands(self) -> bool:
        """Every branch condition of the forward and the backward is free of x (PReLU's weight gradient: x > 0
        decides the branch, the weight w is differentiated), and there is one."""
        if self.ys is not None:
            return False
        conds = [c for e in (self.forward, self._backward_in_x()) for pw in e.atoms(sympy.Piecewise)
                 for _, c in pw.args]
        return bool(conds) and all(self.x not in sympy.sympify(c).free_symbols for c in conds)

    def operand_branches(self):
        """Within a branch decided by other operands the conditions are constants of x, so d/dx is taken branch by
        branch (SymPy differentiates a Piecewise so when its conditions are free of x); the residual, folded into
        one Piecewise over the forward's and the backward's conditions, must vanish in each branch."""
        x = self.x
        residual = sympy.piecewise_fold(self.scale * sympy.diff(self.forward, x) - self._backward_in_x())
        lines, before = [], sympy.false
        for e, c in _pieces(residual):
            where = sympy.And(c, sympy.Not(before)) if before != sympy.false else c
            before = sympy.Or(before, c)
            label = f"where {self.case.shown(where)}" if where != sympy.true else "all inputs"
            if is_zero(e):
                lines.append(self.line(label, "proven", f"backward = {self.scale_text}*d/d{x} forward (the branch "
                                                        f"conditions are free of {x})"))
            else:
                lines.append(self.line(label, "FAILED", f"residual {sympy.simplify(e)}"))
        return lines


def _index_atoms(op, exprs, x) -> list:
    """The index relations of a class-index op: Eq/Ne between its integer index symbols (CLASS, the target,
    int64 attributes), free of x, each as the Eq it negates or is (sorted, for a fixed order of the cases)."""
    from codegen.spec.classes import index_symbols
    if op.classes is None:
        return []
    syms = index_symbols(op)
    found = set()
    for e in exprs:
        for a in sympy.sympify(e).atoms(sympy.Eq, sympy.Ne):
            if x not in a.free_symbols and a.free_symbols and a.free_symbols <= syms:
                found.add(sympy.Eq(a.lhs, a.rhs))
    return sorted(found, key=str)


def _consistent(truth: dict) -> bool:
    """Whether equalities and disequalities between symbols can hold together (equal classes, no class
    disequal to itself)."""
    parent = {}

    def root(s):
        while parent.get(s, s) != s:
            s = parent[s]
        return s
    for rel, v in truth.items():
        if v:
            parent[root(rel.lhs)] = root(rel.rhs)
    return all(v or root(rel.lhs) != root(rel.rhs) for rel, v in truth.items())


def index_cases(op, forward, backward, x) -> list:
    """[(truth {Eq: bool}, label)] for every consistent truth of the index relations; [] without any."""
    import itertools
    rels = _index_atoms(op, [forward, backward], x)
    if not rels:
        return []
    out = []
    for values in itertools.product([True, False], repeat=len(rels)):
        truth = dict(zip(rels, values))
        if _consistent(truth):
            out.append((truth, ", ".join(f"{r.lhs} {'==' if v else '!='} {r.rhs}" for r, v in truth.items())))
    return out


def _decide(expr, truth: dict):
    """`expr` with each index relation replaced by its truth (Ne by the negation), Piecewise folded."""
    subs = {}
    for rel, v in truth.items():
        for r in (rel, sympy.Eq(rel.rhs, rel.lhs)):
            subs[r] = sympy.true if v else sympy.false
            subs[sympy.Ne(r.lhs, r.rhs)] = sympy.false if v else sympy.true
    return sympy.piecewise_fold(sympy.sympify(expr).xreplace(subs))


def _select_arithmetic(expr, unset):
    """Piecewise branches chosen by mask symbols (m, ~m, and conjunctions of those) as 0/1 arithmetic:
    Piecewise((a, m), (b, True)) -> m*a + not_m*b, `unset` {m: not_m} naming each mask's complement.  Other
    conditions are left alone (the caller refuses them)."""
    masks = set(unset)
    back = {u: m for m, u in unset.items()}

    def complement(i):
        if i in unset:
            return unset[i]
        if i in back:
            return back[i]
        return 1 - i

    def indicator(c):
        if c == sympy.true:
            return sympy.Integer(1)
        if c in masks:
            return c
        if isinstance(c, sympy.Not) and c.args[0] in masks:
            return unset[c.args[0]]
        if isinstance(c, sympy.And):
            parts = [indicator(a) for a in c.args]
            return None if any(p is None for p in parts) else sympy.Mul(*parts)
        return None

    def fold(pw):
        args = [(e, indicator(c)) for e, c in pw.args]
        if any(i is None for _, i in args):
            return pw
        out = sympy.Integer(0)
        for e, i in reversed(args):
            out = i * e + complement(i) * out
        return out
    return expr.replace(lambda e: isinstance(e, sympy.Piecewise), fold)


def _canonical_sums(expr):
    """Name every summation index after its sum's body, so sums equal up to their index name compare equal."""
    if isinstance(expr, sympy.Sum) and len(expr.limits) == 1:
        (v, lo, hi), = expr.limits
        body = _canonical_sums(expr.function)
        hole = sympy.Symbol("_bound", integer=True, positive=True)
        name = "i" + hashlib.sha1(sympy.srepr(body.xreplace({v: hole})).encode()).hexdigest()[:4]
        new = sympy.Symbol(name, integer=True, positive=True)
        return sympy.Sum(body.xreplace({v: new}), (new, lo, hi))
    if not expr.args:
        return expr
    return expr.func(*[_canonical_sums(a) for a in expr.args])


def prove(case: Case, matched: set | None = None) -> list[Result]:
    """The proof lines of one case; `matched` collects the declared relations (Op.at) that named a branch point."""
    proof = CaseProof(case)
    lines = proof.run()
    if matched is not None:
        matched |= proof.matched
    return lines


def unmatched(op, matched: set) -> list[Result]:
    """A failure for every declared value (Op.at, Formula.at) that named no branch point in any case: a point
    where nothing switches is a typo, or a value the kernel never gives."""
    out = []
    formulas = op.formulas
    for i, f in enumerate(formulas):
        for _, _, rel in op.declared(f):
            if (i, rel) not in matched and not any(r.check == f"at {rel}" for r in out):
                whose = f" of backward formula {i + 1}" if len(formulas) > 1 else ""
                out.append(Result(op.name, "all cases", f"at {rel}", "FAILED",
                                  f"declared, but no case of the proof{whose} has a branch point there"))
    return out
