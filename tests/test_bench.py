"""`opgen bench`: the quick mode through the CLI, the byte count, the probes, the cases and PyTorch's calls.

No test asserts on a time: the machine is shared and the numbers are for people.  What is checked is that
the benchmark measures the right thing: every op and backend reported, bytes counted as documented, probes
that really read their inputs, PyTorch calls that compute the same gradient as our kernels.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import codegen
from codegen.bench import cases as C
from codegen.bench import outputs, placement, threads, timing, torch_kernels, traffic
from codegen.bench.probe import Probe
from codegen.runtime.calls import output_shape
from codegen.runtime.checks import NUMPY_DTYPES

from .conftest import REPO, ci_kinds
from .kernels import kernel   # (each op's kernel made once per process)

OPS = sorted(codegen.load_specs())


# ---- the quick mode, end to end -----------------------------------------------------------------------
# The command on a fixed sample of the ops in CI (each op costs ~6 s of timing; every op under --deep): one op of
# each kind (conftest.ci_kinds: a fixed count as ops are added), and softmax's dim-first layout, an op with several
# outputs and a masked row op (their outputs, bytes and probe take paths of their own).  What the report says of
# every op without timing it, each layout's inputs, its PyTorch counterpart and its C kernel's peak memory, is
# checked per layout below (every op has layouts: test_cases_cover_the_issue).
QUICK_OPS = sorted(set(ci_kinds(codegen.load_specs())) | {"softmax_backward", "prelu_backward",
                                                          "scaled_masked_softmax_backward"})


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    r = subprocess.run([sys.executable, "-m", "codegen", "bench", *QUICK_OPS, "--quick", "--out", str(out)],
                       cwd=REPO, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return out, r.stdout


def test_quick_writes_both_reports(quick):
    out, stdout = quick
    md = (out / "bench.md").read_text()
    data = json.loads((out / "bench.json").read_text())
    assert data["meta"]["mode"] == "quick" and data["meta"]["sizes"] == [1 << 16]
    commands = data["meta"]["commands"]   # --quick renders the benchmarked ops' files only, and judges no command
    assert commands["generate"]["seconds"] is not None and commands["ops"] == len(QUICK_OPS) and commands["quick"]
    assert "the benchmarked ops’" in (out / "bench.md").read_text()
    for title in ("# opgen bench", "## Summary at n = 65536", "## All results", "`opgen generate`"):
        assert title in md
    assert "summary at n = 65536" in stdout and "report:" in stdout


def test_quick_covers_every_op_and_backend(quick):
    data = json.loads((quick[0] / "bench.json").read_text())
    results = data["results"]
    assert {r["op"] for r in results} == set(QUICK_OPS)
    assert {r["backend"] for r in results} == {"numpy", "c"}
    for name in QUICK_OPS:
        assert {r["backend"] for r in results if r["op"] == name} == {"numpy", "c"}
    assert any(r["op"] == "softmax_backward" and r["layout"].startswith("dim first") for r in results)
    for r in results:
        assert r["one"]["runs"] >= 1 and r["one"]["gbps"] > 0 and r["one"]["probe"] in ("numpy", "c")
        # the C backend threads; NumPy kernels report nothing for all threads
        assert (r["all"] is not None) == (r["backend"] == "c")


def test_quick_bytes_agree_with_the_shapes(quick):
    """Every row's bytes: the elements of each tensor it read and of each output it wrote (shapes in the JSON),
    each at its own size (the case's dtype but for a BOOL mask, an INT64 target, a FLOAT weight)."""
    size = {"FLOAT": 4, "FLOAT16": 2, "BFLOAT16": 2}
    for r in json.loads((quick[0] / "bench.json").read_text())["results"]:
        assert np.prod(r["shapes"][outputs_name(r["op"])]) == r["n"]
        moved = sum(int(np.prod(s)) * r["itemsizes"][name] for name, s in r["shapes"].items()
                    if name != "buffer")   # buffer: accepted, never read
        assert r["bytes"] == moved, r
        assert r["itemsizes"][outputs_name(r["op"])] == size[r["dtype"]]


def outputs_name(op_name: str) -> str:
    """The first output's keyword, as the JSON's shapes name it."""
    return codegen.load_specs()[op_name].output.py_name


# ---- bytes moved ---------------------------------------------------------------------------------------
def test_bytes_moved_counts_a_broadcast_operand_at_its_own_size():
    g = np.zeros((1, 1024), np.float16)
    x = np.zeros((64, 1024), np.float16)
    out = np.zeros((64, 1024), np.float16)
    assert traffic.bytes_moved([g, x], out) == 2 * (1024 + 2 * 65536)


def test_bytes_moved_of_cases(ops):
    def moved(layout_label, op, dtype, n):
        lay = next(x for x in C.LAYOUTS if x.op == op and x.label == layout_label)
        kw = C.Case(lay, dtype, n).inputs()
        out = np.empty(output_shape(ops[op], kw), C.NUMPY_DTYPES[dtype])
        return traffic.bytes_moved(traffic.read_tensors(ops[op], kw), out)

    n = 4096
    # BCE, mean, weights: a one-element gradOutput, four full tensors read, one written
    bce = "binary_cross_entropy_with_logits_backward"
    assert moved("reduction mean, weight + posWeight", bce, "FLOAT", n) == 4 * (1 + 5 * n)
    assert moved("reduction none", bce, "BFLOAT16", n) == 2 * 4 * n
    # LogSigmoid's buffer is accepted but never read: gradOutput and self in, gradInput out
    assert moved("contiguous", "log_sigmoid_backward", "FLOAT16", n) == 2 * 3 * n
    assert moved(f"gradOutput (1, {C.COLS}) broadcast", "softshrink_backward", "FLOAT", n) == 4 * (C.COLS + 2 * n)
    assert moved("dim first, row 64", "softmax_backward", "FLOAT", n) == 4 * 3 * n


def test_bytes_moved_of_derived_layouts_count_every_output_and_narrow_input(ops):
    """PReLU writes two outputs (gradInput of n elements, gradWeight of one per channel); ScaledMaskedSoftmax reads
    a BOOL mask [1, 1, 16, row] at one byte per element."""
    lays = {(lay.op, lay.label): lay for lay in C.layouts(ops)}
    prelu = next(lay for (op, _), lay in lays.items() if op == "prelu_backward" and "per channel" in lay.label)
    kw = C.Case(prelu, "FLOAT16", 4096).inputs()
    out = outputs.allocate(ops["prelu_backward"], kw, np.float16)
    assert [a.shape for a in out] == [(4, C.CHANNELS, 1024 // C.CHANNELS), (C.CHANNELS,)]
    assert traffic.bytes_moved(traffic.read_tensors(ops["prelu_backward"], kw), out) == \
        2 * (3 * 4096 + 2 * C.CHANNELS)
    sms = next(lay for (op, _), lay in lays.items() if op == "scaled_masked_softmax_backward"
               and lay.label.endswith("1024)"))
    kw = C.Case(sms, "FLOAT", 1 << 15).inputs()
    assert kw["mask"].dtype == np.bool_ and kw["mask"].shape == (1, 1, C.QUERIES, 1024)
    out = outputs.allocate(ops["scaled_masked_softmax_backward"], kw, np.float32)
    assert traffic.bytes_moved(traffic.read_tensors(ops["scaled_masked_softmax_backward"], kw), out) == \
        4 * 3 * (1 << 15) + C.QUERIES * 1024


def test_gbps_is_decimal():
    assert traffic.gbps(2_000_000_000, 1e9) == 2.0


# ---- the probes ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_probes_read_every_input(dtype):
    """The C and NumPy probes give the sum of their inputs (broadcast row and one-element operand included),
    and changing any input element changes the output: nothing is skipped."""
    rng = np.random.default_rng(3)
    rows, cols = 8, 512
    ins = [rng.integers(0, 8, (rows, cols)).astype(dtype), rng.integers(0, 8, (rows, cols)).astype(dtype),
           rng.integers(0, 8, (1, cols)).astype(dtype), np.array(3, dtype)]
    p = Probe(ins, dtype, rows * cols)
    units = np.float32 if np.dtype(dtype).itemsize == 4 else np.uint16
    if units is np.float32:
        want = sum(a.astype(np.float32) for a in ins).reshape(-1)
    else:   # half dtypes are summed as their uint16 bits, wrapping
        want = sum(np.broadcast_to(a.view(np.uint16), (rows, cols)).astype(np.int64) for a in ins)
        want = (want % 65536).astype(np.uint16).reshape(-1)
    np.testing.assert_array_equal(p.c(), want)
    np.testing.assert_array_equal(p.numpy(), want)
    for k, a in enumerate(ins):
        before_c, before_np = p.c().copy(), p.numpy().copy()
        flat = a.reshape(-1)
        flat[-1] = flat[-1] + dtype(1)          # the probes hold views of ins: this is what they read next
        assert not np.array_equal(p.c(), before_c), f"C probe ignores input {k}"
        assert not np.array_equal(p.numpy(), before_np), f"NumPy probe ignores input {k}"


def test_probe_rejects_what_it_cannot_tile():
    with pytest.raises(ValueError):
        Probe([np.zeros(3, np.float32), np.zeros(8, np.float32)], np.float32, 8)
    with pytest.raises(ValueError):   # no input of the output's width
        Probe([np.zeros(8, np.float16)], np.float32, 8)
    with pytest.raises(ValueError):   # an extra output that does not tile the first
        Probe([np.zeros(8, np.float32)], np.float32, 8, extra=[3])


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_probes_read_inputs_of_other_widths_and_write_every_output(dtype):
    """A BOOL mask (a full-size one and a repeating row) and an INT64 per-row tensor are read as unsigned
    integers of their own width; an extra output of n elements gets the sum, a reduced one its first
    elements: both probes agree, and each input changes the output (PReLU's two outputs, ScaledMaskedSoftmax's
    mask, CrossEntropy's target)."""
    rng = np.random.default_rng(5)
    n = 4 * 256
    ins = [rng.integers(0, 8, n).astype(dtype), rng.uniform(size=n) < 0.5, rng.uniform(size=256) < 0.5,
           rng.integers(0, 8, 4).astype(np.int64)]
    p = Probe(ins, dtype, n, extra=[n, 32])
    c, np_ = p.c().copy(), p.numpy().copy()
    np.testing.assert_array_equal(c, np_)
    for xc, xn, size in zip(p.extra_c, p.extra_np, (n, 32)):
        np.testing.assert_array_equal(xc, c[:size])
        np.testing.assert_array_equal(xn, c[:size])
    for k, a in enumerate(ins):
        before = p.c().copy()
        a.reshape(-1)[-1] = a.reshape(-1)[-1] ^ True if a.dtype == np.bool_ else a.reshape(-1)[-1] + a.dtype.type(1)
        assert not np.array_equal(p.c(), before), f"C probe ignores input {k}"
        assert np.array_equal(p.numpy(), p.c()), f"NumPy probe differs after input {k} changed"


# ---- cases ---------------------------------------------------------------------------------------------
def test_cases_cover_the_issue(ops):
    full = C.select(ops)
    assert {c.n for c in full} == {1 << k for k in range(10, 25, 2)}
    labels = {(c.op, c.layout.label) for c in full}
    for where in ("first", "last"):
        for row in (64, 1024, 32768):
            assert ("softmax_backward", f"dim {where}, row {row}") in labels
    bce = {lab for op, lab in labels if op == "binary_cross_entropy_with_logits_backward"}
    assert len(bce) == 6 and sum("weight" in lab for lab in bce) == 3
    assert {lab for op, lab in labels if op == "elu_backward"} == {"isResult false", "isResult true"}
    assert any("broadcast" in lab for op, lab in labels if op == "softshrink_backward")
    for name in {c.op for c in full}:      # the dtypes measured: those the spec lists on the default product
        assert {c.dtype for c in full if c.op == name} == set(ops[name].dtypes[C.DEFAULT_PRODUCT]) & set(C.DTYPES)
    assert all(c.n >= c.layout.divisor for c in full)       # no softmax row longer than the tensor
    quick = C.select(ops, quick=True)
    # every op that runs on the default product (the bench's); the Ascend 950 operators (SwigluGroupGrad) have no case
    assert {c.n for c in quick} == {1 << 16} and \
        {c.op for c in quick} == {name for name in OPS if C.DEFAULT_PRODUCT in ops[name].dtypes}
    # every op has a bench row: a new spec the bench cannot lay out fails here (several outputs, a mask, a row
    # reduction along a fixed axis and class-index targets are laid out from the spec)
    assert C.without_layouts(ops) == []


def _small_case(lay, dtype="FLOAT"):
    return C.Case(lay, dtype, max(1024, lay.divisor))


# every layout: the hand-written ones and those derived from the other specs (cases.derived_layouts)
# (on the default product, which the bench runs on: an Ascend 950 only op, SwigluGroupGrad, has no case there)
ALL_LAYOUTS = [lay for lay in C.layouts(codegen.load_specs())
               if C.DEFAULT_PRODUCT in codegen.load_specs()[lay.op].dtypes]


@pytest.mark.parametrize("lay", ALL_LAYOUTS, ids=lambda lay: f"{lay.op}[{lay.label}]")
def test_case_inputs_are_valid_calls(lay):
    """Every layout's inputs, in every dtype the op has on the default product, pass the checker and run on the
    NumPy backend; a derived layout's data is finite where its op's is (LogitGrad is nan outside [0, 1])."""
    op = codegen.load_specs()[lay.op]
    for dtype in ("FLOAT", "FLOAT16", "BFLOAT16"):
        if dtype not in op.dtypes.get(C.DEFAULT_PRODUCT, []):
            continue
        out = kernel(lay.op)(**_small_case(lay, dtype).inputs())
        for o in out if op.per_output else [out]:
            if lay.op != "logit_grad":
                assert np.isfinite(o.astype(np.float32)).all()


@pytest.mark.parametrize("lay", ALL_LAYOUTS, ids=lambda lay: f"{lay.op}[{lay.label}]")
def test_pytorch_calls_compute_our_gradient(lay):
    """What is timed for PyTorch is the same gradient: a wrong expression would make a meaningless ratio.  (The
    ops whose PyTorch counterpart is the spec's `torch=` declaration included; HardswishBackward differs from
    PyTorch at x = ±3 by design, which no typical input hits.)"""
    torch = pytest.importorskip("torch")
    op = codegen.load_specs()[lay.op]
    kw = _small_case(lay).inputs()
    want = kernel(lay.op)(**kw)
    got = torch_kernels.counterpart(torch, lay.op, kw, op=op)()
    if op.per_output:   # every output (PReLU's gradInput and gradWeight)
        assert len(got) == len(want) == len(op.outputs)
    for g, w in zip(got if op.per_output else [got], want if op.per_output else [want]):
        assert tuple(g.shape) == w.shape
        np.testing.assert_allclose(g.numpy(), w, rtol=2e-5, atol=1e-5, equal_nan=True)


def _ops_in_turn(lays):
    """`lays` with each op's layouts apart: every op's first layout, then every op's second, ...  pytest-xdist gives
    neighbouring cases to different workers, and an op's first C call builds its library (once per content, a lock
    per key): two neighbouring cases of one op left one worker waiting on the lock while the other compiled
    (CrossEntropyLossGrad's two layouts, 16 and 11 s, in one CI run)."""
    nth, keyed = {}, []
    for i, lay in enumerate(lays):
        nth[lay.op] = nth.get(lay.op, -1) + 1
        keyed.append((nth[lay.op], i, lay))
    return [lay for _, _, lay in sorted(keyed, key=lambda k: k[:2])]


# Every layout, PReLU's gradWeight and a mean loss's total weight among them: their sums once staged the kernel's
# whole FLOAT result (4 bytes per element), now a slab at a time (opgen_loops.c: run_folded)
@pytest.mark.parametrize("lay", [pytest.param(lay, id=f"{lay.op}[{lay.label}]") for lay in _ops_in_turn(ALL_LAYOUTS)])
def test_c_calls_hold_nothing_proportional_to_the_tensor(lay):
    """The bench's peak-memory column for every layout, without the timing: a C call of 2^16 elements (FLOAT16,
    the dtype that stages most) holds staging blocks and accumulators only, never a copy of a tensor (a KlDiv
    kernel that summed a broadcast-shaped workspace took 790 KiB)."""
    from codegen.bench.runner import peak_extra_bytes
    op = codegen.load_specs()[lay.op]
    dtype = "FLOAT16" if "FLOAT16" in op.dtypes.get(C.DEFAULT_PRODUCT, []) else "FLOAT"
    kw = C.Case(lay, dtype, max(1, (1 << 16) // lay.divisor) * lay.divisor).inputs()
    out = outputs.allocate(op, kw, NUMPY_DTYPES[dtype])   # (a tuple for several outputs)
    fn = kernel(lay.op, backend="c")
    fn(**kw, out=out)   # the library loaded and its pools warm, as in the bench's timed calls
    assert peak_extra_bytes(lambda: fn(**kw, out=out)) < 256 * 1024


@pytest.mark.parametrize("dtype", ["FLOAT16", "BFLOAT16"])
def test_pytorch_tensors_share_half_arrays(dtype):
    torch = pytest.importorskip("torch")
    a = np.arange(6, dtype=C.NUMPY_DTYPES[dtype]).reshape(2, 3)
    t = torch_kernels.tensor(torch, a)
    assert t.dtype == {"FLOAT16": torch.float16, "BFLOAT16": torch.bfloat16}[dtype]
    assert t.to(torch.float32).tolist() == a.astype(np.float32).tolist()
    a[0, 0] = 7                                      # shared memory: no copy outside the timed region
    assert float(t[0, 0]) == 7


# ---- where the arrays start ----------------------------------------------------------------------------
@pytest.mark.parametrize("offset", [0, 16, 48])
def test_every_array_starts_at_the_offset(offset):
    """Inputs, probe outputs and PyTorch's outputs all start `offset` bytes past a cache line, with the data
    unchanged: the C kernels stream softmax's output best on lines, so a figure must not depend on malloc's luck."""
    lay = next(lay for lay in C.LAYOUTS if lay.op == "softmax_backward")
    for dtype in ("FLOAT", "FLOAT16", "BFLOAT16"):
        case = _small_case(lay, dtype)
        plain, kw = case.inputs(), case.inputs(offset=offset)
        for k, v in kw.items():
            if isinstance(v, np.ndarray):
                assert v.ctypes.data % placement.LINE == offset and v.flags.c_contiguous, (dtype, k)
                assert v.dtype == plain[k].dtype and np.array_equal(v.view(np.uint8), plain[k].view(np.uint8))
        probe = Probe([kw["grad_output"], kw["output"]], kw["output"].dtype, kw["output"].size, offset)
        assert probe.out_c.ctypes.data % 64 == offset and probe.out_np.ctypes.data % 64 == offset
        torch = torch_kernels.available()
        if torch is not None:
            assert torch_kernels.counterpart(torch, lay.op, kw, offset)().data_ptr() % 64 == offset
    for shape in [(), (1,), (3, 5), (1 << 20,)]:
        assert placement.empty(shape, np.float16, offset).ctypes.data % 64 == offset


@pytest.mark.parametrize("offset", ["3", "64", "-4"])
def test_bench_rejects_an_offset_that_misaligns_elements(offset, capsys):
    from codegen.cli import main
    assert main(["bench", "--quick", "--offset", offset]) == 2
    assert "--offset takes a multiple of 4 bytes in 0..60" in capsys.readouterr().err


# ---- timing and threads --------------------------------------------------------------------------------
def test_bench_refuses_an_out_that_is_a_file_before_timing(tmp_path, capsys):
    """(it timed every case, then raised FileExistsError writing the report)"""
    from codegen.cli import main
    afile = tmp_path / "bench"
    afile.write_text("")
    assert main(["bench", "--quick", "--out", str(afile)]) == 2
    assert "a file, not a folder" in capsys.readouterr().err


def test_interleaved_calls_every_contender_once_per_pass_in_varying_order():
    calls = []
    names = "abcde"
    fns = {name: (lambda name=name: calls.append(name)) for name in names}
    t = timing.interleaved(fns, timing.Policy(warmup=1, fixed=200))
    assert {name: t[name].runs for name in names} == {name: 200 for name in names}
    assert calls[:5] == list(names)                                  # the warm-up
    passes = [calls[i:i + 5] for i in range(5, len(calls), 5)]
    assert all(sorted(p) == list(names) for p in passes)             # each contender once per pass
    # no contender keeps its predecessor (a rotation of one order would: "a" after "e" in 4 passes of 5)
    for name in names:
        before = [p[p.index(name) - 1] for p in passes if p.index(name) > 0]
        assert max(before.count(other) for other in names) < 0.4 * len(before), (name, before)
    timing.interleaved(fns, timing.Policy(warmup=0, fixed=3))
    again = calls[-15:]
    calls.clear()
    timing.interleaved(fns, timing.Policy(warmup=0, fixed=3))
    assert calls == again                                            # the same orders every run


def test_blocked_times_each_contender_in_blocks_started_on_a_settled_machine(monkeypatch):
    """The all-threads round: every block starts after settle() (PyTorch's spinning workers held the second CPU
    while our next call ran) with one untimed call, then `block` timed calls of the same contender."""
    calls = []
    monkeypatch.setattr(timing, "settle", lambda: calls.append("|"))
    monkeypatch.setattr(timing, "BLOCK_NS", 4 * timing.BLOCK_MAX * 10**9)   # every call "fast": the longest block
    fns = {name: (lambda name=name: calls.append(name)) for name in "abc"}
    t = timing.blocked(fns, timing.Policy(warmup=1, fixed=4))
    assert {name: t[name].runs for name in "abc"} == {name: 4 * timing.BLOCK_MAX for name in "abc"}
    assert all(len(t[name].samples) == 4 for name in "abc")           # one per pass: paired_range pairs passes
    assert calls[:3] == list("abc")                                  # the warm-up
    blocks = "".join(calls[3:]).split("|")[1:]
    assert len(blocks) == 12 and all(b == b[0] * (timing.BLOCK_MAX + 1) for b in blocks)
    assert all(sorted(b[0] for b in blocks[i:i + 3]) == list("abc") for i in range(0, 12, 3))
    monkeypatch.setattr(timing, "BLOCK_NS", 1)                      # a call longer than a block: one call, timed
    calls.clear()
    t = timing.blocked(fns, timing.Policy(warmup=0, fixed=2))
    assert t["a"].runs == 2 and "".join(calls[3:]).split("|")[1:] == [c for c in "".join(calls[3:]) if c != "|"]


def test_threads_are_restored():
    before = os.environ.get(threads.ENV)
    with threads.threads(3):
        assert os.environ[threads.ENV] == "3"
    assert os.environ.get(threads.ENV) == before


# ---- targets -------------------------------------------------------------------------------------------
def _record(op, layout, dtype, backend, vs_torch, spread=None, cache_ns=None, all_threads=None, peak=None,
            n=1 << 24):
    """A row whose kernel takes 1 ms at one thread; PyTorch's takes vs_torch ms (all_threads: the all-threads
    ratio, its kernel 0.5 ms)."""
    from codegen.bench.runner import Record, Round

    def round_(ns, ratio, rng):
        return Round(1, ns, 10.0, 5, 1e6, "c", 10.0, 1.0, 1e6, 1e6, torch_ns=ns * ratio, torch_gbps=10.0 / ratio,
                     vs_torch=ratio, vs_torch_range=rng)
    return Record(op, layout, dtype, backend, n, {}, 12 * n, round_(1e6, vs_torch, spread),
                  all=None if all_threads is None else round_(0.5e6, all_threads, None), cache_ns=cache_ns,
                  peak_bytes=peak)


def test_targets_say_met_or_by_how_much_they_were_missed():
    """Issue 35: every C row at every size at least PyTorch's speed at one and at all threads, no temporary
    proportional to the tensor; no target for the NumPy backend nor against the probe."""
    from codegen.bench import targets
    recs = [_record("softshrink_backward", "contiguous", "FLOAT", "c", 1.1, all_threads=0.8, peak=4096),
            _record("softmax_backward", "dim last, row 64", "FLOAT", "c", 0.5, n=1 << 10),
            _record("logit_grad", "contiguous", "FLOAT", "c", 2.0, peak=1 << 20),
            _record("elu_backward", "isResult false", "FLOAT16", "numpy", 0.25)]
    got = {(v.case, v.target): v.verdict for v in targets.rows(recs)}
    shrink = "softshrink_backward · contiguous · FLOAT · 2^24"
    assert got[shrink, "PyTorch's speed, one thread"] == "met"
    assert got[shrink, "PyTorch's speed, all threads"] == "missed by 20%"
    assert got[shrink, "<= 256 KiB beyond its arguments"] == "met"
    assert got["softmax_backward · dim last, row 64 · FLOAT · 2^10", "PyTorch's speed, one thread"] == "missed by 50%"
    assert got["logit_grad · contiguous · FLOAT · 2^24", "<= 256 KiB beyond its arguments"] == "missed by 768 KiB"
    assert not any("elu_backward" in case for case, _ in got)            # NumPy: the reference, no target
    assert not any("probe" in target for _, target in got)
    cmds = targets.command_rows({"generate": {"seconds": 12.0}, "verify_cold": {"seconds": None, "skipped": "x"}})
    assert (cmds[0].verdict, cmds[0].met) == ("missed by 2 s", False)
    assert (cmds[1].verdict, cmds[1].met) == ("not measured", None)
    cmds = targets.command_rows({"generate_cold": {"seconds": 10.5}, "generate": {"seconds": 1.0},
                                 "verify_cold": {"seconds": 9.0}})     # the cold time, when measured, decides
    assert (cmds[0].case, cmds[0].measured, cmds[0].met) == ("opgen generate (cold)", "10.5 s", False)
    cmds = targets.command_rows({"quick": True, "generate": {"seconds": 1.0}, "verify_cold": {"seconds": None}})
    assert (cmds[0].verdict, cmds[0].met) == ("not measured", None)   # --quick: a few ops' files, not every op's


def test_cold_generate_runs_the_command_on_an_empty_build_dir_and_proof_cache(monkeypatch, tmp_path):
    """The cold `opgen generate` is the command itself in a new process, with an empty build directory and proof
    cache of its own (every proof run, the call examples compiled and run, as on a clean checkout), writing into
    an empty folder; this process's environment is left as it was."""
    from codegen.bench import command_times
    monkeypatch.setenv("OPGEN_BUILD_DIR", str(tmp_path))
    monkeypatch.delenv("OPGEN_CACHE", raising=False)
    seen = {}

    def run(cmd, env, **kw):
        seen.update(cmd=cmd, env=env, dirs={k: sorted(Path(env[k]).iterdir())
                                            for k in ("OPGEN_BUILD_DIR", "OPGEN_CACHE")})
        out = Path(cmd[cmd.index("--out") + 1])
        seen["out_before"] = sorted(out.iterdir())
        (out / "a.txt").write_text("")
        return subprocess.CompletedProcess(cmd, 0, "", "")
    got = command_times._generate_cold("some/specs", run=run)
    assert seen["cmd"][:5] == [sys.executable, "-m", "codegen", "--specs", str(Path("some/specs").resolve())]
    assert seen["cmd"][5:7] == ["generate", "--out"]
    assert seen["dirs"] == {"OPGEN_BUILD_DIR": [], "OPGEN_CACHE": []} and seen["out_before"] == []
    assert Path(seen["env"]["OPGEN_BUILD_DIR"]) != tmp_path and not Path(seen["env"]["OPGEN_CACHE"]).exists()
    assert got["files"] == 1 and got["seconds"] > 0
    assert os.environ["OPGEN_BUILD_DIR"] == str(tmp_path) and "OPGEN_CACHE" not in os.environ
    failed = command_times._generate_cold(None, run=lambda cmd, **kw: subprocess.CompletedProcess(cmd, 1, "", "boom"))
    assert failed == {"seconds": None, "error": "exit 1: boom"}
    assert command_times.measure({}, quick=True)["generate_cold"]["skipped"] == "--quick"


def test_cold_generate_command_runs():
    """The command the bench times is one the CLI accepts (here `--help` of it, not the seconds-long run)."""
    from codegen.bench import command_times
    cmd = command_times.cold_generate_command(None, Path("x"))
    done = subprocess.run(cmd[:-2] + ["--help"], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0 and "--out" in done.stdout, done.stderr


def test_targets_show_the_per_pass_range_and_flag_a_verdict_the_noise_could_flip():
    from codegen.bench import targets
    recs = [_record("softshrink_backward", "contiguous", "FLOAT", "c", 1.05, spread=(0.95, 1.12)),
            _record("elu_backward", "isResult true", "FLOAT", "c", 0.70, spread=(0.66, 0.74))]
    got = {v.case: v.cells()[3:] for v in targets.rows(recs)}
    assert got["softshrink_backward · contiguous · FLOAT · 2^24"] == ["0.95–1.12x (straddles)", "—", "met"]
    assert got["elu_backward · isResult true · FLOAT · 2^24"] == ["0.66–0.74x", "—", "missed by 30%"]
    commands = {"generate": {"seconds": 1.0}, "verify_cold": {"seconds": 9.0}}
    table = targets.table(targets.judge(recs, commands))
    assert "3 of 4 targets met; the passes of 1 straddle their target (their verdict could go either way on " \
           "this run's noise); 0 missed targets lie above" in table
    assert "| elu_backward · isResult true · FLOAT · 2^24 |" in table              # missed: listed
    assert "| softshrink_backward · contiguous · FLOAT · 2^24 |" in table          # met, but straddled: listed
    assert "opgen generate |" not in table                                        # met: only counted


def test_targets_show_the_ceiling_the_kernels_in_cache_time_allows():
    """PyTorch's time over the kernel's time with its operands in the cache: a missed one-thread target above it
    is flagged as missed for the arithmetic."""
    from codegen.bench import targets
    n = 1 << 24                                         # PyTorch takes vs_torch ms: vs_torch * 1e6 / n ns per element
    recs = [_record("log_sigmoid_backward", "contiguous", "FLOAT16", "c", 0.60, cache_ns=0.6e6 / n / 0.7),
            _record("softmax_backward", "dim first, row 1024", "FLOAT", "c", 0.45, cache_ns=0.45e6 / n / 2),
            _record("elu_backward", "isResult true", "FLOAT", "c", 1.2, cache_ns=None)]
    got = {v.case: v for v in targets.rows(recs)}
    exp_heavy = got["log_sigmoid_backward · contiguous · FLOAT16 · 2^24"]
    assert exp_heavy.ceiling == pytest.approx(0.7) and exp_heavy.above_ceiling
    assert exp_heavy.cells()[4] == "0.70 (below the target)"
    two_pass = got["softmax_backward · dim first, row 1024 · FLOAT · 2^24"]
    assert two_pass.ceiling == pytest.approx(2.0) and not two_pass.above_ceiling   # missed, not for the arithmetic
    assert got["elu_backward · isResult true · FLOAT · 2^24"].ceiling is None       # not timed in the cache
    assert "; 1 missed targets lie above their kernel's ceiling" in targets.table(targets.rows(recs))


def test_paired_range_compares_times_of_the_same_pass():
    a = timing.Timing(2.0, 1.0, 3, [1, 4, 2])
    b = timing.Timing(2.0, 2.0, 3, [2, 2, 2])
    assert timing.paired_range(a, b) == (0.5, 2.0)     # pass by pass, not min over max
    assert timing.paired_range(timing.Timing(1.0, 1.0, 0), b) is None


def test_quick_report_judges_the_targets(quick):
    assert "## Targets (issue 35: every C row at every size, one thread and all threads)" in \
        (quick[0] / "bench.md").read_text()
    data = json.loads((quick[0] / "bench.json").read_text())
    for r in data["results"]:
        lo, hi = r["one"]["vs_probe_range"]
        assert 0 < lo <= hi
    verdicts = data["targets"]                     # every verdict, as data (the table lists the missed ones)
    assert [v["case"] for v in verdicts[:2]] == ["opgen generate", "opgen verify (cold)"]
    assert [v["met"] for v in verdicts[:2]] == [None, None]   # not measured on every op
    assert all(v["met"] in (True, False, None) and isinstance(v["straddles"], bool) for v in verdicts)
    c_rows = [r for r in data["results"] if r["backend"] == "c"]
    assert len(verdicts) - 2 == sum((r["one"]["vs_torch"] is not None) + (r["all"]["vs_torch"] is not None)
                                    + (r["peak_bytes"] is not None) for r in c_rows)
    met = sum(v["met"] is True for v in verdicts)
    assert f"{met} of {len(verdicts)} targets met" in (quick[0] / "bench.md").read_text()
    for r in data["results"]:    # the C kernels' in-cache times (ceiling.py; too few columns along dim 0: none)
        if r["backend"] == "c" and not r["layout"].startswith("dim first"):
            assert r["cache_ns"] > 0
        elif r["backend"] == "numpy":
            assert r["cache_ns"] is None
    assert any(v["ceiling"] for v in verdicts if v["target"] == "PyTorch's speed, one thread")


def test_a_new_elementwise_spec_is_benchmarked_from_its_spec_alone(ops):
    """A new elementwise spec needs no bench code: its layouts come from its shape rules and variants, its
    PyTorch row from its `torch=` declaration; so do a new op with several outputs and a new masked row op along
    a fixed axis; a spec whose row axis is a parameter and has no hand-written layouts is named and left out."""
    import copy
    new = copy.copy(ops["softshrink_backward"])
    new.name = "aclnnNewOpBackward"
    more = dict(ops, new_op_backward=new)
    labels = {lay.label for lay in C.layouts(more) if lay.op == "new_op_backward"}
    assert labels == {"contiguous", "gradOutput (1, 1024) broadcast"}
    known = C.without_layouts(ops)
    assert known == []
    assert C.without_layouts(more) == known
    masked = {"gradOutput (n/1024, 1, 16, 64), mask (1, 1, 16, 64)",
              "gradOutput (n/16384, 1, 16, 1024), mask (1, 1, 16, 1024)"}
    channel = {"weight per channel, (n/1024, 32, 32)", "gradOutput (1, 32, 32) broadcast"}
    for model, want in (("prelu_backward", channel),
                        ("scaled_masked_softmax_backward", masked)):
        twin = copy.copy(ops[model])
        twin.name = "aclnnTwinOpBackward"
        assert {lay.label for lay in C.layouts(dict(ops, twin_op_backward=twin)) if lay.op == "twin_op_backward"} \
            == want
    reduced = copy.copy(ops["softmax_backward"])
    reduced.name = "aclnnNewSoftmaxBackward"
    assert C.without_layouts(dict(ops, new_softmax_backward=reduced)) == known + ["new_softmax_backward"]
    # a loss: each reduction mode is a layout (mean and sum with a one-element gradOutput)
    loss = {lay.label: lay for lay in C.layouts(ops) if lay.op == "mse_loss_backward"}
    assert set(loss) == {"reduction none", "reduction mean", "reduction sum",
                         "gradOutput (1, 1024) broadcast, reduction none"}
    kw = C.Case(loss["reduction mean"], "FLOAT", 1024).inputs()
    assert kw["reduction"] == 1 and kw["grad_output"].shape == () and kw["self"].shape == (1024,)


def test_a_run_of_named_ops_times_no_command(tmp_path):
    """`opgen bench <ops>` (a kernel's author comparing it) does not first time a cold `opgen generate` and
    `opgen verify` of every op (minutes): the report says they were not measured, and why."""
    from codegen.cli import main
    assert main(["bench", "softshrink_backward", "--sizes", "10", "--repeat", "1", "--backend", "numpy",
                 "--out", str(tmp_path)]) == 0
    commands = json.loads((tmp_path / "bench.json").read_text())["meta"]["commands"]
    assert all(commands[k] == {"seconds": None, "skipped": "op names given"}
               for k in ("generate_cold", "generate", "verify_cold", "verify_cached"))
    md = (tmp_path / "bench.md").read_text()
    assert "not measured (op names given)" in md and "all files rendered" in md


def test_baseline_times_another_revisions_c_kernels_side_by_side(tmp_path):
    """`--baseline REV`: REV's C libraries, built by REV's own generator from `git archive`, timed in the same
    passes as today's (rows `c@<commit>`) and compared in a table of time ratios; a bad REV is refused."""
    if subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True).returncode != 0:
        pytest.skip("not a git checkout")
    cmd = [sys.executable, "-m", "codegen", "bench", "softshrink_backward", "--quick", "--backend", "c",
           "--out", str(tmp_path)]
    r = subprocess.run(cmd + ["--baseline", "HEAD"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "bench.json").read_text())
    label = data["meta"]["baseline"]["backend"]
    assert label.startswith("c@") and data["meta"]["baseline"]["rev"] == "HEAD"
    rows = data["results"]
    assert {x["backend"] for x in rows} == {"c", label}
    assert sum(x["backend"] == label for x in rows) == sum(x["backend"] == "c" for x in rows) > 0
    assert all(x["all"] is not None for x in rows)               # the baseline threads like the C backend
    assert all(x["cache_ns"] > 0 for x in rows)                  # and is timed in the cache beside today's
    md = (tmp_path / "bench.md").read_text()
    assert "## Against HEAD" in md and f"| {label} / c |" in md and "against HEAD:" in r.stdout
    assert f"| in cache: {label} / c |" in md
    from codegen.buildcache import build_root   # HEAD's runtime archive and libraries are today's, not built again
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    for shared in ("c-runtime", "c"):
        assert (build_root() / "baseline" / commit.strip() / shared).resolve() == (build_root() / shared).resolve()
    loaded = list((build_root() / "baseline" / commit.strip() / "loaded").glob("softshrink_backward-*.so"))
    assert loaded and all(p.stat().st_ino != (build_root() / "c" / p.name).stat().st_ino for p in loaded
                          if (build_root() / "c" / p.name).exists())   # a copy: loaded as a library of its own
    bad = subprocess.run(cmd + ["--baseline", "no-such-revision"], cwd=REPO, capture_output=True, text=True,
                         timeout=600)
    assert bad.returncode == 2 and "no-such-revision" in bad.stderr


def test_quick_reports_call_overhead_peak_memory_and_ratios_by_size(quick):
    """Issue 35's report: the call overhead of every op (compiled entry point, ctypes path, PyTorch), each row's
    peak extra memory, and the ratios against PyTorch at every size, one and all threads."""
    out, _ = quick
    data = json.loads((out / "bench.json").read_text())
    calls = data["meta"]["calls"]
    assert {c["op"] for c in calls} == set(QUICK_OPS)
    for c in calls:
        assert c["entry_us"] > 0 and c["ctypes_us"] > 0 and c["passes"] >= 1
    for r in data["results"]:
        assert r["peak_bytes"] is not None
        if r["backend"] == "c":   # no temporaries proportional to the tensor: staging blocks and accumulators only
            assert r["peak_bytes"] < 256 * 1024, r
    md = (out / "bench.md").read_text()
    for title in ("## Against PyTorch at every size (C backend)", "## Call overhead", "2^16: 1 / all threads",
                  "rows behind PyTorch"):
        assert title in md


def test_peak_extra_bytes_sees_a_temporary():
    from codegen.bench.runner import peak_extra_bytes
    assert peak_extra_bytes(lambda: np.ones(1 << 16).sum()) >= 8 << 16
    assert peak_extra_bytes(lambda: None) < 4096


def test_plots_show_every_benchmarked_op(quick, tmp_path):
    """`python -m codegen.plots --only bench` writes one small figure per op in the report and a gallery that
    shows each (the Performance page includes it: a new op needs no edit of the page), and the tables, each
    headed by the run's command, machine and load."""
    pytest.importorskip("matplotlib")
    from codegen import plots
    figures, tables = tmp_path / "png", tmp_path / "md"
    report = quick[0] / "bench.json"
    assert plots.main(["--only", "bench", "--bench-report", str(report), "--out", str(figures),
                       "--tables", str(tables)]) == 0
    ops = {r["op"] for r in json.loads(report.read_text())["results"]}
    assert {p.name for p in figures.iterdir()} == {f"bench-{op}.png" for op in ops}
    assert all(p.stat().st_size < 150_000 for p in figures.iterdir())
    gallery = (tables / "bench-figures.md").read_text()
    for op in ops:
        assert f"(/_static/plots/bench-{op}.png)" in gallery and f"#### {op}\n" in gallery
    for name in ("bench-table.md", "bench-vs-torch.md", "bench-calls.md", "bench-figures.md"):
        head = (tables / name).read_text().splitlines()[0]
        assert head.startswith("From `opgen bench ") and "Load average" in head, head
