"""The C library's compiled Python entry point (codegen/backends/c/pyext.py, python/opgen_pycall.c) against the
ctypes path it stands in front of: the same verdicts (status, parameter, message) and the same output bits on
the random near-valid calls of the checker-parity test; the calls it must decline are declined (and then still
computed right by the ctypes path); and it shares the library's state with ctypes (one copy of the runtime).
The libraries are the ones every C test builds: nothing is compiled here that the other tests do not build."""
from __future__ import annotations

import gc
import threading

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import codegen
from codegen.backends.c.binding import library
from codegen.runtime.formats import with_format
from codegen.spec import PRODUCTS
from codegen.spec.params import Output

from .error_inputs import valid_call
from .test_c_checker_parity import OPS, _outcome, calls
from .kernels import kernel   # (each op's kernel made once per process)
from tests.samples import skip_split


ENTRY_SKIP = ("an op with several outputs: its declined calls are test_several_outputs_take_the_entry_point's")


def _ctypes_call(lib, args, out, product):
    """The ctypes path alone: phase 1 (the verdict), then phase 2 into `out`."""
    lib.call(args, out, product)
    return out


def _marked(out):
    """A copy of `out` (an array, or {name: array} for several outputs) filled with 7 where it has elements."""
    if isinstance(out, dict):
        return {k: _marked(v) for k, v in out.items()}
    return np.full_like(out, 7) if out.size else out.copy()


@pytest.mark.parametrize("name", sorted(OPS))
def test_entry_point_gives_the_ctypes_verdicts_and_bits(name):
    skip_split(OPS[name])
    op = OPS[name]
    lib = library(op)
    assert lib.entry is not None, "the library was built without its entry point"
    taken = []

    @settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(calls(op))
    def agree(call):
        args, out, product = call
        if out is None or isinstance(out, dict) and any(o is None for o in out.values()):
            return
        mine, theirs = _marked(out), _marked(out)
        # several outputs: the entry point takes out= as the kernel does, a tuple in the outputs' order
        given = tuple(mine[o.name] for o in op.outputs) if isinstance(out, dict) else mine
        got_value = []
        got = _outcome(lambda: got_value.append(lib.entry(dict(args, out=given, product=product))))
        want = _outcome(lambda: _ctypes_call(lib, args, theirs, product))
        if got_value and got_value[0] is NotImplemented:
            return
        taken.append(got)
        assert got == want, f"{name} on {product}: entry point {got}, ctypes {want}"
        if got is None:
            assert got_value[0] is given
            pairs = [(mine[k], theirs[k]) for k in mine] if isinstance(out, dict) else [(mine, theirs)]
            for a, b in pairs:
                np.testing.assert_array_equal(a.reshape(-1).view(np.uint8), b.reshape(-1).view(np.uint8))

    agree()
    assert None in taken and len(set(taken)) > 2, "the draws should reach successes and failures alike"


def _result(fn):
    """(what `fn()` raised: type, status, parameter, message) or (the outputs' dtypes, shapes and bytes)."""
    try:
        got = fn()
    except codegen.AclnnError as e:
        return ("AclnnError", e.status, e.param, e.message)
    except (TypeError, ValueError) as e:
        return (type(e).__name__, str(e))
    return [(a.dtype, a.shape, a.tobytes()) for a in (got if isinstance(got, tuple) else (got,))]


@pytest.mark.parametrize("name", sorted(OPS))
def test_a_call_without_out_gives_the_python_path_verdicts_and_bits(name):
    """Without out=, the entry point sizes, allocates and checks the outputs itself and leaves the call to the
    Python path only when phase 1 refuses it: on the random near-valid calls of the parity test the kernel gives
    what the Python path alone gives (make_kernel(entry=False): the Python checker first, its output allocated
    by KernelCall, then C) — the same verdict, the same dtypes, shapes and bits — and the entry point takes the
    valid calls (those with an empty tensor, which may end early, it leaves to the Python path)."""
    from codegen.backends.c import binding
    op = OPS[name]
    skip_split(op)
    c, python_path = kernel(name, backend="c"), binding.make_kernel(op, entry=False)
    lib = library(op)
    taken = []

    @settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(calls(op))
    def agree(call):
        args, _, product = call
        got = _result(lambda: c(**args, product=product))
        assert got == _result(lambda: python_path(**args, product=product)), f"{name} on {product}"
        if isinstance(got, list) and all(np.size(a) for a in args.values() if isinstance(a, np.ndarray)):
            taken.append(lib.entry(dict(args, product=product)) is not NotImplemented)

    agree()
    # (the draws may reach no valid call without an empty tensor: test_entry_point_declines_what_ctypes_must_handle
    # has the entry point take one of every op)
    assert all(taken), f"the entry point left {taken.count(False)} of {len(taken)} valid calls to the Python path"


def _declined(op, rng):
    """Calls the entry point must leave to the ctypes path, each with why."""
    kw = valid_call(op, rng)
    want = kernel(op.snake_name)(**kw)
    tensor = next(p.py_name for p in op.tensors if not isinstance(p, Output))
    out = np.empty_like(want)
    cases = {
        "an unknown keyword": dict(kw, out=out, bogus=1),
        "an unknown product": dict(kw, out=out, product="ascend000"),
        "a format label (a subclass)": dict(kw, out=out, **{tensor: with_format(kw[tensor], "NCHW")}),
        "another byte order": dict(kw, out=out, **{tensor: kw[tensor].astype(kw[tensor].dtype.newbyteorder())}),
        "a read-only out": dict(kw, out=np.broadcast_to(out, out.shape)),
        "an out of another byte order": dict(kw, out=out.astype(out.dtype.newbyteorder())),
    }
    if op.scalars:
        cases["a NumPy scalar"] = dict(kw, out=out, **{op.scalars[0].py_name: np.float64(0.5)})
    return kw, want, cases


@pytest.mark.parametrize("name", sorted(OPS))
def test_entry_point_declines_what_ctypes_must_handle(name):
    op = OPS[name]
    if op.per_output:
        pytest.skip(ENTRY_SKIP)
    lib = library(op)
    kw, want, cases = _declined(op, np.random.default_rng(3))
    out = np.empty_like(want)
    assert lib.entry(dict(kw, out=out)) is out
    np.testing.assert_array_equal(out, kernel(name, backend="c")(**kw))
    for why, call in cases.items():
        assert lib.entry(dict(call)) is NotImplemented, why
    # without out=: allocated here, the out= call's bits, on a cache line as memory.empty's; left to the Python
    # path where it allocates zeros (an empty tensor) or promotes (inputs of two dtypes), and for out_dtype=
    for made in (lib.entry(dict(kw)), lib.entry(dict(kw, out=None))):
        assert made.dtype == out.dtype and made.shape == out.shape and made.ctypes.data % 64 == 0
        np.testing.assert_array_equal(made.view(np.uint8), out.view(np.uint8))
    sources = [op.param(n).py_name for n in op.output_dtype_sources]
    tensor = sources[0]
    if kw[tensor].ndim and kw[tensor].size:
        assert lib.entry(dict(kw, **{tensor: kw[tensor][..., :0]})) is NotImplemented, "an empty tensor"
    if len(sources) > 1:
        assert lib.entry(dict(kw, **{tensor: kw[tensor].astype(np.float64)})) is NotImplemented, "two dtypes"
    assert lib.entry(dict(kw, out_dtype="FLOAT")) is NotImplemented, "out_dtype="


def test_entry_point_and_ctypes_share_one_runtime():
    """An executor made through ctypes is known to the runtime the entry point runs: one copy of the library."""
    name = "log_sigmoid_backward"
    op = OPS[name]
    lib = library(op)
    kw = valid_call(op, np.random.default_rng(0))
    out = np.empty_like(kernel(name)(**kw))
    with lib.prepared(kw, out, "ascend910b") as run:
        lib.entry(dict(kw, out=np.empty_like(out)))     # (a call in between: its executor comes and goes)
        run()                                           # the prepared executor is still live in the same list
    lib.entry(dict(kw, out=out))


def test_entry_point_is_thread_safe_across_products():
    """Threads calling with different products at once: each call is checked against its own product (the
    product is process state, set with phase 1 under the library's lock by both paths)."""
    name = "softmax_backward"
    op = OPS[name]
    c = kernel(name, backend="c")
    kw = valid_call(op, np.random.default_rng(0), dtype="BFLOAT16")
    out = np.empty_like(kernel(name)(**kw))
    verdicts = {}
    for product in PRODUCTS:
        verdicts[product] = _outcome(lambda: c(**kw, out=np.empty_like(out), product=product))
    assert len(set(verdicts.values())) > 1, "BFLOAT16 should be refused on some product"
    errors = []

    def worker(product):
        for _ in range(200):
            got = _outcome(lambda: c(**kw, out=np.empty_like(out), product=product))
            if got != verdicts[product]:
                errors.append((product, got))
    threads = [threading.Thread(target=worker, args=(p,)) for p in PRODUCTS]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]


def test_bfloat16_arrays_take_the_entry_point():
    op = OPS["log_sigmoid_backward"]
    lib = library(op)
    kw = valid_call(op, np.random.default_rng(0), dtype="BFLOAT16")
    assert kw["self"].dtype == ml_dtypes.bfloat16
    out = np.empty_like(kernel("log_sigmoid_backward")(**kw))
    assert lib.entry(dict(kw, out=out)) is out


def _elementwise_call(n, dtype=np.float32, seed_=0):
    rng = np.random.default_rng(seed_)
    return dict(grad_output=rng.standard_normal(n).astype(dtype), self=rng.standard_normal(n).astype(dtype),
                buffer=np.zeros(n, dtype))


def test_pooled_threads_give_the_one_thread_bits_under_concurrent_calls(monkeypatch):
    """The worker pool (opgen_pool.c) under churn: thread counts and sizes changing from call to call (below and
    above OPGEN_POOL_WAKE_MIN, 2^18: sleeping workers left asleep, woken late or at once), two Python threads calling at once
    (one of them then finds the pool busy and starts threads of its own); every result is the one-thread result,
    bit for bit."""
    c = kernel("log_sigmoid_backward", backend="c")
    sizes = [1 << 14, (1 << 15) + 7, 1 << 16, (1 << 18) + 5]
    calls_ = [_elementwise_call(n, seed_=i) for i, n in enumerate(sizes)]
    monkeypatch.setenv("OPGEN_NUM_THREADS", "1")
    want = [c(**kw, out=np.empty_like(kw["self"])).copy() for kw in calls_]
    errors = []

    def worker(k):
        for i in range(60):
            j = (i + k) % len(calls_)
            got = c(**calls_[j], out=np.empty_like(calls_[j]["self"]))
            if not np.array_equal(got.view(np.uint32), want[j].view(np.uint32)):
                errors.append((k, i, j))
    for threads in ("2", "3", "4"):
        monkeypatch.setenv("OPGEN_NUM_THREADS", threads)
        pool = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
        for t in pool:
            t.start()
        for t in pool:
            t.join(timeout=300)
            assert not t.is_alive(), "a threaded call never returned (the pool lost a wake-up?)"
    assert not errors, errors[:5]


def _child_succeeds(pid: int, hung: str) -> None:
    """Wait (at most 120 s) for the forked child `pid` and assert it exited 0; a child still running then is
    killed and the test fails with `hung`."""
    import os
    import time
    deadline = time.monotonic() + 120
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    if done[0] == 0:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        pytest.fail(hung)
    assert os.WIFEXITED(done[1]) and os.WEXITSTATUS(done[1]) == 0


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no fork")
def test_a_forked_child_runs_threaded_calls(monkeypatch):
    """After fork() the child has none of the parent's pool workers: it starts its own (a fork handler forgets the
    parent's), and its threaded call finishes with the right bits instead of waiting for threads that are not there."""
    import os
    c = kernel("log_sigmoid_backward", backend="c")
    kw = _elementwise_call(1 << 16)
    monkeypatch.setenv("OPGEN_NUM_THREADS", "2")
    want = c(**kw, out=np.empty_like(kw["self"])).copy()   # (the parent's workers now exist)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            code = 0 if all(np.array_equal(c(**kw, out=np.empty_like(kw["self"])), want) for _ in range(5)) else 1
        finally:
            os._exit(code)
    _child_succeeds(pid, "the forked child's threaded call did not finish (waiting for the parent's workers?)")


@pytest.mark.skipif(not hasattr(__import__("os"), "sched_setaffinity") or not hasattr(__import__("os"), "fork"),
                    reason="no CPU affinity or fork")
def test_threaded_calls_on_one_cpu_give_the_one_thread_bits(monkeypatch):
    """A forked child allowed one CPU only: its workers share the caller's CPU, where the pool cannot keep them
    off it, so they leave their shares to the caller (opgen_pool.c) — every call, woken or not, still returns
    the one-thread bits."""
    import os
    c = kernel("log_sigmoid_backward", backend="c")
    calls_ = [_elementwise_call(n, seed_=n) for n in ((1 << 16) + 3, (1 << 17) + 9, 1 << 18)]
    monkeypatch.setenv("OPGEN_NUM_THREADS", "1")
    want = [c(**kw, out=np.empty_like(kw["self"])).copy() for kw in calls_]
    monkeypatch.setenv("OPGEN_NUM_THREADS", "2")
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
            code = 0 if all(np.array_equal(c(**kw, out=np.empty_like(kw["self"])), w)
                            for _ in range(4) for kw, w in zip(calls_, want)) else 1
        finally:
            os._exit(code)
    _child_succeeds(pid, "a threaded call on one CPU did not finish")


def test_a_call_without_out_is_run_by_the_entry_point_and_refused_by_the_python_checker(monkeypatch):
    """Without out=, the entry point sizes and allocates the output and takes the call: the ctypes path is not used
    (its phase 1 would raise here); a call C refuses gets the Python checker's verdict, as on NumPy."""
    from codegen.backends.c import binding
    name = "softshrink_backward"
    op = OPS[name]
    kw = valid_call(op, np.random.default_rng(5))
    want = kernel(name)(**kw)
    c = binding.make_kernel(op)

    def no_ctypes(*a, **k):
        raise AssertionError("the ctypes path ran")
    monkeypatch.setattr(c.library, "call", no_ctypes)
    got = c(**kw)
    assert got.dtype == want.dtype and got.shape == want.shape
    bad = dict(kw, **{op.tensors[0].py_name: kw[op.tensors[0].py_name].astype(np.float64)})
    assert _outcome(lambda: c(**bad)) == _outcome(lambda: kernel(name)(**bad))


def test_every_attribute_type_of_the_language_has_an_entry_kind():
    """A type added to the spec language's ATTR_TYPES without a Python entry kind fails here, not at an op's build."""
    from codegen.backends.c.pyext import ATTR_KINDS
    from codegen.spec.params import ATTR_TYPES
    assert set(ATTR_KINDS) == set(ATTR_TYPES)


def _double_attrs(op):
    from codegen.spec.params import Attr
    return [p.py_name for p in op.params if isinstance(p, Attr) and p.type in ("double", "float")]


def test_entry_point_takes_an_int_for_a_double_attribute():
    """`label_smoothing=0`: converted as float(0), as the ctypes path converts it, with the ctypes path's verdict and
    bits (CrossEntropyLossGrad's calls, which pass ints there, all fell back to ctypes: 46 us a call); an int beyond
    the double range is still left to the ctypes path, which refuses it."""
    ops = [op for op in OPS.values() if not op.per_output and _double_attrs(op)]
    assert any(op.snake_name == "cross_entropy_loss_grad" for op in ops)
    for op in ops:
        lib = library(op)
        kw = valid_call(op, np.random.default_rng(5))
        out = np.empty_like(kernel(op.snake_name)(**kw))
        for attr in _double_attrs(op):
            for value in (0, 1, -3):
                call = dict(kw, **{attr: value})
                mine, theirs, got_value = np.full_like(out, 7), np.full_like(out, 7), []
                got = _outcome(lambda: got_value.append(lib.entry(dict(call, out=mine))))
                assert not got_value or got_value[0] is not NotImplemented, (op.name, attr, value)
                assert got == _outcome(lambda: _ctypes_call(lib, call, theirs, "ascend910b")), (op.name, attr, value)
                if got is None:
                    np.testing.assert_array_equal(mine.view(np.uint8), theirs.view(np.uint8))
            assert lib.entry(dict(kw, out=out, **{attr: 10 ** 400})) is NotImplemented


@pytest.mark.parametrize("name", sorted(n for n in OPS if OPS[n].per_output))
def test_several_outputs_take_the_entry_point(name):
    """An op with several outputs: a tuple of one array per output, their bytes apart, is the entry point's (the
    ctypes path's bits); a list, a None to allocate, or outputs whose bytes may overlap (calls.several_outs decides
    exactly and raises) are declined."""
    op = OPS[name]
    lib = library(op)
    kw = valid_call(op, np.random.default_rng(3))
    want = kernel(name, backend="c")(**kw)
    out = tuple(np.full_like(w, 7) for w in want)
    assert lib.entry(dict(kw, out=out)) is out
    for a, b in zip(out, want):
        np.testing.assert_array_equal(a, b)
    for made in (lib.entry(dict(kw)), lib.entry(dict(kw, out=None))):   # (allocated here: an output summed as zeros)
        assert isinstance(made, tuple) and len(made) == len(want)
        for a, b in zip(made, want):
            assert a.dtype == b.dtype and a.shape == b.shape and a.ctypes.data % 64 == 0
            np.testing.assert_array_equal(a, b)
    flat = np.empty(sum(w.size for w in want), want[0].dtype)
    shared = tuple(flat[:w.size].reshape(w.shape) for w in want)   # every output from the same start
    cases = {
        "a list": dict(kw, out=list(out)),
        "a None": dict(kw, out=(None, *out[1:])),
        "overlapping bytes": dict(kw, out=shared),
        "too few": dict(kw, out=out[:-1]),
    }
    for why, call in cases.items():
        assert lib.entry(dict(call)) is NotImplemented, why


def _gc_footprint(fn, calls: int) -> tuple[list, int]:
    """(the GC-tracked objects created by `calls` calls of fn that outlive them, the generation-0 collections those
    calls set off), after a collection and then two warm-up calls (the layout caches, the interpreter's free lists,
    and ctypes' array type of the ctypes path: cached weakly, it lives from one collection to the next).  The objects
    alive before are held in a list meanwhile, so that no new object can take a dead one's id."""
    collections = [0]

    def count(phase, info):
        if phase == "start" and info["generation"] == 0:
            collections[0] += 1
    gc.collect()
    fn()
    fn()
    before = gc.get_objects()
    seen = {id(o) for o in before}
    gc.callbacks.append(count)
    try:
        for _ in range(calls):
            fn()
    finally:
        gc.callbacks.remove(count)
    left = []
    for o in gc.get_objects():          # (a loop, not a comprehension: its closure would be counted)
        if id(o) not in seen and o is not before and o is not seen and o is not left:
            left.append(o)
    return left, collections[0]


# measured (call2, 2026-11-28): no collection in 10^5 calls of any path below at 2^10 and 2^16 elements; the margin
# is for another thread of the test process allocating meanwhile
CALLS, MAX_COLLECTIONS = 2000, 1


@pytest.mark.parametrize("path", ["entry, out=", "no out=", "ctypes, out="])
@pytest.mark.parametrize("name", ["log_softmax_backward", "silu_backward"])
def test_a_call_leaves_no_container_behind_and_sets_off_no_collection(name, path):
    """A call allocates Python objects only for itself (the keyword dict and, without out=, the Python checker's
    work): none that the cyclic GC tracks outlives it, so a loop of calls never sets a collection off (perf23's
    profile showed `gc_collect_main`, whose samples were the process's start and end, not its calls).  A control
    that keeps one list per call must fail both counts, or the counts prove nothing."""
    from codegen.backends.c import binding
    op = OPS[name]
    kw = valid_call(op, np.random.default_rng(7))
    kw = {k: v for k, v in kw.items() if k != "out"}
    k = kernel(name, "c") if path != "ctypes, out=" else binding.make_kernel(op, entry=False)
    out = np.empty_like(k(**kw))
    fn = (lambda: k(**kw)) if path == "no out=" else (lambda: k(**kw, out=out))
    left, collections = _gc_footprint(fn, CALLS)
    assert not left, [type(o).__name__ for o in left[:10]]
    assert collections <= MAX_COLLECTIONS

    kept = []
    left, collections = _gc_footprint(lambda: kept.append([fn()]), CALLS)
    assert len(left) >= CALLS and collections >= CALLS // gc.get_threshold()[0] > MAX_COLLECTIONS


def test_the_kernel_is_the_library_s_callable_with_its_python_path_behind():
    """codegen.kernel(op, backend="c") is the library's own callable (opgen_pycall.c: the entry point with no Python
    frame around it): named like a function, carrying its library, and handing whatever the entry point declines
    (positional arguments, out_dtype=, a missing keyword) to the Python path with that path's verdicts."""
    name = "softshrink_backward"
    op = OPS[name]
    c = kernel(name, backend="c")
    assert type(c).__name__ == "Kernel" and c.__name__ == name and c.library.op.name == op.name
    assert c.library.callable is not None    # (the plain or, under OPGEN_C_SANITIZE=1, the sanitized library)
    kw = valid_call(op, np.random.default_rng(5))
    want = kernel(name)(**kw)
    got = c(**kw)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert c(**kw, out_dtype="FLOAT").dtype == np.float32          # (declined: the Python path's allocation)
    with pytest.raises(TypeError, match=f"^{name}\\(\\) takes 0 positional arguments"):
        c(kw["grad_output"])
    with pytest.raises(TypeError, match=f"^{name}\\(\\) missing required keyword argument"):
        c()


def test_a_call_without_out_whose_output_numpy_cannot_make_gets_the_python_path_verdict():
    """Outputs the entry point cannot allocate (a broadcast of views far beyond memory: NumPy's "array is too big")
    go to the Python path, whose checker gives its verdict first (161002 here) or whose allocation raises its own
    error: the entry point raised NumPy's ValueError before phase 1 ran."""
    from codegen.backends.c import binding
    name = "l1_loss_backward"
    op = OPS[name]
    c, python_path = kernel(name, backend="c"), binding.make_kernel(op, entry=False)
    one = np.float32(1)
    for n in (2 ** 31, 2 ** 33):
        kw = dict(grad_output=np.array(one), self=np.broadcast_to(one, (n, 1)), target=np.broadcast_to(one, (1, n)),
                  reduction=0)
        assert _result(lambda: c(**kw)) == _result(lambda: python_path(**kw)), n
