"""Branch conditions over intervals: where the pieces of a Piecewise switch, and which piece holds where.

Conditions in specs compare one variable with a bound free of it (`x > lam`, `Abs(x) <= lam`, `y > 0`),
possibly combined with And/Or/Not; a condition not linear in the variable (`exp(x) > 2`) switches at the real
roots SymPy's `solveset` finds, and its truth between two roots is its truth at a point between them.  Abs,
sign, Min, Max and Heaviside of the variable are branches too (`piecewise_form`).  On an open interval between
two consecutive branch points each such condition has one truth value, which we decide symbolically from the interval's end points under the symbols'
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
        var = sympy.Dummy("a")
        e_abs = e.xreplace({sympy.Abs(u): var})
        abs_form = u not in e_abs.free_symbols      # linear in Abs(u) rather than in u
        v = var if abs_form else u
        lin = e_abs if abs_form else e
        a = sympy.diff(lin, v)
        if a.free_symbols & {u, var} or a == 0:
            return _nonlinear(cond, e, u)
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


def _nonlinear(cond, e, u):
    """A condition `e op 0` not linear in u: ('fn', e, op, roots), its truth decided at a point between roots."""
    try:
        roots = sympy.solveset(e, u, domain=sympy.S.Reals)
    except (NotImplementedError, ValueError, TypeError) as err:
        raise Undecided(f"cannot solve the condition {cond} for {u}: {err}") from None
    if not isinstance(roots, sympy.FiniteSet):
        raise Undecided(f"condition {cond}: cannot find where it switches ({e} = 0 for {u} in {roots})")
    return ("fn", e, cond.rel_op, tuple(roots.args), u)


def _inside(lo, hi):
    """A point of the open interval (lo, hi)."""
    if lo == -sympy.oo and hi == sympy.oo:
        return sympy.Integer(0)
    if lo == -sympy.oo:
        return hi - 1
    if hi == sympy.oo:
        return lo + 1
    return (lo + hi) / 2


_REL = {">": sympy.Gt, ">=": sympy.Ge, "<": sympy.Lt, "<=": sympy.Le, "==": sympy.Eq, "!=": sympy.Ne}


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
    if tree[0] == "fn":
        return list(tree[3])
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
    if kind == "fn":   # no root inside (lo, hi): the sign of e there is its sign at any inner point
        _, e, op, _, u = tree
        return _decide(_REL[op](e.subs(u, _inside(lo, hi)), 0))
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
    if kind == "fn":
        _, e, op, _, u = tree
        return _decide(_REL[op](e.subs(u, value), 0))
    op, c = tree
    return _decide(_REL[op](value, c))


# ---- kinks of functions as branches ------------------------------------------------------------------------
_KINKED = (sympy.Abs, sympy.sign, sympy.Max, sympy.Min, sympy.Heaviside)


def piecewise_form(expr, u):
    """`expr` with every Abs, sign, Max, Min and Heaviside of an argument in `u` written as a Piecewise, and the
    branches folded to the top: the points where those functions switch become branch points like any other.

    The fold goes innermost first and builds each branch's condition by substitution, without SymPy's
    `piecewise_fold`: that one turns a condition holding a Piecewise (an Abs inside an Abs) into an ITE and
    simplifies it with `simplify_logic`, which ran for over half an hour on a fuzzed formula (issue 29, seed 38:
    `(exp(tanh((x - alpha)*|alpha*x - 1|)) - 1)*|1 + alpha - exp(tanh(...))|`).  Here the inner kink is replaced
    by its value on each branch first, so every condition the outer kink gets is free of Piecewise."""
    expr = sympy.sympify(expr)
    if not any(u in a.free_symbols for a in expr.atoms(*_KINKED)):
        return expr
    pieces, done = [(expr, sympy.true)], []
    while pieces:
        e, cond = pieces.pop(0)
        node = _innermost_branching(e, u)
        if node is None:
            done.append((e, cond))
            continue
        # Piecewise semantics are ordered (the first true condition wins), so a piece splits into its node's
        # branches in their order, each under the piece's own condition: the last one keeps `True` where it was
        form = node if isinstance(node, sympy.Piecewise) else node.rewrite(sympy.Piecewise)
        split = [(e.xreplace({node: value}), sympy.And(cond, c)) for value, c in form.args]
        pieces[:0] = [(v, c) for v, c in split if c != sympy.false]
    return sympy.Piecewise(*done)


def _innermost_branching(e, u):
    """A Piecewise, or an Abs/sign/Max/Min/Heaviside of `u`, with none of either inside it; None if `e` has none.
    The first one in SymPy's canonical order, so that the fold is deterministic."""
    def branching(a):
        return isinstance(a, sympy.Piecewise) or (isinstance(a, _KINKED) and u in a.free_symbols)
    found = [a for a in sympy.preorder_traversal(e) if branching(a)]
    inner = [a for a in found if not any(branching(b) for arg in a.args for b in sympy.preorder_traversal(arg))]
    return min(inner, key=sympy.default_sort_key) if inner else None


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
