"""opgen_expm1f, opgen_tanhf, opgen_erff, opgen_log1pf, opgen_signf, opgen_coshf and opgen_sinhf (opgen_math.h,
printed from codegen/expansions.py), opgen_erfcf and opgen_logf (written in opgen_math.h) against mpmath at 40 digits.

The error is measured in ulps of the float nearest the exact value.  Inputs: random bit patterns over the whole
float range (every exponent equally likely), dense samples where the algorithms switch branches and where the
functions vary (|x| < 12), and the special values.  CI measures 3,000 points per function with FMA (what
-march=native gives here) and without; `--deep` measures 210,000.  The bounds asserted are the ones
codegen/expansions.py states.
"""
from __future__ import annotations

import subprocess

import mpmath
import numpy as np
import pytest

import codegen
from codegen.backends.c.examples import write_tree

from .conftest import TESTS

# function -> (mpmath reference, bound in ulp, value at +inf, value at -inf)
FUNCTIONS = {
    "expm1": (mpmath.expm1, 2.0, np.inf, -1.0),
    "tanh": (mpmath.tanh, 2.0, 1.0, -1.0),
    "erf": (mpmath.erf, 3.0, 1.0, -1.0),
    "erfc": (mpmath.erfc, 6.0, 0.0, 2.0),
    "log1p": (mpmath.log1p, 3.0, np.inf, np.nan),   # nan below -1, -inf at -1
    "log": (mpmath.log, 1.0, np.inf, np.nan),       # nan below 0, -inf at ±0
    "sign": None,                                   # (column 6: checked exactly, in _check)
    "cosh": (mpmath.cosh, 3.0, np.inf, np.inf),     # finite up to |x| = 89.4, where e^|x| is not
    "sinh": (mpmath.sinh, 3.0, np.inf, -np.inf),
}
POLE = {"log1p": -1, "log": 0}   # nan below, -inf at
EDGES = [0.0, -0.0, 1e-30, -1e-30, 1e-45, 0.5, -0.5, 0.55, -0.55, 1.0, -1.0, 2.0, -2.0, 3.92, 10.05, 10.1, -10.1,
         88.0, 88.00001, 87.99999, -88.00001, 88.7, 88.75, 89.0, -89.0, 89.375, 89.41, 89.42, 89.5, -104.0, 3e38, -3e38, 0.70710677, 0.7071068, 1.4142135, 1.4142137, 1.1754942e-38, 1.1754944e-38]


def _inputs(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    bits = bits[np.isfinite(bits)]
    near = rng.uniform(-12, 12, n).astype(np.float32)
    switch = (rng.choice([0.5, 0.55, 1.0, 2.0, 88.0, 89.0], n) * (1 + rng.uniform(-0.02, 0.02, n))
              * rng.choice([-1, 1], n)).astype(np.float32)
    return np.concatenate([bits, near, switch, np.array(EDGES, np.float32)])


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("functions")
    write_tree(tmp, next(iter(codegen.load_specs().values())))
    return tmp / "generated" / "c" / "src"


def _evaluate(source, tmp_path, flags, x):
    exe = tmp_path / "functions"
    build = subprocess.run(["cc", "-std=c11", "-O3", "-ffp-contract=off", "-Wall", "-Werror", *flags, "-I",
                            str(source), str(TESTS / "c" / "functions_eval.c"), "-o", str(exe), "-lm"],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    out = subprocess.run([str(exe)], input=x.tobytes(), capture_output=True, check=True).stdout
    return np.frombuffer(out, np.float32).reshape(-1, len(FUNCTIONS))


def _worst_ulp(name, x, got):
    """The largest error in ulps of the nearest float, and where; special values checked exactly on the way."""
    f, _, at_inf, at_minus_inf = FUNCTIONS[name]
    worst, where = 0.0, None
    with mpmath.workdps(40):
        for xi, gi in zip(x.tolist(), got.tolist()):
            if xi != xi or (name in POLE and xi < POLE[name]):   # (log1p, log: nan below the pole, -inf at it)
                assert gi != gi, f"{name}({xi}) = {gi}"
                continue
            if name in POLE and xi == POLE[name]:
                assert gi == -np.inf, f"{name}({xi}) = {gi}"
                continue
            if xi in (np.inf, -np.inf):
                want = at_inf if xi > 0 else at_minus_inf
                assert gi == want, f"{name}({xi}) = {gi}, not {want}"
                continue
            exact = f(mpmath.mpf(xi))
            with np.errstate(over="ignore"):   # (beyond FLOAT's max + half an ulp: inf; cosh(89.4159) is a FLOAT)
                nearest = np.float32(float(exact)) if abs(exact) < 1e300 else np.float32(np.inf)
            if np.isinf(nearest):
                assert np.isinf(gi) and (gi > 0) == (exact > 0), f"{name}({xi}) = {gi}: must overflow"
                continue
            ulp = max(float(np.spacing(abs(nearest))), 2.0 ** -149)
            err = float(abs(mpmath.mpf(gi) - exact)) / ulp
            if (exact == 0 or xi == 0) and name != "log":   # (log(1) = +0: no sign to keep)
                assert np.signbit(np.float32(gi)) == np.signbit(np.float32(xi)) or name in ("erfc", "cosh"), \
                    f"{name}({xi}) = {gi}: the sign of zero"
            if err > worst:
                worst, where = err, xi
    return worst, where


FLAGS = pytest.mark.parametrize("flags", [["-march=native"], ["-march=native", "-mno-fma"]], ids=["fma", "no-fma"])


def _check(source, tmp_path, flags, n):
    x = _inputs(n, seed=len(flags))
    got = _evaluate(source, tmp_path, flags, x)
    for k, name in enumerate(FUNCTIONS):
        if FUNCTIONS[name] is None:
            continue
        worst, where = _worst_ulp(name, x, got[:, k])
        assert worst <= FUNCTIONS[name][1], f"opgen_{name}f: {worst:.2f} ulp at x = {where!r}"
    sign = got[:, 6]
    finite = ~np.isnan(x)
    assert np.array_equal(sign[finite], np.sign(x[finite])) and np.isnan(sign[~finite]).all()
    assert not np.signbit(sign[x == 0]).any(), "sign(±0) is +0, as NumPy's"


@FLAGS
def test_functions_are_within_their_stated_bounds(source, tmp_path, flags):
    _check(source, tmp_path, flags, 1_000)


@pytest.mark.deep
@FLAGS
def test_functions_are_within_their_stated_bounds_deep(source, tmp_path, flags):
    _check(source, tmp_path, flags, 70_000)
