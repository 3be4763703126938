"""From a spec to what every kernel backend prints: one `Kernel` per op, one `KernelVariant` per specialisation.

For each variant (bool attributes and optional-tensor presence fixed) the backward is
  1. stabilised (codegen.rewrite), and a pair of mirrored comparisons `u > c | -u > c` becomes `|u| > c`; a sum's
     numeric content above 1 joins its product's coefficient (`pull_sum_content`: g*(2x - 2t)/N as 2/N*(x - t)*g,
     where 2x overflowed); a product's scalar factors join the branches of a Piecewise that multiplies the gradient
     (`scalars_into_branches`: the mean's 1/N before the gradient, not after it); a weighted mean's division by
     the sum of its weights applies to the weights first (`ratios_first`: w/Σw, two numbers of one scale); the
     constant factors of each product and the constant terms of each sum become one `Const`, printed as one literal
     rounded once
     (`x*sqrt(2)/pi`: one multiplication by the FLOAT nearest sqrt(2)/pi), and `t/3 + 1/2` becomes `(t + 3/2)/3`,
     a true division (`exact_affine`: no cancellation beside t = -3/2); a sum that can cancel becomes a polynomial about its roots or an `Extended` sum computed wider than FLOAT
     (codegen.cancellation: `guard`), and CSE leaves no FLOAT temporary inside an `Extended` sum,
  2. split into row reductions: every DimSum(e) becomes a symbol `r0, r1, …` computed first, along `dim` (a
     DimSum of a number, a null optional tensor's default, is that number times the row length), and every
     GridSum(e) (a class-index op's sum over its whole grid) a symbol `g0, g1, …` computed before the rows,
  3. split into a prelude: maximal subexpressions of scalars, attributes and element counts only, computed once
     per call (`c0, c1, …`), so no backend re-evaluates `1/max(1, numel)` or `alpha*scale*inputScale` per element
     (a product of two scalars added to a tensor term is carried as two FLOATs: `CompensatedAdd`; so is a constant
     no FLOAT holds, added to tensor terms: `compensate_constants`),
  4. CSE'd in canonical order into elementwise temporaries `t0, t1, …` and a result.
Backends then only print: they never decide what to compute.  One evaluation order is decided here too, since
SymPy's products have none: the incoming gradient multiplies last (`KernelVariant.last`, `split_last`).  It is
the one factor of arbitrary magnitude, so the local derivative is formed first: gradOutput*inputScale*0 is
inf*0 = nan when gradOutput*inputScale overflows, inputScale*0*gradOutput is the 0 the mathematics gives.  And
a product's factors bounded by 1 (sigmoid, tanh, erf) multiply right after its first operand where a second one of
any size would come before them (`bounded_after_first`: SituGluGrad's S*b formed inf before σ(a) ≪ 1 joined), and
so do factors that are exactly 0 somewhere, max(0, u) or a Piecewise with a 0 branch, a number above 1 then after
them (SquaredHingeLoss's c0*t formed -inf before max(0, 1 - t*x) = 0 joined: nan where the answer is 0).
"""
from __future__ import annotations

import dataclasses
from collections import OrderedDict
from dataclasses import dataclass, field

import sympy
from sympy.codegen.cfunctions import fma
from sympy.functions.elementary.piecewise import ExprCondPair

from .cancellation import Extended, guard
from .keep import kept_for
from .rewrite import scaled_square_roots, stabilize
from .saturate import clamped, saturation_clamps
from .scaled import magnitude_bound, scale_gradient_products, unscaled
from .spec import ABSENT, DimSum, Op, Variant
from .spec.classes import GridSum
from .spec.functions import BROADCAST, dim_size, numel_param, row_length
from .spec.params import Attr, Scalar
from .spec.rules import Requires
from .trig_arguments import exact_arguments, narrowed


@dataclass
class KernelVariant:
    variant: Variant
    suffix: str                      # identifier fragment; "" for the only variant
    tensors: list                    # input Tensors read per element, in parameter order
    scalars: list                    # Scalar/Attr params the math reads, in parameter order
    numels: list                     # tensor names whose element count the math reads
    prelude: list                    # [(symbol, expr)] scalar-only, in dependency order
    reductions: list                 # [(symbol, summand expr)] row sums along dim (summands may use prelude)
    body: list                       # [(symbol, expr)] elementwise temporaries after CSE
    result: sympy.Expr               # the output element
    last: frozenset = frozenset()    # symbols that multiply last in any product (the incoming gradient)
    grid_sums: list = field(default_factory=list)   # [(symbol, summand)] sums over the whole grid (GridSum)

    @property
    def key(self):
        return self.variant.key


@dataclass
class Kernel:
    op: Op
    variants: list[KernelVariant] = field(default_factory=list)
    names: dict = field(default_factory=dict)   # every symbol -> identifier used in generated code

    def variant_for(self, key: dict) -> KernelVariant:
        for v in self.variants:
            if v.key == key:
                return v
        raise KeyError(key)


def split_last(expr: sympy.Mul, last) -> tuple[sympy.Expr, sympy.Expr] | None:
    """(rest, factor) when the product `expr` is to be printed `(rest)*factor`, else None.

    Only when `rest` is itself a product of two or more factors: `g*a` or `g/a` is one operation either way.  A rest
    of a number and a sum stays that product (unevaluated): SymPy would distribute `2*(x - t)` into `2*x - 2*t`, a
    sum, and `2*g` would then form first (inf for g = 3.4e38 where 2*(x - t)*g is finite)."""
    factors = [f for f in expr.args if f in last]
    if len(factors) != 1:
        return None
    others = [f for f in expr.args if f is not factors[0]]
    rest = expr.func(*others)
    if isinstance(rest, sympy.Add) and len(others) == 2:
        rest = expr.func(*others, evaluate=False)
    if not isinstance(rest, sympy.Mul) or rest.as_coeff_Mul()[0] == -1 and len(rest.args) == 2:
        return None
    return rest, factors[0]


def _bounded_by_one(f) -> bool:
    """Whether |f| <= 1 for every real argument: a sigmoid, tanh, erf, or a positive integer power of one."""
    from .rewrite import Sigmoid
    if isinstance(f, sympy.Pow) and f.exp.is_Integer and f.exp > 0:
        return _bounded_by_one(f.base)
    return isinstance(f, (Sigmoid, sympy.tanh, sympy.erf))


def _can_vanish(f) -> bool:
    """Whether f is exactly 0 on part of its domain: max(0, u), min(0, u), a Piecewise with a 0 branch, or a
    positive power of one (SquaredHingeLossBackward's max(0, 1 - t*x))."""
    if isinstance(f, sympy.Pow) and f.exp.is_positive:
        return _can_vanish(f.base)
    if isinstance(f, (sympy.Max, sympy.Min)):
        return any(a.is_zero for a in f.args)
    return isinstance(f, sympy.Piecewise) and any(e.is_zero for e, _ in f.args)


def _small(f) -> bool:
    """A factor that can be far below 1 or exactly 0: what an operand formed inf before it would meet as inf*0."""
    return _bounded_by_one(f) or _can_vanish(f)


def _grows(f) -> bool:
    """A factor that can take a FLOAT near its largest value over the largest: a number above 1 in magnitude."""
    return bool(f.is_number) and bool(abs(f.value if isinstance(f, Const) else f) > 1)


def _of_any_size(f) -> bool:
    """A factor that is an operand of any magnitude as it stands: a symbol (a tensor element, a scalar, a
    temporary), a positive power of one, or a Piecewise (SituGluGrad's up half, b itself for linearBeta <= 0)."""
    if isinstance(f, sympy.Pow) and f.exp.is_positive:
        f = f.base
    return isinstance(f, (sympy.Symbol, sympy.Piecewise))


def bounded_after_first(factors: list) -> list:
    """The numerator factors of a product in the order the backends multiply them: as given (SymPy's canonical
    order), but the small factors (`_small`: bounded by 1 — sigmoid, tanh, erf — or exactly 0 somewhere —
    max(0, u), a Piecewise with a 0 branch) right after the first other factor that is not a number, where one of
    them would otherwise come after a second operand of any size (`_of_any_size`); before a factor that can vanish,
    a number above 1 (`_grows`) counts as such an operand and then follows the small factors (inf*0 is nan where
    the mathematics gives 0; before a bounded factor it would only change the rounding: GeluBackward's 1.5957*b*σ
    moved raised its FLOAT max ulp 18 -> 19, where b² leaves FLOAT before 1.5957*b can).
    SituGluGrad's S*b*σ(a) (b ≈ 3e38, |S| > 1, σ(a) ≪ 1) formed S*b, inf, before σ(a) joined; now the partial
    products are S, S*σ(a), S*σ(a)*b, none larger than the same order without the bounded factors.
    SquaredHingeLossBackward's c0*t*max(0, 1 - t*x) (c0 = -2/N, t > 1.7e38) formed c0*t, -inf, before the max, 0,
    joined: nan where the mathematics gives 0; now c0*max(0, 1 - t*x)*t, 0.  And -2*w*max(0, -x) formed 2*w,
    inf for w > 1.7e38: now w*max(0, -x)*2.
    They join the first operand rather than each other: two sigmoids of 1e-30 multiplied first would underflow where
    b*σ*σ is a FLOAT.  Unchanged where they already follow the first operand (x*σ(x), β*tanh(u)*σ(v)), where there
    is none (4*σ(u)*σ(-u)), and where only computed values come between (MishBackward's x*(1 - tanh(u)²)*σ(x): no
    order of it overflows, and moving σ(x) changed the NumPy kernel's rounding, max 4 ulp to 7)."""
    small = [f for f in factors if _small(f)]
    others = [f for f in factors if not _small(f)]
    first = next((k for k, f in enumerate(others) if not f.is_number), None)
    if not small or first is None:
        return list(factors)
    operands = grown = 0
    late = late_zero = False
    for f in factors:   # a small factor after the first operand and a second one of any size (or a number > 1)
        if _small(f):
            late |= operands >= 2
            late_zero |= _can_vanish(f) and operands + grown >= 2
        elif not f.is_number:
            operands += 1 if operands == 0 or _of_any_size(f) else 0
        elif _grows(f):
            grown += 1
    if not (late or late_zero):
        return list(factors)
    moved = lambda f: late_zero and _grows(f)   # noqa: E731
    return [f for f in others[:first] if not moved(f)] + [others[first]] + small \
        + [f for f in others[:first] if moved(f)] + others[first + 1:]


class Const(sympy.AtomicExpr):
    """An exact real constant that is not an integer (`sqrt(2)/pi`, `Rational(1, 3)`), kept whole so that every
    backend prints it as one literal, its value rounded once to the kernel's type (codegen.backends.literals).

    An atom: CSE and the backends' lowering see a number, not a product to take apart."""

    is_number = True
    is_commutative = True
    __slots__ = ("value",)

    def __new__(cls, value):
        obj = super().__new__(cls)
        obj.value = sympy.sympify(value)
        return obj

    def __getnewargs__(self):
        return (self.value,)

    def _hashable_content(self):
        return (self.value,)

    def _eval_is_extended_real(self):
        return self.value.is_extended_real

    def _eval_is_extended_positive(self):
        return self.value.is_extended_positive

    def _eval_is_extended_negative(self):
        return self.value.is_extended_negative

    def _eval_is_zero(self):
        return self.value.is_zero

    def _eval_is_finite(self):
        return self.value.is_finite

    def _eval_evalf(self, prec):
        return self.value._eval_evalf(prec) if hasattr(self.value, "_eval_evalf") else self.value.evalf(prec)

    def _sympystr(self, printer):
        return f"Const({printer._print(self.value)})"

    def _latex(self, printer):
        return printer._print(self.value)


def _is_const(a) -> bool:
    """A number in the lowered expression: SymPy's own or a grouped Const."""
    return a.is_Number or isinstance(a, Const)


def group_constants(expr):
    """Each product's constant factors as one Const and each sum's constant terms as one Const (integers stay
    integers, a sign stays a factor -1); exponents are left as they are (`x**Rational(3, 2)` keeps its power)."""
    if not isinstance(expr, sympy.Basic) or isinstance(expr, Const) or expr.is_Integer or expr is sympy.nan \
            or (expr.is_Atom and not expr.is_number):
        return expr
    if isinstance(expr, sympy.Expr) and expr.is_number and not expr.has(sympy.Symbol):
        return Const(expr) if not expr.is_Integer else expr
    if isinstance(expr, sympy.Pow):
        return sympy.Pow(group_constants(expr.base), expr.exp)
    if isinstance(expr, (sympy.Mul, sympy.Add)):
        args = [group_constants(a) for a in expr.args]
        consts = [a for a in args if a.is_number]
        rest = [a for a in args if not a.is_number]
        c = expr.func(*[a.value if isinstance(a, Const) else a for a in consts])
        if c.is_Integer or not consts:
            return expr.func(c, *rest)
        if isinstance(expr, sympy.Mul) and c.is_negative:
            return sympy.Mul(sympy.S.NegativeOne, Const(-c), *rest)
        return expr.func(Const(c), *rest)
    if not expr.args:
        return expr
    return expr.func(*[group_constants(a) for a in expr.args])


def _rational_value(c):
    """The Rational a Const or SymPy number stands for, else None."""
    v = c.value if isinstance(c, Const) else c
    return v if isinstance(v, sympy.Rational) else None


def _affine_quotient(expr):
    """`t·p/q + c` as `(±t + c·q/|p|)/(q/|p|)` when q > 1 has an odd factor (1/q is no FLOAT), |p| is a power of
    two (c·q/|p| and q/|p| as exact as c·q and q) and c·q is a FLOAT with few digits; else None."""
    if not isinstance(expr, sympy.Add) or len(expr.args) != 2:
        return None
    c = next((a for a in expr.args if a.is_number), None)
    term = next((a for a in expr.args if not a.is_number), None)
    if c is None or term is None or _rational_value(c) is None or not isinstance(term, sympy.Mul):
        return None
    numbers = [a for a in term.args if a.is_number]
    coeff = sympy.Mul(*[_rational_value(a) if _rational_value(a) is not None else sympy.nan for a in numbers])
    if not isinstance(coeff, sympy.Rational) or coeff.is_Integer:
        return None
    p, q = coeff.p, coeff.q
    odd = q // (q & -q)
    c_q = _rational_value(c) * q
    if odd == 1 or abs(p) & (abs(p) - 1) or c_q.q & (c_q.q - 1) or abs(c_q.p) >= 2 ** 24:
        return None
    # over q/|p|, not q: (p·t + c·q)/q would scale t by p, out of FLOAT where t·p/q is not (|t| > max/|p|); t
    # and c·q/|p| (p a power of two: still a FLOAT with few digits) keep the sum as small as written
    t = sympy.Mul(*[a for a in term.args if not a.is_number])
    c_qp, q_p = c_q / abs(p), sympy.Rational(q, abs(p))
    numerator = sympy.Add(sympy.sign(p) * t, c_qp if c_qp.is_Integer else Const(c_qp))
    return sympy.Mul(numerator, sympy.Pow(Const(q_p), -1))


def exact_affine(expr):
    """Each `t/3 + 1/2` (a tensor term times a rational p/q whose 1/q no FLOAT holds, plus a rational) as
    `(t + 3/2)/3`: the one rounding is the division's.  Multiplying by fl(1/3) first and adding 1/2 then cancels
    beside t = -3/2 (HardswishBackwardV2's x/3 + 1/2: 999 ulp as fl(1/3)·x + 0.5, 1 ulp as (x + 1.5)/3, where
    x + 1.5 is exact).  SymPy folds the quotient back into t/3 + 1/2, so the denominator is a Const (no Number).
    Conditions are left as they are."""
    if not isinstance(expr, sympy.Basic) or expr.is_Atom or isinstance(
            expr, (sympy.core.relational.Relational, sympy.logic.boolalg.BooleanFunction)):
        return expr
    if isinstance(expr, sympy.Piecewise):
        return sympy.Piecewise(*[(exact_affine(e), c) for e, c in expr.args])
    new = expr.func(*[exact_affine(a) for a in expr.args])
    quotient = _affine_quotient(new)
    return quotient if quotient is not None else new


def _content(a):
    """(c, primitive) of the sum `a` (or of the sum a Pow with an integer exponent raises) when its terms' numeric
    content c is a Rational with |c| > 1, else None: `2*x - 2*t` is 2 times `x - t`.  The content of the terms'
    own coefficients only (`Add.primitive`): SymPy's `as_content_primitive` also clears the denominators of the sums
    inside a term, and wrote Snake's 2x·s/(α + 10^-9) - s²/(α + 10^-9)² as 2·10^9·(x·s/(10^9·α + 1) - …), whose
    10^9·α is inf at |α| > 3.4e29 where α + 10^-9 is not (gradAlpha -0 for -0.0429 at α = 3e38)."""
    base, n = (a.base, a.exp) if isinstance(a, sympy.Pow) and a.exp.is_Integer else (a, sympy.S.One)
    if not isinstance(base, sympy.Add):
        return None
    c, primitive = base.primitive()
    if not isinstance(c, sympy.Rational) or abs(c) <= 1:
        return None
    return c ** n, primitive ** n


def pull_sum_content(expr):
    """In each product, a sum's numeric content folded into the product's coefficient: `g*(2*x - 2*t)*k` as
    `2*g*(x - t)*k`, so the 2 joins the scalars (the prelude's constant) instead of multiplying each tensor term.
    SymPy distributes a number over a sum (the spec's 2*(x - t) reaches the lowering as 2*x - 2*t), and 2*x
    overflows at |x| > 1.7e38 where the result, after a mean's 1/N, is finite (MseLossBackward: inf for 2.65e37).
    Only a content |c| > 1 is pulled out: the sum left is smaller than the one it replaces, so it cannot overflow
    where the old one did not.  A power-of-two content gives the same bits (c*x - c*t and c*(x - t) round alike, and
    c*fl(k) is fl(c*k)) except where c*x overflowed; another content rounds the sum once instead of each c*term
    and the sum.  Conditions are left as they are (a comparison does not overflow into a result)."""
    if not isinstance(expr, sympy.Basic) or expr.is_Atom or isinstance(
            expr, (sympy.core.relational.Relational, sympy.logic.boolalg.BooleanFunction)):
        return expr
    if isinstance(expr, sympy.Piecewise):
        return sympy.Piecewise(*[(pull_sum_content(e), c) for e, c in expr.args])
    args = [pull_sum_content(a) for a in expr.args]
    if isinstance(expr, sympy.Mul):
        coeff, factors = sympy.S.One, []
        for a in args:
            pulled = _content(a)
            coeff, a = (coeff * pulled[0], pulled[1]) if pulled is not None else (coeff, a)
            factors.append(a)
        return sympy.Mul(coeff, *factors)
    return expr.func(*args)


def scalars_into_branches(expr, scalar_syms, grad, joined=None):
    """A product of scalar factors (a mean's 1/N, a weight attribute, a number) and one Piecewise whose branches
    multiply the incoming gradient, as that Piecewise with the scalars inside each branch: `c*Piecewise((g*w*e,
    ...), ...)` as `Piecewise((c*g*w*e, ...), ...)`, so that c joins the local derivative before the gradient
    multiplies last (`split_last`).  Outside, c multiplied after g*w*e, which leaves FLOAT where c*w*e*g does not
    (MarginRankingLossBackward, mean: -g*target before the 1/N).  A sign (-1) alone is left outside: a negation is
    exact in either place.  Left outside too where a branch has a scalar or a number of its own (other than a
    sign), which hoisting would fold into one constant with c: HuberLossBackward's delta*sign(e)*g*w, whose
    delta/N rounded once is the same error on every element (the mean relative error rose 50%, 3.1e-8 to 4.8e-8,
    and FLOAT16's max ulp 0 to 1), where fl(delta*g) rounds independently per element.  Conditions are left as
    they are.

    Such scalars at most 1 in size (a mean's 1/N) join the gradient instead where `joined` (a dict) is given: the
    branches read a stand-in symbol `<grad>_mean` for c*g, which `joined` maps to c*g.  c*g never leaves FLOAT, its
    product with the branch's local derivative is the result, and each element keeps the old number of roundings
    and the old shared ones (fl(c), fl(delta)): Huber's delta*w*sign(e)*(c*g) for (delta*w*sign(e)*g)*c, the same
    bits where c*g is exact (c = 1, or N a power of two).  Only where the branch's own scalars are parameters
    themselves (delta): SmoothL1LossBackward's 1/beta*(x - t) (at most 1 in its branch) then met codegen.scaled,
    0.71-0.78x in FLOAT16/BFLOAT16, and BinaryCrossEntropyBackward's 10^12 branch's FLOAT max ulp rose 2 -> 3."""
    if not isinstance(expr, sympy.Basic) or expr.is_Atom or isinstance(
            expr, (sympy.core.relational.Relational, sympy.logic.boolalg.BooleanFunction)):
        return expr
    if isinstance(expr, sympy.Piecewise):
        return sympy.Piecewise(*[(scalars_into_branches(e, scalar_syms, grad, joined), c) for e, c in expr.args])
    expr = expr.func(*[scalars_into_branches(a, scalar_syms, grad, joined) for a in expr.args])
    if not isinstance(expr, sympy.Mul):
        return expr
    inner = [a for a in expr.args if isinstance(a, sympy.Piecewise) and a.has(grad)]
    outside = [a for a in expr.args if a not in inner]
    if len(inner) != 1 or not outside or outside == [sympy.S.NegativeOne] or not all(
            a.is_number or _is_scalar_only(a, scalar_syms) for a in outside):
        return expr
    k = sympy.Mul(*outside)
    for branch, _ in inner[0].args:
        own = [f for f in sympy.Mul.make_args(branch) if f.is_number or _is_scalar_only(f, scalar_syms)]
        if [f for f in own if f not in (sympy.S.NegativeOne, sympy.S.Zero, sympy.S.One)]:
            if joined is None or magnitude_bound(k, {}) > 1 or not all(
                    f in scalar_syms or f in (sympy.S.NegativeOne, sympy.S.Zero, sympy.S.One) for f in own):
                return expr
            stand_in = sympy.Symbol(f"{grad.name}_mean", real=True)
            joined[stand_in] = k * grad
            return inner[0].xreplace({grad: stand_in})
    return sympy.Piecewise(*[(k * e, c) for e, c in inner[0].args])


def ratios_first(expr, divisors: set, weights: set):
    """A weighted mean's division formed as a ratio of two numbers of one scale, before anything else multiplies
    them: `divisors` are the symbols a mean divides by that are sums of weights (a grid sum, CrossEntropyLossGrad's
    Σ weight[target]; a one-element tensor, NLLLoss's totalWeight), `weights` the tensors other than the gradient.
    With weights of 2^-140 the products g*w*(p - onehot) (or the Extended sum of them, rounded to FLOAT) were
    subnormals of a few bits before the /Σw: 0.94 relative error on every backend (w/Σw is a FLOAT near 1).  So
      - a product of an `Extended` sum and 1/D: the division joins the sum, `Extended(e/D)`, computed in double
        and rounded once (CrossEntropyLossGrad's mean; NumPy and C, see weighted_divisors for Ascend C);
      - a product of weights and a Piecewise with 1/D in a branch: the weights join the branches, `w/D` a true
        division (NLLLoss's w*Piecewise((1/totalWeight, reduction == 1), (1, True)): 1/D alone overflowed for
        D < 2^-128, and lost bits as a subnormal for D > 2^126).
    Conditions are left as they are."""
    if not divisors or not isinstance(expr, sympy.Basic) or expr.is_Atom or isinstance(
            expr, (sympy.core.relational.Relational, sympy.logic.boolalg.BooleanFunction)):
        return expr
    if isinstance(expr, sympy.Piecewise):
        return sympy.Piecewise(*[(ratios_first(e, divisors, weights), c) for e, c in expr.args])
    expr = expr.func(*[ratios_first(a, divisors, weights) for a in expr.args])
    if not isinstance(expr, sympy.Mul):
        return expr
    dividing = lambda f: isinstance(f, sympy.Pow) and f.exp == -1 and f.base in divisors   # noqa: E731
    dens = [a for a in expr.args if dividing(a)]
    sums = [a for a in expr.args if isinstance(a, Extended)]
    if len(dens) == 1 and len(sums) == 1:
        rest = [a for a in expr.args if a is not dens[0] and a is not sums[0]]
        return sympy.Mul(*rest, Extended(sums[0].args[0] * dens[0]))
    inner = [a for a in expr.args if isinstance(a, sympy.Piecewise)
             and any(any(dividing(f) for f in sympy.Mul.make_args(e)) for e, _ in a.args)]
    joining = [a for a in expr.args if a in weights]
    if len(inner) != 1 or not joining:
        return expr
    rest = [a for a in expr.args if a is not inner[0] and a not in joining]
    w = sympy.Mul(*joining)
    return sympy.Mul(*rest, sympy.Piecewise(*[(w * e, c) for e, c in inner[0].args]))


def weighted_divisors(op: Op) -> set:
    """The divisors of the op's loss reduction that are sums of weights, not element counts: a one-element tensor
    (NLLLoss's totalWeight) or a GridSum; Ascend C's kernel op reads the GridSum as its one-element input GRID_SUM
    (its pair sums keep their bits at subnormal operands by scaling them, codegen.backends.ascendc.doublefloat)."""
    from .spec.classes import GRID_SUM
    reduction = op.reduction
    tensors = {t.symbol for t in op.tensors}
    grid = {t.symbol for t in op.tensors if t.name == GRID_SUM}
    divisors = {d for d in ([] if reduction is None else reduction.divisors.values()) if d in tensors or d.has(GridSum)}
    return {next(iter(grid)) if grid and d.has(GridSum) else d for d in divisors}


def grid_companions(op: Op, used: set, key: dict) -> set:
    """Ascend C's GRID_SCALED wherever its kernel reads GRID_SUM as a sum of weights: the grid sum scaled by 2^-66,
    which the overflow path of its pair sums reads where the sum itself is beyond FLOAT's range
    (codegen.backends.ascendc.doublefloat).  Not where its optional weights are absent: the sum is a count."""
    from .spec.classes import GRID_SCALED, GRID_SUM
    names = {t.name: t.symbol for t in op.tensors}
    if GRID_SCALED not in names or names.get(GRID_SUM) not in used:
        return set()
    api = op.grid_of
    summed = {s for f in api.formulas for g in sympy.sympify(f.expr).atoms(GridSum) for s in g.args[0].free_symbols}
    weights = [t.name for t in api.tensors if t.symbol in summed and t.optional]
    return set() if weights and all(key.get(w) == ABSENT for w in weights) else {names[GRID_SCALED]}


def _is_scalar_only(expr, scalar_syms) -> bool:
    """A FLOAT value of scalars only (the prelude holds FLOATs: a condition on scalars stays where it is used)."""
    return bool(expr.free_symbols) and expr.free_symbols <= scalar_syms and not expr.has(DimSum) \
        and not isinstance(expr, (sympy.core.relational.Relational, sympy.logic.boolalg.BooleanFunction))


class CompensatedAdd(sympy.Function):
    """x + (hi + lo), evaluated (x + hi) + lo: a scalar carried as two FLOATs (hi = fl(a*b), lo = the exact
    rounding error fma(a, b, -hi)) added to a tensor term.

    Where x cancels hi (ELU's y + alpha*scale near the asymptote y -> -alpha*scale), x + hi is exact (Sterbenz)
    and the one rounding left is the final one; hoisting fl(a*b) alone would make the rounding error of the
    product, up to half an ulp of alpha*scale, a relative error of any size in the difference.  Elsewhere it
    costs at most one ulp.  Every backend prints it as two additions in that order."""
    nargs = 3


def exact_constants(expr):
    """`expr` with each Const atom (ConstLo's too) replaced by the exact value it stands for: for comparing and
    evaluating lowered expressions symbolically."""
    return expr.replace(lambda e: isinstance(e, Const), lambda e: e.value)


class ConstLo(Const):
    """The rounding error c - fl(c) of the constant c in the kernel's type, itself rounded to that type: the low
    half of c carried as two literals, `Const(c)` (hi) and `ConstLo(c)` (lo).  Each backend prints it for its own
    type (codegen.backends.literals), as it prints `Const(c)`."""

    def _eval_is_extended_positive(self):
        return None

    def _eval_is_extended_negative(self):
        return None

    def _eval_is_zero(self):
        return None

    def _eval_evalf(self, prec):
        from .backends import literals
        return sympy.Float(float(literals.float32(self)), prec)

    def _sympystr(self, printer):
        return f"ConstLo({printer._print(self.value)})"


def _inexact_in_float(c) -> bool:
    """Whether the constant c is no FLOAT (its rounding to FLOAT has an error)."""
    from .backends import literals
    return literals.float32(ConstLo(c)) != 0


def compensate_constants(expr):
    """Each sum of tensor terms and one constant c that no FLOAT holds as CompensatedAdd(rest, c, ConstLo(c)):
    `(rest + hi) + lo`.  Where rest cancels c (SELU's y + λα near its asymptote y -> -λα) rest + hi is exact and the
    rounding error of c, up to half an ulp of c, no longer becomes a relative error of any size in the difference
    (SeluBackward was 1e-4 off in 44% of its results for x in [-12, -5]); elsewhere it costs at most one ulp and
    one addition.  Conditions are left as they are (a comparison does not cancel)."""
    if not isinstance(expr, sympy.Basic) or expr.is_Atom or isinstance(
            expr, (sympy.core.relational.Relational, sympy.logic.boolalg.BooleanFunction, CompensatedAdd)):
        return expr
    if isinstance(expr, sympy.Piecewise):
        return sympy.Piecewise(*[(compensate_constants(e), c) for e, c in expr.args])
    args = [compensate_constants(a) for a in expr.args]
    if isinstance(expr, sympy.Add):
        consts = [a for a in args if a.is_number]
        if len(consts) == 1 and isinstance(consts[0], Const) and not isinstance(consts[0], ConstLo) \
                and len(args) > 1 and _inexact_in_float(consts[0].value):
            c = consts[0]
            rest = [a for a in args if a is not c]
            factored = _without_factor(rest, c)
            if factored is not None:   # c (1 + Σ ...): the sum exact where it cancels (1 - t² at t = ±1 is 0)
                return c * compensate_constants(sympy.Add(1, *factored))
            return CompensatedAdd(sympy.Add(*rest), c, ConstLo(c.value))
    return expr.func(*args)


def _without_factor(terms, c) -> list | None:
    """The terms each divided by their factor `c` (a Const), when every one has it (7/20 - 7/20 t²: the sum is
    c (1 - t²), where CompensatedAdd(-c t², c, lo) gave lo(c), 1e-8, for the 0 at t = ±1: fuzz seed 2121), else
    None."""
    out = []
    for t in terms:
        factors = list(t.args) if isinstance(t, sympy.Mul) else [t]
        if c not in factors:
            return None
        factors.remove(c)
        out.append(sympy.Mul(*factors))
    return out


def _prelude_symbol(expr, prelude, counter):
    for sym, e in prelude:
        if e == expr:
            return sym
    sym = sympy.Symbol(f"c{counter[0]}", real=True)
    counter[0] += 1
    prelude.append((sym, expr))
    return sym


def _compensated(expr, scalar_syms, prelude, counter):
    """The sum `expr` as CompensatedAdd when it is one product of two scalars plus tensor terms, else None."""
    scal = [a for a in expr.args if _is_scalar_only(a, scalar_syms) or _is_const(a)]
    if len(scal) != 1 or not isinstance(scal[0], sympy.Mul) or len(scal[0].args) != 2 \
            or any(_is_const(f) for f in scal[0].args):
        return None
    a, b = (_hoist(f, scalar_syms, prelude, counter) for f in scal[0].args)
    hi = _prelude_symbol(a * b, prelude, counter)
    lo = _prelude_symbol(fma(a, b, -hi), prelude, counter)
    rest = _hoist(expr.func(*[t for t in expr.args if t is not scal[0]]), scalar_syms, prelude, counter)
    return CompensatedAdd(rest, hi, lo)


def _hoist(expr, scalar_syms, prelude, counter):
    """Replace maximal scalar-only, non-atomic subexpressions by prelude symbols."""
    if expr.is_Atom:
        return expr
    if isinstance(expr, ExprCondPair):   # a pair is no value: its branch value may be hoisted, never the pair
        return ExprCondPair(_hoist(expr.expr, scalar_syms, prelude, counter),
                            _hoist(expr.cond, scalar_syms, prelude, counter))
    if _is_scalar_only(expr, scalar_syms) and not isinstance(expr, sympy.Symbol):
        return _prelude_symbol(expr, prelude, counter)
    if isinstance(expr, sympy.Add):
        compensated = _compensated(expr, scalar_syms, prelude, counter)
        if compensated is not None:
            return compensated
    if isinstance(expr, sympy.Piecewise):   # (its pairs are not expressions: hoist their parts)
        return sympy.Piecewise(*[(_hoist(e, scalar_syms, prelude, counter), _hoist(c, scalar_syms, prelude, counter))
                                 for e, c in expr.args])
    if isinstance(expr, (sympy.Add, sympy.Mul)):
        # group the scalar-only operands of a sum/product into one hoisted term
        scal = [a for a in expr.args if _is_scalar_only(a, scalar_syms) or _is_const(a)]
        rest = [a for a in expr.args if a not in scal]
        if rest and len([a for a in scal if not _is_const(a)]) >= 1 and len(scal) >= 2:
            grouped = _hoist(expr.func(*scal), scalar_syms, prelude, counter)
            return expr.func(grouped, *[_hoist(a, scalar_syms, prelude, counter) for a in rest])
    return expr.func(*[_hoist(a, scalar_syms, prelude, counter) for a in expr.args])


def _greater(rel):
    """The relation as (a, b, strict): a > b, or a >= b when not strict."""
    if rel.rel_op in (">", ">="):
        return rel.lhs, rel.rhs, rel.rel_op == ">"
    return rel.rhs, rel.lhs, rel.rel_op == "<"


def _abs_condition(cond):
    """`u > c | -u > c` as `Abs(u) > c` (and `>=` alike), in any of the ways SymPy writes the two sides:
    Softshrink's `λ < x | x < -λ` becomes `|x| > λ`.  Exact in floating point too — a negation is exact, so
    `x < -λ` is `-x > λ`, and `max(u, -u)` is `|u|` for every u but nan, where both forms are false — and one
    absolute value and one comparison instead of a negation, two comparisons and an `or`: the Ascend C kernel
    needs one bit mask of a tile instead of three, the NumPy kernel two passes over a block fewer (1.01-1.04x at
    16M elements, where its passes over memory dominate), the C kernel no change at 16M elements (0.98-1.11x,
    the noise).  None when `cond` is not such a pair."""
    if not isinstance(cond, sympy.Or) or len(cond.args) != 2 or not all(
            a.is_Relational and a.rel_op in (">", ">=", "<", "<=") for a in cond.args):
        return None
    (a1, b1, s1), (a2, b2, s2) = (_greater(r) for r in cond.args)
    if s1 != s2:
        return None
    for u, c in ((a1, b1), (-b1, -a1)):          # u > c, and the same relation negated on both sides
        for v, c2 in ((a2, b2), (-b2, -a2)):
            if c == c2 and v == -u:
                return sympy.Abs(u) > c if s1 else sympy.Abs(u) >= c
    return None


def _required_positive(op: Op) -> set:
    """The scalars an unconditional Requires of the op holds at or above 0 (`b > 0`: SquareplusBackward's b)."""
    return {r.condition.lhs for r in op.rules if isinstance(r, Requires) and r.when == sympy.true
            and isinstance(r.condition, (sympy.StrictGreaterThan, sympy.GreaterThan)) and r.condition.rhs == 0}


def lower_variant(op: Op, variant: Variant) -> KernelVariant:
    scalar_params = [p for p in op.params if isinstance(p, (Scalar, Attr)) and p.symbol is not None]
    expr = scaled_square_roots(stabilize(sympy.sympify(variant.kernel_expr)), {t.symbol for t in op.tensors},
                               _required_positive(op))
    params = {p.symbol for p in scalar_params}
    expr = expr.replace(lambda a: isinstance(a, DimSum) and all(s in params or numel_param(s) is not None
                                                                for s in a.args[0].free_symbols),
                        lambda a: a.args[0] * RowLength(_row_length(op)))
    expr = expr.replace(lambda a: _abs_condition(a) is not None, _abs_condition)
    early_scalars = params | {s for s in expr.free_symbols if numel_param(s) is not None}
    joined = {}   # a mean's 1/N joined to the gradient first: {stand-in: c*g}
    expr = scalars_into_branches(expr, early_scalars, op.grad.symbol, joined)
    # a tensor element clamped where the bounded functions of it saturate (codegen.saturate): a stand-in symbol,
    # which the guard expands about its roots as the element, and whose name sorts where the element's did (SymPy
    # orders a product's factors by name: GeluBackward's 1.5957*σ(u)*σ(-u)*x stays in that order), computed first
    clamps = {x: (sympy.Symbol(f"{x.name}_clamped", real=True), bound)
              for x, bound in saturation_clamps(expr, {t.symbol for t in op.tensors}).items()}
    expr = expr.xreplace({x: s for x, (s, _) in clamps.items()})
    expr = exact_affine(group_constants(pull_sum_content(expr)))
    # sums that can cancel: a polynomial about their roots, or computed wider than FLOAT (codegen.cancellation)
    expr = guard(expr, {t.symbol for t in op.tensors} | {s for s, _ in clamps.values()}, params)
    numel_syms = {s for e in [expr, *joined.values()] for s in e.free_symbols if numel_param(s) is not None}
    scalar_syms = {p.symbol for p in scalar_params} | numel_syms

    # 1. sums over the grid and row reductions first, so hoisting inside their summands sees them as whole units
    grid_sums = []

    def take_gridsum(a):
        for sym, e in grid_sums:
            if e == a.args[0]:
                return sym
        sym = sympy.Symbol(f"g{len(grid_sums)}", real=True)
        grid_sums.append((sym, a.args[0]))
        return sym
    expr = expr.replace(lambda a: isinstance(a, GridSum), take_gridsum)
    reductions = []

    def take_dimsum(a):
        inner = a.args[0]
        for sym, e in reductions:
            if e == inner:
                return sym
        sym = sympy.Symbol(f"r{len(reductions)}", real=True)
        reductions.append((sym, inner))
        return sym
    expr = expr.replace(lambda a: isinstance(a, DimSum), take_dimsum)
    # a weighted mean divides its weights by their sum first (`ratios_first`)
    taken = {GridSum(e): s for s, e in grid_sums}
    divisors = {d.xreplace(taken) for d in weighted_divisors(op)} & expr.free_symbols
    expr = ratios_first(expr, divisors, {t.symbol for t in op.tensors} - {op.grad.symbol})

    # 2. prelude
    prelude, counter = [], [0]
    expr = compensate_constants(_hoist(expr, scalar_syms, prelude, counter))
    joined = [(s, _hoist(e, scalar_syms, prelude, counter)) for s, e in joined.items()]
    reductions = [(s, _hoist(e, scalar_syms, prelude, counter)) for s, e in reductions]
    grid_sums = [(s, _hoist(e, scalar_syms, prelude, counter)) for s, e in grid_sums]

    # a row length from a DimSum of a number is scalar-only, so hoisting made it (or a product with it) a value
    # of the prelude, a FLOAT every backend's kernel reads: there it is the count itself
    prelude = [(s, e.replace(lambda a: isinstance(a, RowLength), lambda a: a.args[0])) for s, e in prelude]

    # 3. elementwise CSE, canonical order for byte-identical output
    temps, (result,) = sympy.cse([expr], symbols=sympy.numbered_symbols("t", real=True), order="canonical")
    temps, result = _inline_into_extended(temps, result)
    temps, result = exact_arguments(temps, result)   # sin(a*b) from the exact product where large (trig_arguments)
    for grad in [op.grad.symbol] + [s for s, _ in joined]:
        temps, result = _inline_gradient_products(temps, result, grad, {t.symbol for t in op.tensors})
    temps = [(s, clamped(x, bound)) for x, (s, bound) in clamps.items()] + list(temps)
    temps = joined + list(temps)
    for grad in [op.grad.symbol] + [s for s, _ in joined]:   # L beyond FLOAT: codegen.scaled
        temps, result = scale_gradient_products(temps, result, grad, prelude)

    used = set(clamps) | {op.grad.symbol for _ in joined} | expr.free_symbols \
        | {s for _, e in reductions + grid_sums for s in e.free_symbols} \
        | {s for _, e in prelude for s in e.free_symbols}
    used |= grid_companions(op, used, variant.key)
    tensors = [t for t in op.tensors if t.symbol in used and variant.key.get(t.name) != ABSENT]
    scalars = [p for p in scalar_params if p.symbol in used]
    numels = sorted(numel_param(s) for s in used if numel_param(s) is not None)
    return KernelVariant(variant, variant.suffix, tensors, scalars, numels, prelude, reductions,
                         list(temps), result, last=frozenset({op.grad.symbol, *(s for s, _ in joined)}),
                         grid_sums=grid_sums)


def extended_reads(exprs) -> set:
    """The symbols that the sums computed wide (Extended) of `exprs` read."""
    syms = set()
    for e in exprs:
        for ext in sympy.sympify(e).atoms(Extended):
            syms |= ext.free_symbols
    return syms


def reads_outside_extended(exprs) -> set:
    """The symbols that `exprs` read outside their sums computed wide (Extended)."""
    syms, hole = set(), sympy.Dummy("extended")
    for e in exprs:
        e = sympy.sympify(e)
        syms |= e.xreplace({x: hole for x in e.atoms(Extended)}).free_symbols - {hole}
    return syms


def wide_constants(kv: KernelVariant) -> list[tuple[str, object]]:
    """(name, symbol) of the real constants (scalars, attributes, prelude) that a sum computed wide (Extended)
    reads: every backend hands that sum the value unrounded (computed in double from the unrounded scalars), not
    the FLOAT one, whose rounding (2^-24 of its term) became the result's error where the sum cancels
    (CrossEntropyLossGrad's labelSmoothing/C and 1 - labelSmoothing, docs/accuracy.md)."""
    inside = extended_reads([e for _, e in kv.body] + [kv.result])
    real = [(p.py_name, p.symbol) for p in kv.scalars if isinstance(p, Scalar) or p.is_real]
    real += [(str(s), s) for s, _ in kv.prelude]
    return [(name, sym) for name, sym in real if sym in inside]


def wide_reductions(kv: KernelVariant) -> list:
    """The row sums that a sum computed wide (Extended) reads: every backend hands it the sum unrounded."""
    inside = extended_reads([e for _, e in kv.body] + [kv.result])
    return [s for s, _ in kv.reductions if s in inside]


def wide_grid_sums(kv: KernelVariant) -> list:
    """The grid sums that a sum computed wide (Extended) reads (a weighted mean's Σw, `ratios_first`): NumPy and C
    hand it the sum unrounded, so a total weight beyond FLOAT's largest is a double, not inf."""
    inside = extended_reads([e for _, e in kv.body] + [kv.result])
    return [s for s, _ in kv.grid_sums if s in inside]


def prelude_in_double(kv: KernelVariant) -> dict:
    """{prelude symbol: its expression in the scalars alone} (each earlier prelude constant substituted), for the
    constants a backend computes unrounded in double (wide_constants)."""
    prelude = {}
    for s, e in kv.prelude:
        prelude[s] = sympy.sympify(e).xreplace(prelude)
    return prelude


def _inline_into_extended(temps, result):
    """CSE may take a part of an Extended sum out into a FLOAT temporary (BCE's posWeight*target, twice in the sum):
    put it back, so the whole sum is computed wide, and drop the temporaries nothing reads any more."""
    if not any(e.has(Extended) for _, e in temps) and not result.has(Extended):
        return temps, result
    defs = dict(temps)

    def extend(e):
        def inline(w):
            inner = w.args[0]
            while inner.free_symbols & defs.keys():
                inner = inner.xreplace(defs)
            return Extended(inner)
        return e.replace(lambda a: isinstance(a, Extended), inline)
    temps = [(s, extend(e)) for s, e in temps]
    result = extend(result)
    return read_temporaries(temps, result), result


def read_temporaries(temps, result) -> list:
    """The temporaries the result reads, directly or through others, in their order."""
    needed = set(result.free_symbols)
    kept = []
    for s, e in reversed(temps):
        if s in needed:
            kept.append((s, e))
            needed |= e.free_symbols
    return kept[::-1]


def _inline_gradient_products(temps, result, g, tensor_syms):
    """CSE may take out the gradient times other input tensors (`gradOutput*weight`, common to two branches of
    HuberLossBackward's `g*w*e` and `g*w*delta*sign(e)`): a product of factors of arbitrary magnitude, formed
    before the local derivative joins it, overflows where the result does not (g = -1.87, w = 3e38, e = 0.23 gave
    -inf for -1.27e38).  Such a temporary is put back into its readers, where the gradient multiplies last
    (`split_last`).  Only a product of the gradient and bare tensor elements: no op of specs/ has one."""
    inlined, kept = {}, []
    for s, e in temps:
        e = e.xreplace(inlined)
        if isinstance(e, sympy.Mul) and g in e.args and all(a == g or a in tensor_syms for a in e.args):
            inlined[s] = e
            continue
        kept.append((s, e))
    if not inlined:
        return temps, result
    return kept, result.xreplace(inlined)


class RowLength(sympy.Function):
    """A row's length where a DimSum of a number stood, until lowering makes it a prelude value: held whole so
    that hoisting does not leave the count inside a product of tensor terms."""
    nargs = 1
    is_real = True
    is_positive = True


def _row_length(op: Op) -> sympy.Symbol:
    """The count of elements in a row (DimSum of a number is that number times it): the class-axis tensor's
    extent for a class-index op, else the broadcast shape's along a fixed axis >= 0, or along the call's dim (an
    attribute's, or a fixed axis from the end: a count every backend computes per call from the dim)."""
    classes = op.grid_of.classes if getattr(op, "grid_of", None) is not None else op.classes
    if classes is not None:   # (reduce_dim=1, the class axis: codegen.spec.classes)
        return dim_size(classes.tensor, op.reduce_dim)
    if isinstance(op.reduce_dim, int) and op.reduce_dim >= 0:
        return dim_size(BROADCAST, op.reduce_dim)
    return row_length(BROADCAST)   # an attribute's dim, or a fixed axis from the end (reduce_dim=-1)


_LOWERED: OrderedDict = OrderedDict()   # id(op) -> (op, Kernel): the last few ops lowered


def lower(op: Op) -> Kernel:
    """The op's Kernel.  Every backend (and the docs, and the C examples' cache key) asks for it, so it is kept
    for the last few Op objects, and for every one inside a `codegen.keep.kept()` block (a render of every op):
    lowering runs SymPy's rewrites and CSE, about 0.2 s per op.  Keyed by identity and holding the op, so an id
    is never reused while its entry lives; callers never mutate it."""
    hit = _LOWERED.get(id(op))
    if hit is not None and hit[0] is op:
        _LOWERED.move_to_end(id(op))
        return hit[1]
    k = kept_for(op, "kernel", lambda: _lower(op))
    _LOWERED[id(op)] = (op, k)
    if len(_LOWERED) > 32:
        _LOWERED.popitem(last=False)
    return k


def _lower(op: Op) -> Kernel:
    k = Kernel(op)
    if op.split is not None:   # the half ops' kernels (codegen.spec.split), each variant named after its half
        for h in op.halves:
            hk = lower(h)
            for kv in hk.variants:
                v = dataclasses.replace(kv.variant, half=str(h.wrt))
                k.variants.append(dataclasses.replace(kv, variant=v, suffix=v.suffix))
            k.names.update(hk.names)
    for v in [] if op.split is not None else op.variants:
        k.variants.append(lower_variant(op, v))
    for p in op.params:
        if p.symbol is not None:
            k.names[p.symbol] = p.py_name
    return k


class Conj(sympy.Function):
    """The complex conjugate of a tensor element, kept as written: the spec's symbols are real, so SymPy's own
    conjugate would vanish.  Only the complex kernels have it (`conjugated`)."""
    nargs = 1


def conjugated(op: Op, kv: KernelVariant) -> tuple[list, sympy.Expr]:
    """(body, result) of the variant's complex kernel (an op's `compute` COMPLEX): the gradient of a complex
    input is gradOutput * conj(d) for the local derivative d (PyTorch's convention, and CANN's AI CPU kernels'
    complex_conj); d has real coefficients and no branches (validation says so), so conj(d) is d of the
    conjugated tensors: every tensor but gradOutput is read conjugated."""
    rep = {t.symbol: Conj(t.symbol) for t in kv.tensors if t.symbol != op.grad.symbol}
    body, result = unscaled(kv.body, kv.result)   # the plain L*g: |L| > max tests no complex L (codegen.scaled)
    body, result = narrowed(body, result)         # nor a complex sine's argument (codegen.trig_arguments)
    return [(s, e.xreplace(rep)) for s, e in body], result.xreplace(rep)
