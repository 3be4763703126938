"""A sum that cancels (codegen.cancellation.Extended) in a FLOAT C kernel: FLOAT first, with a bound on its error;
double (codegen.backends.c.extended) only for the elements whose FLOAT result the bound does not vouch for.

Each node of the sum is computed in FLOAT, in an order this module fixes (n-ary sums and products left to right),
beside `e`, a FLOAT upper bound on |computed - exact| (running error analysis, Higham, *Accuracy and Stability of
Numerical Algorithms*, 3.3), where *exact* is the node's real value on the same FLOAT operands.  With u = 2^-24 and
computed values written with a hat:

* an operand (a tensor element, a scalar, a row sum already rounded to FLOAT) or an integer up to 2^24: exact, e = 0;
* a + b: e_a + e_b + u|r|, r the rounded sum (round to nearest: |fl(z) - z| <= u|fl(z)| while fl(z) is normal; a sum
  that is subnormal is exact);
* a * b: |a|e_b + |b|e_a + e_a e_b + u|p| + ETA (ETA: a product that underflows is off by up to 2^-150, and each
  product of the bound's own formula that underflows loses as much);
* exp(a): opgen_expf's own error, EXP_REL |exp| + EXP_ABS, plus the argument's: e^a (e^(e_a) - 1) <= e^a e_a (1 + e_a)
  for e_a <= 1 (an argument further off gives e = inf: recomputed);
* sigmoid(a) (opgen_sigmoidf): its own error, relative SIGMOID_REL_POS (a >= 0) or SIGMOID_REL_NEG, plus
  SIGMOID_ABS, plus the argument's e_a / 4 (the sigmoid's slope is at most 1/4);
* min/max(a, b): max(e_a, e_b) (both are 1-Lipschitz in each argument); a Piecewise whose conditions compare exact
  operands: the chosen branch's value and bound.

The bound is itself computed in FLOAT: sums and products of nonnegative numbers, each rounding down by at most a
factor (1 - u) (the underflows are in ETA), so the computed bound times ROUNDING_MARGIN covers the exact one while
fewer than MAX_BOUND_OPS operations are chained (checked).  An element is accepted when

    e * ROUNDING_MARGIN * 2^22 <= |s|   and   |s| <= FLT_MAX

(nan fails both), which gives |s - exact| <= 2^-22 |s|, so |s - exact| <= 2^-22 / (1 - 2^-22) |exact|: fewer than 4
ulps of the exact sum (an ulp of x is more than 2^-24 |x|).  The other elements (the terms cancel by more than about
a factor two, a term or the sum overflowed, nan, a zero or subnormal sum) are recomputed in double and rounded
once, as before.  The test reads only the element's own values: the result does not depend on blocks or threads.
"""
from __future__ import annotations

import sympy

from codegen.lower import KernelVariant
from codegen.rewrite import Sigmoid

from codegen.cancellation import Extended

U = "0x1p-24F"
ETA = "0x1p-146F"          # 2^-150 for the product's own underflow, four more for the bound's products: < 2^-146
EXP_REL = "0x1p-23F"       # opgen_expf: at most 0.98 ulp of the exact e^x for every float (tests/test_guarded_sums.py)
EXP_ABS = "0x1p-148F"      # a subnormal e^x: within one subnormal ulp, 2^-149, doubled
SIGMOID_REL_POS = "0x1.ap-23F"   # a >= 0: 1/(1 + e^-a): e^-a <= 1 enters 1 + e^-a at most 2^-24 relative, 2 roundings
SIGMOID_REL_NEG = "0x1.5p-22F"   # a < 0: e^a/(1 + e^a): e^a's 2^-23, 2^-24 from 1 + e^a, 2 roundings: 5u, rounded up
SIGMOID_ABS = "0x1p-147F"  # e^a subnormal (2^-149 in the quotient) and the quotient's own underflow (2^-150)
ACCEPT = 2 ** -22          # |s - exact| <= ACCEPT |s| for an accepted element: < 4 ulps
MAX_BOUND_OPS = 120        # (1 - u)^(MAX_BOUND_OPS + 1) * ROUNDING_MARGIN >= 1
ROUNDING_MARGIN = 1 + 2 ** -16
TILE = 256                 # elements a kernel loop tests before recomputing the failed ones (int32 flags on the stack)


class Unguardable(Exception):
    """A node the bound does not cover (a division, a power, a condition on a rounded value): the sum stays in
    double for every element, as before."""


class _Bound:
    """The FLOAT lines computing one sum's value and error bound, node by node (`v<k>_<n>`, `e<k>_<n>`)."""

    def __init__(self, printer, prefix: str):
        self.printer = printer
        self.prefix = prefix
        self.lines: list[str] = []
        self.ops = 0   # roundings in the bound's own computation (all of them: more than on any one path)
        self.count = 0
        self.seen: dict = {}   # a node met twice (Swish's beta*x, CrossEntropyLossGrad's exp(logProb)): once

    def _value(self, text: str) -> str:
        """A new node's FLOAT value: its C name."""
        self.lines.append(f"const float {self.prefix}v{self.count} = {text};")
        self.count += 1
        return f"{self.prefix}v{self.count - 1}"

    def _error(self, v: str, text: str | None) -> tuple[str, str | None]:
        """(v, the name of its bound), the bound computed by `text` (None: exact)."""
        if text is None:
            return v, None
        e = v.replace(f"{self.prefix}v", f"{self.prefix}e", 1)
        self.lines.append(f"const float {e} = {text};")
        return v, e

    def _sum(self, *parts) -> str:
        """The nonnegative parts added left to right (None: a part that is zero)."""
        kept = [p for p in parts if p is not None]
        self.ops += len(kept) - 1
        return " + ".join(kept)

    def _times(self, a: str, b: str) -> str:
        self.ops += 1
        return f"{a}*{b}"

    def walk(self, expr) -> tuple[str, str | None]:
        """(value, bound) of `expr`: C names, or a literal and None for an exact operand."""
        if expr not in self.seen:
            self.seen[expr] = self._node(expr)
        return self.seen[expr]

    def _node(self, expr) -> tuple[str, str | None]:
        if isinstance(expr, sympy.Symbol):
            return self.printer._print(expr), None
        if expr.is_Integer and abs(int(expr)) <= 2 ** 24:
            return str(int(expr)), None
        if isinstance(expr, sympy.Add):
            return self._fold(expr.args, self._add)
        if isinstance(expr, sympy.Mul):
            return self._fold(expr.args, self._mul)
        if isinstance(expr, sympy.exp):
            return self._exp(expr.args[0])
        if isinstance(expr, Sigmoid):
            return self._sigmoid(expr.args[0])
        if isinstance(expr, (sympy.Min, sympy.Max)):
            return self._fold(expr.args, lambda a, b: self._extremum(type(expr), a, b))
        if isinstance(expr, sympy.Piecewise):
            return self._piecewise(expr)
        raise Unguardable(f"{type(expr).__name__} in a sum that cancels")

    def _fold(self, args, step):
        acc = self.walk(args[0])
        for a in args[1:]:
            acc = step(acc, self.walk(a))
        return acc

    def _add(self, a, b):
        (va, ea), (vb, eb) = a, b
        v = self._value(f"{va} + {vb}")
        self.ops += 1
        return self._error(v, self._sum(ea, eb, self._times(U, f"fabsf({v})"), ETA))

    def _mul(self, a, b):
        (va, ea), (vb, eb) = a, b
        if va == "-1":   # a negation (SymPy's coefficient comes first): exact
            return self._error(self._value(f"-{vb}"), eb)
        v = self._value(f"{va}*{vb}")
        self.ops += 1
        parts = [None if eb is None else self._times(f"fabsf({va})", eb),
                 None if ea is None else self._times(f"fabsf({vb})", ea),
                 None if ea is None or eb is None else self._times(ea, eb),
                 self._times(U, f"fabsf({v})"), ETA]
        return self._error(v, self._sum(*parts))

    def _exp(self, arg):
        va, ea = self.walk(arg)
        v = self._value(f"opgen_expf({va})")
        own = self._sum(self._times(EXP_REL, v), EXP_ABS)
        if ea is None:
            return self._error(v, own)
        # e^a (e^(e_a) - 1) <= (v (1 + 2^-22) + 2^-148) e_a (1 + e_a), for e_a <= 1 only
        spread = f"(({ea} <= 1) ? {ea}*(1 + {ea}) : INFINITY)"
        self.ops += 4
        return self._error(v, self._sum(f"({v}*(1 + 0x1p-22F) + 0x1p-148F)*{spread}", own))

    def _sigmoid(self, arg):
        va, ea = self.walk(arg)
        v = self._value(f"opgen_sigmoidf({va})")
        own = self._sum(self._times(f"(({va} >= 0) ? {SIGMOID_REL_POS} : {SIGMOID_REL_NEG})", v), SIGMOID_ABS)
        return self._error(v, own if ea is None else self._sum(self._times("0.25F", ea), own))

    def _extremum(self, kind, a, b):
        (va, ea), (vb, eb) = a, b
        name = "opgen_minimumf" if kind is sympy.Min else "opgen_maximumf"
        v = self._value(f"{name}({va}, {vb})")
        if ea is None and eb is None:
            return v, None
        return self._error(v, f"opgen_maximumf({ea or '0.0F'}, {eb or '0.0F'})")

    def _piecewise(self, expr):
        args = list(expr.args)
        if args[-1][1] != sympy.true:
            raise Unguardable("a Piecewise without a final True branch")
        branches = [(self.walk(e), self._condition(c)) for e, c in args[:-1]]
        value, bound = self.walk(args[-1][0])
        exact = bound is None and all(b is None for (_, b), _ in branches)
        bound = bound or "0.0F"
        for (v, e), c in reversed(branches):
            value = f"({c} ? {v} : {value})"
            bound = f"({c} ? {e or '0.0F'} : {bound})"
        return self._error(self._value(value), None if exact else bound)

    def _condition(self, cond) -> str:
        """A condition on exact operands only (CrossEntropyLossGrad's classIndex == target): the same branch as in
        double.  A condition on a rounded value could take the other branch: not covered."""
        for rel in sympy.preorder_traversal(cond):
            if isinstance(rel, sympy.core.relational.Relational):
                for side in (rel.lhs, rel.rhs):
                    if not (isinstance(side, sympy.Symbol) or side.is_Integer and abs(int(side)) <= 2 ** 24):
                        raise Unguardable("a condition on a rounded value")
        return self.printer._print(cond)


def guarded_sum(printer, ext: Extended, prefix: str) -> tuple[list[str], str, str]:
    """(lines, value, accepted): the FLOAT lines of the sum and its bound, the C name of its FLOAT value, and the
    condition (int 0/1, branch-free) under which that value is within 4 ulps of the exact sum."""
    b = _Bound(printer, prefix)
    value, bound = b.walk(ext.args[0])
    if b.ops >= MAX_BOUND_OPS:
        raise Unguardable("a bound too long for ROUNDING_MARGIN")
    scale = "0x1.0001p+22F"   # ROUNDING_MARGIN * 2^22, exact in FLOAT
    assert float.fromhex("0x1.0001p+22") == ROUNDING_MARGIN / ACCEPT
    if bound is None:   # (no rounding at all: a sum of exact operands; cancellation.cancels never makes one)
        return b.lines, value, f"(fabsf({value}) <= 0x1.fffffep+127F)"
    return b.lines, value, f"(({bound}*{scale} <= fabsf({value})) & (fabsf({value}) <= 0x1.fffffep+127F))"


def extended_sums(kv: KernelVariant) -> list[Extended]:
    """The variant's distinct Extended sums, in the order its expressions first show them."""
    out = []
    for e in [x for _, x in kv.body] + [kv.result]:
        for a in sympy.preorder_traversal(e):
            if isinstance(a, Extended) and a not in out:
                out.append(a)
    return out


def guarded_loop(kv: KernelVariant, printer, loads: list[str], compute: list[str]) -> list[str] | None:
    """The kernel loop over `n` elements (`res[i]`) with its Extended sums in FLOAT first, or None when it has
    none (or one the bound does not cover: then every element computes it in double, `compute` as it stands).

    Per tile of TILE elements: a vectorizable pass computes every element with the FLOAT sums and records in
    `redo[j]` whether any sum failed its test; only if one did, a second pass recomputes those elements with
    `compute`, the sums in double.  A whole tile is never recomputed for one element."""
    sums = extended_sums(kv)
    if not sums:
        return None
    names, lines, tests = {}, [], []
    try:
        for k, ext in enumerate(sums):
            sl, value, ok = guarded_sum(printer, ext, f"x{k}")
            lines += sl
            tests.append(ok)
            names[ext] = sympy.Symbol(value)
    except Unguardable:
        return None
    fast = lines + [f"const float {s} = {printer.doprint(e.xreplace(names))};" for s, e in kv.body]
    fast.append(f"res[i] = {printer.doprint(kv.result.xreplace(names))};")
    ok = " & ".join(tests)
    inner = ["    " * 2 + line for line in ["const int64_t i = i0 + j;", *loads, *fast,
                                            f"redo[j] = !({ok});", "nredo += redo[j];"]]
    redo = ["    " * 3 + line for line in ["const int64_t i = i0 + j;", *compute]]
    return [f"for (int64_t i0 = 0; i0 < n; i0 += {TILE}) {{",
            f"    const int64_t m = n - i0 < {TILE} ? n - i0 : {TILE};",
            f"    int32_t redo[{TILE}];   /* 1: an element whose FLOAT sum failed its test (codegen/backends/c/guarded.py) */",
            "    int32_t nredo = 0;",
            "    for (int64_t j = 0; j < m; ++j) {", *inner, "    }",
            "    if (nredo == 0)",
            "        continue;",
            "    for (int64_t j = 0; j < m; ++j) {",
            "        if (redo[j]) {", *redo, "        }",
            "    }",
            "}"]
