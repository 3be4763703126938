"""High-precision numeric backing of the proofs: the forward differentiated by mpmath, never the backward.

For every case of `cases.py`, random and extreme points are drawn (scalars respecting the case's signs;
points within 1e-6 of a branch point skipped, since the derivative has no value there), the forward is
evaluated in mpmath at 50 digits and differentiated numerically (`mpmath.diff`), the loss reduction and the
row coupling (DimSum) are applied exactly as their definitions say, and the documented backward must agree
to 30 significant digits.
"""
from __future__ import annotations

import functools
import random

import mpmath
import sympy

from codegen.spec import ABSENT, DimSum
from codegen.spec.classes import index_symbols
from codegen.spec.functions import numel_param

from .cases import Case, sample_scalars
from .result import Result

DPS = 50
TOL = mpmath.mpf(10) ** -30
X_POINTS = [-30.0, -5.0, -1.3, -0.2, -1e-3, 1e-3, 0.2, 1.3, 5.0, 30.0]


def _lamb(expr, args):
    """An mpmath function of `args`; DimSum nodes become extra trailing arguments (see `_evaluator`)."""
    return sympy.lambdify(args, expr, modules="mpmath")


class _Row:
    """Evaluates an expression with DimSum for element `i` of a row of per-element values."""

    def __init__(self, expr, elem_syms, scalar_syms):
        self.holders, self.inner = [], []

        def hold(a):
            d = sympy.Dummy()
            self.holders.append(d)
            self.inner.append(_Row(a.args[0], elem_syms, scalar_syms))
            return d
        outer = expr.replace(lambda a: isinstance(a, DimSum), hold)
        self.elem_syms, self.scalar_syms = list(elem_syms), list(scalar_syms)
        self.fn = _lamb(outer, self.elem_syms + self.scalar_syms + self.holders)

    def __call__(self, row, i, scalars):
        sums = [mpmath.fsum(inner(row, k, scalars) for k in range(len(row))) for inner in self.inner]
        return self.fn(*row[i], *scalars, *sums)


def _sample_scalars(case: Case, rng):
    draw = {"positive": lambda: rng.uniform(0.2, 2.5), "negative": lambda: -rng.uniform(0.2, 2.5),
            "any": lambda: rng.uniform(-2.5, 2.5)}
    vals = {s: mpmath.mpf(str(sympy.N(v, DPS))) for s, v in sample_scalars(case, lambda k: draw[k]()).items()}
    for p in case.op.attrs:
        if case.op.loss_reduction and p.name == case.op.loss_reduction:
            vals[p.symbol] = case.reduction
        elif p.type == "bool":
            vals[p.symbol] = bool(case.variant.key.get(p.name, False))
        elif p.type == "int64" and p.name in case.variant.key:   # an enumerated int64 the variant fixes
            vals[p.symbol] = int(case.variant.key[p.name])
        # int64 attributes like `dim` do not enter the math of a row; strings choose the variant
    return vals


def check_case(case: Case, n_random: int = 12, seed: int = 0) -> Result:
    op, v = case.op, case.variant
    rng = random.Random(seed)
    mpmath.mp.dps = DPS
    formula = v.formula
    x, g = op.wrt, op.grad.symbol
    xs, ys = op.x_symbol(formula), op.y_symbol(formula)
    # a class-index op's operands are its grid op's (CLASS among them, codegen.spec.classes); its index symbols
    # (the class, the target, ignoreIndex) are drawn from a few small integers, so that every relation between
    # them is met
    index = index_symbols(op) if op.classes is not None else set()
    operands = [t for t in (op.grid or op).tensors if t.role == "operand"]
    absent = {t.symbol: sympy.sympify(t.default) for t in op.tensors if v.key.get(t.name) == ABSENT}
    scal_params = [p for p in op.scalars + op.attrs if p.symbol is not None]
    scal_syms = [p.symbol for p in scal_params]
    fwd = sympy.sympify(op.forward_of(formula)).xreplace(absent)
    bwd = sympy.sympify(v.kernel_expr)   # the form the kernels compute (codegen.spec.rewrites)
    coupled = sympy.sympify(op.forward).has(DimSum)
    red = case.reduction
    # element counts: the row's length in a coupled op (numel of a row); in an elementwise loss each count is its
    # own random number, and a mean divides by the divisor the Reduction declares, evaluated on them
    counts = sorted({s for s in bwd.free_symbols if numel_param(s)}, key=str)
    divisor = op.reduction.divisor(op, red) if red is not None else None
    if divisor is not None and not coupled:
        counts = sorted(set(counts) | {s for s in divisor.free_symbols if numel_param(s)}, key=str)
    # a count the forward reads (MultiLabelSoftMargin's 1/C): the same random number on both sides
    fwd_counts = [] if coupled else sorted({s for s in fwd.free_symbols if numel_param(s)}, key=str)
    counts = sorted(set(counts) | set(fwd_counts), key=str)
    if coupled:
        bwd = bwd.xreplace({s: sympy.Symbol("numel__", real=True) for s in counts})
        counts = [sympy.Symbol("numel__", real=True)]
    op_syms = [t.symbol for t in operands if t.symbol not in absent]
    fwd_row = _Row(fwd, [x] + op_syms, scal_syms + fwd_counts)
    # backward element values: x (when held), y, g, operands
    b_elem = [s for s in [xs, ys, g] if s is not None] + op_syms
    bwd_row = _Row(bwd, b_elem, scal_syms + counts)
    lengths = [1, 2, 3, 5, 8] if coupled else [1]
    # operands that decide a branch (PReLU's x in its weight gradient) take both signs, away from 0
    deciding = {s for pw in sympy.sympify(fwd).atoms(sympy.Piecewise) for _, c in pw.args
                for s in sympy.sympify(c).free_symbols} - {x}
    checked, worst = 0, mpmath.mpf(0)
    for trial in range(n_random + len(X_POINTS)):
        sv = _sample_scalars(case, rng)
        sv.update({s: mpmath.mpf(rng.randint(0, 2)) for s in scal_syms if s in index})
        scal = [sv.get(s, 0) for s in scal_syms]
        n = lengths[trial % len(lengths)]
        if trial < len(X_POINTS) and not coupled:
            zs = [mpmath.mpf(X_POINTS[trial])]
        else:
            zs = [mpmath.mpf(rng.gauss(0, 3)) for _ in range(n)]
        if _near_branch(fwd, bwd, x, xs, ys, zs, sv):
            continue
        masks = {t.symbol for t in op.bool_tensors}
        ops_vals = [[(rng.random() < 0.3 and i > 0) if t.symbol in masks else   # a row keeps one element unmasked
                     mpmath.mpf(rng.randint(0, 2)) if t.symbol in index else
                     _operand_in_case(case.subs[t.symbol], rng, {s: sv.get(s, 0) for s in scal_syms})
                     if t.symbol in case.subs else
                     mpmath.mpf(rng.choice((-1, 1)) * rng.uniform(0.2, 2)) if t.symbol in deciding else
                     mpmath.mpf(rng.uniform(0, 1) if t.name == "target" else rng.uniform(0.2, 2))
                     for t in operands if t.symbol not in absent] for i in range(len(zs))]
        gs = [mpmath.mpf(rng.uniform(-2, 2)) for _ in zs]
        gscalar = mpmath.mpf(rng.uniform(-2, 2))
        if coupled:
            count_vals = {counts[0]: mpmath.mpf(len(zs))}
        else:
            count_vals = {c: mpmath.mpf(rng.randint(1, 9)) for c in counts}
        if red in (None, 0) or divisor is None:
            scale = 1
        elif coupled:
            scale = 1 / mpmath.mpf(len(zs))
        else:
            # a one-element input dividing (NLLLoss's totalWeight): its value, the same in every element of a row
            held = {t.symbol: ops_vals[0][k] for k, t in enumerate(o for o in operands if o.symbol not in absent)
                    if t.symbol in divisor.free_symbols}
            scale = 1 / mpmath.mpf(sympy.N(divisor.xreplace({**count_vals, **held}), DPS))
        fscal = scal + [count_vals[c] for c in fwd_counts]

        def loss(zvec):
            row = [[z] + ops_vals[i] for i, z in enumerate(zvec)]
            ysv = [fwd_row(row, i, fscal) for i in range(len(zvec))]
            if red is None or op.reduction.mode(op, red) == "none":
                return mpmath.fsum(gs[i] * ysv[i] for i in range(len(zvec)))
            return gscalar * mpmath.fsum(ysv) * scale

        row = [[z] + ops_vals[i] for i, z in enumerate(zs)]
        yvals = [fwd_row(row, i, fscal) for i in range(len(zs))]
        brow = []
        for i, z in enumerate(zs):
            e = []
            if xs is not None:
                e.append(z)
            if ys is not None:
                e.append(yvals[i])
            e.append(gs[i] if red is None or op.reduction.mode(op, red) == "none" else gscalar)
            brow.append(e + ops_vals[i])
        for j in range(len(zs)):
            if not mpmath.isfinite(yvals[j]):
                continue   # the forward is infinite or undefined here (logit clamped to 0): the proof covers it
            if isinstance(yvals[j], mpmath.mpc) and yvals[j].imag != 0:
                continue   # outside the forward's real domain (acos(x), |x| > 1): mpmath's complex value proves nothing
            def along(t, j=j):
                zz = list(zs)
                zz[j] = t
                return loss(zz)
            want = mpmath.diff(along, zs[j])
            got = bwd_row(brow, j, scal + [count_vals[c] for c in counts])
            err = abs(got - want) / max(mpmath.mpf(1), abs(want))
            worst = max(worst, err)
            checked += 1
            if not err <= TOL:
                point = {str(x): mpmath.nstr(zs[j], 8)} | {str(s): mpmath.nstr(sv[s], 6) for s in sv
                                                           if s is not None}   # (a string attribute has none)
                point["row length"] = len(zs)
                return Result(op.name, case.label, "mpmath, forward differentiated", "FAILED",
                              f"backward {mpmath.nstr(got, 12)} but the derivative is {mpmath.nstr(want, 12)}",
                              point)
    return Result(op.name, case.label, "mpmath, forward differentiated", "agrees",
                  f"{checked} elements, max relative difference {mpmath.nstr(worst, 3)}")


def _operand_in_case(value, rng, scalars=None):
    """An operand element in the region the case gives it: of its sign (`cases._operand_signs`: target < 0, > 0
    or = 0), or a value or an interval of `cases._operand_selections` (target = -1, target < -1: -1 - target_t,
    each symbol of the case's expression drawn in (0.2, 2) with its sign); a scalar in it (target =
    ignoreIndex + target_t) is the value the trial calls with, from `scalars`."""
    value = sympy.sympify(value)
    if scalars:
        value = value.xreplace({s: sympy.Float(str(v), DPS) for s, v in scalars.items() if s in value.free_symbols})
    if value.is_number:
        return mpmath.mpf(sympy.Float(value, 30))
    if value.is_Symbol:
        return mpmath.mpf((-1 if value.is_negative else 1) * rng.uniform(0.2, 2))
    draws = {s: (-1 if s.is_negative else 1) * rng.uniform(0.2, 2)
             for s in sorted(value.free_symbols, key=str)}
    return mpmath.mpf(sympy.Float(value.xreplace(draws), 30))


@functools.lru_cache(maxsize=256)
def _branch_relations(fwd, bwd, x, xs) -> tuple:
    """The symbolic branch points of the forward (in x) and the x-form backward (in xs): for each relation of
    each Piecewise condition, in order, (its solutions for the variable, whether it has an Abs).  Solved once
    per expression: `_near_branch` runs for every sample point, and SymPy's `solve` (its constant test by
    random evaluation) was nearly all of a cold `opgen verify` of the NLL losses (32 of 32 s)."""
    out = []
    u = sympy.Symbol("_u")
    for expr, var in ((fwd, x), (bwd, xs)):
        if var is None:
            continue
        for pw in expr.atoms(sympy.Piecewise):
            for _, c in pw.args:
                for rel in c.atoms(sympy.core.relational.Relational):
                    try:
                        sols = sympy.solve(sympy.Eq(rel.lhs.subs(var, u), rel.rhs.subs(var, u)), u)
                    except NotImplementedError:
                        continue
                    out.append((tuple(sympy.sympify(s) for s in sols), rel.has(sympy.Abs)))
    return tuple(out)


def _near_branch(fwd, bwd, x, xs, ys, zs, sv):
    """Whether some point lies within 1e-6 of a Piecewise branch point of the forward (or x-form backward)."""
    pts = []
    # (a bool or a string attribute, MseLossGrad's reduction 'mean', is no number)
    values = {k: float(val) for k, val in sv.items() if not isinstance(val, (bool, str))}
    for sols, has_abs in _branch_relations(fwd, bwd, x, xs):
        for s in sols:
            try:
                pts.append(float(s.subs(values)))
            except (TypeError, ValueError):
                pass
        if has_abs:
            pts += [-p for p in pts]
    return any(abs(float(z) - p) < 1e-6 for z in zs for p in pts)
