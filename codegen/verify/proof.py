"""Symbolic proofs that a documented backward is the vector-Jacobian product of the forward.

Two methods, chosen by the shape of the forward:

* elementwise (no DimSum, no loss reduction): the VJP is g·f'(x).  The real line is cut at every branch point
  of the forward's and the backward's conditions; on each open piece the active branches are decided
  symbolically and `g·f'(x) - backward` must simplify to 0.  When the backward is written in the forward
  output y (ELU's isResult), the forward branch is monotone on the piece, its image is computed from limits,
  and the backward's y-branch is decided on that image: this is the substitution of the forward's inverse.
  Branch points themselves are reported as the documented convention, next to both one-sided derivatives.
* coupled (DimSum or a loss reduction): the forward is expanded over a row of symbolic length n with indexed
  symbols, the loss L = Σ g_i·y_i (none), g·Σ y_i (sum) or g·Σ y_i / n (mean) is differentiated with respect
  to x_j, and the residual against the backward at index j must be 0 for every 1 <= j <= n — a proof for
  general n; it is repeated on explicit rows of length 1…6 as an independent cross-check.
"""
from __future__ import annotations

import hashlib

import sympy

from codegen.spec import ABSENT, DimSum, Op
from codegen.spec.functions import numel_param

from .cases import Case
from .intervals import Undecided, atoms, first_piece, sort_points, thresholds, truth_at, truth_on
from .result import Result

EXPLICIT_LENGTHS = (1, 2, 3, 4, 5, 6)
# A loss reduction without DimSum couples the elements only through the mean's 1/n: rows of 1..3 exercise it
# (the general-length proof covers every n); SymPy needs seconds per length for BCE's sigmoid terms.
EXPLICIT_LENGTHS_LOSS = (1, 2, 3)


def is_zero(expr) -> bool:
    """Cheap canonical forms first, `simplify` last (it is slow, and rarely needed)."""
    expr = sympy.sympify(expr)
    if expr == 0:
        return True
    for f in (sympy.expand, lambda e: sympy.cancel(sympy.together(e)), sympy.simplify):
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
    return False


def _signed(expr, x, lo, hi):
    """expr with Abs(x) resolved on an interval where x has one sign (GeluBackwardV2's erfc(|x|/sqrt(2)) for
    x < 0)."""
    if (hi - 0).is_nonpositive:
        return expr.subs(sympy.Abs(x), -x)
    if (lo - 0).is_nonnegative:
        return expr.subs(sympy.Abs(x), x)
    return expr


def is_coupled(op: Op) -> bool:
    return sympy.sympify(op.forward).has(DimSum) or op.loss_reduction is not None


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
        if op.loss_reduction:
            self.subs[op.param(op.loss_reduction).symbol] = sympy.Integer(case.reduction)
        for a in op.attrs:  # bool attributes fixed by the variant
            if a.name in v.key and a.type == "bool":
                self.subs[a.symbol] = sympy.true if v.key[a.name] else sympy.false
        for t in op.tensors:  # a null optional tensor is all `default`, in the forward as in the backward
            if v.key.get(t.name) == ABSENT:
                self.subs[t.symbol] = sympy.sympify(t.default)
        self.forward = sympy.sympify(op.forward_of(self.formula)).subs(self.subs)
        self.backward = sympy.sympify(v.expr).subs(self.subs)
        self.x = op.wrt
        self.g = op.grad.symbol
        self.xs = op.x_symbol(self.formula)
        self.ys = op.y_symbol(self.formula)
        self.label = case.label

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
        fp = _pieces(self.forward)
        bp = _pieces(bwd)
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
            pts = sort_points(pts)
        except (Undecided, NotImplementedError) as e:
            return [self.line("branch points", "FAILED", str(e))]
        edges = [-sympy.oo] + pts + [sympy.oo]
        lines, derivs = [], []
        for lo, hi in zip(edges, edges[1:]):
            where = f"{x} in ({self.case.shown(lo)}, {self.case.shown(hi)})"
            try:
                k = first_piece(ftrees, lambda t: truth_on(t, lo, hi))
                fk = fp[k][0]
                vjp = g * sympy.diff(fk, x)
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
                derivs.append(None)
                continue
            if fk == sympy.nan:   # the forward is undefined here (LogitGrad outside [0, 1] for eps < 0)
                derivs.append(None)
                verdict = "proven" if bexpr == sympy.nan else "FAILED"
                lines.append(self.line(where, verdict, f"the forward is nan here and the backward gives {bexpr}"))
                continue
            derivs.append(vjp)
            residual = _signed(vjp - bexpr, x, lo, hi)
            if is_zero(residual):
                lines.append(self.line(where, "proven", f"backward branch {m + 1} = g*d/dx forward branch {k + 1}"))
            else:
                lines.append(self.line(where, "FAILED", f"residual {sympy.simplify(residual)}",
                                       self._counterexample(residual, lo, hi)))
        for i, t in enumerate(pts):
            lines.append(self._boundary(t, ftrees, fp, btrees, bp, u, in_y, derivs[i], derivs[i + 1]))
        return lines

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
        raise Undecided(f"cannot show the forward branch {fk} is monotone (derivative {d})")

    def _boundary(self, t, ftrees, fp, btrees, bp, u, in_y, left, right):
        x = self.x
        where = f"{x} = {self.case.shown(t)}"
        try:
            k = first_piece(ftrees, lambda tr: truth_at(tr, t))
            if in_y:
                yt = sympy.simplify(fp[k][0].subs(x, t))
                m = first_piece(btrees, lambda tr: truth_at(tr, yt))
                value = sympy.simplify(bp[m][0].subs(u, yt))
            else:
                m = first_piece(btrees, lambda tr: truth_at(tr, t))
                value = sympy.simplify(bp[m][0].subs(x, t))
        except Undecided as e:
            return self.line(where, "FAILED", str(e))
        lim_l = sympy.simplify(sympy.limit(left, x, t, "-")) if left is not None else None
        lim_r = sympy.simplify(sympy.limit(right, x, t, "+")) if right is not None else None
        side = ("the left derivative" if lim_l is not None and is_zero(value - lim_l) else
                "the right derivative" if lim_r is not None and is_zero(value - lim_r) else
                "neither one-sided derivative")
        shown = lambda e: None if e is None else self.case.shown(e)  # noqa: E731
        return self.line(where, "convention",
                         f"backward gives {shown(value)} ({side}; left {shown(lim_l)}, right {shown(lim_r)})")

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
        residual = _canonical_sums(vjp - bwd).subs(n, j + m)  # any row with j inside it: n = j + m, m >= 0
        residual = sympy.piecewise_fold(residual.doit())
        if isinstance(residual, sympy.Piecewise):
            residual = residual.args[0][0] if residual.args[0][1] == sympy.true else residual
        for _ in range(3):  # simplify moves factors out of sums; re-canonicalise their indices each time
            residual = _canonical_sums(sympy.simplify(residual))
        if is_zero(residual):
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
                if not is_zero(vjp - b):
                    bad.append((n, jj, sympy.simplify(vjp - b)))
                    break
            if bad:
                break
        label = f"VJP, rows of length {lengths[0]}..{lengths[-1]}"
        if bad:
            n, jj, r = bad[0]
            return [self.line(label, "FAILED", f"length {n}, element {jj}: residual {r}")]
        return [self.line(label, "proven", "residual 0 at every element")]

    def _bases(self):
        """IndexedBase for each per-element symbol of the row (x, grad, y and operands)."""
        op = self.op
        syms = [self.x] + [t.symbol for t in op.tensors if t.symbol is not None]
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
        if is_coupled(self.op):
            if self.forward.has(sympy.Piecewise) or self.backward.has(sympy.Piecewise):
                return [self.line("VJP", "FAILED", "branches (Piecewise) in a coupled op are not supported")]
            return self.coupled_general() + self.coupled_explicit()
        return self.elementwise()


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


def prove(case: Case) -> list[Result]:
    return CaseProof(case).run()
