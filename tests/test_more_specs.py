"""The specs of examples/more_specs/: seven operators written from the README and the pages it links alone (session
16), chosen to stress different parts of the language: CELU (a double attribute the forward divides by),
Relu6Grad (CANN's kernel-only names, "same shape or one element", kinks), HuberLossBackward (an optional weight,
an int64 reduction, a double delta with a Requires), SigmoidCrossEntropyWithLogitsGrad (CANN's kernel-only op,
also on the 950), TanhshrinkBackward (half precision only), SoftminBackward (a row reduction from the forward's
output) and MarginRankingLossBackward (two outputs, an operand coefficient in the branch, a kink declared per
output); then (newops3) QuickGeluBackward (1.702 written exactly), SqrtGrad (the forward's output y, the domain
x > 0 as a `positive=True` symbol), PoissonNllLossBackward (a bool choosing the form, eps, reduction) and
HingeEmbeddingLossBackward (the target, ±1, selects the form: a condition on an operand alone) and
MultilabelSoftMarginLossBackward (a mean over the class axis: `dim_size("self", 1)` in the forward); then (newops4,
session 17) DropoutBackward (a BOOL mask and p in [0, 1), no tensor holding x), RsqrtGrad and ReciprocalGrad from
their output (1/x on both half-lines: `nonzero=True`), AtanGrad (a forward-only SymPy function), AsinhGrad (a
rewrite reading |y|) and SigmoidFocalLossBackward (a power by the attribute gamma, alpha < 0 for no weighting);
then (newops5, session 18) ErfGrad (2/sqrt(pi) printed once), AcosGrad and Log1pGrad (a forward real on part of
the line: |x| < 1, x > -1), SinhGrad (e^x/2 overflowing before cosh does), XLogYGrad (two operands broadcast, the
gradient summed back to self, PyTorch's 0 at x = 0, y <= 0), LogCoshLossBackward (an optional weight, an int64
reduction, a forward-only cosh) and RReluWithNoiseBackward (a bool choosing the form, a tensor read in one form
only, a Requires between two attributes, a kink declared per form); then (newops6, session 19) LiSHTBackward
(x*tanh(x)), SquareplusBackward (a Scalar b > 0 under a square root), CharbonnierLossBackward (a double eps > 0,
reductions), QuantileLossBackward (a Piecewise in target - self, a Scalar q in (0, 1), the kink's value with the
mean's 1/N), SoftmaxTemperatureBackward (a DimSum row op from y, a Scalar tau > 0 the backward divides by) and
SquaredHingeLossBackward (max(0, 1 - t*x)^2: a Max of a product with an operand, smooth at its kink); then
(newops7, session 20) HardMishBackward (three pieces, a kink at -2, nan through the last branch),
ParametricHardSigmoidBackward (two Scalars in the kinks, alpha of either sign), LogSoftmaxTemperatureBackward (a
DimSum row op from y), WeightedMseLossBackward (a string reduction, a required weight, two outputs, gradTarget
summed back to target's shape), IsrluBackward (a power -3/2, alpha = 0 its own branch) and
BinaryCrossEntropyWithLogitsIgnoreBackward (an operand compared with an int64 attribute: the ignore index).

CI tier: the folder loads; the framework bugs they found, each with a spec that failed before its fix (an
op-level at= dropped for a second output, a Python float in a formula, a division by an attribute nothing keeps
from 0, ...; newops4: an op no tensor holds x of, a Requires range the samples ignored, a parameter named p in C,
a nonzero variable, asinh and a rewrite reading |u|); the NumPy kernels of the two-output and the weighted loss,
of AtanGrad and of the ops from y against PyTorch's float64 autograd.  Deep tier: `opgen accuracy` on every
backend, every op on every backend against PyTorch's autograd (special values, broadcast, strided and empty
inputs), the focal loss's NumPy kernel, newops4's bad calls; newops6's six on every backend, special values, bad calls.
newops9 (session 22): L2NormalizeBackward (a row of x/sqrt(sum x^2 + eps), FLOAT16 only), MeanCenterBackward (a row
op no tensor holds x of), WingLossBackward (kinks at t and t +- omega, log's domain edges in another branch, weight,
reductions), SReluBackward (four Scalars, two kinks that may meet) and LogAddExpBackward (two outputs summed back,
FLOAT16 outputs).
"""
from __future__ import annotations

import dataclasses

import mpmath
import numpy as np
import pytest
import sympy

import codegen
from codegen.accuracy import runner
from codegen.errors import SpecError
from codegen.loader import load_folder, load_spec_file
from codegen.verify import verify_op

from .conftest import REPO
from .kernels import spec_kernel

FOLDER = REPO / "examples" / "more_specs"
OPS = ["acos_grad", "asinh_grad", "atan_grad", "binary_cross_entropy_with_logits_ignore_backward",
       "celu_backward", "charbonnier_loss_backward", "cos_grad", "dropout_backward", "erf_grad",
       "hard_mish_backward", "hinge_embedding_loss_backward", "huber_loss_backward", "isrlu_backward",
       "l2_normalize_backward", "lisht_backward", "log1p_grad", "log_add_exp_backward", "log_cosh_loss_backward",
       "log_softmax_temperature_backward", "margin_ranking_loss_backward", "mean_center_backward", "multilabel_soft_margin_loss_backward",
       "parametric_hard_sigmoid_backward", "poisson_nll_loss_backward", "quantile_loss_backward",
       "quick_gelu_backward", "r_relu_with_noise_backward", "reciprocal_grad", "relu6_grad", "rsqrt_grad",
       "s_relu_backward", "shrink_backward", "sigmoid_cross_entropy_with_logits_grad", "sigmoid_focal_loss_backward",
       "sine_activation_backward", "sinh_grad", "snake_backward", "softmax_temperature_backward",
       "softmin_backward", "sqrt_grad", "squared_hinge_loss_backward", "squared_relu_backward",
       "squareplus_backward", "tanhshrink_backward", "weighted_mse_loss_backward", "wing_loss_backward", "x_log_y_grad"]


def _torch():
    return pytest.importorskip("torch")


def _autograd(torch, f, inputs, grad):
    """PyTorch's float64 gradients of f at the inputs (an independent oracle: autograd of the forward)."""
    leaves = [torch.tensor(np.asarray(a, np.float64), requires_grad=True) for a in inputs]
    out = f(*leaves)
    gs = torch.autograd.grad(out, leaves, torch.tensor(np.asarray(grad, np.float64)).expand_as(out))
    return [x.numpy() for x in gs]


def _close(got, want, rtol=2e-6) -> bool:
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    with np.errstate(invalid="ignore"):
        return bool(np.all((got == want) | (np.isnan(got) & np.isnan(want))
                           | (np.abs(got - want) <= rtol * np.abs(want) + 1e-37)))


def _variant(tmp_path, name, old, new):
    """The folder's spec `name` with `old` replaced by `new`, loaded from tmp_path."""
    src = (FOLDER / f"{name}.py").read_text()
    assert old in src
    (tmp_path / f"{name}.py").write_text(src.replace(old, new, 1))
    return tmp_path / f"{name}.py"


# ---- CI tier -------------------------------------------------------------------------------------------------
def test_every_spec_of_the_folder_loads_and_validates():
    ops, errors = load_folder(FOLDER)
    assert not errors, errors
    assert sorted(ops) == OPS


MAX_PAIR = '''"""A test op: both gradients of max(0, x1 - x2), the kink declared once on the op."""
from codegen.spec import *

x1, x2, g = symbols("input1 input2 gradOutput", real=True)
SPEC = Op(
    name="aclnnMaxPairBackward", forward_name="max_pair",
    params=[Tensor("gradOutput", g, role=GRAD, doc=Text("梯度。", "the gradient.")),
            Tensor("input1", x1, role=FORWARD_INPUT, doc=Text("x1。", "x1.")),
            Tensor("input2", x2, role=OPERAND, doc=Text("x2。", "x2.")),
            Output("gradInput1", doc=Text("x1的梯度。", "x1's gradient.")),
            Output("gradInput2", wrt=x2, doc=Text("x2的梯度。", "x2's gradient."))],
    wrt=x1,
    forward=Piecewise((x1 - x2, x1 > x2), (0, True)),
    backward=[Formula(Piecewise((g, x1 > x2), (0, True))),
              Formula(Piecewise((-g, x1 > x2), (0, True)), output="gradInput2")],
    at={Eq(x1 - x2, 0): 0},
    dtypes={"ascend910b": ["FLOAT"]},
    rules=[DtypeSupported("gradOutput", "input1", "input2", "gradInput1", "gradInput2"),
           ShapeSame("input1", "gradOutput", "input2"), ShapeSame("input1", "gradInput1"),
           ShapeSame("input1", "gradInput2")],
    description=Text("测试。", "A test."),
)
'''


def test_an_op_level_at_applies_to_every_output_whose_point_it_is(tmp_path):
    """Regression: an op's at= was dropped for every output but the first (its wrt differs), so a kink declared
    once, in the product form the docs advise, failed the second output's proof with "declares no value" — and
    the fix the message proposed (the same at= in the second input's terms) was dropped as well.  A point of the
    op's wrt alone (PReLU's x = 0) still applies to its own output only."""
    (tmp_path / "max_pair_backward.py").write_text(MAX_PAIR)
    results = verify_op(load_spec_file(tmp_path / "max_pair_backward.py"))
    assert all(r.ok for r in results), [r for r in results if not r.ok]
    assert any(r.formula.startswith("gradInput2") and r.verdict == "convention" for r in results)


def test_a_python_float_in_a_formula_is_refused_naming_its_exact_form(tmp_path):
    """exp(x*0.1) against a forward written with x/10 failed the proof with a residual exp(x/10) - exp(0.1*x) and
    an mpmath line printing the same value twice; a float bound (x > 0.1) is not the decimal either.  A float with
    a fractional part is refused at load time, naming the exact number to write.  An integer-valued
    float (6.0) is exact and stays accepted."""
    bad = _variant(tmp_path, "relu6_grad", "(g, (x > 0) & (x < 6))", "(g, (x > 0.1) & (x < 6))")
    with pytest.raises(SpecError, match=r"aclnnRelu6Grad: the backward has the Python float 0\.1: write it "
                                        r"exactly, Rational\(1, 10\)"):
        load_spec_file(bad)
    ok = _variant(tmp_path, "relu6_grad", "(6, True)),", "(6.0, True)),")
    assert load_spec_file(ok).name == "aclnnRelu6Grad"


def test_a_division_by_an_attribute_nothing_keeps_from_zero_is_refused(tmp_path):
    """CELU's forward divides by alpha.  Without a rule the spec proved "for all inputs" and the kernels divided by
    0 (x/0 = -inf, exp(-inf) = 0, nan at x = 0), while PyTorch raises.  Now validation names the divisor and the
    rule to add; with the rule, every backend refuses alpha = 0 with 161002 naming alpha."""
    bad = _variant(tmp_path, "celu_backward", '        Requires("alpha", Ne(alpha, 0)),\n', "")
    with pytest.raises(SpecError, match=r"the forward divides by alpha, which is 0 at alpha = 0, and nothing rules "
                                        r"that value out: add the rule Requires\('alpha', Ne\(alpha, 0\)\)"):
        load_spec_file(bad)
    k = spec_kernel("celu_backward", specs_dir=FOLDER)
    x = np.linspace(-2, 2, 8, dtype=np.float32)
    with pytest.raises(codegen.AclnnError, match="alpha must satisfy alpha != 0") as e:
        k(grad_output=np.ones_like(x), self=x, alpha=0.0)
    assert (e.value.status, e.value.param) == (161002, "alpha")


HALF_LINE = '''"""A test op: max(x, 0) - |x|/2 = x/2, smooth, written with two kinks that cancel at 0."""
from codegen.spec import *

x, g = symbols("self gradOutput", real=True)
SPEC = Op(
    name="aclnnHalfLineBackward", forward_name="half_line",
    params=[Tensor("gradOutput", g, role=GRAD, doc=Text("梯度。", "the gradient.")),
            Tensor("self", x, role=FORWARD_INPUT, doc=Text("x。", "x.")),
            Output("out", doc=Text("x的梯度。", "x's gradient."))],
    wrt=x,
    forward=Max(x, 0) - Abs(x) / 2,
    backward=g / 2,
    dtypes={"ascend910b": ["FLOAT"]},
    rules=[DtypeSupported("gradOutput", "self", "out"), ShapeSame("gradOutput", "self", "out")],
    description=Text("测试。", "A test."),
)
'''


def test_the_accuracy_reference_is_the_derivative_where_kinks_of_the_forward_cancel(tmp_path):
    """Regression: SigmoidCrossEntropyWithLogitsGrad's max(x, 0) + log(1 + exp(-|x|)) is smooth at x = 0, but Max
    and Abs folded into branches left a piece valid at x = 0 alone (Max takes x <= 0 there, Abs x >= 0) whose
    derivative, -1/2 - t, is neither side's: `opgen accuracy` failed all 9 of its kernels at predict = ±0, where
    they and PyTorch give 1/2 - t.  The same on max(x, 0) - |x|/2 = x/2 (a cheaper forward): the reference
    against float64 central differences of the forward."""
    from codegen.accuracy.reference import reference_for
    (tmp_path / "half_line_backward.py").write_text(HALF_LINE)
    op = load_spec_file(tmp_path / "half_line_backward.py")
    assert all(r.ok for r in verify_op(op))
    x = np.array([0.0, -0.0, 1.0, -2.0])
    kw = {"self": x.astype(np.float32), "grad_output": np.ones(4, np.float32)}
    got = [float(v) for v in reference_for(op, kw).values(kw, (4,))]
    f = lambda v: np.maximum(v, 0) - np.abs(v) / 2   # noqa: E731
    h = 1e-6
    assert np.allclose(got, (f(x + h) - f(x - h)) / (2 * h), rtol=1e-9, atol=0), got


def test_margin_ranking_two_outputs_match_pytorch_at_and_off_the_kink():
    """Both gradients, every reduction, targets of both signs, three elements exactly at the kink (PyTorch's
    clamp_min passes the gradient there, which each output's form declares)."""
    torch = _torch()
    F = torch.nn.functional
    k = spec_kernel("margin_ranking_loss_backward", specs_dir=FOLDER)
    rng = np.random.default_rng(11)
    a, b = (np.round(rng.uniform(-3, 3, (4, 6)) * 1024).astype(np.float32) / 1024 for _ in range(2))
    y = np.where(rng.random((4, 6)) < 0.5, -1, 1).astype(np.float32)
    b[0, :3] = a[0, :3] - 0.5 * y[0, :3]        # -y*(a - b) + 0.5 = 0 exactly, in FLOAT too (multiples of 2^-10)
    for r, g in [(0, rng.normal(size=(4, 6)).astype(np.float32)), (1, np.float32(0.75)), (2, np.float32(-1.25))]:
        want = _autograd(torch, lambda p, q: F.margin_ranking_loss(
            p, q, torch.tensor(y, dtype=torch.float64), margin=0.5, reduction=["none", "mean", "sum"][r]), [a, b], g)
        got = k(grad_output=np.asarray(g, np.float32), input1=a, input2=b, target=y, margin=0.5, reduction=r)
        assert _close(got[0], want[0]) and _close(got[1], want[1]), r


def test_huber_weighted_mean_matches_pytorch():
    """The optional weight (absent, broadcast, full), delta on both sides of |e|, the mean's divisor."""
    torch = _torch()
    F = torch.nn.functional
    k = spec_kernel("huber_loss_backward", specs_dir=FOLDER)
    rng = np.random.default_rng(12)
    x = rng.uniform(-3, 3, (5, 8)).astype(np.float32)
    t = rng.uniform(-3, 3, (1, 8)).astype(np.float32)
    for w in (None, rng.uniform(0, 2, (8,)).astype(np.float32), rng.uniform(0, 2, (5, 8)).astype(np.float32)):
        for r in (0, 1, 2):
            g = rng.normal(size=(5, 8)).astype(np.float32) if r == 0 else np.float32(1.5)

            def f(p, q, *ww):
                loss = F.huber_loss(p, q.expand_as(p), reduction="none", delta=0.75)
                loss = ww[0] * loss if ww else loss
                return [loss, loss.mean(), loss.sum()][r]
            want = _autograd(torch, f, [x, t] + ([] if w is None else [w]), g)[0]
            got = k(grad_output=np.asarray(g, np.float32), self=x, target=t, weight_optional=w, reduction=r,
                    delta=0.75)
            assert _close(got, want, 4e-6), (r, None if w is None else w.shape)


def test_the_gradient_times_a_weight_is_not_formed_before_the_local_derivative():
    """Regression: CSE took gradOutput*weight out of Huber's two branches, so it was formed first and overflowed
    where the gradient does not (the oracle's BFLOAT16 failure: -inf for -1.27e38).  Every backend prints the
    lowering: the NumPy kernel shows it."""
    torch = _torch()
    k = spec_kernel("huber_loss_backward", specs_dir=FOLDER)
    x = np.array([0.49609375, 3.0], np.float32)
    t = np.array([0.26953125, 0.0], np.float32)
    w = np.array([3.0e38, 3.0e38], np.float32)
    g = np.array([-1.8671875, -0.5], np.float32)
    got = k(grad_output=g, self=x, target=t, weight_optional=w, reduction=0, delta=0.25)
    want = _autograd(torch, lambda p: w.astype(np.float64)[0] * torch.nn.functional.huber_loss(
        p, torch.tensor(t, dtype=torch.float64), reduction="none", delta=0.25), [x], g)[0]
    assert np.all(np.isfinite(got)) and _close(got, want, 4e-6), (got, want)


def test_the_call_examples_of_a_half_only_op_and_of_required_attributes_build_and_run():
    """Regression: `opgen generate` failed for three of the six specs, their call examples refused by their own
    checks: the example's tensors were FLOAT for TanhshrinkBackward (FLOAT16/BFLOAT16 only), and a double
    attribute the example left out was 0.0 for CELU's alpha (Requires alpha != 0) and Huber's delta (> 0)."""
    from codegen.backends.c.examples import build_and_run
    from codegen.spec.example import resolve
    ops, _ = load_folder(FOLDER)
    assert resolve(ops["celu_backward"]).attrs["alpha"] == 1.0
    assert resolve(ops["huber_loss_backward"]).attrs["delta"] == 1.0
    assert resolve(ops["margin_ranking_loss_backward"]).attrs["margin"] == 0.0   # no rule: 0 as before
    printed = build_and_run(ops["tanhshrink_backward"])
    got = [float(line.split()[-1]) for line in printed.splitlines()]
    x = np.array([-1.5, -0.25, 0.75, 2.0], np.float16)          # the example's default data, self = gradOutput
    want = spec_kernel("tanhshrink_backward", specs_dir=FOLDER)(grad_output=x, self=x)
    assert np.array_equal(np.array(got, np.float16), want), (got, want)
    assert [line.split()[-1] for line in build_and_run(ops["celu_backward"]).splitlines()][2:] == ["0.750000",
                                                                                                   "2.000000"]


def test_a_bfloat16_only_ops_call_example_prints_through_its_own_conversion(tmp_path):
    """The call example of an op with BFLOAT16 alone has no FLOAT16 to print through acl.h's aclFloat16ToFloat:
    it carries its own Bfloat16ToFloat (and <string.h> for it), printed from Python, not a template branch."""
    from codegen.backends.c.examples import build_and_run, example_source
    text = (FOLDER / "tanhshrink_backward.py").read_text()
    text = text.replace('"ascend910": ["FLOAT16"],', "").replace('"FLOAT16", "BFLOAT16"', '"BFLOAT16"')
    (tmp_path / "tanhshrink_backward.py").write_text(text)
    op = load_spec_file(tmp_path / "tanhshrink_backward.py")
    assert {d for ds in op.dtypes.values() for d in ds} == {"BFLOAT16"}
    assert "Bfloat16ToFloat(resultData[i])" in example_source(op)
    got = [float(line.split()[-1]) for line in build_and_run(op).splitlines()]
    x = np.array([-1.5, -0.25, 0.75, 2.0])                     # the example's data, self = gradOutput
    h = 1e-6                                                     # the forward x - tanh(x), differenced in float64
    want = x * ((x + h - np.tanh(x + h)) - (x - h - np.tanh(x - h))) / (2 * h)
    assert np.allclose(got, want, rtol=2 ** -7), (got, want)   # within BFLOAT16's rounding


HINGE_WRONG = ("backward=g * factor * (own - Piecewise((1, Eq(t, -1)), (0, True))"
               " * Piecewise((1, x <= margin), (0, True))),")


def test_a_condition_on_an_operand_alone_is_a_case_of_the_proof(tmp_path):
    """Regression: HingeEmbeddingLoss's target selects the form (`Ne(target, 1)`, a condition without x), and every
    case failed with "cannot decide Ne(target, -1)".  Each side of and each root of such a condition is now a case
    (target < -1, = -1, between, = 1, > 1), the mpmath check and the accuracy inputs draw the operand there, and a
    backward wrong only for a target that is neither 1 nor -1 fails in those cases alone."""
    results = verify_op(load_spec_file(FOLDER / "hinge_embedding_loss_backward.py"))
    assert results and all(r.ok for r in results), [r for r in results if not r.ok][:2]
    assert {"target = -1", "target = 1", "-1 < target < 1"} <= {a for r in results for a in r.formula.split(", ")}
    path = _variant(tmp_path, "hinge_embedding_loss_backward",
                    "backward=g * factor * (own - hinge * Piecewise((1, x <= margin), (0, True))),", HINGE_WRONG)
    failed = [r for r in verify_op(load_spec_file(path)) if not r.ok]
    assert any("-1 < target < 1" in r.formula for r in failed), failed[:2]
    assert not any(r.formula.endswith(("target = 1", "target = -1")) for r in failed), failed[:2]


def test_a_string_reduction_passes_the_mpmath_check():
    """Regression: the mpmath check read every attribute value as a number (`float('mean')`, a ValueError), so
    MseLossGrad's string reduction failed `opgen verify` (the sample-point speed-up of _near_branch)."""
    path = REPO / "examples" / "experimental_specs" / "mse_loss_grad.py"
    results = verify_op(load_spec_file(path))
    assert all(r.ok for r in results), [r for r in results if not r.ok][:2]


def test_a_positive_variable_is_proven_on_its_domain():
    """SqrtGrad's x is `positive=True` (sqrt's domain): the proof runs on (0, oo) and says so (it printed
    `x in (-oo, oo)`); without the assumption it fails ("cannot show ... monotone")."""
    results = verify_op(load_spec_file(FOLDER / "sqrt_grad.py"))
    assert all(r.ok for r in results) and any(r.check == "x in (0, oo)" for r in results), results


def test_hinge_embedding_and_poisson_nll_match_pytorch():
    """The NumPy kernels against PyTorch's float64 autograd: HingeEmbedding with targets ±1 and others (0.5, 0,
    3: PyTorch takes both terms), elements at the kink x = margin; PoissonNLL both forms, eps, every reduction."""
    torch = _torch()
    F = torch.nn.functional
    rng = np.random.default_rng(14)
    red = ["none", "mean", "sum"]
    k = spec_kernel("hinge_embedding_loss_backward", specs_dir=FOLDER)
    x = rng.normal(0, 2, (4, 6)).astype(np.float32)
    x[0, :4] = 0.75
    t = np.where(rng.random((4, 6)) < 0.5, -1, 1).astype(np.float32)
    t[1, :3] = [0.5, 0, 3]
    for r, g in [(0, rng.normal(size=(4, 6)).astype(np.float32)), (1, np.float32(0.75)), (2, np.float32(-1.25))]:
        want = _autograd(torch, lambda p: F.hinge_embedding_loss(p, torch.tensor(t, dtype=torch.float64),
                                                                 margin=0.75, reduction=red[r]), [x], g)[0]
        assert _close(k(grad_output=np.asarray(g), self=x, target=t, margin=0.75, reduction=r), want), r
    k = spec_kernel("poisson_nll_loss_backward", specs_dir=FOLDER)
    tt = rng.uniform(0, 4, (4, 6)).astype(np.float32)
    for log_input, xx in ((True, rng.normal(0, 3, (4, 6))), (False, rng.uniform(0, 5, (4, 6)))):
        for r, g in [(0, rng.normal(size=(4, 6)).astype(np.float32)), (1, np.float32(0.75))]:
            for eps in (1e-8, 0.5):
                xx32 = xx.astype(np.float32)
                want = _autograd(torch, lambda p: F.poisson_nll_loss(
                    p, torch.tensor(tt, dtype=torch.float64), log_input=log_input, eps=eps, reduction=red[r]),
                    [xx32], g)[0]
                got = k(grad_output=np.asarray(g), self=xx32, target=tt, log_input=log_input, full=False, eps=eps,
                        reduction=r)
                assert _close(got, want, 4e-6), (log_input, r, eps)


def test_a_count_in_the_forward_is_proven_and_read_from_the_shapes():
    """Regression: MultiLabelSoftMargin's loss is a mean over the class axis, `/dim_size("self", 1)` in the forward;
    the loader refused it ("the forward uses undefined symbol(s) numel_self_dim1", the backward may read counts),
    and the mpmath check could not evaluate it.  Now proven (a backward without the /C fails), and the kernel
    reads C from the call's shape: the NumPy kernel against PyTorch's float64 autograd, every reduction."""
    torch = _torch()
    results = verify_op(load_spec_file(FOLDER / "multilabel_soft_margin_loss_backward.py"))
    assert results and all(r.ok for r in results), [r for r in results if not r.ok][:2]
    rng = np.random.default_rng(15)
    k = spec_kernel("multilabel_soft_margin_loss_backward", specs_dir=FOLDER)
    x = rng.normal(0, 3, (5, 7)).astype(np.float32)
    y = (rng.random((5, 7)) < 0.4).astype(np.float32)
    w = rng.uniform(0, 2, (7,)).astype(np.float32)
    for r, g in [(0, rng.normal(size=(5, 1)).astype(np.float32)), (1, np.asarray(0.75, np.float32))]:
        want = _autograd(torch, lambda p: torch.nn.functional.multilabel_soft_margin_loss(
            p, torch.tensor(y, dtype=torch.float64), weight=torch.tensor(w, dtype=torch.float64),
            reduction=["none", "mean"][r]), [x], g.reshape(-1) if r == 0 else g)[0]
        assert _close(k(grad_output=g, self=x, target=y, weight_optional=w, reduction=r), want, 4e-6), r


# ---- newops4 (session 17): CI tier ----------------------------------------------------------------------------
def test_an_op_whose_derivative_is_free_of_x_needs_no_tensor_holding_x(tmp_path):
    """Regression: DropoutBackward reads gradOutput, its BOOL mask and p, never x (dropout is linear in x); the
    loader refused it ("no tensor holds the forward input or output").  Now such an op proves, and its accuracy
    samples carry no held tensor (the reference's derivative is the same at every x); a forward whose derivative
    reads x still needs a tensor holding x or y, and the message says which role to give."""
    results = verify_op(load_spec_file(FOLDER / "dropout_backward.py"))
    assert results and all(r.ok for r in results), results
    path = _variant(tmp_path, "dropout_backward", "forward=Piecewise((x / (1 - p), m), (0, True)),",
                    "forward=Piecewise((x**2 / (1 - p), m), (0, True)),")
    with pytest.raises(SpecError, match=r"no tensor holds the forward input or output, and the forward's derivative "
                                        r"reads self: give a tensor the role FORWARD_INPUT or FORWARD_OUTPUT"):
        load_spec_file(path)


def test_a_range_rule_no_case_splits_on_is_drawn_inside_and_checked():
    """Regression: DropoutBackward's Requires("p", (p >= 0) & (p < 1)) makes no proof case (p is read only in
    1/(1 - p)), so the samples drew p from [-2, 2] and `opgen accuracy` failed every group with "a valid call was
    refused"; a rank-0 BOOL mask was passed as np.bool_, not an array.  Now p is drawn inside its rule (all 9
    kernels pass), and every backend refuses p = 1 with 161002 naming p."""
    ops, _ = load_folder(FOLDER)
    records = runner.run({"dropout_backward": ops["dropout_backward"]}, backends=["numpy"], dtypes=["FLOAT"],
                         log=lambda m: None, use_torch=False)
    bad = [(r.failures[:2], r.errors) for r in records if r.n_failures or not (r.dual and r.single)]
    assert records and not bad, bad
    k = spec_kernel("dropout_backward", specs_dir=FOLDER)
    g, m = np.ones((2, 3), np.float32), np.array([[True, False, True], [False, True, True]])
    assert np.array_equal(k(grad_output=g, mask=m, p=0.75), np.where(m, 4.0, 0.0).astype(np.float32))
    for p, param in ((1.0, "p"), (-0.25, "p")):
        with pytest.raises(codegen.AclnnError, match=r"p must satisfy \(p >= 0\) & \(p < 1\)") as e:
            k(grad_output=g, mask=m, p=p)
        assert (e.value.status, e.value.param) == (161002, param)


def test_a_parameter_named_p_compiles_in_c():
    """Regression: the C kernel's constants were a local struct `p` (`Params p;`, `const Params *p = params;`), so
    an aclnn parameter named p (dropout's probability) redeclared it and the C library did not compile.  The
    struct is `prm` now; the C kernel gives the NumPy kernel's result."""
    k = spec_kernel("dropout_backward", backend="c", specs_dir=FOLDER)
    g = np.array([[1.5, -2.0, 0.25]], np.float32)
    m = np.array([[True, True, False]])
    assert np.array_equal(k(grad_output=g, mask=m, p=0.5), np.array([[3.0, -4.0, 0.0]], np.float32))


def test_a_nonzero_variable_is_proven_on_each_side_of_zero(tmp_path):
    """ReciprocalGrad from y = 1/x: with a real x the proof failed ("cannot show the forward branch 1/x is
    monotone", no hint); `Symbol("x", real=True, nonzero=True)` proved, but labelled x in (-oo, oo).  Now the
    proof runs on (-oo, 0) and (0, oo), and the failure names the assumptions to give."""
    results = verify_op(load_spec_file(FOLDER / "reciprocal_grad.py"))
    assert all(r.ok for r in results), results
    assert {"x in (-oo, 0)", "x in (0, oo)"} <= {r.check for r in results}
    path = _variant(tmp_path, "reciprocal_grad", 'x = Symbol("x", real=True, nonzero=True)', 'x = Symbol("x", real=True)')
    failed = [r for r in verify_op(load_spec_file(path)) if not r.ok]
    assert failed and "nonzero=True" in failed[0].detail, failed


def test_asinh_from_its_output_and_a_rewrite_reading_abs_are_proven():
    """AsinhGrad's dy/cosh(y) from y = asinh(x): the residual 2/(e^asinh(x) + e^-asinh(x)) - 1/sqrt(x^2 + 1) did not
    simplify (asinh is now rewritten as a log); the kernel form e^-|u|/(1 + e^-2|u|), which keeps the subnormal
    results where e^|y| overflows, failed "the two sides do not simplify to one" (now proven per sign of u)."""
    results = verify_op(load_spec_file(FOLDER / "asinh_grad.py"))
    assert results and all(r.ok for r in results), [r for r in results if not r.ok]
    assert any(r.check.startswith("rewrite") and r.verdict == "proven" for r in results)
    k = spec_kernel("asinh_grad", specs_dir=FOLDER)
    y = np.array([0.0, 1.0, -30.0, 89.0, -100.0], np.float32)
    got = k(y=y, dy=np.ones_like(y))
    assert np.allclose(got, 1 / np.cosh(y.astype(np.float64)), rtol=1e-6, atol=2 ** -149) and got[3] > 0, got


def test_a_power_by_an_attribute_is_refused_naming_the_workaround(tmp_path):
    """The focal loss's (1 - p_t)**gamma: a power with a symbolic exponent is not in the vocabulary; the refusal
    said only that, and the form that works (exp(gamma*log(q)), 1 at gamma = 0: `power` in the spec) was left to
    find.  The message names the node and the workaround."""
    path = _variant(tmp_path, "sigmoid_focal_loss_backward", "* power(q, gamma)\n", "* q**gamma\n")
    with pytest.raises(SpecError, match=r"a power with a non-constant exponent \(.*\*\*gamma; for a base that is "
                                        r"never negative write exp\(e\*log\(a\)\) .* 0\*\*0 is 1\)"):
        load_spec_file(path)


def _focal(torch, x, t, alpha, gamma, r):
    """torchvision's sigmoid focal loss, its BCE and 1 - p_t in forms without cancellation (torchvision's 1 - p_t
    and binary_cross_entropy_with_logits lose up to 0.4% of the gradient at x = -30 in float64)."""
    F = torch.nn.functional
    ce = -(t * F.logsigmoid(x) + (1 - t) * F.logsigmoid(-x))
    loss = ce * (torch.sigmoid(x) * (1 - t) + torch.sigmoid(-x) * t) ** gamma
    if alpha >= 0:
        loss = (alpha * t + (1 - alpha) * (1 - t)) * loss
    return [loss, loss.mean(), loss.sum()][r]


def test_atan_and_the_ops_from_their_output_match_pytorch():
    """The NumPy kernels of AtanGrad (from x), RsqrtGrad, ReciprocalGrad and AsinhGrad (from y, PyTorch's autograd
    at the float64 x whose y is given: the inverse in float64) against PyTorch's float64 autograd."""
    torch = _torch()
    rng = np.random.default_rng(18)
    g = rng.normal(size=(3, 7)).astype(np.float32)
    x = rng.normal(0, 5, (3, 7)).astype(np.float32)
    x[0, :3] = [0, -0.0, 1e19]
    got = spec_kernel("atan_grad", specs_dir=FOLDER)(x=x, dy=g)
    assert _close(got, _autograd(torch, torch.atan, [x], g)[0], 2e-6)
    for name, fwd, inv, y in (("rsqrt_grad", torch.rsqrt, lambda v: 1 / v**2, rng.uniform(0.05, 9, (3, 7))),
                              ("reciprocal_grad", torch.reciprocal, lambda v: 1 / v, rng.normal(0, 4, (3, 7))),
                              ("asinh_grad", torch.asinh, np.sinh, rng.normal(0, 30, (3, 7)))):
        y = y.astype(np.float32)
        want = _autograd(torch, fwd, [inv(y.astype(np.float64))], g)[0]
        assert _close(spec_kernel(name, specs_dir=FOLDER)(y=y, dy=g), want, 4e-6), name


@pytest.mark.deep
def test_sigmoid_focal_loss_matches_pytorch():
    """(deep: the focal loss's proof, which the kernel's build runs once, takes ~75 s of CPU uncached)
    A power by a double attribute, (1 - p_t)^gamma, written exp(gamma * log(q)) (the vocabulary has no symbolic
    exponent); alpha < 0 (no weighting), soft targets, every reduction, against PyTorch's float64 autograd."""
    torch = _torch()
    rng = np.random.default_rng(16)
    k = spec_kernel("sigmoid_focal_loss_backward", specs_dir=FOLDER)
    x = rng.normal(0, 4, (4, 9)).astype(np.float32)
    x[0, :6] = [0, -0.0, 1e-40, 30, -30, 17]
    t = (rng.random((4, 9)) < 0.3).astype(np.float32)
    t[3] = rng.random(9)
    for gamma, alpha, r in ((2.0, 0.25, 0), (0.5, -1.0, 1), (0.0, 0.0, 2), (3.5, 0.75, 0)):
        g = rng.normal(size=(4, 9)).astype(np.float32) if r == 0 else np.float32(1.25)
        want = _autograd(torch, lambda p: _focal(torch, p, torch.tensor(t, dtype=torch.float64), alpha, gamma, r),
                         [x], g)[0]
        got = k(grad_output=np.asarray(g), self=x, target=t, gamma=gamma, alpha=alpha, reduction=r)
        assert _close(got, want, 1e-5), (gamma, alpha, r)


# ---- deep tier -----------------------------------------------------------------------------------------------
@pytest.mark.deep
@pytest.mark.parametrize("name", OPS)
def test_accuracy_on_every_backend(name):
    ops, _ = load_folder(FOLDER)
    assert all(r.ok for r in verify_op(ops[name]))
    records = runner.run({name: ops[name]}, log=lambda m: None)
    bad = [(r.name, r.backend, r.dtype, r.failures[:3], r.errors) for r in records
           if r.n_failures or not (r.dual and r.single)]
    assert records and not bad, bad


@pytest.mark.deep
@pytest.mark.parametrize("backend", ["numpy", "c", "ascendc"])
def test_every_op_matches_pytorch_autograd(backend):
    """Each op on random inputs with the special values (±0, subnormals, ±inf, nan, the branch points) against
    PyTorch's float64 autograd of the forward."""
    torch = _torch()
    F = torch.nn.functional
    k = lambda n: spec_kernel(n, backend=backend, specs_dir=FOLDER)
    rng = np.random.default_rng(13)
    special = np.array([0, -0.0, 1e-40, -1e-40, 6, np.nextafter(np.float32(6), 7), np.inf, -np.inf, np.nan, 1e30,
                        -1e30, 88, -88, 1, -1], np.float32)
    x = rng.uniform(-8, 8, (5, 7)).astype(np.float32)
    x.flat[:special.size] = special
    g = rng.normal(size=(5, 7)).astype(np.float32)
    for alpha in (1.0, 0.5, 2.5):
        want = _autograd(torch, lambda p: F.celu(p, alpha=alpha), [x], g)[0]
        assert _close(k("celu_backward")(grad_output=g, self=x, alpha=alpha), want, 1e-5), alpha
    want = torch.ops.aten.hardtanh_backward(torch.tensor(g, dtype=torch.float64),
                                            torch.tensor(x, dtype=torch.float64), 0.0, 6.0).numpy()
    assert _close(k("relu6_grad")(gradients=g, features=x), want)
    assert _close(k("relu6_grad")(gradients=g, features=np.array([3.0], np.float32)), g)
    t = rng.random((5, 7)).astype(np.float32)
    want = _autograd(torch, lambda p: F.binary_cross_entropy_with_logits(
        p, torch.tensor(t, dtype=torch.float64), reduction="none"), [x], g)[0]
    assert _close(k("sigmoid_cross_entropy_with_logits_grad")(predict=x, target=t, d_out=g), want, 4e-6)
    xh, gh = x.astype(np.float16), g[:1].astype(np.float16)   # gradOutput broadcast along rows
    want = _autograd(torch, F.tanhshrink, [xh.astype(np.float64)], gh.astype(np.float64))[0]
    assert _close(k("tanhshrink_backward")(grad_output=gh, self=xh), want.astype(np.float16), 1e-3)
    for dim in (0, -1):   # softmin's y given exactly (rounded to FLOAT), autograd at the float64 x it came from
        z = torch.tensor(rng.uniform(-5, 5, (4, 7)), requires_grad=True)
        y = torch.nn.functional.softmin(z, dim)
        y.backward(torch.tensor(g[:4], dtype=torch.float64))
        got = k("softmin_backward")(grad_output=g[:4], output=y.detach().numpy().astype(np.float32), dim=dim)
        assert np.allclose(got, z.grad.numpy(), rtol=1e-5, atol=1e-6), dim
    # (newops3) QuickGELU and SqrtGrad at the special values; SqrtGrad's y is sqrt(x) in FLOAT (0 gives inf, as
    # float64 dy/(2y)); Poisson at subnormal x with eps 1e-8; HingeEmbedding strided, target broadcast along rows
    want = _autograd(torch, lambda p: p * torch.sigmoid(1.702 * p), [x], g)[0]
    assert _close(k("quick_gelu_backward")(grad_output=g, self=x), want, 4e-6)
    y = np.sqrt(np.abs(x.astype(np.float64))).astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        assert _close(k("sqrt_grad")(y=y, dy=g), g.astype(np.float64) / (2 * y.astype(np.float64)), 2e-6)
    xp = np.abs(x[:2])
    xp[np.isnan(xp) | np.isinf(xp) | (xp > 1e20)] = 2.0
    want = _autograd(torch, lambda p: F.poisson_nll_loss(p, torch.tensor(t[:2], dtype=torch.float64),
                                                         log_input=False, eps=1e-8, reduction="none"), [xp], g[:2])[0]
    assert _close(k("poisson_nll_loss_backward")(grad_output=g[:2], self=xp, target=t[:2], log_input=False,
                                                 full=True, eps=1e-8, reduction=0), want, 4e-6)
    tb = np.where(rng.random((1, 14)) < 0.5, -1, 1).astype(np.float32)
    xs, gs = rng.normal(0, 2, (5, 14)).astype(np.float32), rng.normal(size=(5, 14)).astype(np.float32)
    want = _autograd(torch, lambda p: F.hinge_embedding_loss(p, torch.tensor(tb[:, ::2], dtype=torch.float64).expand(
        5, 7), margin=1.0, reduction="none"), [xs[:, ::2]], gs[:, ::2])[0]
    got = k("hinge_embedding_loss_backward")(grad_output=gs[:, ::2], self=xs[:, ::2], target=tb[:, ::2], margin=1.0,
                                             reduction=0)
    assert _close(got, want), backend


@pytest.mark.deep
def test_a_backward_without_the_class_mean_fails(tmp_path):
    """The class mean is proven, not assumed: a backward without the /C fails (deep: its counterexample search
    takes seconds)."""
    path = _variant(tmp_path, "multilabel_soft_margin_loss_backward", "- y) / C *", "- y) *")
    assert any(not r.ok for r in verify_op(load_spec_file(path)))


@pytest.mark.deep
@pytest.mark.parametrize("backend", ["numpy", "c", "ascendc"])
def test_newops4_ops_match_pytorch_on_every_backend(backend):
    """(newops4) DropoutBackward, RsqrtGrad, ReciprocalGrad, AtanGrad, AsinhGrad and SigmoidFocalLossBackward on
    random data with ±0, subnormals, ±inf, nan and huge values, broadcast, strided and empty inputs, against
    PyTorch's float64 autograd of the forward (the ops from y: at the float64 x whose y was rounded to FLOAT)."""
    torch = _torch()
    k = lambda n: spec_kernel(n, backend=backend, specs_dir=FOLDER)
    rng = np.random.default_rng(17)
    special = np.array([0, -0.0, 1e-40, -1e-40, np.inf, -np.inf, np.nan, 1e30, -1e30, 1e19, 3e19, 88, -88, 1, -1],
                       np.float32)
    x = rng.uniform(-8, 8, (5, 8)).astype(np.float32)
    x.flat[:special.size] = special
    g = rng.normal(size=(5, 8)).astype(np.float32)
    T = lambda a: torch.tensor(np.asarray(a, np.float64))   # noqa: E731
    # dropout: a BOOL mask, strided gradOutput, p at 0 and near 1; empty
    m = rng.random((5, 16)) < 0.6
    for p in (0.0, 0.3, 0.96875):
        want = np.where(m[:, ::2], g.astype(np.float64) / (1 - p), 0.0)
        assert _close(k("dropout_backward")(grad_output=g, mask=m[:, ::2], p=p), want), p
    assert k("dropout_backward")(grad_output=np.zeros((0, 3), np.float32), mask=np.zeros((0, 3), bool),
                                 p=0.5).shape == (0, 3)
    # atan from x: autograd of atan at the special values (1/(1 + x^2) -> 0 where x^2 overflows: 3e19 gives 1.1e-39)
    want = _autograd(torch, torch.atan, [x], g)[0]
    assert _close(k("atan_grad")(x=x, dy=g), want, 2e-6) or backend == "ascendc" and \
        _close(k("atan_grad")(x=x, dy=g)[np.abs(want) > 1e-37], want[np.abs(want) > 1e-37], 2e-6)
    # from y: rsqrt (x > 0), reciprocal (x != 0), asinh (every x); y rounded to FLOAT, autograd at the float64 x
    # that gives that y exactly (the inverse in float64), strided y
    xp = np.abs(rng.uniform(0.01, 50, (5, 16)))
    for name, fwd, inv, xs in (("rsqrt_grad", torch.rsqrt, lambda y: 1 / y**2, xp),
                               ("reciprocal_grad", torch.reciprocal, lambda y: 1 / y, xp * np.sign(rng.normal(size=xp.shape))),
                               ("asinh_grad", torch.asinh, np.sinh, rng.uniform(-200, 200, (5, 16)))):
        y = fwd(T(xs)).numpy().astype(np.float32)[:, ::2]
        want = _autograd(torch, fwd, [inv(y.astype(np.float64))], g)[0]
        got = k(name)(y=y, dy=g)
        assert _close(got, want, 4e-6) or _close(got[np.abs(want) > 1e-37], want[np.abs(want) > 1e-37], 4e-6), name
    assert np.isnan(k("rsqrt_grad")(y=np.array([np.nan], np.float32), dy=np.ones(1, np.float32)))[0]
    assert k("reciprocal_grad")(y=np.array([np.inf], np.float32), dy=np.ones(1, np.float32))[0] == -np.inf
    # focal loss: special logits, soft and hard targets broadcast along rows, every reduction
    t = (rng.random((1, 8)) < 0.5).astype(np.float32)
    t[0, :2] = [0.25, 0.9]
    xf = x.copy()
    xf[np.isnan(xf)] = 0.5
    for gamma, alpha, r in ((2.0, 0.25, 0), (0.5, -1.0, 1), (1.0, 0.0, 2)):
        gg = g if r == 0 else np.float32(0.75)
        want = _autograd(torch, lambda p: _focal(torch, p, T(t).expand(5, 8), alpha, gamma, r), [xf], gg)[0]
        got = k("sigmoid_focal_loss_backward")(grad_output=np.asarray(gg), self=xf, target=t, gamma=gamma,
                                               alpha=alpha, reduction=r)
        fin = np.isfinite(want)
        assert _close(got[fin], want[fin], 1e-4), (gamma, alpha, r)


@pytest.mark.deep
@pytest.mark.parametrize("backend", ["numpy", "c", "ascendc"])
def test_newops4_bad_calls_give_aclnn_statuses(backend):
    """(newops4) Null (161001), a wrong dtype, a wrong shape and an attribute out of its rule (161002), each naming
    the parameter, the same on every backend."""
    k = lambda n: spec_kernel(n, backend=backend, specs_dir=FOLDER)   # noqa: E731
    f = np.ones((2, 3), np.float32)
    m = np.ones((2, 3), bool)
    focal = dict(grad_output=f, self=f, target=f, gamma=2.0, alpha=0.25, reduction=0)
    cases = [
        ("dropout_backward", dict(grad_output=f, mask=None, p=0.5), 161001, "mask"),
        ("dropout_backward", dict(grad_output=f, mask=f, p=0.5), 161002, "mask"),
        ("dropout_backward", dict(grad_output=f, mask=m[:, :2], p=0.5), 161002, "mask"),
        ("dropout_backward", dict(grad_output=f, mask=m, p=1.0), 161002, "p"),
        ("rsqrt_grad", dict(y=f, dy=f.astype(np.float16)), 161002, "dy"),
        ("reciprocal_grad", dict(y=f, dy=f[:1]), 161002, "dy"),
        ("atan_grad", dict(x=f.astype(np.int32), dy=f), 161002, "x"),
        ("asinh_grad", dict(y=None, dy=f), 161001, "y"),
        ("sigmoid_focal_loss_backward", {**focal, "gamma": -0.5}, 161002, "gamma"),
        ("sigmoid_focal_loss_backward", {**focal, "reduction": 3}, 161002, "reduction"),
        ("sigmoid_focal_loss_backward", {**focal, "target": np.ones((3, 3), np.float32)}, 161002, "target"),
    ]
    for name, kw, status, param in cases:
        with pytest.raises(codegen.AclnnError) as e:
            k(name)(**kw)
        assert (e.value.status, e.value.param) == (status, param), (name, str(e.value))


# ---- newops5 (session 18): CI tier ----------------------------------------------------------------------------
def test_a_forward_real_on_part_of_the_line_is_proven_inside_its_domain():
    """Regression: acos(x) and log1p(x) proved "x in (-oo, oo)", a complex identity outside |x| < 1 and x > -1,
    and the mpmath check counted complex values as agreeing; XLogYGrad, PyTorch's xlogy backward (0 at x = 0 for
    y <= 0, where x*log(y) is no real number), failed ("the forward is differentiable here with derivative
    gradOutput*log(other), but the backward gives 0").  The edges of log, log1p, roots, acos, asin, atanh and acosh
    arguments now cut the line; a piece where the forward is not real, and its edge, are "domain" lines."""
    checks = {}
    for name in ("acos_grad", "log1p_grad", "x_log_y_grad"):
        results = verify_op(load_spec_file(FOLDER / f"{name}.py"))
        assert results and all(r.ok for r in results), [r for r in results if not r.ok]
        checks[name] = {(r.formula, r.check): r.verdict for r in results}
    acos = {c: v for (_, c), v in checks["acos_grad"].items()}
    assert acos["x in (-1, 1)"] == "proven" and acos["x in (1, oo)"] == acos["x = 1"] == "domain", acos
    log1p = {c: v for (_, c), v in checks["log1p_grad"].items()}
    assert log1p["x in (-1, oo)"] == "proven" and log1p["x in (-oo, -1)"] == "domain", log1p
    xlogy = checks["x_log_y_grad"]
    assert [v for (f, c), v in xlogy.items() if "other < 0" in f and c == "self = 0"] == ["domain"], xlogy
    assert [v for (f, c), v in xlogy.items() if "other > 0" in f and c == "self = 0"] == ["proven"], xlogy


def test_a_wrong_backward_still_fails_inside_the_domain(tmp_path):
    """The domain lines excuse nothing inside it: acos's backward with the wrong sign fails on (-1, 1)."""
    path = _variant(tmp_path, "acos_grad", "backward=-dy / sqrt(1 - x**2),", "backward=dy / sqrt(1 - x**2),")
    failed = [r for r in verify_op(load_spec_file(path)) if not r.ok]
    assert any(r.check == "x in (-1, 1)" for r in failed), failed


NESTED = '''"""A test op: the cosine similarity's backward w.r.t. x1, {what}."""
from codegen.spec import *

a, b, g = symbols("x1 x2 gradOutput", real=True)
dim = Symbol("dim", integer=True)
na, nb = sqrt(DimSum(a**2)), sqrt(DimSum(b**2))
SPEC = Op(
    name="aclnnCosineSimBackward", forward_name="cosine_similarity",
    params=[Tensor("gradOutput", g, role=GRAD, doc=Text("梯度。", "the gradient.")),
            Tensor("x1", a, role=FORWARD_INPUT, doc=Text("x1。", "x1.")),
            Tensor("x2", b, role=OPERAND, doc=Text("x2。", "x2.")),
            Attr("dim", dim, type="int64", doc=Text("维度。", "the dim.")),
            Output("gradX1", doc=Text("x1的梯度。", "x1's gradient."))],
    wrt=a,
    forward=a * b / (na * nb),
    reduce_dim="dim",
    backward={backward},
    dtypes={{"ascend910b": ["FLOAT"]}},
    rules=[DtypeSupported("gradOutput", "x1", "x2", "gradX1"), ShapeSame("x1", "x2", "gradX1"),
           BroadcastTo("gradOutput", "x1"), DimInRange("dim", "x1")],
    description=Text("测试。", "A test."),
)
'''


def test_a_row_sum_inside_a_row_sum_is_refused_and_a_row_of_one_element_undefined_at_0_proves(tmp_path):
    """The cosine similarity's backward (a row reduction with norms).  Written with the sum of the normalized
    products, DimSum(g*a/|a|*b/|b|), a DimSum inside a DimSum: it loaded, then the proof leaked a placeholder
    (sqrt(_dimsum)), the mpmath check raised TypeError and the C kernel did not compile (r0 undeclared); now it is
    refused when the spec loads, naming the fix.  The flat form proved for general n but failed on the row of one
    element, "residual Piecewise((nan, Eq(x1_0, 0)), (0, True))", nan only where the forward is 0/0: no disproof."""
    (tmp_path / "cosine_sim_backward.py").write_text(NESTED.format(
        what="nested", backward="(g * (b / nb) - DimSum(g * (a / na) * (b / nb)) * (a / na)) / na"))
    with pytest.raises(SpecError, match=r"a DimSum inside a DimSum .*take the inner sum out of the outer one"):
        load_spec_file(tmp_path / "cosine_sim_backward.py")
    (tmp_path / "cosine_sim_backward.py").write_text(NESTED.format(
        what="flat", backward="g * b / (na * nb) - DimSum(g * a * b) / (na * nb) * a / na**2"))
    results = verify_op(load_spec_file(tmp_path / "cosine_sim_backward.py"))
    assert results and all(r.ok for r in results), [r for r in results if not r.ok]


def test_an_overflow_or_a_nan_where_the_result_is_finite_is_reported(monkeypatch):
    """SigmoidFocalLossBackward's gamma term forms 1 - 2t, -inf at a target of 3e38, where gamma = 0 multiplies it:
    the kernel gives 0*inf = nan where the exact result (and PyTorch's) is finite.  No bound judged it (the documented
    formula leaves FLOAT there) and the overflow rule caught only ±inf, so it passed unseen; now such a nan is an
    overflow, listed in the report and failing the record unless codegen.accuracy.known.OVERFLOWS documents the
    kernel (the focal loss's is, with its reason).  An entry may name one backend (Snake's names Ascend C alone):
    then it documents that backend's kernel and no other.  (Snake's alpha*x beyond FLOAT was the ±inf example until
    codegen.trig_arguments took the sine of the exact product on NumPy and C (ovf8), SinhGrad's e^|x|/2 until cosh
    entered the vocabulary, PoissonNllLoss's 1 - t/(x + eps) until codegen.scaled, HuberLossBackward's g*w*e before
    the mean's 1/N until codegen.lower.scalars_into_branches; QuickGeluBackward's 1.702x·0 the nan example until
    codegen.saturate clamped its x.)"""
    from codegen.accuracy import known
    _torch()
    ops, _ = load_folder(FOLDER)
    op = {"sigmoid_focal_loss_backward": ops["sigmoid_focal_loss_backward"]}
    why = known.OVERFLOWS[("aclnnSigmoidFocalLossBackward", "FLOAT")]
    monkeypatch.setattr(known, "OVERFLOWS", {("aclnnSigmoidFocalLossBackward", "FLOAT", "numpy"): why})
    records = runner.run(op, backends=["numpy"], dtypes=["FLOAT"], log=lambda m: None)
    assert any(np.isnan(e.got) and np.isfinite(e.reference) for e in records[0].overflows), records[0].overflows
    assert all(r.passed and r.n_failures == 0 and r.n_documented >= r.n_overflow for r in records), records
    monkeypatch.setattr(known, "OVERFLOWS", {("aclnnSigmoidFocalLossBackward", "FLOAT", "c"): why})
    records = runner.run(op, backends=["numpy"], dtypes=["FLOAT"], log=lambda m: None)
    assert not records[0].passed and records[0].n_failures == records[0].n_overflow > 0, records[0]
    assert records[0].oracle_passed   # the oracle's verdict (opgen fuzz's): no bound there, not its to judge
    assert not records[0].failures   # listed as overflows only (the fuzzer names suspects from failures)


@pytest.mark.parametrize("backend", ["numpy", "c", "ascendc"])
def test_sinh_grad_is_finite_where_e_to_the_x_is_not(backend):
    """SinhGrad's dy*cosh(x) for 88.72 < |x| <= 89.41, where e^|x| leaves FLOAT and cosh(x) does not: written
    (e^x + e^-x)/2 every kernel gave inf; with cosh in the vocabulary each is within 2 ulp of mpmath's (the C and
    Ascend C expansions take e^(|x| - 1) times e/2 there), and inf only where the result itself is."""
    import mpmath
    from .ulp import ulp_distance
    x = np.array([88.0, 88.5, -88.75, 89.0, -89.375, 89.41, 89.4159, 89.5, 3.0, -0.5], np.float32)
    dy = np.array([1.0, -0.75, 1.25, 0.5, -1.0, 1.0, 1.0, 1.0, 2.0, 3.0], np.float32)
    got = spec_kernel("sinh_grad", backend, specs_dir=FOLDER)(x=x, dy=dy)
    with mpmath.workdps(40):
        exact = [float(mpmath.mpf(float(d)) * mpmath.cosh(mpmath.mpf(float(v)))) for v, d in zip(x, dy)]
    with np.errstate(over="ignore"):
        want = np.array(exact).astype(np.float32)   # cosh(89.5) is beyond FLOAT: inf
    assert np.isinf(want[-3]) and np.isfinite(want[:-3]).all()
    assert np.array_equal(np.isinf(got), np.isinf(want)), (got, want)
    assert np.max(ulp_distance(got[np.isfinite(want)], want[np.isfinite(want)])) <= 2, (got, want)


def test_newops5_numpy_kernels_match_pytorch():
    """The NumPy kernels of the seven against PyTorch's float64 autograd: erf, acos and log1p inside their domain
    and at its edges, sinh below the overflow window, xlogy with other broadcast (self summed back) and x = 0 for
    y of every sign, the log-cosh loss (weight absent or broadcast, every reduction), RReLU training and not."""
    torch = _torch()
    rng = np.random.default_rng(19)
    k = lambda n: spec_kernel(n, specs_dir=FOLDER)   # noqa: E731
    g = rng.normal(size=(3, 8)).astype(np.float32)
    x = rng.normal(0, 2, (3, 8)).astype(np.float32)
    x[0, :4] = [0, -0.0, 9.5, -30]
    assert _close(k("erf_grad")(x=x, dy=g), _autograd(torch, torch.erf, [x], g)[0], 4e-6)
    u = rng.uniform(-1, 1, (3, 8)).astype(np.float32)
    u[0, :3] = [-1, 1, 0]
    assert _close(k("acos_grad")(x=u, dy=np.abs(g)), _autograd(torch, torch.acos, [u], np.abs(g))[0], 4e-6)
    v = rng.uniform(-0.99, 20, (3, 8)).astype(np.float32)
    v[0, 0] = -1
    assert _close(k("log1p_grad")(x=v, dy=np.abs(g)), _autograd(torch, torch.log1p, [v], np.abs(g))[0], 4e-6)
    s = rng.uniform(-88, 88, (3, 8)).astype(np.float32)
    assert _close(k("sinh_grad")(x=s, dy=g), _autograd(torch, torch.sinh, [s], g)[0], 4e-6)
    xs = rng.normal(0, 2, (1, 8)).astype(np.float32)
    xs[0, :3] = 0
    ys = rng.uniform(0.1, 5, (3, 8)).astype(np.float32)
    ys[:, 0], ys[:, 1] = [-1, 0, 2], [0, -3, 0]
    want = _autograd(torch, lambda p: torch.xlogy(p.expand(3, 8), torch.tensor(ys, dtype=torch.float64)), [xs], g)[0]
    assert _close(k("x_log_y_grad")(grad_output=g, self=xs, other=ys), want, 4e-6)
    t = rng.normal(0, 2, (1, 8)).astype(np.float32)
    w = rng.uniform(0, 2, (8,)).astype(np.float32)
    spec = load_spec_file(FOLDER / "log_cosh_loss_backward.py")
    for weight, r in ((None, 0), (w, 1), (w, 2)):
        gg = g if r == 0 else np.float32(0.75)
        want = _autograd(torch, lambda p: spec.torch.fn(torch, p, torch.tensor(t, dtype=torch.float64),
                                                        None if weight is None else torch.tensor(
                                                            weight, dtype=torch.float64), r), [x], gg)[0]
        got = k("log_cosh_loss_backward")(grad_output=np.asarray(gg), self=x, target=t, weight_optional=weight,
                                          reduction=r)
        assert _close(got, want, 4e-6), r
    noise = np.where(x > 0, 1, rng.uniform(0.125, 0.375, x.shape)).astype(np.float32)
    for training in (True, False):
        want = torch.ops.aten.rrelu_with_noise_backward(torch.tensor(g, dtype=torch.float64), torch.tensor(
            x, dtype=torch.float64), torch.tensor(noise, dtype=torch.float64), 0.125, 0.375, training, False).numpy()
        got = k("r_relu_with_noise_backward")(grad_output=g, self=x, noise=noise, lower=0.125, upper=0.375,
                                              training=training)
        assert _close(got, want), training


# ---- newops5: deep tier ---------------------------------------------------------------------------------------
@pytest.mark.deep
@pytest.mark.parametrize("backend", ["numpy", "c", "ascendc"])
def test_newops5_ops_match_pytorch_on_every_backend(backend):
    """(newops5) The seven on every backend against PyTorch's float64 autograd: special values (±0, subnormals,
    ±inf, nan), the domain edges, strided and broadcast inputs; and bad calls with their aclnn statuses."""
    torch = _torch()
    k = lambda n: spec_kernel(n, backend=backend, specs_dir=FOLDER)   # noqa: E731
    rng = np.random.default_rng(20)
    special = np.array([0, -0.0, 1e-40, -1e-40, np.inf, -np.inf, np.nan, 1e30, -1e30, 88, -88, 1, -1], np.float32)
    x = rng.normal(0, 3, (4, 16)).astype(np.float32)
    x.flat[:special.size] = special
    g = rng.normal(size=(4, 16)).astype(np.float32)
    xv, gv = x[:, ::2], g[:, ::2]                 # strided views
    for name, f, arg in (("erf_grad", torch.erf, xv), ("sinh_grad", torch.sinh, np.clip(xv, -88, 88)),
                         ("acos_grad", torch.acos, np.clip(xv, -1, 1)), ("log1p_grad", torch.log1p, np.abs(xv) - 1)):
        want = _autograd(torch, f, [arg], gv)[0]
        assert _close(k(name)(x=arg, dy=gv), want, 4e-6), name
    ys = np.abs(rng.normal(0, 2, (1, 8))).astype(np.float32)
    ys[0, :3] = [0, -1, np.inf]
    want = _autograd(torch, lambda p: torch.xlogy(p, torch.tensor(ys, dtype=torch.float64).expand(4, 8)), [xv], gv)[0]
    assert _close(k("x_log_y_grad")(grad_output=gv, self=xv, other=ys), want, 4e-6)
    noise = np.where(xv > 0, 1, 0.25).astype(np.float32)
    for training in (True, False):
        want = torch.ops.aten.rrelu_with_noise_backward(torch.tensor(gv, dtype=torch.float64), torch.tensor(
            xv, dtype=torch.float64), torch.tensor(noise, dtype=torch.float64), 0.125, 0.375, training, False).numpy()
        assert _close(k("r_relu_with_noise_backward")(grad_output=gv, self=xv, noise=noise, lower=0.125, upper=0.375,
                                                      training=training), want), training
    f = np.ones((2, 3), np.float32)
    cases = [("erf_grad", dict(x=None, dy=f), 161001, "x"),
             ("acos_grad", dict(x=f, dy=f.astype(np.float16)), 161002, "dy"),
             ("x_log_y_grad", dict(grad_output=f, self=f, other=np.ones((3, 3), np.float32)), 161002, "other"),
             ("log_cosh_loss_backward", dict(grad_output=f, self=f, target=f, weight_optional=None, reduction=3),
              161002, "reduction"),
             ("r_relu_with_noise_backward", dict(grad_output=f, self=f, noise=f, lower=0.5, upper=0.25,
                                                 training=False), 161002, "upper")]
    for name, kw, status, param in cases:
        with pytest.raises(codegen.AclnnError) as e:
            k(name)(**kw)
        assert (e.value.status, e.value.param) == (status, param), (name, str(e.value))


# ---- newops6 (session 19) -------------------------------------------------------------------------------------
def _assert_refused(k, cases):
    """Each (op, keywords, parameter) call refused with 161002 naming the parameter."""
    for name, kw, param in cases:
        with pytest.raises(codegen.AclnnError) as e:
            k(name)(**kw)
        assert (e.value.status, e.value.param) == (161002, param), (name, str(e.value))


def _softmax_t_grad(torch, z, tau, dim, g):
    """y = softmax(z/tau) of a float64 z and PyTorch's autograd of it at z (y is given to the kernel)."""
    zt = torch.tensor(z, requires_grad=True)
    y = torch.softmax(zt / tau, dim)
    y.backward(torch.tensor(np.asarray(g, np.float64)))
    return y.detach().numpy(), zt.grad.numpy()


def _newops6_calls(torch, rng, x, g, k, row_op=True):
    """Each of the five against PyTorch's float64 autograd of its forward: (name, got, want, rtol) per call; the
    row op (its proof: 4 s of CPU uncached) only with row_op."""
    t = rng.normal(0, 2, (1, x.shape[1])).astype(np.float32)    # a target broadcast along rows
    t[0, :2] = x[0, :2]                                          # e = 0: quantile's kink, charbonnier's 0
    out = [("lisht_backward", k("lisht_backward")(grad_output=g, self=x),
            _autograd(torch, lambda p: p * torch.tanh(p), [x], g)[0], 4e-6)]
    def squareplus(p, b):
        """(x + s)/2, as b/(2(s - x)) for x <= 0 (float64 autograd of (x + s)/2 cancels there); the second branch
        reads min(x, 0), whose s - x is never 0 (torch.where's other branch leaks its nan into the gradient)."""
        n = p.clamp(max=0)
        return torch.where(p > 0, (p + torch.sqrt(p * p + b)) / 2, b / (2 * (torch.sqrt(n * n + b) - n)))
    for b in (0.25, 4.0):
        out.append(("squareplus_backward", k("squareplus_backward")(grad_output=g, self=x, b=b),
                    _autograd(torch, lambda p: squareplus(p, b), [x], g)[0], 4e-6))
    specs = {n: load_spec_file(FOLDER / f"{n}.py") for n in ("charbonnier_loss_backward", "quantile_loss_backward")}
    tt = torch.tensor(t, dtype=torch.float64)
    for r in (0, 1, 2):
        gg = g if r == 0 else np.float32(-1.25)
        for eps in (1e-3, 0.5):
            out.append(("charbonnier_loss_backward", k("charbonnier_loss_backward")(
                grad_output=np.asarray(gg), self=x, target=t, reduction=r, eps=eps), _autograd(
                torch, lambda p: specs["charbonnier_loss_backward"].torch.fn(torch, p, tt, r, eps), [x], gg)[0], 4e-6))
        for q in (0.1, 0.5, 0.875):
            out.append(("quantile_loss_backward", k("quantile_loss_backward")(
                grad_output=np.asarray(gg), self=x, target=t, q=q, reduction=r), _autograd(
                torch, lambda p: specs["quantile_loss_backward"].torch.fn(torch, p, tt, q, r), [x], gg)[0], 4e-6))
    ts = np.where(rng.random((1, x.shape[1])) < 0.5, -1, 1).astype(np.float32)
    ts[0, :3] = [0.5, 0, 2]                                      # any real target is taken as written
    with np.errstate(divide="ignore"):
        x_kink = np.where(ts != 0, 1 / ts, 0).astype(np.float32)   # 1 - t*x = 0: the hinge's (smooth) kink
    xs = np.concatenate([np.where(np.isnan(x), 0.5, x), x_kink])   # nan: PyTorch's clamp passes no gradient, 0
    gs = np.concatenate([g, g[:1]])
    tts = torch.tensor(ts, dtype=torch.float64)
    hinge = load_spec_file(FOLDER / "squared_hinge_loss_backward.py")
    for r in (0, 1, 2):
        gg = gs if r == 0 else np.float32(0.75)
        out.append(("squared_hinge_loss_backward", k("squared_hinge_loss_backward")(
            grad_output=np.asarray(gg), self=xs, target=ts, reduction=r),
            _autograd(torch, lambda p: hinge.torch.fn(torch, p, tts, r), [xs], gg)[0], 4e-6))
    for dim, tau in ((1, 0.5), (0, 3.0)) if row_op else ():
        y, want = _softmax_t_grad(torch, rng.uniform(-4, 4, x.shape), tau, dim, g)
        out.append(("softmax_temperature_backward", k("softmax_temperature_backward")(
            grad_output=g, output=y.astype(np.float32), dim=dim, tau=tau), want, 2e-5))
    return out


def test_a_rewrite_branching_on_the_sign_and_reading_a_scalar_is_proven():
    """SquareplusBackward's 1 + x/sqrt(x^2 + b): 4% off at x = -300 and 0 at x = -1e6 in FLOAT (it cancels), g/2
    for x > 1.8e19 (x^2 overflows); PyTorch's FLOAT is the same, so `opgen accuracy` passed it.  The kernel form
    is a Piecewise on the sign of u that reads the scalar b: the identity failed ("the two sides do not simplify
    to one": the proof split on the sign only for |u|), then `opgen verify` crashed (TypeError: cannot create mpf
    from b + 1600.0: the 60-digit check left b symbolic).  Now proven, and the kernel is right where it was not."""
    results = verify_op(load_spec_file(FOLDER / "squareplus_backward.py"))
    assert results and all(r.ok for r in results), [r for r in results if not r.ok]
    assert any(r.check.startswith("rewrite") and r.verdict == "proven" for r in results)
    x = np.array([-3.4e38, -1e20, -1e6, -300, 0, 1e20, 3.4e38], np.float32)
    got = spec_kernel("squareplus_backward", specs_dir=FOLDER)(grad_output=np.ones_like(x), self=x, b=0.25)
    mp = pytest.importorskip("mpmath")   # the forward's derivative at 120 digits (x + s cancels 80 of them at -3.4e38)
    with mp.workdps(120):
        want = np.array([float(mp.diff(lambda v: (v + mp.sqrt(v * v + mp.mpf("0.25"))) / 2, mp.mpf(float(v))))
                         for v in x])
    assert _close(got, want, 2e-6), (got, want)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("c", marks=pytest.mark.deep),
                                     pytest.param("ascendc", marks=pytest.mark.deep)])
def test_charbonnier_loss_backward_holds_where_the_square_leaves_float(backend):
    """CharbonnierLossBackward's e/sqrt(e^2 + eps^2) was 0 on every backend for |e| > 1.8e19 (e^2 overflows FLOAT;
    the exact result ±g, as PyTorch's FLOAT 0), a finite wrong value `opgen accuracy` did not judge.  The lowering's
    scaled root (codegen.rewrite.scaled_square_roots: |e| sqrt(1 + eps^2/e^2) above 2^62) keeps it; checked against
    mpmath's derivative of the forward sqrt(e^2 + eps^2) out to |e| = 3.4e38, each reduction (the mean's 1/N)."""
    mp = pytest.importorskip("mpmath")
    k = spec_kernel("charbonnier_loss_backward", backend=backend, specs_dir=FOLDER)
    x = np.array([3.4e38, -3.4e38, 3e38, 1e38, -7e37, 1e20, -1.9e19, 1.8e19, 4.7e18, -4.5e18, 1e10, 3.0, -1e-3, 0.0],
                 np.float32)
    t = np.array([0, 0, -1e37, 0, 1, -1e20, 0, 1e3, 0, 0, -1e10, 2.5, 0, 0], np.float32)
    g = np.linspace(-2, 2, x.size).astype(np.float32)
    for eps, reduction in ((1e-3, 0), (0.5, 1), (2e3, 2), (1e18, 0)):
        gg = g if reduction == 0 else g[:1].reshape(())
        got = k(grad_output=gg, self=x, target=t, reduction=reduction, eps=eps)
        factor = 1 / x.size if reduction == 1 else 1
        gx = np.broadcast_to(gg, x.shape)
        with mp.workdps(60):   # e = x - t exact at 60 digits; the forward's derivative, by mpmath
            loss = lambda v: mp.sqrt(v * v + mp.mpf(eps) ** 2)   # noqa: E731
            want = np.array([float(mp.diff(loss, mp.mpf(float(a)) - mp.mpf(float(b))) * mp.mpf(float(gi)) * factor)
                             for a, b, gi in zip(x, t, gx)])
        assert _close(got, want, 4e-6), (eps, reduction, got, want)


def test_a_kinks_value_without_the_means_factor_names_the_factor(tmp_path):
    """QuantileLossBackward's kink declared -q*g (the docs show at= with 0 only) failed the mean case with "the
    backward gives -gradOutput*q/numel_self" and no word of why; at= is the backward's whole value there.  The
    failure now names the factor to multiply by."""
    path = _variant(tmp_path, "quantile_loss_backward", "at={Eq(t - x, 0): -q * g * mean_factor},",
                    "at={Eq(t - x, 0): -q * g},")
    failed = [r for r in verify_op(load_spec_file(path)) if not r.ok]
    assert len(failed) == 1 and "(mean)" in failed[0].formula, failed
    assert failed[0].detail.endswith("the reduction's factor included: multiply the declared value by "
                                     "1/numel_self"), failed[0].detail


def test_newops6_numpy_kernels_match_pytorch():
    """The NumPy kernels of four of the five against PyTorch's float64 autograd: LiSHT, squareplus for two b (x
    large and negative: 1 + x/sqrt(x^2 + b) cancels), Charbonnier and the quantile loss with the target broadcast,
    e = 0 exactly (the quantile's kink: the e >= 0 side's -q*g, as torch.where), every reduction.  (The deep tier
    adds softmax with a temperature along either dim, from y = softmax(z/tau), on every backend.)"""
    torch = _torch()
    rng = np.random.default_rng(21)
    x = rng.normal(0, 3, (4, 9)).astype(np.float32)
    x[1, :6] = [0, -0.0, 1e-3, -300, 1e4, -1e6]   # (|x| > 1.8e19: test_charbonnier_loss_backward_holds_...)
    g = rng.normal(size=(4, 9)).astype(np.float32)
    for name, got, want, rtol in _newops6_calls(torch, rng, x, g, lambda n: spec_kernel(n, specs_dir=FOLDER),
                                                row_op=False):
        assert _close(got, want, rtol), name


@pytest.mark.deep
@pytest.mark.parametrize("backend", ["numpy", "c", "ascendc"])
def test_newops6_ops_match_pytorch_on_every_backend(backend):
    """(newops6) The five on every backend against PyTorch's float64 autograd, strided inputs with the special
    values (±0, subnormals, nan; ±inf where the forward's derivative exists in float64), and bad calls: each range
    rule of a Scalar or attribute refused with 161002 naming it."""
    torch = _torch()
    k = lambda n: spec_kernel(n, backend=backend, specs_dir=FOLDER)   # noqa: E731
    rng = np.random.default_rng(22)
    x = rng.normal(0, 3, (4, 18)).astype(np.float32)
    x.flat[:9] = [0, -0.0, 1e-40, -1e-40, np.nan, 1e6, -1e6, 20, -20]
    g = rng.normal(size=(4, 18)).astype(np.float32)
    xv, gv = x[:, ::2], g[:, ::2]
    for name, got, want, rtol in _newops6_calls(torch, rng, xv, gv, k):
        if name == "softmax_temperature_backward":
            assert np.allclose(got, want, rtol=rtol, atol=1e-6), (name, backend)
        else:
            assert _close(got, want, rtol), (name, backend)
    f = np.ones((2, 3), np.float32)
    cases = [("squareplus_backward", dict(grad_output=f, self=f, b=0.0), "b"),
             ("charbonnier_loss_backward", dict(grad_output=f, self=f, target=f, reduction=0, eps=-1.0), "eps"),
             ("charbonnier_loss_backward", dict(grad_output=f, self=f, target=f, reduction=3, eps=1.0), "reduction"),
             ("quantile_loss_backward", dict(grad_output=f, self=f, target=f, q=1.0, reduction=0), "q"),
             ("quantile_loss_backward", dict(grad_output=f, self=f, target=f, q=0.0, reduction=1), "q"),
             ("softmax_temperature_backward", dict(grad_output=f, output=f, dim=0, tau=0.0), "tau"),
             ("softmax_temperature_backward", dict(grad_output=f, output=f, dim=2, tau=1.0), "dim")]
    _assert_refused(k, cases)


# ---- newops7 (session 20) -------------------------------------------------------------------------------------
IGNORE = "binary_cross_entropy_with_logits_ignore_backward"


def test_an_operand_compared_with_an_attribute_is_a_case_of_the_proof(tmp_path):
    """BCE with logits and an ignore index (`Ne(target, ignoreIndex)`) failed every case with "cannot decide
    Ne(ignoreIndex, target)": an operand against a scalar was no case of the proof (an operand against a number
    was), and the same condition against a number failed too, as the forward's other conditions hide in
    max(x, 0) and |x| (the case split looked at Piecewise atoms only).  Now target < , > and = ignoreIndex are the
    cases, and a backward wrong only where the target is ignored fails there, in the proof and in mpmath."""
    results = verify_op(load_spec_file(FOLDER / f"{IGNORE}.py"))
    assert results and all(r.ok for r in results), [r for r in results if not r.ok]
    assert {"target = ignoreIndex", "target < ignoreIndex", "target > ignoreIndex"} <= {
        part for r in results for part in r.formula.split(", ")}
    fixed = _variant(tmp_path, IGNORE, "kept = Ne(t, ignore)", "kept = Ne(t, -100)")
    assert all(r.ok for r in verify_op(load_spec_file(fixed)))
    wrong = _variant(tmp_path, IGNORE, "(g * (sigmoid(x) - t), kept), (0, True)", "(g * (sigmoid(x) - t), kept), (g, True)")
    failed = [r for r in verify_op(load_spec_file(wrong)) if not r.ok]
    assert failed and all("target = ignoreIndex" in r.formula for r in failed), failed
    # the mpmath check too: it drew the target apart from the ignore index (the scalar was 0, the target random)
    assert any(r.check.startswith("mpmath") for r in failed), failed


def test_a_sympy_function_outside_the_spec_names_says_where_it_may_come_from(tmp_path):
    """Snake's x + sin(alpha*x)^2/alpha: `sin` written without an import failed with a bare NameError (sin is in
    the vocabulary since session 21; atan is not): the message says that a forward may import it from SymPy and
    that the backward's vocabulary is docs/vocabulary.md."""
    src = (FOLDER / "celu_backward.py").read_text().replace("forward=Piecewise((x, x > 0), (alpha * (exp(x / alpha) "
                                                            "- 1), True)),", "forward=x + atan(alpha * x)**2 / alpha,")
    assert "atan(" in src
    (tmp_path / "celu_backward.py").write_text(src)
    with pytest.raises(SpecError, match=r"name 'atan' is not defined: .*no atan; a forward may use any SymPy "
                                        r"function \(`from sympy import atan`\), a backward only what "
                                        r"docs/vocabulary.md lists"):
        load_spec_file(tmp_path / "celu_backward.py")


def test_an_and_inside_an_or_prints_in_parentheses_in_c():
    """IsrluBackward's `(x >= 0) | (Eq(alpha, 0) & (x < 0))` printed as `alpha == 0 && self_i < 0 || self_i >= 0`,
    which the C library's build (-Werror=parentheses) refused: the op had no C or Ascend C kernel."""
    import sympy
    from codegen.backends.c.printer import KernelCPrinter
    a, x = sympy.symbols("a x", real=True)
    text = KernelCPrinter().doprint(sympy.Or(x >= 0, sympy.And(sympy.Eq(a, 0), x < 0)))
    assert text == "((a == 0) && (x < 0)) || (x >= 0)", text


def test_the_accuracy_run_of_a_summed_second_output_and_of_an_ignore_index():
    """`opgen accuracy` on WeightedMseLossBackward failed every layout sample of gradTarget ("output shape [6, 5],
    rules require [1, 5]": the output's kernel broadcast every input to one shape, for PReLU's channels, so
    gradTarget was not summed back to target's), and crashed on the ignore index (KeyError 'ignore_index': an
    int64 attribute the forward reads had no value, and target = ignoreIndex + t was not evaluated).  The NumPy
    records pass now (FLOAT: the documented overflows of a gradient multiplied last only)."""
    ops, _ = load_folder(FOLDER)
    chosen = {n: ops[n] for n in ("weighted_mse_loss_backward", IGNORE)}
    records = runner.run(chosen, backends=["numpy"], dtypes=["FLOAT"], log=lambda m: None, use_torch=False)
    bad = [(r.name, r.failures[:3], r.errors) for r in records if r.n_failures or not (r.dual and r.single)]
    assert len(records) == 3 and not bad, bad


def _isrlu_mp(v, a):
    """ISRLU's derivative in 40-digit mpmath (float64 autograd of x/sqrt(1 + a x^2) cancels for |x| > 1e4)."""
    import mpmath
    mpmath.mp.dps = 40
    if np.isnan(v):
        return np.nan
    if np.isinf(v) or v >= 0:
        return 0.0 if v == -np.inf and a != 0 else 1.0   # (alpha = 0: the identity)
    a = mpmath.mpf(float(np.float32(a)))
    return float(mpmath.diff(lambda u: u / mpmath.sqrt(1 + a * u * u), mpmath.mpf(float(v)), direction=-1))


def _newops7_calls(torch, rng, x, g, k, row_op=True):
    """Each of the six against an independent oracle (PyTorch's float64 autograd of the forward; mpmath for ISRLU):
    (name, got, want, rtol) per call; the row op only with row_op."""
    F = torch.nn.functional
    out = [("hard_mish_backward", k("hard_mish_backward")(grad_output=g, self=x),
            _autograd(torch, lambda p: p / 2 * torch.clamp(p + 2, 0, 2), [x], g)[0], 4e-6)]
    for a, b in ((1 / 6, 0.5), (0.25, 0.5), (-0.5, 0.25), (0.0, 0.3)):
        got = k("parametric_hard_sigmoid_backward")(grad_output=g, self=x, alpha=a, beta=b)
        if (a, b) == (1 / 6, 0.5):   # PyTorch's own hardsigmoid: 0 at x = ±3 too
            want = _autograd(torch, F.hardsigmoid, [x], g)[0]
        else:                        # autograd of clamp passes the gradient at the kinks, where the op gives 0
            with np.errstate(invalid="ignore"):
                u = np.float64(np.float32(a)) * x.astype(np.float64) + np.float64(np.float32(b))
            want = _autograd(torch, lambda p: torch.clamp(float(np.float32(a)) * p + float(np.float32(b)), 0, 1),
                             [x], g)[0]
            want = np.where((u == 0) | (u == 1), 0.0, want)
        out.append(("parametric_hard_sigmoid_backward", got, want, 2e-7))
    for a in (0.0, 0.5, 3.0):
        want = np.array([_isrlu_mp(v, a) for v in x.flat]).reshape(x.shape) * g.astype(np.float64)
        out.append(("isrlu_backward", k("isrlu_backward")(grad_output=g, self=x, alpha=a), want, 4e-6))
    xf = np.where(np.isfinite(x) & (np.abs(x) < 1e30), x, 1.5).astype(np.float32)   # |x| < 1e30: 2w(x - t) finite
    t = rng.normal(0, 2, (1, x.shape[1])).astype(np.float32)
    w = rng.uniform(0, 2, (x.shape[0], 1)).astype(np.float32)
    for r in ("none", "mean", "sum"):
        gg = g if r == "none" else np.float32(-1.25)
        def mse(p, q, ww):
            loss = ww * (p - q) ** 2
            return {"none": loss, "mean": loss.mean(), "sum": loss.sum()}[r]
        want = _autograd(torch, mse, [xf, t, w], gg)
        got = k("weighted_mse_loss_backward")(grad_output=np.asarray(gg), self=xf, target=t, weight=w, reduction=r)
        assert got[1].shape == t.shape
        out += [("weighted_mse_loss_backward", got[0], want[0], 4e-6),
                ("weighted_mse_loss_backward", got[1], want[1], 4e-6)]
    tt = rng.random(x.shape).astype(np.float32)
    tt[:, ::3] = 255
    ignore = load_spec_file(FOLDER / f"{IGNORE}.py")
    for r in (0, 2):
        gg = g if r == 0 else np.float32(0.75)
        ttt = torch.tensor(tt, dtype=torch.float64)
        want = _autograd(torch, lambda p: ignore.torch.fn(torch, p, ttt, 255, r), [x], gg)[0]
        got = k(IGNORE)(grad_output=np.asarray(gg), self=x, target=tt, ignore_index=255, reduction=r)
        out.append((IGNORE, got, want, 4e-6))
    for dim, tau in ((1, 0.5), (0, 3.0)) if row_op else ():
        zt = torch.tensor(rng.uniform(-4, 4, x.shape), requires_grad=True)
        y = torch.log_softmax(zt / tau, dim)
        y.backward(torch.tensor(g.astype(np.float64)))
        out.append(("log_softmax_temperature_backward", k("log_softmax_temperature_backward")(
            grad_output=g, output=y.detach().numpy().astype(np.float32), dim=dim, tau=tau), zt.grad.numpy(), 2e-5))
    return out


def _newops7_inputs(rng, cols):
    x = rng.normal(0, 3, (4, cols)).astype(np.float32)
    x.flat[:17] = [0, -0.0, 1e-40, -1e-40, np.nan, 1e6, -1e6, 20, -20, -2, 2, -3, 3, np.inf, -np.inf, 3.4e38,
                   -3.4e38]
    return x, rng.normal(size=(4, cols)).astype(np.float32)


def test_newops7_numpy_kernels_match_pytorch():
    """The NumPy kernels of five of the six against PyTorch's float64 autograd of the forward (ISRLU: mpmath, as
    PyTorch's float64 cancels), with ±0, subnormals, nan, ±inf, ±3.4e38 and the kinks (HardMish's -2,
    HardSigmoid's ±3): HardMish's nan x gives nan (the middle form is the last branch), ISRLU at alpha = 0 gives g
    for x = -3.4e38 (alpha*x^2 = 0*inf before alpha = 0 became its own branch: nan).  (The deep tier adds the
    log-softmax with a temperature and every backend.)"""
    torch = _torch()
    rng = np.random.default_rng(71)
    x, g = _newops7_inputs(rng, 18)
    for name, got, want, rtol in _newops7_calls(torch, rng, x, g, lambda n: spec_kernel(n, specs_dir=FOLDER),
                                                row_op=False):
        assert _close(got, want, rtol), name


@pytest.mark.deep
@pytest.mark.parametrize("backend", ["numpy", "c", "ascendc"])
def test_newops7_ops_match_pytorch_on_every_backend(backend):
    """(newops7) The six on every backend, strided inputs with the special values, FLOAT16 for two, and bad calls:
    each rule refused with 161002 naming the parameter."""
    torch = _torch()
    k = lambda n: spec_kernel(n, backend=backend, specs_dir=FOLDER)   # noqa: E731
    rng = np.random.default_rng(72)
    x, g = _newops7_inputs(rng, 36)
    xv, gv = x[:, ::2], g[:, ::2]
    for name, got, want, rtol in _newops7_calls(torch, rng, xv, gv, k):
        if name == "log_softmax_temperature_backward":
            assert np.allclose(got, want, rtol=rtol, atol=1e-6), (name, backend)
        else:
            assert _close(got, want, rtol), (name, backend)
    xh = np.linspace(-4, 4, 33).astype(np.float16)   # every multiple of 1/4: -2 and 0 exactly
    gh = np.ones_like(xh)
    want = _autograd(torch, lambda p: p / 2 * torch.clamp(p + 2, 0, 2), [xh.astype(np.float64)], gh)[0]
    assert _close(k("hard_mish_backward")(grad_output=gh, self=xh), want.astype(np.float16), 1e-3)
    want = np.array([_isrlu_mp(v, 0.5) for v in xh.astype(np.float64)])
    assert _close(k("isrlu_backward")(grad_output=gh, self=xh, alpha=0.5), want.astype(np.float16), 1e-3)
    f = np.ones((2, 3), np.float32)
    cases = [("isrlu_backward", dict(grad_output=f, self=f, alpha=-0.5), "alpha"),
             ("log_softmax_temperature_backward", dict(grad_output=f, output=f, dim=0, tau=0.0), "tau"),
             ("log_softmax_temperature_backward", dict(grad_output=f, output=f, dim=2, tau=1.0), "dim"),
             ("weighted_mse_loss_backward", dict(grad_output=f, self=f, target=f, weight=f, reduction="avg"),
              "reduction"),
             ("weighted_mse_loss_backward", dict(grad_output=f, self=f, target=np.ones((3, 3), np.float32),
                                                 weight=f, reduction="sum"), "target"),
             (IGNORE, dict(grad_output=f, self=f, target=f, ignore_index=-100, reduction=1), "reduction"),
             (IGNORE, dict(grad_output=f, self=f, target=np.ones(3, np.float32), ignore_index=-100, reduction=0),
              "target"),
             ("hard_mish_backward", dict(grad_output=f, self=f.astype(np.float16)), "self"),
             ("parametric_hard_sigmoid_backward", dict(grad_output=f, self=np.ones((3, 2), np.float32), alpha=0.2,
                                                       beta=0.5), "self")]
    _assert_refused(k, cases)


# ---- newops8: sin and cos (Snake, SIREN's sine activation) ---------------------------------------------------
def _snake(torch, x, a):
    """BigVGAN's activations.Snake forward, alpha per channel (dimension 1), no_div_by_zero = 1e-9."""
    a = a.reshape(1, -1, *[1] * (x.dim() - 2))
    return x + 1.0 / (a + 1e-9) * torch.sin(x * a) ** 2


def _newops8_inputs(rng, cols):
    x = rng.normal(0, 3, (2, 4, cols)).astype(np.float32)
    x[0, 0, :12] = [0, -0.0, 1e-40, -1e-40, np.nan, np.inf, -np.inf, 1.5707964, -3.1415927, 20, -20, 6.2831855]
    return x, rng.normal(size=x.shape).astype(np.float32)


def _newops8_calls(torch, x, g, k, all_five=True):
    """(name, got, want) for Snake (both outputs; alpha = 0 in one channel, the specials in channel 0, whose
    gradAlpha is then nan), SineActivation for several omega0, CosGrad, SquaredRelu (nan for a nan x) and Shrink
    (at its edges, lambd < 0 clamped) against PyTorch's float64 autograd of the forward.
    The kernels round alpha*x (omega0*x) to FLOAT where float64 holds it exactly: hence |x| < 40 (the specials
    aside) and the tolerance of _near."""
    alpha = np.array([0.5, 1.0, 0.0, 2.5], np.float32)
    got = k("snake_backward")(grad_output=g, self=x, alpha=alpha)
    want = _autograd(torch, lambda p, a: _snake(torch, p, a), [x, alpha], g)
    out = [("snake_backward gradInput", got[0], want[0]), ("snake_backward gradAlpha", got[1], want[1])]
    for w in (30.0, 1.0, -2.5, 0.0):
        want = _autograd(torch, lambda p: torch.sin(w * p), [x], g)[0]
        out.append((f"sine_activation_backward omega0={w}",
                    k("sine_activation_backward")(grad_output=g, self=x, omega0=w), want))
    if not all_five:
        return out
    out.append(("cos_grad", k("cos_grad")(x=x, dy=g), _autograd(torch, torch.cos, [x], g)[0]))
    out.append(("squared_relu_backward", k("squared_relu_backward")(grad_output=g, self=x),
                _autograd(torch, lambda p: torch.relu(p) ** 2, [x], g)[0]))
    shrink = load_spec_file(FOLDER / "shrink_backward.py").torch.fn
    for lambd, bias in ((0.5, 0.0), (2.0, 0.5), (-1.0, 0.25), (1.5707964, 3.0)):   # x = lambd exactly: 0
        out.append((f"shrink_backward lambd={lambd}", k("shrink_backward")(grad_output=g, self=x, lambd=lambd,
                                                                            bias=bias),
                    _autograd(torch, lambda p: shrink(torch, p, lambd, bias), [x], g)[0]))
    return out


def _near(got, want) -> bool:
    """Within 1e-4 (relative, and absolute for results near 0), nan where the oracle is nan."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    with np.errstate(invalid="ignore"):
        return bool(np.all((got == want) | (np.isnan(got) & np.isnan(want))
                           | (np.abs(got - want) <= 1e-4 * (1 + np.abs(want)))))


def test_newops8_numpy_kernels_match_pytorch():
    """Snake and SIREN's sine activation, the NumPy kernels against PyTorch's float64 autograd of the forward
    (the deep tier: all five of newops8, every backend, strided inputs)."""
    torch = _torch()
    x, g = _newops8_inputs(np.random.default_rng(81), 12)
    for name, got, want in _newops8_calls(torch, x, g, lambda n: spec_kernel(n, specs_dir=FOLDER), False):
        assert got.shape == want.shape and _near(got, want), name


def test_the_accuracy_reference_of_a_sine_at_infinity_is_nan():
    """sin(x) has no limit as x -> inf: the reference, which stands 1e300 in for an infinite x (every other
    derivative has reached its limit there), gave cos(1e300)-like values where PyTorch and every kernel give nan,
    for the differentiated variable and for an infinite operand (Snake's x in gradAlpha)."""
    from codegen.accuracy.reference import Reference
    op = load_spec_file(FOLDER / "sine_activation_backward.py")
    ref = Reference(op, op.variants[0])
    assert mpmath.isnan(ref._d_elementwise(mpmath.inf, [], [mpmath.mpf(30)]))
    assert not mpmath.isnan(ref._d_elementwise(mpmath.mpf(1e10), [], [mpmath.mpf(30)]))
    grad_alpha = load_spec_file(FOLDER / "snake_backward.py").per_output[1]
    ref = Reference(grad_alpha, grad_alpha.variants[0])   # d/dalpha, x an operand: nan at x = inf, not a limit
    assert ref.oscillates(mpmath.mpf(0.5), [mpmath.inf], [])
    assert not ref.oscillates(mpmath.mpf(0.5), [mpmath.mpf(3)], [])
    # a bounded argument has its limit (codegen.fuzz, sin(tanh(E*x))**2/...: the reference said nan, the kernels 0)
    op = load_spec_file(FOLDER / "sine_activation_backward.py")
    op = dataclasses.replace(op, forward=sympy.sin(sympy.tanh(op.wrt)), backward=op.grad.symbol * (1 - sympy.tanh(
        op.wrt) ** 2) * sympy.cos(sympy.tanh(op.wrt)), torch=None)
    ref = Reference(op, op.variants[0])
    assert float(ref._d_elementwise(mpmath.inf, [], [])) == 0.0


_SNAKE_LARGE = [(0.8948, 3e38), (0.8948, 1.5e38), (3e38, -5.79020643), (-5.79020643, 3e38), (-3.0, 3.00405527e38),
                (1.0, 1e5), (0.5, 7.0), (2.5, -1.25), (3e38, 1.5e38), (-1e30, 2.5)]


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_a_sine_of_a_product_beyond_float_precision_is_of_the_exact_product(backend):
    """(ovf8) Snake's sin(alpha*x) and SIREN's cos(omega0*x) rounded the product to FLOAT before the sine: at
    x = 3e38, alpha = 0.8948 fl(alpha*x) is 2.7e30 off and gradAlpha was 2.29e37 for the exact -1.08e38; at
    alpha = 3e38, x = -5.8 the product was inf and the gradient nan for 0.44.  NumPy and C now take the sine of
    the product in double (exact for two FLOATs) where |fl(alpha*x)| > 2^16 (codegen.trig_arguments).  Against
    mpmath's derivative of the forward.  (ovf9) gradAlpha at alpha = 3e38 too: the lowering wrote 1/(alpha + 1e-9)
    as 1e9/(1e9 alpha + 1), whose denominator is inf there (g = 0.75: -0 for -0.0322 at x = 1.5e38, 0 for 8.1e-39 at
    x = -5.79; codegen.lower._content)."""
    mpmath.mp.dps = 90
    alpha = np.array([a for a, _ in _SNAKE_LARGE], np.float32)
    x = np.array([x for _, x in _SNAKE_LARGE], np.float32).reshape(1, -1, 1)
    g = np.full(x.shape, 0.75, np.float32)
    got = spec_kernel("snake_backward", backend=backend, specs_dir=FOLDER)(grad_output=g, self=x, alpha=alpha)
    eps = mpmath.mpf(1) / 10 ** 9
    for k, (a, v) in enumerate(zip(alpha.tolist(), x.ravel().tolist())):
        a, v = mpmath.mpf(a), mpmath.mpf(v)
        forward = lambda p, q: p + mpmath.sin(q * p) ** 2 / (q + eps)   # noqa: E731
        d_x = float(0.75 * mpmath.diff(lambda p: forward(p, a), v))
        d_a = float(0.75 * mpmath.diff(lambda q: forward(v, q), a))
        assert abs(got[0].ravel()[k] - d_x) <= 1e-6 * abs(d_x), (k, got[0].ravel()[k], d_x)
        assert abs(got[1][k] - d_a) <= 1e-6 * abs(d_a), (k, got[1][k], d_a)
    w = np.array([30.0, 1e30, 2.0], np.float32)
    x = np.array([1e37, 1e10, 3.0], np.float32)
    sine = spec_kernel("sine_activation_backward", backend=backend, specs_dir=FOLDER)
    for omega0 in w.tolist():
        got = sine(grad_output=np.ones_like(x), self=x, omega0=omega0)
        want = [float(mpmath.diff(lambda p: mpmath.sin(mpmath.mpf(omega0) * p), mpmath.mpf(v))) for v in x.tolist()]
        assert np.allclose(got, want, rtol=1e-6, atol=0), (omega0, got, want)


def test_only_a_sine_of_a_product_of_two_floats_gets_the_exact_argument():
    """codegen.trig_arguments: sin(a*x), cos(omega*x) and sin(x**2) (the product of two FLOATs, exact in double)
    get the branch; sin(x), sin(2*x) (exact in FLOAT), sin(a*b*x) and sin(x + a) (no exact double product) do not;
    the FLOAT branch is the old sine of the temporary, and Ascend C's `narrowed` form is the old kernel."""
    from codegen.trig_arguments import ExactArgument, exact_arguments, narrowed
    a, b, x, t0 = sympy.symbols("a b x t0", real=True)
    temps = [(t0, a * x)]
    for e in (sympy.sin(t0), sympy.cos(t0), sympy.sin(a * x), sympy.sin(x ** 2), sympy.sin(x * 3 / 10)):
        body = exact_arguments(temps + [(b, e)], x)[0][-1][1]
        assert isinstance(body, sympy.Piecewise) and body.args[-1][0] == e, body
        (wide, cond), _ = body.args
        assert isinstance(wide, ExactArgument) and wide.args[0].func == e.func and cond.is_Relational, body
        assert narrowed(temps + [(b, body)], x) == (temps + [(b, e)], x)
    for e in (sympy.sin(x), sympy.sin(2 * x), sympy.sin(a * b * x), sympy.sin(x + a), sympy.sin(-x)):
        assert exact_arguments(temps + [(b, e)], x) == (temps + [(b, e)], x), e


@pytest.mark.deep
@pytest.mark.parametrize("backend", ["numpy", "c", "ascendc"])
def test_newops8_ops_match_pytorch_on_every_backend(backend):
    """(newops8) The five on every backend, strided inputs with the special values, and bad calls: each refused
    with 161002 naming the parameter."""
    torch = _torch()
    k = lambda n: spec_kernel(n, backend=backend, specs_dir=FOLDER)   # noqa: E731
    x, g = _newops8_inputs(np.random.default_rng(82), 24)
    for name, got, want in _newops8_calls(torch, x[:, :, ::2], g[:, :, ::2], k):
        assert _near(got, want), (name, backend)
    f = np.ones((2, 4, 3), np.float32)
    cases = [("snake_backward", dict(grad_output=f, self=f, alpha=np.ones(3, np.float32)), "alpha"),
             ("snake_backward", dict(grad_output=f, self=f, alpha=np.ones(4, np.float16)), "alpha"),
             ("sine_activation_backward", dict(grad_output=f, self=f[:, :2], omega0=30.0), "self")]
    _assert_refused(k, cases)


# ---- newops9 (session 22): row ops of new shapes, a loss with kinks at t +- omega, SReLU, LogAddExp ------------
def _newops9_calls(torch, rng, k, all_five=True):
    """(name, got, want, tolerance) for the newops9 ops against PyTorch's float64 autograd of each forward, on
    ordinary inputs and at the boundaries: SReLU at both kinks (tl < tr and tl = tr), LogAddExp broadcast (3, 1)
    with (1, 4) and at a = b, MeanCenter along every axis and a row of one element, and (all_five) L2Normalize in
    FLOAT16 (a zero row: eps keeps it finite) and Wing at d = 0 and |d| = omega exactly, every reduction."""
    out = []
    for tl, al, tr, ar in ((-1.0, 0.125, 2.0, 3.0), (0.5, -0.5, 0.5, 2.0)):
        x = np.concatenate([rng.uniform(-4, 4, 28), [tl, tr, tl - 1e-3, tr + 1e-3]]).astype(np.float32)
        g = rng.uniform(-2, 2, x.size).astype(np.float32)
        want = _autograd(torch, lambda p: torch.where(p > tr, tr + ar * (p - tr),
                                                      torch.where(p < tl, tl + al * (p - tl), p)), [x], g)[0]
        out.append((f"s_relu_backward tl={tl} tr={tr}", k("s_relu_backward")(grad_output=g, self=x, tl=tl, al=al,
                                                                            tr=tr, ar=ar), want, 2e-6))
    for a, b in ((rng.normal(0, 3, (3, 1)), rng.normal(0, 3, (1, 4))), (np.full((2, 3), 0.75), np.full((2, 3), 0.75))):
        a, b = a.astype(np.float32), b.astype(np.float32)
        g = rng.uniform(-2, 2, np.broadcast_shapes(a.shape, b.shape)).astype(np.float32)
        want = _autograd(torch, torch.logaddexp, [a, b], g)
        got = k("log_add_exp_backward")(grad_output=g, self=a, other=b)
        out += [("log_add_exp_backward gradSelf", got[0], want[0], 2e-6),
                ("log_add_exp_backward gradOther", got[1], want[1], 2e-6)]
    for shape, dim in (((3, 4, 5), 0), ((3, 4, 5), -1), ((4, 1), 1)):
        x, g = rng.normal(0, 2, shape), rng.normal(0, 2, shape).astype(np.float32)
        want = _autograd(torch, lambda p: p - p.mean(dim, keepdim=True), [x], g)[0]
        out.append((f"mean_center_backward dim={dim}", k("mean_center_backward")(grad_output=g, dim=dim), want,
                    -1e-6))   # g - mean(g) cancels: within 1e-6 of the largest |result| (a negative tolerance)
    if not all_five:
        return out
    for x, dim, eps in ((rng.normal(0, 2, (4, 6)), 1, 1e-6), (rng.normal(0, 2, (4, 6)), 0, 0.5),
                        (np.zeros((2, 3)), 1, 1e-3)):
        x, g = x.astype(np.float16), rng.normal(0, 1, x.shape).astype(np.float16)
        want = _autograd(torch, lambda p: p / torch.sqrt((p * p).sum(dim, keepdim=True) + eps), [x], g)[0]
        out.append((f"l2_normalize_backward dim={dim}", k("l2_normalize_backward")(grad_output=g, self=x, dim=dim,
                                                                                  eps=eps), want, 1e-3))
    om, ep = 2.0, 0.5
    t = rng.uniform(-1, 1, 24).astype(np.float32)
    x = (t + rng.uniform(-4, 4, 24)).astype(np.float32)
    t[:4], x[:4] = [0.5, 0.5, 0.5, 0.25], [0.5, 2.5, -1.5, 0.25]          # d = 0, +omega, -omega, 0
    w = rng.uniform(0, 2, 24).astype(np.float32)
    for red in (0, 1, 2):
        for weight in (None, w):
            def wing(p, red=red, weight=weight):
                d = (p - torch.tensor(t, dtype=torch.float64)).abs()
                e = torch.where(d < om, om * torch.log1p(d / ep), d - (om - om * np.log1p(om / ep)))
                e = e if weight is None else torch.tensor(weight, dtype=torch.float64) * e
                return {0: e, 1: e.mean(), 2: e.sum()}[red]
            g = rng.uniform(-2, 2, 24 if red == 0 else ()).astype(np.float32)
            want = _autograd(torch, wing, [x], g)[0]
            got = k("wing_loss_backward")(grad_output=np.asarray(g), self=x, target=t, weight_optional=weight,
                                          omega=om, epsilon=ep, reduction=red)
            out.append((f"wing_loss_backward reduction={red}", got, want, 2e-6))
    return out


def _close9(got, want, rtol) -> bool:
    """_close, or for a negative rtol within |rtol| times the largest |want| (a difference that cancels)."""
    if rtol >= 0:
        return _close(got, want, rtol)
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return bool(np.all(np.abs(got - want) <= -rtol * np.max(np.abs(want))))


def test_newops9_numpy_kernels_match_pytorch():
    """SReLU, LogAddExp and MeanCenter, the NumPy kernels against PyTorch's float64 autograd of the forward (the
    deep tier: all five, every backend, bad calls)."""
    torch = _torch()
    k = lambda n: spec_kernel(n, specs_dir=FOLDER)   # noqa: E731
    for name, got, want, rtol in _newops9_calls(torch, np.random.default_rng(91), k, all_five=False):
        assert got.shape == want.shape and _close9(got, want, rtol), name


@pytest.mark.deep
@pytest.mark.parametrize("backend", ["numpy", "c", "ascendc"])
def test_newops9_ops_match_pytorch_on_every_backend(backend):
    """(newops9) The five on every backend against PyTorch's autograd, and bad calls refused with 161002 naming
    the parameter (a reduction outside OneOf, tl > tr, eps = 0, a dim out of range)."""
    torch = _torch()
    k = lambda n: spec_kernel(n, backend=backend, specs_dir=FOLDER)   # noqa: E731
    for name, got, want, rtol in _newops9_calls(torch, np.random.default_rng(92), k):
        assert got.shape == want.shape and _close9(got, want, rtol), (name, backend)
    f, h = np.ones((2, 3), np.float32), np.ones((2, 3), np.float16)
    _assert_refused(k, [
        ("wing_loss_backward", dict(grad_output=f, self=f, target=f, weight_optional=None, omega=2.0, epsilon=0.5,
                                    reduction=7), "reduction"),
        ("s_relu_backward", dict(grad_output=f, self=f, tl=1.0, al=0.5, tr=0.0, ar=2.0), "tr"),
        ("l2_normalize_backward", dict(grad_output=h, self=h, dim=1, eps=0.0), "eps"),
        ("mean_center_backward", dict(grad_output=f, dim=2), "dim")])


def test_a_domain_edge_where_another_branch_is_taken_is_no_cut_point():
    """The Wing loss's log(1 + (t - x)/eps) is its branch for x < t: the edge of log's domain, x = t + eps, lies
    where x >= t takes another branch, and ordering it against t + omega failed every case ("cannot order the
    branch points omega + target and epsilon + target").  An edge where the branch is taken stays (log(x) for
    x > -1 has its edge 0)."""
    from codegen.verify.intervals import atoms, piecewise_form, sort_points
    from codegen.verify.proof import _pieces, domain_edges, live_domain_edges
    x, t = sympy.symbols("x t", real=True)
    om, ep = sympy.symbols("omega epsilon", positive=True)
    d = sympy.Abs(x - t)
    pieces = _pieces(piecewise_form(sympy.Piecewise((om * sympy.log(1 + d / ep), d < om), (d, True)), x))
    trees = [atoms(c, x) for _, c in pieces]
    assert any(e.has(ep) for e in domain_edges([f for f, _ in pieces], x))
    assert live_domain_edges(pieces, trees, x) == []
    assert sort_points([t - om, t, t + om] + live_domain_edges(pieces, trees, x)) == [t - om, t, t + om]
    pieces = _pieces(piecewise_form(sympy.Piecewise((sympy.log(x), x > -1), (x, True)), x))
    assert live_domain_edges(pieces, [atoms(c, x) for _, c in pieces], x) == [0]


def test_a_several_output_ops_half_tuned_kernels_are_called():
    """LogAddExpBackward's outputs are g*sigmoid(...): each output's kernel has a copy tuned to a FLOAT16 or
    BFLOAT16 output, which the several-output phase 1 never chose; the C library's build refused the unused
    function (-Werror=unused-function).  Every such copy is now emitted and called."""
    import re
    from codegen.backends.c.emit import op_sources
    ops, _ = load_folder(FOLDER)
    src = next(v for n, v in op_sources(ops["log_add_exp_backward"], "test").items() if n.endswith(".c"))
    halves = re.findall(r"static void (\w+_half)\(", src)
    assert halves and all(len(re.findall(rf"\b{h}\b", src)) >= 2 for h in halves), halves


def test_a_row_op_whose_derivative_reads_no_x_needs_no_tensor_holding_x():
    """MeanCenterBackward, x - DimSum(x)/DimSum(1), has the derivative g - DimSum(g)/n, free of x: it was refused
    ("the forward's derivative reads x": SymPy kept d/dx DimSum(x) unevaluated) and now proves."""
    ops, _ = load_folder(FOLDER)
    op = ops["mean_center_backward"]
    assert not any(t.role in ("FORWARD_INPUT", "FORWARD_OUTPUT") for t in op.tensors)
    results = verify_op(op, numeric=False)
    assert results and all(r.ok for r in results) and any(r.verdict == "proven" for r in results)


def test_an_int64_reduction_without_its_one_of_rule_is_refused(tmp_path):
    """Without OneOf("reduction", ...) a reduction of 7 was computed as none, silently, on every backend."""
    path = _variant(tmp_path, "wing_loss_backward", '        OneOf("reduction", [0, 1, 2]),\n', "")
    with pytest.raises(SpecError, match=r"add the rule OneOf\('reduction', \[0, 1, 2\]\)"):
        load_spec_file(path)


def test_an_undeclared_kinks_hint_is_written_in_the_specs_symbols(tmp_path):
    """SReLU without at=: the hint for the kink at tr said at={Eq(self, tl + tr_minus_tl): ...}, the proof's
    substitution for tl < tr, a symbol no spec has."""
    path = _variant(tmp_path, "s_relu_backward", "    at={Eq(x, tl): g, Eq(x, tr): g},\n", "")
    failed = [r.detail for r in verify_op(load_spec_file(path), numeric=False) if not r.ok]
    assert any("at={Eq(self, tr): ...}" in d for d in failed), failed
    assert not any("_minus_" in d for d in failed), failed


def test_abs_in_a_row_op_is_refused_naming_it(tmp_path):
    """y = x/(DimSum(|x|) + eps) (an L1 normalization): the row proof has no branches; the failure named only
    "Piecewise", which the spec does not contain."""
    path = _variant(tmp_path, "l2_normalize_backward", "sq = DimSum(x**2) + eps", "sq = (DimSum(Abs(x)) + eps)**2")
    failed = [r.detail for r in verify_op(load_spec_file(path), numeric=False) if not r.ok]
    assert any("Abs" in d and "row op (DimSum)" in d for d in failed), failed


def test_a_several_output_ops_torch_grad_serves_every_output():
    """`TorchGrad` on a several-output op: each output's op differentiates its own input, so `opgen accuracy`
    has PyTorch's column for both of LogAddExpBackward's outputs (none before)."""
    torch = _torch()
    from codegen.accuracy import torch_ref
    ops, _ = load_folder(FOLDER)
    rng = np.random.default_rng(93)
    a, b, g = (rng.normal(0, 2, (2, 3)).astype(np.float32) for _ in range(3))
    want = _autograd(torch, torch.logaddexp, [a, b], g)
    for sub, w in zip(ops["log_add_exp_backward"].per_output, want):
        got = torch_ref.run(sub, dict(grad_output=g, self=a, other=b), np.float64)
        assert got is not None and _close(got, w, 1e-6), sub.output.name


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_wing_loss_weight_beyond_float_times_its_quotient_is_scaled(backend):
    """(ovf8) WingLossBackward's w*omega*sign(d)/(eps + |d|) formed inf at w = 3e38 where omega/(eps + |d|) > 1,
    before |g| < 1 brought the result back (was known.OVERFLOWS' _WING).  codegen.scaled now takes a factor that is a
    choice among plain values (the Piecewise of the two branches, |d| as exact as sign(d)).  Against PyTorch's float64
    autograd of the Wing forward, weighted, reductions none and mean; ordinary elements beside."""
    torch = _torch()
    omega, eps = 10.0, 2.0
    x = np.array([[0.5, -1.0, 3.25, 20.0], [0.75, 1.5, -2.0, 0.125]], np.float32)
    t = np.zeros_like(x)
    w = np.array([[3e38, 3e38, 2.5e38, 3e38], [1.5, -0.5, 3e38, 2.0]], np.float32)
    for reduction, g in ((0, np.array([[0.01, -0.05, 0.02, 0.5], [0.3, -1.25, 0.001, 2.0]], np.float32)),
                         (1, np.float32(0.25))):
        def forward(p, tt, ww):
            a = (p - tt).abs()
            e = ww * torch.where(a < omega, omega * torch.log1p(a / eps), a - (omega - omega * np.log1p(omega / eps)))
            return e if reduction == 0 else e.mean()
        want = _autograd(torch, forward, [x, t, w], g)[0]
        got = spec_kernel("wing_loss_backward", backend=backend, specs_dir=FOLDER)(
            grad_output=np.asarray(g, np.float32), self=x, target=t, weight_optional=w, omega=omega, epsilon=eps,
            reduction=reduction)
        assert np.all(np.isfinite(got)) and _close(got, want, rtol=3e-7), (reduction, got, want)
