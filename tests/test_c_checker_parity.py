"""The C checker (phase 1 of the generated C API) against the Python checker (the NumPy backend), on random
calls: the same status, the same parameter and the same message, every time.

Calls are drawn near validity — one dtype and shape for all tensors, then a few mutations: a null, another
dtype (DOUBLE, INT32, BOOL, BFLOAT16 on products without it), another shape or rank (up to 9), a broadcast
shape, a bad `dim`, `reduction` or a negative scalar, another product — so that every check in the order is
reached and broken.  Arguments no C call can carry (a list for a tensor, a bool for an aclScalar) are handled
by the binding with the Python checker; the last test shows they give the same error through both backends.
"""
from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import codegen
from codegen.backends.c.binding import library
from codegen.backends.numpy import load_module
from codegen.spec import PRODUCTS
from codegen.spec.params import UNUSED, Attr, IntArray, Output, Scalar, Tensor
from .kernels import kernel   # (each op's kernel made once per process)

from tests.samples import int_arrays, min_rank, ranked

OPS = codegen.load_specs()
# and the specs of tests/feature_specs: the language features no catalog operator combines (an order
# precondition, a string attribute, a float attribute; an aclIntArray of sequence lengths)
FEATURES = codegen.load_specs(Path(__file__).parent / "feature_specs")
DTYPES = [np.float32, np.float16, ml_dtypes.bfloat16, np.float64, np.int32, np.bool_]


def _outcome(fn):
    try:
        fn()
    except codegen.AclnnError as e:
        return (e.status, e.param, e.message)
    return None


def _class_shape(draw, op, p, grid):
    """A class-index op's tensor (codegen.spec.classes): its own shape on the grid `grid` (a per-sample one:
    the grid's without the class axis, or one element; per class: C; one element), and an integer dtype for the
    target."""
    from codegen.spec.classes import kind_of
    kind = kind_of(op, p.name)
    samples = grid[:1] + grid[2:] if len(grid) >= 2 else ()
    if kind == "grid":
        return grid, None
    if kind == "class":   # a per-class tensor with a dtype table of its own (CrossEntropyLossGrad's FLOAT weight)
        own = sorted({d for ds in (p.dtypes or {}).values() for d in ds})
        return (grid[1] if len(grid) >= 2 else grid[0] if grid else 1,), \
            (_np_dtype(draw(st.sampled_from(own))) if own else None)
    if kind == "sample":
        shape = samples if p.name == op.classes.target or draw(st.booleans()) else ()
        return shape, (draw(st.sampled_from([np.int64, np.int32, np.uint8])) if p.name == op.classes.target else None)
    return (1,), None


def _halved(op, p, shape):
    """A tensor a ShapeHalved rule names first (a split op's gradient): the drawn shape halved along the last
    axis, valid when `dim` names it (-1 among the draws), so that the draws reach valid calls of ClippedSwigluGrad
    (whose x must also be even along dim, and groupIndexOptional INT64 of rank 1)."""
    from codegen.spec import rules as R
    halved = {r.params[0] for r in op.rules if isinstance(r, R.ShapeHalved)}
    # (and a tensor of its shape: SwigluGroupGrad's yOriginOptional, ShapeSame with gradY)
    halved |= {n for r in op.rules if isinstance(r, R.ShapeSame) and halved & set(r.params) for n in r.params}
    if shape and p.name in halved:
        return shape[:-1] + (shape[-1] // 2,)
    return shape


def _own_shape_and_dtype(draw, op, p, shape, dtype):
    """A tensor with a dtype table of its own that lacks the drawn dtype takes one of its own, and one that no
    shape rule relates to another tensor (only dtype, format and rank rules name it) a shape in its own rank
    bounds: ClippedSwigluGrad's INT64 groupIndexOptional of rank 1 (drawn like x, the draws never reached a
    valid call)."""
    own = sorted({d for ds in (p.dtypes or {}).values() for d in ds})
    if own and not any(_np_dtype(d) == dtype for d in own):
        dtype = _np_dtype(draw(st.sampled_from(own)))
    shaped = [r for r in op.rules if p.name in r.params and not type(r).__name__.startswith(
        ("Dtype", "Promoted", "Format", "MinRank", "MaxRank"))]
    if own and not shaped:
        lo, hi = _rank_bounds(op, p.name)
        shape = tuple(draw(st.lists(st.integers(0, 3), min_size=lo, max_size=hi)))
    return shape, dtype


def _rank_bounds(op, name) -> tuple:
    """(lowest, highest) rank the rules admit for tensor `name` (1 and 4 without a rule)."""
    from codegen.spec import rules as R
    lo = max([r.n for r in op.rules if isinstance(r, R.MinRank) and name in r.params] + [1])
    hi = min([r.n for r in op.rules if isinstance(r, R.MaxRank) and name in r.params] + [4])
    return lo, max(lo, hi)


def _np_dtype(name):
    return {"BFLOAT16": ml_dtypes.bfloat16}.get(name) or np.dtype(codegen.spec.DTYPES[name].numpy).type


@st.composite
def calls(draw, op):
    base_shape = tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=3)))
    if op.classes is not None:   # a grid of the ranks its rules admit: (N, C), (C), (N, C, H, W); mutate 2 breaks them
        lo, hi = _rank_bounds(op, op.classes.tensor)
        base_shape = tuple(draw(st.lists(st.integers(0, 3), min_size=lo, max_size=hi)))
    elif min_rank(op) > 3 or op.int_arrays:   # beyond the ranks drawn (ScaledMaskedSoftmaxBackward's 4), or the
        base_shape = ranked(op, base_shape)     # time and batch axes of a sequence: leading axes of 1 up to it
    if op.split is not None and base_shape:   # a split input: even along the last axis (its half: _halved)
        base_shape = base_shape[:-1] + (2 * base_shape[-1],)
    base_dtype = draw(st.sampled_from(DTYPES[:3]))
    args, out = {}, {}
    for p in op.params:
        if isinstance(p, (Tensor, Output)):
            mutate = draw(st.integers(0, 24))
            # (a BOOL tensor, a mask: BOOL but where the dtype is mutated)
            shape, dtype = base_shape, (np.bool_ if p in op.bool_tensors else base_dtype)
            if op.classes is not None:
                shape, own = _class_shape(draw, op, p, base_shape)
                dtype = own or dtype
            elif isinstance(p, Tensor):
                shape, dtype = _own_shape_and_dtype(draw, op, p, shape, dtype)
            elif p.dtypes and "ascend910b" not in op.dtypes:   # an output's own table (SwigluGroupGrad's FLOAT gradWeight)
                dtype = _np_dtype(next(iter(next(iter(p.dtypes.values())))))
            shape = _halved(op, p, shape)
            shape = _channel_shape(draw, op, p, args, shape)
            shape = _row_shape(draw, op, p, args, shape)
            if mutate == 0:
                value = None
            else:
                if mutate == 1:
                    dtype = draw(st.sampled_from(DTYPES))
                elif mutate == 2:
                    shape = tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=9)))
                elif mutate == 3 and shape:   # a broadcastable variant: 1s and dropped leading dims
                    shape = tuple(1 if draw(st.booleans()) else d for d in shape)[draw(st.integers(0, len(shape))):]
                value = np.zeros(shape, dtype)
            if isinstance(p, Output):
                out[p.name] = value
            else:
                args[p.py_name] = value
        elif isinstance(p, Scalar):
            args[p.py_name] = None if draw(st.integers(0, 24)) == 0 else \
                draw(st.one_of(st.floats(-3, 3, allow_nan=False), st.integers(-3, 3), st.sampled_from([-0.0, 1e-300])))
        elif isinstance(p, IntArray):   # good and bad arrays (tests/samples.py: int_arrays)
            args[p.py_name] = draw(int_arrays(op, p, base_shape))
        elif isinstance(p, Attr) and p.type == "bool":
            args[p.py_name] = draw(st.booleans())
        elif isinstance(p, Attr) and p.type == "string":   # a listed string, another one, or a null char *
            args[p.py_name] = draw(st.one_of(st.sampled_from(list(p.values)), st.sampled_from(["", "TANH", "x"]),
                                             st.just(None)))
        elif isinstance(p, Attr) and p.is_real:
            # (a point a Requires allows besides a range, SwigluGroupQuantGrad's Eq(clampLimit, -1): drawn as often)
            points = [float(a.rhs) for r in op.rules if type(r).__name__ == "Requires" and r.params[0] == p.name
                      and type(r.condition).__name__ == "Or" for a in r.condition.args if type(a).__name__ == "Equality"]
            args[p.py_name] = draw(st.one_of(st.floats(-3, 3, allow_nan=False), st.sampled_from([-1.0, 0.0, 1e-300,
                                                                                                 1e39]),
                                             *([st.sampled_from(points)] if points else [])))
        elif isinstance(p, Attr) and p.name in op.variant_keys():   # an int64 choosing the form (approximate)
            args[p.py_name] = draw(st.one_of(st.sampled_from(list(p.values)), st.integers(-10, 10)))
        else:
            args[p.py_name] = draw(st.one_of(st.sampled_from([0, 1, 2, -1]), st.integers(-10, 10)))
    # tensors given together (PresentWith both ways, an output NotNullWhen a tensor): mostly as their partner is,
    # so that valid calls are drawn (SwigluGroupGrad's weight, yOrigin and gradWeightOut)
    from codegen.spec import rules as R
    for r in op.rules:
        if isinstance(r, (R.PresentWith, R.NotNullWhen)) and draw(st.integers(0, 3)):
            first, second = (r.params if isinstance(r, R.PresentWith) else r.params[::-1])
            src = args if not isinstance(op.param(first), Output) else out
            dst = args if not isinstance(op.param(second), Output) else out
            key = lambda n: op.param(n).py_name if not isinstance(op.param(n), Output) else n
            if src.get(key(first)) is None:
                dst[key(second)] = None
            elif dst.get(key(second)) is None and isinstance(op.param(second), Output):
                dst[key(second)] = np.zeros(src[key(first)].shape, np.float32)
    # (an op of few products, SwigluGroupGrad on the 950 only: mostly its own, so that valid calls are drawn)
    own = list(op.dtypes) * 4 if "ascend910b" not in op.dtypes else []
    product = draw(st.sampled_from(own + list(PRODUCTS)))
    # one output: the array (or None); several: {name: array or None} (what Library.create takes)
    return args, (out if len(out) > 1 else next(iter(out.values()))), product


def _channel_shape(draw, op, p, args, shape):
    """A per-channel tensor (PerChannel): C elements along its tensor's dim (C = 1 without one), one, or the
    drawn shape; its gradient (ChannelGrad): [C], the per-channel tensor's shape, or the drawn shape."""
    from codegen.spec import rules as R
    for r in op.rules:
        if isinstance(r, R.PerChannel) and r.params[0] == p.name:
            c = shape[r.dim] if len(shape) > r.dim else 1
            return draw(st.sampled_from([(c,), (1,), shape]))
        if isinstance(r, R.ChannelGrad) and r.params[0] == p.name:
            w = args.get(op.param(r.params[1]).py_name)
            c = shape[r.dim] if len(shape) > r.dim else 1
            return draw(st.sampled_from([(c,), shape] + ([w.shape] if w is not None else [])))
    return shape


def _row_shape(draw, op, p, args, shape):
    """A per-row tensor (PerRow): as many elements as its reference has rows, [rows] or [rows, 1], or the drawn
    shape; the output of its shape (SwigluGroupGrad's gradWeight, ShapeSame with it): the same, or the drawn one."""
    from codegen.spec import rules as R
    for r in op.rules:
        if isinstance(r, R.PerRow) and r.params[0] == p.name:
            ref = _halved(op, op.param(r.params[1]), shape)
            return draw(st.sampled_from([ref[:-1], ref[:-1] + (1,), shape])) if ref else shape
        if isinstance(r, R.ShapeSame) and r.params[-1] == p.name and isinstance(p, Output) and any(
                isinstance(q, R.PerRow) and q.params[0] == r.params[0] for q in op.rules):
            w = args.get(op.param(r.params[0]).py_name)
            return draw(st.sampled_from([shape] + ([w.shape] if w is not None else [])))
    return shape


def _outs(op, out) -> list:
    """`out` (one array, or {name: array} for several outputs) as the Python checker's output arguments."""
    return [out.get(o.name) for o in op.outputs] if isinstance(out, dict) else [out]


@pytest.mark.parametrize("name", sorted(OPS) + sorted(FEATURES))
def test_checkers_agree_on_random_calls(name):
    op = OPS.get(name) or FEATURES[name]
    check = load_module(op).check

    def py_check(*a):   # (the test below keeps its text: Hypothesis derives its fixed seed from it)
        *rest, out, product = a
        return check(*rest, *_outs(op, out), product)
    lib = library(op)
    names = [p.py_name for p in op.params if not isinstance(p, Output)]
    seen = set()

    @settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(calls(op))
    def agree(call):
        args, out, product = call
        want = _outcome(lambda: py_check(*[args[n] for n in names], out, product))
        got = _outcome(lambda: lib.check(args, out, product))
        assert got == want, f"{name} on {product}: C {got}, Python {want}"
        seen.add(want[:2] if want else None)

    agree()
    # the draws reached success and a failure at (almost) every parameter
    assert None in seen
    assert len(seen) >= len([p for p in op.params if not isinstance(p, Attr) and not getattr(p, "optional", False)])


@pytest.mark.parametrize("name", sorted(OPS))
def test_arguments_c_cannot_carry_give_the_numpy_error(name):
    """A list for a tensor, a complex array, a bool or a string for a scalar, a float for an int attribute:
    the C backend's callable reports them exactly as the NumPy backend (same status, parameter, message)."""
    from .error_inputs import valid_call
    op = OPS[name]
    c, ref = kernel(name, backend="c"), kernel(name)
    base = valid_call(op, np.random.default_rng(0))
    bad = []
    for p in op.params:
        if isinstance(p, Tensor):
            bad += [(p.py_name, [1.0, 2.0]), (p.py_name, np.zeros(3, np.complex64))]
        elif isinstance(p, Scalar):
            bad += [(p.py_name, True), (p.py_name, "1"), (p.py_name, 10 ** 400)]
        elif isinstance(p, Attr) and p.type == "string":
            bad += [(p.py_name, 1), (p.py_name, b"tanh"), (p.py_name, "ta\0nh")]
        elif isinstance(p, Attr) and p.is_real:
            bad += [(p.py_name, True), (p.py_name, "1"), (p.py_name, 10 ** 400)]
        elif isinstance(p, Attr):
            bad += [(p.py_name, 1.5 if p.type == "int64" else 1), (p.py_name, 2 ** 70 if p.type == "int64" else "x")]
    # a tensor accepted and never read that no rule checks (CrossEntropyLossGrad's zloss ones): NumPy ignores a list
    # there, as the library ignores the tensor; C cannot carry it and says so (TypeError)
    ignored = {p.py_name for p in op.tensors if p.role == UNUSED and not any(p.name in r.params for r in op.rules)}
    for key, value in bad:
        kw = dict(base, **{key: value})
        if key in ignored and isinstance(value, list):
            assert isinstance(ref(**kw), np.ndarray)
            with pytest.raises(TypeError, match="cannot be passed to C"):
                c(**kw)
            continue
        want = _outcome(lambda: ref(**kw))
        got = _outcome(lambda: c(**kw))
        assert want is not None and got == want, f"{name} {key}={value!r}: C {got}, NumPy {want}"


@pytest.mark.parametrize("backend", ["numpy", "c", "ascendc"])
def test_a_read_only_out_is_refused_by_every_backend(backend):
    """A read-only `out=` (a broadcast view, an array marked read-only) gets the same ValueError from every
    backend, naming the op, before any check; and it is left as it was."""
    from .error_inputs import valid_call
    from codegen import backends
    runs_on = getattr(backends.get(backend), "products", None)
    for name in sorted(OPS):
        op = OPS[name]
        if runs_on is not None and not runs_on(op):   # (no Ascend C kernel of an Ascend 950 only op)
            continue
        kw = valid_call(op, np.random.default_rng(1))
        results = kernel(name)(**kw)
        several = isinstance(results, tuple)   # several outputs: each one read-only in turn, the others None
        for k, want in enumerate(results if several else (results,)):
            marked = want.copy()
            marked.flags.writeable = False
            for out in (np.broadcast_to(np.zeros(want.shape[-1:], want.dtype), want.shape), marked):
                before = out.copy()
                given = tuple(out if i == k else None for i in range(len(results))) if several else out
                with pytest.raises(ValueError, match=f"^{name}: out is read-only$"):
                    kernel(name, backend=backend)(**kw, out=given)
                np.testing.assert_array_equal(out, before)
