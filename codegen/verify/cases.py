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

    @property
    def label(self) -> str:
        parts = [f"{k}={str(v).lower()}" for k, v in self.variant.key.items()]
        if self.reduction is not None:
            red = self.op.param(self.op.loss_reduction)
            parts.append(f"{red.name}={self.reduction} ({red.values.get(self.reduction, '')})".replace(" ()", ""))
        parts += self.assumptions
        return ", ".join(parts) or "all inputs"


def _sign_of(rel, sym):
    """'nonneg'|'pos'|'nonpos'|'neg' when `rel` bounds `sym` by 0, else None."""
    if not isinstance(rel, sympy.core.relational.Relational):
        return None
    lhs, rhs, op = rel.lhs, rel.rhs, rel.rel_op
    if lhs == sym and rhs == 0:
        return {">=": "nonneg", ">": "pos", "<=": "nonpos", "<": "neg"}.get(op)
    if rhs == sym and lhs == 0:
        return {">=": "nonpos", ">": "neg", "<=": "nonneg", "<": "pos"}.get(op)
    return None


def assumptions_for(op: Op, variant: Variant) -> list:
    """The scalar relations known in a variant: Requires rules that apply to it, and the formula's `assume`."""
    known = {a.symbol: val for a in op.attrs if a.name in variant.key for val in [variant.key[a.name]]}
    rels = []
    for r in op.rules:
        if isinstance(r, Requires):
            when = r.when.subs(known) if known else r.when
            if when == sympy.true:
                rels.append(r.condition)
    rels.extend(variant.formula.assume)
    return rels


def cases(op: Op) -> list[Case]:
    out = []
    for variant in op.variants:
        rels = assumptions_for(op, variant)
        signs = {}
        for p in op.scalars + op.attrs:
            for rel in rels:
                s = _sign_of(rel, p.symbol)
                if s:
                    signs[p.symbol] = s
        # each nonnegative scalar: a positive case and a zero case
        options = []
        for sym, s in signs.items():
            if s == "nonneg":
                options.append([(sym, "pos"), (sym, "zero")])
            elif s == "nonpos":
                options.append([(sym, "neg"), (sym, "zero")])
            else:
                options.append([(sym, s)])
        reductions = [None]
        if op.loss_reduction:
            reductions = sorted(op.param(op.loss_reduction).values)
        for combo in itertools.product(*options):
            subs, labels = {}, []
            for sym, s in combo:
                if s == "zero":
                    subs[sym] = sympy.Integer(0)
                    labels.append(f"{sym} = 0")
                else:
                    kw = {"pos": dict(positive=True), "neg": dict(negative=True)}[s]
                    subs[sym] = sympy.Symbol(sym.name, real=True, **kw)
                    labels.append(f"{sym} {'>' if s == 'pos' else '<'} 0")
            for red in reductions:
                out.append(Case(op, variant, red, subs, labels))
    return out
