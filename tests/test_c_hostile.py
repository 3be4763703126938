"""Hostile calls, as a new user makes them: every backend gives the same verdict, raises nothing but the documented
errors, and leaves the caller's output untouched when the verdict is an error."""
from __future__ import annotations

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import codegen

from .kernels import kernel   # (each op's kernel made once per process)

OPS = codegen.load_specs()
BACKENDS = ["numpy", "c", "ascendc"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_size_one_and_empty_dims_with_strides_that_are_not_whole_elements(backend):
    """NumPy calls these arrays contiguous whatever the strides of their size-1 dimensions (or of an empty array),
    so strides of 3 bytes over 4-byte floats reached C unconverted: the C backend raised TypeError from its
    binding.  Such strides address nothing; every backend computes the NumPy result, also into such an `out=`."""
    data = np.linspace(-3, 3, 40, dtype=np.float32)
    fn = kernel("log_sigmoid_backward", backend=backend)
    for shape, strides in [((3, 1), (4, 3)), ((1, 1), (7, 5)), ((0, 5), (3, 7)), ((2, 1, 3), (12, 1, 4))]:
        x = as_strided(data, shape=shape, strides=strides)
        want = kernel("log_sigmoid_backward")(grad_output=x.copy(), self=x.copy(), buffer=x.copy())
        np.testing.assert_array_equal(fn(grad_output=x, self=x, buffer=x), want)
        out = as_strided(np.full(40, 7, np.float32), shape=shape, strides=strides)
        assert fn(grad_output=x, self=x, buffer=x, out=out) is out
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("product", [None, "", 910, ["ascend910b"], b"ascend910b", "ASCEND910B"])
def test_a_product_that_is_not_a_known_soc_string_is_161002_everywhere(backend, product):
    x = np.ones(4, np.float32)
    with pytest.raises(codegen.AclnnError) as e:
        kernel("softshrink_backward", backend=backend)(grad_output=x, self=x, lambd=0.5, product=product)
    assert e.value.status == 161002 and "unknown product" in e.value.message


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_out_dtype_that_is_no_dtype_is_161002_naming_the_output_everywhere(backend):
    """out_dtype=3 raised TypeError from np.dtype in the NumPy kernels (the hostile fuzz's draw with 39 ops):
    they called a second, older copy of requested_dtype.  Now every backend refuses it like an unsupported dtype;
    float64 and np.int32 name DOUBLE and INT32 on every backend alike."""
    from codegen.runtime.calls import out_dtype_free
    from codegen.runtime.checks import requested_dtype
    from .error_inputs import valid_call
    name = next(n for n, op in sorted(OPS.items()) if out_dtype_free(op) and len(op.outputs) == 1)
    op = OPS[name]
    kw = valid_call(op, np.random.default_rng(1))
    kw.pop("out", None)
    with pytest.raises(codegen.AclnnError) as e:
        kernel(name, backend=backend)(**kw, out_dtype=3)
    assert e.value.status == 161002 and e.value.param == op.output.name
    assert [requested_dtype(d) for d in ("float64", np.int32, "half", 3)] == ["DOUBLE", "INT32", "FLOAT16", "3"]


def test_the_fuzz_calls_an_op_with_several_outputs_as_documented():
    """The hostile fuzz gave prelu_backward (two outputs) one array as out= and read its result as one array: a
    TypeError it did not expect, on every backend (the 142nd call of the long run).  Its calls now give such an op
    a tuple, or one array now and then, whose TypeError must then be alike everywhere; and an empty input, which
    writes nothing into a given gradWeight (as the library does), is compared with a clean call whose out= holds
    the same values, not zeros."""
    from .test_hostile_fuzz import ArrayRecipe, Recipe, check
    f32 = np.float32
    x = lambda shape, seed: ArrayRecipe(f32, shape, tuple(4 * int(np.prod(shape[i + 1:])) for i in range(len(shape))),
                                        seed=seed)   # noqa: E731 - a contiguous FLOAT recipe
    args = {"grad_output": x((2, 3), 1), "self": x((2, 3), 2), "weight": x((3,), 3)}
    check(Recipe("prelu_backward", args, "ascend910b", out=x((2, 3), 4)))
    check(Recipe("prelu_backward", args, "ascend910b", out=(None, x((3,), 5))))
    empty = {"grad_output": x((0, 3), 1), "self": x((0, 3), 2), "weight": x((3,), 3)}
    check(Recipe("prelu_backward", empty, "ascend910b", out=(x((0, 3), 4), x((3,), 5))))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dim", ["a", 0.5, np.array([0.5])])
def test_an_empty_input_ends_the_checks_before_an_argument_c_cannot_carry(backend, dim):
    """LogSoftmaxBackward's empty input ends phase 1 with success before any other check (EmptyReturns first, as
    the library): NumPy returned the empty result for dim="a", the C backend raised TypeError (it could not pass
    the string to C, and the Python checker it asked then found nothing wrong).  Found by the sanitized hostile
    fuzz (its 1365th call).  Every backend now returns the empty result, an `out=` given untouched."""
    g = np.zeros((0, 3), np.float16)
    fn = kernel("log_softmax_backward", backend=backend)
    got = fn(grad_output=g, output=g, dim=dim)
    assert got.shape == (0, 3) and got.dtype == np.float16
    out = np.zeros((0, 3), np.float32)
    assert fn(grad_output=g, output=g, dim=dim, out=out) is out


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_output_allocated_for_a_call_that_ends_early_holds_zeros(backend):
    """An empty `output` ends LogSoftmaxBackward's checks at once (EmptyReturns first), and nothing is computed;
    the output the Python API allocates still has gradOutput's shape (its shape rule), and held whatever the
    allocator's memory held (found by the sanitized hostile fuzz, call 7085, where two backends' garbage
    differed).  It now holds zeros on every backend; an `out=` given is left as it was, as the library leaves it."""
    g = np.linspace(-1, 1, 64 * 48, dtype=np.float32).reshape(64, 48)
    fn = kernel("log_softmax_backward", backend=backend)
    for _ in range(3):   # (memory just freed, full of non-zeros, is what an allocation gets back first)
        dirty = np.full((64, 48), 7.0, np.float32)
        del dirty
        got = fn(grad_output=g, output=np.zeros((0, 48), np.float32), dim=1)
        assert got.shape == (64, 48) and not got.any()
    out = np.full((64, 48), 3.0, np.float32)
    assert fn(grad_output=g, output=np.zeros((0, 48), np.float32), dim=1, out=out) is out and (out == 3).all()


def test_the_fuzz_calls_that_ended_early_on_an_empty_input_now_check_alike():
    """The two calls of the long fuzz runs that found the garbage output above (the sanitized C run's 7085th,
    whose comparison also choked on the empty input; the NumPy run's 10596th), replayed through its check."""
    import ml_dtypes
    from .test_hostile_fuzz import ArrayRecipe, Recipe, check
    check(Recipe("log_softmax_backward", {
        "grad_output": ArrayRecipe(np.float16, (1, 1, 1, 1, 2, 1, 2), (2, -4, 2, 0, 2, 4, 4), seed=255, misaligned=True),
        "output": ArrayRecipe(ml_dtypes.bfloat16, (1, 1, 0, 1, 1, 1, 1), (-8, 4, 5, 4, 9, -2, -2), seed=929),
        "dim": ("value", -12)}, "ascend310p"))
    check(Recipe("log_softmax_backward", {
        "grad_output": ArrayRecipe(np.float32, (6,), (4,), seed=12445),
        "output": ArrayRecipe(np.float32, (0,), (4,), seed=5, misaligned=True),
        "dim": ("value", 2)}, "ascend310p"))


@pytest.mark.parametrize("backend", BACKENDS)
def test_outputs_each_over_an_input_the_other_output_reads_are_computed(backend):
    """PreluBackward with gradInput written over gradOutput and gradWeight over weight: each output overlaps an
    input the other's computation reads, so no order of the two calls is safe.  NumPy and Ascend C computed it,
    the C library refused it with 161002 (found by the sanitized hostile fuzz, call 13832); it now computes one
    output into a copy in the workspace, copied out after the last call."""
    rng = np.random.default_rng(5)
    x = rng.uniform(-2, 2, (4, 3)).astype(np.float32)
    g = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    w = np.array([0.5, -0.25, 2.0], np.float32)
    want_gi = np.where(x > 0, g, g * w)                                      # PReLU's gradients, by hand
    want_gw = np.where(x > 0, 0, g.astype(np.float64) * x).sum(axis=0)
    gi, gw = kernel("prelu_backward", backend=backend)(grad_output=g, self=x, weight=w, out=(g, w))
    assert gi is g and gw is w
    np.testing.assert_array_equal(gi, want_gi)
    np.testing.assert_allclose(gw, want_gw, rtol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_tensor_that_is_no_array_is_refused_before_an_empty_one_ends_the_checks(backend):
    """LogSoftmaxBackward's EmptyReturns is its first check: with an empty `output`, gradOutput=nan (a float) went
    unread and the output's allocation raised AttributeError (found by the NumPy hostile fuzz, call 16172).  The
    empty check now refuses a non-array as the dtype checks do, naming it; an empty call still succeeds."""
    fn = kernel("log_softmax_backward", backend=backend)
    empty = np.zeros((0,), np.int32)
    with pytest.raises(codegen.AclnnError) as e:
        fn(grad_output=float("nan"), output=empty, dim=0)
    assert e.value.status == 161002 and e.value.param == "gradOutput" and "must be a tensor" in e.value.message
    with pytest.raises(codegen.AclnnError) as e:
        fn(grad_output=empty, output=[1.0], dim=0)
    assert e.value.param == "output"
    assert fn(grad_output=empty, output=empty, dim=0).shape == (0,)


@pytest.mark.parametrize("backend", BACKENDS)
def test_outputs_over_the_same_memory_are_refused_alike(backend):
    """PreluBackward with gradInput and gradWeight both views of gradOutput's buffer: the outputs overlap each
    other, whichever is written last wins, and NumPy's result differed from its own clean call (found by the
    sanitized hostile fuzz, call 26478).  Refused on every backend as an out= whose elements share memory is."""
    g = np.ones((4, 3), np.float32)
    x, w = np.ones((4, 3), np.float32), np.ones(3, np.float32)
    with pytest.raises(ValueError, match="out\\[0\\] and out\\[1\\] share memory"):
        kernel("prelu_backward", backend=backend)(grad_output=g, self=x, weight=w, out=(g, g[0]))
    gi, gw = kernel("prelu_backward", backend=backend)(grad_output=g, self=x, weight=w, out=(g, None))
    assert gi is g   # one output over an input is still computed


@pytest.mark.parametrize("backend", ["numpy", "c", "ascendc"])
@pytest.mark.parametrize("rows", [0, 2])
def test_an_out_dtype_that_names_no_dtype_is_refused_also_where_no_rule_reads_it(backend, rows):
    """LogSoftmaxBackward, out_dtype=3: its output's rules compare nothing they can refuse it by, and with an empty
    gradOutput the checks end before them; allocating the output raised KeyError (found by the long sanitized C
    fuzz run).  Now 161002 naming out_dtype on every backend."""
    f = kernel("log_softmax_backward", backend=backend)
    with pytest.raises(codegen.AclnnError) as info:
        f(grad_output=np.ones((rows, 3), np.float32), output=np.ones((rows, 3), np.float32), dim=1, out_dtype=3)
    assert (info.value.status, info.value.param) == (161002, "out_dtype")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_bool_output_the_checks_accept_holds_whether_each_result_is_nonzero(backend):
    """LogSoftmaxBackward does not check out's dtype (the library casts the result into it): a BOOL out= raised
    ValueError from np.iinfo on NumPy where C wrote True (found by the long Ascend C fuzz run, after 575 s).  Every
    backend now stores result != 0 (nan too, as C's conversion to bool)."""
    inf = np.inf
    g = np.array([[1.0, 2.0, 3.0], [2.0, 0.0, 0.0], [0.0, 0.0, np.nan]], np.float32)
    y = np.array([[-inf, -inf, 0.0], [0.0, -inf, -inf], [0.0, -inf, -inf]], np.float32)   # rows of exp: one-hot
    # g - sum(g)*exp(y), exactly: [1, 2, -3], [0, 0, 0], nan everywhere
    out = np.zeros((3, 3), np.bool_)
    res = kernel("log_softmax_backward", backend=backend)(grad_output=g, output=y, dim=1, out=out)
    assert res is out
    np.testing.assert_array_equal(out, [[True, True, True], [False, False, False], [True, True, True]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_tensor_of_more_than_16_dims_is_161002_naming_it_everywhere(backend):
    """LogitGrad has no rank rule: a rank-17 tensor was computed by NumPy and Ascend C, and a TypeError from the C
    binding (aclCreateTensor describes at most 16 dimensions).  Now every backend refuses it, before the op's own
    checks, with 161002 and the tensor's name; an out= of that rank is refused alike and left untouched."""
    x = np.full((1,) * 17, 0.25, np.float32)
    small = np.full((1,) * 16, 0.25, np.float32)
    fn = kernel("logit_grad", backend=backend)
    with pytest.raises(codegen.AclnnError) as e:
        fn(x=x, dy=x, eps=-1.0)
    assert (e.value.status, e.value.param) == (161002, "x") and "rank 17" in e.value.message
    out = np.full((1,) * 17, 7, np.float32)
    with pytest.raises(codegen.AclnnError) as e:
        fn(x=small, dy=small, eps=-1.0, out=out)
    assert (e.value.status, e.value.param) == (161002, "out")
    assert (out == 7).all()
    np.testing.assert_allclose(fn(x=small, dy=small, eps=-1.0), np.full(small.shape, 0.25 / (0.25 * 0.75)), rtol=1e-6)
    # an op with several outputs: the given output of that rank is named
    w = np.ones(1, np.float32)
    g = np.ones((2,) + (1,) * 15, np.float32)
    gi = np.zeros((2,) + (1,) * 16, np.float32)
    with pytest.raises(codegen.AclnnError) as e:
        kernel("prelu_backward", backend=backend)(grad_output=g, self=g, weight=w, out=(gi, np.zeros(1, np.float32)))
    assert (e.value.status, e.value.param) == (161002, "gradInput")
