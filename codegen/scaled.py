"""A local derivative that leaves FLOAT's range before the incoming gradient joins: that product scaled there.

The gradient multiplies last (codegen.lower, `split_last`: g*0*inf would be nan where the mathematics gives 0), so
a kernel computes L*g with L, the local derivative, formed first.  Where L is a product of two factors of any
magnitude (or of one and a number above 1), or has a sum of such terms among its factors, it can leave FLOAT's
range where L*g does not, |g| < 1 bringing it back: MseLossGrad's 2*(x - t)*g at x = 3.4e38 (2*(x - t) is inf, the
result 1.06e38 for g = 0.156), WeightedMseLoss's 2*w*(x - t)*g at w = 3e38, GaussianNllLossGrad's
(x - t)/max(eps, var)*g, PoissonNllLoss's c0*(1 - t/(x + eps))*g at t = 3e38 (and inf*0 = nan at g = 0).

Such a product L*g is computed as

    s = |L| > max ? 2^-32 : 1
    Piecewise((2^(32k) * ((s*L')*g), |L| > max), (L*g, True))

with L a temporary, s joined first (SymPy orders its name `_scale…` before the spec's symbols) and, where a factor
of L is a sum that can itself leave FLOAT, into each of that sum's terms too (L' that sum's terms times s, k = 2;
else k = 1).  Both branches are L*g in exact arithmetic (the rewrite's test cancels them), and the second is the
product the kernel computed before, unchanged: the scaled branch is taken only where L overflowed (|L| > max holds
for ±inf and for no FLOAT; nan keeps the old branch), so every other element keeps its bits.  There the scaling by
a power of two is exact wherever the scaled partial products stay normal, so the scaled branch has the bits the
old order would have had in a FLOAT without an exponent limit: fl(L*g), not ±inf.  With two factors each at most
max and their product above it, each is above 1: 2^-32 times the first is normal, and the scaled products stay
below max for L up to 2^160 (a sum up to 2^160 too); the scaled L*g is subnormal, and loses bits, only where
|L*g| < 2^-94 (k = 1) or 2^-62 (k = 2), where the old kernel gave ±inf.  With k = 2 the sum alone can leave
FLOAT while the other factors are small (WeightedMseLoss's 2*w*(x - t) at x = 3e38, t = -3e38, w = 1e-40: the
result 0.12): where those factors read a tensor or a scalar, their product F is a temporary and is scaled only where
|F| > 1 (s_F*F*(s*x - s*t), times 2^32/s_F after: `_other_scale`); s times every factor gave 0 there, and 1.2e-6
off at w = 1.2e-30 (review21).  Factors at least 2^-90 in size (`least_magnitude`: MseLoss's 2/N) keep s.  s is data, not a constant: a constant
2^-32 made the discarded lanes' products subnormal wherever L*g is small, a microcode assist per vector on Zen 4
(ELU 0.01x main).  An infinite input keeps its class: L is then ±inf or nan scaled too.

Applied only to products of plain factors (`_plain`: numbers, tensor elements and per-call constants by +, -, *, /,
max, min, sign and |.|, and a choice among such values, a Piecewise: WingLoss's c0*w*[omega*sign(d)/(eps + |d|) or
sign(d)] since session 23; `can_leave_float` says which): the cost per element is the comparison, the select of s,
the second product and the final select (C: about eight vector instructions), and with an exp or a sigmoid among the
factors the C backend's tuned forms of those kernels were lost (0.06-0.9x main).  Complex kernels keep the plain product
(`unscaled`).  Cheaper where it can be (perf25, perf26): NumPy computes the plain products first and the scaled form
only in a block where some |L| > max (`rare_path`); the C backend likewise, a block redone scaled where one of its
plain results is not finite (an L beyond max makes L*g +-inf or nan: codegen.backends.c.opsource._plain_form, for
every kernel shape and dtype), and its copy of a kernel for FLOAT16 inputs computes the plain products alone where
FLOAT16 operands cannot make L leave FLOAT (`in_float_from_float16`).

Since session 22: an exp of a plain value is a factor L may have (KlDivTarget's c0*(t - x + 1)*exp(t), ELU's
c0*exp(s*x)), taken as one temporary (`HeldExp`) that both products read, in the exp's old place in the product;
the C backend computes such a kernel's plain products first and its scaled form only for a block whose result has
an element that is not finite, as every kernel's (codegen.backends.c.opsource._plain_form).  And a product whose
gradient is inside a sum factor that can leave FLOAT, not a factor of its own (SoftmaxGrad's y*(dy - r)), is
computed with that sum's terms scaled where the sum leaves FLOAT (`scale_gradient_products`: gradient_in_sum); the
C row finishes that read it compute the plain products first too, and the scaled form only for a block whose result
is not finite (codegen.backends.c.opsource._plain_first).
"""
from __future__ import annotations

import sympy

SCALE = 64
MAX_FLOAT = sympy.Integer((2 ** 24 - 1) * 2 ** 104)   # FLOAT's largest, exactly


def _factors(rest) -> list:
    return list(sympy.Mul.make_args(rest))


_LOG_BOUND = 104.0   # |log(v)| for every positive FLOAT v, subnormals included


def magnitude_bound(e, defs, bounds=None) -> float:
    """An upper bound of |e| over FLOAT inputs (a tensor element, a scalar, a prelude or row value: max, or
    `bounds[symbol]` where given), from its form alone; inf where the form says nothing (a quotient, exp).  `defs`
    maps the temporaries to their expressions."""
    from .lower import Const
    from .rewrite import Sigmoid
    bounds = bounds or {}

    def bound(a):
        return magnitude_bound(a, defs, bounds)
    if isinstance(e, Const):
        return abs(float(e.value))
    if e.is_number:
        return abs(float(e)) if e.is_real else float("inf")
    if isinstance(e, sympy.Symbol):
        return bound(defs[e]) if e in defs else bounds.get(e, float(MAX_FLOAT))
    if isinstance(e, (Sigmoid, sympy.tanh, sympy.erf, sympy.sign)):
        return 1.0
    if isinstance(e, sympy.log):
        return _LOG_BOUND
    if isinstance(e, sympy.exp) and e.args[0].is_nonpositive:   # ErfGrad's exp(-x^2)
        return 1.0
    if isinstance(e, sympy.Add):
        return sum(bound(a) for a in e.args)
    if isinstance(e, sympy.Mul):
        out = 1.0
        for a in e.args:
            out *= bound(a)
        return out
    if isinstance(e, sympy.Pow) and e.exp.is_Integer and e.exp > 0:
        return bound(e.base) ** int(e.exp)
    if isinstance(e, sympy.Pow) and e.exp.is_negative and _count(e.base):
        return 1.0                                   # a mean's 1/N: N >= 1
    if isinstance(e, sympy.Piecewise):
        return max(bound(v) for v, _ in e.args)
    if isinstance(e, (sympy.Max, sympy.Min, sympy.Abs)):
        return max(bound(a) for a in e.args)
    return float("inf")


def _reads(e, defs) -> frozenset:
    """The symbols `e` reads, through the temporaries it reads."""
    out = set()
    for s in e.free_symbols:
        out |= _reads(defs[s], defs) if s in defs else {s}
    return frozenset(out)


def _plain(e, defs) -> bool:   # defs: the temporaries (a per-call constant is plain whatever its form)
    """A value of tensor elements, scalars and numbers by +, -, *, / and max/min alone, or the sign or |.| of one
    (no exp, no sigmoid), or a choice among such values (a Piecewise: its conditions select, they compute nothing
    the product reads): x - t, w, 1/max(eps, var), sign(x - t), a per-call constant, WingLoss's
    Piecewise((omega*sign(d)/(eps + |d|), |d| < omega), (sign(d), True))."""
    if isinstance(e, sympy.Symbol):
        return _plain(defs[e], defs) if e in defs else True
    if e.is_number:
        return True
    if isinstance(e, (sympy.Add, sympy.Mul, sympy.Max, sympy.Min, sympy.sign, sympy.Abs)):   # sign, Abs: exact
        return all(_plain(a, defs) for a in e.args)
    if isinstance(e, sympy.Piecewise):
        return all(_plain(v, defs) for v, _ in e.args)
    return isinstance(e, sympy.Pow) and e.exp.is_Integer and _plain(e.base, defs)


class HeldExp(sympy.Symbol):
    """A temporary that holds an exp factor of a scaled product (`scale_gradient_products`), sorting in a product
    where the exp did (after a sum: SymPy orders a product's factors by kind, a symbol first), so that each product
    that reads it multiplies its factors in the old order: KlDivTarget's c0*(t - x + 1)*exp(t) keeps its bits."""

    def sort_key(self, order=None):
        return (sympy.exp.class_key()[:2] + ("exp_held",), (1, (self.name,)), sympy.S.One.sort_key(), sympy.S.One)


def _exp_of_plain(e, defs) -> bool:
    """An exp of a plain value (`_plain`), or a temporary that is one: KlDivTarget's exp(t), ELU's exp(s*x).  Such a
    factor may be taken into a scaled product (`can_leave_float`), as a temporary of its own that both products read
    (`scale_gradient_products`): computed once, as before, and the exp kernel unchanged."""
    if isinstance(e, sympy.Symbol) and e in defs:
        return _exp_of_plain(defs[e], defs)
    return isinstance(e, sympy.exp) and _plain(e.args[0], defs)


def _count(e) -> bool:
    """An element count or a row's length (a positive integer), or a product of them."""
    from .spec.functions import numel_param
    if isinstance(e, sympy.Mul):
        return all(_count(a) for a in e.args)
    return isinstance(e, sympy.Symbol) and numel_param(e) is not None or type(e).__name__ == "RowLength"


def _sum_can_leave(f, defs) -> bool:
    """A sum that can itself leave FLOAT: terms that read different values (x - t, 1 - t/(x + eps)) with the sum of
    their bounds above max; BCE's min(0, -x) - min(0, x), which is -x, is one value's."""
    return isinstance(f, sympy.Add) and len({_reads(a, defs) for a in f.args}) >= 2 \
        and magnitude_bound(f, defs) > float(MAX_FLOAT)


def can_leave_float(rest, defs, temps=None) -> bool:
    """Whether the product `rest` (the local derivative) can leave FLOAT's range with every factor a FLOAT, where
    it is a product of plain factors only (`_plain`: numbers, tensor elements and scalars by +, -, *, / and
    max/min): a sum among them can itself (x - t at x = max, t = -max; 1 - t/(x + eps)), or two factors that can be
    above 1 (`magnitude_bound`) read different values (a number and x - t, w and x - t) with the product of their
    bounds above max.  Factors of one value alone (SigmoidBackward's y*(1 - y), a power of y: large only where y is
    far beyond its meaning) are left alone, and so are products with a function among their factors (exp, sigmoid,
    a branch: ELU's c0*exp(x), KlDivTarget's exp(t)*(t - x + 1)): the C backend's kernels with an exp or a sigmoid
    have tuned forms (codegen.backends.c.opsource: exps hoisted out of a `?:`, a sigmoid for half outputs) that the
    rewrite's second product and select undo (0.4-0.9x main measured)."""
    factors = _factors(rest)
    temps = defs if temps is None else temps
    if not all(_plain(f, temps) or _exp_of_plain(f, temps) for f in factors):
        return False
    mx = float(MAX_FLOAT)
    if any(_sum_can_leave(f, defs) for f in factors):
        return True
    large = [(magnitude_bound(f, defs), _reads(f, defs)) for f in factors]
    large = [(b, r) for b, r in large if b > 1]
    prod = 1.0
    for b, _ in large:
        prod *= b
    return len({r for _, r in large}) >= 2 and prod > mx


def scaled_down(rest, scale, defs=None, other_scale=None) -> tuple:
    """(`rest` with the factor `scale` joined first, the number of times it joined): where a factor is a sum that can
    itself leave FLOAT (PoissonNllLoss's 1 - t/(x + eps), x - t), `scale` also joins each of its terms (2^-32 -
    2^-32*t/(x + eps): the sum scaled term by term has the scaled sum's bits): 2*w*(x - t) as
    2*s*w*(s*x - s*t).  `other_scale(others)`, where given, returns the factor to join to the other factors in place
    of `scale` (`_other_scale`: 2^-32 only where their product is above 1) and then 2 counts only for `scale`."""
    factors = _factors(rest)
    k = next((k for k, f in enumerate(factors) if _sum_can_leave(f, defs or {})), None)
    if k is None:
        return sympy.Mul(scale, *factors), 1
    summed = sympy.Add(*[sympy.Mul(scale, a) for a in factors[k].args], evaluate=False)
    others = factors[:k] + factors[k + 1:]
    joined = other_scale(others) if other_scale is not None else None
    if joined is not None:
        return sympy.Mul(joined, summed), 1
    return sympy.Mul(scale, *(others + [summed])), 2


def least_magnitude(e, defs) -> float:
    """A lower bound of |e| from its form alone: numbers, element counts (N >= 1, 1/N >= 2^-63) and per-call
    constants of them (a mean's 2/N, by reduction: `2*Piecewise((1/N, mean), (1, True))`); 0 where a tensor or a
    scalar enters as a value (a weight may be 1e-40)."""
    from .lower import Const
    if isinstance(e, Const):
        return abs(float(e.value))
    if e.is_number:
        return abs(float(e)) if e.is_real else 0.0
    if isinstance(e, sympy.Symbol):
        return least_magnitude(defs[e], defs) if e in defs else (1.0 if _count(e) else 0.0)
    if isinstance(e, sympy.Mul):
        out = 1.0
        for a in e.args:
            out *= least_magnitude(a, defs)
        return out
    if isinstance(e, sympy.Pow) and e.exp.is_Integer and _count(e.base):
        return 1.0 if e.exp > 0 else 2.0 ** (63 * int(e.exp))
    if isinstance(e, sympy.Piecewise):
        return min(least_magnitude(v, defs) for v, _ in e.args)
    return 0.0


def scale_gradient_products(temps, result, g, prelude=()):
    """(temps, result) with each product L*g of the result (at its top, or a branch of a Piecewise there) whose L
    can leave FLOAT (`can_leave_float`) computed as the module docstring says: L a temporary read by the comparison
    and by the old product, the scale a temporary (2^-32 where |L| > max, else 1: the scaled product of the other
    elements is L*g itself, no subnormal), the scaled product a third."""
    from .cancellation import Extended
    from .lower import Const, split_last
    temps = list(temps)
    defs = {**dict(prelude), **dict(temps)}   # the per-call constants' bounds too: a mean's 1/N is at most 1
    names = {s.name for s, _ in temps}

    def fresh(prefix="t", kind=sympy.Symbol):
        k = len(temps)
        while f"{prefix}{k}" in names:
            k += 1
        names.add(f"{prefix}{k}")
        return kind(f"{prefix}{k}", real=True)

    down, up = Const(sympy.Rational(1, 2 ** (SCALE // 2))), Const(sympy.Integer(2) ** (SCALE // 2))

    def scale_where(cond):
        """A temporary: 2^-32 where `cond`, else 1."""
        s = fresh("_scale")   # sorts before the spec's symbols: joins the product first
        temps.append((s, sympy.Piecewise((down, cond), (1, True))))
        return s

    def gradient_in_sum(e):
        """A product whose gradient is inside a sum factor that can leave FLOAT (SoftmaxGrad's y*(dy - r), r the
        row's sum of dy*y: dy - r is -inf at dy = -max, r > 0, where y << 1 brings the result back): that sum S a
        temporary, and the product |S| > max ? 2^32*(F*(s*terms)) : F*S, s = 2^-32 where |S| > max, else 1 (the
        other factors F as they were: the old product wherever S is finite, the same bits)."""
        factors = _factors(e)
        k = next((k for k, f in enumerate(factors) if g in _reads(f, defs) and _sum_can_leave(f, defs)), None)
        if k is None or not all(_plain(f, dict(temps)) for f in factors):
            return e
        total = fresh()
        temps.append((total, factors[k]))
        beyond = sympy.Abs(total) > Const(MAX_FLOAT)
        scale = scale_where(beyond)
        summed = sympy.Add(*[sympy.Mul(scale, a) for a in factors[k].args], evaluate=False)
        scaled = fresh()
        temps.append((scaled, sympy.Mul(*(factors[:k] + [summed] + factors[k + 1:]))))
        return sympy.Piecewise((sympy.Mul(up, scaled), beyond),
                               (sympy.Mul(*(factors[:k] + [total] + factors[k + 1:])), True))

    def rewrite(e):
        if isinstance(e, sympy.Piecewise):
            return sympy.Piecewise(*[(rewrite(v), c) for v, c in e.args])
        if not isinstance(e, sympy.Mul):
            return e
        split = split_last(e, {g})
        if split is None and not e.has(Extended):
            return gradient_in_sum(e)
        if split is None or split[0].has(Extended) or not can_leave_float(split[0], defs, dict(temps)):
            return e
        rest, _ = split
        exps = {}   # an exp factor, a temporary both products read: computed once, in its own kernel (C: opgen_expf)
        for f in _factors(rest):
            if isinstance(f, sympy.exp) and _exp_of_plain(f, dict(temps)):
                exps[f] = fresh(kind=HeldExp)
                temps.append((exps[f], f))
        rest = rest.xreplace(exps)
        local = fresh()
        temps.append((local, rest))
        beyond = sympy.Abs(local) > Const(MAX_FLOAT)
        scale = scale_where(beyond)
        back = []

        def other_scale(others):
            """The other factors of a sum's product, scaled only where beyond and above 1 in size (a small weight
            beside x - t keeps its bits: 2^-32 times it would be subnormal); None where they are at least 2^-90 in
            size (MseLoss's 2/N: s times it stays normal, and the kernel keeps its one scale)."""
            product = sympy.Mul(*others)
            if least_magnitude(product, defs) >= 2.0 ** -90:
                return None
            f = fresh()
            temps.append((f, product))
            above = beyond & (sympy.Abs(f) > 1)
            s_f = scale_where(above)
            back.append(sympy.Piecewise((up, above), (1, True)))
            return sympy.Mul(s_f, *others)   # s_F joins first: 2*w is inf at w = 3e38, 2*s_F*w is not
        scaled_rest, uses = scaled_down(rest, scale, defs, other_scale)
        scaled = fresh()
        temps.append((scaled, sympy.Mul(scaled_rest, g)))
        return sympy.Piecewise((sympy.Mul(Const(sympy.Integer(2) ** (SCALE // 2 * uses)), *back, scaled), beyond),
                               (sympy.Mul(local, g), True))
    return temps, rewrite(result)


def _is_scaled(e) -> bool:
    return isinstance(e, sympy.Piecewise) and len(e.args) == 2 and isinstance(e.args[0][1], sympy.StrictGreaterThan) \
        and isinstance(e.args[0][1].lhs, sympy.Abs) and e.args[0][1].rhs == _max_const()


def _max_const():
    from .lower import Const
    return Const(MAX_FLOAT)


def unscaled(temps, result):
    """(temps, result) with each scaled product back to its plain L*g and the temporaries only it read dropped:
    for a complex kernel (codegen.lower.conjugated), where |L| > max is no test of a complex L."""
    if not result.has(sympy.Piecewise):
        return temps, result
    from .lower import read_temporaries
    result = result.replace(_is_scaled, lambda e: e.args[1][0])
    return read_temporaries(temps, result), result


def rare_path(temps, result):
    """(the temporaries and result of the products L*g as plain L*g (`unscaled`), the conditions |L| > max, the
    temporaries only the scaled form reads) where `result` has scaled products, else None: a kernel computes the
    plain form with the conditions first, which is its result wherever no L left FLOAT, and the scaled form only
    where one did (a block again: C, codegen.backends.c.opsource; NumPy, codegen.backends.numpy.functions)."""
    beyond = [p.args[0][1] for p in sympy.preorder_traversal(result) if _is_scaled(p)]
    if not beyond:
        return None
    fast, plain = unscaled(temps, result)
    kept = {s for s, _ in fast}
    return fast, plain, beyond, [(s, e) for s, e in temps if s not in kept]


FLOAT16_MAX = 65504.0


def in_float_from_float16(temps, result, prelude, tensors) -> bool:
    """Whether every scaled product of `result` (codegen.scaled) has an L that stays within FLOAT when each of
    the `tensors` (symbols) is a FLOAT16 element (|v| <= 65504; scalars and per-call constants as their form
    bounds them, `magnitude_bound`): MseLoss's 2*(x - t) is at most 2.6e5 there.  Then |L| > max holds for no
    element and the plain products are the result, bit for bit: the C backend's copy of the kernel for FLOAT16
    inputs (opsource: `plain_f16`) computes them alone.  Every partial product is bounded by the product of its
    factors' bounds each taken at least 1."""
    defs = {**dict(prelude), **dict(temps)}
    limits = {t: FLOAT16_MAX for t in tensors}
    found = False
    for p in sympy.preorder_traversal(result):
        if not _is_scaled(p):
            continue
        found = True
        local = p.args[0][1].lhs.args[0]
        prod = 1.0
        for f in _factors(defs.get(local, local)):
            prod *= max(1.0, magnitude_bound(f, defs, limits))
        if not prod <= float(MAX_FLOAT):
            return False
    return found

