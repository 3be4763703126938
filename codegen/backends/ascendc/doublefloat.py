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
so far (BCE-with-logits' σ(x) - t).  Where the pair overflows (Split's 4097 a beyond 8e34, exp's squares) or the
FLOAT evaluation is not finite (a nan or inf operand), the FLOAT evaluation of the sum is selected instead: its
special values are the kernels' usual ones.  A sum below 2^-50 of its largest term is 0, as in the double kernels.
"""
from __future__ import annotations

import sympy

from codegen.lower import CompensatedAdd, Const, ConstLo, _inexact_in_float
from codegen.rewrite import Sigmoid

SQUARINGS = 12


class DoubleFloat:
    def __init__(self, lw):
        self.lw = lw
        self.memo = {}
        self.splits = {}   # a value's Veltkamp halves, split once however often it is multiplied

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
        return s, self._op("Add", self._op("Sub", a, self._op("Sub", s, bb)), self._op("Sub", b, bb))

    def fast_two_sum(self, a, b):
        s = self._op("Add", a, b)
        return s, self._op("Sub", b, self._op("Sub", s, a))

    def split(self, a):
        if a not in self.splits:
            c = self._muls(a, "4097.0F")
            h = self._op("Sub", c, self._op("Sub", c, a))
            self.splits[a] = h, self._op("Sub", a, h)
        return self.splits[a]

    def two_prod(self, a, b):
        p = self._op("Mul", a, b)
        ah, al = self.split(a)
        bh, bl = self.split(b)
        err = self._op("Add", self._op("Sub", self._op("Mul", ah, bh), p), self._op("Mul", ah, bl))
        err = self._op("Add", self._op("Add", err, self._op("Mul", al, bh)), self._op("Mul", al, bl))
        return p, err

    # ---- pairs (hi, lo); lo None is an exact 0 ----------------------------------------------------------------
    def add(self, x, y):
        s, e = self.two_sum(x[0], y[0])
        for lo in (x[1], y[1]):
            if lo is not None:
                e = self._op("Add", e, lo)
        return self.fast_two_sum(s, e)

    def neg(self, x):
        return self._muls(x[0], "-1.0F"), None if x[1] is None else self._muls(x[1], "-1.0F")

    def mul(self, x, y):
        p, e = self.two_prod(x[0], y[0])
        if y[1] is not None:
            e = self._op("Add", e, self._op("Mul", x[0], y[1]))
        if x[1] is not None:
            e = self._op("Add", e, self._op("Mul", x[1], y[0]))
        return self.fast_two_sum(p, e)

    def square(self, x):
        p, e = self.two_prod(x[0], x[0])
        if x[1] is not None:
            e = self._op("Add", e, self._muls(self._op("Mul", x[0], x[1]), "2.0F"))
        return self.fast_two_sum(p, e)

    def div(self, x, y):
        q1 = self._op("Div", x[0], y[0])
        r = self.add(x, self.neg(self.mul((q1, None), y)))
        return self.fast_two_sum(q1, self._op("Div", r[0], y[0]))

    def exp(self, u):
        lw = self.lw
        h = lw._emit("Mins({dst}, {0}, 89.0F, calc);", lw._emit("Maxs({dst}, {0}, -104.0F, calc);", self._t(u[0])))
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
        lw = self.lw
        u = self.pair(u_expr)
        nonneg = lw.mask(u_expr >= 0)
        nh = self._muls(lw._emit("Abs({dst}, {0}, calc);", self._t(u[0])), "-1.0F")    # -|u|
        nl = None if u[1] is None else lw._select(nonneg, self._muls(u[1], "-1.0F"), u[1])
        e = self.exp((nh, nl))
        den = self.add(("1.0F", None), e)
        num = (lw._select(nonneg, self._t("1.0F"), e[0]), lw._select(nonneg, self._t("0.0F"), e[1]))
        return self.div(num, den)

    # ---- expressions ------------------------------------------------------------------------------------------
    def pair(self, e):
        if e not in self.memo:
            self.memo[e] = self._pair(e)
        return self.memo[e]

    def _pair(self, e):
        lw = self.lw
        if lw.is_scalar(e):
            if isinstance(e, Const) and not isinstance(e, ConstLo) and _inexact_in_float(e.value):
                return lw.scalar(e), lw.scalar(ConstLo(e.value))
            return lw.scalar(e), None
        if isinstance(e, sympy.Add):
            acc = None
            for t in e.as_ordered_terms():
                p = self.pair(t)
                acc = p if acc is None else self.add(acc, p)
            return acc
        if isinstance(e, sympy.Mul):
            nums = [f for f in e.as_ordered_factors() if not (isinstance(f, sympy.Pow) and f.exp == -1)]
            dens = [f.base for f in e.as_ordered_factors() if isinstance(f, sympy.Pow) and f.exp == -1]
            acc = None
            for f in nums:
                if f == -1:
                    continue
                p = self.pair(f)
                acc = p if acc is None else self.mul(acc, p)
            acc = acc or ("1.0F", None)
            for d in dens:
                acc = self.div(acc, self.pair(d))
            return self.neg(acc) if -1 in nums else acc
        if isinstance(e, sympy.Pow) and e.exp.is_Integer and e.exp > 0:
            acc = self.pair(e.base)
            for _ in range(int(e.exp) - 1):
                acc = self.mul(acc, self.pair(e.base))
            return acc
        if isinstance(e, sympy.Pow) and e.exp == -1:
            return self.div(("1.0F", None), self.pair(e.base))
        if isinstance(e, sympy.exp):
            return self.exp(self.pair(e.args[0]))
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


def lower_extended(lw, e):
    """The Extended sum's value: hi + lo of its pair, where that and the FLOAT evaluation are finite; else the
    FLOAT evaluation."""
    plain = lw.tile(e.args[0])
    df = DoubleFloat(lw)
    hi, lo = df.pair(e.args[0])
    wide = hi if lo is None else lw._emit("Add({dst}, {0}, {1}, calc);", hi, lo)
    compare = "Compare" if lw.dense_masks else "CompareByRepeat"
    # A sum below 2^-50 of its largest term is below what the double kernels (NumPy, C) resolve: there they give
    # 0 (exp(1e-30) is 1 in double, so LogSoftmax's g - exp(y)·Σg is 0 where the pair keeps -1e-30), and so does
    # this kernel, that the backends agree.  Elsewhere the pair's sum stands.
    terms = [df.pair(t)[0] for t in e.args[0].as_ordered_terms()]
    largest = lw._emit("Abs({dst}, {0}, calc);", df._t(terms[0]))
    for t in terms[1:]:
        largest = lw._emit("Max({dst}, {0}, {1}, calc);", largest, lw._emit("Abs({dst}, {0}, calc);", df._t(t)))
    small = lw._emit(compare + "({dst}, {0}, {1}, CMPMODE::LT, calc);", lw._emit("Abs({dst}, {0}, calc);", wide),
                     lw._emit("Muls({dst}, {0}, " + f"{2.0 ** -50!r}F" + ", calc);", largest), kind="m")
    wide = lw._select(small, df._t("0.0F"), wide)
    finite = []
    for v in (wide, plain):   # v - v is 0 for a finite v, nan for ±inf and nan; nan == nan is false
        d = lw._emit("Sub({dst}, {0}, {0}, calc);", v)
        finite.append(lw._emit(compare + "({dst}, {0}, {0}, CMPMODE::EQ, calc);", d, kind="m"))
    return lw._select(lw._bits("And", *finite), wide, plain)
