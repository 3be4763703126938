"""Kernel forms: a documented backward computed in a numerically better but equal form.

A formula is written for readers and proved as written; where a sub-expression of it loses accuracy in FLOAT
(1 - tanh²(u) cancels where tanh(u) is near ±1: 1.6% off at u = 3.3, 0 instead of 6e-8 from u = 9), the spec
states an identity that replaces it in the kernels:

    SECH2 = Rewrite(lambda u: 1 - tanh(u)**2, lambda u: 4 * sigmoid(2 * u) * sigmoid(-2 * u))
    Formula(g * (1 - tanh(x)**2), rewrites=(SECH2,))

Each side is a function of pattern variables (its parameters), which stand for any real sub-expression.  The
proof stays on the documented form (a VJP proof of the rewritten form can take SymPy far longer: 4σ(2u)σ(-2u)
has exponentials of 2u where the forward has tanh(u)); `opgen verify` proves each identity on its own, for every
real value of its variables (one small expression: milliseconds), checks it at 60 digits at a few points, and
fails a rewrite that matches nothing in its formula.  Replacing sub-expressions by equal ones keeps the value,
so the kernels' form is the documented backward.  Every kernel (NumPy, C, Ascend C) and the mpmath check of
`opgen verify` read the rewritten form (`Variant.kernel_expr`); the VJP proof, the docs and the oracle's error
bound (the documented formula evaluated in FLOAT) the documented one, and the op's notes say what the kernels
compute instead.

A pattern that is a sum matches any sum holding its terms (1 - tanh²(u) inside 1 - tanh²(u) + β·t·σ(-v)).
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Callable

import sympy


@dataclass(frozen=True)
class Rewrite:
    """written(*vars) is computed as kernel(*vars), both functions of the same pattern variables."""
    written: Callable
    kernel: Callable

    @property
    def arity(self) -> int:
        return len(inspect.signature(self.written).parameters)

    def sides(self, variables) -> tuple:
        return sympy.sympify(self.written(*variables)), sympy.sympify(self.kernel(*variables))

    def variables(self) -> tuple:
        """Real symbols u (u0, u1, ... for several) standing for the pattern variables in proofs and messages."""
        return sympy.symbols(f"u0:{self.arity}", real=True) if self.arity > 1 else (sympy.Symbol("u", real=True),)

    def label(self) -> str:
        w, k = self.sides(self.variables())
        return f"{w} -> {k}"

    def apply(self, expr) -> tuple:
        """(expr with every match replaced, innermost first, and how many were)."""
        wilds = [sympy.Wild(f"rw{i}_") for i in range(self.arity)]
        written, _ = self.sides(wilds)
        rest = sympy.Wild("rw_rest_")
        pattern = written + rest if isinstance(written, sympy.Add) else written
        count = [0]

        def matched(node):
            if not isinstance(node, sympy.Expr) or node.is_Atom:
                return None
            m = node.match(pattern)
            if m is None or any(w not in m for w in wilds):
                return None
            # only literal matches: the node is the pattern's terms (plus the rest), nothing SymPy re-arranged
            w_here = written.xreplace(m)
            if (w_here + m.get(rest, 0) if rest in pattern.free_symbols else w_here) != node:
                return None
            return m

        def replace(node):
            m = matched(node)
            if m is None:
                return node
            count[0] += 1
            args = [m[w] for w in wilds]
            _, k = self.sides(args)
            return k + m.get(rest, 0) if rest in pattern.free_symbols else k

        def walk(node):   # innermost first: a replaced argument is what its parent then matches against
            if not node.args:
                return node
            args = [walk(a) for a in node.args]
            if any(a is not b for a, b in zip(args, node.args)):
                node = node.func(*args)
            return replace(node)

        return walk(sympy.sympify(expr)), count[0]


def kernel_form(expr, rewrites) -> sympy.Expr:
    """The documented `expr` with the formula's rewrites applied, in order."""
    expr = sympy.sympify(expr)
    for r in rewrites:
        expr, _ = r.apply(expr)
    return expr
