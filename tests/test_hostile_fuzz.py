"""Hostile calls drawn by Hypothesis, as a new user makes them: random ranks (up to 17: one past aclCreateTensor's
16) and shapes (broadcast or not), strides of every sign (zero, negative, odd byte counts on size-1 and empty
dimensions), misaligned arrays, dtypes the op does not take, read-only, aliased and overlapping outputs, absurd
scalars, attributes and out_dtype=, unknown and None products.

Every backend (numpy, c, ascendc) gets the same call, built afresh from the same recipe, and
- raises nothing but the documented errors: `AclnnError` (a status and a parameter) or, for an `out=` that is
  read-only or whose elements share memory, `ValueError`; the verdict is the same on every backend;
- on an error, leaves every buffer it was given (inputs and `out=`) as it was;
- on success, returns `out=` itself when one was given, leaves the inputs that `out=` does not overlap as they
  were, and computes what the same backend computes from clean contiguous copies of the inputs taken before the
  call (a result independent of layout and aliasing; the clean results are checked against independent oracles
  in test_*_values.py), within the tolerance of tests/compare.py across backends.

CI draws 30 calls with a fixed seed; `pytest --deep` 1500, and `OPGEN_FUZZ_EXAMPLES=N pytest
tests/test_hostile_fuzz.py --deep -p no:randomly` as many as asked (the longer run of docs/c-api.md);
OPGEN_FUZZ_BACKENDS narrows the backends (tests/test_c_api.py runs numpy and the sanitized C library so)."""
from __future__ import annotations

import os
from dataclasses import dataclass

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

import codegen
from codegen import backends
from codegen.accuracy.bound import NoBound, bound_of
from codegen.backends.ascendc import SimulatorError
from codegen.accuracy.reference import variant_of
from codegen.runtime.calls import out_dtype_free
from codegen.spec import PRODUCTS
from codegen.spec.params import Attr, IntArray, Output, Scalar, Tensor
from codegen.spec.rules import PerChannel

from .compare import assert_elementwise_close, assert_rows_close
from .conftest import deep_examples
from .kernels import kernel

OPS = codegen.load_specs()
BACKENDS = os.environ.get("OPGEN_FUZZ_BACKENDS", "numpy,c,ascendc").split(",")   # numpy first: the reference
DEEP = int(os.environ.get("OPGEN_FUZZ_EXAMPLES", 0)) or 1500
GOOD_DTYPES = [np.float32, np.float16, ml_dtypes.bfloat16]
DTYPES = {"FLOAT": np.float32, "FLOAT16": np.float16, "BFLOAT16": ml_dtypes.bfloat16}
BAD_DTYPES = [np.float64, np.int32, np.int8, np.bool_, np.complex64, np.uint16]
DTYPE_NAME = {np.dtype(np.float32): "FLOAT", np.dtype(np.float16): "FLOAT16",
              np.dtype(ml_dtypes.bfloat16): "BFLOAT16"}
MAX_ELEMENTS = 256
ABSURD_NUMBERS = [float("nan"), float("inf"), -float("inf"), -0.0, 1e308, -1e-320, 10 ** 400, -(2 ** 63), 2 ** 64,
                  True, False, 1j, np.float16(0.5), np.float64(2.0), np.int64(-3)]
ABSURD_OBJECTS = [None, "0.5", b"1", [0.5], np.array([0.5]), np.array(1.0), object()]
PRODUCT_CHOICES = [None, "", "ASCEND910B", "ascend910c", 910, ["ascend910b"], b"ascend910b"]
NOT_HERE = ("not run here",)   # the verdict of a backend that does not run on the call's product


# ---- recipes: plain data, so that each backend gets its own, identical arrays --------------------------------
@dataclass
class ArrayRecipe:
    dtype: object
    shape: tuple
    strides: tuple               # in bytes (any integer: zero, negative, odd)
    seed: int = 0
    readonly: bool = False
    misaligned: bool = False     # the first element one byte past an item boundary
    view_of: str | None = None   # out only: a view into this input's buffer (aliased or overlapping) ...
    shift: int = 0               # ... starting this many bytes into it
    same_as: str | None = None   # out only: this very input object


@dataclass
class Recipe:
    op: str
    args: dict                   # py_name -> ArrayRecipe | ("value", v)
    product: object
    out: ArrayRecipe | tuple | None = None   # several outputs: a tuple of ArrayRecipe or None, one per output
    out_dtype: object = None


def _reach(shape, strides, itemsize):
    """(lowest, highest+1) byte offsets a view reaches from its first element; (0, 0) when it is empty."""
    if 0 in shape:
        return 0, 0
    lo = sum(s * (n - 1) for n, s in zip(shape, strides) if s < 0)
    hi = sum(s * (n - 1) for n, s in zip(shape, strides) if s > 0)
    return lo, hi + itemsize


def _values(nbytes: int, dtype, rng) -> np.ndarray:
    """`nbytes` bytes of typical values of `dtype`, a few IEEE specials among them."""
    dtype = np.dtype(dtype)
    n = -(-nbytes // dtype.itemsize) + 1
    v = rng.uniform(-4, 4, n)
    special = rng.random(n) < 0.05
    v[special] = rng.choice([0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e-30], special.sum())
    with np.errstate(all="ignore"):
        typed = (v > 0) if dtype.kind == "b" else (np.nan_to_num(v) * 10).astype(dtype) if dtype.kind in "iu" \
            else v.astype(dtype)
    return typed.view(np.uint8)[:nbytes].copy()


def _array(r: ArrayRecipe, buffers: dict, name: str) -> np.ndarray:
    """The view `r` describes over a byte buffer of its own, or of the input it overlaps (kept in `buffers`)."""
    dtype = np.dtype(r.dtype)
    lo, hi = _reach(r.shape, r.strides, dtype.itemsize)
    start = -lo + int(r.misaligned)
    if r.view_of is not None and buffers[r.view_of].size >= hi - lo:
        base = buffers[r.view_of]
        start = -lo + min(r.shift, base.size - (hi - lo))
    else:
        base = _values(start + hi + dtype.itemsize, dtype, np.random.default_rng(r.seed))
        buffers[name] = base
    arr = np.ndarray(r.shape, dtype=dtype, buffer=base, offset=start, strides=r.strides)
    if r.readonly:
        arr.flags.writeable = False
    return arr


def build(recipe: Recipe):
    """(keywords of the call, {name: byte buffer}) for one backend."""
    op = OPS[recipe.op]
    buffers, kw = {}, {}
    for name, arg in recipe.args.items():
        kw[name] = _array(arg, buffers, name) if isinstance(arg, ArrayRecipe) else arg[1]
    def _out(r, name):
        return None if r is None else kw[r.same_as] if r.same_as else _array(r, buffers, name)
    if isinstance(recipe.out, tuple):
        kw["out"] = tuple(_out(r, f"out{i}") for i, r in enumerate(recipe.out))
    elif recipe.out is not None:
        kw["out"] = _out(recipe.out, "out")
    kw["product"] = recipe.product
    if recipe.out_dtype is not None:
        kw["out_dtype"] = recipe.out_dtype
    return kw, buffers


# ---- strategies ------------------------------------------------------------------------------------------------
@st.composite
def shapes(draw, base=None, max_rank=17):
    if base is not None and draw(st.booleans()):
        shape = list(base)
        if draw(st.booleans()):                  # broadcastable: leading dimensions dropped, some set to 1
            shape = shape[draw(st.integers(0, len(shape))):]
        return tuple(1 if draw(st.integers(0, 3)) == 0 else n for n in shape)
    rank = draw(st.one_of(st.integers(0, 4), st.integers(0, 4), st.integers(5, 8), st.integers(9, 17)))
    rank = min(rank, max_rank)
    shape = [draw(st.sampled_from([1, 1, 1, 2, 0]) if rank > 4 else st.integers(0, 6)) for _ in range(rank)]
    while np.prod(shape) > MAX_ELEMENTS:
        shape[shape.index(max(shape))] = 1
    return tuple(shape)


@st.composite
def layouts(draw, shape, dtype, output=False):
    """Byte strides for `shape`: contiguous, reversed, transposed, every other element, broadcast (zero), or
    anything; dimensions of size 1 or 0 address nothing and may carry any stride, odd byte counts included."""
    item = np.dtype(dtype).itemsize
    rank = len(shape)
    kinds = ["contiguous", "reversed", "transposed", "stepped", "zero", "random"]
    kind = draw(st.sampled_from(kinds[:4] if output == "valid" else kinds))
    order = list(range(rank))[::-1] if kind == "transposed" else list(range(rank))
    strides, span = [0] * rank, item * (2 if kind == "stepped" else 1)
    for d in reversed(order):
        strides[d] = span
        span *= max(shape[d], 1)
    if kind == "reversed":
        strides = [-s if draw(st.booleans()) else s for s in strides]
    if kind == "zero":
        strides = [0 if draw(st.booleans()) else s for s in strides]
    if kind == "random":
        strides = [item * draw(st.integers(-4, 4)) for _ in shape]
    strides = [draw(st.integers(-9, 9)) if n <= 1 and draw(st.booleans()) else s for n, s in zip(shape, strides)]
    return tuple(strides)


@st.composite
def arrays(draw, base_shape, output=False, dtype=None):
    """Any dtype and a shape near `base_shape`; or, given `dtype`, that dtype and `base_shape` itself (a call
    whose only hostility is its layout: strides, misalignment, aliasing)."""
    if dtype is None:
        dtype = draw(st.sampled_from(GOOD_DTYPES) if draw(st.integers(0, 7)) else st.sampled_from(BAD_DTYPES))
        shape = draw(shapes(base_shape))
    else:
        shape = base_shape
    return ArrayRecipe(dtype, shape, draw(layouts(shape, dtype, output)), seed=draw(st.integers(0, 2 ** 32 - 1)),
                       readonly=output != "valid" and draw(st.integers(0, 7 if output else 9)) == 0,
                       misaligned=draw(st.integers(0, 9)) == 0)


def _hostile_value(draw, typical, hostile):
    if hostile and draw(st.integers(0, 3)) == 0:
        typical = st.one_of(st.sampled_from(ABSURD_NUMBERS), st.sampled_from(ABSURD_OBJECTS))
    return ("value", draw(typical))


@st.composite
def calls(draw, op_names):
    """Half the calls are hostile in every way at once; the other half keep dtypes, shapes, scalars and the
    product valid and are hostile in layout only (so that most of them compute and the results are compared)."""
    name = draw(st.sampled_from(op_names))
    op = OPS[name]
    hostile = draw(st.booleans())
    base = draw(shapes(max_rank=17 if hostile else 8))   # 8: most ops' limit (a 161002 of its own)
    if op.int_arrays and not hostile:   # a sequence's time and batch axes (MinRank): leading axes of 1 up to them
        from .samples import ranked
        base = ranked(op, base)
    if hostile:
        product = draw(st.sampled_from(list(PRODUCTS)) if draw(st.integers(0, 5)) else st.sampled_from(PRODUCT_CHOICES))
        dtype = None
    else:
        # a product every backend runs on, a dtype of the table this file draws arrays of (FLOAT16, BFLOAT16, FLOAT)
        runs_on = [getattr(backends.get(b), "products", None) for b in BACKENDS]
        socs = [s for s in sorted(op.dtypes) if all(r is None or s in r(op) for r in runs_on)]
        product = draw(st.sampled_from(socs))
        dtype = DTYPES[draw(st.sampled_from([d for d in op.dtypes[product] if d in DTYPES]))]
    args = {}
    for p in op.params:
        if isinstance(p, Output):
            continue
        if isinstance(p, Tensor):
            if hostile and draw(st.integers(0, 11)) == 0:
                args[p.py_name] = _hostile_value(draw, st.none(), hostile)
            elif p.optional and draw(st.booleans()):
                args[p.py_name] = ("value", None)
            else:
                args[p.py_name] = draw(arrays(base, dtype=dtype))
        elif isinstance(p, Scalar):
            args[p.py_name] = _hostile_value(draw, st.floats(0, 3).map(lambda v: round(v, 2)), hostile)
        elif isinstance(p, IntArray):   # good and bad lengths (tests/samples.py), or anything at all
            from .samples import int_arrays
            args[p.py_name] = _hostile_value(draw, int_arrays(op, p, base), hostile)
        elif isinstance(p, Attr):
            rank = max(len(base), 1)
            typical = st.booleans() if p.type == "bool" else st.sampled_from(sorted(p.values)) if p.values \
                else st.integers(-rank - 2, rank + 1) if hostile else st.integers(-rank, rank - 1)
            args[p.py_name] = _hostile_value(draw, typical, hostile)
    if not hostile:   # a per-channel tensor (PReLU's weight) of C elements or one, so that most calls compute
        for r in op.rules:
            if isinstance(r, PerChannel) and isinstance(args.get(op.param(r.params[0]).py_name), ArrayRecipe):
                c = base[r.dim] if len(base) > r.dim else 1
                args[op.param(r.params[0]).py_name] = draw(arrays(draw(st.sampled_from([(c,), (1,)])), dtype=dtype))
    recipe = Recipe(name, args, product)
    inputs = [k for k, v in args.items() if isinstance(v, ArrayRecipe)]
    if len(op.outputs) > 1 and not (hostile and draw(st.integers(0, 7)) == 0):   # (else one array: a TypeError)
        shapes_ = _output_shapes(op, args, base)
        recipe.out = tuple(draw(_outs(inputs, shapes_[o.name], hostile, dtype)) for o in op.outputs)
        if all(o is None for o in recipe.out):
            recipe.out = draw(st.sampled_from([None, recipe.out]))
    else:
        recipe.out = draw(_outs(inputs, base, hostile, dtype))
    if hostile and out_dtype_free(op) and draw(st.integers(0, 7)) == 0:   # elsewhere a TypeError, as for any
        recipe.out_dtype = draw(st.sampled_from(["float16", "float32", "bfloat16", np.float16, "float64", "half", 3]))
    return recipe


def _output_shapes(op, args: dict, base) -> dict:
    """{output name: its shape} from the op's shape rules over the drawn input shapes; `base` where they give
    none (hostile shapes the checker refuses anyway)."""
    from codegen.runtime.calls import shape_of_output
    dummies = {k: np.empty(v.shape, np.uint8) for k, v in args.items() if isinstance(v, ArrayRecipe)}
    shapes_ = {}
    for o in op.outputs:
        try:
            shape = tuple(shape_of_output(op, o.name, dummies))
        except (KeyError, ValueError, AttributeError, TypeError, IndexError):
            shape = None
        # (a dimension the rules leave open, None, where the tensor it comes from is absent or hostile)
        shapes_[o.name] = shape if shape is not None and all(isinstance(d, int) for d in shape) else base
    return shapes_


@st.composite
def _outs(draw, inputs, shape, hostile, dtype):
    """An `out=` array of `shape`: none, fresh, an input itself, or a view overlapping one."""
    how = draw(st.sampled_from(["none", "fresh", "same", "overlap"]))
    if how == "none" or (how != "fresh" and not inputs):
        return None
    out = draw(arrays(shape, output=True if hostile else "valid", dtype=dtype))
    if how == "same":
        out.same_as = draw(st.sampled_from(inputs))
    elif how == "overlap":
        out.view_of = draw(st.sampled_from(inputs))
        out.shift = draw(st.integers(0, 16))
    return out


# ---- the property ----------------------------------------------------------------------------------------------
def _verdict(recipe: Recipe, backend: str):
    kw, buffers = build(recipe)
    before = {k: b.copy() for k, b in buffers.items()}
    try:
        got = kernel(recipe.op, backend)(**kw)
    except codegen.AclnnError as e:
        verdict = ("AclnnError", e.status, e.param)
    except ValueError as e:
        assert "read-only" in str(e) or "share memory" in str(e), f"{backend}: {e!r}"
        verdict = ("ValueError", str(e))
    except TypeError as e:   # documented for an op with several outputs given one array as out=
        assert isinstance(recipe.out, ArrayRecipe) and len(OPS[recipe.op].outputs) > 1 and \
            "out must be None or a tuple" in str(e), f"{backend}: {e!r}"
        verdict = ("TypeError", str(e))
    except SimulatorError as e:   # a call the checks accept on a product the simulator has no architecture for
        assert e.rule == "soc" and recipe.product not in backends.get(backend).products(OPS[recipe.op]), \
            f"{backend}: {e!r}"
        verdict = NOT_HERE
    else:
        several = len(OPS[recipe.op].outputs) > 1
        if several:
            assert isinstance(got, tuple) and len(got) == len(OPS[recipe.op].outputs), f"{backend}: {type(got)}"
        got = got if several else (got,)
        # an optional output (SwigluGroupGrad's gradWeight) is None when it or an optional input it reads is absent
        assert all(isinstance(g, np.ndarray) or (g is None and o.optional)
                   for g, o in zip(got, OPS[recipe.op].outputs)), f"{backend}: returned {[type(g) for g in got]}"
        outs = kw.get("out") if several else (kw.get("out"),)
        for g, o in zip(got, outs or [None] * len(got)):
            assert o is None or g is o, f"{backend}: a result is not its out="
        return ("ok",), (got, kw, buffers, before)
    for k, b in buffers.items():      # an error leaves every buffer as it was
        assert np.array_equal(b, before[k]), f"{backend}: {verdict} but {k}'s buffer changed"
    return verdict, None


def _clean(recipe: Recipe, backend: str):
    """The backend's result from contiguous copies of the inputs as they were before the call."""
    fresh, _ = build(recipe)   # the same values again, untouched
    clean = {k: (v.copy(order="C") if isinstance(v, np.ndarray) and k != "out" else v)
             for k, v in fresh.items()}
    # out= as contiguous copies of what it held: an empty input writes nothing into a summed output (EmptyReturns)
    out = clean.pop("out", None)
    if isinstance(out, tuple):
        clean["out"] = tuple(None if o is None else o.copy(order="C") for o in out)
    elif out is not None:
        clean["out"] = out.copy(order="C")
    want = kernel(recipe.op, backend)(**clean)
    return want if isinstance(want, tuple) else (want,)


def _check_success(recipe, backend, got, kw, buffers, before):
    outs = recipe.out if isinstance(recipe.out, tuple) else (recipe.out,)
    names = [f"out{i}" for i in range(len(outs))] if isinstance(recipe.out, tuple) else ["out"]
    written = {n if n in buffers else o.view_of or o.same_as for n, o in zip(names, outs) if o is not None}
    for k, b in buffers.items():
        if k not in written:
            assert np.array_equal(b, before[k]), f"{backend}: success but input {k}'s buffer changed"
    wants = _clean(recipe, backend)
    for g, want in zip(got, wants):
        if g is None or want is None:   # an optional output not computed: alike from the clean call
            assert g is None and want is None, f"{backend}: an optional output computed from one call only"
            continue
        assert g.shape == want.shape and g.dtype == want.dtype, f"{backend}: {g.shape} {g.dtype} vs clean"
        np.testing.assert_array_equal(g.astype(np.float64), want.astype(np.float64),
                                      err_msg=f"{backend}: the hostile layout changed the result")
    return wants


def _has_kernel(backend: str, op) -> bool:
    """Whether the backend has a kernel for the op on any product (Ascend C has none for an operator whose only
    products have no AI Core architecture here: the Ascend 950 operators; asking for one is a SpecError)."""
    products = getattr(backends.get(backend), "products", None)
    return products is None or bool(products(op))


def check(recipe: Recipe):
    verdicts, results = {}, {}
    for backend in [b for b in BACKENDS if _has_kernel(b, OPS[recipe.op])]:
        verdicts[backend], success = _verdict(recipe, backend)
        if success is not None:
            results[backend] = _check_success(recipe, backend, *success)
    # (ascend950 on the Ascend C backend, found by the session-23 long run: the checks pass alike, then the
    # simulator says it has no architecture for it; every other backend must have computed)
    here = set(verdicts.values()) - {NOT_HERE}
    assert len(here) == 1 and (here == {("ok",)} or NOT_HERE not in verdicts.values()), f"verdicts differ: {verdicts}"
    op = OPS[recipe.op]
    for i in range(len(results["numpy"]) if results else 0):   # each output
        computed = {b: r[i] is not None for b, r in results.items()}
        assert len(set(computed.values())) == 1, f"output {i} computed by some backends only: {computed}"
        _compare(recipe, op, {b: r[i] for b, r in results.items() if r[i] is not None})


def _compare(recipe: Recipe, op, results: dict):
    if "numpy" in results:
        want = results["numpy"]
        if want.size == 0 or want.dtype.name not in ("float32", "float16", "bfloat16"):
            return
        dout = DTYPE_NAME[want.dtype]
        for backend in [b for b in BACKENDS[1:] if b in results]:   # (not a backend that does not run here)
            if np.array_equal(results[backend].astype(np.float64), want.astype(np.float64), equal_nan=True):
                continue   # the same values (a call that ended early on an empty input computed none: zeros)
            if op.reduce_dim:
                kw, _ = build(recipe)
                kw = {k: (np.asarray(v, np.float64) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
                dim = kw.get(op.reduce_dim) % want.ndim if want.ndim else 0
                got = results[backend]
                g, w = got.astype(np.float64), want.astype(np.float64)
                assert (np.isnan(g) == np.isnan(w)).all(), f"{backend}: nan where NumPy has none, or none where it has"
                # rows holding an inf or nan input have no error bound (it would be nan): there only nan is compared
                special = np.zeros(want.shape, bool)
                for v in kw.values():
                    if isinstance(v, np.ndarray) and v.shape == want.shape:
                        special |= np.broadcast_to(~np.isfinite(v).all(axis=dim, keepdims=True), want.shape)
                same = (g == w) | np.isnan(w) | special
                kw = {k: (np.where(np.isfinite(v), v, 0) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
                assert_rows_close(op, np.where(same, 0, got).astype(got.dtype), np.where(same, 0, want).astype(
                    want.dtype), kw, dim, dout, backend)
            else:
                assert_elementwise_close(results[backend], want, dout, backend, slack=_bound(recipe, op, want.shape))


def _bound(recipe: Recipe, op, shape):
    """Twice the documented formula's FLOAT rounding-error bound at each element (codegen.accuracy.bound, by which
    the oracle judges every kernel): two backends each within it of the exact value are within twice it of each
    other.  Where a sum cancels (KlDivTargetBackward's g·(log t + 1 - x), found by the long sanitized run: NumPy and
    C 145 ulps apart, each within 1.2e-5 of the exact value) the ulps of the result say nothing, and where every
    other element is nan neither does the call's largest result.  None where the op has no such bound."""
    if op.split is not None or op.classes is not None or op.sequence is not None or len(op.outputs) != 1:
        return None
    kw, _ = build(recipe)
    try:
        _, e, _ = bound_of(op, variant_of(op, kw), kw, shape)
    except NoBound:
        return None
    return 2 * np.broadcast_to(np.asarray(e, np.float64), shape)


# no shrinking: a call costs milliseconds on the simulator and a failing recipe is printed whole
@settings(max_examples=deep_examples(30, DEEP), derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])
@given(data=st.data())
def test_hostile_calls_get_a_status_or_the_clean_result_alike_on_every_backend(data):
    check(data.draw(calls(sorted(OPS))))


def test_a_product_the_simulator_has_no_architecture_for_is_a_documented_verdict():
    """Found by the session-23 long run (numpy,ascendc, seed 2312): LogitGrad on ascend950 with valid arrays passed
    the checks on every backend, NumPy computed, and the Ascend C simulator raised SimulatorError [soc] (no
    architecture for ascend950 here), which the harness counted as a crash."""
    if "ascendc" not in BACKENDS:
        pytest.skip("OPGEN_FUZZ_BACKENDS leaves out ascendc")
    x = ArrayRecipe(ml_dtypes.bfloat16, (5,), (4,), seed=5, readonly=True, misaligned=True)
    recipe = Recipe("logit_grad", {"x": x, "dy": x, "eps": ("value", float("nan"))}, "ascend950")
    assert _verdict(recipe, "ascendc")[0] == NOT_HERE
    check(recipe)


def test_an_operator_with_no_kernel_on_a_backend_is_compared_on_the_others():
    """Found by asc10's long numpy+ascendc run (session 23): the first call of SwigluGroupGrad (Ascend 950 only, no
    Ascend C kernel here) stopped the harness with a SpecError from kernel(op, "ascendc")."""
    if "ascendc" not in BACKENDS:
        pytest.skip("OPGEN_FUZZ_BACKENDS leaves out ascendc")
    assert not _has_kernel("ascendc", OPS["swiglu_group_grad"]) and _has_kernel("ascendc", OPS["logit_grad"])
    grad_y = ArrayRecipe(np.float32, (4, 8), (32, 4), seed=3)
    x = ArrayRecipe(np.float32, (4, 16), (64, 4), seed=4)
    recipe = Recipe("swiglu_group_grad", {"grad_y": grad_y, "x": x, "weight_optional": ("value", None),
                                             "y_origin_optional": ("value", None),
                                             "group_index_optional": ("value", None), "clamp_limit": ("value", 0.0)}, "ascend950")
    check(recipe)
