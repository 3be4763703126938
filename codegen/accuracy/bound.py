"""How far a correct kernel may be from the exact result: a rounding-error bound of the documented backward.

A kernel computes the backward in FLOAT (the compute dtype), so even a perfect one differs from the exact result
by the rounding errors of its operations, amplified by the formula: `g*(exp(x) - 1 - x)` near x = 0 cancels,
`g*exp(x)` at x = 100 leaves FLOAT's range.  A fixed tolerance would either pass wrong kernels where the formula
is well-conditioned or fail right ones where it is not.  So each element gets its own tolerance, the first-order
running error bound of evaluating the spec's documented backward in FLOAT (Wilkinson's running error analysis):
for every node f(a_1, ..., a_n) of the expression, evaluated in float64 on the element's inputs,

    E(f) = Σ |∂f/∂a_i| · E(a_i)  +  κ_f · u · |f|  +  κ_f · η

with u = 2^-23 (one FLOAT ulp, relative), η = 2^-149 (FLOAT's smallest subnormal: the absolute error of a
result in the subnormal range; in a product, times the factors that may still multiply it), κ_f = 1 for
+ - * / (n - 1 for a sum or product of n terms, all partial sums counted at the largest), |n| for an integer
power (repeated multiplication), 4 for exp, log, log1p, expm1, powers, tanh, cosh, sinh, sin, cos, 8 for erf and erfc (library calls
or documented expansions of a few ulps).  Inputs are exact (FLOAT16/BFLOAT16 widen to FLOAT exactly); a constant
not representable in FLOAT (1/3, π, √2) carries u·|c|.

Nothing here reads a printer, the lowering or a kernel: the bound is a property of the spec's formula.  It is an
upper bound for every evaluation order of the same formula (a sum's partial sums are bounded by the sum of the
magnitudes), so kernels that reorder, hoist or fuse stay within it; a rewrite that makes the formula worse than
its documented form (an overflow the documented form does not have) is caught, which is the point.
Three kinds of elements get no bound (E = inf) and are not judged by it, only counted:
  * the documented formula leaves FLOAT's range at some node (exp(100) overflows; the kernel may have been
    rewritten to avoid it, or may give inf or nan: the formula, not the backend, decides), or the factors of
    a product other than gradOutput could overflow in some order (gradOutput multiplies last: codegen.lower);
  * a branch decision is within rounding of its switch point: a condition `a > b` with |a - b| <= E(a) + E(b)
    (or sign(a) with |a| <= E(a)), where a correct kernel may take either branch;
  * a function this module has no rule for (reported by name, so a gap in coverage is never silent).
"""
from __future__ import annotations

import math

import numpy as np
import sympy

from codegen.backends.literals import power_of_two
from codegen.spec import DimSum
from codegen.spec.classes import GridSum
from codegen.spec.functions import BROADCAST, count_parts, count_value, numel_param

U = 2.0 ** -23
ETA = 2.0 ** -149
FLOAT_MAX = float(np.finfo(np.float32).max)
KAPPA_LIB = 4.0
KAPPA_ERF = 8.0


class NoBound(Exception):
    """The expression uses something the bound has no rule for."""


class Node:
    """Value `v`, error bound `e` and `unsure` (a branch decision within rounding), arrays of one shape."""
    __slots__ = ("v", "e", "unsure")

    def __init__(self, v, e, unsure):
        self.v, self.e, self.unsure = v, e, unsure


def _f32_exact(c: float) -> bool:
    return np.isfinite(c) and float(np.float32(c)) == c


class Bound:
    """Evaluates a backward expression with its error bound over the arrays of one call.

    `values` maps every free symbol to a float64 array (broadcast to the output shape) or a number;
    `reduce_axis` is the axis DimSum sums along (None when the formula has none)."""

    def __init__(self, values: dict, shape: tuple, reduce_axis=None, grad=None, flip: bool = False):
        self.values, self.shape, self.axis, self.grad = values, shape, reduce_axis, grad
        self.flip = flip   # every branch decision within rounding taken the other way (`flipped_value`)
        self.memo: dict = {}

    def __call__(self, expr) -> Node:
        hit = self.memo.get(expr)
        if hit is None:
            with np.errstate(all="ignore"):
                hit = self._node(expr)
                # FLOAT overflows here (or a domain error, or inf*0 in the bound): no bound where it happens
                bad = (np.abs(hit.v) > FLOAT_MAX) | np.isnan(hit.v) | np.isnan(hit.e)
                if bad.any():
                    hit = Node(hit.v, np.where(bad, np.inf, hit.e), hit.unsure)
            self.memo[expr] = hit
        return hit

    def _full(self, a):
        return np.broadcast_to(np.asarray(a, dtype=np.float64), self.shape)

    def _leaf(self, v, e=0.0):
        return Node(self._full(v), self._full(e), np.zeros(self.shape, bool))

    # ---- nodes -------------------------------------------------------------------------------------------
    def _node(self, e) -> Node:
        if isinstance(e, (DimSum, GridSum)):   # (before numbers: DimSum(1), a null weight's, is a number to SymPy)
            return self._dimsum(e) if isinstance(e, DimSum) else self._gridsum(e)
        if e.is_Symbol:
            if e not in self.values:
                raise NoBound(f"no value for the symbol {e}")
            return self._leaf(self.values[e])
        if e.is_number and not e.has(DimSum, GridSum):   # 1/DimSum(1) is a number to SymPy too (fuzz11: mean-center)
            c = float(sympy.N(e, 30))
            return self._leaf(c, 0.0 if _f32_exact(c) else U * abs(c))
        if isinstance(e, sympy.Add):
            a = [self(t) for t in e.args]
            v = sum(n.v for n in a)
            mag = sum(np.abs(n.v) for n in a)
            return Node(v, sum(n.e for n in a) + (len(a) - 1) * (U * mag + ETA), self._any(a))
        if isinstance(e, sympy.Mul):
            a = [self(t) for t in e.args]
            v = np.prod([n.v for n in a], axis=0)
            # |prod(v_i + d_i) - prod(v_i)| <= prod(|v_i| + e_i) - prod(|v_i|) = sum_i e_i prod_{j<i} |v_j|
            # prod_{j>i} (|v_j| + e_j): the first-order sum_i e_i prod_{j!=i} |v_j| and the higher orders, which it
            # misses where two factors are 0 in float64 and not exactly (6x^2(1 - tanh(x^3)^2) log(2 + tanh(x^3)) at
            # x = -2.8: both 0 in float64, each off by ~1e-7 in FLOAT; fuzz seed 3434), every term non-negative
            err = 0.0
            for i, n in enumerate(a):
                before = [np.abs(m.v) for m in a[:i]]
                after = [np.abs(m.v) + m.e for m in a[i + 1:]]
                others = np.prod(before + after, axis=0) if len(a) > 1 else 1.0
                err = err + others * n.e
            # a product by ±2^k (a negation, a halving) is exact: it is no rounding
            roundings = max(len(a) - 1 - sum(1 for t in e.args if power_of_two(t)), 0)
            # a partial product that underflows loses up to ETA absolutely, which the factors still to come
            # multiply (x/3 subnormal, then times a huge gradOutput): the largest such amplification counted
            amplify = np.prod([np.maximum(np.abs(n.v), 1.0) for n in a], axis=0)
            err = err + roundings * (U * np.abs(v) + ETA * amplify)
            # the factors other than gradOutput may overflow FLOAT in some order even when the product does
            # not (the lowering multiplies gradOutput last, codegen.lower: that order is the one bounded here)
            big = np.prod([np.maximum(np.abs(n.v), 1.0) for t, n in zip(e.args, a) if t != self.grad], axis=0)
            return Node(v, np.where(big > FLOAT_MAX, np.inf, err), self._any(a))
        if isinstance(e, sympy.Pow):
            return self._pow(e)
        if isinstance(e, sympy.Piecewise):
            return self._piecewise(e)
        if isinstance(e, (sympy.Max, sympy.Min)):
            a = [self(t) for t in e.args]
            fn = np.fmax if isinstance(e, sympy.Max) else np.fmin
            v = a[0].v
            for n in a[1:]:
                v = fn(v, n.v)
            nan = np.any([np.isnan(n.v) for n in a], axis=0)
            return Node(np.where(nan, np.nan, v), np.max([n.e for n in a], axis=0), self._any(a))
        if isinstance(e, sympy.Abs):
            a = self(e.args[0])
            return Node(np.abs(a.v), a.e, a.unsure)
        if isinstance(e, sympy.sign):
            a = self(e.args[0])
            unsure = a.unsure | ((np.abs(a.v) <= a.e) & (a.e > 0))
            return Node(np.sign(a.v), np.zeros(self.shape), unsure)
        return self._function(e)

    @staticmethod
    def _any(nodes):
        out = nodes[0].unsure
        for n in nodes[1:]:
            out = out | n.unsure
        return out

    def _pow(self, e) -> Node:
        b, x = e.args
        nb = self(b)
        if x.is_Integer:
            n = int(x)
            v = nb.v ** float(n)
            kappa = abs(n) + (1 if n < 0 else 0)
            d = abs(n) * np.abs(nb.v) ** float(n - 1) if n != 0 else 0.0
            return Node(v, d * nb.e + kappa * (U * np.abs(v) + ETA), nb.unsure)
        if x.is_number:
            p = float(x)
            v = np.power(nb.v, p)
            kappa = 1.0 if x == sympy.Rational(1, 2) else KAPPA_LIB   # sqrt is correctly rounded
            return Node(v, np.abs(p * np.power(nb.v, p - 1)) * nb.e + kappa * (U * np.abs(v) + ETA), nb.unsure)
        nx = self(x)
        v = np.power(nb.v, nx.v)
        err = np.abs(nx.v * np.power(nb.v, nx.v - 1)) * nb.e + np.abs(v * np.log(np.abs(nb.v))) * nx.e
        return Node(v, err + KAPPA_LIB * (U * np.abs(v) + ETA), nb.unsure | nx.unsure)

    def _function(self, e) -> Node:
        if len(e.args) != 1:
            raise NoBound(f"no error bound for {type(e).__name__}")
        a = self(e.args[0])
        x = a.v
        name = type(e).__name__
        if name == "exp":
            v = np.exp(x)
            d = v
        elif name == "log":
            v, d = np.log(x), 1 / np.abs(x)
        elif name == "log1p":
            v, d = np.log1p(x), 1 / np.abs(1 + x)
        elif name == "expm1":
            v, d = np.expm1(x), np.exp(x)
        elif name == "tanh":
            v = np.tanh(x)
            d = 1 - v * v
        elif name == "cosh":
            v, d = np.cosh(x), np.sinh(x)
        elif name == "sinh":
            v, d = np.sinh(x), np.cosh(x)
        elif name == "sin":
            v, d = np.sin(x), np.cos(x)
        elif name == "cos":
            v, d = np.cos(x), np.sin(x)
        elif name in ("erf", "erfc"):
            v = np.vectorize(math.erf if name == "erf" else math.erfc, otypes=[np.float64])(x)
            d = 2 / np.sqrt(np.pi) * np.exp(-x * x)
        elif name == "Sigmoid":
            v = 1 / (1 + np.exp(-x))
            d = v * (1 - v)
        else:
            raise NoBound(f"no error bound for {name}")
        kappa = KAPPA_ERF if name in ("erf", "erfc") else KAPPA_LIB
        return Node(v, np.abs(d) * a.e + kappa * (U * np.abs(v) + ETA), a.unsure)

    def _piecewise(self, e) -> Node:
        out_v = np.full(self.shape, np.nan)
        out_e = np.full(self.shape, np.inf)
        unsure = np.zeros(self.shape, bool)
        todo = np.ones(self.shape, bool)
        for expr, cond in e.args:
            truth, c_unsure = self._condition(cond)
            if self.flip:
                truth = truth ^ c_unsure
            take = todo & truth
            unsure |= todo & c_unsure   # an earlier branch that might have been taken instead
            if take.any():
                n = self(expr)
                out_v = np.where(take, n.v, out_v)
                out_e = np.where(take, n.e, out_e)
                unsure |= take & n.unsure
            todo &= ~truth
        return Node(out_v, out_e, unsure)

    def _condition(self, c):
        """(truth, unsure) arrays of a branch condition."""
        if c is sympy.true or c is True:
            return np.ones(self.shape, bool), np.zeros(self.shape, bool)
        if c is sympy.false or c is False:
            return np.zeros(self.shape, bool), np.zeros(self.shape, bool)
        if isinstance(c, (sympy.And, sympy.Or)):
            parts = [self._condition(a) for a in c.args]
            truth = parts[0][0]
            for t, _ in parts[1:]:
                truth = (truth & t) if isinstance(c, sympy.And) else (truth | t)
            return truth, np.any([u for _, u in parts], axis=0)
        if isinstance(c, sympy.Not):
            t, u = self._condition(c.args[0])
            return ~t, u
        if isinstance(c, sympy.Symbol):   # a BOOL tensor (a mask): true where it is nonzero, exactly
            return np.broadcast_to(self(c).v != 0, self.shape), np.zeros(self.shape, bool)
        if isinstance(c, sympy.core.relational.Relational):
            a, b = self(c.lhs), self(c.rhs)
            op = {">": np.greater, ">=": np.greater_equal, "<": np.less, "<=": np.less_equal, "==": np.equal,
                  "!=": np.not_equal}[c.rel_op]
            err = a.e + b.e
            unsure = a.unsure | b.unsure | ((np.abs(a.v - b.v) <= err) & (err > 0))
            return op(a.v, b.v), unsure
        raise NoBound(f"no error bound for the condition {c}")

    def _gridsum(self, e) -> Node:
        """A sum over every element of the call (GridSum), its roundings as a DimSum's over all of them."""
        n = self(e.args[0])
        v, err = np.broadcast_to(n.v, self.shape), np.broadcast_to(n.e, self.shape)
        count = int(np.prod(self.shape, dtype=np.int64))
        total, mag = np.sum(v), np.sum(np.abs(v))
        bound = np.sum(err) + max(count - 1, 0) * (U * mag + ETA)
        return Node(np.full(self.shape, total), np.full(self.shape, bound),
                    np.full(self.shape, bool(np.any(n.unsure))))

    def _dimsum(self, e) -> Node:
        if self.axis is None:
            raise NoBound("DimSum without a reduction axis")
        n = self(e.args[0])
        length = self.shape[self.axis] if self.shape else 1
        v = np.sum(n.v, axis=self.axis, keepdims=True)
        mag = np.sum(np.abs(n.v), axis=self.axis, keepdims=True)
        err = np.sum(n.e, axis=self.axis, keepdims=True) + max(length - 1, 0) * (U * mag + ETA)
        unsure = np.any(n.unsure, axis=self.axis, keepdims=True)
        return Node(np.broadcast_to(v, self.shape), np.broadcast_to(err, self.shape),
                    np.broadcast_to(unsure, self.shape))


def symbol_values(op, variant, kw: dict, shape: tuple) -> tuple[dict, int | None]:
    """{symbol: float64 array or number} of a kernel call's keywords for `variant`'s formula, and the DimSum axis."""
    values = {}
    for t in op.tensors:
        a = kw.get(t.py_name)
        if a is None:
            values[t.symbol] = float(t.default) if t.default is not None else np.nan
            continue
        values[t.symbol] = np.broadcast_to(np.asarray(a).astype(np.float64), shape)
    for p in op.scalars:
        values[p.symbol] = float(np.float32(kw[p.py_name]))
    for a in op.attrs:   # a string attribute selects the variant; it is no value in the formula
        v = kw.get(a.py_name)
        if v is not None and a.is_number:
            values[a.symbol] = float(v)
    for s in sympy.sympify(variant.expr).free_symbols:
        t = numel_param(s)
        if t is not None:
            # the output's count and BROADCAST's are the call's shape (a mean over the broadcast shape: L1Loss,
            # SoftMarginLoss; a sum_to output's bound is computed on the broadcast shape)
            tensor = count_parts(t)[0]
            counted = shape if tensor in (op.output.name, BROADCAST) else np.shape(kw[op.param(tensor).py_name])
            values[s] = float(max(1, count_value(t, {tensor: counted}, op.reduce_axis(kw))))
    axis = None
    if op.reduce_dim is not None:
        axis = op.reduce_axis(kw) % max(len(shape), 1)
    return values, axis


def broadcast_shape(op, kw: dict) -> tuple:
    """The broadcast shape B of a call's input tensors (where an `Output(sum_to=...)`'s terms live)."""
    return np.broadcast_shapes(*[np.shape(kw[t.py_name]) for t in op.tensors
                                 if kw.get(t.py_name) is not None and t.name != op.output.name])


def bound_of(op, variant, kw: dict, shape: tuple, terms: bool = False, flip: bool = False):
    """(value in float64, error bound, unsure) arrays of the documented backward of `variant` for a call.

    Raises NoBound when the formula uses a function without an error rule.  For an `Output(sum_to=...)` the
    bound on the broadcast shape, summed to `shape` as a DimSum's is (each term's bound, and the sum's roundings);
    with `terms`, those of each term, on the broadcast shape.  With `flip`, every branch decision within rounding of
    its switch point (`unsure`) goes the other way: the value a correct FLOAT kernel may give instead there."""
    if op.output.sum_to:
        full = broadcast_shape(op, kw)
        v, e, unsure = _bound_on(op, variant, kw, full, flip)
        if terms:
            return v, e, unsure
        lead = len(full) - len(shape)
        axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and full[lead + i] != 1)
        if not axes:
            return v, e, unsure
        terms = int(np.prod([full[a] for a in axes], dtype=np.int64))
        mag = np.sum(np.abs(v), axis=axes).reshape(shape)
        e = np.sum(e, axis=axes).reshape(shape) + max(terms - 1, 0) * (U * mag + ETA)
        return (np.sum(v, axis=axes).reshape(shape), e, np.any(unsure, axis=axes).reshape(shape))
    return _bound_on(op, variant, kw, shape, flip)


def _bound_on(op, variant, kw: dict, shape: tuple, flip: bool = False):
    values, axis = symbol_values(op, variant, kw, shape)
    shape = tuple(shape) if shape else ()
    b = Bound(values, shape or (1,), (axis if shape else 0) if axis is not None else None, op.grad.symbol, flip)
    if not shape:
        b.values = {k: (np.reshape(v, (1,)) if np.ndim(v) == 0 and isinstance(v, np.ndarray) else v)
                    for k, v in values.items()}
    expr = sympy.sympify(variant.expr)
    node = b(expr)
    v, e, unsure = node.v, node.e, node.unsure
    if not shape:
        v, e, unsure = v.reshape(()), e.reshape(()), unsure.reshape(())
    return np.array(v), np.array(e), np.array(unsure)
