"""Sums that cancel (codegen.cancellation), on every kernel backend against mpmath (independent of the kernels).

GeluBackwardV2's Φ(x) + x·φ(x) beside its root x0 = -0.7518 (the FLOAT sum was 4.7 off in relative terms one ulp
from x0; `opgen accuracy --full` failed the dual standard), and BCE-with-logits' σ(x) - t where the target is a few
ulps from the sigmoid (4.4 off): the root and the exact values come from mpmath at 50 digits, not from the
framework's own root search."""
from __future__ import annotations

import functools

import mpmath
import numpy as np
import pytest
import sympy

import codegen
from codegen import backends
from codegen.cancellation import Extended, cancels, guard

from .kernels import spec_kernel

OPS = codegen.load_specs()
BACKENDS = backends.kernel_backends()


@functools.cache
def _kernel(name, backend):
    return backends.get(backend).make_kernel(OPS[name])


def _gelu_grad(x):
    return mpmath.ncdf(x) + x * mpmath.npdf(x)


def _neighbours(c, n):
    """c and its n nearest FLOATs on each side."""
    out, lo, hi = [c], c, c
    for _ in range(n):
        lo, hi = np.nextafter(lo, np.float32(-np.inf)), np.nextafter(hi, np.float32(np.inf))
        out += [lo, hi]
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_gelu_gradient_beside_its_root(backend):
    with mpmath.workdps(50):
        x0 = mpmath.findroot(_gelu_grad, -0.75)
        xs = _neighbours(np.float32(float(x0)), 6) + [np.float32(float(x0) + d) for d in (3e-5, -4e-4, 2e-3, -0.02,
                                                                                          0.09, -0.105, 0.13)]
        x = np.array(xs, np.float32)
        want = np.array([float(_gelu_grad(mpmath.mpf(float(v)))) for v in x])
    got = _kernel("gelu_backward_v2", backend)(grad_output=np.ones_like(x), self=x, approximate="none")
    assert np.max(np.abs(got.astype(np.float64) - want) / np.abs(want)) < 1e-5


@pytest.mark.parametrize("backend", BACKENDS)
def test_bce_gradient_where_the_sigmoid_meets_the_target(backend):
    """t a few ulps from σ(x): NumPy and C compute the sum in double (one rounding), Ascend C as double-float pairs
    (about 1e-12 of σ: within 1e-4 down to a few ulps of σ - t)."""
    rng = np.random.default_rng(7)
    x = rng.normal(0, 3, 48).astype(np.float32)
    steps = rng.choice([-32, -8, -4, -2, 2, 4, 8, 32], 48)
    with mpmath.workdps(50):
        sig = [1 / (1 + mpmath.exp(-mpmath.mpf(float(v)))) for v in x]
        t = np.array([np.float32(float(s)) + np.float32(k) * np.spacing(np.float32(float(s)))
                      for s, k in zip(sig, steps)], np.float32)
        want = np.array([float(s - mpmath.mpf(float(ti))) for s, ti in zip(sig, t)])
    got = _kernel("binary_cross_entropy_with_logits_backward", backend)(
        grad_output=np.ones_like(x), self=x, target=t, weight_optional=None, pos_weight_optional=None, reduction=0)
    rel = np.abs(got.astype(np.float64) - want) / np.abs(want)
    assert np.max(rel) < (1e-4 if backend == "ascendc" else 1e-6)


NAIVE_TANH_GRAD = """
from codegen.spec import *
x, y, dy = symbols("x y dy", real=True)
SPEC = Op(name="aclnnTanhGrad", forward_name="tanh",
          params=[Tensor("y", y, role=FORWARD_OUTPUT, doc=Text("y", "y")), Tensor("dy", dy, role=GRAD, doc=Text("g", "g")),
                  Output("dx", doc=Text("dx", "dx"))],
          wrt=x, forward=tanh(x), backward=Formula(dy * (1 - y * y)), dtypes={"ascend910b": ["FLOAT"]},
          rules=[DtypeSupported("y", "dy", "dx"), DtypeSame("y", "dy", "dx"), ShapeSame("y", "dy", "dx")],
          description=Text("Tanh", "Tanh"))
"""


@pytest.fixture(scope="module")
def naive_tanh_specs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("naive")
    (folder / "tanh_grad.py").write_text(NAIVE_TANH_GRAD)
    return folder


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_polynomial_in_one_tensor_beside_its_roots(backend, naive_tanh_specs):
    """TanhGrad written as a newcomer writes it, dy*(1 - y*y) with no rewrite: the rounded y*y made 1 - y*y 687
    ulps off beside y = ±1 (PyTorch: 1 ulp).  The framework finds the roots ±1 itself and evaluates the sum as
    its Taylor polynomial in y ∓ 1 there (exact: the polynomial has degree 2)."""
    one = np.float32(1)
    near = [np.nextafter(one, np.float32(0)) - np.float32(k) * np.float32(2**-24) for k in range(0, 400, 7)]
    y = np.array(near + [-v for v in near] + list(np.linspace(-0.99, 0.99, 41, dtype=np.float32)), np.float32)
    want = np.array([float(1 - mpmath.mpf(float(v)) ** 2) for v in y])
    got = spec_kernel("tanh_grad", backend=backend, specs_dir=naive_tanh_specs)(y=y, dy=np.ones_like(y))
    ulps = np.abs(got.astype(np.float64) - want) / np.spacing(want.astype(np.float32)).astype(np.float64)
    assert np.max(ulps) <= 2


def test_the_shape_found_and_left_alone():
    x, t, b = sympy.symbols("x t b", real=True)
    assert cancels(sympy.exp(-x**2) - t) and cancels(sympy.erfc(x) + x * sympy.exp(-x**2))
    assert not cancels(sympy.exp(x) + x**2)      # one sign: no cancellation
    assert not cancels(x - t)                    # no rounded transcendental term: exact operands
    assert guard(sympy.exp(x) + x**2, {x}, set()) == sympy.exp(x) + x**2
    assert isinstance(guard(sympy.exp(x) - t, {x, t}, set()), Extended)          # a curve of zeros: wider
    assert isinstance(guard(b * sympy.exp(x) - 1, {x}, {b}), Extended)          # a root that moves with b
    # one tensor, a root the framework finds itself: a polynomial about it, the FLOAT sum elsewhere
    expanded = guard(2 * sympy.exp(-x) - 1, {x}, set())
    assert isinstance(expanded, sympy.Piecewise) and expanded.args[-1][0] == 2 * sympy.exp(-x) - 1
    # a polynomial in one tensor: about its real roots where its terms meet, and nowhere else
    assert isinstance(guard(1 - x**2, {x}, set()), sympy.Piecewise)
    assert guard(1 + x**2 / 7, {x}, set()) == 1 + x**2 / 7           # no real root (GELU's tanh form)
    assert guard(x + x**3 / 7, {x}, set()) == x + x**3 / 7           # a root where every term is 0: no cancellation
    assert guard(1 - x * t, {x, t}, set()) == 1 - x * t              # several tensors: left alone


def _instructions(lines, helpers):
    """The instruction names of a pass, each helper call replaced by its body's (recursively)."""
    from codegen.backends.ascendc.outline import PLACEHOLDER
    out = []
    for line in lines:
        m = PLACEHOLDER.search(line)
        out += _instructions(helpers[m.group(1)].body, helpers) if m else [line.strip().split("(")[0]]
    return out


@pytest.mark.parametrize("name", ["binary_cross_entropy_with_logits_backward", "swish_backward"])
def test_pair_helpers_run_the_inlined_instructions(name):
    """The pair operations as helper functions (codegen.backends.ascendc.outline) run the instructions the pass
    ran inlined, in the same order, so every element rounds the same (the simulator's outputs were compared bit
    for bit when they were introduced); each helper body passed the allocation replay check when it was made."""
    from codegen.backends.ascendc.lowering import allocate
    from codegen.backends.ascendc.outline import _flatten
    from codegen.backends.ascendc.plan import _lowering
    from codegen.backends.ascendc.socs import ARCHS
    from codegen.lower import lower
    kv = lower(OPS[name]).variants[-1]
    for arch in ("dav-c220", "dav-c100"):
        low = _lowering(kv, ARCHS[arch])
        low.result(kv.result, "res")
        flat = []
        _flatten(low.instrs, flat, {})
        inlined = allocate(flat).lines
        outlined = low.finish()
        helpers = {h.key: h for h in outlined.helpers}
        assert helpers and len(outlined.lines) < len(inlined) / 4
        assert _instructions(outlined.lines, helpers) == _instructions(inlined, {})
