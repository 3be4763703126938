"""What a proof is about: one backward form, one setting of the attributes, and the assumptions that hold there.

A `Case` fixes a kernel variant (bool and string attributes, optional tensors present or absent), a loss
reduction (none, mean, sum) when the op has one, and where each scalar stands that moves a branch point: on each
side of and at its critical values, within what the rules and `Formula.assume` admit (a scalar known to be >= 0
is proven > 0 and == 0: λ = 0 makes Softshrink's dead zone vanish, α = 0 makes ELU's negative branch constant),
and two scalars that are both branch points in each order (Hardtanh's min and max).  `sample_scalars` draws
values inside a case, for the numeric check, the accuracy inputs and the tests.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import sympy

from codegen.spec import Op, Variant
from codegen.spec.op import fixed_value
from codegen.spec.params import OPERAND
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
        """`expr` with the symbols a substitution introduced written back (max_minus_min + min is shown as max,
        eps_t/(2*(eps_t + 1)) as eps)."""
        if not self.back:
            return expr
        e = sympy.sympify(expr).xreplace(self.back)
        return sympy.simplify(e) if e.free_symbols else e

    @property
    def label(self) -> str:
        parts = [f"{k}={str(v).lower()}" for k, v in self.variant.key.items()]
        if self.reduction is not None and self.op.loss_reduction not in self.variant.key:   # (else named above)
            red = self.op.param(self.op.loss_reduction)
            parts.append(f"{red.name}={self.reduction} ({red.values.get(self.reduction, '')})".replace(" ()", ""))
        parts += self.assumptions
        return ", ".join(parts) or "all inputs"


def _bound_of(rel, sym, eq: bool = False):
    """(op, c) when `rel` bounds the scalar `sym` by a number c, read as `sym op c` (an Or of such bounds, Eq among
    them: ("or", ((op, c), ...))); else None."""
    flip = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "!=": "!=", "==": "=="}
    if isinstance(rel, sympy.Or):   # alternatives (SwigluGroupQuantGrad's Eq(c, -1) | (c > 0)): ("or", each's)
        alts = [_bound_of(a, sym, eq=True) for a in rel.args]
        return ("or", tuple(alts)) if all(alts) else None
    if isinstance(rel, sympy.Eq) and eq:
        rel_op = "=="
    elif not isinstance(rel, sympy.core.relational.Relational) or rel.rel_op not in (">", ">=", "<", "<=", "!="):
        return None
    else:
        rel_op = rel.rel_op
    if rel.lhs == sym and rel.rhs.is_number:
        return rel_op, rel.rhs
    if rel.rhs == sym and rel.lhs.is_number:
        return flip[rel_op], rel.lhs
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


def _holds(rel_op, value, c) -> bool:
    if rel_op == "or":   # c: the alternatives' (op, c)
        return any(_holds(o, value, b) for o, b in c)
    if rel_op == "==":
        return value == c
    return {">": value > c, ">=": value >= c, "<": value < c, "<=": value <= c, "!=": value != c}[rel_op]


def _regions(sym, critical, bounds):
    """The cases of one scalar: [(value, label)] for every open interval between its critical values and every
    critical value itself, those the rules' bounds admit (`lambda >= 0` admits `lambda > 0` and `lambda = 0`).  A
    degenerate value moves branch points (λ = 0 makes Softshrink's dead zone vanish), so each is a case; an
    interval between two values is parametrised by a positive symbol (a + (b - a) t/(1 + t)), so that SymPy can
    order everything that depends on it.  Open intervals first, then the points, each in increasing order."""
    consts = [c for o, b in bounds for c in ([b] if o != "or" else [cc for _, cc in b])]
    values = {sympy.nsimplify(c) for c in list(critical) + consts}
    if len(values) == 1 and not next(iter(values)).is_number and not bounds:
        # one symbolic critical value (`Ne(target, ignoreIndex)`: an operand against a scalar): below, above, at it
        c = next(iter(values))
        t = sympy.Symbol(f"{sym.name}_t", positive=True)
        return [(c - t, f"{sym.name} < {c}", {t: c - sym}), (c + t, f"{sym.name} > {c}", {t: sym - c}),
                (c, f"{sym.name} = {c}", {})]
    cs = sorted(values, key=float)
    if not cs:
        return []
    name = sym.name
    t = sympy.Symbol(f"{name}_t", positive=True)
    opens, points = [], []
    edges = [None] + cs + [None]
    for a, b in zip(edges, edges[1:]):
        if a is None:
            value = sympy.Symbol(name, real=True, negative=True) if b == 0 else b - t
            probe, label, back = b - 1, f"{name} < {b}", b - sym
        elif b is None:
            value = sympy.Symbol(name, real=True, positive=True) if a == 0 else a + t
            probe, label, back = a + 1, f"{name} > {a}", sym - a
        else:
            value, probe, label = a + (b - a) * t / (1 + t), (a + b) / 2, f"{a} < {name} < {b}"
            back = (sym - a) / (b - sym)
        if all(_holds(op, probe, c) for op, c in bounds):
            opens.append((value, label, {t: back} if value.has(t) else {}))
    for c in cs:
        if all(_holds(op, c, b) for op, b in bounds):
            points.append((sympy.Integer(0) if c == 0 else c, f"{name} = {c}", {}))
    return opens + points


def assumptions_for(op: Op, variant: Variant) -> list:
    """The scalar relations known in a variant: Requires rules that apply to it, and the formula's `assume`."""
    known = {a.symbol: fixed_value(a, variant.key[a.name])
             for a in op.attrs if a.name in variant.key and a.type in ("bool", "int64")}
    rels = []
    for r in op.rules:
        if isinstance(r, Requires):
            when = r.when.subs(known) if known else r.when
            if when == sympy.true:
                rels.append(r.condition)
    rels.extend(variant.formula.assume)
    return rels


def cases(op: Op) -> list[Case]:
    """Every case of `op`: each variant, each loss reduction, and each way its scalars can stand where that moves
    a branch point: a scalar on each side of, and at, each of its critical values (`_branch_points`) that its
    rules admit (`lambda >= 0`: above 0 and at 0); two scalars that are both branch points in each order the rules
    admit (Hardtanh's min and max: min < max, min = max, max < min; with a `min <= max` rule the last would go) --
    the larger written as the smaller plus a positive symbol, so that the proof can order the branch points."""
    out = []
    # (the loss reduction's attribute is fixed per case, never a scalar whose sign makes cases)
    reals = list(dict.fromkeys([p.symbol for p in op.reals] + [p.symbol for p in op.attrs
                                                                if p.is_number and p.name != op.loss_reduction]))
    every_real = reals
    for variant in op.variants:
        # an int64 attribute the variant fixes (GeGlu's approximate) is that value, never a case of its own
        fixed = {a.symbol: fixed_value(a, variant.key[a.name]) for a in op.attrs
                 if a.type == "int64" and a.name in variant.key}
        reals = [s for s in every_real if s not in fixed]
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
        bare, critical = _branch_points(op, variant, reals)
        ordered_syms = {s for lo, hi, _ in orders for s in (lo, hi)}
        if len(bare) > 1:
            ordered_syms |= set(bare)
        options = []
        for sym in reals:
            if sym in ordered_syms:
                continue
            regions = _regions(sym, critical.get(sym, ()), bounds.get(sym, []))
            if regions:
                options.append([(sym, (value, back), label) for value, label, back in regions])
        # an operand element multiplying x in a condition (HingeLossGrad's target*predict < 1): its sign decides
        # the direction of the branch, so each sign is a case, as for a scalar with the critical value 0
        # an operand element in a condition without x (HingeEmbeddingLoss's `Ne(target, 1)`: the target selects
        # the form): each side of and each of its critical values is a case, as for a scalar
        selected = _operand_selections(op, variant)
        for sym in dict.fromkeys(_operand_signs(op, variant) + list(selected)):
            critical_t = selected.get(sym, set()) | ({0} if sym in _operand_signs(op, variant) else set())
            options.append([(sym, (value, back), label) for value, label, back in _regions(sym, critical_t, [])])
        for low, high, strict in orders:
            choice = [(high, ("above", low, _gap(high, low)), f"{low} < {high}")]
            if not strict:
                choice.append((high, ("equal", low, None), f"{low} = {high}"))
            options.append(choice)
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
            if op.loss_reduction in variant.key:   # a string reduction choosing the form: that form's mode only
                reductions = [variant.key[op.loss_reduction]]
        for combo in itertools.product(*options):
            subs, labels, back = dict(fixed), [], {}
            for sym, value, label in combo:
                if len(value) == 3:                # an order: the larger scalar in terms of the smaller
                    kind, low, t = value
                    base = subs.get(low, low)
                    subs[sym] = base + t if kind == "above" else base
                    if kind == "above":
                        back[t] = sym - low
                else:
                    subs[sym], shown = value
                    back.update(shown)
                labels.append(label)
            for red in reductions:
                out.append(Case(op, variant, red, subs, labels, back))
    return out


def _gap(high, low):
    return sympy.Symbol(f"{high.name}_minus_{low.name}", positive=True)


def _forward_exprs(op: Op, variant: Variant) -> list:
    """(expression, variable) pairs whose branch points split the scalars: the variant's forward in the op's variable
    and its backward in x where the op has one, with the variant's bool and int64 attributes fixed, as the proof
    reads them (proof.Proof): the branch points of the forms other variants select split no scalar here (a fuzz
    batch spec's 8 formulas, one per flag combination: each formula's case split had every other formula's points,
    15 cases for 3; fuzz seed 3333)."""
    known = {a.symbol: fixed_value(a, variant.key[a.name])
             for a in op.attrs if a.name in variant.key and a.type in ("bool", "int64")}
    exprs = [(sympy.sympify(op.forward_of(variant.formula)).subs(known), op.wrt)]
    x_sym = op.x_symbol(variant.formula)
    if x_sym is not None:
        exprs.append((sympy.sympify(variant.expr).subs(known), x_sym))
    return exprs


def _operand_signs(op: Op, variant: Variant) -> list:
    """The operand tensors (element symbols) of unknown sign that multiply x in a branch condition of the forward
    or the x-form backward (`target*predict < 1`): the branch point 1/target lies on one side or the other, or
    the condition does not depend on x at all (target = 0), so the proof needs target > 0, < 0 and = 0."""
    operands = {t.symbol for t in op.tensors if t.role == OPERAND and t.symbol is not None
                and t.symbol.is_positive is None and t.symbol.is_negative is None and t.symbol.is_zero is None}
    if not operands or op.classes is not None:
        return []
    found = []
    exprs = _forward_exprs(op, variant)
    from .intervals import piecewise_form
    for expr, u in exprs:
        for pw in piecewise_form(expr, u).atoms(sympy.Piecewise):
            for _, cond in pw.args:
                for rel in sympy.sympify(cond).atoms(sympy.core.relational.Relational):
                    if u in rel.free_symbols:
                        # (|t*x| > 1 is t*x > 1 or -t*x > 1: the coefficient inside the Abs, not sign(t*x)*t)
                        e = (rel.lhs - rel.rhs).replace(sympy.Abs, lambda a: a)
                        for s in sorted(sympy.diff(e, u).free_symbols & operands, key=str):
                            if s not in found:
                                found.append(s)
    return found


def _operand_selections(op: Op, variant: Variant) -> dict:
    """{operand element symbol: its critical values} for the operands in a branch condition of the forward or the
    x-form backward that does not depend on x (`Ne(target, 1)`, `target > 0`): the condition is decided per
    element by the operand alone, so the proof needs each side of and each root of it as a case of its own."""
    operands = {t.symbol for t in op.tensors if t.role == OPERAND and t.symbol is not None}
    if not operands or op.classes is not None:
        return {}
    found = {}
    exprs = _forward_exprs(op, variant)
    # an operand against one scalar (`Ne(target, ignoreIndex)`): the scalar is its critical value
    scalars = {p.symbol for p in op.reals} | {a.symbol for a in op.attrs if a.is_number and a.symbol is not None
                                              and a.name != op.loss_reduction}
    from .intervals import piecewise_form
    # (x's own conditions also hide in a Max, Min or Abs: BCE's max(x, 0) beside a `Ne(target, ignore)` form)
    conds = [(sympy.sympify(c), u) for expr, u in exprs for pw in piecewise_form(expr, u).atoms(sympy.Piecewise)
             for _, c in pw.args]
    if all(u not in c.free_symbols for c, u in conds):
        return {}   # every condition free of x: proven branch by branch as it stands (PReLU's weight gradient)
    for expr, u in exprs:
        for pw in expr.atoms(sympy.Piecewise):
            for _, cond in pw.args:
                for rel in sympy.sympify(cond).atoms(sympy.core.relational.Relational):
                    fs = rel.free_symbols
                    if u in fs or len(fs & operands) != 1 or not (fs - operands) <= scalars:
                        continue
                    s = next(iter(fs & operands))
                    try:
                        sols = sympy.solve(rel.lhs - rel.rhs, s)
                    except (NotImplementedError, ValueError, TypeError):
                        continue
                    found.setdefault(s, set()).update(v for v in sols if v.is_real and (v.is_number or (
                        v.free_symbols <= scalars)))
    return {s: v for s, v in found.items() if v}


def _branch_points(op: Op, variant: Variant, reals) -> tuple[list, dict]:
    """Over the forward's and the x-form backward's conditions: (the scalars that are branch points themselves --
    `x > min`, `x >= max`: the proof cuts the line at each, so it needs their order --, {scalar: its critical
    values}: where a branch point that depends on one scalar meets another branch point (LogitGrad's eps and
    1 - eps at eps = 1/2), where a condition on the scalar alone switches (`eps >= 0`), where the arguments of a
    Max or Min in a branch point are equal (Hardshrink's Max(lambd, 0) at 0), and 0 for a scalar that
    multiplies x (`beta*x > threshold`: its sign decides the direction)."""
    from .intervals import Undecided, atoms, thresholds
    bare, points, critical = [], [], {}
    real_set = set(reals)

    def add(sym, expr):
        try:
            sols = sympy.solve(expr, sym)
        except (NotImplementedError, ValueError, TypeError):
            return
        for v in sols:
            if getattr(v, "is_number", False) and v.is_real:
                critical.setdefault(sym, set()).add(v)

    def single(expr):
        fs = sympy.sympify(expr).free_symbols & real_set
        return next(iter(fs)) if len(fs) == 1 else None

    exprs = _forward_exprs(op, variant)
    for expr, u in exprs:
        for pw in expr.atoms(sympy.Piecewise):
            for _, cond in pw.args:
                for rel in sympy.sympify(cond).atoms(sympy.core.relational.Relational):
                    if u not in rel.free_symbols:       # a condition on the scalars alone
                        s = single(rel)
                        if s is not None:
                            add(s, rel.lhs - rel.rhs)
                        continue
                    if not rel.has(sympy.Abs):
                        for s in sympy.diff(rel.lhs - rel.rhs, u).free_symbols & real_set:
                            critical.setdefault(s, set()).add(sympy.Integer(0))
                    try:
                        found = thresholds(atoms(rel, u))
                    except (Undecided, NotImplementedError):
                        continue
                    for c in found:
                        if c in real_set:
                            if c not in bare:
                                bare.append(c)
                        elif c not in points:
                            points.append(c)
    every = bare + points
    for c in points:   # what switches inside a branch point: Max/Min arguments, Piecewise conditions, Abs
        for m in sympy.sympify(c).atoms(sympy.Max, sympy.Min):
            s = single(m)
            if s is not None and len(m.args) == 2:
                add(s, m.args[0] - m.args[1])
        for rel in sympy.sympify(c).atoms(sympy.core.relational.Relational):
            s = single(rel)
            if s is not None:
                add(s, rel.lhs - rel.rhs)
        for a in sympy.sympify(c).atoms(sympy.Abs):
            s = single(a)
            if s is not None:
                add(s, a.args[0])
    for i, a in enumerate(every):   # two branch points that meet at one value of one scalar
        for b in every[i + 1:]:
            if a in real_set and b in real_set:
                continue            # two scalars: their order is a case of its own
            s = single(a - b)
            if s is not None:
                add(s, a - b)
    return bare, critical


def sample_scalars(case: Case, draw) -> dict:
    """{symbol: value} of every real scalar of the op (aclScalars, double and float attributes), consistent with
    the case: `draw(kind)` gives a number for kind "positive", "negative" or "any"; each symbol a substitution
    introduces is drawn once and the substitutions are evaluated on the draws (SymPy numbers).  The values also
    satisfy the op's unconditional `Requires` rules: a range no case splits on (DropoutBackward's 0 <= p < 1, read
    only in 1/(1 - p)) is drawn again until it holds (a valid call; the checkers refuse the others)."""
    from codegen.spec.rules import Requires
    conds = [r.condition for r in case.op.rules if isinstance(r, Requires) and r.when == sympy.true]
    for _ in range(200):
        out = _sample_scalars_once(case, draw)
        if all(sympy.sympify(c).xreplace(out) is not sympy.false for c in conds):
            break
    return out


def _sample_scalars_once(case: Case, draw) -> dict:
    free = {}
    for value in case.subs.values():
        for s in sorted(sympy.sympify(value).free_symbols, key=str):
            if s not in free:
                free[s] = sympy.Float(draw("positive" if s.is_positive else "negative" if s.is_negative else "any"), 30)
    out = {}
    # a scalar a rule pins to one value (ReluGradV4's Requires("threshold", Eq(threshold, 0))): that value, as the
    # proof needs no case for a scalar no formula reads
    from codegen.spec.rules import Requires
    pinned = {r.condition.lhs: r.condition.rhs for r in case.op.rules
              if isinstance(r, Requires) and r.when == sympy.true and isinstance(r.condition, sympy.Eq)
              and r.condition.lhs.is_Symbol and r.condition.rhs.is_number}
    for p in case.op.reals:
        sub = case.subs.get(p.symbol, pinned.get(p.symbol))
        # a scalar no case substitutes keeps its own sign (Symbol("eps", positive=True): the proof had no reason
        # to split on it, so no case says it is positive)
        kind = "positive" if p.symbol.is_positive else "negative" if p.symbol.is_negative else "any"
        out[p.symbol] = sympy.sympify(sub).xreplace(free) if sub is not None else sympy.Float(draw(kind), 30)
    return out
