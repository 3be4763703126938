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
* min/max(a, b): max(e_a, e_b) (both are 1-Lipschitz in each argument); a Piecewise whose conditions compare exact
  operands: the chosen branch's value and bound.

The bound is itself computed in FLOAT: sums and products of nonnegative numbers, each rounding down by at most a
factor (1 - u) (the underflows are in ETA), so the computed bound times ROUNDING_MARGIN covers the exact one while
fewer than MAX_BOUND_OPS operations are chained (checked).  An element is accepted when

    e * ROUNDING_MARGIN * 2^21 <= |s|   and   |s| <= FLT_MAX

(nan fails both), which gives |s - exact| <= 2^-21 |s|, so |s - exact| <= 2^-21 / (1 - 2^-21) |exact|: fewer than 8
ulps of the exact sum (an ulp of x is more than 2^-24 |x|).  The other elements (the terms cancel by more than about
a factor three, a term or the sum overflowed, nan, a zero or subnormal sum) are recomputed in double and rounded
once, as before.  The test reads only the element's own values: the result does not depend on blocks or threads.

Sums holding a sigmoid (BCE-with-logits' σ(x) - t, Swish's and ClippedSwiGLU's v (1 - σ(v)) + 1) stay in double for
every element: opgen_sigmoidf's own error (3-5 u, and 1 - σ(v) loses it as v grows) is as large as the few ulps
the test allows wherever the terms differ by less than a factor of a few, which on ordinary data is most elements.
Measured with a sigmoid bound (5.25 u for a < 0, 3.25 u above; 1 - σ(v) taken as σ(-v)) on the bench's data: BCE
44% of elements failed (x ~ N(0, 2), t ~ U(0, 1); 18% with t in {0, 1}), Swish 21% (x ~ N(0, 1)); with a 4-ulp
test and that many scalar recomputations the kernels ran 1.8-2.2x slower than all in double (2^16 elements).  exp alone is within 0.69 ulp, and LogSoftmaxBackward's g - e^y Σg fails on
2.7% of its elements (rows of 64), 0.8% (1024), 0.01% (32768).
"""
from __future__ import annotations

import sympy

from codegen.cancellation import Extended
from codegen.lower import KernelVariant
from codegen.rewrite import Sigmoid

U = "0x1p-24F"
ETA = "0x1p-146F"          # 2^-150 for the product's own underflow, four more for the bound's products: < 2^-146
EXP_REL = "0x1.7p-24F"     # opgen_expf: at most 0.686 of 2^-23 |e^x| for every float (tests/test_guarded_sums.py --deep)
EXP_ABS = "0x1p-148F"      # a subnormal e^x: within one subnormal ulp, 2^-149, doubled
ACCEPT = 2 ** -21          # |s - exact| <= ACCEPT |s| for an accepted element: < 8 ulps
MAX_BOUND_OPS = 120        # (1 - u)^(MAX_BOUND_OPS + 1) * ROUNDING_MARGIN >= 1
ROUNDING_MARGIN = 1 + 2 ** -16
SCALAR_REDO = 16           # at most 1 in 16 of a tile failed: recomputed one at a time, else the tile vectorized
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
            raise Unguardable("a sigmoid: its FLOAT error fails the test on ordinary data (module docstring)")
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
    condition (int 0/1, branch-free) under which that value is within 8 ulps of the exact sum."""
    b = _Bound(printer, prefix)
    value, bound = b.walk(ext.args[0])
    if b.ops >= MAX_BOUND_OPS:
        raise Unguardable("a bound too long for ROUNDING_MARGIN")
    scale = "0x1.0001p+21F"   # ROUNDING_MARGIN / ACCEPT, exact in FLOAT
    assert float.fromhex(scale.rstrip("F")) == ROUNDING_MARGIN / ACCEPT
    if bound is None:   # (no rounding at all: a sum of exact operands; cancellation.cancels never makes one)
        return b.lines, value, f"(fabsf({value}) <= 0x1.fffffep+127F)"
    return b.lines, value, f"(({bound}*{scale} <= fabsf({value})) & (fabsf({value}) <= 0x1.fffffep+127F))"


def guards(kernel) -> bool:
    """Whether any of the kernel's sums that cancel is computed in FLOAT first (it has one the bound covers)."""
    from .printer import KernelCPrinter
    for kv in kernel.variants:
        for ext in extended_sums(kv):
            try:
                guarded_sum(KernelCPrinter(), ext, "x")
                return True
            except Unguardable:
                pass
    return False


def helper_lines(kernel) -> list[str]:
    """The hook through which a test harness counts the elements recomputed in double (none in the library)."""
    if not guards(kernel):
        return []
    return ["/* OPGEN_REDONE(m, k): k of a tile's m elements recomputed in double (codegen/backends/c/guarded.py); a",
            " * harness that includes this file may count them (tests/test_guarded_sums.py), the library does not */",
            "#ifndef OPGEN_REDONE",
            "#define OPGEN_REDONE(m, k) ((void)0)",
            "#endif"]


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
    # many failed (a tile of mild cancellations: BCE's σ(x) - t with t uniform): the whole tile in double,
    # vectorized, each failed element's result selected, the same bits as the scalar recomputation
    blend = ["    " * 2 + line for line in ["const int64_t i = i0 + j;", *compute[:-1],
                                            f"res[i] = redo[j] ? {printer.doprint(kv.result)} : res[i];"]]
    assert compute[-1] == f"res[i] = {printer.doprint(kv.result)};"
    return [f"for (int64_t i0 = 0; i0 < n; i0 += {TILE}) {{",
            f"    const int64_t m = n - i0 < {TILE} ? n - i0 : {TILE};",
            f"    int32_t redo[{TILE}];   /* 1: an element whose FLOAT sum failed its test (codegen/backends/c/guarded.py) */",
            "    int32_t nredo = 0;",
            "    for (int64_t j = 0; j < m; ++j) {", *inner, "    }",
            "    OPGEN_REDONE(m, nredo);",
            "    if (nredo == 0)",
            "        continue;",
            f"    if (nredo * {SCALAR_REDO} <= m) {{   /* a few: one at a time */",
            "        for (int64_t j = 0; j < m; ++j) {",
            "            if (redo[j]) {", *["    " + r for r in redo], "            }",
            "        }",
            "        continue;",
            "    }",
            "    for (int64_t j = 0; j < m; ++j) {", *blend, "    }",
            "}"]
