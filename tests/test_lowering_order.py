"""Evaluation order decided in codegen.lower, through every kernel backend.

SymPy's sums and products have no order, but FLOAT arithmetic does: the incoming gradient multiplies last (a
huge gradient must meet the zero local derivative before it can overflow), and a product of two scalars added
to a tensor term is carried as two FLOATs (where the sum cancels, the product's rounding error would otherwise
be the whole result).  Expected values: the forward's mpmath derivative (tests/reference.py), never the
documented backward.
"""
from __future__ import annotations

import ml_dtypes
import mpmath
import numpy as np
import pytest
import sympy

import codegen
from codegen.lower import CompensatedAdd, _abs_condition, lower, split_last

from . import reference
from .kernels import spec_kernel
from .ulp import ulp_distance

BACKENDS = ["numpy", "c", "ascendc"]


def test_split_last_moves_only_a_gradient_that_multiplies_two_or_more_factors():
    g, a, b = sympy.symbols("g a b", real=True)
    assert split_last(g * a * b, {g}) == (a * b, g)
    assert split_last(-g * a * b, {g}) == (-a * b, g)
    assert split_last(g * a, {g}) is None        # one operation in any order
    assert split_last(-g * a, {g}) is None
    assert split_last(g / a, {g}) is None
    assert split_last(a * b, {g}) is None
    rest, last = split_last(2 * g * (a - b), {g})   # the number stays on the sum, not distributed (2a - 2b)
    assert last == g and isinstance(rest, sympy.Mul) and set(rest.args) == {sympy.Integer(2), a - b}


def test_mirrored_comparisons_become_one_comparison_of_an_absolute_value(ops):
    """`u > c | -u > c`, however SymPy writes its sides, is lowered to `|u| > c` (exact in floats: a negation is
    exact); any other pair of comparisons is left alone."""
    x, y, lam = sympy.symbols("x y lam", real=True)
    assert _abs_condition((x > lam) | (x < -lam)) == (sympy.Abs(x) > lam)
    assert _abs_condition((lam < x) | (-lam > x)) == (sympy.Abs(x) > lam)
    assert _abs_condition((x >= lam) | (-x >= lam)) == (sympy.Abs(x) >= lam)
    assert _abs_condition((x - 1 > lam) | (1 - x > lam)) == (sympy.Abs(x - 1) > lam)
    for other in [(x > lam) | (x < -2 * lam), (x > lam) | (-x >= lam), (x > lam) | (y < -lam),
                  (x > lam) | (x < -lam) | (y > 0), (x > lam) & (x < -lam)]:
        assert _abs_condition(other) is None, other
    softshrink = lower(ops["softshrink_backward"]).variants[0].result
    assert not softshrink.has(sympy.Or) and softshrink.has(sympy.Abs), softshrink


def test_a_scalar_product_added_to_a_tensor_is_carried_in_two_floats(ops):
    kv = lower(ops["elu_backward"]).variant_for({"isResult": True})
    (hi, hi_expr), (lo, lo_expr) = kv.prelude
    alpha, scale = sympy.symbols("alpha scale", real=True)
    assert hi_expr == alpha * scale
    assert lo_expr.func.__name__ == "fma" and lo_expr.args == (alpha, scale, -hi)
    assert kv.result.has(CompensatedAdd(sympy.Symbol("selfOrResult", real=True), hi, lo))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["FLOAT", "BFLOAT16"])
def test_a_huge_gradient_times_a_zero_derivative_is_zero(backend, dtype):
    """ELU isResult=true, alpha = 0: for y <= 0 the derivative is inputScale*(y + 0) = 0 at y = 0, so any
    finite gradient gives 0 (gradOutput*inputScale first would overflow to inf, and inf*0 is nan)."""
    t = np.float32 if dtype == "FLOAT" else ml_dtypes.bfloat16
    big = float(ml_dtypes.finfo(t).max)
    g = np.array([big, -big, 1.0], dtype=t)
    y = np.zeros(3, dtype=t)
    got = codegen.kernel("elu_backward", backend)(grad_output=g, self_or_result=y, alpha=0.0, scale=1.0,
                                                    input_scale=4.0, is_result=True)
    assert np.array_equal(got.astype(np.float32), np.zeros(3, np.float32)), got


@pytest.mark.parametrize("backend", BACKENDS)
def test_elu_result_form_near_its_asymptote_is_accurate(ops, backend):
    """y close to -alpha*scale, where y + alpha*scale cancels: within 2 ulp of the forward's derivative (the
    hoisted FLOAT product alone gave relative errors up to 1, e.g. 0 for a true 1e-8)."""
    alpha, scale, input_scale = (float(np.float32(v)) for v in (1.1, 1.3, 0.9))   # as the kernels read them
    rng = np.random.default_rng(7)
    x = np.concatenate([-rng.uniform(5, 17, 64), -rng.uniform(0.01, 5, 64)]).astype(np.float64)
    y = (scale * alpha * np.expm1(x * input_scale)).astype(np.float32)   # forward outputs, rounded once
    y = y[y > -np.float32(alpha) * np.float32(scale) * np.float32(1 - 2 ** -24)]   # inside the range of ELU
    g = rng.uniform(0.5, 2, y.size).astype(np.float32)
    kw = dict(grad_output=g, self_or_result=y, alpha=alpha, scale=scale, input_scale=input_scale, is_result=True)
    got = codegen.kernel("elu_backward", backend)(**kw)
    want = reference.to_float(reference.vjp(ops["elu_backward"], kw))
    assert np.max(ulp_distance(got, want.astype(np.float32))) <= 2


def test_a_sums_numeric_content_joins_the_products_coefficient():
    """`g*(2x - 2t)*k` (SymPy distributes the spec's 2*(x - t)) is lowered as 2*g*(x - t)*k: the 2 joins the
    scalars.  A content of at most 1 stays in the sum (pulling 1/2 out of x/2 + t/2 would let x + t overflow), and
    comparisons are left as written."""
    from codegen.lower import pull_sum_content
    g, x, t, k = sympy.symbols("g x t k", real=True)
    assert pull_sum_content(g * (2 * x - 2 * t) * k) == 2 * g * k * sympy.Add(x, -t)
    assert pull_sum_content(g * (4 * x * t - 2) ** 2 * k) == 4 * g * k * (2 * x * t - 1) ** 2
    for kept in [g * (x / 2 + t / 2) * k, g * (x - t) * k, sympy.Piecewise((g * k, 2 * x - 2 * t > 0), (0, True))]:
        assert pull_sum_content(kept) == kept, kept


def test_pulling_a_content_or_clearing_a_denominator_scales_no_sum_up():
    """(ovf9) A lowering step must not scale a sum out of FLOAT's range where the sum as written is in it.
    pull_sum_content took SymPy's as_content_primitive, which also clears the denominators of the sums inside a
    term: Snake's 2x·s/(α + 10^-9) - s²/(α + 10^-9)² became 2·10^9·(x·s/(10^9·α + 1) - …), inf at |α| > 3.4e29
    (gradAlpha -0 for -0.0429 at α = 3e38, x = 1.5e38).  Now only the terms' own coefficients give the content,
    and an inner sum stays as written.  exact_affine's t·p/q + c (p a power of two) is (t + c·q/p)/(q/p), not
    (p·t + c·q)/q, whose p·t overflows where t·p/q does not.  Both forms are checked equal to the expression they replace."""
    from codegen.lower import Const, exact_affine, group_constants, pull_sum_content
    g, x, s, a = sympy.symbols("g x s a", real=True)
    eps = sympy.Rational(1, 10**9)
    snake = g * (2 * x * s / (a + eps) - s**2 / (a + eps) ** 2)
    assert pull_sum_content(snake) == snake
    assert pull_sum_content(g * (4 * x / (a + eps) - 2 * s)) == 2 * g * (2 * x / (a + eps) - s)
    for e, numerator in [(x / 3 + sympy.Rational(1, 2), x + sympy.Rational(3, 2)),
                         (4 * x / 3 + sympy.Rational(1, 2), x + sympy.Rational(3, 8)),
                         (sympy.Rational(1, 4) - 8 * x / 3, -x + sympy.Rational(3, 32))]:
        out = exact_affine(group_constants(e))
        plain = out.xreplace({c: c.value for c in out.atoms(Const)})
        assert sympy.expand(plain - e) == 0, out
        num = next(f for f in out.args if isinstance(f, sympy.Add))
        assert num.xreplace({c: c.value for c in num.atoms(Const)}) == numerator, out


def test_a_power_of_two_multiplies_after_the_divisions():
    """(ovf9) 2*x*s/d printed `2*x*s/d`: 2*x is inf at x = 3e38 where the quotient is -1.08e38 (Snake's gradAlpha at
    alpha = 0.9, once 1/(alpha + 1e-9) stays as written).  The NumPy and C printers multiply a power of two last
    (exact wherever applied); another number keeps its place (moving it would change the rounding)."""
    from codegen.backends.c.printer import KernelCPrinter
    x, s, d = sympy.symbols("x s d", real=True)
    printer = KernelCPrinter()
    assert printer.doprint(2 * x * s / d) == "s*x/d*2"
    assert printer.doprint(4 * x / d**2) == "x/d/d*4"
    assert printer.doprint(3 * x * s / d) == "3*s*x/d"
    assert printer.doprint(2 * x * s) == "2*s*x"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["FLOAT", "BFLOAT16", "FLOAT16"])
def test_mse_mean_at_the_largest_self_is_finite(ops, backend, dtype):
    """MseLossBackward, mean: 2*self - 2*target overflowed at |self| > 1.7e38 before the mean's 1/N joined (inf for
    an exact 2.65e37); the 2 now joins 1/N in the prelude's constant.  Reference: the forward's mpmath derivative.
    (FLOAT16: the C kernel's copy without scaled products, codegen.scaled.in_float_from_float16, at 65504.)"""
    t = np.float32 if dtype == "FLOAT" else ml_dtypes.bfloat16
    big = float(ml_dtypes.finfo(t).max)
    kw = dict(grad_output=np.array([1.0, 1.5, -0.75, 1.0], dtype=t).reshape(2, 2),
              self=np.array([big, -big, big * 0.5, 0.5], dtype=t).reshape(2, 2),
              target=np.array([0.25, 0.5, -big * 0.25, 3.0], dtype=t).reshape(2, 2), reduction=1)
    got = codegen.kernel("mse_loss_backward", backend)(**kw)
    want = reference.to_float(reference.vjp(ops["mse_loss_backward"], kw))
    assert np.all(np.isfinite(got.astype(np.float64))), got
    assert np.max(ulp_distance(got, want)) <= 1, (got, want)


def test_a_block_beyond_float_in_the_middle_of_a_call_is_redone_alone(ops):
    """C, MseLossBackward over BFLOAT16 operands (opsource._plain_form): the plain products first, and the scaled
    loop again only over a block (a 64-element chunk) where a result is not finite.  2*(x - t) beyond FLOAT at three
    elements in the middle of 6181: those elements are the reference's (the forward's mpmath derivative), and every
    other element, the redone blocks' too, has the bits of the call without them (where no block is redone)."""
    from .kernels import kernel
    t = ml_dtypes.bfloat16
    big = float(ml_dtypes.finfo(t).max)
    rng = np.random.default_rng(35)
    n, at = 3 * 2048 + 37, [2050, 3000, 4095]
    kw = {k: rng.uniform(-2, 2, n).astype(t) for k in ("grad_output", "self", "target")}
    mse = kernel("mse_loss_backward", "c")
    before = mse(**kw, reduction=0)
    special = dict(grad_output=np.array([0.125, -0.3, 2.0 ** -120], t), self=np.array([0.9, -0.75, 1.0], t) * big,
                   target=np.array([-0.9, 0.5, -1.0], t) * big)
    for k, v in special.items():
        kw[k][at] = v
    got = mse(**kw, reduction=0)
    want = reference.to_float(reference.vjp(ops["mse_loss_backward"], dict(special, reduction=0)))
    assert np.all(np.isfinite(got[at].astype(np.float64))) and np.max(ulp_distance(got[at], want)) <= 1, \
        (got[at], want)
    keep = np.ones(n, bool)
    keep[at] = False
    assert np.array_equal(got[keep].view(np.uint16), before[keep].view(np.uint16))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_number_times_a_sum_forms_before_the_gradient(backend):
    """MseLossGrad (examples/experimental_specs), reduction none: 2*g*(x - t).  Once the lowering kept the 2 out of
    the sum, SymPy distributed it back when the gradient was split off, and 2*g formed first: inf at g = max
    where 2*(x - t)*g is finite.  Reference: the forward's mpmath derivative."""
    from codegen.loader import load_folder
    from .conftest import REPO
    folder = REPO / "examples" / "experimental_specs"
    op = load_folder(folder)[0]["mse_loss_grad"]
    big = float(np.finfo(np.float32).max)
    kw = dict(grad_output=np.array([big, -big, 1.0], np.float32), self=np.array([0, 0.1, 3], np.float32),
              target=np.array([0.25, 0.2, 1], np.float32), reduction="none")
    got = spec_kernel("mse_loss_grad", backend, specs_dir=folder)(**kw)
    want = reference.to_float(reference.vjp(op, kw))
    assert np.all(np.isfinite(got)) and np.max(ulp_distance(got, want)) <= 1, (got, want)


def test_bounded_factors_join_the_first_operand():
    """A product's factors bounded by 1 (sigmoid, tanh, erf, their powers) multiply right after its first operand
    that is not a number, where they would come after a second operand of any size (a symbol, a Piecewise); in
    SymPy's order otherwise."""
    from codegen.lower import bounded_after_first
    from codegen.rewrite import Sigmoid
    a, b, s = sympy.symbols("a b s", real=True)
    sig, th = Sigmoid(a), sympy.tanh(b)
    assert bounded_after_first([s, b, sig]) == [s, sig, b]
    assert bounded_after_first([sympy.Integer(4), s, b, th**2, sig]) == [sympy.Integer(4), s, th**2, sig, b]
    assert bounded_after_first([s, sig, b]) == [s, sig, b]
    assert bounded_after_first([sympy.Integer(4), sig, Sigmoid(-a)]) == [sympy.Integer(4), sig, Sigmoid(-a)]
    assert bounded_after_first([s, b, sympy.exp(a)]) == [s, b, sympy.exp(a)]   # exp is not bounded
    pw = sympy.Piecewise((b, a > 0), (a, True))
    assert bounded_after_first([s + 1, pw, sig]) == [s + 1, sig, pw]   # SituGluGrad's S*b*σ(a)
    assert bounded_after_first([s, 1 - b**2, sig]) == [s, 1 - b**2, sig]   # only a computed value between: kept


@pytest.mark.parametrize("backend", BACKENDS)
def test_situ_glu_other_half_near_max_times_a_small_sigmoid_is_finite(backend):
    """SituGluGrad's gate gradient b*S*σ(a) with linearBeta <= 0 (up = b itself): b = ±3e38 and |S| = 2 formed b*S,
    inf, before σ(a) = 2e-9 joined; σ(a) now joins b first.  Reference: mpmath's derivative of situ (out = situ(a)*b)."""
    big = 3.0e38
    x = np.array([[-20.0, big], [-20.0, -big], [-8.0, big], [3.0, 1.5]], np.float32)
    kw = dict(grad_y=np.array([[1.0], [0.5], [-1.0], [2.0]], np.float32), x=x, dim=-1, beta=2.0, linear_beta=0.0,
              activate_left=True)
    got = codegen.kernel("situ_glu_grad", backend)(**kw)
    beta = mpmath.mpf(2)

    def situ(v):
        return beta * mpmath.tanh(v / beta) / (1 + mpmath.exp(-v))

    want = np.empty(x.shape)
    with mpmath.workdps(40):
        for i, ((ga,), (av, bv)) in enumerate(zip(kw["grad_y"].tolist(), x.tolist())):   # out = situ(a)*b
            want[i] = [ga * mpmath.diff(situ, mpmath.mpf(av)) * bv, ga * situ(mpmath.mpf(av))]
    assert np.all(np.isfinite(got)), (got, want)
    assert np.max(ulp_distance(got, want)) <= 4, (got, want)


def test_scalar_factors_of_a_piecewise_join_its_branches():
    """c*Piecewise((g*w*e, ...), ...) becomes Piecewise((c*g*w*e, ...), ...), so c joins the local derivative before
    the gradient; only scalars (and numbers) move, only into a Piecewise that multiplies the gradient, not where a
    branch has a scalar of its own (hoisting would fold the two into one constant rounded once for every element:
    there a scalar at most 1, a mean's 1/N, joins the gradient first where asked), and a sign alone stays
    outside."""
    from codegen.lower import scalars_into_branches
    from codegen.spec import numel
    g, w, e, c, n = sympy.symbols("g w e c n", real=True)
    pw = sympy.Piecewise((g * w * e, sympy.Abs(e) <= 1), (g * w * sympy.sign(e), True))
    out = scalars_into_branches(c * pw / n, {c, n}, g)
    assert out == sympy.Piecewise((c * g * w * e / n, sympy.Abs(e) <= 1), (c * g * w * sympy.sign(e) / n, True))
    assert scalars_into_branches(w * pw, {c}, g) == w * pw                  # a tensor factor stays outside
    own = sympy.Piecewise((g * w * e, sympy.Abs(e) <= c), (g * w * c * sympy.sign(e), True))
    assert scalars_into_branches(own / n, {c, n}, g) == own / n              # a branch's own scalar: kept apart
    joined, count = {}, numel("self")                           # ... or, a scalar at most 1, joined to g first
    out = scalars_into_branches(own / count, {c, count}, g, joined)
    (stand_in, value), = joined.items()
    assert value == g / count and out == own.xreplace({g: stand_in})
    assert all(sympy.expand(a.xreplace({stand_in: value}) - b / count) == 0 and ca == cb
               for (a, ca), (b, cb) in zip(out.args, own.args))
    assert scalars_into_branches(own * c, {c, n}, g, {}) == own * c         # c may exceed 1: c*g could overflow
    zero = sympy.Piecewise((-g * w, e > 0), (0, True))
    assert scalars_into_branches(zero / n, {n}, g) == sympy.Piecewise((-g * w / n, e > 0), (0, True))
    assert scalars_into_branches(-pw, {c}, g) == -pw                        # a sign alone too
    no_grad = sympy.Piecewise((w, e > 0), (1, True))
    assert scalars_into_branches(c * no_grad * g, {c}, g) == c * no_grad * g


@pytest.mark.parametrize("backend", BACKENDS)
def test_margin_ranking_mean_with_the_largest_gradient_is_finite(backend):
    """MarginRankingLossBackward (examples/more_specs), mean: the 1/N multiplied the Piecewise from outside, after
    the branch's -target*g, inf at g = 3e38, |target| > 1, where target*g/N is finite; the 1/N now joins each
    branch.  Reference: the hinge's derivative, -target/N (and +target/N for input2) where it is active, in mpmath."""
    from .conftest import REPO
    folder = REPO / "examples" / "more_specs"
    x1 = np.array([0.25, -1.0, 2.0, 0.25], np.float32)
    t = np.array([2.0, -3.0, -1.5, 1.0], np.float32)
    g = np.full(4, 3e38, np.float32)
    got = spec_kernel("margin_ranking_loss_backward", backend, specs_dir=folder)(
        grad_output=g, input1=x1, input2=np.zeros_like(x1), target=t, margin=1.0, reduction=1)
    with mpmath.workdps(40):
        d1 = [float(-mpmath.mpf(float(ti)) * float(gi) / 4) if -ti * xi + 1 >= 0 else 0.0
              for xi, ti, gi in zip(x1.tolist(), t.tolist(), g.tolist())]
    for out, want in zip(got, (np.array(d1), -np.array(d1))):
        assert np.all(np.isfinite(out)), out
        assert np.max(ulp_distance(out, want)) <= 1, (out, want)


def test_factors_that_can_vanish_join_the_first_operand_before_numbers_above_one():
    """A factor that is exactly 0 somewhere (max(0, u), min(0, u), a Piecewise with a 0 branch) joins the first
    operand like a bounded one; before it, a number above 1 counts as an operand of any size and follows it
    (2*w formed inf at w = 3e38 before max(0, -x) = 0 joined: nan).  Before a bounded factor the number stays."""
    from codegen.lower import bounded_after_first
    from codegen.rewrite import Sigmoid
    c0, t, x, w, b, s = sympy.symbols("c0 t x w b s", real=True)
    hinge = sympy.Max(0, 1 - t * x)
    assert bounded_after_first([c0, t, hinge]) == [c0, hinge, t]   # SquaredHingeLossBackward's
    assert bounded_after_first([sympy.Integer(2), w, sympy.Max(0, -x)]) == [w, sympy.Max(0, -x), sympy.Integer(2)]
    assert bounded_after_first([sympy.Integer(2), w, sympy.Min(0, x) ** 2]) == [w, sympy.Min(0, x) ** 2,
                                                                             sympy.Integer(2)]
    step = sympy.Piecewise((1, x > 0), (0, True))
    assert bounded_after_first([s, b, step]) == [s, step, b]
    assert bounded_after_first([s, step, Sigmoid(x)]) == [s, step, Sigmoid(x)]   # already after the first: kept
    assert bounded_after_first([sympy.Rational(1, 2), w, sympy.Max(0, -x)]) == [sympy.Rational(1, 2), w,
                                                                                sympy.Max(0, -x)]
    assert bounded_after_first([sympy.Integer(2), w, sympy.Max(1, -x)]) == [sympy.Integer(2), w, sympy.Max(1, -x)]
    big = sympy.Float(1.5957691)   # GeluBackward's: a bounded factor, the number stays first
    assert bounded_after_first([big, b, Sigmoid(-x), s]) == [big, b, Sigmoid(-x), s]


SCALED_RELU = '''
from codegen.spec import *

x, w, g = symbols("self weight gradOutput", real=True)
SPEC = Op(
    name="aclnnScaledReluBackward", forward_name="scaled_relu",
    params=[Tensor("gradOutput", g, role=GRAD, doc=Text("梯度。", "the gradient.")),
            Tensor("self", x, role=FORWARD_INPUT, doc=Text("x。", "x.")),
            Tensor("weight", w, role=OPERAND, doc=Text("w。", "w.")),
            Output("out", doc=Text("x的梯度。", "x's gradient."))],
    wrt=x,
    forward=w * Max(0, -x)**2,
    backward=-2 * g * w * Max(0, -x),
    dtypes={"ascend910b": ["FLOAT"]},
    rules=[DtypeSupported("gradOutput", "self", "weight", "out"), ShapeSame("gradOutput", "self", "weight", "out")],
    description=Text("测试。", "A test."),
)
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_constant_times_a_large_operand_meets_the_zero_of_a_max_first(backend, tmp_path):
    """-2*g*w*max(0, -x) (newops6's smallest case): 2*w formed inf at w = 3e38 before max(0, -x) = 0 joined, nan
    on every backend where the answer is 0; now w*max(0, -x)*2, then g.  Reference: mpmath's derivative of the
    forward w*max(0, -x)^2 (away from its kink)."""
    (tmp_path / "scaled_relu_backward.py").write_text(SCALED_RELU)
    x = np.array([1.0, 2.5, -1e-20, -0.5, 3.0], np.float32)
    w = np.array([3e38, -3.3e38, 3e38, 1.5, 2e38], np.float32)
    g = np.array([0.75, 1.0, -0.5, 2.0, 3e38], np.float32)
    got = spec_kernel("scaled_relu_backward", backend, specs_dir=tmp_path)(grad_output=g, self=x, weight=w)
    with mpmath.workdps(40):
        want = [float(mpmath.mpf(float(gi)) * mpmath.diff(lambda v: float(wi) * mpmath.mpf(max(0, -v)) ** 2,
                                                          mpmath.mpf(float(xi))))
                for xi, wi, gi in zip(x.tolist(), w.tolist(), g.tolist())]
    assert np.all(np.isfinite(got)), (got, want)
    assert np.max(ulp_distance(got, np.array(want).astype(np.float32))) <= 1, (got, want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_squared_hinge_with_a_target_near_max_is_zero_past_the_hinge(backend):
    """SquaredHingeLossBackward (examples/more_specs): (c0*target)*max(0, 1 - t*x)*g, c0 = -2 (reduction none or
    sum), gave -inf*0 = nan on every backend for target > 1.7e38 where t*x >= 1 (the answer, and PyTorch's, is 0);
    now c0*max(...)*target.  Reference: mpmath's derivative of the forward max(0, 1 - t*x)^2."""
    from .conftest import REPO
    folder = REPO / "examples" / "more_specs"
    x = np.array([1.0, 1e-38, -2.0, -1e-39, 0.5], np.float32)
    t = np.array([3e38, 3e38, -3.4e38, 1e38, 1.5], np.float32)
    g = np.array([0.8, -1.0, 0.5, 0.8, 2.0], np.float32)
    got = spec_kernel("squared_hinge_loss_backward", backend, specs_dir=folder)(
        grad_output=g, self=x, target=t, reduction=0)
    with mpmath.workdps(60):
        want = [float(mpmath.mpf(float(gi)) * mpmath.diff(lambda v: mpmath.mpf(max(0, 1 - mpmath.mpf(ti) * v)) ** 2,
                                                          mpmath.mpf(xi)))
                for xi, ti, gi in zip(x.tolist(), t.tolist(), g.tolist())]
    want = np.array(want).astype(np.float32)
    assert got[0] == 0 and got[1] == 0 and got[2] == 0, (got, want)
    assert np.all(np.isfinite(got)) and np.max(ulp_distance(got, want)) <= 2, (got, want)


def test_an_element_is_clamped_where_its_sigmoids_saturate(ops):
    """codegen.saturate: FastGelu's σ(kx)·(1 - kx·(σ(kx) - 1)) and GeGlu's tanh form clamp their element where every
    sigmoid of it is 0 or 1 and the expression is then free of it; SiLU's x·(1 - σ(x)) cannot leave FLOAT, and a
    Swish forward x·σ(x) still depends on x there, so neither is clamped."""
    from codegen.rewrite import Sigmoid
    from codegen.saturate import saturation_clamps
    x, b, g, beta = sympy.symbols("x b g beta", real=True)
    k = sympy.Rational(851, 500)
    assert saturation_clamps(g * (-k * x * (Sigmoid(k * x) - 1) + 1) * Sigmoid(k * x), {x, g}) == {x: 128}
    u = 2 * sympy.sqrt(2 / sympy.pi) * (b + sympy.Rational(44715, 10 ** 6) * b ** 3)
    du = 2 * sympy.sqrt(2 / sympy.pi) * (1 + 3 * sympy.Rational(44715, 10 ** 6) * b ** 2)
    assert saturation_clamps(x * g * (Sigmoid(u) + b * Sigmoid(u) * Sigmoid(-u) * du), {x, b, g}) == {b: 16}
    assert saturation_clamps(g * (x * (1 - Sigmoid(x)) + 1) * Sigmoid(x), {x, g}) == {}   # SiLU: nothing overflows
    assert saturation_clamps(g * 3 * x * Sigmoid(3 * x), {x, g}) == {}                     # depends on x beyond
    assert saturation_clamps(g * (beta * x * (1 - Sigmoid(beta * x)) + 1) * Sigmoid(beta * x), {x, g}) == {}
    body = dict(lower(ops["fast_gelu_backward"]).variants[0].body)
    assert sympy.Max(-128, sympy.Min(128, sympy.Symbol("x", real=True))) in body.values(), body


def _fast_gelu_derivative(k, xs, gs):
    """mpmath's derivative of the forward x·σ(kx), times g, rounded to FLOAT."""
    with mpmath.workdps(40):
        f = lambda v: v / (1 + mpmath.exp(-mpmath.mpf(k) * v))   # noqa: E731
        return np.array([float(mpmath.mpf(float(gi)) * mpmath.diff(f, mpmath.mpf(float(xi))))
                         for xi, gi in zip(xs.tolist(), gs.tolist())]).astype(np.float32)


SATURATING = np.array([3e38, -3e38, 2.1e38, -2.1e38, 3.4028235e38, 1e30, -1e30, 130.0, -130.0, 70.0, -5.0, -0.75,
                       1.5], np.float32)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", ["fast_gelu_backward", "quick_gelu_backward"])
def test_fast_gelu_at_the_largest_inputs_is_g_or_zero(backend, op):
    """FastGeluBackward (and QuickGeluBackward, examples/more_specs, the same slope) formed 1.702x = ±inf for |x| >
    2.0e38, where σ(1.702x) is 0 or 1: inf·0 = nan where the answer is g or 0.  x is now clamped to [-128, 128]
    (codegen.saturate).  Reference: mpmath's derivative of the forward x·σ(1.702x)."""
    from .conftest import REPO
    folder = None if op == "fast_gelu_backward" else REPO / "examples" / "more_specs"
    x = SATURATING
    g = np.resize(np.array([0.75, -1.5, 2.0], np.float32), x.shape)
    got = spec_kernel(op, backend, specs_dir=folder)(grad_output=g, self=x)
    want = _fast_gelu_derivative("1.702", x, g)
    assert np.all(np.isfinite(got)), (got, want)
    assert np.max(ulp_distance(got, want)) <= 4, (got, want)
    assert got[0] == g[0] and got[1] == 0 and got[4] == g[4], got


def _gelu_tanh(v):
    c = mpmath.sqrt(2 / mpmath.pi)
    return v / 2 * (1 + mpmath.tanh(c * (v + mpmath.mpf("0.044715") * v ** 3)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", ["gelu_backward", "gelu_backward_v2"])
def test_gelu_tanh_form_at_the_largest_inputs_is_finite(backend, op):
    """GeluBackward and GeluBackwardV2 (approximate = tanh) have GeGlu's tanh form: nan for |x| >= 1e20 on every
    backend before the clamp to [-16, 16] (the accuracy inputs never sampled it).  Reference: mpmath's derivative of
    the forward x·(1 + tanh(√(2/π)(x + 0.044715x³)))/2."""
    x = SATURATING
    g = np.resize(np.array([0.75, -1.5, 2.0], np.float32), x.shape)
    kw = {"approximate": "tanh"} if op == "gelu_backward_v2" else {}
    got = codegen.kernel(op, backend)(grad_output=g, self=x, **kw)
    with mpmath.workdps(40):
        want = np.array([float(mpmath.mpf(float(gi)) * mpmath.diff(_gelu_tanh, mpmath.mpf(float(xi))))
                         for xi, gi in zip(x.tolist(), g.tolist())]).astype(np.float32)
    assert np.all(np.isfinite(got)), (got, want)
    far = np.abs(x) >= 16
    assert np.array_equal(got[far], want[far]), (got, want)
    assert np.max(ulp_distance(got, want)) <= 8, (got, want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_ge_glu_tanh_form_at_the_largest_inputs_is_finite(backend):
    """GeGluBackward with approximate = 1: b·σ(u)σ(-u)·(1 + 0.134b²) formed b² = inf for |b| > 1.8e19, where
    σ(-u)σ(u) is 0: inf·0 = nan where the answer is a·g or 0.  b is now clamped to [-16, 16].  Reference: mpmath's
    derivative of the forward a·GELU_tanh(b)."""
    bs = SATURATING.copy()
    a = np.resize(np.array([0.5, -2.0, 3e38, 1.0], np.float32), bs.shape)
    g = np.resize(np.array([0.75, -1.5, 1e-30], np.float32), bs.shape)
    gelu = np.zeros_like(bs)
    got = codegen.kernel("ge_glu_backward", backend)(
        grad_output=g[:, None], self=np.stack([a, bs], axis=1), gelu=gelu[:, None], dim=-1, approximate=1)
    with mpmath.workdps(40):
        want = np.array([float(mpmath.mpf(float(gi)) * mpmath.mpf(float(ai)) * mpmath.diff(_gelu_tanh, mpmath.mpf(
            float(bi)))) for ai, bi, gi in zip(a.tolist(), bs.tolist(), g.tolist())]).astype(np.float32)
    assert np.all(np.isfinite(got)), (got, want)
    far = np.abs(bs) >= 16   # where b is clamped: exactly a·g or 0; nearer, the tanh form's own rounding (GELU's)
    assert np.array_equal(got[far, 1], want[far]), (got[:, 1], want)
    assert np.max(ulp_distance(got[:, 1], want)) <= 8, (got[:, 1], want)


def test_a_local_derivative_beyond_float_is_scaled_before_the_gradient_joins():
    """codegen.scaled: L*g, L a product of two factors that can be above 1 and read different values, becomes
    Piecewise((2^32k*((s*L)*g), |L| > max), (L*g, True)) with s = 2^-32 there (else 1), joined first and, where a
    factor is a sum that can leave FLOAT, into its terms too (k = 2), and a Piecewise of such values (WingLoss's
    w*[omega*sign(d)/(eps + |d|) or sign(d)]) counts as one; both branches are L*g in exact arithmetic
    (cancelled, no simplify), the second the old product.  Factors of one value (y*(1 - y)), one large factor
    among bounded ones, and products with a function among their factors (exp, sigmoid) are kept."""
    from codegen.lower import Const
    from codegen.rewrite import Sigmoid
    from codegen.scaled import scale_gradient_products
    g, x, t, w, c0, eps = sympy.symbols("g x t w c0 eps", real=True)
    plain = lambda e: e.replace(lambda a: isinstance(a, Const), lambda a: a.value)   # noqa: E731
    big = Const(sympy.Integer((2**24 - 1) * 2**104))
    mean = [(c0, 1 / sympy.Symbol("numel_self", integer=True, positive=True))]   # c0 = 1/N >= 2^-63: keeps s
    d, omega = x - t, sympy.Symbol("omega", real=True)   # WingLoss's choice among plain values (ovf8)
    wing = sympy.Piecewise((omega * sympy.sign(d) / (eps + sympy.Abs(d)), omega > sympy.Abs(d)), (sympy.sign(d), True))
    for expr, k in [(2 * g * (x - t), 2), (c0 * g * w * x, 1), (g * x / sympy.Max(w, 1), 1),
                    (c0 * g * (1 - t / (x + eps)), 2), (c0 * g * w * wing, 1)]:
        temps, result = scale_gradient_products([], expr, g, mean)
        assert isinstance(result, sympy.Piecewise) and len(temps) == 3, (expr, result)
        (local, old_l), (scale, s), (scaled, product) = temps
        (value, cond), (old, _) = result.args
        assert cond == (sympy.Abs(local) > big) and s == sympy.Piecewise((Const(sympy.Rational(1, 2**32)), cond),
                                                                         (1, True))
        assert value == Const(sympy.Integer(2) ** (32 * k)) * scaled
        assert sympy.cancel(plain(value).xreplace({scaled: product}).xreplace({scale: sympy.Rational(1, 2**32)})
                            - expr) == 0, expr
        assert sympy.expand(product.xreplace({scale: 1}) - expr) == 0      # s = 1: the product itself
        assert sympy.expand(old.xreplace({local: old_l}) - expr) == 0 and split_last(old, {g}) is None
        assert split_last(product, {g})[1] == g                            # the scaled local derivative, then g
    # a sum that can leave FLOAT beside a factor that reads a tensor (a weight, which may be 1e-40): that factor's
    # product F a temporary, scaled (s_F = 2^-32, and 2^32 back) only where beyond and |F| > 1, else s_F = 1
    expr = g * w * (x - t)
    temps, result = scale_gradient_products([], expr, g)
    (local, old_l), (scale, s), (f, f_def), (scale_f, s_f), (scaled, product) = temps
    (value, cond), (old, _) = result.args
    above = cond & (sympy.Abs(f) > 1)
    assert f_def == w and s_f == sympy.Piecewise((Const(sympy.Rational(1, 2**32)), above), (1, True))
    assert value == Const(sympy.Integer(2) ** 32) * scaled * sympy.Piecewise((Const(sympy.Integer(2) ** 32), above),
                                                                             (1, True))
    for taken in (True, False):   # s_F and its inverse chosen together
        sf, back = (sympy.Rational(1, 2**32), 2**32) if taken else (1, 1)
        v = plain(value.xreplace({scaled: product})).xreplace({scale: sympy.Rational(1, 2**32), scale_f: sf})
        v = v.replace(lambda a: isinstance(a, sympy.Piecewise), lambda a: back)
        assert sympy.cancel(v - expr) == 0, (taken, v)
    assert sympy.expand(old.xreplace({local: old_l}) - expr) == 0 and split_last(product, {g})[1] == g
    for kept in [g * Sigmoid(x) * (x + 1), g * x * sympy.Rational(1, 2), g * x, Sigmoid(x) * sympy.tanh(t) * g,
                 g * x * (1 - x), g * w * Sigmoid(x), c0 * g * sympy.exp(Sigmoid(t)) * (t - x + 1)]:
        assert scale_gradient_products([], kept, g) == ([], kept), kept


def test_an_exp_factor_of_a_scaled_local_derivative_is_one_temporary_in_its_old_place():
    """KlDivTargetBackward's c0*(t - x + 1)*exp(t)*g (logTarget) left FLOAT before |g| < 1 joined: codegen.scaled now
    takes an exp of a plain value among L's factors, as one temporary (HeldExp) that L and the scaled product read
    (one exp, as before), and that sorts in a product where the exp did, after the sum: the old product's factor
    order, so its bits, wherever L is finite.  Both branches are L*g (cancelled, no simplify)."""
    from codegen.lower import Const
    from codegen.scaled import HeldExp, scale_gradient_products
    g, x, t, c0 = sympy.symbols("g x t c0", real=True)
    expr = c0 * g * sympy.exp(t) * (t - x + 1)
    temps, result = scale_gradient_products([], expr, g)
    (held, e), (local, old_l) = temps[:2]
    assert isinstance(held, HeldExp) and e == sympy.exp(t)
    assert old_l == c0 * held * (t - x + 1) and not any(d.has(sympy.exp) for _, d in temps[1:])
    assert old_l.as_ordered_factors() == [c0, t - x + 1, held]      # as c0*(t - x + 1)*exp(t) printed
    assert (c0 * sympy.exp(t) * (t - x + 1)).as_ordered_factors() == [c0, t - x + 1, sympy.exp(t)]
    (value, cond), (old, _) = result.args
    assert old == local * g and cond == (sympy.Abs(local) > Const(sympy.Integer((2**24 - 1) * 2**104)))
    defs = dict(temps)
    plain = lambda v: v.replace(lambda a: isinstance(a, Const), lambda a: a.value)   # noqa: E731
    scales = {s: sympy.Rational(1, 2**32) for s in defs if s.name.startswith("_scale")}
    for taken in (True, False):   # the sum's terms scaled; c0*exp(t) (its product F) scaled with its inverse or not
        v = value
        for _ in range(4):
            v = v.xreplace({s: d for s, d in defs.items() if not s.name.startswith("_scale")})
        v = plain(v).xreplace({s: (sympy.Rational(1, 2**32) if taken or s == min(scales, key=str) else 1)
                               for s in scales})
        v = v.replace(lambda a: isinstance(a, sympy.Piecewise), lambda a: 2**32 if taken else 1)
        assert sympy.cancel(v.xreplace({held: sympy.exp(t)}) - expr) == 0, (taken, v)


def test_float16_inputs_keep_a_scaled_local_derivative_within_float():
    """codegen.scaled.in_float_from_float16: with every tensor a FLOAT16 element (|v| <= 65504), 2*(x - t) and
    w*(x - t) stay within FLOAT (the C kernel's FLOAT16 copy computes the plain products); a scalar among the
    factors (up to FLOAT's largest) or a high power of a tensor can still leave it."""
    from codegen.scaled import in_float_from_float16, scale_gradient_products
    g, x, t, w, a = sympy.symbols("g x t w a", real=True)
    for expr, tensors, stays in [(2 * g * (x - t), [g, x, t], True), (g * w * (x - t), [g, w, x, t], True),
                                 (a * g * w * (x - t), [g, w, x, t], False), (g * x**9 * (x - t), [g, x, t], False),
                                 (g * w * (x - t), [g, x, t], False)]:
        temps, result = scale_gradient_products([], expr, g)
        assert isinstance(result, sympy.Piecewise), expr
        assert in_float_from_float16(temps, result, [], tensors) is stays, expr
    assert not in_float_from_float16([], 2 * g * (x - t), [], [g, x, t])   # no scaled product: no copy


def _scaled_case(name, dtype):
    """(kernel keywords, mpmath reference) where the local derivative leaves FLOAT and |g| < 1 brings the result
    back: the reference is the forward's derivative (mpmath.diff), times g."""
    t_ = np.float32 if dtype == "FLOAT" else ml_dtypes.bfloat16
    big = float(ml_dtypes.finfo(t_).max)
    a = lambda *v: np.array(v, dtype=t_)   # noqa: E731
    m = lambda v: mpmath.mpf(float(v))     # noqa: E731
    if name in ("mse_loss_grad", "weighted_mse_loss_backward"):
        kw = dict(grad_output=a(0.15, -0.002, -0.45, 1.5), self=a(big, -3.5, -big, 0.5),
                  target=a(0.75, 0.9 * big, 0.85, 0.25), reduction="none")
        if name == "weighted_mse_loss_backward":
            kw["weight"] = a(0.5, 0.875, 0.75, 0.9 * big)
            # x - t beyond FLOAT beside a small weight (review21): 2^-32 times w was 0 (w = 1e-40) and 10 ulp off
            # (w = 1.2e-30) where the result is 0.12 and 1.5e-9
            for key, more in (("grad_output", (1.0, 1.0)), ("self", (0.9 * big, 0.9 * big)),
                              ("target", (-0.9 * big, -0.9 * big)), ("weight", (1e-40, 1.2345678e-30))):
                kw[key] = np.concatenate([kw[key], a(*more)])
        wt = kw.get("weight", a(1, 1, 1, 1))

        def ref(i):
            return m(kw["grad_output"][i]) * mpmath.diff(lambda v: m(wt[i]) * (v - m(kw["target"][i])) ** 2,
                                                         m(kw["self"][i]))
    elif name == "gaussian_nll_loss_grad":
        kw = dict(grad_output=a(-0.26, 0.1, 0.75), input=a(big, -big, 1.0), target=a(0.36, 0.08, 0.5),
                  var=a(0.35, 0.15, 2.0), full=False, eps=1e-6, reduction="none")

        def ref(i):
            vc = max(m(kw["var"][i]), mpmath.mpf(1e-6))
            return m(kw["grad_output"][i]) * mpmath.diff(
                lambda v: (mpmath.log(vc) + (v - m(kw["target"][i])) ** 2 / vc) / 2, m(kw["input"][i]))
    elif name == "huber_loss_backward":   # mean over 4: g*w*e or g*w*delta*sign(e) left FLOAT before the 1/4
        kw = dict(grad_output=a(big, big, 0.77, -0.88), self=a(3.08, 10, -4.5, -2), target=a(0.86, 0.53, 0.9, 0.34),
                  weight_optional=a(0.93, 0.75, 0.9 * big, 0.9 * big), reduction=1, delta=3.0)

        def ref(i):
            w, t = m(kw["weight_optional"][i]), m(kw["target"][i])
            huber = lambda e: e * e / 2 if abs(e) <= 3 else 3 * (abs(e) - mpmath.mpf(3) / 2)   # noqa: E731
            return m(kw["grad_output"][i]) * mpmath.diff(lambda v: w * huber(v - t) / 4, m(kw["self"][i]))
    elif name == "kl_div_target_backward":   # logTarget: c0*(t - x + 1)*exp(t) beyond FLOAT, the result is not
        kw = dict(grad_output=a(0.005, 0.05, -0.0375, 0.7), self=a(0.5, -0.9 * big, 2.5, 1.25),
                  target=a(88.5, 2.0, 87.0, 0.3125), reduction=0, log_target=True)

        def ref(i):
            return m(kw["grad_output"][i]) * mpmath.diff(lambda v: mpmath.exp(v) * (v - m(kw["self"][i])),
                                                         m(kw["target"][i]))
    else:   # poisson_nll_loss_backward, logInput false: the forward x - t*log(x + eps); 0*inf was nan
        kw = dict(grad_output=a(-0.1, 0.0, 0.25, 1.5), self=a(0.25, 0.5, 2.0 ** -130, 2.0),
                  target=a(0.9 * big, 0.9 * big, 0.7, 3.0), log_input=False, full=False, eps=0.0, reduction=0)

        def ref(i):
            eps = mpmath.mpf(kw["eps"])
            return m(kw["grad_output"][i]) * mpmath.diff(lambda v: v - m(kw["target"][i]) * mpmath.log(v + eps),
                                                         m(kw["self"][i]))
    with mpmath.workdps(60):
        want = np.array([float(ref(i)) for i in range(len(kw["grad_output"]))]).astype(t_)
    return kw, want


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name, folder", [("mse_loss_grad", "examples/experimental_specs"),
                                          ("gaussian_nll_loss_grad", "examples/experimental_specs"),
                                          ("weighted_mse_loss_backward", "examples/more_specs"),
                                          ("poisson_nll_loss_backward", "examples/more_specs"),
                                          ("huber_loss_backward", "examples/more_specs"),
                                          ("kl_div_target_backward", "specs")])
def test_a_local_derivative_beyond_float_times_a_small_gradient_is_finite(name, folder, backend):
    """MseLossGrad's 2*(x - t), WeightedMseLoss's 2*w*(x - t) and GaussianNllLossGrad's (x - t)/max(eps, var) at
    x, w or t near FLOAT's largest were ±inf before |g| < 1 joined (the gradient last on purpose), FLOAT and
    BFLOAT16 alike; PoissonNllLoss's 1 - t/(x + eps) itself left FLOAT (t = 3e38, or x + eps subnormal), and was nan
    at g = 0 where the result is 0.  codegen.scaled: now the
    scaled product.  HuberLossBackward (mean) formed g*w*e and g*w*delta*sign(e) before the 1/N, outside its
    Piecewise: now c*g first (`scalars_into_branches`), w*e and delta*w*sign(e) scaled.  KlDivTargetBackward's
    c0*(t - x + 1)*exp(t) (logTarget) at t = 88.5 or x = -3e38: now scaled too, the exp one temporary.  Reference:
    mpmath's derivative of the forward."""
    from .conftest import REPO
    kernel = spec_kernel(name, backend, specs_dir=REPO / folder)
    for dtype in ["FLOAT", "BFLOAT16"]:
        kw, want = _scaled_case(name, dtype)
        got = kernel(**kw)
        got = got[0] if isinstance(got, tuple) else got
        assert np.all(np.isfinite(got.astype(np.float64))), (dtype, got, want)
        assert np.max(ulp_distance(got, want)) <= (2 if dtype == "FLOAT" else 1), (dtype, got, want)


def test_a_gradient_inside_a_sum_beyond_float_is_scaled_there():
    """codegen.scaled: a product whose gradient is inside a sum factor that can leave FLOAT (SoftmaxGrad's
    y*(dy - r)) becomes Piecewise((2^32*(y*(s*dy - s*r)), |S| > max), (y*S, True)), S = dy - r a temporary and
    s = 2^-32 where |S| > max, else 1: both branches are the product (cancelled, no simplify), the second the old
    one.  A sum without the gradient, or of one value, is left to the rule for L*g."""
    from codegen.lower import Const
    from codegen.scaled import scale_gradient_products
    dy, y, r, c0 = sympy.symbols("dy y r0 c0", real=True)
    plain = lambda e: e.replace(lambda a: isinstance(a, Const), lambda a: a.value)   # noqa: E731
    for expr in [y * (dy - r), c0 * (dy * y - r * y)]:
        temps, result = scale_gradient_products([], expr, dy)
        (total, s_def), (scale, s), (scaled, product) = temps
        (value, cond), (old, _) = result.args
        assert cond == (sympy.Abs(total) > Const(sympy.Integer((2**24 - 1) * 2**104)))
        assert s == sympy.Piecewise((Const(sympy.Rational(1, 2**32)), cond), (1, True))
        assert sympy.expand(old.xreplace({total: s_def}) - expr) == 0 and s_def in (dy - r, dy * y - r * y)
        assert sympy.cancel(plain(value).xreplace({scaled: product}).xreplace({scale: sympy.Rational(1, 2**32)})
                            - expr) == 0, expr
    for kept in [y * (1 - y) * dy, dy * (1 - y)]:   # one value's sum; the gradient a factor of its own: L*g
        assert scale_gradient_products([], kept, dy) == ([], kept), kept


@pytest.mark.parametrize("backend", BACKENDS)
def test_softmax_grad_where_dy_minus_the_row_sum_leaves_float(backend):
    """SoftmaxGrad (examples/experimental_specs) dx = y*(dy - sum(dy*y)): at dy = -max beside a row sum of 1e33,
    dy - r was -inf where y = 2^-40 brings dx back to -3.1e26 (FLOAT); now scaled there.  The other row is
    ordinary.  Reference: PyTorch's float64 autograd of softmax at z = log(y) (y/sum(y), within 1e-12 of y).
    (The row's other element, dy - r for dy ~ r ~ 1e33, cancels in every order: not checked.)"""
    torch = pytest.importorskip("torch")
    from .conftest import REPO
    kernel = spec_kernel("softmax_grad", backend, specs_dir=REPO / "examples/experimental_specs")
    big = float(np.finfo(np.float32).max)
    y = np.array([[2.0 ** -40, 1.0], [0.25, 0.75]], np.float32)
    dy = np.array([[-big, 1e33], [0.5, -1.5]], np.float32)
    got = np.asarray(kernel(y=y, dy=dy))
    z = torch.log(torch.from_numpy(y.astype(np.float64))).requires_grad_()
    torch.softmax(z, -1).backward(torch.from_numpy(dy.astype(np.float64)))
    want = z.grad.numpy().astype(np.float32)
    checked = np.array([[True, False], [True, True]])
    assert np.all(np.isfinite(got[checked])), got
    assert np.max(ulp_distance(got[checked], want[checked])) <= 2, (got, want)


def test_elu_exp_factor_beyond_float_has_the_scaled_bits_on_every_c_path(monkeypatch):
    """EluBackward (isResult false): L = c0*exp(s*x) leaves FLOAT at alpha = 1e30, x < -16 (up to 2.4e47 here, within
    the 2^32 scale's reach) where |g| < 1e-25 brings the result back.  The C kernel computes the plain products
    with a test of each result and the scaled loop only for a block (FLOAT16/BFLOAT16: a 64-element chunk) with a
    result that is not finite (opsource._plain_form, _plain_first): blocks that mix such elements, finite ones,
    g = 0 (inf*0 = nan in the plain product, 0 scaled), g = inf and x = nan.  Every finite exact result is finite
    and within 2 ulp of PyTorch's float64 autograd of aten::elu, and in place, by rows, strided and on two threads
    the bits are the contiguous call's (review22)."""
    torch = pytest.importorskip("torch")
    from .kernels import kernel
    c = kernel("elu_backward", "c")
    rng = np.random.default_rng(22)
    n = 5000   # many blocks (chunks) and a part
    x = -rng.uniform(0, 40, n)
    g = rng.uniform(-1, 1, n) * 10.0 ** rng.uniform(-36, -25, n)
    g[::97] = 0.0
    x[::89] = rng.uniform(0, 3, x[::89].size)   # the other branch, g*scale
    g[1234], x[4321] = np.inf, np.nan
    args = dict(alpha=1e30, scale=1.0, input_scale=-1.0, is_result=False)
    for dtype, tol in ((np.float32, 2), (ml_dtypes.bfloat16, 1)):
        gd, xd = g.astype(dtype), x.astype(dtype)
        xt = torch.from_numpy(xd.astype(np.float64)).requires_grad_()
        torch.ops.aten.elu(xt, 1e30, 1.0, -1.0).backward(torch.from_numpy(gd.astype(np.float64)))
        with np.errstate(over="ignore"):
            want = xt.grad.numpy().astype(dtype)
        got = c(grad_output=gd, self_or_result=xd, **args)
        exact = np.isfinite(want.astype(np.float64))
        assert exact.sum() == n - 2 and np.all(np.isfinite(got[exact].astype(np.float64))), dtype
        assert np.max(ulp_distance(got[exact], want[exact])) <= tol, dtype
        assert np.isinf(got[1234].astype(np.float64)) and np.isnan(got[4321].astype(np.float64))
        bits = f"u{np.dtype(dtype).itemsize}"
        same = lambda other: np.array_equal(np.asarray(other).reshape(-1).view(bits), got.view(bits))  # noqa: E731
        inplace = gd.copy()
        assert same(c(grad_output=inplace, self_or_result=xd, out=inplace, **args)), dtype
        assert same(c(grad_output=gd.reshape(50, 100), self_or_result=xd.reshape(50, 100), **args)), dtype
        assert same(c(grad_output=gd[::-1], self_or_result=xd[::-1], **args)[::-1]), dtype
        monkeypatch.setenv("OPGEN_NUM_THREADS", "2")
        assert same(c(grad_output=gd, self_or_result=xd, **args)), dtype
        monkeypatch.delenv("OPGEN_NUM_THREADS")


@pytest.mark.parametrize("rows, n", [(9, 64), (3, 3000)])
def test_softmax_grad_with_a_row_beyond_float_among_ordinary_rows(rows, n):
    """The C row finishes compute the plain products first and the scaled form only for a block whose result is
    not finite (opsource._plain_first): a row where dy - r leaves FLOAT (dy = -max at y = 2^-40, the rest 1e33)
    between ordinary rows, packed rows of 64 (finish_row a row) and wide rows of 3000 (OPGEN_WIDE_ROW).  That row's
    element comes back finite (-3.1e26) and every element of the rows before and after it is right.  Reference:
    PyTorch's float64 autograd of softmax at z = log(y); within 4 ulp of the larger of y*dy and y*r (the
    subtraction's own cancellation), plus what y/sum(y) differs from y by.  (The overflow row's other elements
    cancel in every order: not checked.)  Fails with the scaled loop never run (-inf there)."""
    torch = pytest.importorskip("torch")
    from .conftest import REPO
    kernel = spec_kernel("softmax_grad", "c", specs_dir=REPO / "examples/experimental_specs")
    rng = np.random.default_rng(27)
    big, at = float(np.finfo(np.float32).max), rows // 2
    y = rng.uniform(0.5, 1.5, (rows, n))
    y /= y.sum(-1, keepdims=True)
    dy = rng.standard_normal((rows, n))
    y[at], dy[at] = 1.0 / n, 1e33
    y[at, 3], y[at, 4], dy[at, 3] = 2.0 ** -40, 2.0 / n, -big   # (a row summing to 1 + 2^-40: softmax(log y) = y)
    y, dy = y.astype(np.float32), dy.astype(np.float32)
    got = np.asarray(kernel(y=y, dy=dy))
    z = torch.log(torch.from_numpy(y.astype(np.float64))).requires_grad_()
    torch.softmax(z, -1).backward(torch.from_numpy(dy.astype(np.float64)))
    want = z.grad.numpy()
    y64 = y.astype(np.float64)
    r = (dy * y64).sum(-1, keepdims=True)
    off = np.abs(y64.sum(-1, keepdims=True) - 1)   # (the FLOAT rows sum to 1 within a few 2^-24)
    bound = (4 * 2.0 ** -24 + 3 * off) * np.maximum(np.abs(dy * y64), np.abs(r * y64))
    checked = np.ones((rows, n), bool)
    checked[at] = False
    checked[at, 3] = True
    assert np.all(np.isfinite(got[checked])), got[at, :8]
    assert np.all(np.abs(got - want)[checked] <= bound[checked]), np.argwhere((np.abs(got - want) > bound) & checked)
    assert ulp_distance(got[at, 3:4], want[at, 3:4].astype(np.float32))[0] <= 2, (got[at, 3], want[at, 3])
