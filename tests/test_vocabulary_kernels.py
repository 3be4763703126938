"""Every construct of the expression vocabulary through every kernel backend, against mpmath.

tests/vocabulary_specs/vocabulary_probe_backward.py holds ~20 backward terms (the issue's defects among them:
an expanded square in a denominator, a value read twice by one instruction, erf, tanh, sign, Min/Max, constants
such as sqrt(2) and pi, rational and negative powers, log1p/expm1, relations inside And/Not, an algebraic Mish,
cosh and sinh where e^|x| overflows);
one call per backend runs them all (the `which` operand picks each element's term), one build per backend; its
`lossOnly` form reads numel("self") but not self (the NumPy kernel once raised NameError: name 'self').
Expected values: each term's derivative evaluated by mpmath at 40 digits at the FLOAT inputs — never the code
under test.  The probe is a test fixture the verifier cannot prove (it branches on an operand), so its kernels
are made directly (`make_kernel`), as `codegen.kernel` does.
"""
from __future__ import annotations

import importlib.util

import mpmath
import numpy as np
import pytest
import sympy

import codegen
from codegen import backends

from .conftest import TESTS
from .ulp import ulp_distance

SPECS = TESTS / "vocabulary_specs"
BACKENDS = ["numpy", "c", "ascendc"]
ALPHA = 1.5


def _probe_module():
    spec = importlib.util.spec_from_file_location("vocabulary_probe", SPECS / "vocabulary_probe_backward.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROBE = _probe_module()
OPS = codegen.load_specs(SPECS)

# inputs per term (default: -4..4 and a few special values); the bound in ulps of FLOAT (default 8)
DEFAULT_X = [-4.0, -2.5, -1.0, -0.7, -0.3, -1e-3, 0.0, -0.0, 1e-3, 0.3, 0.7, 1.0, 2.5, 4.0, np.nan]
POSITIVE_X = [1e-3, 0.1, 0.5, 1.0, 2.0, 3.5, 100.0, np.nan]
# beyond the Cody-Waite reduction (Ascend C's Payne-Hanek path, codegen.backends.ascendc.sincos), with the floats
# nearest k pi/2 found by continued fractions: 7.729179e28 = 16367173*2^72 is FLOAT's closest, 2^-29.86 of pi/2
BEYOND_REDUCTION = [65537.0, -1e6, 12345678.0, 1e10, 1e30, 3e38, -3.4028235e38, 4.2781604e+07, -2.7096755e+06,
                    6.2004666e+08, 7.729179e+28, -2.1999385e+10, 1.5458358e+29]
X = {
    3: [-2.0, -1.0, -0.3, 0.0, 0.3, 1.0, 2.5, 4.0, np.nan],          # GELU: 1 + erf cancels below -2
    9: [-0.9, -0.5, -1e-3, 0.0, 1e-3, 0.5, 2.0, 100.0, np.inf, np.nan],   # log1p
    10: DEFAULT_X + [-np.inf, 20.0, 88.0],                             # expm1
    11: POSITIVE_X + [0.0],
    12: POSITIVE_X,
    13: POSITIVE_X + [-2.0],
    1: DEFAULT_X + [np.inf, -np.inf, 6.0],                            # erf
    2: DEFAULT_X + [np.inf, -np.inf, 6.0, 9.0],                      # erfc
    15: DEFAULT_X + [np.inf, -np.inf, 20.0],                          # tanh
    7: DEFAULT_X + [ALPHA, -ALPHA],                                   # clamp
    20: DEFAULT_X + [np.inf, -np.inf, 88.0, 88.5, -88.75, 89.0, 89.375, -89.41],   # cosh: e^|x| is inf from 88.73
    21: DEFAULT_X + [np.inf, -np.inf, 0.999, -1.001, 88.0, -88.5, 88.75, -89.0, 89.375, 89.41],   # sinh
    # sin, cos: multiples of pi/2 (the floats nearest them), beyond 2^-12 (sin's form is u below), the Ascend C
    # reduction's edge (65536), and beyond it, up to 3.4e38
    22: DEFAULT_X + [np.inf, -np.inf, 3.1415927, -6.2831855, 1.5707964, 2.4414062e-4, 2.4414065e-4, 1e-30, 355.0,
                     -36847.74, 65536.0, 51471.85] + BEYOND_REDUCTION,
    23: DEFAULT_X + [np.inf, -np.inf, 1.5707964, -4.712389, 3.1415927, 355.0, -36847.74, 65536.0, 51471.85]
        + BEYOND_REDUCTION,
}
BOUND = {3: 16, 4: 16, 5: 16, 17: 32}   # 17: 1/(alpha + 2) - x cancels near x = 0.3


def _cases():
    """(which, x, expected) over every term: expected from mpmath (nan where the exact value is not real)."""
    which, xs, want = [], [], []
    with mpmath.workdps(40):
        for k, (_, d) in enumerate(PROBE.TERMS):
            f = sympy.lambdify([PROBE.x, PROBE.alpha], d, [{"max": _nan_max, "min": _nan_min}, "mpmath"])
            for v in X.get(k, DEFAULT_X):
                x32 = np.float32(v)
                which.append(k)
                xs.append(x32)
                want.append(_exact(f, float(x32)))
    return np.array(which, np.float32), np.array(xs, np.float32), np.array(want, np.float64)


def _nan_max(*a):
    """Max as the spec language means it (NumPy's maximum): nan if any argument is nan."""
    return mpmath.nan if any(mpmath.isnan(v) for v in a) else max(a)


def _nan_min(*a):
    return mpmath.nan if any(mpmath.isnan(v) for v in a) else min(a)


def _exact(f, x: float) -> float:
    """f at x in mpmath (a nan x stays nan through arithmetic and makes comparisons false, as in IEEE)."""
    try:
        value = f(mpmath.mpf(x), mpmath.mpf(ALPHA))
    except (ZeroDivisionError, ValueError):
        return np.nan
    if isinstance(value, mpmath.mpc):
        return np.nan if value.imag != 0 else float(value.real)
    return float(value)


WHICH, XS, WANT = _cases()


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_vocabulary_term_matches_mpmath(backend):
    fn = backends.get(backend).make_kernel(OPS["vocabulary_probe_backward"])
    got = fn(grad_output=np.ones_like(XS), self=XS, which=WHICH, target=XS, alpha=ALPHA, loss_only=False,
             reduction=0)
    exact = WANT.copy()
    want = exact.astype(np.float32)
    dist = ulp_distance(got, exact)
    bad = []
    for i in range(len(XS)):
        k = int(WHICH[i])
        if np.isnan(want[i]) != np.isnan(got[i]) or dist[i] > BOUND.get(k, 8):
            bad.append(f"term {k} ({PROBE.TERMS[k][1]}) at x = {XS[i]!r}: {got[i]!r}, mpmath {exact[i]!r} "
                       f"({dist[i]} ulp)")
    assert not bad, f"{backend}: {len(bad)} wrong:\n" + "\n".join(bad[:12])


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_loss_reads_numel_of_a_tensor_its_formula_does_not_read(backend):
    """`numel("self")` in a backward that does not otherwise read self: each backend takes the count where the
    tensor is in scope (the NumPy kernel once raised NameError: name 'self')."""
    fn = backends.get(backend).make_kernel(OPS["vocabulary_probe_backward"])
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    t = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    g = np.full((), 3.0, np.float32)
    for reduction, scale in [(0, 1.0), (1, 1 / 12), (2, 1.0)]:
        got = fn(grad_output=g, self=x, which=x, target=t, alpha=ALPHA, loss_only=True, reduction=reduction)
        want = np.float64(3.0) * t.astype(np.float64) * scale       # d(mean or sum of x*t)/dx
        assert ulp_distance(got, want).max() <= 1, (reduction, got, want)


@pytest.mark.parametrize("dtype", ["FLOAT16", "BFLOAT16"])
def test_every_vocabulary_term_in_half_precision_agrees_with_the_reference(dtype):
    """FLOAT16/BFLOAT16 in and out, computed in FLOAT and rounded once: C and Ascend C within 1 ulp of the NumPy
    reference (whose FLOAT values the test above holds to mpmath), nan where it is nan."""
    import ml_dtypes
    np_dtype = {"FLOAT16": np.float16, "BFLOAT16": ml_dtypes.bfloat16}[dtype]
    x, which = XS.astype(np_dtype), WHICH.astype(np_dtype)
    kw = dict(grad_output=np.ones_like(x), self=x, which=which, target=x, alpha=ALPHA, loss_only=False, reduction=0)
    op = OPS["vocabulary_probe_backward"]
    want = backends.get("numpy").make_kernel(op)(**kw)
    for backend in ("c", "ascendc"):
        got = backends.get(backend).make_kernel(op)(**kw)
        assert got.dtype == want.dtype
        assert (np.isnan(got.astype(np.float32)) == np.isnan(want.astype(np.float32))).all(), backend
        assert ulp_distance(got, want.astype(np.float64)).max() <= 1, backend
