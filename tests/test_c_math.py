"""opgen_expf, the vectorizable e^x of the C kernels (opgen_math.h), against double-precision exp; and
opgen_expf_nonpos, its variant for arguments SymPy proves nonpositive, against opgen_expf (the same bits).

Both builds are checked: with FMA (what -march=native gives on this CPU) and without (-mno-fma, the portable
fallback).  The error is measured in ulps of the float nearest the exact value: at most 1 everywhere (a
faithful result; the header states the maxima measured on every 7th float, 0.88 and 0.98 ulp).  Inputs: a
million floats evenly spread over the bit patterns of [-104, 89], the overflow and underflow edges, the
subnormal results, ±0, ±inf and nan.
"""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

import codegen
from codegen.backends.c.examples import write_tree

from .conftest import TESTS


def _inputs() -> np.ndarray:
    lo, hi = np.float32(-104.0).view(np.uint32), np.float32(89.0).view(np.uint32)
    neg = np.linspace(0x80000000, lo, 600_000, dtype=np.uint64).astype(np.uint32)   # -0 .. -104
    pos = np.linspace(0, hi, 400_000, dtype=np.uint64).astype(np.uint32)            # +0 .. 89
    edges = np.array([88.72283, 88.72284, 88.7229, -87.33654, -87.3366, -103.97208, -103.9721, -104.0, -150.0,
                      1e-30, -1e-30, 0.0, -0.0, np.inf, -np.inf, np.nan], np.float32)
    return np.concatenate([neg.view(np.float32), pos.view(np.float32), edges])


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("math")
    write_tree(tmp, next(iter(codegen.load_specs().values())))
    return tmp / "generated" / "c" / "src"


FLAGS = pytest.mark.parametrize("flags", [["-march=native"], ["-march=native", "-mno-fma"]], ids=["fma", "no-fma"])


def _evaluate(source, tmp_path, flags, x):
    """(opgen_expf(x), opgen_expf_nonpos(x)), built with these flags (-O3: vectorized loops are not involved,
    but the scalar code is what the kernels inline)."""
    exe = tmp_path / "expf"
    build = subprocess.run(["cc", "-std=c11", "-O3", "-ffp-contract=off", *flags, "-I", str(source),
                            str(TESTS / "c" / "expf_eval.c"), "-o", str(exe)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    out = subprocess.run([str(exe)], input=x.tobytes(), capture_output=True, check=True).stdout
    both = np.frombuffer(out, np.float32).reshape(-1, 2)
    return both[:, 0], both[:, 1]


@FLAGS
def test_expf_is_within_one_ulp(source, tmp_path, flags):
    x = _inputs()
    got, _ = _evaluate(source, tmp_path, flags, x)
    with np.errstate(over="ignore", under="ignore"):
        exact = np.exp(x.astype(np.float64))
        nearest = exact.astype(np.float32)
    nan = np.isnan(x)
    assert np.isnan(got[nan]).all()
    inf = np.isinf(nearest)
    assert (got[inf & ~nan] == nearest[inf & ~nan]).all(), "overflow must give inf"
    ok = ~nan & ~inf
    ulp = np.spacing(np.abs(nearest[ok]).astype(np.float32)).astype(np.float64)
    ulp = np.maximum(ulp, np.float64(2.0 ** -149))
    err = np.abs(got[ok].astype(np.float64) - exact[ok]) / ulp
    worst = int(np.argmax(err))
    assert err.max() <= 1.0, f"{err.max():.3f} ulp at x = {x[ok][worst]!r}"


@FLAGS
def test_expf_nonpos_gives_the_bits_of_expf_for_every_nonpositive_argument(source, tmp_path, flags):
    """Every 97th float of [-inf, -0] (the subnormal and zero results included), the edges, and nan."""
    bits = np.arange(0x80000000, 0xFF800001, 97, dtype=np.uint64).astype(np.uint32)
    edges = np.array([-0.0, -1e-30, -87.33654, -87.3366, -103.97208, -103.9721, -104.0, -149.99, -150.0,
                      -150.01, -1e30, -np.inf, np.nan, -np.nan], np.float32)
    x = np.concatenate([bits.view(np.float32), edges])
    want, got = _evaluate(source, tmp_path, flags, x)
    nan = np.isnan(x)
    assert np.isnan(got[nan]).all()
    same = got[~nan].view(np.uint32) == want[~nan].view(np.uint32)
    assert same.all(), f"x = {x[~nan][~same][:5]!r}: {got[~nan][~same][:5]!r} vs opgen_expf {want[~nan][~same][:5]!r}"


@FLAGS
def test_the_double_exp_and_sigmoid_of_the_widened_sums(source, tmp_path, flags):
    """opgen_exp_f64 and opgen_sigmoid_ext (the sums computed wider than FLOAT, codegen/cancellation.py) against
    x87 extended precision (long double, 64 significant bits): within 2^-51 (exp) and 2^-50 (the sigmoid: its division and 1 + e add two roundings) relative wherever the result is a
    normal double, so that a sum cancelling by 27 bits still keeps FLOAT's relative accuracy; 0 far below FLOAT's
    range, inf above, nan for nan."""
    exe = tmp_path / "exp_f64"
    build = subprocess.run(["cc", "-std=c11", "-O3", "-ffp-contract=off", *flags, "-I", str(source),
                            str(TESTS / "c" / "exp_f64_eval.c"), "-o", str(exe)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    wide = np.concatenate([np.linspace(-707.9, -104.0, 200_000), np.linspace(89.0, 709.0, 100_000)])   # every 2^k
    x = np.concatenate([_inputs(), wide.astype(np.float32),
                        np.array([-700.0, -708.0, -745.0, 709.0, 1e30, -1e30], np.float32)])
    out = subprocess.run([str(exe)], input=x.tobytes(), capture_output=True, check=True).stdout
    e, s = np.frombuffer(out, np.float64).reshape(-1, 2).T
    xl = x.astype(np.longdouble)
    with np.errstate(over="ignore", under="ignore"):
        exact = np.exp(xl)
        sig = 1 / (1 + np.exp(-xl))
    nan = np.isnan(x)
    assert np.isnan(e[nan]).all() and np.isnan(s[nan]).all()
    big, tiny = ~nan & (x > 709), ~nan & (x <= -708)
    assert (e[big] == np.inf).all() and (e[tiny] == 0).all()
    ok = ~nan & ~big & ~tiny
    rel = np.abs((e[ok].astype(np.longdouble) - exact[ok]) / exact[ok])
    assert rel.max() < 2.0 ** -51, f"exp: {float(rel.max()):.3g} at x = {x[ok][np.argmax(rel)]!r}"
    ok = ~nan & (x > -700)      # beyond, the sigmoid is e^u below 1e-304: far under FLOAT's range
    rel = np.abs((s[ok].astype(np.longdouble) - sig[ok]) / sig[ok])
    assert rel.max() < 2.0 ** -50, f"sigmoid: {float(rel.max()):.3g} at x = {x[ok][np.argmax(rel)]!r}"
    assert (s[~nan & (x < -700)] < 1e-300).all() and (s[~nan & (x > 40)] == 1).all()


@FLAGS
def test_the_exp_tuned_to_a_half_output(source, tmp_path, flags):
    """opgen_expf_nonpos_2p100_half (the sigmoid's exp in kernels tuned to a FLOAT16 or BFLOAT16 output,
    codegen.backends.c.opsource.half_tuned) against double-precision exp, over every 97th float of [-150, 0]: within
    2^-17.3 relative (the header's 2^-17.5 of the polynomial and the float rounding), far below the 2^-11 and 2^-8
    of an ulp of the output; e^-150 and below are e^-150's, nan stays nan."""
    exe = tmp_path / "expf_half"
    build = subprocess.run(["cc", "-std=c11", "-O3", "-ffp-contract=off", *flags, "-I", str(source),
                            str(TESTS / "c" / "expf_half_eval.c"), "-o", str(exe)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    lo = np.float32(-150.0).view(np.uint32)
    x = np.concatenate([np.arange(0x80000000, lo, 97, dtype=np.uint64).astype(np.uint32).view(np.float32),
                        np.array([-0.0, -150.0, -1e30, -np.inf, np.nan], np.float32)])
    out = subprocess.run([str(exe)], input=x.tobytes(), capture_output=True, check=True).stdout
    got = np.frombuffer(out, np.float32).astype(np.float64) * 2.0 ** -100
    nan = np.isnan(x)
    assert np.isnan(got[nan]).all()
    exact = np.exp(np.maximum(x[~nan].astype(np.float64), -150.0))
    rel = np.abs(got[~nan] - exact) / exact
    assert rel.max() < 2.0 ** -17.3, f"{rel.max():.3g} at x = {x[~nan][np.argmax(rel)]!r}"


@pytest.mark.parametrize("dtype", ["FLOAT16", "BFLOAT16"])
def test_the_sigmoid_tuned_to_a_half_output_on_every_half(dtype):
    """LogSigmoidBackward, g·σ(-x) with g = 1, on every finite FLOAT16/BFLOAT16 x (its C kernel takes the sigmoid
    tuned to its half output), against σ(-x) in double: within 0.52 ulp (the float result rounded to the output
    once more), and correctly rounded but for at most 0.1% (FLOAT16) and 0.01% (BFLOAT16) of the x (measured:
    0.06% and 0.003%; the degree-6 exp of FLOAT: 0.01% and 0%)."""
    import ml_dtypes
    bits = np.arange(65536, dtype=np.uint32)
    wide = bits.astype(np.uint16).view(np.float16).astype(np.float32) if dtype == "FLOAT16" \
        else (bits << 16).view(np.float32)
    x = wide[np.isfinite(wide)].astype(np.float16 if dtype == "FLOAT16" else ml_dtypes.bfloat16)
    got = codegen.kernel("log_sigmoid_backward", backend="c")(
        grad_output=np.ones_like(x), self=x, buffer=np.zeros_like(x)).astype(np.float64)
    xd = x.astype(np.float64)
    e = np.exp(-np.abs(xd))
    exact = np.where(xd <= 0, 1.0, e) / (1.0 + e)
    digits, smallest = (10, 2.0 ** -24) if dtype == "FLOAT16" else (7, 2.0 ** -133)
    ulp = np.maximum(2.0 ** (np.floor(np.log2(np.maximum(exact, smallest))) - digits), smallest)
    err = np.abs(got - exact) / ulp
    assert err.max() <= 0.52, f"{err.max():.3f} ulp at x = {xd[np.argmax(err)]!r}"
    assert np.mean(err > 0.5) <= (0.001 if dtype == "FLOAT16" else 0.0001)


@FLAGS
def test_erfc_and_gaussian_in_one_exp(source, tmp_path, flags):
    """opgen_erfc_gaussf(x, &e) (GeluBackwardV2's Φ and Gaussian, one exp) against double precision (math.erfc,
    exp) on 300,001 floats of [-18, 18] and 100,000 normal ones: erfc(|x|/sqrt(2)) within 5.5 ulp and e^(-x^2/2)
    within 1.5 (measured 5.01 and 1.09; the two calls it replaced, opgen_erfcf(0.70710677F*fabsf(x)) and
    opgen_expf_nonpos(-0.5F*(x*x)), 196 and 64: their arguments were rounded first); ±0, ±inf and nan."""
    import math
    exe = tmp_path / "erfc_gauss"
    build = subprocess.run(["cc", "-std=c11", "-O3", "-ffp-contract=off", *flags, "-I", str(source),
                            str(TESTS / "c" / "erfc_gauss_eval.c"), "-o", str(exe)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    x = np.concatenate([np.linspace(-18, 18, 300_001, dtype=np.float32),
                        (np.random.default_rng(5).standard_normal(100_000) * 3).astype(np.float32)])
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan], np.float32)
    out = subprocess.run([str(exe)], input=np.concatenate([x, specials]).tobytes(), capture_output=True,
                         check=True).stdout
    erfc, gauss = np.frombuffer(out, np.float32).reshape(-1, 2).T.astype(np.float64)
    assert np.array_equal(erfc[-5:], [1, 1, 0, 0, np.nan], equal_nan=True)
    assert np.array_equal(gauss[-5:], [1, 1, 0, 0, np.nan], equal_nan=True)
    xd = x.astype(np.float64)
    for got, want, bound in ((erfc[:-5], np.array([math.erfc(abs(v) / math.sqrt(2)) for v in xd]), 5.5),
                             (gauss[:-5], np.exp(-xd * xd / 2), 1.5)):
        ulp = np.maximum(np.spacing(want.astype(np.float32)).astype(np.float64), 2.0 ** -149)
        err = np.abs(got - want) / ulp
        assert err.max() <= bound, f"{err.max():.2f} ulp at x = {x[np.argmax(err)]!r}"
