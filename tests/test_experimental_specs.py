"""The specs of examples/experimental_specs/: CANN's experimental backward APIs (ops-nn `experimental/`), written
from the README and the spec-language pages alone, as a new user would.  None is one of the 42 operators: they
are not generated into generated/, only loaded, proven and run from their folder.

CI tier: every spec loads and validates; SoftsignBackward (Ascend 950 only) on the NumPy and C backends against
PyTorch, refused by Ascend C (no 950 architecture here) with the reason; two ops (the string reduction's mean of MseLossGrad, the two outputs of GaussianNllLossGrad) are proven and their
NumPy kernels compared with PyTorch's float64 autograd; HingeLossGrad (cases on the sign of target) against
finite differences; ReluGradV4's UINT8 mask generated in its own dtype and judged by the accuracy harness;
ReluGradV3's ShapeSameOrOneElement in both checkers.  Deep tier: `opgen accuracy` on every backend for every op,
and every op on every backend against PyTorch's autograd.
"""
from __future__ import annotations

import numpy as np
import pytest

import codegen
from codegen.accuracy import runner
from codegen.errors import SpecError
from codegen.loader import load_folder, load_spec_file
from codegen.verify import verify_op

from .conftest import REPO
from .kernels import spec_kernel
from .test_c_checker_parity import _outcome

FOLDER = REPO / "examples" / "experimental_specs"
OPS = ["gaussian_nll_loss_grad", "hard_shrink_grad", "hard_sigmoid_grad_v2", "hinge_loss_grad", "mse_loss_grad",
       "relu_grad_v3", "relu_grad_v4", "softmax_grad", "softsign_backward", "tanh_grad"]


def _torch():
    torch = pytest.importorskip("torch")
    torch.set_default_dtype(torch.float64)
    return torch


def _rel(got, want) -> float:
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1e-30)))


# ---- CI tier -------------------------------------------------------------------------------------------------
def test_every_spec_of_the_folder_loads_and_validates():
    ops, errors = load_folder(FOLDER)
    assert not errors, errors
    assert sorted(ops) == OPS


def test_an_ascend_950_only_op_runs_on_numpy_and_c_and_ascend_c_says_why_not():
    """SoftsignBackward is on the 950 only (it failed to load while the 950 was not a product): proven, its NumPy
    and C kernels equal to PyTorch's autograd on ascend950 (the product a call without `product=` runs on), refused
    on ascend910b with 161002 naming the product it runs on, and the Ascend C backend (no 950 architecture yet) refuses a call naming that."""
    torch = _torch()
    op = load_spec_file(FOLDER / "softsign_backward.py")
    assert list(op.dtypes) == ["ascend950"] and all(r.ok for r in verify_op(op))
    rng = np.random.default_rng(7)
    x = rng.uniform(-5, 5, (3, 9)).astype(np.float32)
    g = rng.normal(size=(3, 9)).astype(np.float32)
    xt = torch.tensor(x.astype(np.float64), requires_grad=True)
    torch.nn.functional.softsign(xt).backward(torch.tensor(g.astype(np.float64)))
    for backend in ("numpy", "c"):
        k = spec_kernel("softsign_backward", backend=backend, specs_dir=FOLDER)
        assert _rel(k(gradients=g, features=x, product="ascend950"), xt.grad.numpy()) < 1e-6, backend
        with pytest.raises(codegen.AclnnError, match="does not run on ascend910b.*runs on ascend950") as e:
            k(gradients=g, features=x, product="ascend910b")
        assert e.value.status == 161002
        # without product=, a call runs on the op's default product: its first when it has no ascend910b (session 23)
        assert np.array_equal(k(gradients=g, features=x), k(gradients=g, features=x, product="ascend950")), backend
    k = spec_kernel("softsign_backward", backend="ascendc", specs_dir=FOLDER)
    with pytest.raises(SpecError, match="none of its products \\(ascend950\\) has an Ascend C architecture"):
        k(gradients=g, features=x, product="ascend950")


def test_hinge_loss_grad_proves_on_each_sign_of_target_and_matches_finite_differences():
    """target*predict < 1: the coefficient of x is an operand element, so the proof splits on its sign (target < 0
    flips the branch, target = 0 has none); the NumPy kernel against the forward max(0, 1 - t*x) differentiated
    by central differences in float64, targets of both signs and zero."""
    results = verify_op(load_spec_file(FOLDER / "hinge_loss_grad.py"))
    assert all(r.ok for r in results), [r for r in results if not r.ok]
    assert {r.formula for r in results} == {"target < 0", "target > 0", "target = 0"}
    k = spec_kernel("hinge_loss_grad", specs_dir=FOLDER)
    rng = np.random.default_rng(6)
    x = rng.uniform(-3, 3, (5, 8)).astype(np.float32)
    t = rng.uniform(-2, 2, (5, 8)).astype(np.float32)
    t[0, :4] = 0
    g = rng.normal(size=(5, 8)).astype(np.float32)
    x64, t64, h = x.astype(np.float64), t.astype(np.float64), 1e-6
    loss = lambda a: np.maximum(0, 1 - t64 * a)
    want = g.astype(np.float64) * (loss(x64 + h) - loss(x64 - h)) / (2 * h)
    away = np.abs(t64 * x64 - 1) > 1e-3   # (no derivative at the kink)
    got = np.asarray(k(predict=x, target=t, grad_output=g), np.float64)
    assert away.sum() > 30 and np.max(np.abs(got - want)[away]) < 1e-6


def test_a_hinge_branch_right_for_one_sign_of_target_only_fails():
    """`predict < 1/target` is target*predict < 1 only where target > 0: the case target < 0 refutes it."""
    src = (FOLDER / "hinge_loss_grad.py").read_text()
    wrong = src.replace("(-t * g, t * x < 1)", "(-t * g, x < 1 / t)")
    assert wrong != src
    import tempfile, pathlib
    with tempfile.TemporaryDirectory() as d:
        (pathlib.Path(d) / "hinge_loss_grad.py").write_text(wrong)
        failed = [r for r in verify_op(load_spec_file(pathlib.Path(d) / "hinge_loss_grad.py")) if not r.ok]
    assert any(r.formula == "target < 0" and r.verdict == "FAILED" for r in failed), failed
    assert not any(r.formula == "target > 0" for r in failed), failed
    # at target = 0 the condition divides by zero: the failure says so, and what to write instead
    assert all("divides by a value that is 0 where target = 0" in r.detail for r in failed
               if r.formula == "target = 0"), failed


def test_an_operand_coefficient_inside_abs_gets_sign_cases_and_its_kinks_declared(tmp_path):
    """|scale*x| > 1 with scale a tensor of either sign: the proof splits on scale's sign as for HingeLossGrad, and
    `at={Eq(Abs(t*x), 1): ...}` names both kinks x = ±1/t (a newcomer's way to write them)."""
    src = (FOLDER / "hard_shrink_grad.py").read_text()
    spec = src.replace('x, g, lam = symbols("self gradOutput lambda", real=True)',
                       'x, g, lam, t = symbols("self gradOutput lambda scale", real=True)')
    scalar = 'Scalar("lambd", lam, dtype="FLOAT", doc=Text("公式中的λ,须大于等于0。", "λ in the formula; must be at least 0."))'
    spec = spec.replace(scalar, 'Tensor("scale", t, role=OPERAND, doc=Text("t。", "t."))')
    spec = spec.replace("Abs(x) > lam", "Abs(t * x) > 1").replace("at={Eq(x, lam): 0, Eq(x, -lam): 0}",
                                                                   "at={Eq(Abs(t * x), 1): 0}")
    spec = spec.replace('DtypeSupported("gradOutput", "self", "output")',
                        'DtypeSupported("gradOutput", "self", "scale", "output")')
    spec = spec.replace('        Requires("lambd", lam >= 0),\n', "").replace(
        'ShapeSame("gradOutput", "self", "output")', 'ShapeSame("gradOutput", "self", "scale", "output")')
    spec = spec.replace('    torch=Torch("hardshrink_backward", "gradOutput", "self", "lambd"),\n', "")
    assert spec.count("Abs(t * x)") == 3 and "Scalar(" not in spec and "Requires(" not in spec and "torch=" not in spec
    (tmp_path / "scaled_shrink_grad.py").write_text(spec)
    op = load_spec_file(tmp_path / "scaled_shrink_grad.py")
    t = op.param("scale").symbol
    assert {p for p, _, _ in op.declared(op.formulas[0])} == {1 / t, -1 / t}
    results = verify_op(op)
    assert all(r.ok for r in results), [r for r in results if not r.ok]
    assert {r.formula for r in results} == {"scale < 0", "scale > 0", "scale = 0"}


def test_relu_grad_v4_mask_is_generated_in_its_own_dtype():
    """The accuracy inputs pass the UINT8 mask as UINT8 (its own table), zero and nonzero, every other tensor in
    the kernel's dtype; the NumPy kernel passes `opgen accuracy`'s judgement on FLOAT16."""
    from codegen.accuracy.inputs import FAST, samples
    op = load_spec_file(FOLDER / "relu_grad_v4.py")
    ss = samples(op, "FLOAT16", FAST)
    masks = [s.kw["self"] for s in ss]
    assert all(m.dtype == np.uint8 for m in masks)
    assert all(s.kw["grad_output"].dtype == np.float16 for s in ss)
    seen = np.concatenate([m.reshape(-1) for m in masks])
    assert (seen == 0).any() and (seen > 1).any()
    records = runner.run({"relu_grad_v4": op}, ["numpy"], dtypes=["FLOAT16"], log=lambda m: None)
    assert records and all(r.n_failures == 0 and r.dual and r.single and r.errors_all.n > 100 for r in records), \
        [(r.failures[:3], r.errors) for r in records]


# y of ReluGradV3 against x of shape (2, 3, 4): accepted, or refused by ShapeSameOrOneElement
SAME_OR_ONE = [((2, 3, 4), True), ((), True), ((1,), True), ((1, 1, 1, 1), True), ((1, 3, 4), False),
               ((2, 1, 4), False), ((2, 3, 1), False), ((4,), False), ((3, 4), False), ((0,), False),
               ((2, 3, 4, 1), False), ((1, 2, 3, 4), False)]


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_shape_same_or_one_element_verdicts(backend):
    """ReluGradV3's y: x's shape or exactly one element (any rank); a shape NumPy would broadcast is refused with
    161002 naming y and the rule, by the Python checker (NumPy backend) and the C checker alike, with the same
    message; an accepted one-element y is broadcast by the kernel."""
    k = spec_kernel("relu_grad_v3", backend=backend, specs_dir=FOLDER)
    x = np.arange(-11, 13, dtype=np.float32).reshape(2, 3, 4)
    for shape, ok in SAME_OR_ONE:
        y = np.full(shape, 1.5, np.float32)
        if ok:
            assert np.array_equal(k(x=x, y=y), np.where(x > 0, np.float32(1.5), np.float32(0))), shape
            continue
        with pytest.raises(codegen.AclnnError) as e:
            k(x=x, y=y)
        assert (e.value.status, e.value.param) == (161002, "y"), shape
        assert e.value.message == (f"y must have the shape of x [2, 3, 4] or exactly one element, got "
                                   f"[{', '.join(map(str, shape))}]")


def test_shape_same_or_one_element_error_inputs_agree_in_both_checkers():
    """The error inputs derived from relu_grad_v3's rules (tests/error_inputs.py): the C checker reports each as the
    Python checker does, and the rule's own input (a y of x's shape but 1 along the last axis) is 161002 on y."""
    from .error_inputs import error_inputs, valid_call
    op = load_spec_file(FOLDER / "relu_grad_v3.py")
    py, c = (spec_kernel("relu_grad_v3", backend=b, specs_dir=FOLDER) for b in ("numpy", "c"))
    base = valid_call(op, np.random.default_rng(0))
    base = dict(base, out=py(**base))
    inputs = error_inputs(op, base, "ascend910b")
    assert any(e.rule == "ShapeSameOrOneElement" and e.kw["y"].shape == (1,) + base["x"].shape for e in inputs)
    for e in inputs:
        want = _outcome(lambda: py(**e.kw))
        got = _outcome(lambda: c(**e.kw))
        assert want is not None and want[:2] == (e.status, e.param) and got == want, (e.rule, got, want)


def test_defaults_of_the_call_example_and_the_tiling_report_take_every_spec():
    """`opgen docs` and `opgen tiling` on this folder: the call example's data for a scalar the example leaves out
    satisfies its own Requires rule (ReluGradV4's threshold == 0, not the default 1.0, which failed the example
    program), an integer-only tensor gets 0/1 data (not -1 in a uint8_t), and the tiling report skips the INT
    dtypes no AI Core kernel reads (it raised KeyError 'INT32')."""
    from codegen.backends.ascendc import report
    from codegen.spec.example import resolve
    ops, _ = load_folder(FOLDER)
    ex = resolve(ops["relu_grad_v4"])
    assert ex.scalars["threshold"] == 0.0 and set(ex.tensors["self"][1]) == {0.0, 1.0}
    assert resolve(ops["relu_grad_v3"]).tensors["x"][1][0] == -1.5   # (float tensors keep the default data)
    rows = report.rows({n: ops[n] for n in ("relu_grad_v3", "relu_grad_v4")})
    assert rows and {r["dtype"] for r in rows} == {"FLOAT16", "FLOAT", "BFLOAT16"}


def test_bench_inputs_give_the_mask_its_own_dtype():
    """`opgen bench` on this folder: the derived layout of ReluGradV4 passes its mask as UINT8 (relu(x) rounded),
    gradOutput in the case's dtype, and the kernel accepts the call (it was refused: self of dtype FLOAT)."""
    from codegen.bench import cases as C
    ops, _ = load_folder(FOLDER)
    k = spec_kernel("relu_grad_v4", specs_dir=FOLDER)
    for case in C.select({"relu_grad_v4": ops["relu_grad_v4"]}, quick=True):
        kw = case.inputs()
        assert kw["self"].dtype == np.uint8 and kw["grad_output"].dtype != np.uint8 and kw["threshold"] == 0
        got = k(**kw)
        assert np.array_equal(got, np.where(kw["self"] != 0, kw["grad_output"], 0)), case.dtype


def test_a_string_reduction_mean_without_its_divisor_fails_the_proof(tmp_path):
    """Regression: `Reduction.mode` read a string attribute's description ("the mean") as its mode, so the mean
    had no divisor: the proof accepted MseLossGrad's mean form without the 1/numel factor and every backend
    computed N times PyTorch's gradient."""
    src = (FOLDER / "mse_loss_grad.py").read_text()
    wrong = src.replace('Formula(2 * (x - t) * g / N, when={"reduction": "mean"})',
                        'Formula(2 * (x - t) * g, when={"reduction": "mean"})')
    assert wrong != src
    (tmp_path / "mse_loss_grad.py").write_text(wrong)
    failed = [r for r in verify_op(load_spec_file(tmp_path / "mse_loss_grad.py")) if not r.ok]
    assert failed and all("reduction=mean" in r.formula for r in failed), failed


def test_mse_loss_grad_string_reduction_matches_pytorch():
    torch = _torch()
    op = load_spec_file(FOLDER / "mse_loss_grad.py")
    assert all(r.ok for r in verify_op(op))
    k = spec_kernel("mse_loss_grad", specs_dir=FOLDER)
    rng = np.random.default_rng(3)
    x, t = (rng.uniform(-3, 3, (3, 5)).astype(np.float32) for _ in range(2))
    for red, go in [("none", rng.normal(size=(3, 5)).astype(np.float32)), ("mean", np.float32(1.5)),
                    ("sum", np.float32(-0.5))]:
        xt = torch.tensor(x.astype(np.float64), requires_grad=True)
        torch.nn.functional.mse_loss(xt, torch.tensor(t.astype(np.float64)), reduction=red).backward(
            torch.tensor(np.float64(go) if np.ndim(go) == 0 else go.astype(np.float64)))
        got = k(grad_output=np.asarray(go, np.float32).reshape(np.shape(go) or (1,)), self=x, target=t,
                reduction=red)
        assert _rel(got, xt.grad.numpy()) < 1e-6, red


def test_gaussian_nll_loss_grad_two_outputs_match_pytorch():
    """Both outputs, with var partly below eps (PyTorch clamps it without a gradient through the clamp)."""
    torch = _torch()
    op = load_spec_file(FOLDER / "gaussian_nll_loss_grad.py")
    assert all(r.ok for r in verify_op(op))
    k = spec_kernel("gaussian_nll_loss_grad", specs_dir=FOLDER)
    rng = np.random.default_rng(4)
    x, t = (rng.uniform(-3, 3, (4, 6)).astype(np.float32) for _ in range(2))
    v = rng.uniform(0, 2, (4, 6)).astype(np.float32)
    v[0, :3] = 1e-4
    xt, vt = (torch.tensor(a.astype(np.float64), requires_grad=True) for a in (x, v))
    torch.nn.functional.gaussian_nll_loss(xt, torch.tensor(t.astype(np.float64)), vt, full=True, eps=1e-2,
                                          reduction="mean").backward(torch.tensor(0.75))
    gi, gv = k(grad_output=np.array([0.75], np.float32), input=x, target=t, var=v, full=True, eps=1e-2,
               reduction="mean")
    assert _rel(gi, xt.grad.numpy()) < 1e-5 and _rel(gv, vt.grad.numpy()) < 1e-5


def test_per_tensor_dtypes_must_be_a_table(tmp_path):
    """A bare list as a tensor's dtypes= (the docs' "overrides the operator's table") is a clear SpecError, not an
    AttributeError from deep inside validation."""
    src = (FOLDER / "relu_grad_v4.py").read_text()
    bad = src.replace('dtypes={"ascend910b": ["UINT8"]}', 'dtypes=["UINT8"]')
    assert bad != src
    (tmp_path / "relu_grad_v4.py").write_text(bad)
    with pytest.raises(SpecError, match=r"self: dtypes= must be a \{product: \[dtypes\]\} dict"):
        load_spec_file(tmp_path / "relu_grad_v4.py")


def test_several_outputs_need_a_shape_rule_each(tmp_path):
    """One ShapeSame naming both outputs is dropped from each output's op: the spec is refused at load time (it
    used to verify, then Ascend C's InferShape failed at the first call)."""
    src = (FOLDER / "gaussian_nll_loss_grad.py").read_text()
    bad = src.replace('ShapeSame("input", "gradInput"),', 'ShapeSame("input", "gradInput", "gradVar"),')
    bad = bad.replace('        ShapeSame("input", "gradVar"),\n', "")
    assert bad != src
    (tmp_path / "gaussian_nll_loss_grad.py").write_text(bad)
    with pytest.raises(SpecError, match="output gradInput: no shape rule of its own fixes its shape"):
        load_spec_file(tmp_path / "gaussian_nll_loss_grad.py")


# ---- deep tier -----------------------------------------------------------------------------------------------
@pytest.mark.deep
@pytest.mark.parametrize("name", OPS)
def test_accuracy_on_every_backend(name):
    ops, _ = load_folder(FOLDER)
    records = runner.run({name: ops[name]}, log=lambda m: None)
    runs = [b for b in codegen.backends.kernel_backends()   # (Ascend C: not on an Ascend 950 only op)
            if getattr(codegen.backends.get(b), "products", lambda op: True)(ops[name])]
    assert {r.backend for r in records} == set(runs)
    bad = [(r.name, r.backend, r.dtype, r.failures[:3], r.errors) for r in records
           if r.n_failures or not (r.dual and r.single)]
    assert not bad, bad


@pytest.mark.deep
@pytest.mark.parametrize("backend", ["numpy", "c", "ascendc"])
def test_every_op_matches_pytorch_autograd(backend):
    torch = _torch()
    F = torch.nn.functional
    k = lambda n: spec_kernel(n, backend=backend, specs_dir=FOLDER)
    rng = np.random.default_rng(5)
    shape = (4, 7)
    x, t = (rng.uniform(-4, 4, shape).astype(np.float32) for _ in range(2))
    g = rng.normal(size=shape).astype(np.float32)
    T = lambda a, grad=False: torch.tensor(np.asarray(a, np.float64), requires_grad=grad)

    def autograd(f, *inputs, grad=g):
        leaves = [T(a, True) for a in inputs]
        f(*leaves).backward(T(grad))
        return [leaf.grad.numpy() for leaf in leaves]

    y = np.tanh(x.astype(np.float64)).astype(np.float32)   # the kernel's y; autograd at its exact pre-image
    assert _rel(k("tanh_grad")(y=y, dy=g), autograd(torch.tanh, np.arctanh(y.astype(np.float64)))[0]) < 1e-6
    ys = torch.softmax(T(x), -1).numpy().astype(np.float32)
    assert _rel(k("softmax_grad")(y=ys, dy=g), autograd(lambda a: torch.softmax(a, -1), x)[0]) < 1e-5
    assert _rel(k("hard_shrink_grad")(grad_output=g, self=x, lambd=0.5),
                autograd(lambda a: F.hardshrink(a, 0.5), x)[0]) == 0
    assert _rel(k("hard_sigmoid_grad_v2")(grad_output=g, self=x), autograd(F.hardsigmoid, x)[0]) < 1e-7
    if backend != "ascendc":   # (the 950 has no Ascend C architecture here)
        assert _rel(k("softsign_backward")(gradients=g, features=x, product="ascend950"),
                    autograd(F.softsign, x)[0]) < 1e-6
    assert _rel(k("relu_grad_v3")(x=x, y=g), autograd(torch.relu, x)[0]) == 0
    assert _rel(k("relu_grad_v3")(x=x, y=np.array([0.75], np.float32)),
                autograd(torch.relu, x, grad=np.full(shape, 0.75))[0]) == 0
    xi = rng.integers(-5, 5, shape).astype(np.int32)
    gi = rng.integers(-9, 9, shape).astype(np.int32)
    assert np.array_equal(k("relu_grad_v3")(x=xi, y=gi), np.where(xi > 0, gi, 0))
    assert _rel(k("relu_grad_v4")(grad_output=g, self=(x > 0).astype(np.uint8), threshold=0.0),
                autograd(torch.relu, x)[0]) == 0
    t[0, :3] = 0   # targets of both signs and zero
    assert _rel(k("hinge_loss_grad")(predict=x, target=t, grad_output=g),
                autograd(lambda a: torch.relu(1 - T(t) * a), x)[0]) < 1e-7
    for red in ("none", "mean", "sum"):
        go = g if red == "none" else np.array([1.7], np.float32)
        want = autograd(lambda a: F.mse_loss(a, T(t), reduction=red), x, grad=go.reshape(np.shape(g) if red ==
                                                                                           "none" else ()))
        assert _rel(k("mse_loss_grad")(grad_output=go, self=x, target=t, reduction=red), want[0]) < 1e-6, red
        v = rng.uniform(0, 2, shape).astype(np.float32)
        v[0, :3] = 1e-4
        want = autograd(lambda a, w: F.gaussian_nll_loss(a, T(t), w, full=True, eps=1e-2, reduction=red), x, v,
                        grad=go.reshape(np.shape(g) if red == "none" else ()))
        got = k("gaussian_nll_loss_grad")(grad_output=go, input=x, target=t, var=v, full=True, eps=1e-2,
                                          reduction=red)
        assert _rel(got[0], want[0]) < 1e-5 and _rel(got[1], want[1]) < 1e-5, red
