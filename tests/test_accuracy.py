"""The accuracy checks themselves (codegen/accuracy), and every registered kernel backend measured by them
(the Ascend standards, and the differential oracle's element-by-element verdict on the same run).

The reference must be right (rounding once, agreeing with PyTorch's float64 autograd where both are exact
enough), must catch wrong kernels (a perturbed result, a wrong spec's kernel), and `opgen accuracy` must pass
for every backend in codegen.backends.kernel_backends() — new backends are covered without editing this file.
"""
from __future__ import annotations

import json
import subprocess
import sys

import ml_dtypes
import mpmath
import numpy as np
import pytest

import codegen
from codegen import backends
from codegen.accuracy import inputs, oracle, runner, standards
from codegen.accuracy.dtypes import FORMATS, round_to, ulp_distance
from codegen.accuracy.reference import reference_for
from codegen.spec import rules as R

from .conftest import REPO, TESTS
from .samples import ascendc_cases

OPS = sorted(codegen.load_specs())


# ---- rounding once -------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16", "BFLOAT16"])
def test_round_to_matches_a_single_ieee_rounding(dtype):
    """From values exact in the source, mpmath rounding equals NumPy/ml_dtypes' own single rounding."""
    fmt = FORMATS[dtype]
    rng = np.random.default_rng(1)
    src = np.float32 if dtype == "BFLOAT16" else np.float64   # ml_dtypes rounds float32 -> bfloat16 once
    mags = np.exp(rng.uniform(np.log(fmt.min_subnormal / 4), np.log(fmt.max * 1.01), 4000))
    vals = (mags * rng.choice([-1, 1], mags.size)).astype(src)
    with np.errstate(over="ignore"):
        want = vals.astype(fmt.np)
    got = np.array([round_to(mpmath.mpf(float(v)), fmt) for v in vals]).astype(fmt.np)
    assert ulp_distance(got, want).max() == 0


def test_round_to_rounds_once_not_twice():
    """1 + 2^-11 + 2^-60 is above the FLOAT16 tie: a detour through float64 would land on the tie and round to
    even (1.0); rounding once gives 1 + 2^-10.  Ties go to even; overflow and subnormals as IEEE."""
    f16 = FORMATS["FLOAT16"]
    with mpmath.workdps(40):
        above_tie = 1 + mpmath.mpf(2) ** -11 + mpmath.mpf(2) ** -60
    assert float(above_tie) == 1 + 2 ** -11          # the float64 detour lands on the tie ...
    assert round_to(above_tie, f16) == 1 + 2 ** -10   # ... rounding once does not
    assert round_to(1 + mpmath.mpf(2) ** -11, f16) == 1.0
    assert round_to(mpmath.mpf(65520), f16) == float("inf") and round_to(mpmath.mpf(65519), f16) == 65504
    assert round_to(mpmath.mpf(2) ** -25, f16) == 0.0 and round_to(mpmath.mpf(2) ** -25 * 1.01, f16) == 2 ** -24
    assert np.isnan(round_to(mpmath.mpc(1, 1), f16)) and np.isnan(round_to(mpmath.nan, f16))


def test_an_exact_tie_has_two_correctly_rounded_neighbours():
    """HardswishBackwardV2 at gradOutput = -0.328125, self = -2.421875 in BFLOAT16: g*(x/3 + 1/2) = 1239/12288 is
    exactly the midpoint of 0.1005859375 and 0.10107421875.  Ties-to-even gives the first; a FLOAT kernel (CANN's
    x*(1/3)) lands on either, and both are half an ulp away: the reference names the other one too."""
    from codegen.accuracy.dtypes import round_to_pair
    bf16 = FORMATS["BFLOAT16"]
    with mpmath.workdps(60):
        tie = mpmath.mpf(1239) / 12288
        assert round_to_pair(tie, bf16, tie_bits=mpmath.mp.prec - 16) == (0.1005859375, 0.10107421875)
        near, other = round_to_pair(tie * (1 + mpmath.mpf(2) ** -30), bf16, tie_bits=mpmath.mp.prec - 16)
    assert near == 0.10107421875 and np.isnan(other)


# ---- the reference -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", OPS)
def test_reference_agrees_with_pytorch_float64_autograd(ops, name):
    """On typical FLOAT inputs, PyTorch's backward in float64 rounded to FLOAT equals the mpmath reference to
    within one rounding (an independent implementation: a wrong derivative would differ by far more)."""
    torch = pytest.importorskip("torch")
    from codegen.accuracy import torch_ref
    op = ops[name]
    fn = torch_ref.counterpart(op)
    if fn is None:
        pytest.skip(f"{name} declares no PyTorch counterpart")
    fmt = FORMATS["FLOAT"]
    checked = 0
    # (several outputs: each output's op as the accuracy runs measure it, PyTorch's gradient of that output)
    from codegen.accuracy.outputs import output_ops
    measured = list(output_ops({name: op}, [], None)[0].values())
    from codegen.spec.torch import names
    needs = {op.param(n).py_name for n in names(op.torch)} if op.torch is not None else set()
    for op, s in [(m, s) for m in measured for s in inputs.samples(m, "FLOAT")]:
        if s.group != "typical" or not needs <= set(s.kw):
            # (an op measured without a tensor PyTorch's forward reads: a split op's extra output, SwigluGroupGrad's
            # w·yOrigin, which tests/test_swiglu_group_grad.py compares with autograd)
            continue
        ref, unresolved = reference_for(op, s.kw).rounded(s.kw, s.shape, fmt)
        # (an integer tensor, a class-index target, keeps its dtype)
        kw64 = {k: (v.astype(np.float64) if isinstance(v, np.ndarray) and v.dtype.kind == "f" else v)
                for k, v in s.kw.items()}
        t = lambda a: torch.from_numpy(np.ascontiguousarray(   # (a 0-d array stays 0-d)
            a if np.asarray(a).dtype.kind in "iu" else np.asarray(a, dtype=np.float64)).reshape(np.shape(a)))
        want64 = fn(torch, kw64, t)
        want64 = (want64[op.output.name] if isinstance(want64, dict) else want64).detach().numpy()
        want = want64.astype(np.float32)
        d = ulp_distance(ref.astype(np.float32), want)
        assert not unresolved.any()
        # where the derivative has decayed far below the gradient, PyTorch's float64 formula cancels (GELU's tanh
        # form at x = -7: 0.5(1 + tanh(inner)) + ... off by 30% at 1e-14): there, agreement to float64's
        # absolute rounding of O(1)·g terms, 2^-40·|g|, is what float64 can give
        g = np.abs(kw64[op.grad.py_name])
        if op.split is not None:   # gradOutput has a half's shape: it multiplies both halves of the input
            d = op.split.dim_of(op, kw64, want64.ndim)
            g = np.concatenate([g, g], axis=d)
        if op.classes is not None:   # gradOutput per sample: its view on the (sample, class) grid
            from codegen.accuracy.classes import grid_kw
            g = np.abs(grid_kw(op, kw64)[op.grad.py_name])
        g = np.broadcast_to(g, np.shape(want64))
        d = np.where(np.abs(ref.astype(np.float64) - want64) <= 2.0**-40 * g, 0, d)
        assert d.max() <= 1, f"{name} [{s.case}]: reference vs PyTorch float64: {d.max()} ulp"
        checked += d.size
    assert checked


def test_reference_limits_and_branch_conventions(ops):
    """Limits at ±inf, the branch the forward's Piecewise selects at a kink, and g·0 = 0 for infinite g."""
    f = np.float32
    ls = ops["log_sigmoid_backward"]
    kw = dict(grad_output=np.array([1, 1, np.inf, 3], f), self=np.array([np.inf, -np.inf, 0, 200], f),
              buffer=np.zeros(4, f))
    ref, _ = reference_for(ls, kw).rounded(kw, (4,), FORMATS["FLOAT"])
    assert ref[0] == 0 and ref[1] == 1 and ref[2] == np.inf and ref[3] == 0  # 3/(1+e^200) underflows FLOAT
    ss = ops["softshrink_backward"]
    kw = dict(grad_output=np.array([2, 2, 2, np.inf, 2], f), self=np.array([0.5, -0.5, 0.50001, 0.1, np.nan], f),
              lambd=0.5)
    ref, _ = reference_for(ss, kw).rounded(kw, (5,), FORMATS["FLOAT"])
    assert ref.tolist() == [0, 0, 2, 0, 0]    # |x| == λ and nan fall in the dead zone, as the spec's Piecewise says
    elu = ops["elu_backward"]
    kw = dict(grad_output=np.array([1, 1], f), self_or_result=np.array([0, -1.5], f), alpha=1.5, scale=1.0,
              input_scale=1.0, is_result=True)
    ref, _ = reference_for(elu, kw).rounded(kw, (2,), FORMATS["FLOAT"])
    assert ref.tolist() == [1.5, 0.0]   # y == 0 takes the `<= 0` branch; y == -alpha*scale is x = -inf


# ---- the measurement catches wrong kernels -------------------------------------------------------------
def _record(op, dtype="FLOAT"):
    return runner.Record(op.snake_name, op.name, "test", dtype, "ascend910b", runner.coupled(op))


@pytest.mark.parametrize("name", OPS)
def test_a_perturbed_kernel_fails_the_standards(ops, name):
    """A result off by 3 thousandths (3× the FLOAT16 threshold) fails the dual standard, and the single one
    wherever most results are non-zero; the kernel passes both.  (The single standard is a mean: exact zeros, which
    the perturbation leaves exact, dilute it, so HardtanhBackward's typical inputs, 10 non-zero results in 144,
    have a MERE of 2e-4 < 2^-10 with every non-zero result 3e-3 off.)"""
    op = ops[name]
    if op.split is not None:
        pytest.skip("a split op is measured as its two half ops (runner.split_halves), each an elementwise op here")
    if op.per_output:
        pytest.skip("an op with several outputs is measured as one op per output (codegen.accuracy.outputs), each "
                    "an elementwise op here; its kernel returns a tuple")
    fmt = FORMATS["FLOAT16"]
    good, bad = _record(op, "FLOAT16"), _record(op, "FLOAT16")
    fn = backends.get("numpy").make_kernel(op)
    nonzero = total = 0
    for s in inputs.samples(op, "FLOAT16"):
        if s.group != "typical":
            continue
        p = runner.prepare(op, s, fmt)
        got = fn(**s.kw)
        nonzero, total = nonzero + np.count_nonzero(got), total + got.size
        runner.measure(good, op, p, got, fmt)
        runner.measure(bad, op, p, (got.astype(np.float64) * (1 + 3e-3)).astype(got.dtype), fmt)
    assert good.dual and good.single
    assert not bad.dual
    if nonzero >= total / 2:
        assert not bad.single


def test_a_wrong_special_value_fails(ops):
    op = ops["log_sigmoid_backward"]
    fmt = FORMATS["FLOAT"]
    s = next(s for s in inputs.samples(op, "FLOAT") if s.group == "special")
    p = runner.prepare(op, s, fmt)
    got = backends.get("numpy").make_kernel(op)(**s.kw)
    rec = _record(op)
    runner.measure(rec, op, p, got, fmt)
    assert rec.n_failures == 0 and rec.special_ok == rec.special
    wrong = got.copy()
    wrong[np.isinf(s.kw["self"]) & (s.kw["self"] < 0)] = np.nan   # the limit at x = -inf is g, not nan
    rec = _record(op)
    runner.measure(rec, op, p, wrong, fmt)
    assert rec.n_failures > 0 and not rec.passed


def test_a_wrong_finite_value_where_the_formula_has_no_bound_fails(monkeypatch):
    """CharbonnierLossBackward's g*e/sqrt(e^2 + eps^2) computed as written in FLOAT (main's kernel until the
    lowering's scaled root, codegen.rewrite.scaled_square_roots) is 0 where |e| > 1.8e19, the exact result ±g: a
    finite wrong value where the documented formula leaves FLOAT and has no bound.  Such elements were counted
    (`unjudged`) and judged by nothing, and PyTorch's FLOAT is as wrong, so the goal passed it too.  They are held to
    a relative error within the dual threshold now (runner.judge_unbounded): the kernel of today passes, the
    recorded formula's values fail the record (not the oracle's verdict: a random formula may leave FLOAT where no
    kernel computes it), and `known.UNBOUNDED` documents them instead."""
    from codegen.accuracy import known
    from codegen.loader import load_spec_file
    op = load_spec_file(REPO / "examples/more_specs/charbonnier_loss_backward.py")
    fmt = FORMATS["FLOAT"]
    fn = backends.get("numpy").make_kernel(op)
    kw0 = dict(reduction=0, eps=1e-3)
    x = np.array([3e38, -3e38, 1e20, -2e19, 5e18, 1.0, -0.5], np.float32)
    sample = inputs.Sample("test", "large", dict(grad_output=np.ones_like(x), self=x, target=np.zeros_like(x), **kw0),
                           shape=x.shape)
    p = runner.prepare(op, sample, fmt, use_torch=False)
    good, bad, listed = _record(op), _record(op), _record(op)
    runner.measure(good, op, p, fn(**sample.kw), fmt)
    assert good.passed and good.oracle_passed and good.unjudged >= 3 and good.unbounded == good.unjudged, good
    assert good.unbounded_max_rel < 1e-6 and good.n_unbounded_off == 0
    with np.errstate(over="ignore"):   # the documented formula in FLOAT: (3e38)^2 = inf, e/inf = 0
        e = x.astype(np.float32)
        as_written = e / np.sqrt(e * e + np.float32(1e-6))
    runner.measure(bad, op, p, as_written, fmt)
    assert bad.n_unbounded_off == bad.n_unbounded_failures == 4 and not bad.passed, bad.unbounded_off
    assert bad.oracle_passed and bad.unbounded_worst.got == 0 and abs(bad.unbounded_worst.reference) == 1
    monkeypatch.setitem(known.UNBOUNDED, (op.name, "FLOAT"), "test")
    runner.measure(listed, op, p, as_written, fmt)
    assert listed.passed and listed.n_unbounded_off == 4 and listed.n_documented == 4


def test_a_branch_decided_within_rounding_takes_either_branchs_value(ops):
    """SoftplusBackward at beta*x = threshold (a branch point): FLOAT decides the branch within rounding, and the
    kernel's g*sigmoid(beta*x) (PyTorch's too) is 81% from the exact g.  Either branch is a correct kernel's answer
    there, so such an element is held to the documented formula with the decision the other way as well
    (bound.bound_of(flip=True)); a value of neither branch fails."""
    op = ops["softplus_backward"]
    fmt = FORMATS["FLOAT"]
    fn = backends.get("numpy").make_kernel(op)
    found = 0
    for s in inputs.samples(op, "FLOAT"):
        if s.group != "branch points" or s.out is not None:
            continue
        p = runner.prepare(op, s, fmt, use_torch=False)
        if p.flipped is None:
            continue
        got = np.asarray(fn(**s.kw))
        rec = _record(op)
        runner.measure(rec, op, p, got, fmt)
        assert rec.n_unbounded_off == 0, rec.unbounded_off
        unsure = np.broadcast_to(p.unsure, s.shape) & np.isfinite(p.ref) & (got != p.ref.astype(np.float32))
        if not unsure.any():
            continue
        found += 1
        neither = np.where(unsure, (p.ref + np.broadcast_to(p.flipped, s.shape)) / 2, got).astype(got.dtype)
        bad = _record(op)
        runner.measure(bad, op, p, neither, fmt)
        assert bad.n_unbounded_off == bad.n_unbounded_failures > 0 and not bad.passed
    assert found


def test_input_sets_come_from_the_spec(ops):
    """Branch points are read from the forward's conditions, rank 0 follows MinRank, broadcast follows rules."""
    drawn = {name: inputs.samples(ops[name], "FLOAT") for name in OPS}   # (each op's samples drawn once)
    groups = lambda name: {s.group for s in drawn[name]}
    ss = drawn["softshrink_backward"]
    bp = [s for s in ss if s.group == "branch points" and s.case.startswith("lambda > 0")][0]
    lam = np.float32(bp.kw["lambd"])
    assert lam in bp.kw["self"] and -lam in bp.kw["self"] and 0 in bp.kw["self"]
    for name in OPS:      # rank 0 unless a MinRank rule forbids it
        min_rank = any(isinstance(r, R.MinRank) for r in ops[name].rules)
        assert ("layout: rank 0" in groups(name)) != min_rank, name
    assert any(g.startswith("layout: broadcast") for g in groups("softshrink_backward"))
    assert any(g.startswith("layout: broadcast") for g in groups("binary_cross_entropy_with_logits_backward"))
    from codegen.accuracy.split import per_row_tensors
    for name in OPS:
        g = groups(name)
        if ops[name].split is not None and per_row_tensors(ops[name]):
            # SwigluGroupGrad's samples are (n, 2) calls, each element a row of its own (codegen.accuracy.split):
            # the half ops' layout groups keep their names but not their ranks; the layouts (2-D, 3-D, strided)
            # are tests/test_swiglu_group_grad.py's
            assert {"typical", "special", "layout: empty"} <= g, name
            continue
        # the highest rank of the tensor holding x (NLLLoss: 2) or y, or of gradOutput (ScaledMaskedSoftmax: 4)
        held = {t.name for t in ops[name].tensors if t.role in ("x", "y", "grad")}
        top = min([r.n for r in ops[name].rules if isinstance(r, R.MaxRank) and held & set(r.params)] + [8])
        assert {"typical", "special", "layout: empty", f"layout: rank {top}", "layout: non-contiguous"} <= g, name



def test_branch_points_that_move_with_an_operand_are_aimed_at(ops):
    """SmoothL1 switches at x = target ± β and at x = target: x is put at each, as the dtype rounds it, for several
    targets; the softmax ops and CrossEntropyLossGrad get rows past the C kernels' wide-row threshold (513), the
    softmax ops rows of exactly 64 (compiled apart in C)."""
    for dtype in ("FLOAT", "FLOAT16"):
        bp = [s for s in inputs.samples(ops["smooth_l1_loss_backward"], dtype)
              if s.group == "branch points" and s.case == "reduction=0 (none), beta > 0"]
        x, t = (np.concatenate([np.asarray(s.kw[k], np.float64) for s in bp]) for k in ("self", "target"))
        beta = float(bp[0].kw["beta"])
        step = 2 * np.spacing(np.abs(np.concatenate([t + beta, t - beta, t])).astype(FORMATS[dtype].np)).max()
        for point in (t + beta, t - beta, t):
            assert np.unique(t[np.abs(x - point) <= step]).size >= 3, dtype
    for name in ("softmax_backward", "log_softmax_backward", "cross_entropy_loss_grad"):
        axis = 1 if name == "cross_entropy_loss_grad" else -1
        widths = {s.shape[axis] for s in inputs.samples(ops[name], "FLOAT") if len(s.shape) >= 2}
        assert max(widths) >= 513, name
    assert 64 in {s.shape[-1] for s in inputs.samples(ops["softmax_backward"], "FLOAT") if len(s.shape) >= 2}


# ---- every registered backend --------------------------------------------------------------------------
def _ascendc_products(name: str) -> dict | None:
    """In CI the Ascend C kernels of an op run on the products tests/test_ascendc_values draws for it (conftest's
    ci_sample: one architecture per op in turn, each of its dtypes on some product), whose binaries that test
    builds anyway: every architecture is measured on some ops, each op on one or two (a build is ~5 s of CPU, and
    every distinct kernel of 33 ops is 81 of them).  Every distinct kernel under --deep."""
    from . import conftest
    if conftest.DEEP:
        return None
    return {"ascendc": {soc for n, soc, *_ in ascendc_cases(codegen.load_specs()) if n == name}}


_KERNELS: dict = {}


def _kernel(op, backend: str):
    """The op's kernel on `backend`, made once for all of its dtypes (the tests of one op run on one worker: conftest's
    accuracy groups): making it again per dtype re-plans and re-renders the same op (Ascend C: 2.8 CPU-s a round of
    every op, C: 1.0)."""
    key = (id(op), backend)
    if key not in _KERNELS:
        _KERNELS[key] = (op, backends.get(backend).make_kernel(op))   # (the op kept: its id is unique while it lives)
    return _KERNELS[key][1]


# CI measures one op of each kind (conftest.ci_kinds: every runner, standard and oracle path, every dtype and
# backend); every op under --deep.  The other ops' values are checked in CI by the per-op sweeps: NumPy against
# mpmath derivatives of the forward (test_numpy_values, test_numpy_edges), C and Ascend C against NumPy.
@pytest.mark.ci_kinds
@pytest.mark.parametrize("dtype", list(FORMATS))
@pytest.mark.parametrize("name", OPS)
def test_every_backend_meets_the_standards(ops, name, dtype):
    """The fast accuracy run of `opgen accuracy` for one op and dtype on every registered backend (one run, so the
    mpmath reference of each sample is computed once for all backends): both Ascend standards on every dtype and
    each distinct kernel's product (Ascend C's in CI: _ascendc_products), no special-value or layout failure (known
    failures are listed in codegen/accuracy/known.py), and the differential oracle's element-by-element verdict on
    the same run.
    The issue's goal on representative inputs: FLOAT16/BFLOAT16 elementwise kernels within 1 ulp."""
    if not any(dtype in dts for dts in ops[name].dtypes.values()):
        pytest.skip(f"{name} has no {dtype}")
    kernels = {(name, b): _kernel(ops[name], b) for b in backends.kernel_backends()}
    records = runner.run({name: ops[name]}, backends.kernel_backends(), dtypes=[dtype], log=lambda m: None,
                         backend_products=_ascendc_products(name), kernels=kernels)
    assert {"numpy", "c"} <= {r.backend for r in records}   # Ascend C only where a product has an architecture here
    from codegen.backends.ascendc.socs import kernel_socs
    if any(dtype in ops[name].dtypes.get(soc, []) for soc in kernel_socs(ops[name])):
        assert "ascendc" in {r.backend for r in records}, "the CI sample left Ascend C out"
    problems = []
    for r in records:
        where = (r.backend, r.dtype, r.product)
        if r.n_failures:
            problems.append((*where, "failures", r.failures[:3]))
        if not r.known and not (r.dual and r.single):
            problems.append((*where, "standards", r.errors))
        # the differential oracle's verdict (codegen.accuracy.oracle): every element within the documented
        # formula's rounding-error bound
        if not r.oracle_passed:
            problems.append((*where, "oracle", oracle.describe(r)))
        if not r.judged > r.unjudged:
            problems.append((*where, "judged", r.judged, r.unjudged))
        if (r.backend == "numpy" and r.dtype in ("FLOAT16", "BFLOAT16") and not runner.coupled(ops[name])
                and r.errors.max_ulp > 1):
            problems.append((*where, "goal: more than 1 ulp", r.errors))
    assert not problems, problems


# ---- the command -----------------------------------------------------------------------------------------
def _opgen(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "codegen", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)


def test_cli_writes_markdown_and_json(tmp_path):
    r = _opgen("accuracy", "softshrink_backward", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "accuracy.md").read_text()
    data = json.loads((tmp_path / "accuracy.json").read_text())
    assert "| softshrink_backward | FLOAT |" in md and "Where PyTorch differs" in md or "torch" not in sys.modules
    assert {rec["backend"] for rec in data["records"]} == set(backends.kernel_backends())
    assert all(rec["passed"] for rec in data["records"])
    assert _opgen("accuracy", "--backend", "nonesuch", "--out", str(tmp_path)).returncode == 2


def test_cli_fails_on_a_wrong_kernel(tmp_path):
    """A spec whose backward is wrong (1/(1+e^-x) for LogSigmoid) yields wrong kernels: accuracy exits 1."""
    r = _opgen("--specs", str(TESTS / "bad_specs" / "wrong_formula"), "accuracy", "--out", str(tmp_path))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "FAILED log_sigmoid_backward" in r.stderr
    # the line after shows an element that failed: its inputs, the kernel's value and the exact one
    example = r.stderr.split("FAILED log_sigmoid_backward", 1)[1].splitlines()[1]
    assert example.startswith("    e.g. ") and "self=" in example and "kernel " in example and "exact " in example


def test_dual_and_single_standard_thresholds():
    e = standards.errors(np.array([0.0] * 9999 + [2e-4]), np.zeros(10000), "FLOAT")
    assert standards.dual_ok(e, "FLOAT") and standards.single_ok(e, "FLOAT")
    e = standards.errors(np.array([0.0] * 9998 + [2e-4] * 2), np.zeros(10000), "FLOAT")
    assert not standards.dual_ok(e, "FLOAT")
    e = standards.errors(np.full(10, 2.0 ** -10), np.zeros(10), "FLOAT16")
    assert not standards.single_ok(e, "FLOAT16")
    assert ml_dtypes.bfloat16  # the formats under test are ml_dtypes'


def test_merged_parts_are_the_report_of_one_run(ops, tmp_path):
    """`python -m codegen.accuracy.merge` of two one-op reports writes the bytes a run over both ops writes (an
    op's records depend on the op alone); a split op's halves (glu_backward[a]) go with their op; an op in two
    parts, or parts of different modes, are refused, not merged."""
    from codegen.accuracy import merge, report
    small = inputs.Sizes(typical=6, rows=(2, 4), draws=1, layouts=False, grads=2)
    names = ["glu_backward", "log_sigmoid_backward"]
    meta = lambda cmd: {"command": cmd, "mode": "fast", "backends": ["numpy"], "torch": "2.13.0"}

    def run(which):
        return runner.run({n: ops[n] for n in which}, ["numpy"], dtypes=["FLOAT16"], sizes=small, use_torch=False,
                          log=lambda m: None)
    report.write(run(names), tmp_path / "whole", meta("opgen accuracy glu_backward log_sigmoid_backward"))
    for n in names:
        report.write(run([n]), tmp_path / n, meta(f"opgen accuracy {n}"))
    assert merge.main([str(tmp_path / n) for n in reversed(names)] + ["--out", str(tmp_path / "merged")]) == 0
    for f in ("accuracy.json", "accuracy.md"):
        assert (tmp_path / "merged" / f).read_bytes() == (tmp_path / "whole" / f).read_bytes()
    assert {r["op"] for r in json.loads((tmp_path / "merged" / "accuracy.json").read_text())["records"]} == \
        {"glu_backward[a]", "glu_backward[b]", "log_sigmoid_backward"}
    with pytest.raises(ValueError, match="glu_backward is in both"):
        merge.merge([tmp_path / "glu_backward", tmp_path / "whole"])
    other = json.loads((tmp_path / "glu_backward" / "accuracy.json").read_text())
    other["meta"]["mode"] = "full"
    (tmp_path / "other.json").write_text(json.dumps(other))
    with pytest.raises(ValueError, match="not one measurement"):
        merge.merge([tmp_path / "log_sigmoid_backward", tmp_path / "other.json"])


def test_a_one_element_row_is_a_forward_output(ops):
    """The log-softmax of a one-element row is exactly 0 (computed at mpmath's default 53 bits it was -2^-54, a y
    no row gives, whose exact gradient g·(1 - e^y) every kernel and PyTorch round to 0: BFLOAT16's MARE was 1)."""
    from codegen.verify.cases import cases
    op = ops["log_softmax_backward"]
    ctx = inputs.Context(op, cases(op)[0], FORMATS["BFLOAT16"], np.random.default_rng(0), inputs.FAST)
    z = np.array([[0.37], [-2.9], [41.0]])
    assert (ctx.y_rows(z, {}) == 0).all()
    y = ctx.y_rows(np.array([[0.5, -1.0, 2.0]]), {})[0]
    with mpmath.workdps(50):
        lse = mpmath.log(sum(mpmath.exp(mpmath.mpf(v)) for v in (0.5, -1.0, 2.0)))
        assert list(y) == [round_to(mpmath.mpf(v) - lse, FORMATS["BFLOAT16"]) for v in (0.5, -1.0, 2.0)]


def test_a_reduced_loss_has_layouts_in_the_full_run(ops):
    """A reduced loss's gradOutput is one element: the broadcast layouts cut the other tensors only (the full
    run, which makes layouts for every case, crashed on L1Loss and MSELoss with reduction mean)."""
    from codegen.verify.cases import cases
    op = ops["mse_loss_backward"]
    case = next(c for c in cases(op) if c.reduction == 1)
    ctx = inputs.Context(op, case, FORMATS["FLOAT16"], np.random.default_rng(0), inputs.FULL)
    got = inputs.layout_groups(ctx)
    assert got and all(np.ndim(s.kw[op.grad.py_name]) == 0 for s in got)


def test_ascendc_sin_cos_beyond_65536_is_not_excused():
    """Ascend C's sin and cos are right over the whole FLOAT range (codegen.backends.ascendc.sincos): the nan it
    gave beyond |a| = 65536 is no longer a documented bound, so a nan there fails like any other (it was excused
    by known.ASCENDC_SIN_COS)."""
    from codegen.loader import load_spec_file
    op = load_spec_file(REPO / "examples/more_specs/cos_grad.py")
    fmt = FORMATS["FLOAT"]
    x = np.array([1.0, 0.5, 1e5, -2e5, 3.0], np.float32)
    sample = inputs.Sample("test", "large", dict(x=x, dy=np.ones_like(x)), shape=x.shape)
    p = runner.prepare(op, sample, fmt, use_torch=False)
    got = backends.get("numpy").make_kernel(op)(**sample.kw)
    right = runner.Record(op.snake_name, op.name, "ascendc", "FLOAT", "ascend910b", runner.coupled(op))
    runner.measure(right, op, p, got.copy(), fmt)
    assert right.passed and right.n_overflow == 0, right
    got[2:4] = np.nan    # past 65536: as Ascend C's kernel gave before
    past = runner.Record(op.snake_name, op.name, "ascendc", "FLOAT", "ascend910b", runner.coupled(op))
    runner.measure(past, op, p, got, fmt)
    assert not past.passed and past.n_overflow_failures == 2 and past.n_documented == 0, past
