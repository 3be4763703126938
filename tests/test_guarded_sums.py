"""The C backend's sums that cancel in FLOAT first (codegen/backends/c/guarded.py), against mpmath at 50 digits.

An element whose FLOAT sum the running error bound accepts must be within 8 ulps of the exact sum; the others are
recomputed in double and rounded once (within half an ulp and a hair).  Which elements took which path is read
from a harness that includes the op's generated source and counts them through its OPGEN_REDONE hook, calling the
kernel function one element at a time; the results themselves come from the library, through the C backend's
binding.  The cases: LogSoftmaxBackward's g - r0 e^y swept across its cancellation point (both sides of the test),
at it, with e^y overflowing FLOAT where the product does not, and nan; the fraction of elements recomputed on
random data; the sums with a sigmoid, left in double; and, with --deep, the exp error the bound assumes."""
from __future__ import annotations

import ctypes
import functools
import subprocess
import tempfile
from pathlib import Path

import mpmath
import numpy as np
import pytest

import codegen
from codegen import backends
from codegen.backends.c import build

OPS = codegen.load_specs()
ULP_BOUND = 8   # guarded.ACCEPT = 2^-21: fewer than 8 ulps of the exact sum

HARNESS = {
    "log_softmax_backward": """
void one(int64_t n, const float *g, const float *y, float r0, float *out, int32_t *redone)
{
    double acc = r0;
    for (int64_t i = 0; i < n; ++i) {
        const float *in[2] = {g + i, y + i};
        counted = 0;
        finish_row(1, in, &acc, out + i, NULL);
        redone[i] = (int32_t)counted;
    }
}
long long row(int64_t n, const float *g, const float *y, float r0, float *out)
{
    double acc = r0;
    const float *in[2] = {g, y};
    counted = 0;
    finish_row(n, in, &acc, out, NULL);
    return counted;
}
""",
}


@functools.cache
def _harness(name: str):
    """The op's generated source with OPGEN_REDONE counting, and the functions above, as a ctypes library."""
    op = OPS[name]
    tmp = Path(tempfile.mkdtemp(prefix=f"guarded-{name}-"))
    for path, text in build.sources(op).items():
        (tmp / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp / path).write_text(text)
    (tmp / "src" / "harness.c").write_text(
        "#include <stdint.h>\nstatic long long counted;\n#define OPGEN_REDONE(m, k) (counted += (k))\n"
        f'#include "aclnn_{name}.c"\n' + HARNESS[name])
    lib = tmp / "harness.so"
    # -O1: a third of -O3's compile time, the same bits (IEEE arithmetic, no contraction; the test checks it)
    flags = [("-O1" if f == "-O3" else f) for f in build.FLAGS if f != "-shared"]
    subprocess.run([build.CC, *flags, "-shared", "-w", "-I", str(tmp / "include"), str(tmp / "src" / "harness.c"),
                    *build.link_runtime(build.runtime_archive(build.FLAGS)), "-o", str(lib), *build.LIBS],
                   check=True, capture_output=True)
    h = ctypes.CDLL(str(lib))
    f32 = np.ctypeslib.ndpointer(np.float32, flags="C")
    h.one.argtypes = [ctypes.c_int64, f32, f32, ctypes.c_float, f32, np.ctypeslib.ndpointer(np.int32, flags="C")]
    if hasattr(h, "row"):
        h.row.argtypes = [ctypes.c_int64, f32, f32, ctypes.c_float, f32]
        h.row.restype = ctypes.c_longlong
    return h


def _redone(name, a, b, scalar=0.0) -> np.ndarray:
    """Per element: whether the harness recomputed it in double (the test failed), and the harness's results."""
    a, b = np.ascontiguousarray(a, np.float32), np.ascontiguousarray(b, np.float32)
    out, flags = np.empty_like(a), np.zeros(a.shape, np.int32)
    _harness(name).one(a.size, a, b, scalar, out, flags)
    return flags.astype(bool), out


@functools.cache
def _kernel(name):
    return backends.get("c").make_kernel(OPS[name])


def _ulps(got, exact) -> np.ndarray:
    """|got - exact| in ulps of the exact value (FLOAT's spacing at it)."""
    exact = np.asarray(exact, np.float64)
    spacing = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    return np.abs(got.astype(np.float64) - exact) / spacing


def _check(got, exact, redone, terms):
    """Accepted elements within ULP_BOUND ulps; recomputed ones rounded once from double, whose own error is a few
    2^-53 of the terms' magnitudes `terms` (opgen_exp_f64: 4.2e-16): 2^-50 of them, and half an ulp."""
    ulps = _ulps(got, exact)
    assert np.all(ulps[~redone] <= ULP_BOUND), np.max(ulps[~redone])
    double = 2.0 ** -50 * np.asarray(terms, np.float64) / np.spacing(np.abs(exact).astype(np.float32))
    assert np.all((ulps - double)[redone] <= 0.5 + 1e-6), np.max((ulps - double)[redone])


# ---- LogSoftmaxBackward: g - r0 e^y, r0 the row's sum of g (one row, so r0 is that sum rounded to FLOAT) -------------
def _log_softmax_case(g, y):
    g, y = np.asarray(g, np.float32), np.asarray(y, np.float32)
    r0 = np.float32(np.sum(g.astype(np.float64)))   # exact here: few, short significands
    with mpmath.workdps(50):
        exact = [mpmath.mpf(float(a)) - mpmath.mpf(float(r0)) * mpmath.exp(mpmath.mpf(float(b))) for a, b in zip(g, y)]
    got = _kernel("log_softmax_backward")(grad_output=g, output=y, dim=-1)
    redone, via_harness = _redone("log_softmax_backward", g, y, r0)
    assert np.array_equal(got.view(np.uint32), via_harness.view(np.uint32))
    terms = np.abs(g.astype(np.float64)) + float(r0) * np.exp(y.astype(np.float64))
    return got, np.array([float(e) for e in exact]), redone, terms


def test_log_softmax_across_its_cancellation_point():
    """y_k nudged from log(g_k / r0) by k steps of 2^-5, -40 <= k <= 40: the sum over its terms goes from 0 (all
    rounding: recomputed) to 2.5 (accepted); the test flips near a half, and both sides meet their bound."""
    steps = np.arange(-40, 41)
    g = np.concatenate([np.full(steps.size, 1.0, np.float32), [np.float32(2.0 ** 20 - steps.size)]])
    r0 = float(np.sum(g.astype(np.float64)))   # 2^20
    y = np.concatenate([np.float32(np.log(1.0 / r0)) + steps * 2.0 ** -5, [-1.0]]).astype(np.float32)
    got, exact, redone, terms = _log_softmax_case(g, y)
    _check(got, exact, redone, terms)
    ratio = np.abs(exact[:-1]) / (r0 * np.exp(y[:-1].astype(np.float64)))
    assert redone[:-1][ratio < 0.25].all()          # cancelled by more than a factor 4: never accepted
    assert not redone[:-1][ratio > 1.0].any()       # by less than a factor 1 (a factor 2 of the terms): accepted
    assert redone.any() and not redone.all()


def test_log_softmax_exactly_cancelling():
    """g = r0 e^y to FLOAT's precision: the FLOAT sum is all rounding; the double one is right."""
    g = np.array([3.0, 5.0, 7.0, 2 ** 12 - 15.0], np.float32)
    y = np.log(g.astype(np.float64) / 4096.0).astype(np.float32)
    got, exact, redone, terms = _log_softmax_case(g, y)
    assert redone.all()
    _check(got, exact, redone, terms)


def test_log_softmax_overflows_and_nan():
    """e^y beyond FLOAT (y = 89, 100) where r0 e^y is finite: recomputed, finite, right; a product beyond FLOAT:
    inf, as in double; nan: nan."""
    g = np.array([1.5, -0.5, 2.0 ** -10, 0.0, -1.0], np.float32)   # r0 = 2^-10
    y = np.array([89.0, 100.0, -3.0, np.nan, 1.0], np.float32)
    got, exact, redone, terms = _log_softmax_case(g, y)
    assert redone[[0, 1, 3]].all() and not redone[[2, 4]].any()
    assert np.isfinite(got[0]) and np.exp(89.0) > 3.5e38
    assert np.isinf(got[1]) and got[1] < 0
    assert np.isnan(got[3])
    _check(got[[0, 2, 4]], exact[[0, 2, 4]], redone[[0, 2, 4]], terms[[0, 2, 4]])


# ---- CrossEntropyLossGrad: G ((1 - ls)(e^lp - onehot) + ls/C (C e^lp - 1)), weights absent ------------------------
@pytest.mark.parametrize("ls", [0.0, 0.5])
def test_cross_entropy_where_the_target_is_nearly_certain(ls):
    """The target's probability 1 - d, d from 2^-4 to 2^-22: with ls = 0, e^lp - 1 cancels (recomputed in double:
    within half an ulp and the double sum's own error); every element within 8 ulps.  ls = 0.5 and
    C = 8 keep the kernel's constants ls/C and 1 - ls exact, so mpmath's exact value is the kernel's."""
    c, ds = 8, [2.0 ** -k for k in range(4, 23, 2)]
    lp = np.array([[np.log1p(-d)] + [np.log(d / (c - 1)) + 0.01 * j for j in range(c - 1)] for d in ds], np.float32)
    t = np.zeros(len(ds), np.int64)
    got = _kernel("cross_entropy_loss_grad")(
        grad_loss=np.ones(len(ds), np.float32), log_prob=lp, target=t, weight_optional=None, grad_zloss_optional=None,
        lse_for_zloss_optional=None, reduction_optional="none", ignore_index=-100, label_smoothing=ls,
        lse_square_scale_for_zloss=0.0)
    with mpmath.workdps(50):
        def exact(i, j):
            e = mpmath.exp(mpmath.mpf(float(lp[i, j])))
            return (1 - mpmath.mpf(ls)) * (e - (j == 0)) + mpmath.mpf(ls) / c * (c * e - 1)
        want = np.array([[float(exact(i, j)) for j in range(c)] for i in range(len(ds))])
        terms = np.array([[float(mpmath.exp(mpmath.mpf(float(v)))) + 1 for v in row] for row in lp])
    ulps = _ulps(got, want)
    assert np.all(ulps <= ULP_BOUND)
    if ls == 0:   # (with ls = 0.5 the target's sum is e^lp - 0.5625: no cancellation)
        double = 2.0 ** -50 * terms / np.spacing(np.abs(want).astype(np.float32))
        assert np.all((ulps - double)[:, 0] <= 0.5 + 1e-6)


# ---- sums with a sigmoid: in double, every element ---------------------------------------------------------------
@pytest.mark.parametrize("name", ["binary_cross_entropy_with_logits_backward", "swish_backward", "clipped_swiglu_grad"])
def test_sums_with_a_sigmoid_stay_in_double(name):
    """codegen/backends/c/guarded.py's docstring: their FLOAT error fails the test on most ordinary elements, so
    their kernels keep the double sum (tests/test_cancellation.py holds BCE's against mpmath where it cancels)."""
    from codegen.backends.c.emit import render_source
    text = render_source(OPS[name], "x")
    assert "opgen_sigmoid_ext(" in text and "redo[" not in text


# ---- how often the double path runs on ordinary data ------------------------------------------------------------
def test_few_elements_are_recomputed_on_random_data():
    """LogSoftmaxBackward, rows of 4096 from normal logits, normal gradients: 0.5% recomputed when the bound was
    written (the elements where g and e^y Σg are within a factor three of each other)."""
    rng = np.random.default_rng(11)
    n = 4096
    logits = rng.normal(0, 2, n)
    y = (logits - np.log(np.sum(np.exp(logits)))).astype(np.float32)
    g = rng.normal(0, 1, n).astype(np.float32)
    r0 = np.float32(np.sum(g.astype(np.float64)))
    out = np.empty_like(g)
    redone = _harness("log_softmax_backward").row(n, g, y, r0, out)
    assert 0 < redone / n < 0.02


# ---- the constant the bound takes for opgen_expf ------------------------------------------------------------------
EXP_CHECK = r"""
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "opgen_math.h"
/* every float x in [-104, 89]: the largest |opgen_expf(x) - e^x| / (2^-23 |opgen_expf(x)|) over normal results, and
 * / 2^-149 over subnormal ones (e^x in double: its own 2^-53 is far below the margins measured) */
int main(void)
{
    double rel = 0, sub = 0;
    for (uint64_t u = 0; u < (1ull << 32); ++u) {
        const uint32_t b = (uint32_t)u;
        float x;
        memcpy(&x, &b, 4);
        if (!(x >= -104.0f && x <= 89.0f))
            continue;
        const float e = opgen_expf(x);
        const double ex = exp((double)x), err = fabs((double)e - ex);
        if (ex >= 0x1p-126) {
            if (err / (e * 0x1p-23) > rel)
                rel = err / (e * 0x1p-23);
        } else if (err / 0x1p-149 > sub) {
            sub = err / 0x1p-149;
        }
    }
    printf("%.6f %.6f\n", rel, sub);
    return 0;
}
"""


@pytest.mark.deep
@pytest.mark.parametrize("fma", ["-mfma", "-mno-fma"])
def test_exp_error_the_bound_assumes(fma, tmp_path):
    """guarded.EXP_REL and EXP_ABS against opgen_expf on every float of [-104, 89], with and without FMA (the two
    polynomials of opgen_math.h): 0.646 and 0.686 of 2^-23 |result| when the bound was written (EXP_REL: 0.719),
    and under one subnormal ulp (EXP_ABS: two)."""
    if fma == "-mfma" and "fma" not in Path("/proc/cpuinfo").read_text():
        pytest.skip("no FMA on this CPU")
    from codegen.backends.c import guarded
    from codegen.backends.c.emit import runtime_files
    (tmp_path / "opgen_math.h").write_text(runtime_files()["src/opgen_math.h"])
    (tmp_path / "check.c").write_text(EXP_CHECK)
    flags = [f for f in build.FLAGS if f not in ("-shared", "-fPIC")]
    subprocess.run([build.CC, *flags, fma, "-I", str(tmp_path), str(tmp_path / "check.c"), "-o",
                    str(tmp_path / "check"), "-lm"], check=True)
    rel, sub = map(float, subprocess.run([str(tmp_path / "check")], check=True, capture_output=True,
                                         text=True).stdout.split())
    assert rel * 2.0 ** -23 <= float.fromhex(guarded.EXP_REL.rstrip("F"))
    assert sub * 2.0 ** -149 <= float.fromhex(guarded.EXP_ABS.rstrip("F"))
