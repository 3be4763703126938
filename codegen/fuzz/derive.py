"""From a drawn forward to a spec's formula: the backward (gradOutput times the forward's derivative, computed
by SymPy) and the values the backward gives where the forward is not differentiable (declared with `at=`)."""
from __future__ import annotations

import sympy

from codegen.spec import DimSum

from .specfile import G, LOSS, MEAN, T, X, plain


ALLOWED = {"DimSum", "exp", "log", "tanh", "cosh", "sinh", "sin", "cos", "erf", "erfc", "sign", "Abs", "Min", "Max", "Piecewise", "expm1",
           "log1p"}


class Unusable(Exception):
    """The forward gives no usable formula (its derivative has no closed form in the spec language)."""


def backward_of(forward):
    """gradOutput * dF/dx, as a spec author would write it from SymPy's derivative: away from the points where
    F is not differentiable (those are declared separately), DiracDelta terms vanish, and Heaviside(u) is the
    branch `Piecewise((1, u > 0), (0, True))`.  A loss (the LOSS marker) gets the mean's factor MEAN; a row op
    (DimSum) its vector-Jacobian product (`row_backward`)."""
    if sympy.sympify(forward).has(DimSum):
        return row_backward(forward)
    loss = LOSS in forward.free_symbols
    forward = plain(forward)
    d = sympy.diff(forward, X)
    d = d.replace(lambda a: isinstance(a, sympy.DiracDelta), lambda a: sympy.Integer(0))
    d = d.replace(lambda a: isinstance(a, sympy.Heaviside),
                  lambda a: sympy.Piecewise((1, a.args[0] > 0), (0, True)))
    if d.has(sympy.Derivative, sympy.Subs, sympy.zoo, sympy.nan):
        raise Unusable(f"the derivative of {forward} is not closed: {d}")
    names = outside(d)
    if names:   # SymPy may write a derivative with functions the spec files do not import (cosh, ...)
        raise Unusable(f"the derivative of {forward} uses {', '.join(sorted(names))}")
    if X not in forward.free_symbols:
        raise Unusable(f"{forward} does not depend on x")
    return G * d * MEAN if loss else G * d


def row_backward(forward):
    """The backward of a row op y_i = F(x_i, S_1, ..., S_m), S_k = DimSum(h_k(x)) along the row:
    dL/dx_j = g_j dF/dx_j + sum_k h_k'(x_j) DimSum(g dF/dS_k), each DimSum's factors free of the row's elements
    (the S's, scalars) taken out of it, so no DimSum holds another (the form spec authors write: softmax's
    y*g - y*DimSum(g*y))."""
    sums = sorted(sympy.sympify(forward).atoms(DimSum), key=sympy.default_sort_key)
    holders = [sympy.Dummy(f"S{i}", real=True) for i in range(len(sums))]
    if any(s.args[0].has(DimSum) for s in sums):
        raise Unusable(f"{forward}: a row sum of a row sum")
    phi = forward.xreplace(dict(zip(sums, holders)))
    back = dict(zip(holders, sums))
    out = G * sympy.diff(phi, X)
    for s, h in zip(sums, holders):
        inner = sympy.expand_mul(G * sympy.diff(phi, h))
        total = 0
        for term in sympy.Add.make_args(inner):
            free, row = term.as_independent(X, G, T, as_Add=False)
            total += free * DimSum(row)
        out += sympy.diff(s.args[0], X) * total
    out = out.xreplace(back)
    if out.has(sympy.Derivative, sympy.Subs, sympy.zoo, sympy.nan, sympy.Piecewise):
        raise Unusable(f"the row backward of {forward} is not closed or has branches: {out}")
    names = outside(out) - {"DimSum"}
    if names:
        raise Unusable(f"the row backward of {forward} uses {', '.join(sorted(names))}")
    if not any(s.has(X) for s in sums) and X not in phi.free_symbols:
        raise Unusable(f"{forward} does not depend on x")
    return out


def declarations(results, k: int | None = None) -> tuple[dict, dict]:
    """({formula index: {point: value}}, {formula index: why it cannot be declared}) from the proof lines of a
    spec written without declared values: every branch point the proof names as not differentiable, with the
    value the backward gives there.  `k` bool selectors name the formula of a batch case ("f0=true, f1=false,
    ..."); a single spec is formula 0.

    The proof splits the scalars' range into cases when a batch's branch points can stand in either order
    (0 < alpha < 1, alpha = 1, alpha > 1), and every formula is proved in every case: a kink at 1/alpha is also
    reported as x = 1 in the case alpha = 1, and as an unsimplified (1 - alpha)*(1 + alpha/(1 - alpha))/alpha
    in another.  A point is declared once, simplified; one seen only where a scalar equals a value is that
    value's instance of a general point, or a kink `at=` cannot state (it declares a value for every value of
    the scalars): the formula is then left out.  (Declaring x = 1 for every alpha was the seed 7 finding: a value
    the forward's derivative does not have, which the prover now refuses.)"""
    from codegen.verify.proof import same_value

    out: dict = {}
    why: dict = {}
    special = []
    local = {"x": X, "gradOutput": G, "alpha": sympy.Symbol("alpha", real=True),
             "beta": sympy.Symbol("beta", real=True), "target": T}
    # the proof reports the same point and value in every case of the scalars that do not move it (seed 2525 batch 7:
    # 290 lines, a handful of distinct texts, each simplified again: past the batch's 300 CPU-s): each text once
    simplified: dict = {}
    for r in results:
        if not r.undeclared:
            continue
        index = formula_index(r.formula, k) if k else 0
        texts = tuple(r.undeclared)
        if texts not in simplified:
            point, value = (sympy.sympify(t, locals=local) for t in texts)
            simplified[texts] = sympy.simplify(point), in_vocabulary(value)
        point, value = simplified[texts]
        fixed = _fixed_scalars(r.formula, local)
        if fixed:
            special.append((index, point, fixed))
            continue
        table = out.setdefault(index, {})
        if point in table and table[point] != value and not _same_at_samples(table[point], value, same_value):
            why[index] = f"its value at x = {point} depends on the case ({r.formula})"
        table.setdefault(point, value)
    for index, point, fixed in special:
        if not any(sympy.simplify(p.subs(fixed) - point) == 0 for p in out.get(index, {})):
            where = ", ".join(f"{s} = {v}" for s, v in fixed.items())
            why.setdefault(index, f"a kink at x = {point} only where {where}: at= declares a value for every "
                                  f"value of the scalars")
    return out, why


def _same_at_samples(a, b, same_value) -> bool:
    """Whether two cases' values of one kink are the same function of the scalars, judged at generic sample points in
    40 digits, and by `same_value` (a proof) only where a sample gives no real number.  A proof is not needed here:
    the batch is proved again with the values declared, so a wrong verdict fails that proof; same_value's simplify
    took 149 CPU-s for 32 such pairs of seed 2525 batch 7 (a batch lost: its comparison ran past the time limit)."""
    from codegen.verify.proof import sample_points
    free = sorted(a.free_symbols | b.free_symbols, key=str)
    for point in sample_points(free):   # the proof's generic points (codegen.verify.proof), in 40 digits
        at = {s: sympy.Float(v, 40) for s, v in point.items()}
        try:
            va, vb = (sympy.N(e.subs(at), 40) for e in (a, b))
        except (ArithmeticError, TypeError, ValueError):
            return same_value(a, b)
        if not (va.is_real and vb.is_real and va.is_finite and vb.is_finite):
            return same_value(a, b)
        if abs(va - vb) > sympy.Float(1e-25, 40) * (1 + abs(va)):
            return False
    return True


def _fixed_scalars(case_label: str, local: dict) -> dict:
    """{scalar: value} of the equalities in a proof case label ('f0=true, alpha = 1, beta > -1' -> {alpha: 1})."""
    fixed = {}
    for part in case_label.split(", "):
        name, eq, value = part.partition(" = ")
        if eq and name in local:
            fixed[local[name]] = sympy.sympify(value, locals=local)
    return fixed


def in_vocabulary(value):
    """A declared value in the functions a spec file imports, as far as SymPy can: the proof simplifies the value
    the backward gives at a point, and may write it with functions the spec language lacks (2 - 2*tanh(a)**2 as
    2/cosh(a)**2: found by codegen.fuzz, seed 37, the batch spec did not load, NameError, and the whole batch was
    lost).  Those are rewritten in exponentials; `outside(value)` says what is left."""
    if not outside(value):
        return value
    return value.replace(lambda a: isinstance(a, sympy.Function) and type(a).__name__ not in ALLOWED,
                         lambda a: a.rewrite(sympy.exp))


def outside(expr) -> set:
    """Names of the functions in expr that a spec file does not import."""
    return {type(f).__name__ for f in expr.atoms(sympy.Function)} - ALLOWED


def formula_index(case_label: str, k: int) -> int:
    """The formula of a batch from a proof or oracle case label: 'f0=true, f1=false, alpha > 0' -> 1."""
    bits = {}
    for part in case_label.split(", "):
        name, _, value = part.partition("=")
        if name.startswith("f") and name[1:].isdigit() and value in ("true", "false"):
            bits[int(name[1:])] = value == "true"
    return sum(1 << b for b, on in bits.items() if on and b < k)
