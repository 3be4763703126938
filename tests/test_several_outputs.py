"""Several outputs (codegen.spec.outputs): an op returning more than one gradient, each output proven on its own.

tests/several_outputs/prelu_backward.py states PreluBackward's mathematics: gradInput, the gradient w.r.t. self (the op's `wrt`),
and gradWeight = Output(wrt=weight, sum_to="weight"), whose branch is decided by self, not by the weight it
differentiates.  The NumPy backend returns both (a tuple; out= a tuple), checked against PyTorch autograd; the C
backend (one call per output in one executor) and the Ascend C backend (one AI Core kernel with a variant per
output) give the same bits; CANN's op_api cases give their statuses through Python and C; each output passes the
differential oracle on every backend.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import codegen
from codegen.errors import SpecError
from codegen.spec import Formula, Output, Piecewise
from codegen.validate import validate
from codegen.verify import verify_op

from .compare import EPS, assert_elementwise_close

SPECS = Path(__file__).parent / "several_outputs"


@pytest.fixture(scope="module")
def prelu():
    return codegen.load_specs(SPECS)["prelu_backward"]


def _syms(op):
    return op.param("self").symbol, op.param("weight").symbol, op.param("gradOutput").symbol


def test_each_output_is_proven_against_the_one_forward(prelu):
    results = verify_op(prelu, numeric=True)
    assert results and all(r.ok for r in results), [r for r in results if not r.ok]
    by_output = {r.formula.split(":")[0] for r in results}
    assert by_output == {"gradInput", "gradWeight"}
    weight_lines = [r for r in results if r.formula.startswith("gradWeight:")]
    # gradWeight's branch is decided by self, an operand there: proven branch by branch, and checked in mpmath
    assert any("the branch conditions are free of weight" in r.detail for r in weight_lines)
    assert any(r.check.startswith("mpmath") and r.verdict == "agrees" for r in weight_lines)
    # the declared value at self = 0 is gradInput's only (the library's negative branch)
    assert any(r.verdict == "convention" and r.formula.startswith("gradInput:") for r in results)


def test_a_wrong_output_fails_with_its_name_and_the_other_still_proves(prelu):
    x, w, g = _syms(prelu)
    wrong = dataclasses.replace(prelu, backward=[prelu.formulas[0], Formula(Piecewise((0, x > 0), (g * w, True)),
                                                                             output="gradWeight")])
    results = verify_op(wrong, numeric=True)
    failed = [r for r in results if not r.ok]
    assert failed and all(r.formula.startswith("gradWeight:") for r in failed)
    assert any("residual" in r.detail for r in failed)          # the symbolic proof
    assert any(r.check.startswith("mpmath") for r in failed)    # and the mpmath check, each on its own
    assert all(r.ok for r in results if r.formula.startswith("gradInput:"))


def _torch_grads(g, x, w):
    """PReLU's two gradients by PyTorch autograd in float64 (the independent oracle): weight flattened, as CANN
    does, and gradWeight summed over every axis but the channel by autograd itself."""
    torch = pytest.importorskip("torch")
    tx = torch.tensor(x.astype(np.float64), requires_grad=True)
    tw = torch.tensor(w.astype(np.float64).reshape(-1), requires_grad=True)
    torch.nn.functional.prelu(tx, tw).backward(torch.tensor(np.broadcast_to(g, x.shape).astype(np.float64)))
    return tx.grad.numpy(), tw.grad.numpy()


@pytest.mark.parametrize("shape, wshape, dtype", [
    ((2, 3, 4, 5), (3,), "FLOAT"),        # one weight per channel (dimension 1)
    ((2, 3, 4, 5), (1,), "FLOAT16"),      # one weight shared by every channel
    ((2, 4, 3), (2, 2), "BFLOAT16"),      # C = 4 weights in any shape; gradWeight is [4]
    ((2, 4, 3), (1, 1), "FLOAT"),         # a one-element weight of any shape; gradWeight has its shape
    ((7,), (1,), "FLOAT"),                # rank 1: no channel axis, one weight
    ((), (1,), "FLOAT"),                  # rank 0
])
def test_the_numpy_kernel_returns_both_gradients_as_autograd_gives_them(prelu, shape, wshape, dtype):
    from codegen.spec.dtypes import DTYPES
    nd = DTYPES[dtype].numpy_dtype()
    rng = np.random.default_rng(31)
    x = rng.uniform(-2, 2, shape).astype(nd)
    x.reshape(-1)[:1] = 0                  # x = 0 takes the negative branch (the library's kernel)
    w, g = rng.uniform(-1, 1, wshape).astype(nd), rng.uniform(-1, 1, shape).astype(nd)
    gi, gw = codegen.kernel("prelu_backward", specs_dir=SPECS)(grad_output=g, self=x, weight=w)
    want_gi, want_gw = _torch_grads(g, x, w)
    c = 1 if w.size == 1 else w.size
    assert gi.shape == x.shape and gi.dtype == nd and gw.dtype == nd
    assert gw.shape == (wshape if w.size == 1 else (c,))
    assert_elementwise_close(gi, want_gi.astype(nd), dtype, "gradInput vs autograd")
    # a sum of x.size / C terms: within the dtype's rounding of the result plus FLOAT's per term
    tol = 2 * EPS[dtype] * np.abs(want_gw) + 2 * EPS["FLOAT"] * (x.size / c) * np.abs(x).max(initial=0)
    assert np.all(np.abs(gw.reshape(-1).astype(np.float64) - want_gw) <= tol), (gw, want_gw)


def test_out_takes_one_array_or_none_per_output_and_an_empty_input_writes_nothing(prelu):
    k = codegen.kernel("prelu_backward", specs_dir=SPECS)
    x = np.array([[-1.0, 2.0], [3.0, -4.0]], np.float32)
    w, g = np.array([0.5, 0.25], np.float32), np.ones((2, 2), np.float32)
    gw = np.full(2, 7.0, np.float32)
    gi, same = k(grad_output=g, self=x, weight=w, out=(None, gw))
    assert same is gw and gw.tolist() == [-1.0, -4.0] and gi.tolist() == [[0.5, 1.0], [1.0, 0.25]]
    with pytest.raises(TypeError, match="out must be None or a tuple of 2 arrays"):
        k(grad_output=g, self=x, weight=w, out=gw)
    xs = x.copy()   # gradInput over self (in place): gradWeight still sees the original self
    gi, gw3 = k(grad_output=g, self=xs, weight=w, out=(xs, None))
    assert gi is xs and gi.tolist() == [[0.5, 1.0], [1.0, 0.25]] and gw3.tolist() == [-1.0, -4.0]
    empty = np.zeros((0, 2), np.float32)
    gi, gw2 = k(grad_output=empty, self=empty, weight=w)
    assert gi.shape == (0, 2) and gw2.tolist() == [0.0, 0.0]   # allocated: the sum over no element
    gi, same = k(grad_output=empty, self=empty, weight=w, out=(None, gw))
    assert same is gw and gw.tolist() == [-1.0, -4.0]           # given: nothing written, as the library does


def test_a_backend_without_several_outputs_refuses_them_rather_than_emit_the_first(prelu):
    from codegen.spec.outputs import EMITS_SEVERAL, refuse_emit
    assert set(EMITS_SEVERAL) == {"numpy", "c", "ascendc", "docs"}
    with pytest.raises(SpecError, match="several outputs \\(gradInput, gradWeight\\): the tpu backend"):
        refuse_emit(prelu, "tpu")


@pytest.mark.deep   # (a simulator build: ~5 s of CPU)
def test_the_ascendc_kernel_gives_the_numpy_kernels_bits_in_place_too(prelu):
    """One AI Core kernel with a variant per output (outputIndex), launched once per output on the simulator, the
    summed output's FLOAT terms reduced after; results stored only after every launch, so gradInput over self
    (in place) leaves gradWeight right."""
    import ml_dtypes
    kn = codegen.kernel("prelu_backward", specs_dir=SPECS)
    ka = codegen.kernel("prelu_backward", backend="ascendc", specs_dir=SPECS)
    rng = np.random.default_rng(11)
    for shape, wshape, dtype in [((3, 4, 5), (4,), ml_dtypes.bfloat16), ((2, 4, 3), (2, 2), np.float16)]:
        x, g = rng.uniform(-2, 2, shape).astype(dtype), rng.uniform(-1, 1, shape).astype(dtype)
        w = rng.uniform(-1, 1, wshape).astype(dtype)
        for got, want in zip(ka(grad_output=g, self=x, weight=w), kn(grad_output=g, self=x, weight=w)):
            assert got.shape == want.shape and got.dtype == want.dtype and np.array_equal(got, want), (shape, wshape)
    x, g = rng.uniform(-2, 2, (4, 3, 5)).astype(np.float32), rng.uniform(-1, 1, (4, 3, 5)).astype(np.float32)
    w = rng.uniform(-1, 1, 1).astype(np.float32)
    want_gi, want_gw = kn(grad_output=g, self=x, weight=w)
    gi, gw = ka(grad_output=g, self=x, weight=w, out=(x, None))
    assert gi is x and np.array_equal(gi, want_gi) and np.array_equal(gw, want_gw)


def test_the_c_kernel_gives_the_numpy_kernels_bits_in_any_order_of_writing(prelu):
    """One C call per output in one executor: the same bits as NumPy (FLOAT16 too, a [2, 2] weight, a 1-element
    one), and gradInput written over self (in place) still leaves gradWeight computed from the original self:
    opgen_phase1_calls runs gradWeight's call first then."""
    kn = codegen.kernel("prelu_backward", specs_dir=SPECS)
    kc = codegen.kernel("prelu_backward", backend="c", specs_dir=SPECS)
    rng = np.random.default_rng(7)
    for shape, wshape, dtype in [((3, 4, 5), (4,), np.float16), ((2, 4, 3), (2, 2), np.float32),
                                 ((6, 1), (1, 1), np.float32), ((0, 3), (3,), np.float32)]:
        x, g = rng.uniform(-2, 2, shape).astype(dtype), rng.uniform(-1, 1, shape).astype(dtype)
        w = rng.uniform(-1, 1, wshape).astype(dtype)
        for got, want in zip(kc(grad_output=g, self=x, weight=w), kn(grad_output=g, self=x, weight=w)):
            assert got.shape == want.shape and got.dtype == want.dtype and np.array_equal(got, want), (shape, wshape)
    x, g = rng.uniform(-2, 2, (4, 3, 5)).astype(np.float32), rng.uniform(-1, 1, (4, 3, 5)).astype(np.float32)
    w = rng.uniform(-1, 1, 3).astype(np.float32)
    want_gi, want_gw = kn(grad_output=g, self=x, weight=w)
    gi, gw = kc(grad_output=g, self=x, weight=w, out=(x, None))
    assert gi is x and np.array_equal(gi, want_gi) and np.array_equal(gw, want_gw)


def _cases():
    from tests.op_api_cases import prelu_backward as module
    return module.CASES


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c.name)
def test_cann_op_api_case_gives_its_status_through_python_and_c(prelu, case):
    """CANN's op_api cases of PreluBackward (tests/op_api_cases/prelu_backward.py) as tests/test_op_api_cases.py
    runs every op's in specs/ (that module skips this op, not in specs/ yet): the NumPy checker and C's phase 1 give
    CANN's status, and a call that succeeds computes the same in both backends."""
    from tests import test_op_api_cases as T
    from tests.op_api_cases import prelu_backward as module
    T._check_names(prelu, module, case)
    got_py, kw = T._python_outcome(prelu, case)
    got_c = T._c_outcome(prelu, case)
    assert (got_py, got_c) == (case.status, case.status), f"{case.name}: Python {got_py}, C {got_c}, CANN {case.expect}"
    empty_input = kw is not None and any(isinstance(v, np.ndarray) and v.size == 0 for k, v in kw.items() if k != "out")
    if case.status == 0 and not empty_input:   # (tests/test_op_api_cases._same_results, for a spec outside specs/)
        c_out = tuple(np.zeros_like(o) for o in kw["out"])
        want = codegen.kernel("prelu_backward", specs_dir=SPECS)(**kw)
        got = codegen.kernel("prelu_backward", backend="c", specs_dir=SPECS)(**dict(kw, out=c_out))
        assert all(g is o for g, o in zip(got, c_out)) and all(w is o for w, o in zip(want, kw["out"]))
        for a, b in zip(got, want):
            assert_elementwise_close(a, b, T.dtype_name(b), "C vs NumPy")


@pytest.mark.parametrize("backend", ["numpy", "c", pytest.param("ascendc", marks=pytest.mark.deep)])
def test_each_output_passes_the_differential_oracle(prelu, backend):
    """The oracle per output (codegen/accuracy/outputs.py): prelu_backward[gradInput] and [gradWeight], FLOAT16 (the
    other dtypes and products: `opgen --specs tests/several_outputs oracle`; Ascend C's simulator build under
    --deep)."""
    from codegen.accuracy import oracle
    records = oracle.check({"prelu_backward": prelu}, backends=[backend], dtypes=["FLOAT16"], products=["ascend910b"])
    assert {r.op for r in records} == {"prelu_backward[gradInput]", "prelu_backward[gradWeight]"}
    assert not oracle.failed(records), [oracle.describe(r) for r in oracle.failed(records)]


@pytest.mark.parametrize("change, message", [
    ("form_for_unknown_output", "output='gradBias' is not one of the outputs"),
    ("output_without_form", "output gradWeight: no backward form computes it"),
    ("two_outputs_same_input", "another output is already the gradient w.r.t. self"),
    ("wrt_not_a_tensor", "is not the symbol of an input tensor"),
    ("wrt_on_a_single_output", "Output(wrt=...) and Formula(output=...) are for an operator with several outputs"),
])
def test_a_bad_several_output_spec_is_refused_with_what_is_wrong(prelu, change, message):
    x, w, g = _syms(prelu)
    first, second = prelu.formulas
    params = list(prelu.params)
    backward = [first, second]
    i = next(k for k, p in enumerate(params) if p.name == "gradWeight")
    if change == "form_for_unknown_output":
        backward = [first, second, dataclasses.replace(second, output="gradBias")]
    elif change == "output_without_form":
        backward = [first]
    elif change == "two_outputs_same_input":
        params[i] = dataclasses.replace(params[i], wrt=x)
    elif change == "wrt_not_a_tensor":
        params[i] = dataclasses.replace(params[i], wrt=codegen.spec.Symbol("bias", real=True))
    elif change == "wrt_on_a_single_output":
        params = [p for p in params if p.name != "gradInput"]
    bad = dataclasses.replace(prelu, params=params, backward=backward)
    with pytest.raises(SpecError, match=message.replace("(", "\\(").replace(")", "\\)").replace(".", "\\.")):
        validate(bad)


def test_a_single_output_op_is_its_own_and_has_no_per_output_ops():
    from codegen.loader import REPO_ROOT, load_spec_file
    op = load_spec_file(REPO_ROOT / "specs" / "kl_div_target_backward.py")
    assert [o.name for o in op.outputs] == ["gradTarget"] and op.per_output == []
    assert isinstance(op.output, Output)
