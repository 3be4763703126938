"""The differential oracle (codegen.accuracy.oracle) and its rounding-error bound (codegen.accuracy.bound): it must
pass right kernels and catch the wrong ones a printer or a lowering makes — a few ulps off, a constant printed
short, a lost parenthesis, a wrong value exactly at a branch point, a nan where the formula has a value — while
leaving ill-conditioned elements of a formula to their bound.  The seed ops pass on every backend in
tests/test_accuracy.py (same run as the standards)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import sympy

import codegen
from codegen import backends
from codegen.accuracy import oracle
from codegen.accuracy.bound import bound_of
from codegen.accuracy.reference import variant_of
from codegen.fuzz.specfile import G, X, single_source

from .conftest import REPO, TESTS


def _check(op, fn, dtypes=("FLOAT",)):
    return oracle.check({op.snake_name: op}, ["numpy"], dtypes=list(dtypes), products=["ascend910b"],
                        kernels={(op.snake_name, "numpy"): fn})


def _wrapped(op, change):
    fn = backends.get("numpy").make_kernel(op)

    def kernel(**kw):
        out = fn(**kw)
        with np.errstate(over="ignore", invalid="ignore"):
            out[...] = change(kw, out.astype(np.float64)).astype(out.dtype)
        return out
    return kernel


def _spec(tmp_path, forward, backward, stem="probe_backward"):
    folder = tmp_path / stem
    folder.mkdir()
    (folder / f"{stem}.py").write_text(single_source(stem, forward, backward, {}, "tests"))
    return codegen.load_specs(folder)[stem]


def test_the_real_kernel_passes_and_a_few_ulps_off_does_not(ops):
    """8 ulps (a relative 1e-6) is far inside the Ascend standards (1e-4) but outside the formula's bound."""
    op = ops["log_sigmoid_backward"]
    assert all(r.oracle_passed for r in _check(op, backends.get("numpy").make_kernel(op)))
    bad = _check(op, _wrapped(op, lambda kw, out: out * (1 + 2.0 ** -20)))
    assert [r.oracle_passed for r in bad] == [False]
    assert bad[0].n_beyond > 0 and bad[0].dual and bad[0].single   # the standards alone would pass it


def test_a_wrong_value_exactly_at_a_branch_point_fails(ops):
    """Softshrink declares 0 at |x| == lambda; a kernel giving gradOutput there (x >= lambda) is caught."""
    op = ops["softshrink_backward"]

    def at_the_kink(kw, out):
        x, lam = kw["self"].astype(np.float64), np.float32(kw["lambd"])
        return np.where(np.abs(x) == lam, kw["grad_output"].astype(np.float64), out)
    r = _check(op, _wrapped(op, at_the_kink))
    assert not r[0].oracle_passed
    assert any(e.group == "branch points" for e in r[0].beyond)


def test_a_constant_printed_short_and_a_lost_parenthesis_fail(tmp_path):
    op = _spec(tmp_path, X ** 2 / 6, G * X / 3)
    good = _check(op, backends.get("numpy").make_kernel(op))
    assert good[0].oracle_passed
    short = _check(op, lambda **kw: (kw["grad_output"] * kw["self"] * np.float32(0.333333)).astype(np.float32))
    assert not short[0].oracle_passed
    op = _spec(tmp_path, -1 / (1 + X ** 2), G * 2 * X / (1 + X ** 2) ** 2, "paren_backward")
    lost = lambda **kw: (2 * kw["grad_output"] * kw["self"] / (kw["self"] ** 2 + 1) * (kw["self"] ** 2 + 1)  # noqa
                         ).astype(np.float32)
    assert not _check(op, lost)[0].oracle_passed


def test_a_nan_where_the_formula_has_a_value_fails(ops):
    op = ops["log_sigmoid_backward"]
    r = _check(op, _wrapped(op, lambda kw, out: np.where(kw["self"] > 5, np.nan, out)))
    assert not r[0].oracle_passed


def test_the_bound_follows_the_formulas_conditioning(tmp_path):
    """exp(x) - 1 - x cancels near 0: its bound is large relative to the result there, small elsewhere;
    exp(x) beyond 88.7 leaves FLOAT: no bound."""
    op = _spec(tmp_path, sympy.exp(X) - X ** 2 / 2 - X, G * (sympy.exp(X) - 1 - X))
    x = np.float32([1e-3, 2.0, 100.0])
    kw = {"grad_output": np.ones(3, np.float32), "self": x, "alpha": 1.0, "beta": 0.0}
    v, e, unsure = bound_of(op, variant_of(op, kw), kw, (3,))
    rel = e / np.abs(v)
    assert rel[0] > 1e-2 and rel[1] < 1e-5 and np.isinf(e[2]) and not unsure.any()


def test_sin_and_cos_have_a_bound_that_follows_their_argument(tmp_path):
    """sin and cos had no error rule (NoBound: every element of Snake's kernels went unjudged).  Of an exact x the
    bound is some ulps of the result (3e38 too); of 1 + 2 sin(x) cos(x) near its zero (x = -pi/4) it is large
    relative to it."""
    op = _spec(tmp_path, sympy.sin(X) ** 2 + X, G * (1 + 2 * sympy.sin(X) * sympy.cos(X)))
    x = np.float32([0.5, 3e38, -0.7853982])
    kw = {"grad_output": np.ones(3, np.float32), "self": x, "alpha": 1.0, "beta": 0.0}
    v, e, unsure = bound_of(op, variant_of(op, kw), kw, (3,))
    rel = e / np.abs(v)
    assert rel[0] < 1e-5 and rel[1] < 1e-5 and rel[2] > 1e-3 and not unsure.any(), (v, e)


def test_a_branch_decided_within_rounding_is_not_judged(tmp_path):
    """x**2 > 2 at the float nearest sqrt(2): FLOAT may decide either way, so no bound there."""
    f = sympy.Piecewise((X ** 3 / 3, X ** 2 > 2), (0, True))
    op = _spec(tmp_path, f, G * sympy.Piecewise((X ** 2, X ** 2 > 2), (0, True)))
    x = np.float32([np.sqrt(2), 3.0])
    kw = {"grad_output": np.ones(2, np.float32), "self": x, "alpha": 1.0, "beta": 0.0}
    _, _, unsure = bound_of(op, variant_of(op, kw), kw, (2,))
    assert unsure.tolist() == [True, False]


def test_opgen_oracle_command(tmp_path):
    run = subprocess.run([sys.executable, "-m", "codegen", "oracle", "softshrink_backward", "--backend", "numpy",
                          "--dtype", "FLOAT16"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "softshrink_backward  FLOAT16  numpy" in run.stdout and "pass" in run.stdout
    run = subprocess.run([sys.executable, "-m", "codegen", "--specs", str(TESTS / "bad_specs" / "wrong_formula"),
                          "oracle", "--backend", "numpy", "--dtype", "FLOAT"], cwd=REPO, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 1 and "FAILED log_sigmoid_backward FLOAT numpy" in run.stderr
    assert "beyond the bound" in run.stderr
