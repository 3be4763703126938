"""Error inputs generated from a spec's rules (PyTorch OpInfo's `error_inputs`, derived instead of written).

For every rule and every parameter it checks, `error_inputs(op, base)` mutates a valid call so that this rule
is the first to fail at that parameter, and pairs it with the status and parameter the checker must report.
Rules no supported input can break (DtypeCastable: every float casts to every float) yield nothing.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy

import codegen
from codegen.spec import DTYPES
from codegen.spec import rules as R
from codegen.spec.dtypes import can_cast, promote_types
from codegen.spec.params import Output

NP = {"FLOAT": np.float32, "FLOAT16": np.float16}

# dtypes tried when a dtype rule can only be broken by a combination (promotion, casting)
_TRIED = ["FLOAT", "FLOAT16", "BFLOAT16", "DOUBLE", "INT32", "INT8", "UINT8", "BOOL", "UINT16"]


def _np_dtype(name):
    import ml_dtypes
    return {"BFLOAT16": ml_dtypes.bfloat16}.get(name) or np.dtype(DTYPES[name].numpy)


def _dtype_rule_ok(op, r, dts, product):
    """Whether dtype rule `r` passes for the dtypes `dts` ({param: dtype name}; absent params pass)."""
    got = [dts.get(n) for n in r.params]
    if isinstance(r, (R.FormatSame, R.FormatNotPrivate)):
        return True   # a format rule, checked with the dtypes: no dtype breaks it
    if isinstance(r, R.DtypeSupported):
        return all(d is None or d in op.dtypes_of(n).get(product, []) for n, d in zip(r.params, got))
    if isinstance(r, R.DtypeSame):
        return all(d is None or got[0] is None or d == got[0] for d in got[1:])
    if isinstance(r, R.DtypeCastable):
        return None in got or can_cast(got[0], got[1])
    inputs = [d for d in (got if isinstance(r, R.PromotedSupported) else got[1:]) if d is not None]
    p = promote_types(inputs) if inputs else None
    if isinstance(r, R.PromotedSupported):
        return not inputs or (p is not None and p in op.dtypes_of(r.params[0]).get(product, []))
    if p is None or got[0] is None:
        return True
    return can_cast(p, got[0]) if isinstance(r, R.PromotedCastable) else got[0] == p


def _breaking_dtypes(op, rule, base_dts, product):
    """{param: dtype} that passes every dtype rule before `rule` and breaks `rule`, or None (no such dtypes)."""
    import itertools
    before = [r for r in op.rules[:op.rules.index(rule)] if r.category == "dtype"]
    params = list(dict.fromkeys(rule.params))
    for combo in itertools.product(_TRIED, repeat=len(params)):
        dts = dict(base_dts, **dict(zip(params, combo)))
        if all(_dtype_rule_ok(op, r, dts, product) for r in before) and not _dtype_rule_ok(op, rule, dts, product):
            return {n: d for n, d in zip(params, combo) if d != base_dts.get(n)}
    return None


@dataclass
class ErrorInput:
    kw: dict
    status: int
    param: str
    rule: str


def _out_index(op, p):
    """Where output `p` is in `out=`: a tuple, one array per output, for an op with several."""
    return [o.name for o in op.outputs].index(p.name)


def _arr(kw, op, name):
    p = op.param(name)
    if not isinstance(p, Output):
        return kw[p.py_name]
    return kw["out"][_out_index(op, p)] if isinstance(kw["out"], tuple) else kw["out"]


def _arr_or_none(kw, op, name):
    p = op.param(name)
    if isinstance(p, Output) and isinstance(kw.get("out"), tuple):
        return kw["out"][_out_index(op, p)]
    return kw.get("out" if isinstance(p, Output) else p.py_name)


def _set(kw, op, name, value):
    kw = dict(kw)
    p = op.param(name)
    if isinstance(p, Output) and isinstance(kw.get("out"), tuple):
        out = list(kw["out"])
        out[_out_index(op, p)] = value
        kw["out"] = tuple(out)
        return kw
    kw["out" if isinstance(p, Output) else p.py_name] = value
    return kw


def _other_float(a):
    return a.astype(np.float16 if a.dtype == np.float32 else np.float32)


def error_inputs(op, base: dict, product: str):
    """`base` is a valid call with every optional tensor present and `out=` preallocated."""
    out = []
    for r in op.null_rules:
        name = r.params[0]
        if isinstance(op.param(name), Output):
            continue  # in Python, out=None means "allocate"; the C API tests a null output
        out.append(ErrorInput(_set(base, op, name, None), r.status, name, "NotNull"))
    for r in op.rules:
        rule = type(r).__name__
        P = r.params
        if isinstance(r, R.DtypeSupported):
            from codegen.runtime.checks import dtype_name
            before = [x for x in op.rules[:op.rules.index(r)] if x.category == "dtype"]
            for n in P:   # a dtype outside the parameter's table on this product (and on the tensors an earlier
                # DtypeSame ties to it, so that this rule is the first to fail)
                bad = next(d for d in ("DOUBLE", "INT32", "UINT16", "INT16")
                           if d not in op.dtypes_of(n).get(product, []))
                group = {n} | {q for x in before if isinstance(x, R.DtypeSame) and n in x.params for q in x.params}
                kw = dict(base)
                for q in group:
                    kw = _set(kw, op, q, _arr(base, op, q).astype(_np_dtype(bad)))
                dts = {q: dtype_name(v) for q in {q for x in op.rules for q in x.params}
                       for v in [_arr_or_none(kw, op, q)] if isinstance(v, np.ndarray)}
                if not all(_dtype_rule_ok(op, x, dts, product) for x in before):
                    continue
                first = next(q for q in P if dts.get(q) not in op.dtypes_of(q).get(product, []))
                out.append(ErrorInput(kw, r.status, first, rule))
        elif isinstance(r, R.DtypeSame):
            for n in P[1:]:
                out.append(ErrorInput(_set(base, op, n, _other_float(_arr(base, op, n))), r.status, n, rule))
        elif isinstance(r, (R.PromotedSupported, R.PromotedCastable, R.PromotedSame)):
            from codegen.runtime.checks import dtype_name
            base_dts = {n: dtype_name(v) for n in {q for x in op.rules for q in x.params}
                        for v in [_arr_or_none(base, op, n)] if isinstance(v, np.ndarray)}
            bad = _breaking_dtypes(op, r, base_dts, product)
            if bad:
                kw = dict(base)
                for n, d in bad.items():
                    kw = _set(kw, op, n, _arr(base, op, n).astype(_np_dtype(d)))
                reported = r.params[0]
                out.append(ErrorInput(kw, r.status, reported, rule))
        elif isinstance(r, R.FormatSame):
            for n in P[1:]:
                out.append(ErrorInput(_set(base, op, n, codegen.with_format(_arr(base, op, n), "NCHW")), r.status, n,
                                      rule))
        elif isinstance(r, R.FormatNotPrivate):
            for n in P:
                out.append(ErrorInput(_set(base, op, n, codegen.with_format(_arr(base, op, n), "NC1HWC0")), r.status,
                                      n, rule))
        elif isinstance(r, R.MaxRank):
            for n in P:
                a = _arr(base, op, n)
                out.append(ErrorInput(_set(base, op, n, a.reshape((1,) * (r.n + 1 - a.ndim) + a.shape)),
                                      r.status, n, rule))
        elif isinstance(r, R.MinRank):
            for n in P:
                a = _arr(base, op, n)
                out.append(ErrorInput(_set(base, op, n, a.reshape(-1)[:1].reshape(())), r.status, n, rule))
        elif isinstance(r, R.DimAtMost):   # one more than n along dim (a tensor of lower rank passes it)
            for n in P:
                a = _arr(base, op, n)
                if -a.ndim <= r.dim < a.ndim:
                    shape = list(a.shape)
                    shape[r.dim] = r.n + 1
                    out.append(ErrorInput(_set(base, op, n, np.zeros(shape, a.dtype)), r.status, n, rule))
        elif isinstance(r, (R.ShapeSame, R.ShapeIsBroadcast)):
            targets = P[1:] if isinstance(r, R.ShapeSame) else P[:1]
            for n in targets:
                a = _arr(base, op, n)
                out.append(ErrorInput(_set(base, op, n, np.zeros(a.shape + (2,), a.dtype)), r.status, n, rule))
        elif isinstance(r, (R.BroadcastTo, R.Broadcastable)):
            targets = P[:-1] if isinstance(r, R.BroadcastTo) else P[1:]
            for n in targets:
                a = _arr(base, op, n)
                bad = np.zeros(a.shape[:-1] + (a.shape[-1] + 1,) if a.ndim else (3,), a.dtype)
                out.append(ErrorInput(_set(base, op, n, bad), r.status, n, rule))
                if isinstance(r, R.ShapeSameOrOneElement) and a.size > 1:
                    # a shape NumPy would broadcast (1 along the last axis, or a leading axis of 1 where that leaves
                    # one element): the rule takes only the same shape or one element
                    shape = a.shape[:-1] + (1,) if a.ndim and int(np.prod(a.shape[:-1])) > 1 else (1,) + a.shape
                    out.append(ErrorInput(_set(base, op, n, np.zeros(shape, a.dtype)), r.status, n, rule))
                if isinstance(r, R.BroadcastTo) and r.axes is not None:
                    # 1 along an axis not listed, where the target is longer: NumPy would broadcast it, the rule not
                    t = _arr(base, op, P[-1]).shape
                    free = {x % len(t) for x in r.axes}
                    lead = len(t) - a.ndim
                    at = next((i for i in range(lead, len(t)) if i not in free and t[i] > 1), None)
                    if at is not None:
                        shape = tuple(1 if i + lead == at else d for i, d in enumerate(a.shape))
                        out.append(ErrorInput(_set(base, op, n, np.zeros(shape, a.dtype)), r.status, n, rule))
        elif isinstance(r, R.BroadcastsInto):
            # the first tensor enlarging the others' broadcast shape (an axis added in front), and not
            # broadcasting to it at all (its last extent one more)
            a = _arr(base, op, P[0])
            shape = np.broadcast_shapes(*[_arr(base, op, n).shape for n in P[1:]])
            for bad in ((2,) + shape, shape[:-1] + (shape[-1] + 1,) if shape else (3,)):
                out.append(ErrorInput(_set(base, op, P[0], np.zeros(bad, a.dtype)), r.status, P[0], rule))
        elif isinstance(r, R.DimInRange):
            rank = max(_arr(base, op, P[1]).ndim, 1)
            for d in (rank, -rank - 1):
                out.append(ErrorInput(_set(base, op, P[0], d), r.status, P[0], rule))
        elif isinstance(r, (R.ClassTarget, R.ClassCount, R.SampleShaped)):
            # one element too many along the last axis (a rank-0 one: two elements): the rank stays what the
            # rank rules before want, the shape is not what this rule wants
            a = _arr(base, op, P[0])
            bad = np.zeros(a.shape[:-1] + (a.shape[-1] + 1,) if a.ndim else (2,), a.dtype)
            out.append(ErrorInput(_set(base, op, P[0], bad), r.status, P[0], rule))
        elif isinstance(r, (R.PerChannel, R.ChannelGrad)):
            # C + 1 elements (never 1, nor C): a per-channel tensor matching no channel count, its gradient not [C]
            ref = _arr(base, op, P[1] if isinstance(r, R.PerChannel) else P[2])
            c = ref.shape[r.dim] if ref.ndim > r.dim else 1
            a = _arr(base, op, P[0])
            out.append(ErrorInput(_set(base, op, P[0], np.zeros((c + 1,), a.dtype)), r.status, P[0], rule))
        elif isinstance(r, R.NotNullWhen) and not isinstance(op.param(P[0]), Output):   # (a null output: the C
            # API's; in Python, out=None allocates, as for NotNull)
            out.append(ErrorInput(_set(base, op, P[0], None), r.status, P[0], rule))
        elif isinstance(r, R.PresentWith):   # the second left out while the first is given
            out.append(ErrorInput(_set(base, op, P[1], None), r.status, P[1], rule))
        elif isinstance(r, R.PerRow):   # one element more than the rows
            a = _arr(base, op, P[0])
            out.append(ErrorInput(_set(base, op, P[0], np.zeros((a.size + 1,), a.dtype)), r.status, P[0], rule))
        elif isinstance(r, R.NotEmpty):
            for n in P:
                a = _arr(base, op, n)
                out.append(ErrorInput(_set(base, op, n, np.zeros((0,) * max(a.ndim, 1), a.dtype)), r.status, n, rule))
        elif isinstance(r, R.DimAtLeast):   # one less than n along dim
            for n in P:
                a = _arr(base, op, n)
                if -a.ndim <= r.dim < a.ndim and r.n > 0:
                    shape = list(a.shape)
                    shape[r.dim] = r.n - 1
                    out.append(ErrorInput(_set(base, op, n, np.zeros(shape, a.dtype)), r.status, n, rule))
        elif isinstance(r, R.ShapeHalved) and r.axis is not None:   # the reference one longer: odd along the axis
            a = _arr(base, op, P[1])
            shape = list(a.shape)
            shape[r.axis] += 1
            out.append(ErrorInput(_set(base, op, P[1], np.zeros(shape, a.dtype)), r.status, P[0], rule))
        elif isinstance(r, R.OneElement):
            for n in P:
                a = _arr(base, op, n)
                out.append(ErrorInput(_set(base, op, n, np.zeros((2,), a.dtype)), r.status, n, rule))
        elif isinstance(r, R.OneOf):
            if all(isinstance(v, str) for v in r.values):   # case-sensitive: "Tanh" is not "tanh"; nor is ""
                bad = [v for v in (r.values[0].capitalize(), r.values[0].upper(), "") if v not in r.values][:2]
            else:
                bad = (max(r.values) + 1, min(r.values) - 1)
            kw = dict(base)
            for x in op.rules[:op.rules.index(r)]:   # a gradient shaped by this reduction checked before: one
                if isinstance(x, R.SampleShaped) and x.params[2] == P[0]:   # element, as any other mode wants
                    g = _arr(base, op, x.params[0])
                    kw = _set(kw, op, x.params[0], np.zeros((), g.dtype))
            for v in bad:
                out.append(ErrorInput(_set(kw, op, P[0], v), r.status, P[0], rule))
        elif isinstance(r, R.Requires):
            kw = dict(base)
            if r.when != sympy.true:  # make `when` hold: a bool attribute set to true
                attr = next(a for a in op.attrs if a.symbol == r.when)
                kw[attr.py_name] = True
            for bad in _breaking_values(r.condition):
                out.append(ErrorInput(_set(kw, op, P[0], bad), r.status, P[0], rule))
    return out


def _breaking_values(cond):
    """Values of the single symbol in `cond` that make it false (and nan, which breaks every comparison); for a
    bool attribute (`Not(fixTriuMask)`), the other truth value."""
    (sym,) = cond.free_symbols
    if cond == sym or cond == sympy.Not(sym):   # a bool attribute that must be true (false)
        return [cond != sym]
    if isinstance(cond, sympy.Or):   # alternatives (Eq(c, -1) | (c > 0)): numbers near each bound that break all
        bounds = sorted({float(a.rhs if a.lhs == sym else a.lhs) for a in cond.args})
        near = [b + d for b in bounds for d in (-1.0, -0.5, 0.0, 0.5)]
        return [v for v in near if cond.subs(sym, v) == sympy.false][:3] + [float("nan")]
    bound = float(cond.rhs if cond.lhs == sym else cond.lhs)
    op = cond.rel_op if cond.lhs == sym else {">": "<", "<": ">", ">=": "<=", "<=": ">="}[cond.rel_op]
    return [bound - 1.0 if op in (">", ">=") else bound + 1.0, float("nan")]


def valid_call(op, rng, dtype="FLOAT"):
    """A valid call with every optional tensor present (the first sample of that variant) and `out=` given."""
    from .samples import samples
    for s in samples(op, dtype, rng, n=6):
        if all(s.kw.get(t.py_name) is not None for t in op.tensors):
            return dict(s.kw)
    raise AssertionError(f"{op.name}: no sample has every tensor present")
