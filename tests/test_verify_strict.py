"""Stricter verification (issue 29, item 5): a backward must be the derivative of the forward wherever the forward
is differentiable, branch points included; where it is not, the spec declares the kernel's value (`at=`) and the
proof checks the backward gives exactly that.  The specs are written with codegen.fuzz.specfile (x, gradOutput,
alpha > 0, beta) or live in tests/regression/."""
from __future__ import annotations

import pytest
import sympy
from sympy import Abs, Eq, Piecewise, Rational, exp, log, sign

import codegen
from codegen.fuzz.specfile import ALPHA, G, X, single_source
from codegen.verify import proof, verify_op

from .conftest import TESTS

REGRESSION = TESTS / "regression"


def _op(tmp_path, forward, backward, at=None, stem="strict_backward"):
    folder = tmp_path / stem
    folder.mkdir(exist_ok=True)
    (folder / f"{stem}.py").write_text(single_source(stem, forward, backward, at or {}, "tests"))
    return codegen.load_specs(folder)[stem]


def _failed(op):
    return [r for r in verify_op(op, numeric=False) if not r.ok]


def test_an_extra_branch_where_the_forward_jumps_fails_naming_the_point(ops):
    """The issue's threshold backward with `(5*gradOutput, Eq(x, threshold))` verified on main as a "convention"."""
    op = codegen.load_specs(REGRESSION / "threshold_extra_branch")["threshold_backward"]
    failed = _failed(op)
    assert [r.check for r in failed] == ["x = threshold"]
    assert "not differentiable" in failed[0].detail and "5*gradOutput" in failed[0].detail
    assert "at={Eq(x, threshold): ...}" in failed[0].detail


def test_a_declared_value_at_a_jump_verifies_and_must_be_exact(tmp_path):
    op = codegen.load_specs(REGRESSION / "threshold")["threshold_backward"]
    results = verify_op(op, numeric=False)
    assert all(r.ok for r in results)
    assert [r.verdict for r in results if r.check == "x = threshold"] == ["convention"]
    text = (REGRESSION / "threshold" / "threshold_backward.py").read_text().replace("at={Eq(x, th): 0}",
                                                                                      "at={Eq(x, th): g}")
    (tmp_path / "threshold_backward.py").write_text(text)
    failed = _failed(codegen.load_specs(tmp_path)["threshold_backward"])
    assert [r.check for r in failed] == ["x = threshold"]
    assert "the spec declares gradOutput here" in failed[0].detail


def test_softshrink_without_its_declaration_fails_at_both_kinks(tmp_path):
    text = (TESTS.parent / "specs" / "softshrink_backward.py").read_text()
    assert "    at={Eq(Abs(x), lam): 0},\n" in text
    (tmp_path / "softshrink_backward.py").write_text(text.replace("    at={Eq(Abs(x), lam): 0},\n", ""))
    failed = _failed(codegen.load_specs(tmp_path)["softshrink_backward"])
    checks = {(r.formula, r.check) for r in failed}
    assert {("lambda > 0", "x = lambda"), ("lambda > 0", "x = -lambda")} <= checks
    # with lambda = 0 the forward is the identity: differentiable at 0, and the backward's 0 is not its derivative
    assert ("lambda = 0", "x = 0") in checks


def test_a_kink_of_abs_is_a_branch_point_too(tmp_path):
    """Abs(x - 1): on main the proof saw one smooth piece and never asked what the backward gives at x = 1."""
    f = Abs(X - 1) * ALPHA
    failed = _failed(_op(tmp_path, f, G * ALPHA * sign(X - 1)))
    assert [r.check for r in failed] == ["x = 1"] and failed[0].undeclared == ["1", "0"]
    assert not _failed(_op(tmp_path, f, G * ALPHA * sign(X - 1), {sympy.Integer(1): 0}, "declared_backward"))


def test_smooth_joins_need_no_declaration_but_must_give_the_derivative(tmp_path):
    """Huber-like: branches join with equal derivatives at |x| = 1, so the backward must give g*sign(x) there."""
    f = Piecewise((X ** 2 / 2, Abs(X) <= 1), (Abs(X) - Rational(1, 2), True))
    good = G * Piecewise((X, Abs(X) <= 1), (sign(X), True))
    results = verify_op(_op(tmp_path, f, good), numeric=False)
    assert all(r.ok for r in results)
    joins = [r for r in results if r.check in ("x = 1", "x = -1")]
    assert len(joins) == 2 and all(r.verdict == "proven" and "differentiable here" in r.detail for r in joins)
    bad = G * Piecewise((0, Eq(X, 1)), (X, Abs(X) <= 1), (sign(X), True))
    failed = _failed(_op(tmp_path, f, bad, stem="bad_join_backward"))
    assert [r.check for r in failed] == ["x = 1"]
    assert "differentiable here with derivative gradOutput" in failed[0].detail


def test_a_switch_not_linear_in_x(tmp_path):
    """exp(x) > 2 switches at x = log(2) (SymPy's solveset); the kink there must be declared."""
    f = Piecewise((exp(X), exp(X) > 2), (2, True))
    failed = _failed(_op(tmp_path, f, G * Piecewise((exp(X), exp(X) > 2), (0, True))))
    assert [r.check for r in failed] == ["x = log(2)"]
    assert not _failed(_op(tmp_path, f, G * Piecewise((exp(X), exp(X) > 2), (0, True)), {log(2): 0}, "ok_backward"))


def test_nested_kinks_fold_into_branches(tmp_path):
    """|(|x - 1| - 2)| switches at -1, 1 and 3: the inner kink's branches decide where the outer one switches."""
    f = Abs(Abs(X - 1) - 2) * ALPHA
    back = G * ALPHA * sign(Abs(X - 1) - 2) * sign(X - 1)
    declared = {sympy.Integer(-1): 0, sympy.Integer(1): 0, sympy.Integer(3): 0}
    assert not _failed(_op(tmp_path, f, back, declared))
    failed = _failed(_op(tmp_path, f, back, {sympy.Integer(-1): 0, sympy.Integer(3): 0}, "undeclared_backward"))
    assert [r.check for r in failed] == ["x = 1"]


def test_a_kink_inside_a_transcendental_kink_fails_at_once_rather_than_hangs(tmp_path):
    """Fuzz seed 38: SymPy's piecewise_fold simplified the outer kink's condition (it held the inner kink's
    Piecewise) for over half an hour.  Folded innermost first, the proof gets to the outer condition at once, and
    says it cannot tell where that one switches."""
    inner = exp(sympy.tanh((X - ALPHA) * Abs(ALPHA * X - 1)))
    f = (inner - 1) * Abs(1 + ALPHA - inner)
    failed = _failed(_op(tmp_path, f, G * sympy.diff(f, X)))
    assert [r.check for r in failed] == ["branch points"]
    assert "cannot find where it switches" in failed[0].detail


# Fuzz seed 2323 (log1p of a Piecewise): the backward minus the derivative at the kink x = alpha, as the proof
# met it (0: a rational function of two scalars, nested four deep)
NESTED_ZERO = (
    "-gradOutput*(8*alpha_t*(4*alpha_t/((alpha_t + 1)*(-2*alpha_t/(alpha_t + 1) + 2)*(2*alpha_t/((alpha_t"
    " + 1)*(-2*alpha_t/(alpha_t + 1) + 2)) + 1)) + beta)**2*(16*alpha_t**2/((alpha_t + 1)**2*(-2*alpha_t/"
    "(alpha_t + 1) + 2)**2*(2*alpha_t/((alpha_t + 1)*(-2*alpha_t/(alpha_t + 1) + 2)) + 1)**2) - 1)/((alph"
    "a_t + 1)*(-2*alpha_t/(alpha_t + 1) + 2)*(2*alpha_t/((alpha_t + 1)*(-2*alpha_t/(alpha_t + 1) + 2)) + "
    "1)) + (8*alpha_t/((alpha_t + 1)*(-2*alpha_t/(alpha_t + 1) + 2)*(2*alpha_t/((alpha_t + 1)*(-2*alpha_t"
    "/(alpha_t + 1) + 2)) + 1)) + 2*beta)*(16*alpha_t**2/((alpha_t + 1)**2*(-2*alpha_t/(alpha_t + 1) + 2)"
    "**2*(2*alpha_t/((alpha_t + 1)*(-2*alpha_t/(alpha_t + 1) + 2)) + 1)**2) - 1)**2)/((4*alpha_t/((alpha_"
    "t + 1)*(-2*alpha_t/(alpha_t + 1) + 2)*(2*alpha_t/((alpha_t + 1)*(-2*alpha_t/(alpha_t + 1) + 2)) + 1)"
    ") + beta)**2*(16*alpha_t**2/((alpha_t + 1)**2*(-2*alpha_t/(alpha_t + 1) + 2)**2*(2*alpha_t/((alpha_t"
    " + 1)*(-2*alpha_t/(alpha_t + 1) + 2)) + 1)**2) - 1)**2 + 1) + gradOutput*(4*alpha_t*(2*alpha_t/(alph"
    "a_t + 1) + beta)**2*(4*alpha_t**2/(alpha_t + 1)**2 - 1)/(alpha_t + 1) + (4*alpha_t/(alpha_t + 1) + 2"
    "*beta)*(4*alpha_t**2/(alpha_t + 1)**2 - 1)**2)/((2*alpha_t/(alpha_t + 1) + beta)**2*(4*alpha_t**2/(a"
    "lpha_t + 1)**2 - 1)**2 + 1)"
)


def test_a_zero_rational_function_nested_deep_is_found_by_cancelling_not_expanding():
    """`expand` multiplied NESTED_ZERO out for more than four minutes; cancel(together()) says 0 in 0.06 s."""
    a, b, g = sympy.symbols("alpha_t beta gradOutput", real=True)
    expr = sympy.sympify(NESTED_ZERO, locals={"alpha_t": a, "beta": b, "gradOutput": g})
    assert expr != 0 and expr.is_rational_function()
    assert proof.is_zero(expr)
    assert not proof.is_zero(expr + g * a / (a + 7))


def test_a_tiny_nonzero_difference_is_visibly_nonzero():
    """Fuzz seed 2323: the one-sided derivatives of exp(tanh(...)) at a kink differ by 1e-17..1e-35 at the sample
    points ((1 - tanh(u)^2) of a large u), below the 1e-15 taken for round-off; 60 digits confirm the value, so
    the proof learns at once that the forward has a kink there instead of running `simplify` for minutes.  A zero
    with round-off of its own stays unproven-nonzero."""
    a = sympy.Symbol("alpha_t", positive=True)
    c = a - Rational(1, 3) + 2 * sympy.E / 3
    left = (1 - sympy.tanh((3 * a / 2 + sympy.E) * (c ** 2 - 1)) ** 2) * sympy.exp(sympy.tanh((3 * a / 2 + sympy.E) * (c ** 2 - 1)))
    right = 2 * (1 - sympy.tanh(c ** 3) ** 2) * c ** 2 * exp(sympy.tanh(c ** 3))
    assert proof._visibly_nonzero(left - right)
    assert not proof._visibly_nonzero(exp(-100 * a ** 4) * (sympy.tanh(a) ** 2 + 1 / sympy.cosh(a) ** 2 - 1))
    assert not proof._visibly_nonzero((exp(a) + 1) ** 2 - exp(2 * a) - 2 * exp(a) - 1)


def test_a_declared_point_where_nothing_switches_fails(tmp_path):
    """A value declared where the forward is differentiable is a claim the docs and the accuracy reference read:
    it must be the derivative (and even then, declaring it is a typo the proof names)."""
    failed = _failed(_op(tmp_path, Abs(X), G * sign(X), {sympy.Integer(0): 0, sympy.Integer(3): 0}))
    assert [r.check for r in failed] == ["x = 3 (declared)"]
    assert "differentiable here and the backward gives its derivative gradOutput" in failed[0].detail
    failed = _failed(_op(tmp_path, Abs(X), G * sign(X), {sympy.Integer(0): 0, sympy.Integer(3): G}))
    assert [r.check for r in failed] == ["at Eq(x, 3)"]
    assert "no case of the proof has a branch point there" in failed[0].detail


def test_a_formula_cannot_borrow_another_formulas_kink(tmp_path):
    """(fuzz seed 7) in a batch, formula 1 declared x = 1, a kink of formula 2 only (and its own kink 1/alpha
    at alpha = 1): the proof matched declared points against every formula's branch points, so the value 0 at
    x = 1 verified, while for alpha = 2 the derivative there is 2*gradOutput."""
    from codegen.fuzz.specfile import batch_source
    fa, fb = Abs(ALPHA * X - 1), Abs(X - ALPHA) + Abs(X - 1)
    one = sympy.Integer(1)
    forms = [(fa, G * ALPHA * sign(ALPHA * X - 1), {1 / ALPHA: 0, one: 0}),
             (fb, G * (sign(X - ALPHA) + sign(X - 1)), {ALPHA: 0, one: 0})]
    folder = tmp_path / "borrow_backward"
    folder.mkdir()
    (folder / "borrow_backward.py").write_text(batch_source("borrow_backward", forms, "tests"))
    failed = _failed(codegen.load_specs(folder)["borrow_backward"])
    assert [(r.formula, r.check) for r in failed if r.formula.startswith("f0=false")] == \
        [("f0=false, alpha > 0", "x = 1 (declared)")]
    assert "not a branch point of this case for every value of its scalars" in failed[0].detail


@pytest.mark.parametrize("at, message", [("{x: 0}", "is not Eq(x, point)"),
                                         ("{Eq(x**2, 1): 0}", "does not name a point of x"),
                                         ("{Eq(x, 1): mu}", "undefined symbol")])
def test_a_malformed_declaration_is_a_spec_error_at_its_line(tmp_path, at, message):
    text = single_source("strict_backward", Abs(X - 1), G * sign(X - 1), {sympy.Integer(1): 0}, "tests")
    text = text.replace("at={Eq(x, 1): 0}", f"at={at}").replace('symbols("alpha beta"', 'symbols("alpha beta"')
    if "mu" in at:
        text = text.replace("alpha, beta = symbols(", "mu = Symbol('mu')\nalpha, beta = symbols(")
    (tmp_path / "strict_backward.py").write_text(text)
    with pytest.raises(codegen.SpecError) as info:
        codegen.load_specs(tmp_path)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if t.strip().startswith("at="))
    assert message in str(info.value) and f"strict_backward.py:{line}:" in str(info.value)


def test_the_seed_specs_declare_their_kinks(ops):
    assert ops["softshrink_backward"].at and ops["elu_backward"].at
    for name in ("softshrink_backward", "elu_backward"):
        lines = verify_op(ops[name], numeric=False, use_cache=True)
        assert all(r.ok for r in lines)
        assert any(r.verdict == "convention" for r in lines)
