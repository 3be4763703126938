"""The `const aclIntArray *` parameter kind (codegen.spec.params.IntArray) and the sequence mask it drives
(codegen.spec.sequence), on tests/feature_specs/sequence_tanh_backward.py: a time-major [T, N, ...] tanh whose
frames at or past inputLengths[b] take no part in the forward, as CtcLossBackward's inputLengths.

The values are held to PyTorch's autograd of the masked forward (an independent oracle); the Python and C checkers
to the same verdicts on good and bad arrays; bad specs are refused with what is wrong."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import torch

import codegen
from codegen.errors import SpecError
from codegen.verify import verify_op

FEATURES = Path(__file__).parent / "feature_specs"
SPEC = FEATURES / "sequence_tanh_backward.py"
NAME = "sequence_tanh_backward"


@pytest.fixture(scope="module")
def op():
    return codegen.load_specs(FEATURES)[NAME]


BACKENDS = ["numpy", "c", "ascendc"]   # ascendc: the kernel on the simulator, level 2's mask after it


@pytest.fixture(scope="module", params=BACKENDS)
def fn(request):
    return codegen.kernel(NAME, backend=request.param, specs_dir=FEATURES)


def torch_grad(g, x, lengths):
    """PyTorch autograd of y = tanh(x) where t < lengths[b], 0 elsewhere (t along axis 0, b along axis 1)."""
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    t = torch.arange(x.shape[0]).reshape([-1] + [1] * (x.ndim - 1))
    n = torch.tensor(lengths).reshape([1, -1] + [1] * (x.ndim - 2))
    y = torch.where(t < n, torch.tanh(xt), torch.zeros_like(xt))
    y.backward(torch.tensor(g, dtype=torch.float64))
    return xt.grad.numpy()


def test_the_proof_covers_both_sides_of_the_length(op):
    rows = verify_op(op, numeric=True)
    assert rows and all(r.ok for r in rows), [r for r in rows if not r.ok]
    assert {r.formula for r in rows} == {"t < inputLengths[b]: all inputs", "t < inputLengths[b]: kernel form",
                                         "t >= inputLengths[b]"}   # (kernel form: the spec's stable rewrite)
    assert any(r.check == "mpmath, forward differentiated" for r in rows)


@pytest.mark.parametrize("shape, lengths", [((5, 3), [5, 0, 2]), ((4, 2, 3), [1, 4]), ((3, 1, 2, 2), [2]),
                                            ((0, 2), [0, 0]), ((2, 0, 3), [])])
def test_values_are_pytorch_autograd_of_the_masked_forward(fn, shape, lengths):
    rng = np.random.default_rng(7)
    x = rng.uniform(-3, 3, shape).astype(np.float32)
    g = rng.uniform(-2, 2, shape).astype(np.float32)
    got = fn(grad_output=g, self=x, input_lengths=lengths)
    want = torch_grad(g, x, lengths)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)
    t = np.arange(shape[0]).reshape([-1] + [1] * (len(shape) - 1))
    assert (got[np.broadcast_to(t >= np.reshape(lengths, [1, -1] + [1] * (len(shape) - 2)), shape)] == 0).all()


def test_past_the_length_is_zero_whatever_the_unmasked_form_gives(fn):
    """The form is 0 where IN_SEQUENCE is false, even where its other branch is nan (an inf gradient times 0)."""
    x = np.array([[0.5, np.nan], [np.inf, 1.0]], np.float32)
    g = np.array([[1, np.inf], [np.nan, np.inf]], np.float32)
    got = fn(grad_output=g, self=x, input_lengths=np.array([1, 0]))
    assert got[0, 0] == np.float32(1 - np.tanh(np.float32(0.5)) ** 2) or abs(got[0, 0] - 0.7864477) < 1e-6
    np.testing.assert_array_equal(got[[0, 1, 1], [1, 0, 1]], [0, 0, 0])


def test_an_out_and_fp16_are_masked_too(fn):
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4).astype(np.float16)
    g = np.ones_like(x)
    out = np.full_like(x, 7)
    assert fn(grad_output=g, self=x, input_lengths=(3, 2, 1, 0), out=out) is out
    want = torch_grad(g.astype(np.float32), x.astype(np.float32), [3, 2, 1, 0])
    np.testing.assert_allclose(out.astype(np.float32), want, rtol=1e-3, atol=1e-3)
    assert out[2, 1] == 0 and out[0, 3] == 0 and out[1, 2] == 0


BAD = [  # (input_lengths, status, message), for x of shape (3, 2)
    (None, 161001, "inputLengths must not be null"),
    ([3], 161002, "inputLengths must have 2 values (self's size along dimension 1), got 1"),
    ([3, 1, 0], 161002, "inputLengths must have 2 values (self's size along dimension 1), got 3"),
    ([3, 4], 161002, "inputLengths[1] = 4 is outside [0, 3]"),
    ([-1, 2], 161002, "inputLengths[0] = -1 is outside [0, 3]"),
    ([2, 2 ** 63 - 1], 161002, f"inputLengths[1] = {2 ** 63 - 1} is outside [0, 3]"),
]


@pytest.mark.parametrize("lengths, status, message", BAD)
def test_bad_arrays_get_the_same_verdict_from_both_checkers(lengths, status, message):
    x = np.zeros((3, 2), np.float32)
    for backend in BACKENDS:
        with pytest.raises(codegen.AclnnError) as e:
            codegen.kernel(NAME, backend=backend, specs_dir=FEATURES)(grad_output=x, self=x, input_lengths=lengths)
        assert (e.value.status, e.value.param, e.value.message) == (status, "inputLengths", message), backend


def test_the_length_rule_reads_the_tensors_shape_first():
    """A tensor without the batch axis fails its rank rule before the array is measured; a wrong shape before the
    array's length (the rules' order)."""
    x = np.zeros(3, np.float32)
    for backend in BACKENDS:
        k = codegen.kernel(NAME, backend=backend, specs_dir=FEATURES)
        with pytest.raises(codegen.AclnnError) as e:
            k(grad_output=x, self=x, input_lengths=[1])
        assert (e.value.status, e.value.param) == (161002, "self")
        y = np.zeros((2, 2), np.float32)
        with pytest.raises(codegen.AclnnError) as e:
            k(grad_output=np.zeros((2, 3), np.float32), self=y, input_lengths=[9])
        assert (e.value.status, e.value.param) == (161002, "gradOutput")


@pytest.mark.parametrize("lengths", [[1, True], [1.0, 2], ["1", 2], np.array([1.0, 2.0]), np.zeros((2, 1), int), 3,
                                     np.array([], np.float32),
                                     "12", {1: 2}])
def test_values_c_cannot_carry_give_the_numpy_error(lengths):
    x = np.zeros((3, 2), np.float32)
    errors = []
    for backend in BACKENDS:
        with pytest.raises(codegen.AclnnError) as e:
            codegen.kernel(NAME, backend=backend, specs_dir=FEATURES)(grad_output=x, self=x, input_lengths=lengths)
        errors.append((e.value.status, e.value.param, e.value.message))
    assert errors[0] == errors[1] == errors[2] and errors[0][:2] == (161002, "inputLengths")


def test_an_ndarray_and_a_tuple_are_arrays_too(fn):
    x = np.ones((2, 2), np.float32)
    for lengths in (np.array([2, 1], np.int32), (2, 1), np.array([2, 1], np.uint8)):
        np.testing.assert_array_equal(fn(grad_output=x, self=x, input_lengths=lengths) != 0, [[1, 1], [1, 0]])


def test_hostile_calls_on_every_backend(op, monkeypatch):
    """The hostile fuzz (tests/test_hostile_fuzz.py) draws the aclIntArray like any parameter: 30 calls of this
    op on NumPy, C and Ascend C get the same verdict and, on success, layout-independent results."""
    from hypothesis import HealthCheck, Phase, given, settings, strategies as st
    from . import test_hostile_fuzz as H
    monkeypatch.setattr(H, "OPS", {NAME: op})
    monkeypatch.setattr(H, "BACKENDS", BACKENDS)
    monkeypatch.setattr(H, "kernel", lambda name, backend: codegen.kernel(name, backend=backend, specs_dir=FEATURES))
    seen = set()

    @settings(max_examples=30, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])
    @given(data=st.data())
    def run(data):
        recipe = data.draw(H.calls([NAME]))
        H.check(recipe)
        seen.add(H._verdict(recipe, "numpy")[0][:3])
    run()
    assert ("ok",) in seen and any(v[2:] == ("inputLengths",) for v in seen if len(v) == 3), seen


# ---- bad specs ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("old, new, problem", [
    ("    backward=Formula(Piecewise((g * (1 - tanh(x)**2), IN_SEQUENCE), (0, True)),",
     "    backward=Formula(Piecewise((g * (1 - tanh(x)**2), IN_SEQUENCE), (g, True)),",
     "every form must be 0 where IN_SEQUENCE is false"),
    ("    forward=Piecewise((tanh(x), IN_SEQUENCE), (0, True)),",
     "    forward=Piecewise((tanh(x), IN_SEQUENCE), (x, True)),",
     "where IN_SEQUENCE is false the forward must not depend on x"),
    ('        ArrayLength("inputLengths", "self", dim=1),\n', "",
     "a rule ArrayLength('inputLengths', <tensor>, dim=1)"),
    ('        MinRank("self", n=2),\n', "", "a MinRank rule must give gradInput"),
    ('    sequence=SequenceMask("inputLengths", time=0, batch=1),\n', "",
     "IN_SEQUENCE is read but the op has no sequence=SequenceMask"),
    ('        ArrayLength("inputLengths", "self", dim=1),', '        ShapeSame("self", "inputLengths"),',
     "ShapeSame does not apply to the IntArray inputLengths"),
    ('ArrayInRange("inputLengths", 0, dim_size("self", 0))', 'ArrayInRange("inputLengths", 0, 1.5)',
     "must be an int or dim_size(tensor, axis)"),
    ('SequenceMask("inputLengths", time=0, batch=1)', 'SequenceMask("self", time=0, batch=1)',
     "'self' must name an IntArray parameter"),
])
def test_a_bad_sequence_spec_is_refused_with_the_reason(tmp_path, old, new, problem):
    text = SPEC.read_text()
    assert old in text
    (tmp_path / SPEC.name).write_text(text.replace(old, new))
    with pytest.raises(SpecError, match=problem.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        codegen.load_specs(tmp_path)


def test_a_wrong_form_inside_the_sequence_fails_the_proof(tmp_path):
    text = SPEC.read_text().replace("g * (1 - tanh(x)**2), IN_SEQUENCE", "g * (1 + tanh(x)**2), IN_SEQUENCE")
    (tmp_path / SPEC.name).write_text(text)
    rows = verify_op(codegen.load_specs(tmp_path)[NAME], numeric=False)
    failed = [r for r in rows if not r.ok]
    assert failed and all(r.formula.startswith("t < inputLengths[b]") for r in failed)


def _c_literals(source: str, function: str) -> set:
    """The format strings of `function`'s error messages in a C or C++ source: adjacent literals joined, %ll as %l
    (C's long long, the C++ helpers' long: both int64 here)."""
    body = source[source.index(function):]
    body = body[:body.index("\n}\n")]
    joined = re.sub(r'"\s*\n\s*"', "", body)
    return {m.replace("%ll", "%l") for m in re.findall(r'"((?:[^"\\]|\\.)*)"', joined) if "%s" in m}


def test_ascendc_level_2_checks_and_masks_as_the_c_checker(op):
    """The Ascend C project's level 2 (op_api/aclnn_opgen_*.cpp): the array's checks in the checkers' order with
    the C checker's messages (opgen_l2.h against opgen_check.c), and the mask applied to the kernel's result before
    it is cast and copied into the output."""
    from codegen.backends.ascendc.binding import project
    from codegen.backends.ascendc.opapi import l2_helpers
    source = next(t for p, t in project(op).items() if p.startswith("op_api/aclnn_") and p.endswith(".cpp"))
    checks = [line.strip() for line in source.splitlines() if "CHECK_RET(opgen_l2::" in line]
    assert checks[-3:-1] == [
        'CHECK_RET(opgen_l2::ArrayLength(inputLengths, "inputLengths", self, "self", 1), ACLNN_ERR_PARAM_INVALID);',
        'CHECK_RET(opgen_l2::ArrayInRange(inputLengths, "inputLengths", true, 0, true, opgen_l2::ArrayBound(self, 0)), '
        'ACLNN_ERR_PARAM_INVALID);']
    assert 'CHECK_RET(opgen_l2::NotNull(inputLengths, "inputLengths"), ACLNN_ERR_PARAM_NULLPTR);' in checks
    mask = source.index("kernelResult = opgen_l2::KeepSequence(kernelResult, inputLengths, 0, 1, exec);")
    assert source.index("l0op::OpgenSequenceTanhBackward(") < mask < source.index("l0op::ViewCopy(kernelResult")
    c = (Path(codegen.__file__).parent / "backends/c/runtime/src/opgen_check.c").read_text()
    for c_fn, cpp_fn in (("opgen_check_array_length(", "inline bool ArrayLength("),
                         ("opgen_check_array_in_range(", "inline bool ArrayInRange(")):
        want = _c_literals(c, c_fn)
        assert want and _c_literals(l2_helpers(), cpp_fn) == want, cpp_fn


# ---- the oracle and the accuracy samples (codegen.accuracy.sequence) ----------------------------------------------
def test_the_oracle_judges_it_on_every_backend_with_lengths_inside_the_range(op):
    """`opgen oracle`'s check on this op (outside specs/, so called directly): the unmasked form against mpmath, the
    positions past each length exactly 0, on NumPy, C and Ascend C in the three dtypes; the samples' lengths lie in
    [0, T] and the masked positions hold nan and inf inputs too."""
    from codegen.accuracy import oracle, run
    from codegen.accuracy.inputs import FAST, samples
    from codegen.accuracy.sequence import masked_positions
    masked_special = 0
    for s in samples(op, "FLOAT", FAST):
        lengths, T = s.kw["input_lengths"], s.shape[0]
        assert len(lengths) == (s.shape[1] if len(s.shape) > 1 else 0) and all(0 <= n <= T for n in lengths), s.group
        m = masked_positions(op, s)
        x = np.broadcast_to(s.kw["self"], s.shape)
        masked_special += int((m & ~np.isfinite(x.astype(np.float64))).sum())
    assert masked_special > 0
    records = oracle.check({NAME: op}, BACKENDS)
    assert len(records) == 9 and not oracle.failed(records), [oracle.describe(r) for r in oracle.failed(records)]
    assert all(r.judged > 300 for r in records)
    # `opgen accuracy` runs it too (PyTorch has no such op: not compared); the standards fail on the formula as
    # written (1 - tanh(x)^2 cancels in FLOAT for |x| > 9), not on the mask: no special-value or layout failure
    acc = run({NAME: op}, ["numpy"], dtypes=["FLOAT"], log=lambda m: None)
    assert acc[0].n_failures == 0 and acc[0].errors.n > 0 and acc[0].torch is None


def test_the_oracle_fails_a_kernel_that_does_not_mask(op):
    """A kernel that forgets the mask, or masks from one frame later, is caught: the exact result past a length is
    0, and the kernel must give exactly that."""
    from codegen.accuracy import oracle
    fn = codegen.kernel(NAME, specs_dir=FEATURES)

    def unmasked(input_lengths, **kw):
        return fn(input_lengths=[np.shape(kw["self"])[0]] * len(input_lengths), **kw)

    def late(input_lengths, **kw):
        return fn(input_lengths=[min(n + 1, np.shape(kw["self"])[0]) for n in input_lengths], **kw)
    for wrong in (unmasked, late):
        records = oracle.check({NAME: op}, ["numpy"], dtypes=["FLOAT"], kernels={(NAME, "numpy"): wrong})
        assert oracle.failed(records) and any("(past its length)" in line for line in oracle.describe(records[0]))


# ---- the C library's compiled entry point (codegen/backends/c/pyext.py, python/opgen_pycall.c) ---------------------
def test_the_compiled_entry_point_takes_the_array_with_the_ctypes_verdicts(op):
    """A list or tuple of ints is the aclIntArray of the compiled entry point: on the checker-parity draws (good,
    null, short, long, out-of-range arrays) the same verdicts (status, parameter, message) and output bits as the
    ctypes path; an ndarray, a bool or a value past int64 is left to the ctypes path (NotImplemented), which gives
    the Python checker's verdict."""
    from hypothesis import HealthCheck, given, settings
    from codegen.backends.c.binding import library
    from .test_c_checker_parity import _outcome, calls
    lib = library(op)
    assert lib.entry is not None, "the library was built without its entry point"
    taken = []

    @settings(max_examples=40, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(calls(op))
    def agree(call):
        args, out, product = call
        if out is None:
            return
        mine = np.full_like(out, 7) if out.size else out.copy()
        theirs = np.full_like(out, 7) if out.size else out.copy()
        got_value = []
        got = _outcome(lambda: got_value.append(lib.entry(dict(args, out=mine, product=product))))
        if got_value and got_value[0] is NotImplemented:
            return
        want = _outcome(lambda: lib.call(args, theirs, product))
        taken.append(got)
        assert got == want, f"entry point {got}, ctypes {want}"
        if got is None:
            assert got_value[0] is mine
            np.testing.assert_array_equal(mine.reshape(-1).view(np.uint8), theirs.reshape(-1).view(np.uint8))
    agree()
    assert any(t is not None and t[1] == "inputLengths" for t in taken), set(taken)
    rng = np.random.default_rng(5)
    for shape, lengths in (((3, 2), (3, 1)), ((4, 2, 3), [1, 4]), ((5, 3), [5, 0, 2])):
        x, g = rng.uniform(-3, 3, shape).astype(np.float32), rng.uniform(-2, 2, shape).astype(np.float32)
        mine, theirs = np.full_like(x, 7), np.full_like(x, 7)
        assert lib.entry(dict(grad_output=g, self=x, input_lengths=lengths, out=mine)) is mine
        lib.call(dict(grad_output=g, self=x, input_lengths=list(lengths)), theirs, "ascend910b")
        np.testing.assert_array_equal(mine.view(np.uint32), theirs.view(np.uint32))
        np.testing.assert_allclose(mine, torch_grad(g, x, list(lengths)), rtol=2e-6, atol=1e-7)
    x = np.zeros((3, 2), np.float32)
    out = np.empty_like(x)
    for lengths in (np.array([3, 1]), [3, True], [3, 2 ** 63], [3.0, 1], [np.int64(3), 1]):
        assert lib.entry(dict(grad_output=np.ones_like(x), self=x, input_lengths=lengths, out=out)) \
            is NotImplemented, lengths
