"""A sum that cancels (codegen.cancellation.Extended) on the Ascend C vector unit, which has no double: every value
of the sum carried as a double-float pair hi + lo (|lo| <= ulp(hi)/2, about 48 significant bits) through it, and
hi + lo rounded once at the end.

The error-free transformations, in FLOAT instructions only (Add, Sub, Mul, Muls; no fused multiply-add: the API's
FusedMulAdd/MulAddDst do not document a single rounding, so TwoProd splits its operands instead):
  TwoSum(a, b)      s = a + b, err = (a - (s - b')) + (b - b') with b' = s - a          (Knuth: s + err = a + b)
  FastTwoSum(a, b)  s = a + b, err = b - (s - a), for |a| >= |b|                     (Dekker)
  Split(a)          c = 4097 a, h = c - (c - a), l = a - h: h has 12 bits, h·h exact (Veltkamp)
  TwoProd(a, b)     p = a b, err = ((ah bh - p) + ah bl + al bh) + al bl               (Dekker: p + err = a b)
and from them the pair's +, ×, ÷ (one Newton step on the quotient) and the functions a sum that cancels holds:
  exp(u)    r = u/2^12 (exact), e^r = 1 + r + r²/2 + r³/6 as pairs (r² by TwoProd, exact) + r⁴/24 (1 + r/5 + r²/30)
            in FLOAT (below 9e-9, so its rounding is 5e-16 of e^r), then squared 12 times as a pair: the 2^12
            squarings multiply the pair's relative error (a few 2^-48) by 4096, ~3e-11 in all.  No 2^k scaling is
            needed (the vector unit has no ldexp), which is why the reduction is by squaring.
  σ(u)      1/(1 + e) for u >= 0, e/(1 + e) otherwise, with e = exp(-|u|) as a pair (as Sigmoid.stable_form).
Any other function (log, tanh, erfc, ...) enters the sum as its FLOAT value (lo = 0): carried exactly from there
on, but with its own rounding, as before; the rational operations and exp/σ are what a sum that cancels has held
so far (BCE-with-logits' σ(x) - t).  A sum below 2^-50 of its largest term is 0, as in the double kernels.
The constants and row sums the double kernels read unrounded (codegen.lower.wide_constants, wide_reductions) enter
as pairs too: a constant's lo part from the tiling data (computed on the host in double), a row sum summed as a pair
(Lowering.pair_row_sum); their names are Lowering.lo.  A row sum beyond FLOAT's range (a row of gradients near
3.4e38) is inf as a pair; it is also kept scaled by 2^-66 (Lowering.scaled), which the overflow path below reads.

Overflow.  The double kernels (NumPy, C) hold terms up to 1e308: where BCE's posWeight·target is 1e40 they give
the finite sum, and where the sum itself is beyond FLOAT they round it to the correctly signed inf.  The pairs
overflow with FLOAT (Split's 4097 a beyond 8e34, a product beyond 3.4e38, whose error term is then inf - inf = nan).
Where the pair's sum or the FLOAT evaluation is not finite, the tile (a scalar branch: a tile with no such element
pays one ReduceSum) computes the sum again as ScaledPairs: pairs with a per-element exponent (hi + lo)·2^(66c),
hi kept below 2^62, lo := 0 where hi is not finite; terms aligned to the larger exponent, the rounded sum stepped
back up to the finite value or ±inf.  Where that is nan (an operand ±inf or nan), the FLOAT evaluation is selected:
its special values are the kernels' usual ones.  There exp(u) beyond FLOAT's 88.7 is a scaled pair too,
e^(u - 66c·ln 2)·2^(66c), up to double's own limit 709.78 (inf beyond, as in double).  What remains
(docs/accuracy.md): a quotient beyond FLOAT, and terms aligned below FLOAT's normal range (2^-120 of the largest,
far below what double resolves) lose bits or vanish.

Underflow.  Where an operand of a product or quotient is subnormal or near it (weights of 2^-140 in
CrossEntropyLossGrad's w·(p - onehot)/Σw), TwoProd's error term falls below FLOAT's range and the pair is FLOAT's
rounding.  The same path then runs: ScaledPairs also steps a nonzero hi below 2^-40 up (×2^66, c - 1; a FLOAT
leaf two steps), and an exact 0 gets the lowest exponent, so aligning to the largest ignores it.  The usual path
pays a test of each tensor factor (Abs, two compares, Or, Select) and one Maxs for the scalar ones (row sums,
scalar parameters, tested on the scalar unit), folded into the flag the tile's branch already reads.  A weighted
mean's division by the grid sum is inside the scaled sum, after the rounded pair sum on the usual path.
"""
from __future__ import annotations

import functools

import sympy

from codegen.lower import CompensatedAdd, Const, ConstLo, _inexact_in_float
from codegen.rewrite import Sigmoid
from codegen.spec.classes import GRID_SCALED, GRID_SUM

SQUARINGS = 12


def outlined(method: str, doc: str):
    """The operation's instructions as one helper function of the kernel file (codegen.backends.ascendc.outline)."""
    def wrap(f):
        @functools.wraps(f)
        def run(self, *args, **kw):
            with self.lw.group(method, doc):
                return f(self, *args, **kw)
        return run
    return wrap


def arithmetic(e, ops, one):
    """The pair of an arithmetic node — a sum, a product with its divisors, a positive integer power, a reciprocal —
    from the pairs of its parts, by `ops`' pair, add, mul, div and neg (DoubleFloat's or ScaledPairs'); `one` is
    that class's pair of 1.  None for any other node (each class has its own leaves and functions)."""
    if isinstance(e, sympy.Add):
        acc = None
        for t in e.as_ordered_terms():
            p = ops.pair(t)
            acc = p if acc is None else ops.add(acc, p)
        return acc
    if isinstance(e, sympy.Mul):
        nums = [f for f in e.as_ordered_factors() if not (isinstance(f, sympy.Pow) and f.exp == -1)]
        dens = [f.base for f in e.as_ordered_factors() if isinstance(f, sympy.Pow) and f.exp == -1]
        acc = None
        for f in nums:
            if f == -1:
                continue
            p = ops.pair(f)
            acc = p if acc is None else ops.mul(acc, p)
        acc = acc or one
        for d in dens:
            acc = ops.div(acc, ops.pair(d))
        return ops.neg(acc) if -1 in nums else acc
    if isinstance(e, sympy.Pow) and e.exp.is_Integer and e.exp > 0:
        acc = ops.pair(e.base)
        for _ in range(int(e.exp) - 1):
            acc = ops.mul(acc, ops.pair(e.base))
        return acc
    if isinstance(e, sympy.Pow) and e.exp == -1:
        return ops.div(one, ops.pair(e.base))
    return None


class DoubleFloat:
    def __init__(self, lw, guard_inf: bool = False):
        self.lw = lw
        self.memo = {}
        self.splits = {}   # a value's Veltkamp halves, split once however often it is multiplied
        # lo := 0 where hi is ±inf or nan (the overflow path, ScaledPairs): an error term of an overflowed hi is
        # inf - inf = nan, which would turn the pair's ±inf into nan at the next FastTwoSum
        self.guard_inf = guard_inf
        # the operands of its products and quotients (not the arguments of exp and σ): where one is subnormal or
        # near it, TwoProd and the split lose the low part, and lower_extended takes the scaled path (SMALL)
        self.leaves, self.depth = {}, 0

    def _guarded(self, hi, lo):
        if not self.guard_inf:
            return lo
        return self.lw._select(finite_mask(self.lw, hi), lo, "0.0F")

    # ---- FLOAT instructions ------------------------------------------------------------------------------------
    def _t(self, v):
        return self.lw._emit("Duplicate({dst}, {0}, calc);", v) if isinstance(v, str) else v

    def _op(self, name, a, b):
        return self.lw._emit(name + "({dst}, {0}, {1}, calc);", self._t(a), self._t(b))

    def _muls(self, a, s: str):
        return self.lw._emit("Muls({dst}, {0}, " + s + ", calc);", self._t(a))

    def two_sum(self, a, b):
        s = self._op("Add", a, b)
        bb = self._op("Sub", s, a)
        return s, self._guarded(s, self._op("Add", self._op("Sub", a, self._op("Sub", s, bb)), self._op("Sub", b, bb)))

    def fast_two_sum(self, a, b):
        s = self._op("Add", a, b)
        return s, self._guarded(s, self._op("Sub", b, self._op("Sub", s, a)))

    def split(self, a):
        if a not in self.splits:
            c = self._muls(a, "4097.0F")
            h = self._op("Sub", c, self._op("Sub", c, a))
            self.splits[a] = h, self._op("Sub", a, h)
        return self.splits[a]

    @outlined("PairTwoProd", "TwoProd(a, b) = (p, err), p + err = a·b exactly (Dekker, Veltkamp halves)")
    def two_prod(self, a, b):
        p = self._op("Mul", a, b)
        ah, al = self.split(a)
        bh, bl = self.split(b)
        err = self._op("Add", self._op("Sub", self._op("Mul", ah, bh), p), self._op("Mul", ah, bl))
        err = self._op("Add", self._op("Add", err, self._op("Mul", al, bh)), self._op("Mul", al, bl))
        return p, self._guarded(p, err)

    # ---- pairs (hi, lo); lo None is an exact 0 ----------------------------------------------------------------
    @outlined("PairAdd", "(hi, lo) = x + y for pairs x, y (TwoSum, then FastTwoSum)")
    def add(self, x, y):
        s, e = self.two_sum(x[0], y[0])
        for lo in (x[1], y[1]):
            if lo is not None:
                e = self._op("Add", e, lo)
        return self.fast_two_sum(s, e)

    def neg(self, x):
        return self._muls(x[0], "-1.0F"), None if x[1] is None else self._muls(x[1], "-1.0F")

    @outlined("PairMul", "(hi, lo) = x·y for pairs x, y (TwoProd of the his, then FastTwoSum)")
    def mul(self, x, y):
        p, e = self.two_prod(x[0], y[0])
        if y[1] is not None:
            e = self._op("Add", e, self._op("Mul", x[0], y[1]))
        if x[1] is not None:
            e = self._op("Add", e, self._op("Mul", x[1], y[0]))
        return self.fast_two_sum(p, e)

    @outlined("PairSquare", "(hi, lo) = x² for a pair x")
    def square(self, x):
        p, e = self.two_prod(x[0], x[0])
        if x[1] is not None:
            e = self._op("Add", e, self._muls(self._op("Mul", x[0], x[1]), "2.0F"))
        return self.fast_two_sum(p, e)

    @outlined("PairDiv", "(hi, lo) = x/y for pairs x, y (one Newton step on the quotient)")
    def div(self, x, y):
        q1 = self._op("Div", x[0], y[0])
        r = self.add(x, self.neg(self.mul((q1, None), y)))
        return self.fast_two_sum(q1, self._op("Div", r[0], y[0]))

    @outlined("PairExp", "(hi, lo) = e^u for a pair u: a short series at u/2^12, squared 12 times")
    def exp(self, u):
        lw = self.lw
        h = lw.minmax_scalar("Min", lw.minmax_scalar("Max", self._t(u[0]), "-104.0F"), "89.0F")
        r = self._muls(h, f"{2.0 ** -SQUARINGS!r}F")
        r2 = self.two_prod(r, r)
        sixth = (lw.scalar(Const(sympy.Rational(1, 6))), lw.scalar(ConstLo(sympy.Rational(1, 6))))
        r3 = self.mul(self.mul(r2, (r, None)), sixth)
        tail = self._muls(r, "0.0013888889F")                       # r⁴ (1/24 + r (1/120 + r/720))
        tail = lw._emit("Adds({dst}, {0}, 0.008333334F, calc);", tail)
        tail = lw._emit("Adds({dst}, {0}, 0.041666668F, calc);", self._op("Mul", tail, r))
        tail = self._op("Mul", tail, self._op("Mul", r2[0], r2[0]))
        s = self.add(r3, (tail, None))
        s = self.add((self._muls(r2[0], "0.5F"), self._muls(r2[1], "0.5F")), s)
        s = self.add((r, None), s)
        s = self.add(("1.0F", None), s)
        for _ in range(SQUARINGS):
            s = self.square(s)
        if u[1] is not None:   # e^(h + l) = e^h (1 + l), l below an ulp of h
            s = self.add(s, (self._op("Mul", s[0], u[1]), None))
        return s

    def sigmoid(self, u_expr):
        return self.sigmoid_of(self.argument(u_expr), self.lw.mask(u_expr >= 0))

    def argument(self, u):
        """The pair of exp's or σ's argument (whose leaves are not operands of a product here)."""
        self.depth += 1
        try:
            return self.pair(u)
        finally:
            self.depth -= 1

    @outlined("PairSigmoid", "(hi, lo) = σ(u) for a pair u: 1/(1 + e) or e/(1 + e), e = e^-|u|")
    def sigmoid_of(self, u, nonneg):
        lw = self.lw
        nh = self._muls(lw._emit("Abs({dst}, {0}, calc);", self._t(u[0])), "-1.0F")    # -|u|
        nl = None if u[1] is None else lw._select(nonneg, self._muls(u[1], "-1.0F"), u[1])
        e = self.exp((nh, nl))
        den = self.add(("1.0F", None), e)
        num = (lw._select(nonneg, self._t("1.0F"), e[0]), lw._select(nonneg, self._t("0.0F"), e[1]))
        return self.div(num, den)

    # ---- expressions ------------------------------------------------------------------------------------------
    def pair(self, e):
        lw = self.lw
        if not self.depth and isinstance(e, (sympy.Mul, sympy.Pow)):   # its factors that are a scalar, a row sum
            for f in sympy.Mul.make_args(e):                            # or a tensor read (not the addends: TwoSum
                f = f.base if isinstance(f, sympy.Pow) else f           # is exact on subnormals)
                if f in lw.lo or isinstance(f, sympy.Symbol):
                    self.leaves.setdefault(f, lw.is_scalar(f) or f in lw.lo)
        if e not in self.memo:
            self.memo[e] = self._pair(e)
        return self.memo[e]

    def _pair(self, e):
        lw = self.lw
        if e in lw.lo:   # a constant or row sum the double kernels read unrounded: its FLOAT value and lo part
            return lw.scalar(e), lw.lo[e]
        if lw.is_scalar(e) and not (isinstance(e, (sympy.Add, sympy.Mul, sympy.Pow)) and e.free_symbols & lw.lo.keys()):
            if isinstance(e, Const) and not isinstance(e, ConstLo) and _inexact_in_float(e.value):
                return lw.scalar(e), lw.scalar(ConstLo(e.value))
            return lw.scalar(e), None
        acc = arithmetic(e, self, ("1.0F", None))
        if acc is not None:
            return acc
        if isinstance(e, sympy.exp):
            return self.exp(self.argument(e.args[0]))
        if isinstance(e, Sigmoid):
            return self.sigmoid(e.args[0])
        if isinstance(e, CompensatedAdd):
            x, hi, lo = e.args
            return self.add(self.pair(x), (lw.scalar(hi), lw.scalar(lo)))
        if isinstance(e, sympy.Piecewise) and e.args[-1][1] == sympy.true:
            acc = self.pair(e.args[-1][0])
            for branch, cond in reversed(e.args[:-1]):
                b, mask = self.pair(branch), lw.mask(cond)
                lo = None if acc[1] is None and b[1] is None else lw._select(
                    mask, self._t(b[1] if b[1] is not None else "0.0F"), acc[1] if acc[1] is not None else "0.0F")
                acc = (lw._select(mask, self._t(b[0]), acc[0]), lo)
            return acc
        return lw.value(e), None   # a function with no pair form here: its FLOAT value


# ---- sums whose terms overflow FLOAT ------------------------------------------------------------------------
STEP = 66            # a scaled value is (hi + lo)·2^(STEP·c), c a small integer per element (a float tile)
BIG = 2.0 ** 62      # |hi| at or above it goes down one step: every hi stays below 2^62, so a product of two is
                     # below 2^124 (no overflow, and TwoProd's 4097·a below 2^75), and a FLOAT value (below
                     # 2^128) needs one step
DOWN = f"{2.0 ** -STEP!r}F"
EXP_STEPS = 14       # steps of 66 ln 2 (45.7) that bring any u below double's exp limit under FLOAT's 88.7
DOUBLE_EXP_MAX = "709.78271F"   # log(DBL_MAX) = 709.7827128933840: e^u beyond is inf in double
DOUBLE_EXP_MIN = "-745.13318F"  # the least FLOAT u whose e^u is above 0 in double (5e-324); below, 0 there too
INF = "3.4028235e38F * 2.0F"    # +inf as a C++ expression the compiler folds (no <cmath> in a kernel)
FLOAT_MAX = 3.4028234663852886e38
UP = f"{2.0 ** STEP!r}F"
ZERO_C = "-1000.0F"  # the exponent of an exact 0: below every other, so aligning to the largest ignores it
POS_C = "-3000.0F"   # that of an e^u that is 0 in FLOAT but above 0 in double (ScaledPairs.exp_times_inf)
SMALL = 2.0 ** -40   # a nonzero |hi| below it goes up one step (×2^66, c - 1): every hi at or above 2^-40, so a
                     # product of two is above 2^-80 and TwoProd's error term (above 2^-128) exact; a FLOAT value
                     # (a subnormal down to 2^-149) needs two steps, a product or quotient one


def finite_mask(lw, v):
    """True where v is finite: v - v is 0 there, nan for ±inf and nan, and nan == nan is false."""
    compare = "Compare" if lw.dense_masks else "CompareByRepeat"
    d = lw._emit("Sub({dst}, {0}, {0}, calc);", v)
    return lw._emit(compare + "({dst}, {0}, {0}, CMPMODE::EQ, calc);", d, kind="m")


def compare_scalar(lw, v, mode: str, scalar: str):
    """v <mode> scalar, with CompareScalar where the architecture has it, else against a broadcast tile."""
    if lw.arch.compare_scalar:
        return lw._emit("CompareScalar({dst}, {0}, " + scalar + ", CMPMODE::" + mode + ", calc);", v, kind="m")
    compare = "Compare" if lw.dense_masks else "CompareByRepeat"
    return lw._emit(compare + "({dst}, {0}, {1}, CMPMODE::" + mode + ", calc);", v,
                    lw._emit("Duplicate({dst}, {0}, calc);", scalar), kind="m")


class ScaledPairs:
    """The sum again, where some element overflowed: every value a pair with a per-element exponent,
    (hi + lo)·2^(66c), hi kept below 2^62 by going down a step (×2^-66, c + 1) after each leaf, product, sum and
    quotient (an exact 0 gets c = 0).  Terms are aligned to the larger exponent before they are added (exactly,
    a term far below into FLOAT's subnormals or 0), and the rounded sum goes back up c steps at the end: exactly,
    or to the correctly signed ±inf where the sum is beyond FLOAT's range.  The pairs here keep lo = 0 where hi
    is not finite (DoubleFloat.guard_inf), so an inf stays an inf.

    A value is (hi, lo, c, (kmax, kmin)): lo None is an exact 0, c None an exact 0 (a constant, a sigmoid), and
    kmax/kmin bound c statically (how many steps the end must undo)."""

    def __init__(self, lw):
        self.lw = lw
        self.df = DoubleFloat(lw, guard_inf=True)   # its own splits: no value of the usual path is kept live into
        self.memo = {}                              # the branch for this one, nor a helper signature changed by it

    # ---- exponents --------------------------------------------------------------------------------------------
    @outlined("ScaledNormalize", "a scaled pair one step down (×2^-66, c + 1) where |hi| >= 2^62, `up` steps "
              "up (×2^66, c - 1) where it is below 2^-40")
    def normalize(self, hi, lo, c, k, up=1):
        lw, df = self.lw, self.df
        hi = df._t(hi)
        big = compare_scalar(lw, lw._emit("Abs({dst}, {0}, calc);", hi), "GE", f"{BIG!r}F")
        hi2 = lw._select(big, df._muls(hi, DOWN), hi)
        lo2 = None if lo is None else lw._select(big, df._muls(lo, DOWN), lo)
        c2 = (lw._select(big, df._t("1.0F"), "0.0F") if c is None
              else lw._select(big, lw._emit("Adds({dst}, {0}, 1.0F, calc);", c), c))
        for _ in range(up):   # exact: a subnormal hi (and its lo, below FLOAT's range there) scaled up
            small = compare_scalar(lw, lw._emit("Abs({dst}, {0}, calc);", hi2), "LT", f"{SMALL!r}F")
            hi2 = lw._select(small, df._muls(hi2, UP), hi2)
            lo2 = None if lo2 is None else lw._select(small, df._muls(lo2, UP), lo2)
            c2 = lw._select(small, lw._emit("Adds({dst}, {0}, -1.0F, calc);", c2), c2)
        # an exact 0 has no exponent: a product that is 0 must not push the sum's other terms down (Swish's 1, and
        # CrossEntropyLossGrad's labelSmoothing 0 beside terms scaled up from 2^-140): the lowest one there is
        c2 = lw._select(compare_scalar(lw, hi, "EQ", "0.0F"), df._t(ZERO_C), c2)
        return hi2, lo2, c2, (k[0] + 1, min(k[1], 0) - up)

    def _c_add(self, a, b, sign="Add"):
        if b is None:
            return a
        if a is None:
            return b if sign == "Add" else self.df._muls(b, "-1.0F")
        return self.df._op(sign, a, b)

    @outlined("ScaledAlign", "scaled pairs brought to their largest exponent")
    def align(self, xs):
        """The values' pairs brought to their largest exponent, and that exponent (None: all exactly 0)."""
        lw, df = self.lw, self.df
        cs = [x[2] for x in xs if x[2] is not None]
        if not cs:
            return [(x[0], x[1]) for x in xs], None
        cmax = cs[0]
        for c in cs[1:]:
            cmax = df._op("Max", cmax, c)
        if len(cs) < len(xs):
            cmax = lw.minmax_scalar("Max", cmax, "0.0F")
        out = []
        steps = max(x[3][0] for x in xs) - min(x[3][1] for x in xs)   # bounds cmax - c
        for hi, lo, c, _ in xs:
            d = cmax if c is None else df._op("Sub", cmax, c)
            hi = df._t(hi)
            for k in range(1, steps + 1):   # exact, down to FLOAT's subnormals (a term so far below is noise)
                m = compare_scalar(lw, d, "GE", f"{k - 0.5}F")
                hi = lw._select(m, df._muls(hi, DOWN), hi)
                lo = None if lo is None else lw._select(m, df._muls(lo, DOWN), lo)
            out.append((hi, lo))
        return out, cmax

    @outlined("ScaledUnscale", "a scaled pair one step back towards its value")
    def unscaled(self, x):
        """A scaled value one step back towards its true value: enough for exp and σ, which saturate beyond."""
        lw, df = self.lw, self.df
        hi, lo, c, _ = x
        if c is None:
            return hi, lo
        for mode, bound, factor in (("GE", "0.5F", UP), ("LE", "-0.5F", DOWN)):
            m = compare_scalar(lw, c, mode, bound)
            hi = lw._select(m, df._muls(hi, factor), df._t(hi))
            lo = None if lo is None else lw._select(m, df._muls(lo, factor), lo)
        return hi, lo

    @outlined("ScaledExpArgument", "u brought below FLOAT's exp overflow by steps of 66 ln 2, and the steps taken")
    def exp_argument(self, u):
        """(hi, lo, c) with hi + lo = u - c·66·ln 2 (the step a pair, its error below the pair's), c the steps taken
        while u was at or above 88: e^u is then e^(hi + lo)·2^(66c), a scaled pair (the long hostile fuzz found
        LogSoftmaxBackward's -0 - e^135·(-0): e^135 was inf here, 0 in double)."""
        lw, df = self.lw, self.df
        step = (lw.scalar(Const(-STEP * sympy.log(2))), lw.scalar(ConstLo(-STEP * sympy.log(2))))
        hi, lo, c = df._t(u[0]), df._t(u[1] if u[1] is not None else "0.0F"), df._t("0.0F")
        for _ in range(EXP_STEPS):
            m = compare_scalar(lw, hi, "GE", "88.0F")
            r = df.add((hi, lo), step)
            hi = lw._select(m, df._t(r[0]), hi)
            lo = lw._select(m, df._t(r[1] if r[1] is not None else "0.0F"), lo)
            c = lw._select(m, lw._emit("Adds({dst}, {0}, 1.0F, calc);", c), c)
        return hi, lo, c

    def _nan_of(self, u, r):
        """r, or u's nan where u is nan: exp's clamp (Maxs/Mins) would turn a nan argument into a number, and here
        no FLOAT evaluation stands behind the result to catch it."""
        lw, df = self.lw, self.df
        compare = "Compare" if lw.dense_masks else "CompareByRepeat"
        number = lw._emit(compare + "({dst}, {0}, {0}, CMPMODE::EQ, calc);", df._t(u[0]), kind="m")
        return lw._select(number, df._t(r[0]), df._t(u[0])), r[1]

    # ---- operations -------------------------------------------------------------------------------------------
    @outlined("ScaledAdd", "x + y for scaled pairs")
    def add(self, x, y):
        (a, b), c = self.align([x, y])
        k = (max(x[3][0], y[3][0]), max(x[3][1], y[3][1]))
        s = self.df.add(a, b)
        return (s[0], s[1], None, k) if c is None else self.normalize(s[0], s[1], c, k)

    def neg(self, x):
        hi, lo = self.df.neg((x[0], x[1]))
        return hi, lo, x[2], x[3]

    @outlined("ScaledMul", "x·y for scaled pairs")
    def mul(self, x, y):
        p = self.df.mul((x[0], x[1]), (y[0], y[1]))
        return self.normalize(p[0], p[1], self._c_add(x[2], y[2]), (x[3][0] + y[3][0], x[3][1] + y[3][1]))

    @outlined("ScaledDiv", "x/y for scaled pairs")
    def div(self, x, y):
        q = self.df.div((x[0], x[1]), (y[0], y[1]))
        return self.normalize(q[0], q[1], self._c_add(x[2], y[2], "Sub"), (x[3][0] - y[3][1], x[3][1] - y[3][0]))

    def exp_times_inf(self, e, acc):
        """The product `acc` of e's pairs, or, where that is nan and one exp factor is 0 here but above 0 in double
        (its exponent POS_C: the product's within 500 of it), the other factors' product of high halves times
        ±inf.  e^u underflows to 0 in FLOAT far sooner (u < -103) and 0·inf is nan where the double kernels keep
        e^u·inf = ±inf (the long hostile fuzz: LogSoftmaxBackward's g - e^-608.5·Σg with Σg = +inf gives -inf in
        NumPy and C).  Where another factor is 0 or nan the product of high halves is too and so is the result,
        as in double; two such exps in one product (c near 2·POS_C) keep the nan."""
        factors = e.as_ordered_factors()
        if any(isinstance(f, sympy.Pow) and f.exp == -1 for f in factors):
            return acc
        rest = [self.pair(f)[0] for f in factors if not isinstance(f, sympy.exp) and f != -1]
        if not rest or acc[2] is None:
            return acc
        return self.inf_of(acc, rest, "-" + INF if -1 in factors else INF)

    @outlined("ScaledExpTimesInf", "a product of e^u (0 here, above 0 in double) with ±inf: that ±inf")
    def inf_of(self, acc, rest, inf):
        # one mask live at a time; lo needs no select: the pairs here keep lo = 0 where hi is nan (guard_inf)
        lw, df = self.lw, self.df
        compare = "Compare" if lw.dense_masks else "CompareByRepeat"
        sign = df._t(rest[0])
        for r in rest[1:]:
            sign = df._op("Mul", sign, r)
        hi = df._muls(sign, f"({inf})")
        pos = float(POS_C.rstrip("F"))
        hi = lw._select(compare_scalar(lw, acc[2], "LT", f"{pos + 500}F"), hi, df._t(acc[0]))
        hi = lw._select(compare_scalar(lw, acc[2], "GT", f"{pos - 500}F"), hi, df._t(acc[0]))
        nan = lw._emit(compare + "({dst}, {0}, {0}, CMPMODE::NE, calc);", df._t(acc[0]), kind="m")
        return lw._select(nan, hi, df._t(acc[0])), acc[1], acc[2], acc[3]

    # ---- expressions ------------------------------------------------------------------------------------------
    def pair(self, e):
        if e not in self.memo:
            self.memo[e] = self._pair(e)
        return self.memo[e]

    def _pair(self, e):
        lw, df = self.lw, self.df
        if isinstance(e, sympy.Symbol) and e.name == GRID_SUM and grid_scaled(lw) is not None:
            return self.grid_sum(e)
        if e in lw.scaled:   # a row sum: where it left FLOAT (c = 1), its sum scaled by 2^-66 (PairRowSumWide)
            s_hi, s_lo, c = lw.scaled[e]
            hi, lo = (f"({c} > 0.5F ? {a} : {b})" for a, b in ((s_hi, lw.scalar(e)), (s_lo, lw.lo[e])))
            return self.normalize(hi, lo, df._t(c), (1, 0), up=2)
        if lw.is_scalar(e) and not e.free_symbols & lw.scaled.keys():
            hi, lo = df.pair(e)
            if not e.free_symbols and (SMALL <= abs(float(getattr(e, "value", e))) < BIG
                                       or float(getattr(e, "value", e)) == 0):
                return hi, lo, None, (0, 0)
            return self.normalize(hi, lo, None, (0, 0), up=2)   # a parameter: anywhere in FLOAT's range
        acc = arithmetic(e, self, ("1.0F", None, None, (0, 0)))
        if acc is not None and isinstance(e, sympy.Mul) and any(isinstance(f, sympy.exp) for f in e.args):
            return self.exp_times_inf(e, acc)
        if acc is not None:
            return acc
        if isinstance(e, sympy.exp):   # e^u = e^(u - c·66 ln 2)·2^(66c): as far as double's exp goes
            u = self.unscaled(self.pair(e.args[0]))
            hi, lo, c = self.exp_argument(u)
            hi, lo = self._nan_of(u, df.exp((hi, lo)))
            # beyond double's range, double's exp is inf: so is this one (the comparison is on u's high half)
            hi = lw._select(compare_scalar(lw, df._t(u[0]), "GT", DOUBLE_EXP_MAX), df._t(INF), hi)
            hi, lo, c, k = self.normalize(hi, lo, c, (EXP_STEPS, 0))
            # an e^u that underflowed to 0 here but not in double (u >= -745.13) is marked by its exponent POS_C:
            # 0 all the same, but a product of it with ±inf is that ±inf (exp_times_inf)
            zero_c = lw._select(compare_scalar(lw, df._t(u[0]), "GE", DOUBLE_EXP_MIN), df._t(POS_C), ZERO_C)
            return hi, lo, lw._select(compare_scalar(lw, df._t(hi), "EQ", "0.0F"), zero_c, c), k
        if isinstance(e, Sigmoid):     # in [0, 1]: no exponent
            u = self.unscaled(self.pair(e.args[0]))
            hi, lo = self._nan_of(u, df.sigmoid_of(u, lw.mask(e.args[0] >= 0)))
            return hi, lo, None, (0, 0)
        if isinstance(e, CompensatedAdd):   # x + (hi + lo), hi and lo constants of an affine form (small)
            x, hi, lo = e.args
            return self.add(self.pair(x), (lw.scalar(hi), lw.scalar(lo), None, (0, 0)))
        if isinstance(e, sympy.Piecewise) and e.args[-1][1] == sympy.true:
            acc = self.pair(e.args[-1][0])
            for branch, cond in reversed(e.args[:-1]):
                b, mask = self.pair(branch), lw.mask(cond)

                def pick(i, zero):
                    if acc[i] is None and b[i] is None:
                        return None
                    return lw._select(mask, df._t(b[i] if b[i] is not None else zero),
                                      acc[i] if acc[i] is not None else zero)
                acc = (lw._select(mask, df._t(b[0]), acc[0]), pick(1, "0.0F"), pick(2, "0.0F"),
                       (max(acc[3][0], b[3][0]), min(acc[3][1], b[3][1])))
            return acc
        return self.normalize(lw.value(e), None, None, (0, 0), up=2)   # its FLOAT value (DoubleFloat._pair's last)

    def grid_sum(self, e):
        """A weighted mean's grid sum (codegen.spec.classes.GRID_SUM), which level 2 hands as FLOAT: where it is
        beyond FLOAT's range (inf: weights near FLOAT's largest), the same sum scaled by 2^-66 (GRID_SCALED), c = 1."""
        lw, df = self.lw, self.df
        total = lw.tile(e)
        ok = finite_mask(lw, total)
        hi = lw._select(ok, total, lw.tile(grid_scaled(lw)))
        return self.normalize(hi, None, lw._select(ok, df._t("0.0F"), "1.0F"), (1, 0), up=2)

    @outlined("ScaledSum", "the sum as scaled pairs, rounded and stepped back up (the overflow path)")
    def extended(self, e):
        """The Extended sum's value, or nan where even this path meets inf - inf (its operands ±inf or nan, or
        exp beyond FLOAT)."""
        lw, df = self.lw, self.df
        terms = [self.pair(t) for t in e.as_ordered_terms()]
        pairs, cmax = self.align(terms)
        acc = pairs[0]
        for p in pairs[1:]:
            acc = df.add(acc, p)
        wide = df._t(acc[0]) if acc[1] is None else df._op("Add", acc[0], acc[1])
        largest = lw._emit("Abs({dst}, {0}, calc);", df._t(pairs[0][0]))
        for p in pairs[1:]:
            largest = df._op("Max", largest, lw._emit("Abs({dst}, {0}, calc);", df._t(p[0])))
        compare = "Compare" if lw.dense_masks else "CompareByRepeat"
        small = lw._emit(compare + "({dst}, {0}, {1}, CMPMODE::LT, calc);",
                         lw._emit("Abs({dst}, {0}, calc);", wide), df._muls(largest, f"{2.0 ** -50!r}F"), kind="m")
        wide = lw._select(small, df._t("0.0F"), wide)
        if cmax is None:
            return wide
        kmax = max(t[3][0] for t in terms)
        kmin = min(t[3][1] for t in terms)
        for k in range(1, kmax + 1):   # back up c steps: exact, or ±inf beyond FLOAT's range
            wide = lw._select(compare_scalar(lw, cmax, "GE", f"{k - 0.5}F"), df._muls(wide, UP), wide)
        for k in range(1, -kmin + 1):
            wide = lw._select(compare_scalar(lw, cmax, "LE", f"{0.5 - k}F"), df._muls(wide, DOWN), wide)
        return wide


def grid_scaled(lw):
    """The symbol of GRID_SCALED where the kernel loads it (a weighted mean's sum of weights, codegen.lower.
    grid_companions), else None."""
    s = sympy.Symbol(GRID_SCALED, real=True)
    return s if s in lw.tensors else None


def lower_extended(lw, e):
    """The Extended sum's value: hi + lo of its pair, where that and the FLOAT evaluation are finite; else, in a
    tile where some element is not, the sum again with exponents (ScaledPairs) where that is not nan; else the
    FLOAT evaluation."""
    from .lowering import Instr
    plain = lw.tile(e.args[0])
    df = DoubleFloat(lw)
    # A weighted mean's sum divided by the grid sum (codegen.lower.ratios_first): the usual path divides the
    # rounded pair sum in FLOAT, one instruction where a pair division takes some 35 (two roundings, within half
    # an ulp of NumPy's one); the scaled path divides inside the sum, where an operand is tiny (its sum a
    # subnormal of a few bits before the division) or the division is not finite.
    grid = [f for f in sympy.Mul.make_args(e.args[0]) if isinstance(f, sympy.Pow) and f.exp == -1
            and isinstance(f.base, sympy.Symbol) and f.base.name == GRID_SUM]
    num = e.args[0] if not grid else sympy.Mul(*[f for f in sympy.Mul.make_args(e.args[0]) if f != grid[0]])
    hi, lo = df.pair(num)
    wide = hi if lo is None else lw._emit("Add({dst}, {0}, {1}, calc);", hi, lo)
    compare = "Compare" if lw.dense_masks else "CompareByRepeat"
    # A sum below 2^-50 of its largest term is below what the double kernels (NumPy, C) resolve: there they give
    # 0 (exp(1e-30) is 1 in double, so LogSoftmax's g - exp(y)·Σg is 0 where the pair keeps -1e-30), and so does
    # this kernel, that the backends agree.  Elsewhere the pair's sum stands.
    terms = [df.pair(t)[0] for t in num.as_ordered_terms()]
    largest = lw._emit("Abs({dst}, {0}, calc);", df._t(terms[0]))
    for t in terms[1:]:
        largest = lw._emit("Max({dst}, {0}, {1}, calc);", largest, lw._emit("Abs({dst}, {0}, calc);", df._t(t)))
    small = lw._emit(compare + "({dst}, {0}, {1}, CMPMODE::LT, calc);", lw._emit("Abs({dst}, {0}, calc);", wide),
                     lw._emit("Muls({dst}, {0}, " + f"{2.0 ** -50!r}F" + ", calc);", largest), kind="m")
    wide = lw._select(small, df._t("0.0F"), wide)
    if grid:
        wide = lw._emit("Div({dst}, {0}, {1}, calc);", wide, lw.tile(grid[0].base))
        df.leaves.setdefault(grid[0].base, lw.is_scalar(grid[0].base))
    ok = lw._bits("And", finite_mask(lw, wide), finite_mask(lw, plain))
    # Where an element is not finite (a term beyond FLOAT's range, or an operand ±inf or nan), the tile takes the
    # overflow path: a scalar branch on the count of such elements, so that the usual tile pays one ReduceSum.
    # Values first computed inside the branch are forgotten after it (memo and CSE bindings restored): code after
    # it must not read what a skipped branch did not write.
    flag = lw._select(ok, df._t("0.0F"), "1.0F")
    # Where an operand of a product or quotient is subnormal or near it (weights of 2^-140), the pair has no low
    # part (TwoProd's error term is below FLOAT's range): those elements take the same path, whose exponents keep
    # every operand at or above 2^-40.  A tensor operand is tested element by element (4 instructions), the
    # scalars (row sums, scalar parameters) on the scalar unit, folded into the flag by one Maxs.
    tiny = [v for v, scalar in df.leaves.items() if not scalar]
    for v in tiny:
        a = lw._emit("Abs({dst}, {0}, calc);", lw.value(v))
        normal = lw._bits("Or", compare_scalar(lw, a, "GE", f"{SMALL!r}F"), compare_scalar(lw, a, "EQ", "0.0F"))
        if grid and v == grid[0].base and grid_scaled(lw) is not None:   # a sum of weights beyond FLOAT (inf):
            # the scaled path reads GRID_SCALED
            normal = lw._bits("And", normal, compare_scalar(lw, a, "LE", f"{FLOAT_MAX!r}F"))
        flag = lw._select(normal, flag, "1.0F")
    scalars = [lw.scalar(v) for v, scalar in df.leaves.items() if scalar and v.free_symbols]
    if scalars:
        test = " || ".join(f"({x} != 0.0F && {x} < {SMALL!r}F && {x} > -{SMALL!r}F)" for x in scalars)
        flag = lw.minmax_scalar("Max", flag, f"(({test}) ? 1.0F : 0.0F)")
    count = lw._emit("ReduceSum({dst}, {0}, {1}, len);", flag, df._t("0.0F"))
    lw.instrs.append(Instr("PipeBarrier<PIPE_ALL>();", None, []))
    lw.instrs.append(Instr("if ({0}.GetValue(0) > 0.0F) {{", None, [count]))
    memo, bound = dict(lw.memo), dict(lw.bound)
    scaled = ScaledPairs(lw).extended(e.args[0])
    lw.instrs.append(Instr("}}", None, []))
    lw.memo, lw.bound = memo, bound
    # (where the branch did not run, every element is ok: the stale `scaled` is never selected)
    notnan = lw._emit(compare + "({dst}, {0}, {0}, CMPMODE::EQ, calc);", scaled, kind="m")
    if not tiny and not scalars:
        return lw._select(ok, wide, lw._select(notnan, scaled, plain))
    # a tiny operand's element takes the scaled sum where it is a number, else (as before) the pair or FLOAT's
    usual = lw._select(ok, wide, plain)
    scaled_path = compare_scalar(lw, flag, "GT", "0.5F")
    return lw._select(scaled_path, lw._select(notnan, scaled, usual), usual)
