"""Branch conditions over intervals: where the pieces of a Piecewise switch, and which piece holds where.

Conditions in specs compare one variable with a bound free of it (`x > lam`, `Abs(x) <= lam`, `y > 0`),
possibly combined with And/Or/Not.  On an open interval between two consecutive branch points each such
condition has one truth value, which we decide symbolically from the interval's end points under the symbols'
assumptions.  Three-valued: True, False, or None (SymPy cannot decide, and the proof says so).
"""
from __future__ import annotations

import sympy
from sympy.core.relational import Relational


class Undecided(Exception):
    pass


def _decide(rel) -> bool | None:
    if isinstance(rel, Relational):
        simple = sympy.simplify(rel)
        if simple in (sympy.true, sympy.false):
            return simple == sympy.true
        # SymPy leaves some relations of rational functions open (t/(2t+2) < (t+2)/(2t+2) for t > 0): the sign
        # of the simplified difference decides them
        d = sympy.simplify(rel.lhs - rel.rhs)
        if d.is_zero:
            return rel.rel_op in ("==", ">=", "<=")
        if d.is_positive:
            return rel.rel_op in (">", ">=", "!=")
        if d.is_negative:
            return rel.rel_op in ("<", "<=", "!=")
        return None
    if rel == sympy.true:
        return True
    if rel == sympy.false:
        return False
    return None


def atoms(cond, u):
    """Normalise a condition into a tree of ('and'|'or'|'not', ...) and (op, c) atoms meaning `u op c`."""
    if cond in (sympy.true, sympy.false) or cond is True or cond is False:
        return ("const", bool(cond))
    if isinstance(cond, sympy.And):
        return ("and",) + tuple(atoms(a, u) for a in cond.args)
    if isinstance(cond, sympy.Or):
        return ("or",) + tuple(atoms(a, u) for a in cond.args)
    if isinstance(cond, sympy.Not):
        return ("not", atoms(cond.args[0], u))
    if isinstance(cond, Relational):
        op = cond.rel_op
        e = cond.lhs - cond.rhs                     # condition: e op 0
        if u not in e.free_symbols:
            return ("const", _need(_decide(cond), cond))
        inner = [a for a in e.atoms(sympy.Abs) if u in a.free_symbols and a.args[0] != u]
        if len(inner) == 1 and op in (">", ">=", "<", "<="):
            # |f| op c with f linear in u (SmoothL1's |x - t| < beta): f op c and -f op c, both (< <=) or either
            var = sympy.Dummy("a")
            e_abs = e.xreplace({inner[0]: var})
            a = sympy.diff(e_abs, var)
            if u not in e_abs.free_symbols and not a.free_symbols & {var} and a != 0 and a.is_comparable:
                c = sympy.simplify(-(e_abs - a * var) / a)
                if a.is_negative:
                    op = {">": "<", "<": ">", ">=": "<=", "<=": ">="}[op]
                rel = {">": sympy.Gt, ">=": sympy.Ge, "<": sympy.Lt, "<=": sympy.Le}[op]
                f = inner[0].args[0]
                parts = (atoms(rel(f, c), u), atoms(rel(-f, c), u))
                return ("or",) + parts if op in (">", ">=") else ("and",) + parts
        var = sympy.Dummy("a")
        e_abs = e.xreplace({sympy.Abs(u): var})
        abs_form = u not in e_abs.free_symbols      # linear in Abs(u) rather than in u
        v = var if abs_form else u
        lin = e_abs if abs_form else e
        a = sympy.diff(lin, v)
        if a.free_symbols & {u, var} or a == 0:
            poly = _polynomial_atoms(e, op, u)
            if poly is not None:
                return poly
            raise Undecided(f"condition {cond} is not linear in {u} or Abs({u}), nor a polynomial in {u} with "
                            f"numeric coefficients")
        c = sympy.simplify(-(lin - a * v) / a)
        if a.is_negative:
            op = {">": "<", "<": ">", ">=": "<=", "<=": ">=", "==": "==", "!=": "!="}[op]
        elif not a.is_positive:
            raise Undecided(f"cannot tell the sign of {a} in condition {cond}")
        if not abs_form:
            return (op, c)
        if op == ">":
            return ("or", (">", c), ("<", -c))
        if op == ">=":
            return ("or", (">=", c), ("<=", -c))
        if op == "<":
            return ("and", ("<", c), (">", -c))
        if op == "<=":
            return ("and", ("<=", c), (">=", -c))
    raise Undecided(f"condition {cond} is not of the form `{u} op bound` or `Abs({u}) op bound`")


def _polynomial_atoms(e, op, u):
    """`e op 0` for e a polynomial in u with numeric coefficients (BCE's x(1 - x) < 1e-12): the union of the
    intervals between its real roots where it holds, or None when e is not such a polynomial."""
    try:
        poly = sympy.Poly(sympy.expand(e), u)
    except sympy.PolynomialError:
        return None
    if poly.degree() < 2 or not all(c.is_number for c in poly.all_coeffs()):
        return None
    roots = sorted(set(sympy.real_roots(poly)), key=lambda r: float(r))
    rel = {">": sympy.Gt, ">=": sympy.Ge, "<": sympy.Lt, "<=": sympy.Le, "==": sympy.Eq, "!=": sympy.Ne}[op]
    if op in ("==", "!="):
        eqs = tuple(("==", r) for r in roots) or (("const", False),)
        tree = ("or",) + eqs
        return tree if op == "==" else ("not", tree)
    closed = op in (">=", "<=")
    # the open intervals between consecutive roots where the condition holds (each decided at a point inside)
    ends = [None] + roots + [None]
    parts = []
    for lo, hi in zip(ends, ends[1:]):
        probe = (lo - 1 if hi is None else hi - 1) if lo is None else (lo + 1 if hi is None else (lo + hi) / 2)
        if not _need(_decide(rel(e.subs(u, probe), 0)), f"{e} {op} 0 between its roots"):
            continue
        bound = []
        if lo is not None:
            bound.append((">=" if closed else ">", lo))
        if hi is not None:
            bound.append(("<=" if closed else "<", hi))
        parts.append(("and",) + tuple(bound) if bound else ("const", True))
    if closed:   # a root where e touches 0 without changing sign
        parts += [("==", r) for r in roots]
    return ("or",) + tuple(parts) if parts else ("const", False)


def _need(v, what):
    if v is None:
        raise Undecided(f"cannot decide {what}")
    return v


def thresholds(tree) -> list:
    """The bounds a condition tree compares against."""
    if tree[0] in ("and", "or", "not"):
        return [c for sub in tree[1:] for c in thresholds(sub)]
    if tree[0] == "const":
        return []
    return [tree[1]]


def truth_on(tree, lo, hi):
    """Truth of the tree for every u in the open interval (lo, hi), lo < hi; None if it varies or is undecided."""
    kind = tree[0]
    if kind == "const":
        return tree[1]
    if kind in ("and", "or"):
        vals = [truth_on(t, lo, hi) for t in tree[1:]]
        if kind == "and":
            return False if False in vals else (None if None in vals else True)
        return True if True in vals else (None if None in vals else False)
    if kind == "not":
        v = truth_on(tree[1], lo, hi)
        return None if v is None else not v
    op, c = tree
    if op in (">", ">="):
        if _decide(sympy.Le(c, lo)):
            return True
        if _decide(sympy.Le(hi, c)):
            return False
    elif op in ("<", "<="):
        if _decide(sympy.Le(hi, c)):
            return True
        if _decide(sympy.Le(c, lo)):
            return False
    elif op == "!=":
        if _decide(sympy.Le(c, lo)) or _decide(sympy.Le(hi, c)):
            return True
    elif op == "==":
        if _decide(sympy.Le(c, lo)) or _decide(sympy.Le(hi, c)):
            return False
    return None


def truth_at(tree, value):
    """Truth of the tree at one point."""
    kind = tree[0]
    if kind == "const":
        return tree[1]
    if kind in ("and", "or"):
        vals = [truth_at(t, value) for t in tree[1:]]
        if kind == "and":
            return False if False in vals else (None if None in vals else True)
        return True if True in vals else (None if None in vals else False)
    if kind == "not":
        v = truth_at(tree[1], value)
        return None if v is None else not v
    op, c = tree
    rel = {">": sympy.Gt, ">=": sympy.Ge, "<": sympy.Lt, "<=": sympy.Le, "==": sympy.Eq, "!=": sympy.Ne}[op]
    return _decide(rel(value, c))


def sort_points(points) -> list:
    """Distinct points in increasing order; raises Undecided if two cannot be compared."""
    out = []
    for p in points:
        p = sympy.simplify(p)
        if any(_decide(sympy.Eq(p, q)) for q in out):
            continue
        out.append(p)
    n = len(out)
    for i in range(n):
        for j in range(n - 1 - i):
            a, b = out[j], out[j + 1]
            if _decide(sympy.Lt(b, a)):
                out[j], out[j + 1] = b, a
            elif not _decide(sympy.Lt(a, b)):
                raise Undecided(f"cannot order the branch points {a} and {b}")
    return out


def first_piece(pieces_trees, truth):
    """Index of the first piece whose condition `truth(tree)` is True; Undecided if an earlier one is unknown."""
    for i, tree in enumerate(pieces_trees):
        v = truth(tree)
        if v is True:
            return i
        if v is None:
            raise Undecided("a branch condition is not constant on the interval")
    raise Undecided("no branch applies")
