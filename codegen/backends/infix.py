"""Printing shared by the backends that print infix expressions (C, NumPy, Ascend C's scalar operands).

Two things SymPy's own printers do not do for kernels, done here once for every backend:

* **Precedence of what is actually printed.**  SymPy decides where parentheses go from the *SymPy* class of a
  subexpression (`parenthesize` asks `precedence(item)`), but a kernel printer often prints a class as another
  operator: `x**2` as `x*x`, `x**-1` as `1.0F/x`, `sqrt(2)` as a literal.  A printer declares the precedence of
  such a form in a `_precedence_<Class>` method next to its `_print_<Class>`, and `parenthesize` asks
  `precedence_of`, which consults those first.  So every operand is parenthesised for the operator it really
  appears under, by SymPy's own `parenthesize` rule, and no override assembles strings that could lose a
  parenthesis (`g*exp(x)*(x - 1)**2/(1 + x**2)**2` once printed as `…/(x*x + 1)*(x*x + 1)`).
* **Constants.**  Every number that is not an integer (`Rational(1, 3)`, `sqrt(2)`, `pi`, `E`, `log(2)`,
  `1/sqrt(2*pi)`, and the `codegen.lower.Const` that groups a product's constant factors) prints as one literal of
  the kernel's type, the value of that type nearest the exact constant (`codegen.backends.literals`).

And two evaluation orders SymPy's printers would not keep:

* the incoming gradient multiplies last (codegen.lower decides it; SymPy sorts the factors of a product);
* a quotient divides by one denominator factor at a time, `a*b/c/d/d`, never by their product `a*b/(c*d*d)`:
  SymPy's form overflows where the product of the denominators leaves FLOAT's range although the quotient is
  far inside it (found by codegen.fuzz, seed 37: 1/(log(m**2 + 1)**2 + 1) at x = 1.2e17, where
  (m**2 + 1)*(log(m**2 + 1)**2 + 1)**2 is 5e41, gave 0 for 9e-23).  This is the order the oracle's rounding-
  error bound assumes (codegen.accuracy.bound): a product is bounded as the product of its factors, c**-2 one
  factor of value c**-2, and an element is judged only where the product of its factors' magnitudes (each at
  least 1) stays in FLOAT's range.  Every partial result of `a*b/c/d/d` is a partial product of those factors,
  so it stays in range wherever the element is judged.  Integer powers up to the 4th divide repeatedly (`/d/d`),
  higher ones and the other negative powers are computed as a power of the reciprocal or by `pow` with the
  negative exponent (a printer's `_print_Pow`), never as 1/d**n.
"""
from __future__ import annotations

import sympy
from sympy.core.mul import _keep_coeff
from sympy.printing.precedence import PRECEDENCE, precedence

from codegen.lower import bounded_after_first, split_last


def is_constant(expr) -> bool:
    """A real number that is not an integer: printed as one rounded literal (nan, a value where a formula has no
    real result, prints as each language's NaN)."""
    return isinstance(expr, sympy.Expr) and expr.is_number and not expr.is_Integer and not expr.has(sympy.Symbol) \
        and expr is not sympy.nan


def _late_power_of_two(f) -> bool:
    """An integer power of two above 1: multiplying by it is exact, so it can come after the divisions."""
    return bool(f.is_Integer) and f > 1 and not f & (f - 1)


class InfixPrinting:
    """Mixin for a SymPy code printer.

    `last` holds the symbols that multiply last (the incoming gradient); a subclass implements `literal(value)`,
    the text of a constant (an exact SymPy number)."""

    last = frozenset()

    # ---- precedence of the printed form -------------------------------------------------------------------
    def precedence_of(self, expr) -> int:
        if is_constant(expr):
            return PRECEDENCE["Atom"] if expr.is_nonnegative else PRECEDENCE["Add"]
        if isinstance(expr, sympy.Basic):
            for cls in type(expr).__mro__:
                hook = getattr(self, f"_precedence_{cls.__name__}", None)
                if hook is not None:
                    out = hook(expr)
                    if out is not None:
                        return out
        return precedence(expr)

    def parenthesize(self, item, level, strict=False):
        """SymPy's rule (parentheses when the item binds no tighter than `level`), on the printed form's
        precedence."""
        p = self.precedence_of(item)
        if p < level or (not strict and p <= level):
            return f"({self._print(item)})"
        return self._print(item)

    def _precedence_Integer(self, expr):
        return PRECEDENCE["Atom"] if expr >= 0 else PRECEDENCE["Add"]

    # ---- constants --------------------------------------------------------------------------------------
    def _print(self, expr, **kwargs):
        if is_constant(expr):
            return self.literal(expr)
        return super()._print(expr, **kwargs)

    def literal(self, value) -> str:
        raise NotImplementedError

    # ---- evaluation order ---------------------------------------------------------------------------------
    def _print_Mul(self, expr):
        """`(rest)*gradient` where codegen.lower.split_last says so (it says why), else the printer's own."""
        split = split_last(expr, self.last)
        if split is None:
            c, rest = expr.as_coeff_Mul()
            if c < 0 and not is_constant(expr):
                # SymPy's printers parenthesize the factors of a negative product at the level of `+` (its
                # precedence): -1/(a + 1)**2 printed `-1/(a + 1)*(a + 1)` in C.  The sign apart, the rest is a
                # product printed at the level of `*`.
                positive = _keep_coeff(-c, rest)
                return "-" + self.parenthesize(positive, PRECEDENCE["Mul"], strict=True)
            if self._quotient_units(expr) is not None:
                return self._print_quotient(expr)
            return super()._print_Mul(expr)
        rest, factor = split
        return f"{self.parenthesize(rest, PRECEDENCE['Mul'])}*{self.parenthesize(factor, PRECEDENCE['Mul'])}"

    MAX_DIVISIONS = 4   # d**-n for n up to this divides n times; beyond, the printer's power of the reciprocal

    def _quotient_units(self, expr):
        """(numerator factors, denominators to divide by in turn, powers of two to multiply by last) of a positive
        product, when SymPy's printers would divide by a product or a power (`a/(c*d)`, `a/(d*d)`, `a/pow(d, 3.5)`)
        or multiply by a power of two before a division (`2*a/d`); else None (SymPy's own printing, `a*b/c`, is
        already one factor at a time)."""
        args = sympy.Mul.make_args(expr) if self.order in ("old", "none") else expr.as_ordered_factors()
        nums, dens, own = [], [], False
        for f in args:
            if f.is_Rational and not f.is_Integer:     # p/q: times p, divided by q, as SymPy prints it
                if f.p != 1:
                    nums.append(sympy.Integer(f.p))
                dens.append(sympy.Integer(f.q))
            elif isinstance(f, sympy.Pow) and f.is_commutative and f.exp.is_negative and f.exp.is_Rational:
                n = -f.exp
                if n.is_Integer and n <= self.MAX_DIVISIONS:
                    dens += [f.base] * int(n)
                    own |= n > 1
                elif n == sympy.S.Half:
                    dens.append(sympy.sqrt(f.base, evaluate=False))
                else:                                  # the printer's overflow-free power, a numerator factor
                    nums.append(f)
                    own = True
            else:
                nums.append(f)
        ordered = bounded_after_first(nums)
        # a power of two above 1 multiplies after the divisions: exact wherever it is applied, so the same bits
        # (but where the quotient before it is subnormal), and 2*x no longer overflows before /d where 2*x/d is a
        # FLOAT (Snake's 2x·sin·cos/(α + 1e-9) at x = 3e38, α = 0.9: -inf for -1.08e38)
        late = [f for f in ordered if _late_power_of_two(f)] if dens and len(ordered) > 1 else []
        if not own and len(dens) <= 1 and ordered == nums and not late:
            return None
        nums = [f for f in ordered if f not in late]
        # an integer first would make C's `1/3/...` an integer division: expressions first
        dens.sort(key=lambda d: d.is_Integer)
        return nums, dens, late

    def _print_quotient(self, expr) -> str:
        nums, dens, late = self._quotient_units(expr)
        out = "*".join(self.parenthesize(f, PRECEDENCE["Mul"]) for f in nums) if nums else "1"
        return out + "".join("/" + self.parenthesize(d, PRECEDENCE["Mul"]) for d in dens) \
            + "".join("*" + self.parenthesize(f, PRECEDENCE["Mul"]) for f in late)

    def _print_CompensatedAdd(self, expr):
        """`((x + hi) + lo)`, the order in which codegen.lower.CompensatedAdd is exact where x cancels hi."""
        x, hi, lo = (self.parenthesize(a, PRECEDENCE["Add"]) for a in expr.args)
        return f"(({x} + {hi}) + {lo})"

    def _precedence_CompensatedAdd(self, expr):
        return PRECEDENCE["Atom"]

    def _fold(self, fn: str, expr) -> str:
        """fn(fn(a, b), c)…: a binary function applied over every argument, in SymPy's argument order."""
        out = self._print(expr.args[0])
        for a in expr.args[1:]:
            out = f"{fn}({out}, {self._print(a)})"
        return out


# the old name, for code that imports it
EvaluationOrder = InfixPrinting
