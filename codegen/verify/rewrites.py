"""Proofs of a spec's kernel rewrites (codegen.spec.rewrites): each identity for every real value of its
variables, symbolically and at 60 digits, and each one matching something in its formula."""
from __future__ import annotations

import mpmath
import sympy

from .proof import is_zero
from .result import Result

# points of each variable for the numeric check: both signs, 0, and where tanh/exp saturate
POINTS = (-40, -7.5, -1.25, -0.3, 0, 0.45, 2, 9, 35)


def prove_rewrites(op) -> list[Result]:
    out, seen = [], set()
    for i, f in enumerate(op.formulas):
        for r in f.rewrites:
            label = r.label()
            _, n = r.apply(sympy.sympify(f.expr))
            form = f"backward formula {i + 1}" if len(op.formulas) > 1 else "the backward"
            if n == 0:
                out.append(Result(op.name, form, f"rewrite {label}", "FAILED",
                                  "matches nothing in the formula: a rewrite must replace what the formula writes"))
            if label in seen:
                continue
            seen.add(label)
            out.append(_identity(op, r, label))
    return out


def _identity(op, r, label) -> Result:
    u = r.variables()
    written, kernel = r.sides(u)
    try:
        proven = _zero_on_each_sign(written - kernel, u)
    except Exception as e:   # a proof that crashes is a failed proof
        return Result(op.name, "kernel form", f"rewrite {label}", "FAILED", f"{type(e).__name__}: {e}")
    if not proven:
        return Result(op.name, "kernel form", f"rewrite {label}", "FAILED", "the two sides do not simplify to one")
    bad = _numeric_counterexample(written, kernel, u)
    if bad is not None:
        return Result(op.name, "kernel form", f"rewrite {label}", "FAILED",
                      "the two sides differ at 60 digits", {str(k): v for k, v in bad.items()})
    return Result(op.name, "kernel form", f"rewrite {label}", "proven",
                  f"for every real {', '.join(map(str, u))}; 60 digits at {len(POINTS) ** min(len(u), 2)} points")


def _reads_sign(diff, v) -> bool:
    """diff reads |v|, or branches on a condition of v (a kernel form chosen by the sign: SquareplusBackward's
    1 + 1/sqrt(1 + b/u^2) for u > 0, b/(s*(s - u)) elsewhere)."""
    return diff.has(sympy.Abs(v)) or any(v in c.free_symbols for p in diff.atoms(sympy.Piecewise)
                                         for _, c in p.args)


def _zero_on_each_sign(diff, u) -> bool:
    """diff is 0 for every real value of u: directly, or where it reads |v| of a variable v or branches on v, for
    v > 0, v < 0 and v = 0 apart (AsinhGrad's 1/(e^u + e^-u) = e^-|u|/(1 + e^-2|u|): SymPy does not split on the
    sign itself)."""
    if is_zero(diff):
        return True
    signed = [v for v in u if _reads_sign(diff, v)]
    if not signed:
        return False
    v = signed[0]
    pos, neg = sympy.Symbol(f"{v}_pos", positive=True), sympy.Symbol(f"{v}_neg", negative=True)
    return all(_zero_on_each_sign(diff.xreplace({v: side}), [w if w != v else side for w in u])
               for side in (pos, neg)) and is_zero(diff.xreplace({v: sympy.Integer(0)}))


def _numeric_counterexample(written, kernel, u):
    """A point (of the first two variables; the others at 0.7) where the sides differ at 60 digits, else None.
    A symbol of the spec a side reads besides the pattern variables (SquareplusBackward's scalar b) is one of the
    others (it was left symbolic, and mpmath raised TypeError)."""
    u = list(u) + sorted((written.free_symbols | kernel.free_symbols) - set(u), key=str)
    with mpmath.workdps(60):
        fw = sympy.lambdify(u, written, "mpmath")
        fk = sympy.lambdify(u, kernel, "mpmath")
        grid = [(p,) for p in POINTS] if len(u) == 1 else [(p, q) for p in POINTS for q in POINTS]
        for pt in grid:
            args = [mpmath.mpf(v) for v in pt] + [mpmath.mpf("0.7")] * (len(u) - len(pt))
            try:
                a, b = fw(*args), fk(*args)
            except (ZeroDivisionError, ValueError):
                continue
            if abs(a - b) > mpmath.mpf(10) ** -50 * max(1, abs(a)):
                return dict(zip(map(str, u), pt))
    return None
