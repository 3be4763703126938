"""The proof of a class-index op with a row along its class axis (codegen.spec.classes.has_rows):
CrossEntropyLossGrad's gradient w.r.t. the logits x of Σ_c ℓ[i, c], where ℓ reads the row's log-softmax, the
target's class by `Eq(CLASS, target)` and weight[target] through a DimSum.

Each sample's loss couples its row (the log-softmax's sum over the classes), and the index relation Eq(CLASS,
target) is true at exactly one element of the row, so neither the elementwise proof nor the index cases of an
NLL-like op apply.  Here the row is written out explicitly: for every row length n = 1..ROW_LENGTHS[-1], every
position of the target in it and the sample kept or ignored (target == ignoreIndex), the element k's CLASS is
k, the target and ignoreIndex are integers (every relation decided), the tensor that holds a function of x
(logProb = x - log Σ exp(x)) is replaced by that function, the row's loss G·Σ_k ℓ_k is differentiated w.r.t.
each x_j (G = g, or g/D for a mean, D the GridSum divisor: one positive number free of x) and the documented
backward at j must equal it.  The sample's other classes (samples are independent: each row's loss is its
own term of the reduced loss) are not involved, so the rows cover every call whose class count is at most
ROW_LENGTHS[-1]; the mpmath check of numeric.py is not used for these ops (its rows are DimSum rows without
classes), hence `numeric_rows` below draws rows of up to 6 classes with random values.
"""
from __future__ import annotations

import random

import mpmath
import sympy

from codegen.spec import DimSum
from codegen.spec.classes import CLASS, GridSum
from codegen.spec.functions import numel_param

from .result import Result

ROW_LENGTHS = (1, 2, 3, 4)
NUMERIC_LENGTHS = (1, 2, 5, 6)


def _divisor(expr, D):
    return sympy.sympify(expr).replace(lambda e: isinstance(e, GridSum), lambda e: D)


def _setup(p):
    """(forward, backward in x, scale, x, per-class symbols, target, ignore symbols, D) of a CaseProof."""
    op = p.op
    D = sympy.Symbol("D", positive=True)
    c = op.classes
    held = op.param(c.tensor)
    fwd = _divisor(p.forward, D)
    bwd = _divisor(p.backward, D).xreplace({held.symbol: held.holds})
    scale = _divisor(p.scale, D)
    per_class = [op.param(n).symbol for n in c.per_class]
    t = op.param(c.target).symbol
    ints = [a.symbol for a in op.attrs if a.type == "int64" and a.symbol is not None and a.name != op.loss_reduction]
    return fwd, bwd, scale, op.wrt, per_class, t, ints, D


def _row(expr, k, rep_at, n):
    """expr at element k of an explicit row of length n: rep_at(k) {symbol: value}, DimSum a finite sum."""
    holders = {}

    def hold(a):
        d = sympy.Dummy("dimsum")
        holders[d] = a.args[0]
        return d
    e = sympy.sympify(expr).replace(lambda a: isinstance(a, DimSum), hold)
    e = e.xreplace(rep_at(k))
    return e.xreplace({d: sympy.Add(*[_row(s, m, rep_at, n) for m in range(n)]) for d, s in holders.items()})


def _situations(n, ints):
    """(target position, {ignore symbol: value}, label) for a row of n: each target class, kept or ignored."""
    for tt in range(n):
        for ignored in (False, True):
            yield tt, {s: (tt if ignored else -1) for s in ints}, "ignored" if ignored else "kept"


def prove_rows(p) -> list[Result]:
    from .proof import is_zero
    fwd, bwd, scale, x, per_class, t, ints, D = _setup(p)
    for n in ROW_LENGTHS:
        xs = [sympy.Symbol(f"{x}_{k}", real=True) for k in range(n)]
        per = {s: [sympy.Symbol(f"{s}_{k}", real=True) for k in range(n)] for s in per_class}
        counts = {s: n for s in (fwd.free_symbols | bwd.free_symbols) if numel_param(s) is not None}
        for tt, ign, label in _situations(n, ints):
            fixed = {t: tt, **ign, **counts}

            def rep_at(k):
                return {x: xs[k], CLASS: k, **{s: v[k] for s, v in per.items()}, **fixed}
            loss = _divisor(scale, D).xreplace(fixed) * sympy.Add(*[_row(fwd, k, rep_at, n) for k in range(n)])
            for j in range(n):
                residual = sympy.diff(loss, xs[j]) - _row(bwd, j, rep_at, n)
                if not is_zero(residual):
                    return [p.line(f"VJP, rows of length {ROW_LENGTHS[0]}..{ROW_LENGTHS[-1]}", "FAILED",
                                   f"length {n}, target class {tt} ({label}), element {j}: residual "
                                   f"{sympy.simplify(residual)}")]
    return [p.line(f"VJP, rows of length {ROW_LENGTHS[0]}..{ROW_LENGTHS[-1]}", "proven",
                   "residual 0 at every element, every target class, the sample kept and ignored")]


def check_rows(case, seed: int = 7, draws: int = 6) -> Result:
    """The mpmath check of a class-rows op: random rows (NUMERIC_LENGTHS classes, every target position drawn,
    the sample kept or ignored, random weights, gradient, divisor and real attributes), the row's loss
    differentiated numerically (mpmath.diff at 50 digits, not SymPy) against the backward at each element."""
    from .proof import CaseProof
    p = CaseProof(case)
    fwd, bwd, scale, x, per_class, t, ints, D = _setup(p)
    op = case.op
    rng = random.Random(seed)
    mpmath.mp.dps = 50
    reals = [a.symbol for a in op.attrs if a.is_real and a.symbol is not None]
    worst = mpmath.mpf(0)
    for draw in range(draws):
        n = NUMERIC_LENGTHS[draw % len(NUMERIC_LENGTHS)]
        tt = rng.randrange(n)
        ignored = draw % 3 == 2
        fixed = {t: tt, **{s: (tt if ignored else -1) for s in ints}, D: sympy.Float(rng.uniform(0.5, 4), 30),
                 op.grad.symbol: sympy.Float(rng.uniform(-2, 2), 30),
                 **{s: sympy.Float(rng.uniform(0, 1), 30) for s in reals},
                 **{s: n for s in (fwd.free_symbols | bwd.free_symbols) if numel_param(s) is not None}}
        xs = [sympy.Symbol(f"{x}_{k}", real=True) for k in range(n)]
        per = {s: [sympy.Float(rng.uniform(0.1, 3), 30) for _ in range(n)] for s in per_class}

        def rep_at(k):
            return {x: xs[k], CLASS: k, **{s: v[k] for s, v in per.items()}, **fixed}
        loss = sympy.lambdify(xs, scale.xreplace(fixed) * sympy.Add(*[_row(fwd, k, rep_at, n) for k in range(n)]),
                              modules="mpmath")
        point = [mpmath.mpf(rng.uniform(-6, 6)) for _ in range(n)]
        for j in range(n):
            def along(v, j=j):
                return loss(*[v if k == j else point[k] for k in range(n)])
            want = mpmath.diff(along, point[j])
            got = sympy.lambdify(xs, _row(bwd, j, rep_at, n), modules="mpmath")(*point)
            err = abs(want - got) / max(1, abs(want))
            if err > mpmath.mpf(10) ** -30:
                return p.line("mpmath", "FAILED", f"{n} classes, target class {tt}, element {j}: "
                                                  f"d/dx {mpmath.nstr(want, 12)}, backward {mpmath.nstr(got, 12)}")
            worst = max(worst, err)
    return p.line("mpmath", "agrees", f"{draws} random rows of {NUMERIC_LENGTHS[0]}..{NUMERIC_LENGTHS[-1]} classes, "
                                      f"worst relative difference {mpmath.nstr(worst, 3)}")
