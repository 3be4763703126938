"""The generated Ascend C kernels on the simulator against the NumPy backend (the oracle of this file, whose own
values tests/test_numpy_values.py checks against mpmath derivatives of the forward).

Every op × every variant × every (input, output) dtype pair its kernel is built for × every product that claims
it, at lengths that probe the tiling: 0 (nothing launched), 1, 15, 16, 17 (32-byte tails of FLOAT16 and FLOAT),
4095, 4097 (every core busy, the last one's share uneven), one element more than all cores' first tiles (a core
runs a second, one-block tile), and for the row op (softmax) short rows, rows of one element, rows longer than a
tile (two passes), and `dim` not last.  Elementwise results must agree within 1 ulp of the output dtype (2 for
FLOAT, whose exp/log come from different libraries); row sums are added in a different order (ReduceSum's tree),
so softmax is held to a bound proportional to the row's magnitude.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import codegen
from codegen.backends import ascendc
from codegen.backends.ascendc import tiling as T
from codegen.backends.ascendc.plan import DTYPE_BYTES
from codegen.backends.ascendc.socs import kernel_socs, tiling_ub
from codegen.backends.ascendc.binding import build_job
from codegen.runtime.checks import dtype_name
from codegen.spec import PRODUCTS
from codegen.spec.params import FORWARD_OUTPUT

from .compare import assert_elementwise_close, assert_rows_close, seed
from .error_inputs import valid_call
from .samples import along, ascendc_cases, channel_rules, fit, results, samples, skip_split
from .kernels import kernel   # (each op's kernel made once per process: an Ascend C one plans its op)
from .samples import ascendc_plan as plan   # (once per op: planning again costs CPU on every case)

OPS = codegen.load_specs()
NP = {"FLOAT": np.float32, "FLOAT16": np.float16, "BFLOAT16": ml_dtypes.bfloat16}
ELEMENTWISE = [n for n, op in OPS.items() if not op.reduce_dim]
# a class-index op (CrossEntropyLossGrad) has rows of its own shapes (codegen.spec.classes): tests/samples.py draws
# them, test_c_values and the oracle compare its values
ROWS = [n for n, op in OPS.items() if op.reduce_dim and op.classes is None]
CASES = ascendc_cases(OPS)

@pytest.fixture(scope="session", autouse=True)
def binaries():
    """Compile every op for every architecture the cases run it on once per session, together (build_many: one
    translation unit per architecture), with the launchers the dtypes beyond the AI Core cast on the host for."""
    cases = [(n, soc) for n, soc, _, _ in CASES] + [(n, _wide_soc(OPS[n], d)) for n, d in WIDE
                                                     if OPS[n].compute[d] == "FLOAT"]
    jobs = {build_job(OPS[n], soc)[::3]: build_job(OPS[n], soc) for n, soc in cases}
    ascendc.build.build_many(list(jobs.values()))


def _tile(op, kv_index, soc, din, dout):
    lay = plan(op).variants[kv_index].layout
    prod = PRODUCTS[soc]
    return T.evaluate(lay, 1, 1, prod.cores, tiling_ub(soc), DTYPE_BYTES[din],
                      DTYPE_BYTES[dout])["tileMax"]


def _lengths(op, soc, din, dout):
    prod = PRODUCTS[soc]
    tile = min(_tile(op, i, soc, din, dout) for i in range(len(plan(op).variants)))
    return [0, 1, 15, 16, 17, 4095, 4097, prod.cores * tile + 1]


def _with_specials(a, rng):
    """Typical values with a few IEEE specials and branch points mixed in."""
    a = a.copy()
    if a.size >= 16:
        idx = rng.choice(a.size, 8, replace=False)
        a.flat[idx] = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e4, -1e4, 0.5]).astype(a.dtype)
    return a


@pytest.mark.parametrize("name, soc, din, dout", [c for c in CASES if c[0] in ELEMENTWISE], ids=str)
def test_elementwise_kernels_match_numpy(name, soc, din, dout):
    op = OPS[name]
    if op.classes is not None:   # its tensors have shapes of their own (tests/test_classes.py)
        skip_split(op)
    sim, ref = kernel(name, backend="ascendc"), kernel(name)
    rng = np.random.default_rng(seed(name, soc, din, dout))
    channel = channel_rules(op).values()
    for n in _lengths(op, soc, din, dout):
        for s in samples(op, din, rng, n=max(n, 1)):
            kw = {k: (_with_specials(v, rng) if isinstance(v, np.ndarray) and op.role_of(
                next(t.name for t in op.tensors if t.py_name == k), s.variant.formula) != FORWARD_OUTPUT
                else v) for k, v in s.kw.items()}
            if n == 0:   # (a per-channel tensor keeps its channels: self (0, C) has C)
                kw = {k: (v[:0] if isinstance(v, np.ndarray) and k not in channel else v) for k, v in kw.items()}
            extra = {"out_dtype": dout} if din != dout else {}
            for got, want, o in zip(results(op, sim(**kw, product=soc, **extra)),
                                    results(op, ref(**kw, product=soc, **extra)), op.outputs):
                assert_elementwise_close(got, want, dout, f"{name} {soc} {din}->{dout} n={n} {s.label} {o.name}")


def _row_inputs(op, shape, dtype, rng):
    kw = {}
    for t in op.tensors:
        kw[t.py_name] = rng.uniform(-2, 2, shape).astype(NP[dtype]) if t.role != FORWARD_OUTPUT \
            else rng.uniform(0, 1, shape).astype(NP[dtype])
    return kw


@pytest.mark.parametrize("name, soc, din, dout", [c for c in CASES if c[0] in ROWS], ids=str)
def test_row_kernels_match_numpy(name, soc, din, dout):
    op = OPS[name]
    sim, ref = kernel(name, backend="ascendc"), kernel(name)
    rng = np.random.default_rng(seed(name, soc, din, dout))
    tile = _tile(op, 0, soc, din, dout)
    cores = PRODUCTS[soc].cores
    shapes = [((0, 5), -1), ((), 0), ((1,), 0), ((3, 1), -1), ((7, 15), -1), ((cores + 3, 17), 1),
              ((2, 4097), -1), ((3, 2 * tile + 3), -1), ((1, tile), -1), ((4, 5, 6), 0), ((4, 5, 6), 1)]
    # scalars and attributes of a valid call (ScaledMaskedSoftmaxBackward's scale)
    attrs = {k: v for k, v in valid_call(op, np.random.default_rng(0)).items() if not isinstance(v, np.ndarray)}
    for shape, dim in shapes:
        kw = {**attrs, **fit(op, _row_inputs(op, shape, din, rng))}   # (at the rules' minimum rank, masks BOOL)
        if not along(op, kw, dim):   # (a fixed axis: the shapes along it)
            continue
        extra = {"out_dtype": dout} if din != dout else {}
        try:
            want = ref(**kw, product=soc, **extra)
        except codegen.AclnnError as e:   # a row longer than the rules allow (DimAtMost): refused alike
            with pytest.raises(codegen.AclnnError) as info:
                sim(**kw, product=soc, **extra)
            assert (info.value.status, info.value.param) == (e.status, e.param)
            continue
        got = sim(**kw, product=soc, **extra)
        assert_rows_close(op, got, want, kw, dim if len(shape) else None, dout, f"{name} {soc} {din}->{dout} {shape} dim={dim}")


# dtypes no AI Core kernel reads: those an op computes in FLOAT are cast on the host first (the op_api's l0 Cast),
# those it computes in DOUBLE go to the C backend's DOUBLE kernel (CANN runs them on its AI CPU); on the products
# with an Ascend C architecture (CrossEntropyLossGrad's INT32 targets are the Ascend 950's only)
WIDE = [(n, d) for n, op in OPS.items() for d in sorted({d for s in kernel_socs(op) for d in op.dtypes.get(s, [])}
                                                          | {d for t in op.tensors if t.dtypes for s in kernel_socs(op)
                                                             for d in t.dtypes.get(s, [])})
        if d in op.compute]


def _wide_soc(op, dtype: str) -> str:
    """The product `dtype` of `op` runs on in test_dtypes_beyond_the_ai_core_match_numpy: the first that has it."""
    return next(s for s in kernel_socs(op) if dtype in op.dtypes.get(s, []) or any(
        dtype in (t.dtypes or {}).get(s, []) for t in op.tensors))


@pytest.mark.parametrize("name, dtype", WIDE, ids=str)
def test_dtypes_beyond_the_ai_core_match_numpy(name, dtype):
    op = OPS[name]
    soc = _wide_soc(op, dtype)
    sim, ref = kernel(name, backend="ascendc"), kernel(name)
    rng = np.random.default_rng(seed(name, dtype))
    takers = [t.py_name for t in op.tensors if dtype in op.dtypes_of(t.name).get(soc, [])]
    # every tensor that takes `dtype` gets it, then each alone (GeluBackward takes an integer only next to a float:
    # two integers promote to an integer, which it refuses); a refused call is refused by both alike
    groups = [takers] + ([[n] for n in takers] if len(takers) > 1 else [])
    ran = 0
    for s in samples(op, "FLOAT", rng, n=33):
        for group in groups:
            kw = {k: v.astype(NP.get(dtype) or np.dtype(codegen.spec.DTYPES[dtype].numpy))
                  if k in group and v is not None else v for k, v in s.kw.items()}
            try:
                want = ref(**kw, product=soc)
            except codegen.AclnnError as e:
                with pytest.raises(codegen.AclnnError) as refused:
                    sim(**kw, product=soc)
                assert (refused.value.status, refused.value.param) == (e.status, e.param)
                continue
            got = sim(**kw, product=soc)
            assert got.dtype == want.dtype
            what = f"{name} {dtype} {group} {s.label}"
            if op.compute.get(dtype) == "FLOAT" and want.dtype.kind == "f":   # the AI Core's exp/log, not NumPy's
                assert_elementwise_close(got, want, dtype_name(want), what)
            elif want.dtype.kind in "fc":   # libm's exp/log against NumPy's, SIMD ones where the CPU has AVX-512
                assert_elementwise_close(got, want, dtype_name(want), what)
            else:
                np.testing.assert_array_equal(got, want, err_msg=what)
            ran += 1
    assert ran, f"{name}: no call with a {dtype} input was accepted"
