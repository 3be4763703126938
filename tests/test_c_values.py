"""The generated C kernels (through the aclnn C API and ctypes) against the NumPy backend, whose own values
tests/test_numpy_values.py checks against mpmath derivatives of the forward.

Every op × every variant × every dtype × every product that claims it, then every layout the C loops
handle differently: broadcast operands, strided, offset, negative-stride, transposed and misaligned views, a
strided `out=`, an `out=` that is (or overlaps) an input, empty tensors, rank 0 and rank 8, mixed input
dtypes and a different output dtype, softmax rows that are short, longer than a block, along the last dim
(whole rows) and along an outer dim (rows side by side), the chunked FLOAT16/BFLOAT16 path and the skewed
FLOAT rows against the block-wise path (same bits), and the build without AVX-512 against the native one (same
bits).  Elementwise results agree within 1 ulp (2 for FLOAT: exp and log come from different libraries); row
sums are added in another order (double in C, float pairwise in NumPy), so softmax is held to a bound
proportional to the row's magnitude.
"""
from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

import codegen
from codegen.backends.c import build as c_build
from codegen.backends.c.binding import make_kernel
from codegen.runtime import memory
from codegen.spec import DEFAULT_PRODUCT
from codegen.spec import rules as R
from codegen.spec.params import FORWARD_OUTPUT

from .compare import assert_elementwise_close, assert_rows_close, seed
from .conftest import ci_kinds, ci_sample, native_defines
from .error_inputs import valid_call
from .kernels import kernel, own_build_flags   # (each op's kernel made once per process)
from .samples import samples
from tests.samples import along, channel_shapes, fit, max_rank, ranked, results, skip_split

OPS = codegen.load_specs()
NP = {"FLOAT": np.float32, "FLOAT16": np.float16, "BFLOAT16": ml_dtypes.bfloat16}
NAMES = sorted(OPS)
ELEMENTWISE = [n for n in NAMES if not OPS[n].reduce_dim]
# a class-index op (CrossEntropyLossGrad) has rows of its own shapes (codegen.spec.classes): tests/samples.py draws
# them for test_every_variant_dtype_and_product
ROWS = [n for n in NAMES if OPS[n].reduce_dim and OPS[n].classes is None]
# every op, product and dtype (DOUBLE and the integers included) under --deep; in CI every op in every dtype
CASES = ci_sample([(n, soc, d) for n in NAMES for soc, dts in OPS[n].dtypes.items() for d in dts])


def _pair(name):
    return kernel(name, backend="c"), kernel(name)


def _compare(op, got, want, kw, what):
    from codegen.runtime.checks import dtype_name
    if got is None or want is None:   # an output not computed (a split op's extra output without its inputs)
        assert got is None and want is None, what
        return
    dout = dtype_name(got)
    if op.reduce_dim is not None and op.classes is None:   # (a class-index op's tensors have shapes of their own)
        dim = op.reduce_axis(kw)
        assert_rows_close(op, got, want, kw, dim if got.ndim else None, dout, what)
    else:
        assert_elementwise_close(got, want, dout, what)


def _with_specials(op, s, rng):
    """Typical values with IEEE specials and branch points mixed into every tensor that is no forward output."""
    kw = dict(s.kw)
    for t in op.tensors:
        a = kw.get(t.py_name)
        if a is None or op.role_of(t.name, s.variant.formula) == FORWARD_OUTPUT or a.size < 16:
            continue
        a = a.copy()
        idx = rng.choice(a.size, 9, replace=False)
        a.flat[idx] = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e4, -1e4, 0.5, 1e-40]).astype(a.dtype)
        kw[t.py_name] = a
    return kw


@pytest.mark.parametrize("name, soc, dtype", CASES, ids=str)
def test_every_variant_dtype_and_product(name, soc, dtype):
    op = OPS[name]
    c, ref = _pair(name)
    rng = np.random.default_rng(seed(name, soc, dtype))
    for s in samples(op, dtype, rng, n=97):
        kw = _with_specials(op, s, rng) if not op.reduce_dim else s.kw
        for got, want, o in zip(results(op, c(**kw, product=soc)), results(op, ref(**kw, product=soc)), op.outputs):
            _compare(op, got, want, kw, f"{name} {soc} {dtype} {s.label} {o.name}")


def _valid(name, dtype="FLOAT", shape=(6, 8), seed=0):
    op = OPS[name]
    kw = valid_call(op, np.random.default_rng(seed))
    channel = channel_shapes(op, shape)   # (a per-channel tensor: one element per channel of `shape`)
    for t in op.tensors:
        if kw.get(t.py_name) is not None:
            a = np.resize(kw[t.py_name], channel.get(t.py_name, shape))
            kw[t.py_name] = a if t in op.bool_tensors else a.astype(NP[dtype])
    along(op, kw, -1)
    return fit(op, kw)


def _out_arg(op, arrays):
    """`out=` for one array per output: a tuple for an op with several, else the array."""
    return tuple(arrays) if op.per_output else arrays[0]


def _view(a, label):
    """`a` (2-D, or 1-D: a per-channel tensor, a summed output; or 2-D with leading axes of 1: a rank the op
    requires) in the layout `label` of _views."""
    return dict(_views(a.reshape(a.shape[-2:]) if a.ndim >= 2 else a.reshape(1, -1)))[label].reshape(a.shape)


def _views(a):
    """The same values as `a` (2-D; leading axes of 1 dropped), in several layouts: strided, offset, reversed,
    transposed, misaligned."""
    a = a.reshape(a.shape[-2:]) if a.ndim > 2 else a
    big = np.zeros((a.shape[0] * 2 + 1, a.shape[1] * 3 + 2), a.dtype)
    big[1::2, 2::3] = a
    yield "strided+offset", big[1::2, 2::3]
    rev = np.ascontiguousarray(a[::-1, ::-1])
    yield "negative strides", rev[::-1, ::-1]
    yield "transposed", np.ascontiguousarray(a.T).T
    raw = np.zeros(a.nbytes + a.itemsize, np.uint8)
    mis = np.frombuffer(raw.data, dtype=a.dtype, count=a.size, offset=1).reshape(a.shape)
    assert (a.itemsize == 1 or not mis.flags.aligned) and mis.flags.writeable   # (BOOL: aligned at any address)
    np.copyto(mis, a)
    yield "misaligned", mis


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16", "BFLOAT16"])
def test_non_contiguous_views_and_strided_out(name, dtype):
    skip_split(OPS[name])
    op = OPS[name]
    if dtype not in op.dtypes[DEFAULT_PRODUCT]:
        pytest.skip(f"{name} has no {dtype} on {DEFAULT_PRODUCT}")
    c, ref = _pair(name)
    kw = _valid(name, dtype)
    wants = results(op, ref(**kw))
    tensors = [t.py_name for t in op.tensors if kw.get(t.py_name) is not None]
    for label, _ in _views(kw[tensors[0]]):
        moved = dict(kw)
        for n in tensors:
            moved[n] = _view(kw[n], label)
        for got, want, o in zip(results(op, c(**moved)), wants, op.outputs):
            _compare(op, got, want, kw, f"{name} {dtype} {label} inputs {o.name}")
        outs = [_view(np.zeros_like(want), label) for want in wants]
        got = results(op, c(**moved, out=tuple(outs) if op.per_output else outs[0]))
        assert all(g is o for g, o in zip(got, outs))
        for out, want, o in zip(outs, wants, op.outputs):
            _compare(op, np.ascontiguousarray(out), want, kw, f"{name} {dtype} {label} out {o.name}")


@pytest.mark.parametrize("name", NAMES)
def test_arguments_created_one_by_one_for_an_older_library(name):
    """A library built before opgenCreateArgs (`opgen bench --baseline` of an older revision) gets its arguments
    from aclCreateTensor / aclCreateScalar, record by record: the same bits in every layout, and a record the
    runtime refuses leaves nothing created and reports the runtime's status."""
    skip_split(OPS[name])
    import array
    from ctypes import c_void_p

    from codegen.backends.c import binding
    op = OPS[name]
    c = make_kernel(op)
    lib = c.library
    kw = _valid(name)
    tensors = [t.py_name for t in op.tensors if kw.get(t.py_name) is not None]
    for label, _ in _views(kw[tensors[0]]):
        moved = dict(kw)
        for n in tensors:
            moved[n] = _view(kw[n], label)
        want = results(op, c(**moved))
        saved, lib.args = lib.args, binding._ArgsOneByOne(lib.dll)
        try:
            got = results(op, c(**moved))
        finally:
            lib.args = saved
        assert [g.tobytes() for g in got] == [w.tobytes() for w in want], label
    one_by_one = binding._ArgsOneByOne(lib.dll)     # a scalar, a null, then a tensor of dimension -1
    words = array.array("q", [binding.ARG_SCALAR, 0, binding.ARG_NULL, binding.ARG_TENSOR, 0, 1, 0, -1, 1, 1, 0])
    handles = (c_void_p * 3)()
    assert one_by_one.create(words, handles) == R.ACLNN_ERR_PARAM_INVALID
    assert list(handles) == [None, None, None]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16"])
def test_big_endian_arrays_give_the_native_values(name, dtype):
    """Arrays in the other byte order are FLOAT/FLOAT16 tensors to the checks (and to NumPy): the C backend
    hands the library native copies, computes a big-endian `out=` aside and copies it back, with the bits of
    native arrays."""
    skip_split(OPS[name])
    op = OPS[name]
    c = kernel(name, backend="c")
    kw = _valid(name, dtype)
    wants = results(op, c(**kw))
    swapped = {k: (v.astype(v.dtype.newbyteorder(">")) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    outs = [np.zeros(want.shape, want.dtype.newbyteorder(">")) for want in wants]
    got = results(op, c(**swapped, out=tuple(outs) if op.per_output else outs[0]))
    assert all(g is o for g, o in zip(got, outs))
    for g, want in zip(got, wants):
        np.testing.assert_array_equal(g.astype(want.dtype).view(f"u{want.itemsize}"), want.view(f"u{want.itemsize}"))


@pytest.mark.parametrize("name", NAMES)
def test_out_aliasing_an_input(name):
    """In place (out is an input) and partly overlapping: the result is as with separate buffers."""
    skip_split(OPS[name])
    op = OPS[name]
    c, ref = _pair(name)
    kw = _valid(name, shape=(6, 8))
    wants = results(op, ref(**kw))   # (several outputs: the first over an input, every output compared)
    rest = [None] * (len(wants) - 1)
    for t in op.tensors:
        if kw.get(t.py_name) is None or kw[t.py_name].shape != wants[0].shape or t in op.bool_tensors:
            continue
        moved = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
        for got, want in zip(results(op, c(**moved, out=_out_arg(op, [moved[t.py_name]] + rest))), wants):
            _compare(op, got, want, kw, f"{name} out is {t.name}")
        # out overlaps the input shifted by one row
        buf = np.zeros((7, 8), np.float32)
        lead = (None,) * (kw[t.py_name].ndim - 2)   # (leading axes of 1: a rank the op requires)
        buf[:6] = kw[t.py_name].reshape(6, 8)
        moved = dict(kw)
        moved[t.py_name] = buf[:6][lead]
        for got, want in zip(results(op, c(**moved, out=_out_arg(op, [buf[1:][lead]] + rest))), wants):
            _compare(op, got.copy(), want, kw, f"{name} out overlaps {t.name}")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", [(0,), (3, 0, 2), (), (1,), (2, 1, 2, 1, 3, 1, 2, 2)], ids=str)
def test_empty_rank0_rank8(name, shape):
    skip_split(OPS[name])
    op = OPS[name]
    if shape == () and any(isinstance(r, R.MinRank) for r in op.rules):
        pytest.skip("self needs rank >= 1")
    c, ref = _pair(name)
    kw = _valid(name, shape=shape)
    if len(shape) > max_rank(op):
        pytest.skip(f"{name}'s tensors have at most {max_rank(op)} dimensions")
    for dims in ([-1, 0] if op.reduce_dim is not None and shape else [None]):
        if dims is not None and not along(op, kw, dims):
            continue
        got, want = results(op, c(**kw)), results(op, ref(**kw))
        assert got[0].shape == ranked(op, shape)   # (several outputs: the first has the inputs' shape, the others checked below)
        for g, w, o in zip(got, want, op.outputs):
            assert g.shape == w.shape
            _compare(op, g, w, kw, f"{name} {shape} {o.name}")


def _broadcast_rules(op):
    return [r for r in op.rules if isinstance(r, (R.BroadcastTo, R.Broadcastable, R.ShapeIsBroadcast))]


@pytest.mark.parametrize("name", [n for n in NAMES if _broadcast_rules(OPS[n])])
@pytest.mark.parametrize("small", [(1,), (8,), (6, 1), (1, 8), ()], ids=str)
def test_broadcast_operands(name, small):
    op = OPS[name]
    c, ref = _pair(name)
    kw = _valid(name, shape=(6, 8))
    rng = np.random.default_rng(2)
    stretched = set()
    for r in _broadcast_rules(op):
        if isinstance(r, R.BroadcastTo):
            stretched |= set(r.params[:-1])
        elif isinstance(r, R.Broadcastable):
            stretched |= set(r.params[1:])
        else:
            stretched |= set(r.params[2:])
    axes = {n: r.axes for r in _broadcast_rules(op) if isinstance(r, R.BroadcastTo) and r.axes is not None
            for n in r.params[:-1]}
    for n in sorted(stretched):
        p = op.param(n)
        if kw.get(p.py_name) is None:
            continue
        moved = dict(kw)
        shape = small
        if n in axes:   # a broadcast along the listed axes only (the mask's B and N): the other tensors (2, 3, 6, 8),
            # this one 1 along the first listed axis for small (6, 1), along the second for (1, 8)
            if small not in ((6, 1), (1, 8)):
                pytest.skip(f"{n} broadcasts along the axes {axes[n]} only: the cases (6, 1) and (1, 8) cover it")
            full = kw[op.grad.py_name].shape
            ax = [a % len(full) for a in axes[n]]
            big = tuple(2 + ax.index(i) if i in ax else d for i, d in enumerate(full))
            moved = {k: (np.broadcast_to(v, big).copy() if isinstance(v, np.ndarray) and v.shape == full else v)
                     for k, v in kw.items()}
            shape = tuple(1 if i == ax[small.index(1) % len(ax)] else d for i, d in enumerate(big))
        a = rng.uniform(0.2, 2, shape)
        moved[p.py_name] = a < 1 if p in op.bool_tensors else a.astype(np.float32)
        for got, want, o in zip(results(op, c(**moved)), results(op, ref(**moved)), op.outputs):
            _compare(op, got, want, moved, f"{name} {n} of shape {small} {o.name}")


@pytest.mark.parametrize("name", NAMES)
def test_mixed_input_dtypes_and_output_dtype(name):
    """Every input and output dtype combination the checker admits on the default product."""
    skip_split(OPS[name])
    op = OPS[name]
    c, ref = _pair(name)
    kw = _valid(name, shape=(5, 7))
    # (a BOOL tensor, a mask, keeps its dtype)
    tensors = [t.py_name for t in op.tensors if kw.get(t.py_name) is not None and t not in op.bool_tensors]
    shapes = [a.shape for a in results(op, ref(**kw))]   # (several outputs: each its own shape, one dtype)
    tried = 0
    for dts in itertools.product(NP, repeat=len(tensors) + 1):
        moved = dict(kw)
        for n, d in zip(tensors, dts):
            moved[n] = kw[n].astype(NP[d])
        outs = [np.zeros(sh, NP[dts[-1]]) for sh in shapes]
        try:
            want = results(op, ref(**moved, out=_out_arg(op, [o.copy() for o in outs])))
        except codegen.AclnnError as e:
            with pytest.raises(codegen.AclnnError) as got:
                c(**moved, out=_out_arg(op, outs))
            assert (got.value.status, got.value.param, got.value.message) == (e.status, e.param, e.message)
            continue
        tried += 1
        for g, w in zip(results(op, c(**moved, out=_out_arg(op, outs))), want):
            _compare(op, g, w, moved, f"{name} {dts}")
    assert tried >= 2


@pytest.mark.parametrize("name", ROWS)
@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16", "BFLOAT16"])
def test_rows_short_long_and_along_every_dim(name, dtype):
    op = OPS[name]
    if dtype not in op.dtypes[DEFAULT_PRODUCT]:
        pytest.skip(f"{name} has no {dtype} on {DEFAULT_PRODUCT}")
    c, ref = _pair(name)
    rng = np.random.default_rng(3)
    # (40, 2100) along dim 0: with a 2 MiB L2 the plan cuts the columns into tiles of 1024 (and a last one of 52)
    # that fit a quarter of it; with less L2, one tile
    shapes = [((5,), 0), ((3, 1), -1), ((7, 15), -1), ((2, 1025), -1), ((2, 3000), 1), ((1030, 3), 0),
              ((4, 5, 6), 0), ((4, 5, 6), 1), ((4, 5, 6), 2), ((3, 2048, 2), 1), ((2, 3, 1, 4), 2), ((40, 2100), 0)]
    attrs = {k: v for k, v in _valid(name, dtype).items() if not isinstance(v, np.ndarray)}   # scalars, attributes
    for shape, dim in shapes:
        kw = dict(attrs)
        for t in op.tensors:
            lo = 0 if t.role == FORWARD_OUTPUT else -2
            kw[t.py_name] = rng.uniform(lo, 2, shape).astype(NP[dtype])
        kw = fit(op, kw)   # (a fixed axis: the cases along it, at the op's rank)
        if len(kw[op.grad.py_name].shape) > max_rank(op) or not along(op, kw, dim):
            continue
        _compare(op, c(**kw), ref(**kw), kw, f"{name} {dtype} {shape} dim={dim}")
        # the same along a non-contiguous dim of a transposed layout
        t_kw = {k: (np.ascontiguousarray(v.T).T if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
        _compare(op, c(**t_kw), ref(**kw), kw, f"{name} {dtype} {shape} dim={dim} transposed")


def test_calls_from_several_python_threads_at_once_give_the_serial_bits():
    """ctypes lets go of the GIL during each C call, so calls from four Python threads interleave, each with its
    own arguments, product and failures (BFLOAT16 softmax on ascend910b between Softshrink calls that ascend910
    refuses).  Every result has the bits of the same call made alone, and every failing call reports its own
    parameter.  (The product is process state, set and used by phase 1 under the binding's lock; this test
    does not catch a missing lock — the window between the two C calls is too short to hit here.)"""
    import sys
    import threading
    soft = kernel("softmax_backward", backend="c")
    shrink = kernel("softshrink_backward", backend="c")
    rng = np.random.default_rng(21)
    calls = [dict(grad_output=rng.standard_normal(n).astype(ml_dtypes.bfloat16),
                  output=rng.uniform(0, 1, n).astype(ml_dtypes.bfloat16), dim=-1)
             for n in rng.permutation(np.r_[rng.integers(1, 3000, 360), np.full(40, 150000)])]   # some long
    want = [soft(**kw) for kw in calls]     # BFLOAT16 runs on ascend910b (the default) ...
    bad = []

    def work(k):
        for i in range(k, len(calls), 4):
            try:   # ... and not on ascend910: refused for `gradOutput`, where this thread asked for ascend910
                shrink(grad_output=calls[i]["grad_output"], self=calls[i]["output"], lambd=0.5, product="ascend910")
                bad.append(("no error", i))
            except codegen.AclnnError as e:
                if (e.status, e.param) != (161002, "gradOutput"):
                    bad.append(("error", i, e.param, e.message))
            try:
                if not np.array_equal(soft(**calls[i], product="ascend910b").view(np.uint16),
                                      want[i].view(np.uint16)):
                    bad.append(("bits", i))
            except codegen.AclnnError as e:
                bad.append(("refused", i, e.message))
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)     # the GIL changes hands often: between any two C calls of a Python call
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(switch)
    assert not bad, bad[:5]


def test_default_product_is_the_documented_one():
    assert DEFAULT_PRODUCT == "ascend910b"


@pytest.mark.parametrize("name", NAMES)
def test_threads_give_the_same_bits(name, monkeypatch):
    """OPGEN_NUM_THREADS splits phase 2 over threads (contiguous shares of blocks, rows or tiles): every element
    is computed by the same code on the same values, so the result is bit for bit the single-thread one —
    elementwise, whole rows, side-by-side rows, staged FLOAT16 and an overlapping output alike."""
    skip_split(OPS[name])
    op = OPS[name]
    c = kernel(name, backend="c")
    # (8, 20000) along dim 0: tiles of 16384 columns would make two work items for three threads; the plan cuts
    # the 20000 columns into three tiles
    cases = [("FLOAT", (96, 1400), -1), ("FLOAT16", (300, 513), 0), ("FLOAT", (2, 70000), 0),
             ("FLOAT16", (8, 20000), 0)]
    for dtype, shape, dim in cases:
        kw = _valid(name, dtype, shape=shape)
        if not along(op, kw, dim):
            continue
        runs = []   # (several outputs: every output, the first written over gradOutput in place)
        for threads in ("1", "3"):
            monkeypatch.setenv("OPGEN_NUM_THREADS", threads)
            runs.append([r.copy() for r in results(op, c(**kw))])
            inplace = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
            target = inplace[op.grad.py_name]
            if target.dtype == runs[-1][0].dtype:
                out = _out_arg(op, [target] + [None] * (len(op.outputs) - 1))
                runs.append([r.copy() for r in results(op, c(**inplace, out=out))])
        for run in runs[1:]:
            for r, first in zip(run, runs[0]):
                np.testing.assert_array_equal(r.view(np.uint16 if r.itemsize == 2 else np.uint32),
                                              first.view(np.uint16 if r.itemsize == 2 else np.uint32))


@pytest.mark.parametrize("name, dtype, shape, dim", [("log_sigmoid_backward", "FLOAT", (1100, 1001), -1),
                                                     ("softmax_backward", "FLOAT16", (1100, 1000), -1),
                                                     ("softmax_backward", "FLOAT", (600, 1900), 0)])
def test_threads_give_the_same_bits_in_many_chunks(name, dtype, shape, dim, monkeypatch):
    """Above 2^19 elements a call is cut into one chunk per 2^16 output elements (opgen_loops.c: chunk_count), not
    four a thread: elementwise blocks, whole rows and side-by-side tiles taken by 2 or 3 threads in any order give
    the one-thread bits."""
    op = OPS[name]
    c = kernel(name, backend="c")
    kw = _valid(name, dtype, shape=shape)
    assert along(op, kw, dim)
    runs = []
    for threads in ("1", "2", "3"):
        monkeypatch.setenv("OPGEN_NUM_THREADS", threads)
        runs.append(c(**kw).copy())
    for r in runs[1:]:
        np.testing.assert_array_equal(r.view(np.uint16 if r.itemsize == 2 else np.uint32),
                                      runs[0].view(np.uint16 if r.itemsize == 2 else np.uint32))


STREAM_BYTES = 16 << 20        # opgen_loops.c: outputs this large are written with non-temporal stores


def _guarded_out(shape, dt, shift):
    """An output array of `shape` starting `shift` elements past a 64-byte boundary, with one guard element (7) on
    each side: (the guarded buffer, the output)."""
    size = np.dtype(dt).itemsize
    count = int(np.prod(shape))
    raw = np.empty(count * size + 256, np.uint8)
    start = (-raw.ctypes.data) % 64 + 64 + shift * size
    buf = raw[start - size:start + (count + 1) * size].view(dt)
    buf[:] = np.array(7, dt)
    out = buf[1:-1].reshape(shape)
    assert out.ctypes.data % 64 == shift * size
    return buf, out


@pytest.mark.ci_share(5)   # 16 MiB outputs each: the paths are the runtime's, one op (ELU) exercises them
@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16", "BFLOAT16"])
@pytest.mark.parametrize("shift", [0, 1, 5])
@pytest.mark.parametrize("rows", [None, 1024, 1000])
def test_streamed_outputs(dtype, shift, rows):
    """Outputs of 16 MiB and more take the non-temporal path: blocks realigned to the output's cache lines,
    several rows streamed only when each starts on a line.  An output starting `shift` elements past a
    64-byte boundary, one row or rows of 1024 (whole lines) or 1000 elements: every element right, the same bits
    as from misaligned inputs (staged into FLOAT, the block functions instead of the chunked fast paths), and the
    elements just outside `out` untouched."""
    name = "elu_backward"
    c, ref = _pair(name)
    dt = NP[dtype]
    size = np.dtype(dt).itemsize
    n = STREAM_BYTES // size + 3 * 1024 + 17
    shape = (n,) if rows is None else (n // rows, rows)
    rng = np.random.default_rng(seed(name, dtype, shift, rows))
    kw = dict(grad_output=rng.standard_normal(shape).astype(dt), alpha=1.0, scale=1.5, input_scale=1.0,
              is_result=False, self_or_result=rng.standard_normal(shape).astype(dt))
    want = ref(**kw)
    buf, out = _guarded_out(shape, dt, shift)
    got = c(**kw, out=out)
    assert got is out
    assert_elementwise_close(out, want, dtype, f"{dtype} shift {shift} rows {rows}")
    assert buf[0] == 7 and buf[-1] == 7, "a store outside out"
    staged = c(**{k: _misaligned(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()})
    np.testing.assert_array_equal(out.view(f"u{size}"), staged.view(f"u{size}"))


@pytest.mark.ci_share(6)   # 16 MiB outputs each (84 cases)
@pytest.mark.parametrize("dtype", ["FLOAT16", "BFLOAT16", "FLOAT"])
@pytest.mark.parametrize("shift", [0, 4])
@pytest.mark.parametrize("threads", ["1", "2"])
@pytest.mark.parametrize("rows, dim", [(64, -1), (1000, -1), (1024, -1), (32768, -1), (64, 0), (1024, 0),
                                       (32768, 0)])
def test_streamed_sums(dtype, shift, threads, rows, dim, monkeypatch):
    """Softmax outputs of 16 MiB and more whose runs all start on a cache line are written with non-temporal stores:
    along the last dim (`rows` long: packed short rows, skewed long rows; FLOAT16/BFLOAT16 from the chunk loops,
    opgen_chunks.h: opgen_stream_span, FLOAT through the staging buffer) and along dim 0 (`rows` rows side by side, in
    tiles of columns, the last one short; every dtype from the chunk loops).  Rows along the last dim that do not all
    start on a line (`shift` elements past one, or 1000 long), and runs of columns along dim 0 `shift` elements past
    one, stream through the line writer (opgen_chunks.h: opgen_lines).  Every element right, the same bits as from
    misaligned inputs (staged into FLOAT, the block functions), and the elements just outside `out` untouched, on one
    thread and split between two (each share ends with its own fence)."""
    monkeypatch.setenv("OPGEN_NUM_THREADS", threads)
    name = "softmax_backward"
    c, ref = _pair(name)
    dt = NP[dtype]
    size = np.dtype(dt).itemsize
    n = STREAM_BYTES // size // rows
    # (along dim 0, 32 more columns than a power of two: a whole number of lines per run in every dtype, and a
    # short last tile)
    shape = (n + 3, rows) if dim == -1 else (rows, n + 32)
    rng = np.random.default_rng(seed(name, dtype, shift, rows, dim))
    # (any output values will do for the stores: these keep the results away from FLOAT16's subnormals, for
    # which assert_rows_close's relative bound has no floor)
    kw = dict(grad_output=rng.uniform(-1, 1, shape).astype(dt), output=rng.uniform(0.5, 1, shape).astype(dt),
              dim=dim)
    buf, out = _guarded_out(shape, dt, shift)
    got = c(**kw, out=out)
    assert got is out
    _compare(OPS[name], out, ref(**kw), kw, f"{dtype} shift {shift} rows {rows} dim {dim}")
    assert buf[0] == 7 and buf[-1] == 7, "a store outside out"
    staged = c(**{k: _misaligned(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()})
    np.testing.assert_array_equal(out.view(f"u{size}"), staged.view(f"u{size}"))


def _counting_kernel(name):
    """The C kernel of `name` built with c_build.FLAGS (which the caller sets, -DOPGEN_COUNT_STREAMS among them),
    and a function returning the bytes its non-temporal stores wrote since the last call (opgen_chunks.h:
    OPGEN_STREAMED)."""
    import ctypes
    op = OPS[name]
    kernel = make_kernel(op, path=c_build.library(op))
    counter = ctypes.c_int64.in_dll(kernel.library.dll, "opgen_streamed_bytes")

    def streamed():
        n, counter.value = counter.value, 0
        return n
    return kernel, streamed


@pytest.mark.ci_share(3)   # a library built with the stream counter per ISA, and 16 MiB outputs
@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16", "BFLOAT16"])
@pytest.mark.parametrize("threads", ["1", "2"])
@pytest.mark.parametrize("isa", ["native", "avx2"])
def test_which_calls_stream(dtype, threads, isa, monkeypatch):
    """Which calls write their output with non-temporal stores, counted by a build with -DOPGEN_COUNT_STREAMS: the
    values cannot tell (the tests above check those), and a call that stops streaming is only slower, as elementwise
    calls once did unnoticed (1cf1afb).  Every byte of an output of 16 MiB or more whose runs start on cache lines
    (elementwise, softmax along the last dim and along dim 0); all but the partial lines at the ends (and between two
    threads' shares) of one that starts past a line when it is one run (elementwise: the blocks realigned) and of
    softmax rows along the last dim that do not start on lines (the line writer: 16 bytes past a line, or rows of
    1000); all but the ends of each run of columns for softmax along dim 0 past a line; none for elementwise rows that
    do not start on lines (rows of 1000 in rows of 1024), or below 16 MiB.  Native, and where the CPU has AVX-512 also
    built without it (the AVX2 stores and conversions)."""
    if not (native_defines("__AVX2__") and native_defines("__F16C__")):
        pytest.skip("non-temporal stores need AVX2 and F16C")
    if isa == "avx2" and not native_defines("__AVX512F__"):
        pytest.skip("no AVX-512 here: the native build is the AVX2 one")
    flags = ["-mno-avx512f"] if isa == "avx2" else []
    monkeypatch.setattr(c_build, "FLAGS", own_build_flags([*c_build.FLAGS, "-DOPGEN_COUNT_STREAMS", *flags]))
    monkeypatch.setenv("OPGEN_NUM_THREADS", threads)
    dt = NP[dtype]
    size = np.dtype(dt).itemsize
    n = STREAM_BYTES // size
    rng = np.random.default_rng(seed("stream counts", dtype))
    # the partial lines at the ends of each chunk of work the threads share (opgen_loops.c: chunk_count, at least
    # CHUNKS_PER_THREAD a thread and one per CHUNK_ELEMENTS)
    body = ("most", 1 if threads == "1" else max(4 * int(threads), n >> 16))

    elu, streamed = _counting_kernel("elu_backward")
    rows = n // 1000 + 8
    # (a contiguous 2-D output is one run; rows of 1000 in a buffer of rows of 1024 are several, on lines but not
    # whole lines long)
    for shape, shift, want in [((n,), 0, "all"), ((n,), 1, body), ((n // 1024, 1024), 0, "all"),
                               ((n // 1024, 1024), 1, body), ((rows, 1000), None, "none"), ((n // 2,), 0, "none")]:
        kw = dict(grad_output=rng.standard_normal(shape).astype(dt), alpha=1.0, scale=1.0, input_scale=1.0,
                  is_result=False, self_or_result=rng.standard_normal(shape).astype(dt))
        out = _guarded_out(shape, dt, shift)[1] if shift is not None else memory.empty((rows, 1024), dt)[:, :1000]
        elu(**kw, out=out)
        _expect_streamed(streamed(), out.size * size, want, f"elu {dtype} {shape} shift {shift}")

    softmax, streamed = _counting_kernel("softmax_backward")
    # (rows of 1000: n // 1000 + 1 of them end inside a line in every dtype; along dim 0 each run of a tile's
    # columns, at most 64 rows x 64 tiles of 1024 columns, starts over: all but its two partial lines)
    columns = ("most", 64 * 64)
    for shape, dim, shift, want in [((n // 1024, 1024), -1, 0, "all"), ((n // 64, 64), -1, 0, "all"),
                                    ((n // 1024, 1024), -1, 4, body), ((n // 64, 64), -1, 4, body),
                                    ((n // 1000 + 1, 1000), -1, 0, body), ((64, n // 64), 0, 0, "all"),
                                    ((1024, n // 1024), 0, 0, "all"), ((64, n // 64), 0, 4, columns),
                                    ((n // 2048, 1024), -1, 0, "none")]:
        kw = dict(grad_output=rng.uniform(-1, 1, shape).astype(dt), output=rng.uniform(0, 1, shape).astype(dt),
                  dim=dim)
        _, out = _guarded_out(shape, dt, shift)
        softmax(**kw, out=out)
        _expect_streamed(streamed(), out.size * size, want, f"softmax {dtype} {shape} dim {dim} shift {shift}")
    # an output the callable allocates itself starts on a line (codegen/runtime/memory.py), so it streams too
    shape = (n // 1024, 1024)
    out = softmax(grad_output=rng.uniform(-1, 1, shape).astype(dt), output=rng.uniform(0, 1, shape).astype(dt),
                  dim=-1)
    assert out.ctypes.data % 64 == 0
    _expect_streamed(streamed(), out.size * size, "all", f"softmax {dtype} {shape}, out allocated by the call")


@pytest.mark.ci_share(3)   # a library built with the counters, per dtype and thread count
@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16", "BFLOAT16"])
@pytest.mark.parametrize("threads", ["1", "2"])
def test_broadcast_rows_and_scalars_go_in_one_call_a_share(dtype, threads, monkeypatch):
    """The elementwise kernels' 2-D entry (opgen_chunks.h: opgen_chunked_rows), counted by a build with
    -DOPGEN_COUNT_STREAMS: rows whose gradOutput is broadcast along them (step 0) go to the kernel in one call per
    run of rows, and a scalar gradOutput (reductions mean and sum), staged once, in one call per run of a row's
    whole blocks, where the loops made a call per row or per block of 1024 before (1024 calls for Softshrink's
    (1, 1024) gradOutput against (1024, 1024)).  With two threads: at most three calls per chunk of work the
    threads share (opgen_loops.c: chunk_count; a chunk may start and end inside a row).  The results have the bits
    of the block-wise path (operands one byte off their alignment, staged a block at a time)."""
    import ctypes
    monkeypatch.setattr(c_build, "FLAGS", own_build_flags([*c_build.FLAGS, "-DOPGEN_COUNT_STREAMS"]))
    monkeypatch.setenv("OPGEN_NUM_THREADS", threads)
    dt = NP[dtype]
    rng = np.random.default_rng(seed("2-D entry", dtype, threads))

    def check(name, kw, calls_one_thread, what):
        c = make_kernel(OPS[name], path=c_build.library(OPS[name]))
        counter = ctypes.c_int64.in_dll(c.library.dll, "opgen_elementwise_calls")
        counter.value = 0
        got = c(**kw)
        calls, numel = counter.value, got.size
        if threads == "1":
            assert calls == calls_one_thread, f"{what}: {calls} calls, want {calls_one_thread}"
        else:
            chunks = max(8, numel >> 16)
            assert calls <= 3 * chunks, f"{what}: {calls} calls for {chunks} chunks"
        staged = c(**{k: _misaligned(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()})
        np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), staged.view(f"u{got.itemsize}"), err_msg=what)

    for gshape, xshape, calls in [((1, 1024), (1024, 1024), 1), ((1, 1000), (300, 1000), 1),
                                  ((1, 3000), (40, 3000), 1), ((4, 1, 2048), (4, 30, 2048), 4)]:
        kw = dict(grad_output=rng.standard_normal(gshape).astype(dt), self=rng.standard_normal(xshape).astype(dt),
                  lambd=0.5)
        check("softshrink_backward", kw, calls, f"softshrink gradOutput {gshape} self {xshape}")
    # a scalar gradOutput: the whole blocks in one call, the last shorter block in another
    for n, calls in [(1 << 20, 1), ((1 << 20) + 37, 2), (5000, 2), (1000, 1)]:
        for reduction in (1, 2):
            kw = dict(grad_out=rng.standard_normal(()).astype(dt), self=rng.standard_normal(n).astype(dt),
                      target=rng.standard_normal(n).astype(dt), reduction=reduction, beta=1.0)
            check("smooth_l1_loss_backward", kw, calls, f"smooth_l1 {n} reduction {reduction}")


def _expect_streamed(got, nbytes, want, what):
    if want == "all":
        assert got == nbytes, f"{what}: {got} of {nbytes} bytes streamed, want all"
    elif want == "body":
        assert nbytes - 2 * 64 <= got < nbytes, f"{what}: {got} of {nbytes} bytes streamed, want all but the ends"
    elif want[0] == "most":
        runs = want[1]
        assert nbytes - 2 * 64 * runs <= got < nbytes, \
            f"{what}: {got} of {nbytes} bytes streamed, want all but the ends of {runs} runs at most"
    else:
        assert got == 0, f"{what}: {got} of {nbytes} bytes streamed, want none"


def _misaligned(a):
    """A copy of `a` one byte past an element boundary: the C loops stage it element by element into FLOAT."""
    raw = np.zeros(a.nbytes + a.itemsize, np.uint8)
    mis = np.frombuffer(raw.data, dtype=a.dtype, count=a.size, offset=1).reshape(a.shape)
    np.copyto(mis, a)
    return mis


@pytest.mark.ci_share(3)   # op x dtype x threads (180 cases): the chunk and skew loops are the runtime's
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["FLOAT16", "BFLOAT16", "FLOAT"])
@pytest.mark.parametrize("threads", ["1", "2"])
def test_chunked_and_skewed_entries_give_the_block_wise_bits(name, dtype, threads, monkeypatch):
    """FLOAT16/BFLOAT16 operands in aligned storage go to the kernels' chunked entries (opgen_chunks.h: converted
    64 elements at a time, row sums carrying their eight lanes from chunk to chunk), and whole rows of aligned
    operands to the skewed ones (a row's results computed while the next row is summed: opgen_skewed for FLOAT,
    opgen_skewed_loop for FLOAT16/BFLOAT16);
    misaligned operands are staged into FLOAT a block at a time and take the block functions.  Same values, same
    bits, at lengths around the chunk (64) and block (1024) boundaries, for whole rows (one, several, split
    between two threads), short rows packed several to a block (skewed too), and rows side by side."""
    skip_split(OPS[name])
    op = OPS[name]
    if dtype not in op.dtypes[DEFAULT_PRODUCT]:
        pytest.skip(f"{name} has no {dtype} on {DEFAULT_PRODUCT}")
    monkeypatch.setenv("OPGEN_NUM_THREADS", threads)
    c = kernel(name, backend="c")
    shapes = [((1,), -1), ((63,), -1), ((65,), -1), ((3, 1000), -1), ((2, 1024 + 70), -1), ((1, 3000), -1),
              ((300, 7), 0), ((67, 1030), -1), ((40, 64), -1), ((70, 100), -1), ((9, 3), -1)]
    for shape, dim in shapes:
        kw = _valid(name, dtype, shape, seed=seed(name, dtype, shape))
        if op.reduce_dim is not None and not along(op, kw, dim):
            continue
        elif op.reduce_dim is None and dim == 0:
            continue
        tensors = [t.py_name for t in op.tensors if isinstance(kw.get(t.py_name), np.ndarray)]
        shapes = [a.shape for a in results(op, c(**kw))]   # (several outputs: each its own shape)
        aligned = results(op, c(**kw, out=_out_arg(op, [np.zeros(sh, NP[dtype]) for sh in shapes])))
        mis = results(op, c(**{**kw, **{n: _misaligned(kw[n]) for n in tensors}},
                            out=_out_arg(op, [_misaligned(np.zeros(sh, NP[dtype])) for sh in shapes])))
        assert [a.tobytes() for a in aligned] == [np.ascontiguousarray(m).tobytes() for m in mis], \
            f"{name} {dtype} {shape} dim={dim}"


@pytest.mark.parametrize("dtype", ["FLOAT16", "BFLOAT16"])
@pytest.mark.parametrize("name", ELEMENTWISE)
def test_staged_half_operands_give_the_bits_of_contiguous_ones(name, dtype):
    """A FLOAT16/BFLOAT16 input the chunk loop cannot read in place — every other element of a wider array, or
    one element repeated (stride 0, as BCE's gradOutput for reduction mean or sum) — is staged in its own dtype
    (opgen_loops.c: load_half) and converted with the others: the same bits as its contiguous copy, and as the
    misaligned copy staged into FLOAT for the block functions."""
    skip_split(OPS[name])
    op = OPS[name]
    if dtype not in op.dtypes[DEFAULT_PRODUCT]:
        pytest.skip(f"{name} has no {dtype} on {DEFAULT_PRODUCT}")
    c = kernel(name, backend="c")
    shape = (70, 100)
    kw = _valid(name, dtype, shape, seed=seed(name, dtype, "staged"))
    bits = lambda got: [g.tobytes() for g in results(op, got)]
    for n in [t.py_name for t in op.tensors if isinstance(kw.get(t.py_name), np.ndarray)]:
        own = kw[n].shape   # (70, 100), or a per-channel tensor's (100,)
        wide = np.zeros(own[:-1] + (2 * own[-1],), kw[n].dtype)
        wide[..., ::2] = kw[n]
        same = np.broadcast_to(kw[n].reshape(-1)[:1].reshape((1,) * len(own)), own)        # strides 0
        for view, contiguous in ((wide[..., ::2], kw[n]), (same, np.ascontiguousarray(same))):
            want = bits(c(**{**kw, n: contiguous}))
            got = bits(c(**{**kw, n: view}))
            mis = bits(c(**{**kw, n: _misaligned(contiguous)}))
            assert got == want == mis, f"{name} {dtype} {n} strides {view.strides}"


@pytest.mark.parametrize("name", NAMES)
def test_a_prepared_call_runs_phase_2_again_with_the_same_bits(name):
    """Library.prepared (what `opgen bench` times the kernels alone with): phase 1 once on a repeatable executor,
    then phase 2 as often as asked, each run writing the bits of an ordinary call (every variant, FLOAT16)."""
    from codegen.backends.c.binding import library
    from codegen.runtime.calls import KernelCall
    op = OPS[name]
    c = kernel(name, backend="c")
    for s in samples(op, "FLOAT16", np.random.default_rng(seed(name, "prepared")), n=97):
        wants = results(op, c(**s.kw))
        outs = [None if w is None else np.empty_like(w) for w in wants]   # (None: an output not computed)
        call = KernelCall(op, dict(s.kw, out=tuple(outs) if op.per_output else outs[0]))
        # several outputs: Library.create takes them by name
        given = {o.name: a for o, a in zip(op.outputs, outs)} if op.per_output else outs[0]
        with library(op).prepared(call.args, given, call.product) as run:
            for _ in range(3):
                for out in outs:
                    if out is not None:
                        out.fill(0)
                run()
                for out, want in zip(outs, wants):
                    if out is not None:
                        np.testing.assert_array_equal(out.view(np.uint16), want.view(np.uint16), err_msg=s.label)


# a second library per op: one op of each kind in CI (the ISA paths are the runtime's), every op under --deep
@pytest.mark.parametrize("name", ci_kinds(OPS))
def test_the_avx2_build_gives_the_avx512_bits(name, monkeypatch):
    """The same kernels built without AVX-512 (what an AVX2-only CPU runs: 8-lane conversions, BFLOAT16 chunks in
    unpack order, integer BFLOAT16 rounding) give the bits of the native AVX-512 build, on the shapes of the
    chunked, skewed, packed and side-by-side paths, in every dtype: the sums keep their eight lanes in a fixed
    order and the conversions round correctly on every ISA.  Only where the machine has AVX-512 (elsewhere the two
    builds are one)."""
    if not native_defines("__AVX512F__"):
        pytest.skip("no AVX-512 here: the native build is the AVX2 one")
    op = OPS[name]
    # (both built here with the generator's flags: under OPGEN_C_SANITIZE=1 codegen.kernel would load the
    # sanitizer build, which has no -march=native and hence no FMA in opgen_expf)
    native = make_kernel(op, path=c_build.library(op))
    monkeypatch.setattr(c_build, "FLAGS", own_build_flags([*c_build.FLAGS, "-mno-avx512f"]))   # (-O1 in CI)
    avx2 = make_kernel(op, path=c_build.library(op))
    shapes = [((65,), -1), ((3, 1000), -1), ((2, 1024 + 70), -1), ((300, 7), 0), ((40, 2100), 0), ((40, 64), -1),
              ((70, 100), -1)]
    # the dtypes the AVX-512 paths touch (half conversions, FLOAT vectors); integer and DOUBLE kernels are scalar C
    for dtype in [d for d in op.dtypes[DEFAULT_PRODUCT] if d in NP]:
        if op.split is not None or op.classes is not None:
            # tensors of shapes of their own (halves, class rows): the shared samples, short and past a chunk
            rng = np.random.default_rng(seed(name, dtype, "isa"))
            calls = [(s.label, s.kw) for n in (66, 2100) for s in samples(op, dtype, rng, n=n)]
        else:
            calls = []
            for shape, dim in shapes:
                if dim == 0 and not op.reduce_dim:
                    continue
                kw = _valid(name, dtype, shape, seed=seed(name, dtype, shape, "isa"))
                if along(op, kw, dim):
                    calls.append((f"{shape} dim={dim}", kw))
        for label, kw in calls:
            for want, got, o in zip(results(op, native(**kw)), results(op, avx2(**kw)), op.outputs):
                bits = f"u{want.itemsize}"
                bad = np.flatnonzero(got.reshape(-1).view(bits) != want.reshape(-1).view(bits))
                assert not bad.size, f"{name} {dtype} {label} {o.name}: {bad.size} of {want.size} differ, e.g. at {bad[0]}"
