"""The proof of a class-index op with a row along its class axis (codegen.spec.classes.has_rows):
CrossEntropyLossGrad's gradient w.r.t. the logits x of Σ_c ℓ[i, c], where ℓ reads the row's log-softmax, the
target's class by `Eq(CLASS, target)` and weight[target] through a DimSum.

Each sample's loss couples its row (the log-softmax's sum over the classes), and the index relation Eq(CLASS,
target) is true at exactly one element of the row, so neither the elementwise proof nor the index cases of an
NLL-like op apply.  Samples are independent (each row's loss is its own term of the reduced loss, G·Σ_k ℓ_k with
G = g, or g/D for a mean, D the GridSum divisor: one positive number free of x), so one row is the proof:

* general length n (`prove_general`): indexed logits X[k] and per-class tensors, the target a symbol t in 1..n;
  every row sum of a one-hot is collapsed (Σ_k [k = t]·a_k = a_t, `_collapse`), the tensor that holds a function
  of x (logProb = x - log Σ exp(x)) replaced by it, the row's loss differentiated w.r.t. X[j] for j at the target
  and off it, the sample kept and ignored; the residual against the backward must cancel with its row sums as
  opaque numbers (`_atoms`).
* explicit rows of 1..ROW_LENGTHS[-1] classes (`prove_explicit`, an independent cross-check): every position of
  the target, kept and ignored, CLASS = k and every relation decided, SymPy's derivative of the written-out row.

The mpmath check (`check_rows`) draws rows of up to 6 classes and differentiates the row's loss numerically.
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


def _held(expr):
    """(expr with each DimSum a placeholder, {placeholder: its summand}): the element's own symbols are then
    replaced without reaching into the summands, whose symbols are indexed by the summation index."""
    holders = {}

    def hold(a):
        d = sympy.Dummy("dimsum")
        holders[d] = a.args[0]
        return d
    return sympy.sympify(expr).replace(lambda a: isinstance(a, DimSum), hold), holders


def _row(expr, k, rep_at, n):
    """expr at element k of an explicit row of length n: rep_at(k) {symbol: value}, DimSum a finite sum."""
    e, holders = _held(expr)
    e = e.xreplace(rep_at(k))
    return e.xreplace({d: sympy.Add(*[_row(s, m, rep_at, n) for m in range(n)]) for d, s in holders.items()})


def _situations(n, ints):
    """(target position, {ignore symbol: value}, label) for a row of n: each target class, kept or ignored."""
    for tt in range(n):
        for ignored in (False, True):
            yield tt, {s: (tt if ignored else -1) for s in ints}, "ignored" if ignored else "kept"


def prove_rows(p) -> list[Result]:
    """The general-length proof, then the explicit rows (an independent cross-check)."""
    return prove_general(p) + prove_explicit(p)


def prove_explicit(p) -> list[Result]:
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
    with mpmath.workdps(50):
        return _check_rows(case, seed, draws)


def _check_rows(case, seed: int, draws: int) -> Result:
    from .proof import CaseProof
    p = CaseProof(case)
    fwd, bwd, scale, x, per_class, t, ints, D = _setup(p)
    op = case.op
    rng = random.Random(seed)
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


def _collapse(body, k, t):
    """Σ_k body as Σ_k body|_{k != t} + (body|_{k = t} - body|_{k != t}) at k = t: the one-hot gather of a row
    (Eq(CLASS, t) true at k = t only), exact for a target in the row (1 <= t <= n)."""
    eq = {sympy.Eq(k, t): sympy.true, sympy.Eq(t, k): sympy.true, sympy.Ne(k, t): sympy.false,
          sympy.Ne(t, k): sympy.false}
    ne = {a: sympy.Not(v) for a, v in eq.items()}
    hit = sympy.piecewise_fold(body.xreplace(eq))
    other = sympy.piecewise_fold(body.xreplace(ne))
    return hit, other


def _atoms(r):
    """(the residual, {row sum: its atom}): the residual cancelled as a rational function of its row sums, each
    one (its factors free of the summation index taken out, its index named canonically) an opaque real number,
    and of exp(X[j]) (every exp of a sum split into a product, exp(-log S) = 1/S): an identity in independent
    atoms holds for every value they take, so a 0 here is a proof.  SymPy's simplify did not finish on these
    residuals (and failed in sum_add)."""
    from .proof import _canonical_sums
    sums = {}
    r = sympy.expand(sympy.powsimp(sympy.expand(r.rewrite(sympy.exp)), combine="exp"))
    r = r.replace(lambda e: isinstance(e, sympy.exp),
                  lambda e: sympy.Mul(*[sympy.exp(a) for a in sympy.Add.make_args(e.args[0])]))

    def atom(e):
        (k, lo, hi), = e.limits
        out = sympy.Integer(0)
        for term in sympy.Add.make_args(sympy.expand(e.function)):   # Σ (c·f_k + ...) = c·Σ f_k + ...
            const = sympy.Mul(*[f for f in sympy.Mul.make_args(term) if k not in f.free_symbols])
            body = sympy.Mul(*[f for f in sympy.Mul.make_args(term) if k in f.free_symbols])
            if body == 1:
                out += const * (hi - lo + 1)
                continue
            key = _canonical_sums(sympy.Sum(body, (k, lo, hi)))
            out += const * sums.setdefault(key, sympy.Symbol(f"S{len(sums)}", real=True))
        return out
    r = r.replace(lambda e: isinstance(e, sympy.Sum), atom)
    return sympy.cancel(sympy.together(r)), sums


def prove_general(p) -> list[Result]:
    """The row of a general length n: indexed logits X[k] and weights, the target a symbol t in 1..n (the gather
    collapsed with `_collapse`), the element j at the target (t = j) or not (t != j), the sample kept or ignored."""
    from .proof import _canonical_sums
    fwd, bwd, scale, x, per_class, t, ints, D = _setup(p)
    n, m = sympy.Symbol("n", integer=True, positive=True), sympy.Symbol("m", integer=True, nonnegative=True)
    j = sympy.Symbol("j", integer=True, positive=True)
    ti = sympy.Symbol("t", integer=True, positive=True)
    bases = {s: sympy.IndexedBase(str(s), real=True) for s in [x] + per_class}
    counter = [0]

    def row(expr, idx):
        e, holders = _held(expr)
        e = e.xreplace({**{s: b[idx] for s, b in bases.items()}, CLASS: idx})
        sums = {}
        for d, summand in holders.items():
            counter[0] += 1
            k = sympy.Symbol(f"k{counter[0]}", integer=True, positive=True)
            hit, other = _collapse(row(summand, k), k, ti)
            sums[d] = sympy.Sum(other, (k, 1, n)) + hit.xreplace({k: ti}) - other.xreplace({k: ti})
        return e.xreplace(sums)
    lines = []
    for kept in (True, False):
        decided = {s: (sympy.Integer(-1) if kept else ti) for s in ints}
        f = fwd.xreplace({t: ti, **decided})
        b = bwd.xreplace({t: ti, **decided})
        counts = {s: n for s in (f.free_symbols | b.free_symbols) if numel_param(s) is not None}
        f, b = f.xreplace(counts), b.xreplace(counts)
        k0 = sympy.Symbol("k0", integer=True, positive=True)
        hit, other = _collapse(row(f, k0), k0, ti)
        loss = scale.xreplace({t: ti, **decided}) * (sympy.Sum(other, (k0, 1, n)) + hit.xreplace({k0: ti})
                                                     - other.xreplace({k0: ti}))
        vjp = sympy.diff(loss, bases[x][j])
        at_j = row(b, j)
        for on_target in (True, False):
            if on_target:
                r = (vjp - at_j).xreplace({ti: j})
            else:
                r = (vjp - at_j).xreplace({sympy.Eq(j, ti): sympy.false, sympy.Eq(ti, j): sympy.false,
                                           sympy.Ne(j, ti): sympy.true, sympy.Ne(ti, j): sympy.true})
                r = r.replace(lambda e: isinstance(e, sympy.KroneckerDelta) and set(e.args) == {j, ti},
                              lambda e: sympy.Integer(0))
            r = sympy.piecewise_fold(r.doit()).subs(n, j + m)
            r = sympy.piecewise_fold(r.doit())
            what = f"{'kept' if kept else 'ignored'}, element {'at' if on_target else 'off'} the target"
            left, sums = _atoms(_canonical_sums(r))
            if left != 0:
                named = ", ".join(f"{a} = {e}" for e, a in sums.items() if a in left.free_symbols)
                return [p.line("VJP, general row length n", "FAILED", f"{what}: residual {left}"
                               + (f" where {named}" if named else ""))]
    return [p.line("VJP, general row length n", "proven",
                   "residual 0 for every 1 <= j, target <= n, at and off the target, kept and ignored")]
