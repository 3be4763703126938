"""The accuracy checks themselves (codegen/accuracy), and every registered kernel backend measured by them.

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
from codegen.accuracy import inputs, runner, standards
from codegen.accuracy.dtypes import FORMATS, round_to, ulp_distance
from codegen.accuracy.reference import reference_for

from .conftest import REPO, TESTS

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
    for s in inputs.samples(op, "FLOAT"):
        if s.group != "typical":
            continue
        ref, unresolved = reference_for(op, s.kw).rounded(s.kw, s.shape, fmt)
        kw64 = {k: (v.astype(np.float64) if isinstance(v, np.ndarray) else v) for k, v in s.kw.items()}
        t = lambda a: torch.from_numpy(np.ascontiguousarray(np.asarray(a, dtype=np.float64)))
        want = fn(torch, kw64, t).detach().numpy().astype(np.float32)
        d = ulp_distance(ref.astype(np.float32), want)
        assert not unresolved.any()
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
    """A result off by 3 thousandths (3× the FLOAT16 threshold) fails both standards; the kernel passes."""
    op = ops[name]
    fmt = FORMATS["FLOAT16"]
    good, bad = _record(op, "FLOAT16"), _record(op, "FLOAT16")
    fn = backends.get("numpy").make_kernel(op)
    for s in inputs.samples(op, "FLOAT16"):
        if s.group != "typical":
            continue
        p = runner.prepare(op, s, fmt)
        got = fn(**s.kw)
        runner.measure(good, op, p, got, fmt)
        runner.measure(bad, op, p, (got.astype(np.float64) * (1 + 3e-3)).astype(got.dtype), fmt)
    assert good.dual and good.single
    assert not bad.dual and not bad.single


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


def test_input_sets_come_from_the_spec(ops):
    """Branch points are read from the forward's conditions, rank 0 follows MinRank, broadcast follows rules."""
    groups = lambda name: {s.group for s in inputs.samples(ops[name], "FLOAT")}
    ss = inputs.samples(ops["softshrink_backward"], "FLOAT")
    bp = [s for s in ss if s.group == "branch points" and s.case.startswith("lambda > 0")][0]
    lam = np.float32(bp.kw["lambd"])
    assert lam in bp.kw["self"] and -lam in bp.kw["self"] and 0 in bp.kw["self"]
    assert "layout: rank 0" not in groups("binary_cross_entropy_with_logits_backward")  # MinRank(self, 1)
    assert "layout: rank 0" in groups("softmax_backward")
    assert any(g.startswith("layout: broadcast") for g in groups("softshrink_backward"))
    assert any(g.startswith("layout: broadcast") for g in groups("binary_cross_entropy_with_logits_backward"))
    for name in OPS:
        g = groups(name)
        assert {"typical", "special", "layout: empty", "layout: rank 8", "layout: non-contiguous"} <= g, name


# ---- every registered backend --------------------------------------------------------------------------
@pytest.mark.parametrize("backend", backends.kernel_backends())
@pytest.mark.parametrize("name", OPS)
def test_every_backend_meets_the_standards(ops, name, backend):
    """The fast accuracy run of `opgen accuracy`, per op and backend: both Ascend standards on every dtype and
    product, no special-value or layout failure (known failures are listed in codegen/accuracy/known.py)."""
    records = runner.run({name: ops[name]}, [backend], log=lambda m: None)
    assert records
    for r in records:
        assert r.n_failures == 0, (r.dtype, r.product, r.failures[:3])
        if not r.known:
            assert r.dual and r.single, (r.dtype, r.product, r.errors)


def test_goal_fp16_bf16_elementwise_within_one_ulp_on_typical_values(ops):
    """The issue's goal on representative inputs, FLOAT16/BFLOAT16 elementwise kernels: within 1 ulp."""
    for name in OPS:
        if runner.coupled(ops[name]):
            continue
        for r in runner.run({name: ops[name]}, ["numpy"], dtypes=["FLOAT16", "BFLOAT16"], log=lambda m: None):
            assert r.errors.max_ulp <= 1, (name, r.dtype, r.errors)


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


def test_dual_and_single_standard_thresholds():
    e = standards.errors(np.array([0.0] * 9999 + [2e-4]), np.zeros(10000), "FLOAT")
    assert standards.dual_ok(e, "FLOAT") and standards.single_ok(e, "FLOAT")
    e = standards.errors(np.array([0.0] * 9998 + [2e-4] * 2), np.zeros(10000), "FLOAT")
    assert not standards.dual_ok(e, "FLOAT")
    e = standards.errors(np.full(10, 2.0 ** -10), np.zeros(10), "FLOAT16")
    assert not standards.single_ok(e, "FLOAT16")
    assert ml_dtypes.bfloat16  # the formats under test are ml_dtypes'
