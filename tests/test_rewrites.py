"""Kernel rewrites (codegen.spec.rewrites): a formula proven as documented, computed in an equal, better form.

Where they replace, what opgen verify says of a false identity and of one matching nothing, and SituGluGrad's
kernel where 1 - tanh² would cancel, against mpmath's sech² (independent of both forms)."""
from __future__ import annotations

import dataclasses

import mpmath
import numpy as np
import pytest
import sympy

import codegen
from codegen.backends import get
from codegen.spec import Formula, Rewrite, sigmoid, tanh
from codegen.verify.rewrites import prove_rewrites

x, c = sympy.symbols("x c", real=True)
SECH2 = Rewrite(lambda u: 1 - tanh(u)**2, lambda u: 4 * sigmoid(2 * u) * sigmoid(-2 * u))


def test_a_sum_pattern_replaces_inside_a_larger_sum_innermost_too():
    expr = x * (1 - tanh(x / c)**2 + c * tanh(x)) * (1 - tanh(sympy.exp(1 - tanh(x)**2))**2)
    out, n = SECH2.apply(expr)
    assert n == 3
    assert not out.has(tanh(x / c)**2) and not out.has(tanh(x)**2)
    assert out.has(sigmoid(2 * x / c)) and out.has(c * tanh(x))
    for v in (-3.1, 0.4, 2.2):   # the same function
        pt = {x: v, c: 0.7}
        assert abs(float(expr.subs(pt)) - float(out.subs(pt))) < 1e-12


def test_only_literal_matches():
    _, n = SECH2.apply(tanh(x)**2 - 1)   # -(1 - tanh²): not what the pattern writes
    assert n == 0


@dataclasses.dataclass
class _Op:
    name: str
    formulas: list


def test_verify_proves_true_identities_and_fails_false_or_idle_ones():
    wrong = Rewrite(lambda u: 1 - tanh(u)**2, lambda u: 4 * sigmoid(u) * sigmoid(-u))   # sech²(u/2)
    idle = Rewrite(lambda u: 1 - sigmoid(u), lambda u: sigmoid(-u))
    op = _Op("aclnnT", [Formula(c * (1 - tanh(x)**2), rewrites=(SECH2, wrong, idle))])
    by_label = {}
    for r in prove_rewrites(op):
        by_label.setdefault(r.check, []).append(r)
    assert [r.verdict for r in by_label[f"rewrite {SECH2.label()}"]] == ["proven"]
    assert [r.verdict for r in by_label[f"rewrite {wrong.label()}"]] == ["FAILED"]
    assert "matches nothing" in by_label[f"rewrite {idle.label()}"][0].detail


def test_situ_glu_grad_up_gradient_does_not_cancel():
    """d/d up of SituGlu at gate = inf, up = 9, λ = 1: g·|β|·sech²(9) = 6.1e-8·g·|β|, where FLOAT's 1 - tanh²(9)
    is 0 (the form as documented gave 0, and 1.6% off at up = 3.3)."""
    op = codegen.load_specs()["situ_glu_grad"]
    k = get("numpy").make_kernel(op)
    ups = np.array([3.3394964, 9.0, -12.5, 0.25], np.float32)
    x = np.concatenate([np.full(4, np.inf, np.float32), ups])[None, :]
    g = np.array([[1.9268348, -0.5, 3.0, 1.0]], np.float32)
    for beta in (-1.5, 2.0):
        got = k(grad_y=g, x=x, dim=-1, beta=beta, linear_beta=1.0, activate_left=True)[0, 4:]
        with mpmath.workdps(40):
            # situ(inf) = β·tanh(±inf)·σ(inf) = |β|
            want = [float(mpmath.mpf(float(gi)) * abs(beta) * mpmath.sech(mpmath.mpf(float(u)))**2)
                    for gi, u in zip(g[0], ups)]
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=3e-6)


# ---- the framework's own stability rewrites (codegen.rewrite, codegen.lower): every spec, every backend ----------

def _numpy_kernel(name):
    return get("numpy").make_kernel(codegen.load_specs()[name])


def _ulps(got, want):
    """|got - want| in units of the FLOAT spacing at want."""
    return [abs(float(a) - w) / float(np.spacing(np.float32(abs(w)))) for a, w in zip(got, want)]


def test_glu_gate_gradient_does_not_cancel_in_one_minus_sigmoid():
    """GluBackward's d/db, g·a·σ(b)·(1 - σ(b)) as documented, at b where FLOAT's σ(b) nears 1: 1 - σ(b) lost
    every digit (2.7e4 ulp at b = 10.79, 0 for b > 17); the rule 1 - σ(u) -> σ(-u) keeps it within a few ulp."""
    k = _numpy_kernel("glu_backward")
    bs = np.array([10.79, 14.5, 19.0, -12.25, 0.75], np.float32)
    a = np.array([1.5, -0.625, 3.0, 2.0, -1.25], np.float32)
    g = np.array([0.875, 1.0, -2.0, 1.0, 0.5], np.float32)
    out = k(grad_out=g, self=np.concatenate([a, bs]), dim=0)[5:]
    with mpmath.workdps(40):
        want = [float(mpmath.mpf(float(gi)) * float(ai) * mpmath.exp(-float(bi)) / (1 + mpmath.exp(-float(bi)))**2)
                for gi, ai, bi in zip(g, a, bs)]
    assert max(_ulps(out, want)) <= 4


def test_selu_gradient_carries_its_constant_in_two_parts():
    """SeluBackward's g·(y + λα) for y <= 0 cancels near the asymptote y -> -λα: with λα rounded to FLOAT the rounding
    error (1.3e-8 of 1.76) was a relative error of 1e-4..1e-2 for x in [-12, -5].  The sum carries it as hi + lo
    (codegen.lower.compensate_constants); the exact value is g·λα·exp(x) (mpmath), from the y held in FLOAT."""
    k = _numpy_kernel("selu_backward")
    alpha, scale = mpmath.mpf("1.6732632423543772848170429916717"), mpmath.mpf("1.0507009873554804934193349852946")
    with mpmath.workdps(40):
        xs = [mpmath.mpf(v) for v in (-5.0, -7.25, -9.5, -11.875, -0.5)]
        y = np.array([float(scale * alpha * mpmath.expm1(v)) for v in xs], np.float32)   # the forward, in FLOAT
        g = np.array([1.0, -0.75, 2.0, 1.0, 0.5], np.float32)
        want = [float(mpmath.mpf(float(gi)) * (mpmath.mpf(float(yi)) + scale * alpha)) for gi, yi in zip(g, y)]
    got = k(grad_output=g, result=y)
    assert max(_ulps(got, want)) <= 2


def test_a_sum_whose_terms_all_share_an_inexact_constant_is_its_multiple():
    """7/20 - 7/20·t² is 7/20·(1 - t²) (exactly 0 at t = ±1), not CompensatedAdd(-c·t², c, lo(c)), which gave lo(c)
    there (fuzz seed 2121: tests/regression/constant_factor); a constant that not every term shares is still carried
    in two parts."""
    from codegen.lower import CompensatedAdd, Const, compensate_constants
    t, u = sympy.symbols("t u", real=True)
    c = Const(sympy.Rational(7, 20))
    assert compensate_constants(c - c * t**2) == c * (1 - t**2)
    assert compensate_constants(c - 3 * c * t + c * u) == c * (1 - 3 * t + u)
    assert isinstance(compensate_constants(c - c * t**2 + u), CompensatedAdd)


@pytest.mark.parametrize("name", ["hardswish_backward", "hardswish_backward_v2"])
def test_hardswish_gradient_divides_beside_its_zero(name):
    """HardswishBackward's g·(x/3 + 1/2) beside its zero x = -3/2: fl(1/3)·x + 0.5 cancelled (999 ulp at
    x = -1.5000137); codegen.lower.exact_affine computes (x + 1.5)/3, x + 1.5 exact there, so one rounding."""
    k = _numpy_kernel(name)
    x = np.array([-1.5000137, -1.4999862, -1.50000012, -1.25, 2.5, -2.75], np.float32)
    g = np.array([1.0, -0.5, 2.0, 1.0, 0.25, 1.0], np.float32)
    got = k(grad_output=g, self=x)
    with mpmath.workdps(40):
        want = [float(mpmath.mpf(float(gi)) * (mpmath.mpf(float(xi)) / 3 + mpmath.mpf(1) / 2)) for gi, xi in zip(g, x)]
    assert max(_ulps(got, want)) <= 1


def test_a_root_of_a_square_plus_a_nonnegative_scalar_is_scaled_and_equal():
    """codegen.rewrite.scaled_square_roots: sqrt(u^2 + c) as sqrt((u s)^2 + c s^2)/s, s = 2^-66 above |u| = 2^62
    and 1 below (c s^2 selected between two scalars: c 2^-132, 0 where that is below 2^-100, and c).  Proved: for every s > 0 and c >= 0 the two are equal (SymPy, u of either sign).  It applies only
    where c is known non-negative (eps^2; b with the op's Requires b > 0) and reads no tensor, keeps u s formed
    before it is squared, and keeps the power (e/sqrt(e^2 + eps^2) is e s/sqrt((e s)^2 + eps^2 s^2))."""
    from codegen.expansions import Opaque
    from codegen.rewrite import SCALED_ROOT_FROM, SCALE_DOWN, scaled_square_roots
    e, b, eps, y = sympy.symbols("e b eps y", real=True)
    uc, us = sympy.Symbol("c", nonnegative=True), sympy.Symbol("s", positive=True)
    for u in (sympy.Symbol("u", positive=True), sympy.Symbol("u", negative=True), sympy.Symbol("u", real=True)):
        assert sympy.simplify(sympy.sqrt((u * us) ** 2 + uc * us**2) / us - sympy.sqrt(u**2 + uc)) == 0
    out = scaled_square_roots(e / sympy.sqrt(e**2 + eps**2), {e})
    assert out.has(Opaque) and not out.has(e**2)
    per_element = [p for p in out.atoms(sympy.Piecewise) if p.args[0][1].has(e)]
    assert all(p.args[0][1] == (sympy.Abs(e) > SCALED_ROOT_FROM) for p in per_element)
    assert SCALE_DOWN in {p.args[0][0] for p in per_element}
    # c s^2 is a scalar (c 2^-132, or 0 where that is below 2^-100): no subnormal operand per element
    assert sympy.Piecewise((eps**2 * SCALE_DOWN**2, eps**2 > 2**32), (0, True)) in out.atoms(sympy.Piecewise)
    for v in (5e18, -3e38, 7.0):   # the same function at 60 digits, either branch
        at = {e: v, eps: 0.25}
        assert abs(sympy.N(out.subs(at).replace(Opaque, lambda a: a), 60) - v / (v * v + 0.0625) ** 0.5) < 1e-15
    assert scaled_square_roots(sympy.sqrt(e**2 + b), {e}) == sympy.sqrt(e**2 + b)   # b's sign unknown
    # a power beyond ±1 is of root/s formed first: no constant s**∓3 = 2**±198 outside FLOAT (fuzz seed 3434)
    for k in (3, -3, 5):
        out = scaled_square_roots((1 + e**2) ** sympy.Rational(k, 2), {e})
        assert all(abs(float(n)) < 2.0 ** 127 for n in out.atoms(sympy.Number) if n != 0)
        assert all(abs(float(n)) > 2.0 ** -149 for n in out.atoms(sympy.Number) if n != 0)
        for v in (5e18, -3e30, 7.0):
            got = sympy.N(out.subs(e, v).replace(Opaque, lambda a: a), 60)
            assert abs(got / sympy.N((1 + sympy.Float(v, 60) ** 2) ** sympy.Rational(k, 2), 60) - 1) < 1e-15
    assert scaled_square_roots(sympy.sqrt(e**2 + b), {e}, {b}) != sympy.sqrt(e**2 + b)   # Requires b > 0
    assert scaled_square_roots(sympy.sqrt(e**2 + y), {e, y}) == sympy.sqrt(e**2 + y)   # a tensor term
