"""What a proof is about: one backward form, one setting of the attributes, and the assumptions that hold there.

A `Case` fixes a kernel variant (bool attributes, optional tensors present or absent), a loss reduction (none,
mean, sum) when the op has one, and the sign of every scalar a rule or `Formula.assume` constrains.  A scalar
known to be >= 0 is proven twice, > 0 and == 0, because degenerate values move branch points (λ = 0 makes
Softshrink's dead zone vanish; α = 0 makes ELU's negative branch constant).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import sympy

from codegen.spec import Op, Variant
from codegen.spec.rules import Requires


@dataclass
class Case:
    op: Op
    variant: Variant
    reduction: int | None             # loss reduction value, or None
    subs: dict                        # original symbol -> symbol with assumptions, or a value (0)
    assumptions: list = field(default_factory=list)  # human-readable, e.g. "lambda > 0"
    back: dict = field(default_factory=dict)          # symbols a substitution introduced -> what they stand for

    def shown(self, expr):
        """`expr` with the gaps of ordered scalars written back (max_minus_min + min is shown as max)."""
        return sympy.sympify(expr).xreplace(self.back) if self.back else expr

    @property
    def label(self) -> str:
        parts = [f"{k}={str(v).lower()}" for k, v in self.variant.key.items()]
        if self.reduction is not None:
            red = self.op.param(self.op.loss_reduction)
            parts.append(f"{red.name}={self.reduction} ({red.values.get(self.reduction, '')})".replace(" ()", ""))
        parts += self.assumptions
        return ", ".join(parts) or "all inputs"


def _bound_of(rel, sym):
    """(op, c) when `rel` bounds the scalar `sym` by a number c, read as `sym op c`; else None."""
    if not isinstance(rel, sympy.core.relational.Relational) or rel.rel_op not in (">", ">=", "<", "<=", "!="):
        return None
    flip = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "!=": "!="}
    if rel.lhs == sym and rel.rhs.is_number:
        return rel.rel_op, rel.rhs
    if rel.rhs == sym and rel.lhs.is_number:
        return flip[rel.rel_op], rel.lhs
    return None


def _order_of(rel, syms):
    """(low, high, strict) when `rel` orders two scalars (`min <= max`, `a < b`, either way round); else None."""
    if not isinstance(rel, sympy.core.relational.Relational) or rel.rel_op not in (">", ">=", "<", "<="):
        return None
    if rel.lhs not in syms or rel.rhs not in syms:
        return None
    if rel.rel_op in ("<", "<="):
        return rel.lhs, rel.rhs, rel.rel_op == "<"
    return rel.rhs, rel.lhs, rel.rel_op == ">"


def _bound_options(sym, bounds):
    """The cases of one scalar bounded by numbers: [(value, label)].  A bound `>= c` gives `> c` and `= c`
    (a degenerate value moves branch points: λ = 0 makes Softshrink's dead zone vanish); between two bounds the
    open interval is parametrised by a positive symbol, so SymPy can order everything that depends on it."""
    lo = hi = None
    name = sym.name
    if all(op == "!=" for op, _ in bounds) and len({c for _, c in bounds}) == 1:   # s != c: below and above
        c = bounds[0][1]
        return [(sympy.Symbol(name, real=True, negative=True) if c == 0 else c - sympy.Symbol(f"{name}_t", positive=True),
                 f"{name} < {c}"),
                (sympy.Symbol(name, real=True, positive=True) if c == 0 else c + sympy.Symbol(f"{name}_t", positive=True),
                 f"{name} > {c}")]
    bounds = [(op, c) for op, c in bounds if op != "!="]
    for op, c in bounds:
        if op in (">", ">="):
            lo = (c, op == ">") if lo is None or c > lo[0] else lo
        else:
            hi = (c, op == "<") if hi is None or c < hi[0] else hi
    name = sym.name
    out = []
    if lo is not None and hi is not None:
        (a, sa), (b, sb) = lo, hi
        t = sympy.Symbol(f"{name}_t", positive=True)
        out.append((a + (b - a) * t / (1 + t), f"{a} < {name} < {b}"))
        if not sa:
            out.append((a, f"{name} = {a}"))
        if not sb:
            out.append((b, f"{name} = {b}"))
    elif lo is not None:
        a, strict = lo
        out.append((sympy.Symbol(name, real=True, positive=True) if a == 0 else a + sympy.Symbol(f"{name}_t", positive=True),
                    f"{name} > {a}"))
        if not strict:
            out.append((sympy.Integer(0) if a == 0 else a, f"{name} = {a}"))
    else:
        b, strict = hi
        out.append((sympy.Symbol(name, real=True, negative=True) if b == 0 else b - sympy.Symbol(f"{name}_t", positive=True),
                    f"{name} < {b}"))
        if not strict:
            out.append((sympy.Integer(0) if b == 0 else b, f"{name} = {b}"))
    return out


def assumptions_for(op: Op, variant: Variant) -> list:
    """The scalar relations known in a variant: Requires rules that apply to it, and the formula's `assume`."""
    known = {a.symbol: sympy.true if variant.key[a.name] else sympy.false
             for a in op.attrs if a.name in variant.key and a.type == "bool"}
    rels = []
    for r in op.rules:
        if isinstance(r, Requires):
            when = r.when.subs(known) if known else r.when
            if when == sympy.true:
                rels.append(r.condition)
    rels.extend(variant.formula.assume)
    return rels


def cases(op: Op) -> list[Case]:
    """Every case of `op`: each variant, each loss reduction, and for the scalars its rules and forms constrain,
    each way they can stand: a scalar bounded by a number (`lambda >= 0`) above it and at it; two scalars in
    order (Hardtanh's `min <= max`) apart and equal — the larger written as the smaller plus a positive symbol,
    so that the proof can order branch points that are parameters."""
    out = []
    reals = [p.symbol for p in op.reals] + [p.symbol for p in op.attrs if p.is_number]
    for variant in op.variants:
        rels = assumptions_for(op, variant)
        bounds, orders = {}, []
        for rel in rels:
            for sym in reals:
                b = _bound_of(rel, sym)
                if b:
                    bounds.setdefault(sym, []).append(b)
            o = _order_of(rel, reals)
            if o:
                orders.append(o)
        options = [[(sym, value, label) for value, label in _bound_options(sym, bs)] for sym, bs in bounds.items()]
        for low, high, strict in orders:
            choice = [(high, ("above", low, _gap(high, low)), f"{low} < {high}")]
            if not strict:
                choice.append((high, ("equal", low, None), f"{low} = {high}"))
            options.append(choice)
        bare, inner = _branch_point_scalars(op, variant, reals)
        # a scalar inside a branch point (Max(lambd, 0), beta*x > threshold), with no bound from the rules: its
        # sign decides where the point lies, so each sign is a case
        for sym in inner:
            if sym not in bounds and not any(sym in (lo, hi) for lo, hi, _ in orders):
                options.append([(sym, sympy.Symbol(sym.name, real=True, positive=True), f"{sym} > 0"),
                                (sym, sympy.Integer(0), f"{sym} = 0"),
                                (sym, sympy.Symbol(sym.name, real=True, negative=True), f"{sym} < 0")])
        # two scalars that are both branch points, in no order the rules fix: every order is a case
        ordered = {frozenset((lo, hi)) for lo, hi, _ in orders}
        pairs = [(a, b) for i, a in enumerate(bare) for b in bare[i + 1:]]
        for a, b in pairs:
            if frozenset((a, b)) not in ordered:
                options.append([(b, ("above", a, _gap(b, a)), f"{a} < {b}"), (b, ("equal", a, None), f"{a} = {b}"),
                                (a, ("above", b, _gap(a, b)), f"{b} < {a}")])
        reductions = [None]
        if op.loss_reduction:
            reductions = sorted(op.param(op.loss_reduction).values)
        for combo in itertools.product(*options):
            subs, labels, back = {}, [], {}
            for sym, value, label in combo:
                if isinstance(value, tuple):       # an order: the larger scalar in terms of the smaller
                    kind, low, t = value
                    base = subs.get(low, low)
                    subs[sym] = base + t if kind == "above" else base
                    if kind == "above":
                        back[t] = sym - low
                else:
                    subs[sym] = value
                labels.append(label)
            for red in reductions:
                out.append(Case(op, variant, red, subs, labels, back))
    return out


def _gap(high, low):
    return sympy.Symbol(f"{high.name}_minus_{low.name}", positive=True)


def _branch_point_scalars(op: Op, variant: Variant, reals) -> tuple[list, list]:
    """(scalars that are branch points themselves — `x > min`, `x >= max`: the proof cuts the line at each, so it
    needs their order; scalars inside a branch point or its condition's coefficient — `Abs(x) > Max(lambd, 0)`,
    `beta*x > threshold`: it needs their sign), over the forward's and the x-form backward's conditions."""
    from .intervals import Undecided, atoms, thresholds
    found, inner = [], []
    exprs = [(sympy.sympify(op.forward), op.wrt)]
    x_sym = op.x_symbol(variant.formula)
    if x_sym is not None:
        exprs.append((sympy.sympify(variant.expr), x_sym))
    for expr, u in exprs:
        for pw in expr.atoms(sympy.Piecewise):
            for _, cond in pw.args:
                for rel in sympy.sympify(cond).atoms(sympy.core.relational.Relational):
                    if u not in rel.free_symbols:
                        continue
                    coeff = sympy.diff(rel.lhs - rel.rhs, u) if not rel.has(sympy.Abs) else sympy.Integer(1)
                    for s in sorted(coeff.free_symbols & set(reals), key=str):
                        if s not in inner:
                            inner.append(s)
                    try:
                        points = thresholds(atoms(rel, u))
                    except (Undecided, NotImplementedError):
                        continue
                    for c in points:
                        if c in reals:
                            if c not in found:
                                found.append(c)
                            continue
                        for s in sorted(sympy.sympify(c).free_symbols & set(reals), key=str):
                            if s not in inner and not (c == -s):
                                inner.append(s)
    return found, [s for s in inner if s not in found]


def sample_scalars(case: Case, draw) -> dict:
    """{symbol: value} of every real scalar of the op (aclScalars, double and float attributes), consistent with
    the case: `draw(kind)` gives a number for kind "positive", "negative" or "any"; each symbol a substitution
    introduces is drawn once and the substitutions are evaluated on the draws (SymPy numbers)."""
    free = {}
    for value in case.subs.values():
        for s in sorted(sympy.sympify(value).free_symbols, key=str):
            if s not in free:
                free[s] = sympy.Float(draw("positive" if s.is_positive else "negative" if s.is_negative else "any"), 30)
    out = {}
    for p in case.op.reals:
        sub = case.subs.get(p.symbol)
        out[p.symbol] = sympy.sympify(sub).xreplace(free) if sub is not None else sympy.Float(draw("any"), 30)
    return out
