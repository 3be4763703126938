"""Runs every op × backend × dtype × product on the generated inputs and measures it against the reference.

Per sample the exact reference (rounded once to the output dtype) and PyTorch's result are computed once; each
backend and product then runs the same call.  Elements are judged in two classes:

* finite reference: relative error and ulps.  The Ascend standards (`standards.py`) are acceptance statistics
  for representative data, so they are judged on the *representative* groups (typical values and the layout
  groups, which reuse typical values).  The edge groups (branch points, large, tiny, special values) are
  adversarial: they are measured and reported with the same metrics (`errors_all`), enter the ulp goal and
  the comparison with PyTorch, and are held to the special-value rules below;
* special elements (a ±inf or nan input, or a ±inf or nan exact result): the kernel must give the same class
  (nan for nan, the same infinity, a number within one ulp of a finite limit).  A difference is *documented*,
  listed in the report but not a failure, when a nan input is involved (a nan has no mathematical value: the
  spec's comparisons decide, and PyTorch may decide differently) or when the kernel gives nan where the exact
  result is ±inf or 0 because an infinite input meets a factor that is zero or underflows in FLOAT, the compute
  dtype (∞·0; PyTorch's kernels do the same).  Every other difference fails.  Apart: ±inf or nan on finite
  inputs where the exact result and PyTorch's are finite (an intermediate overflowed: e^x/2 for cosh at x = 89;
  or overflowed and met a factor that is 0, inf·0: SquaredHingeLoss's c0*t at t = 3e38 before max(0, 1 - t*x)),
  listed as overflows and failing, unless `known.OVERFLOWS` names the kernel with the reason (then documented);
  a nan the documented formula gives itself in float64 is documented, as for special values.  Without PyTorch (`oracle.check`) the exact result alone decides.  Like an inf, such a nan is the accuracy
  verdict's, not the oracle's: where the documented formula leaves FLOAT it has no bound and `judge` counts the
  element unjudged (before this rule, nothing judged such a nan at all); where it has one, a nan is beyond it.
Layouts are checked too: the output shape the rules require, and a strided `out=` written in place and
nowhere else.
"""
from __future__ import annotations

import time
import zlib
from dataclasses import asdict, dataclass, field

import numpy as np
import sympy

from codegen import backends as _backends
from codegen.errors import AclnnError
from codegen.spec import DimSum

from . import standards as S
from . import torch_ref
from .dtypes import FORMATS, ulp_distance
from .outputs import output_ops
from .inputs import FAST, FULL, Sample, samples
from .known import overflow_reason, unbounded_reason
from .bound import NoBound, bound_of
from .reference import reference_for, variant_of

MAX_EXAMPLES = 6
# the standard of an element without a bound (judge_unbounded): relative error, per output dtype, or ulps
UNBOUNDED_REL = {name: thr for name, (thr, _) in S.DUAL.items()}
UNBOUNDED_ULP = 1


@dataclass
class Example:
    group: str
    case: str
    inputs: str        # the element's inputs, e.g. "self=nan, gradOutput=1"
    got: float
    reference: float
    torch: float | None = None


@dataclass
class Record:
    """One op × backend × dtype × product."""
    op: str
    op_name: str       # aclnn name
    backend: str
    dtype: str
    product: str
    coupled: bool
    errors: S.Errors = field(default_factory=S.Errors.empty)         # representative groups: the standards
    errors_all: S.Errors = field(default_factory=S.Errors.empty)     # every group, finite inputs and result
    torch: S.Errors | None = None                                      # PyTorch on the elements of errors_all
    torch_std: S.Errors | None = None                                  # PyTorch on the elements of errors
    special: int = 0                                                   # non-finite input or reference
    special_ok: int = 0
    documented: list = field(default_factory=list)                     # Example: documented differences
    n_documented: int = 0
    failures: list = field(default_factory=list)                       # Example / str: what failed
    n_failures: int = 0
    torch_differs: list = field(default_factory=list)                  # Example: PyTorch ≠ reference, we agree
    n_torch_differs: int = 0
    overflows: list = field(default_factory=list)                      # Example: ±inf, exact and PyTorch finite
    n_overflow: int = 0
    n_overflow_failures: int = 0              # of n_failures: overflows known.OVERFLOWS does not document
    unresolved: int = 0                       # no reference: y is no forward output, or it did not settle
    worst: Example | None = None                                       # the element with the largest ulp error
    groups: dict = field(default_factory=dict)                         # group -> Errors
    # the oracle's element-by-element verdict (codegen.accuracy.oracle): every finite element within the
    # rounding-error bound of the documented formula (bound.py), the standards on the well-conditioned ones
    judged: int = 0                           # elements held to their bound
    unjudged: int = 0                         # no bound: the formula leaves FLOAT, or a branch within rounding
    beyond: list = field(default_factory=list)                         # Example: elements beyond their bound
    n_beyond: int = 0
    no_bound: str = ""                        # why the formula has no bound at all (a function without a rule)
    # elements without a bound (`unjudged`, or every element where the formula has none) with a finite kernel
    # result, held to a standard of their own (`judge_unbounded`): the relative error within UNBOUNDED_REL
    unbounded: int = 0                        # elements judged by that standard
    unbounded_max_rel: float = 0.0
    unbounded_max_ulp: float = 0.0
    unbounded_worst: Example | None = None    # the element with the largest relative error among them
    unbounded_off: list = field(default_factory=list)                  # Example: beyond that standard
    n_unbounded_off: int = 0
    n_unbounded_failures: int = 0             # of n_failures: those known.UNBOUNDED does not document
    errors_wc: S.Errors = field(default_factory=S.Errors.empty)        # representative, well-conditioned

    @property
    def oracle_passed(self) -> bool:
        """The differential oracle's verdict: nothing beyond its bound, no special-value or layout failure, a
        bound for the formula, and both standards on the representative well-conditioned elements.  An overflow is
        not the oracle's to judge (the documented formula has no bound there, it leaves FLOAT's range): it fails
        the accuracy verdict (`passed`), not this one, so `opgen fuzz`'s random formulas with e^x in FLOAT's
        exp-overflow window are not reported as framework bugs."""
        return (self.n_beyond == 0 and self.n_failures == self.n_overflow_failures + self.n_unbounded_failures
                and not self.no_bound
                and S.dual_ok(self.errors_wc, self.dtype) and S.single_ok(self.errors_wc, self.dtype))

    @property
    def dual(self) -> bool:
        return S.dual_ok(self.errors, self.dtype)

    @property
    def single(self) -> bool:
        return S.single_ok(self.errors, self.dtype)

    @property
    def goal(self):
        t = self.torch.max_ulp if self.torch is not None and self.torch.n else None
        return S.goal(self.errors if self.coupled else self.errors_all, self.dtype, self.coupled, t)

    @property
    def passed(self) -> bool:
        return self.dual and self.single and self.n_failures == 0

    @property
    def known(self) -> str | None:
        from .known import reason
        return reason(self.op_name, self.dtype)

    def to_json(self) -> dict:
        d = asdict(self)
        d.update(dual_ok=self.dual, single_ok=self.single, goal_met=self.goal[0], goal=self.goal[1],
                 passed=self.passed, oracle_passed=self.oracle_passed)
        return d


def _describe(op, kw, shape, i) -> str:
    if op.classes is not None:   # the element's values on the (sample, class) grid, its class among them
        from .classes import grid_kw
        op, kw = op.grid, grid_kw(op, kw)
    parts = []
    for t in op.tensors:
        a = kw.get(t.py_name)
        if a is None:
            continue
        if op.output.sum_to and np.shape(a) != tuple(shape):   # a term of a sum: the input's shape is not out's
            parts.append(f"{t.name} of shape {list(np.shape(a))}")
            continue
        v = np.broadcast_to(np.asarray(a), shape).reshape(-1)[i] if shape else np.asarray(a).reshape(-1)[0]
        parts.append(f"{t.name}={float(v):.9g}")
    return ", ".join(parts)


def _nonfinite_inputs(op, kw, shape):
    """(any input nan, any input ±inf) per output element (for a sum_to output: in any term of its sum)."""
    if op.output.sum_to:
        from codegen.runtime.calls import summed_axes
        full = np.broadcast_shapes(*[np.shape(kw[t.py_name]) for t in op.tensors if kw.get(t.py_name) is not None])
        axes = summed_axes(full, shape)
        return tuple(np.any(m, axis=axes).reshape(shape) for m in _nonfinite_on(op, kw, full))
    return _nonfinite_on(op, kw, shape)


def _read(op, kw) -> set:
    """The symbols the call's variant reads: its formula's and those of the values declared for it (`at=`).  A tensor
    outside them is not an input of this element: its nan or inf makes no special value (fuzz9: the batch spec's
    `target`, read by one formula, made every other formula's elements at target = inf special values, judged by
    class alone: the 0 FLOAT gives for tanh(tanh(u))'s exact 2.3e-9 failed, within the formula's bound)."""
    try:
        v = variant_of(op, kw)
    except StopIteration:   # (no variant matches: every tensor counts)
        return {t.symbol for t in op.tensors}
    declared = {**op.at, **v.formula.at}
    # (the gradient always: a backward that is 0, of a forward constant in x, still multiplies it in the reference)
    return set().union({op.grad.symbol}, sympy.sympify(v.expr).free_symbols,
                       *(sympy.sympify(e).free_symbols for item in declared.items() for e in item))


def _nonfinite_on(op, kw, shape):
    nan = np.zeros(shape, bool)
    inf = np.zeros(shape, bool)
    read = _read(op, kw)
    for t in op.tensors:
        a = kw.get(t.py_name)
        # (a split tensor's halves, and a tensor holding a function of one, are read whatever the formula names)
        if a is None or (t.symbol is not None and t.holds is None and t.symbol not in read):
            continue
        f = np.broadcast_to(np.asarray(a).astype(np.float32), shape)
        if op.reduce_dim is not None and np.ndim(a):   # a nan or inf anywhere in the row reaches all of it
            dim = op.reduce_axis(kw)
            nan |= np.isnan(f).any(axis=dim, keepdims=True) if shape else np.isnan(f)
            inf |= np.isinf(f).any(axis=dim, keepdims=True) if shape else np.isinf(f)
        else:
            nan |= np.isnan(f)
            inf |= np.isinf(f)
    return nan, inf


@dataclass
class Prepared:
    sample: Sample
    ref: np.ndarray          # rounded to the output dtype (float64 values)
    unresolved: np.ndarray
    torch: np.ndarray | None
    nan_in: np.ndarray
    inf_in: np.ndarray
    formula: np.ndarray | None = None   # the documented backward in IEEE float64 (what the formula gives)
    bound: np.ndarray | None = None     # its rounding-error bound in FLOAT (inf: none), bound.py
    unsure: np.ndarray | None = None    # a branch decision within rounding of its switch point
    no_bound: str = ""                  # why there is no bound at all
    sign_unsure: np.ndarray | None = None   # gradOutput = ±inf times a local derivative of undecided sign
    alt: np.ndarray | None = None       # at an exact midpoint of the dtype, the other neighbour (else nan)
    exact_zero: np.ndarray | None = None   # positions the kernel must set to exactly 0 (past a sequence's length)
    flipped: np.ndarray | None = None   # where `unsure`: the formula with those branch decisions the other way


def prepare(op, sample: Sample, fmt, use_torch: bool = True) -> Prepared:
    if op.classes is not None:   # judged on its (sample, class) grid (codegen.accuracy.classes)
        from .classes import prepare as prepare_classes
        return prepare_classes(op, sample, fmt, use_torch)
    if op.sequence is not None:   # the unmasked op's reference, 0 past each length (codegen.accuracy.sequence)
        from .sequence import prepare as prepare_sequence
        return prepare_sequence(op, sample, fmt, use_torch)
    ref, unresolved, alt = reference_for(op, sample.kw).rounded_ties(sample.kw, sample.shape, fmt)
    th = None
    if use_torch:
        try:
            th = torch_ref.run(op, sample.kw, fmt.np)
        except Exception:  # a dtype or layout PyTorch does not take: no comparison for this sample
            th = None
    nan_in, inf_in = _nonfinite_inputs(op, sample.kw, sample.shape)
    p = Prepared(sample, ref, unresolved, th, nan_in, inf_in, alt=alt)
    try:
        p.formula, p.bound, p.unsure = bound_of(op, variant_of(op, sample.kw), sample.kw, sample.shape)
    except NoBound as e:
        p.no_bound = str(e)
    except Exception as e:  # noqa: BLE001 - the oracle then fails the record, naming this: never a silent pass
        p.no_bound = f"the bound broke: {type(e).__name__}: {e}"
    if not p.no_bound:
        p.sign_unsure = _sign_unsure(op, sample)
        if np.any(p.unsure):   # a correct kernel may take the other branch there (judge_unbounded)
            try:
                p.flipped = bound_of(op, variant_of(op, sample.kw), sample.kw, sample.shape, flip=True)[0]
            except Exception:  # noqa: BLE001 - no other value: the reference alone judges those elements
                p.flipped = None
    return p


def _sign_unsure(op, sample: Sample):
    """Where gradOutput is ±inf and the rest of the element is finite, whether the sign of the infinity the
    kernel gives is decided by rounding: the backward with gradOutput = ±1 there is within its FLOAT rounding
    bound of 0.  (Found by codegen.fuzz, seed 7: -2*E*(1 - tanh(x)**2) + 4*exp(-x**2)/sqrt(pi) at x = 10 is
    -4.5e-8 exactly, but in FLOAT 1 - tanh(10)**2 is 0 and exp(-100) a positive subnormal, so every backend gives
    +inf for gradOutput = +inf, the exact result -inf: FLOAT arithmetic decides, not the kernel.)  None when no
    gradOutput is infinite."""
    grad = sample.kw.get(op.grad.py_name)
    if grad is None:
        return None
    g = np.asarray(grad).astype(np.float64)
    if not np.isinf(g).any():
        return None
    kw = dict(sample.kw, **{op.grad.py_name: np.where(np.isinf(g), np.sign(g), g).astype(np.asarray(grad).dtype)})
    try:   # a sum_to output's sum is unsure where one of its terms is
        v, e, _ = bound_of(op, variant_of(op, kw), kw, sample.shape, terms=True)
    except Exception:  # noqa: BLE001 - no bound: nothing is excused
        return None
    inf_g = np.broadcast_to(np.isinf(g), np.shape(v))
    with np.errstate(invalid="ignore"):
        unsure = inf_g & np.isfinite(v) & np.isfinite(e) & (np.abs(v) <= e)
    if op.output.sum_to:
        from codegen.runtime.calls import summed_axes
        unsure = np.any(unsure, axis=summed_axes(np.shape(v), sample.shape)).reshape(sample.shape)
    return unsure


def measure(rec: Record, op, p: Prepared, got, fmt) -> None:
    s = p.sample
    shape = s.shape
    if tuple(np.shape(got)) != tuple(shape):
        rec.n_failures += 1
        rec.failures.append(f"{s.group} [{s.case}]: output shape {list(np.shape(got))}, rules require {list(shape)}")
        return
    if s.out is not None:
        if got is not s.out and not np.shares_memory(got, s.out):
            rec.n_failures += 1
            rec.failures.append(f"{s.group} [{s.case}]: out= was not written in place")
        outside = s.holder[:, 0::2]
        if not np.isnan(outside.astype(np.float32)).all():
            rec.n_failures += 1
            rec.failures.append(f"{s.group} [{s.case}]: wrote outside the out= view")
    if not int(np.prod(shape)):
        return
    got = np.asarray(got).astype(fmt.np).reshape(-1)
    if p.exact_zero is not None:   # past a sequence's length: exactly 0, whatever the inputs there
        for i in np.flatnonzero(p.exact_zero.reshape(-1) & (got != 0)):
            rec.n_failures += 1
            _add(rec.failures, Example(s.group, s.case, _describe(op, s.kw, shape, i) + " (past its length)",
                                       float(got[i]), 0.0))
    ref = p.ref.reshape(-1)
    want = ref.astype(fmt.np)
    if p.alt is not None:   # an exact tie: the kernel's neighbour is as correctly rounded as ties-to-even's
        alt = p.alt.reshape(-1).astype(fmt.np)
        want = np.where(got == alt, alt, want)
    unresolved = p.unresolved.reshape(-1)
    nan_in, inf_in = p.nan_in.reshape(-1), p.inf_in.reshape(-1)
    nonfinite_in = nan_in | inf_in
    special = (~np.isfinite(ref) | nonfinite_in) & ~unresolved
    measured = ~special & ~unresolved
    rec.unresolved += int(unresolved.sum())
    th = p.torch.reshape(-1) if p.torch is not None else None
    rel = S.relative_errors(got[measured], want[measured], fmt.tiny)
    ulps = ulp_distance(got[measured], want[measured])
    sub = S.subnormal_range(got[measured], want[measured], fmt.tiny)
    e = S.errors(rel, ulps, fmt.name, sub)
    rec.errors_all = rec.errors_all.merge(e)
    if representative(s.group):
        rec.errors = rec.errors.merge(e)
    rec.groups[s.group] = rec.groups.get(s.group, S.Errors.empty()).merge(e)
    if th is not None:
        tg, tw = th[measured], want[measured]
        te = S.errors(S.relative_errors(tg, tw, fmt.tiny), ulp_distance(tg, tw), fmt.name,
                      S.subnormal_range(tg, tw, fmt.tiny))
        rec.torch = (rec.torch or S.Errors.empty()).merge(te)
        if representative(s.group):
            rec.torch_std = (rec.torch_std or S.Errors.empty()).merge(te)
    idx = np.flatnonzero(measured)
    if ulps.size and (rec.worst is None or ulps.max() > _worst_ulp(rec, fmt)):
        i = idx[int(ulps.argmax())]
        rec.worst = Example(s.group, s.case, _describe(op, s.kw, shape, i), float(got[i]), float(ref[i]),
                            None if th is None else float(th[i]))
    # special values: the same class (nan, the same infinity, or numbers within the dual standard's threshold)
    rec.special += int(special.sum())
    same = _same(got, want, fmt)
    # what the documented formula itself decides: the class it gives in IEEE arithmetic; or, on finite inputs,
    # a formula that leaves FLOAT's range (no bound) or decides a branch within rounding (unsure)
    if p.formula is not None:
        ieee = _same_class(got, p.formula.reshape(-1), fmt)
        e = np.broadcast_to(p.bound, shape).reshape(-1)
        loose = np.broadcast_to(p.unsure, shape).reshape(-1) | (~nonfinite_in & ~np.isfinite(e))
        # on finite inputs, an exact result that leaves the dtype is a number too: the kernel's value is judged as
        # `judge` judges one the dtype holds, against the formula's value with twice its bound and one ulp, an
        # infinity where that interval reaches past the dtype's largest value on its side.  Where the bound exceeds
        # the value, rounding decides the size and sign (C, FLOAT16: sin((beta + x)**2*(x - t)**2)*... at x = 157,
        # the argument 6e8 off by far more than pi in FLOAT: -inf for +inf, fuzz seed 3232; cos(pi**2*x**2)*... at
        # x = -65504: 13592 for -inf, seed 3434), as `sign_unsure` decides for an infinite gradOutput
        loose = loose | (~nonfinite_in & np.isinf(ref) & _within_bound(got, p.formula, e, shape, fmt))
    else:
        ieee = loose = np.zeros(got.shape, bool)
    if p.sign_unsure is not None:   # an infinite gradOutput times a local derivative whose sign rounding decides
        loose = loose | (np.broadcast_to(p.sign_unsure, shape).reshape(-1) & (np.isinf(got.astype(np.float64))
                                                                            | np.isnan(got.astype(np.float64))))
    for i in np.flatnonzero(special):
        ex = Example(s.group, s.case, _describe(op, s.kw, shape, i), float(got[i]), float(ref[i]),
                     None if th is None else float(th[i]))
        if same[i]:
            rec.special_ok += 1
        elif nan_in[i] or (inf_in[i] and np.isnan(float(got[i])) and (np.isinf(ref[i]) or ref[i] == 0)) or ieee[i] \
                or loose[i]:
            rec.n_documented += 1
            _add(rec.documented, ex)
        else:
            rec.n_failures += 1
            _add(rec.failures, ex)
    # finite inputs, a finite exact result the dtype holds, and the kernel gives ±inf where PyTorch's does not: an
    # intermediate overflowed (SinhGrad's e^x/2 at x = 89, where e^x leaves FLOAT and cosh does not; MSE's 2(x - t)
    # before its mean's 1/N, now folded in by the lowering).  Listed on its own (the bound of the documented formula,
    # which the oracle judges by, has no value there: the formula as written leaves FLOAT's range) and a failure,
    # unless codegen.accuracy.known.OVERFLOWS documents this kernel's overflows with their reason
    # A nan there is the same (an intermediate overflowed and met a factor that is 0: SquaredHingeLoss's
    # (c0*target)*max(0, 1 - t*x) at target > 1.7e38 gave -inf*0) unless PyTorch's is not finite either
    g64 = got.astype(np.float64)
    over = measured & np.isinf(g64) & np.isfinite(want.astype(np.float64))
    nan = measured & np.isnan(g64) & np.isfinite(want.astype(np.float64))
    if th is not None:
        over &= ~np.isinf(th.astype(np.float64))
        nan &= np.isfinite(th.astype(np.float64))
    if p.formula is not None:   # the documented formula gives nan itself, in float64 (0*log(q) at q < 0, gamma = 0)
        with np.errstate(invalid="ignore"):
            own = np.isnan(np.broadcast_to(np.asarray(p.formula, dtype=np.float64), shape).reshape(-1))
        for i in np.flatnonzero(nan & own):
            rec.n_documented += 1
            _add(rec.documented, Example(s.group, s.case, _describe(op, s.kw, shape, i), float(got[i]),
                                         float(ref[i]), None if th is None else float(th[i])))
        nan &= ~own
    over |= nan
    documented_overflow = overflow_reason(rec.op_name, rec.dtype, rec.backend) is not None
    for i in np.flatnonzero(over):
        ex = Example(s.group, s.case, _describe(op, s.kw, shape, i), float(got[i]), float(ref[i]),
                     None if th is None else float(th[i]))
        rec.n_overflow += 1
        # a failure is listed with the overflows only, not among the oracle's failures (the fuzzer names a batch's
        # suspect formulas from those: fuzz_t1's x**2 beside a wrong exp(x/2))
        rec.n_overflow_failures += _listed(rec, ex, rec.overflows, documented_overflow)
    judge(rec, op, p, got, want, measured, fmt)
    if th is not None:   # where PyTorch departs from the reference on special inputs or results
        for i in np.flatnonzero(special & ~_same(th, want, fmt)):
            rec.n_torch_differs += 1
            _add(rec.torch_differs, Example(s.group, s.case, _describe(op, s.kw, shape, i), float(got[i]),
                                            float(ref[i]), float(th[i])))


def _within_bound(got, formula, e, shape, fmt):
    """Where the kernel's value is within 2e + one ulp of the formula's value f (float64; `judge`'s tolerance): a
    finite value that close, or the infinity of a side [f - 2e, f + 2e] reaches past the dtype's largest value."""
    g = got.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        f = np.broadcast_to(np.asarray(formula, dtype=np.float64), shape).reshape(-1)
        tol = 2 * e + ulp_of(np.where(np.isfinite(g), g, fmt.max), fmt)
        finite = np.isfinite(g) & (np.abs(g - f) <= tol)
        inf = ((g == np.inf) & (f + tol >= fmt.max)) | ((g == -np.inf) & (f - tol <= -fmt.max))
        return np.isfinite(f) & np.isfinite(e) & (finite | inf)


def judge(rec: Record, op, p: Prepared, got, want, measured, fmt) -> None:
    """The oracle's element-by-element verdict on the finite elements (`measured`): |got - ref| within twice
    the documented formula's rounding-error bound plus one ulp of the output (the final rounding of a FLOAT
    result that is itself within the bound); elements without a bound are counted, not judged."""
    s = p.sample
    if p.no_bound or p.bound is None:
        rec.no_bound = p.no_bound or rec.no_bound
        judge_unbounded(rec, op, p, got, want, measured, fmt)
        return
    e = np.broadcast_to(p.bound, s.shape).reshape(-1)
    unsure = np.broadcast_to(p.unsure, s.shape).reshape(-1)
    ok = measured & np.isfinite(e) & ~unsure
    rec.judged += int(ok.sum())
    rec.unjudged += int((measured & ~ok).sum())
    judge_unbounded(rec, op, p, got, want, measured & ~ok, fmt)
    g64, w64 = got.astype(np.float64), want.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        tol = 2 * e + ulp_of(w64, fmt)
        beyond = ok & ~(np.abs(g64 - w64) <= tol)
    for i in np.flatnonzero(beyond):
        rec.n_beyond += 1
        _add(rec.beyond, Example(s.group, s.case, _describe(op, s.kw, s.shape, i), float(got[i]), float(want[i]),
                                 None if p.torch is None else float(p.torch.reshape(-1)[i])))
    if representative(s.group):   # the standards, on the elements the formula leaves well-conditioned in FLOAT
        thr = S.DUAL[fmt.name][0]
        wc = ok & (e <= 0.1 * thr * np.maximum(np.abs(w64), fmt.tiny))
        rel = S.relative_errors(got[wc], want[wc], fmt.tiny)
        rec.errors_wc = rec.errors_wc.merge(S.errors(rel, ulp_distance(got[wc], want[wc]), fmt.name,
                                                     S.subnormal_range(got[wc], want[wc], fmt.tiny)))


def judge_unbounded(rec: Record, op, p: Prepared, got, want, where, fmt) -> None:
    """The elements the bound does not judge (`where`: the documented formula leaves FLOAT's range, or decides a
    branch within rounding), held to a standard that does not read PyTorch: a relative error within UNBOUNDED_REL
    of the output dtype (its dual standard's threshold), or UNBOUNDED_ULP ulp, from the exact result; where a
    branch was decided within rounding, from the documented formula with those decisions the other way
    (`Prepared.flipped`, float64) as well: either branch is a correct kernel's answer there (Softplus at
    beta*x = threshold, g against g*sigmoid(threshold); MarginRankingLoss's kink, 0 against -t*g).  A kernel
    result that is ±inf or nan there is the overflow rule's (`measure`), not this one's.  Beyond it, an element
    fails the record unless `known.UNBOUNDED` documents the kernel (then it is a documented difference), like an
    overflow: the accuracy verdict's, not the oracle's (`oracle_passed`), since `opgen fuzz`'s random formulas
    may leave FLOAT where nothing could be computed in it."""
    s = p.sample
    g64, w64 = got.astype(np.float64), want.astype(np.float64)
    where = where & np.isfinite(g64)
    if not where.any():
        return
    idx = np.flatnonzero(where)
    rel = S.relative_errors(got[idx], want[idx], fmt.tiny)
    ulps = ulp_distance(got[idx], want[idx])
    if p.flipped is not None:   # a branch decided within rounding: the other branch's value is as right
        other = np.broadcast_to(p.flipped, s.shape).reshape(-1)[idx].astype(fmt.np)
        with np.errstate(invalid="ignore", over="ignore"):
            flip_rel = S.relative_errors(got[idx], other, fmt.tiny)
            closer = np.broadcast_to(p.unsure, s.shape).reshape(-1)[idx] & (flip_rel < rel)
        rel = np.where(closer, flip_rel, rel)
        ulps = np.where(closer, ulp_distance(got[idx], other), ulps)
    rec.unbounded += int(idx.size)
    th = None if p.torch is None else p.torch.reshape(-1)
    k = int(rel.argmax())
    if rec.unbounded_worst is None or rel[k] > rec.unbounded_max_rel:
        i = idx[k]
        rec.unbounded_worst = Example(s.group, s.case, _describe(op, s.kw, s.shape, i), float(got[i]),
                                      float(want[i]), None if th is None else float(th[i]))
    rec.unbounded_max_rel = max(rec.unbounded_max_rel, float(rel.max()))   # (from the nearer branch's value)
    rec.unbounded_max_ulp = max(rec.unbounded_max_ulp, float(ulps.max()))
    off = ~((rel <= UNBOUNDED_REL[fmt.name]) | (ulps <= UNBOUNDED_ULP))
    documented = unbounded_reason(rec.op_name, rec.dtype) is not None
    for i in idx[off]:
        ex = Example(s.group, s.case, _describe(op, s.kw, s.shape, i), float(got[i]), float(want[i]),
                     None if th is None else float(th[i]))
        rec.n_unbounded_off += 1
        rec.n_unbounded_failures += _listed(rec, ex, rec.unbounded_off, documented)


def _listed(rec: Record, ex: Example, listed: list, documented: bool) -> int:
    """`ex` kept in `listed` and, when `documented` (known.py names the kernel), among the documented differences;
    otherwise counted a failure.  1 when it failed, else 0."""
    _add(listed, ex)
    if documented:
        rec.n_documented += 1
        _add(rec.documented, ex)
        return 0
    rec.n_failures += 1
    return 1


def ulp_of(v: np.ndarray, fmt) -> np.ndarray:
    """One ulp of `fmt` at |v| (the smallest subnormal below the normal range)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        _, ex = np.frexp(np.abs(v))
    return np.ldexp(1.0, np.maximum(ex - 1, fmt.emin) - (fmt.p - 1))


def _same_class(got, formula, fmt):
    """Whether the kernel gives the non-finite class (nan, the same infinity) that the documented formula gives
    in IEEE arithmetic: a property of the formula as written, not of a backend."""
    with np.errstate(over="ignore", invalid="ignore"):
        f = np.asarray(formula, dtype=np.float64)
        f = np.where(np.abs(f) > np.finfo(np.float32).max, np.sign(f) * np.inf, f).astype(fmt.np).astype(np.float64)
    g = got.astype(np.float64)
    f = np.broadcast_to(f, g.shape)
    return (np.isnan(g) & np.isnan(f)) | (np.isinf(g) & (g == f))


def _same(a, b, fmt):
    """Same value class: both nan, the same infinity, finite numbers within the dual standard's relative
    threshold of each other, or one ulp apart (the largest finite value next to an overflow)."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(invalid="ignore"):
        close = S.relative_errors(a, b, fmt.tiny) <= S.DUAL[fmt.name][0]
        return (np.isnan(a64) & np.isnan(b64)) | (a64 == b64) | (np.isfinite(a64) & np.isfinite(b64) & close) \
            | (ulp_distance(a, b) <= 1)


def _worst_ulp(rec, fmt):
    w = rec.worst
    a = np.array([w.got], dtype=fmt.np)
    b = np.array([w.reference], dtype=fmt.np)
    return float(ulp_distance(a, b)[0])


def _add(lst, ex):
    """Keep a few distinct examples (distinct by group and which inputs were special)."""
    key = (ex.group, _shape_of(ex.inputs), _cls(ex.got), _cls(ex.reference), _cls(ex.torch))
    if len(lst) < MAX_EXAMPLES and all(
            (e.group, _shape_of(e.inputs), _cls(e.got), _cls(e.reference), _cls(e.torch)) != key
            for e in lst if isinstance(e, Example)):
        lst.append(ex)


def _cls(v):
    if v is None:
        return None
    return "nan" if np.isnan(v) else ("inf" if v == np.inf else ("-inf" if v == -np.inf else "finite"))


def _shape_of(inputs: str) -> str:
    return ",".join(p.split("=")[0] + ("=" + p.split("=")[1] if p.split("=")[1] in ("nan", "inf", "-inf") else "")
                    for p in inputs.split(", ") if "=" in p)


def representative(group: str) -> bool:
    """Groups of typical values, on which the Ascend standards are judged."""
    return group == "typical" or group.startswith("layout")


def coupled(op) -> bool:
    """Ops whose elements depend on more than one input element: a DimSum forward or a reduced loss."""
    return bool(op.loss_reduction) or op.forward.has(DimSum)


def run(ops: dict, backends: list[str] | None = None, full: bool = False, dtypes=None, log=print,
        kernels: dict | None = None, products=None, sizes=None, use_torch: bool = True, seed: int = 0,
        backend_products: dict | None = None) -> list[Record]:
    """Records of every op × backend × dtype × product (the fast run: × distinct kernel, `distinct_products`).
    `kernels` {(op name, backend): callable} replaces `make_kernel` (the fuzzer's batch builds); `products` limits
    the products (default: every one that has the dtype); `backend_products` {backend: products} limits one
    backend's further (the tests' CI tier: the Ascend C architectures it builds anyway); `sizes` overrides
    FAST/FULL; `use_torch=False` skips PyTorch."""
    backends = backends or _backends.kernel_backends()
    sizes = sizes or (FULL if full else FAST)
    ops, kernels = split_halves(ops, backends, kernels)
    ops, kernels = output_ops(ops, backends, kernels)   # several outputs: one op each (outputs.py)
    records = []
    for name, op in ops.items():
        made = {b: (kernels or {}).get((name, b)) or _backends.get(b).make_kernel(op) for b in backends}
        for dtype in dtypes or FORMATS:
            chosen = [p for p, dts in op.dtypes.items() if dtype in dts and (products is None or p in products)]
            if not chosen:
                continue
            fmt = FORMATS[dtype]
            t0 = time.perf_counter()
            prepared = [prepare(op, s, fmt, use_torch) for s in samples(op, dtype, sizes, seed)]
            t1 = time.perf_counter()
            for b in backends:
                # a backend that runs on fewer products than the table lists says which (Ascend C: those with an
                # architecture here); the others it is not measured on, rather than counted as crashes
                runs_on = getattr(_backends.get(b), "products", None)
                here = chosen if runs_on is None else [p for p in chosen if p in runs_on(op)]
                if backend_products and b in backend_products:
                    here = [p for p in here if p in backend_products[b]]
                for product in here if full or products else distinct_products(op, b, here):
                    rec = Record(name, op.name, b, dtype, product, coupled(op))
                    for p in prepared:
                        _call(rec, op, made[b], p, product, fmt)
                    records.append(rec)
            log(f"  {name} {dtype}: {len(prepared)} samples, reference {t1 - t0:.1f} s, "
                f"kernels {time.perf_counter() - t1:.1f} s")
    return records


def split_halves(ops: dict, backends: list[str], kernels: dict | None) -> tuple[dict, dict | None]:
    """A split op (codegen.spec.split) is measured as its two elementwise half ops, `name[a]` and `name[b]`: the
    samples, the exact reference and the bound are the half op's (its forward differentiated w.r.t. that half);
    the kernel is the op's own, called with the halves concatenated along a dimension and read back on the half
    (`half_kernel`).  Other ops pass through."""
    if not any(op.split is not None for op in ops.values()):
        return ops, kernels
    out, made = {}, dict(kernels or {})
    for name, op in ops.items():
        if op.split is None:
            out[name] = op
            continue
        whole = {b: made.get((name, b)) or _backends.get(b).make_kernel(op) for b in backends}
        for h, half in enumerate(op.halves):
            key = f"{name}[{half.wrt}]"
            out[key] = half
            for b in backends:
                made[(key, b)] = half_kernel(op, h, whole[b])
        for k, sub in enumerate(op.per_output[1:], start=1):   # an extra output's op (codegen.spec.split)
            key = f"{name}[{sub.output.name}]"
            out[key] = sub
            for b in backends:
                made[(key, b)] = _element_rows_kernel(op, whole[b], k)
    return out, made


def _element_rows_kernel(op, fn, k: int, h: int | None = None):
    """Split op `op`'s kernel `fn` (with per-row tensors: codegen.spec.split) as a kernel of an elementwise op of
    it, each element a row of its own (H = 1): gradOutput and the tensors of its shape as [N, 1], the per-row
    tensors as [N], the halves joined as x [N, 2]; the result is output k's (for the first, half h's column).  The
    tensors only an extra output reads are given when the per-row tensors are (what that output needs)."""
    from codegen.spec.split import extra_params, per_row_tensors
    rows = {op.param(n).py_name for n in per_row_tensors(op)}
    extra = {p.py_name for p in extra_params(op) if p.kind == "tensor"}
    first, second = (str(s) for s in op.wrt)
    split = op.split
    from codegen.spec.example import resolve
    ex = resolve(op)   # (an attribute or scalar the extra output's op does not read: the call example's value)
    fixed = {p.py_name: ex.scalars[p.name] if p.kind == "scalar" else ex.attrs[p.name]
             for p in op.params if p.kind in ("scalar", "attr")}

    def call(*, product, out=None, **kw):
        kw = {**fixed, **kw}
        shape = np.shape(kw[op.grad.py_name])
        n = int(np.prod(shape, dtype=np.int64))
        flat = lambda a: np.ascontiguousarray(np.broadcast_to(np.asarray(a), shape)).reshape(n, 1)
        a, b = (kw.pop(s, None) for s in (first, second))
        kw = {key: (None if v is None else flat(v).reshape(n) if key in rows else flat(v))
              if isinstance(v, np.ndarray) else v for key, v in kw.items()}
        dtype = np.asarray(kw[op.grad.py_name]).dtype
        if a is None:   # an extra output's op: no halves; x of zeros (its gradient is not read)
            a = b = np.zeros(shape, dtype)
        kw[op.param(split.tensor).py_name] = np.concatenate([flat(a), flat(b)], axis=1)
        given = any(kw.get(r) is not None for r in rows)
        for e in extra:
            if e not in kw or kw[e] is None:
                kw[e] = np.zeros((n, 1), dtype) if given else None
        if split.rows:
            kw.setdefault(op.param(split.rows).py_name, None)
        got = fn(**kw, product=product)[k]
        got = np.asarray(got)[:, h] if h is not None else np.asarray(got)
        got = got.reshape(shape)
        if out is None:
            return got
        out[...] = got
        return out
    return call


def half_kernel(op, h: int, fn):
    """The split op's kernel `fn` as a kernel of its half op `h`: the halves (the half op's tensors) concatenated
    along the last axis for an odd rank, the first for an even one, or interleaved where the op can
    (codegen.accuracy.split.whole_call), and the result's half `h` (written into `out=` when given)."""
    from codegen.spec.split import per_row_tensors
    if per_row_tensors(op):   # a per-row tensor: each element a row of its own
        return _element_rows_kernel(op, fn, 0, h)
    from .split import half_of, whole_call
    dim = op.param(op.split.dim_attr).py_name if op.split.dim_attr else None
    first, second = (str(s) for s in op.wrt)

    def call(*, product, out=None, **kw):
        a, b = np.asarray(kw.pop(first)), np.asarray(kw.pop(second))
        joined, d = whole_call(op, a, b)
        kw.update(joined)
        if dim is not None:
            kw[dim] = d - a.ndim if d else d   # a negative dim for the last axis: both spellings get called
        got = fn(**kw, product=product)
        half = half_of(op, got, h, d, a.shape)
        if out is None:
            return half
        out[...] = half
        return out
    return call


def distinct_products(op, backend: str, products: list[str]) -> list[str]:
    """The fast run's products for `backend`: one per distinct kernel.  Products differ to a kernel backend only
    through what its `kernel_variant(product)` names (Ascend C: the AI Core architecture the kernel is compiled
    for); a backend without one runs the same kernel on every product (NumPy, C: the product only selects the
    checker's dtype table, and every product here has the dtype).  Within a group the product is chosen by a hash
    of the op's name, so that products sharing a variant (A2 and A3: 40 and 48 cores) take turns across the ops;
    `--full` runs every product."""
    variant = getattr(_backends.get(backend), "kernel_variant", lambda product: None)
    groups: dict = {}
    for p in products:
        groups.setdefault(variant(p), []).append(p)
    turn = zlib.crc32(op.name.encode())
    return [g[turn % len(g)] for g in groups.values()]


def _call(rec, op, fn, p: Prepared, product, fmt):
    s = p.sample
    kw = dict(s.kw)
    if s.out is not None:
        s.holder[...] = np.nan
        kw["out"] = s.out
    try:
        got = fn(**kw, product=product)
    except AclnnError as e:
        rec.n_failures += 1
        rec.failures.append(f"{s.group} [{s.case}]: a valid call was refused: {e}")
        return
    except Exception as e:  # noqa: BLE001 - a crash is a finding, reported with the sample
        rec.n_failures += 1
        rec.failures.append(f"{s.group} [{s.case}]: crashed: {type(e).__name__}: {e}")
        return
    measure(rec, op, p, got, fmt)
