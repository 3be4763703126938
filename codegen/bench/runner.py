"""Runs every case: our kernels (per backend), the probes and PyTorch, side by side, at one thread and at all.

Per case the inputs are made once and shared by every contender; each backend writes into its own
preallocated `out=` (the C backend writes straight into it, so no copy is timed).  Every array, PyTorch's
outputs included, starts at the same place relative to a cache line (placement.py).  Two rounds:

* one thread: every chosen backend, both probes, PyTorch with torch.set_num_threads(1);
* all threads (os.cpu_count()): the backends that thread (C, through $OPGEN_NUM_THREADS), both probes (still
  single-threaded), PyTorch with every thread.  NumPy kernels are single-threaded: their all-threads cells
  are empty rather than a copy of the one-thread numbers.

Within a round the contenders are timed in interleaved passes (timing.py), so every ratio compares times
measured side by side; the all-threads round in blocks of calls per contender, each block started once the
previous contender's threads have stopped running (timing.blocked: PyTorch's OpenMP workers spin on for some
10 ms after a call, and held the second CPU while our next call ran).  `Record` is one row of the report: op × layout × dtype × backend × n.
"""
from __future__ import annotations

import dataclasses
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from codegen import backends as _backends
from codegen.runtime.checks import NUMPY_DTYPES

from . import ceiling, outputs, torch_kernels, traffic
from . import threads as T
from .cases import Case
from .probe import Probe, c_library
from .timing import Policy, blocked, interleaved, paired_range

THREADED_BACKENDS = ("c",)         # backends whose kernels use $OPGEN_NUM_THREADS


@dataclass
class Round:
    """One backend at one thread setting, with the probe and PyTorch of the same passes."""
    threads: int
    time_ns: float                 # median
    gbps: float
    runs: int
    probe_ns: float                # the faster probe's median
    probe: str                     # which: "numpy" or "c"
    probe_gbps: float
    vs_probe: float                # gbps / probe_gbps
    probe_numpy_ns: float
    probe_c_ns: float
    torch_ns: float | None = None
    torch_gbps: float | None = None
    vs_torch: float | None = None  # torch time / our time: > 1 means faster than PyTorch
    # (lowest, highest) over the passes of the same ratio taken within one pass (timing.paired_range): how far
    # this run's noise reaches around vs_probe and vs_torch, which are ratios of medians
    vs_probe_range: tuple[float, float] | None = None
    vs_torch_range: tuple[float, float] | None = None


@dataclass
class Record:
    op: str
    layout: str
    dtype: str
    backend: str
    n: int
    shapes: dict                   # parameter (snake_case) -> shape of every tensor passed, outputs included
    bytes: int
    one: Round
    all: Round | None = None
    torch_error: str | None = None
    # C backends (and a baseline's): the kernel's ns per element with its operands in the cache, one thread
    # (ceiling.py)
    cache_ns: float | None = None
    # bytes a call allocates beyond its arguments and `out=`, at its peak (tracemalloc, one thread: the C
    # runtime's workspace, the NumPy backend's temporaries)
    peak_bytes: int | None = None
    # parameter -> bytes per element of each tensor in `shapes` (a BOOL mask, an INT64 target: not the case's)
    itemsizes: dict | None = None

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def _policy(case: Case, quick: bool, repeat: int | None) -> Policy:
    big = case.n >= 1 << 20
    if quick:
        return Policy(warmup=1, fixed=repeat or 2)
    return Policy(warmup=1 if big else 2, fixed=repeat)


def _round(n_threads: int, ours: dict, probe: Probe, torch_fn, torch, nbytes: int, policy: Policy) -> dict:
    """{backend: Round} for the backends in `ours`, all timed in the same passes (in blocks with threads)."""
    contenders = {f"ours:{b}": fn for b, fn in ours.items()}
    contenders["probe:numpy"] = probe.numpy
    contenders["probe:c"] = probe.c
    if torch_fn is not None:
        contenders["torch"] = torch_fn
    with T.threads(n_threads, torch):
        t = (blocked if n_threads > 1 else interleaved)(contenders, policy)
    p_np, p_c = t["probe:numpy"].median_ns, t["probe:c"].median_ns
    probe_name, probe_ns = ("c", p_c) if p_c <= p_np else ("numpy", p_np)
    out = {}
    for b in ours:
        mine = t[f"ours:{b}"]
        gb = traffic.gbps(nbytes, mine.median_ns)
        pg = traffic.gbps(nbytes, probe_ns)
        r = Round(n_threads, mine.median_ns, gb, mine.runs, probe_ns, probe_name, pg, gb / pg, p_np, p_c,
                  vs_probe_range=paired_range(t[f"probe:{probe_name}"], mine))
        if "torch" in t:
            r.torch_ns = t["torch"].median_ns
            r.torch_gbps = traffic.gbps(nbytes, r.torch_ns)
            r.vs_torch = r.torch_ns / mine.median_ns
            r.vs_torch_range = paired_range(t["torch"], mine)
        out[b] = r
    return out


def peak_extra_bytes(fn) -> int:
    """The most memory one call of `fn` holds at once beyond what existed before it (Python's allocators, which
    NumPy's buffers and the C entry point's workspace go through)."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        fn()
        return max(0, tracemalloc.get_traced_memory()[1] - base)
    finally:
        tracemalloc.stop()


def kernels(ops: dict, backends, baseline: tuple[str, dict] | None = None) -> dict:
    """{(op name, backend): callable} for the Op objects given (so `--specs DIR` is honoured), plus
    (op name, label) for the ops `baseline` = (label, {op name: library path}) has (baseline.py).  The C libraries
    and the probe compile side by side in threads (the compiler is a subprocess; rendering holds the GIL):
    a cold build/ means one compile per op, which --quick must absorb."""
    out = {(name, "numpy"): _backends.get("numpy").make_kernel(op) for name, op in ops.items()
           if "numpy" in backends}
    # the NumPy modules are loaded above, serially; the C kernels reuse them as their checkers
    want = [(name, b) for name in ops for b in backends if b != "numpy"]
    with ThreadPoolExecutor(max_workers=T.all_threads()) as pool:
        probe = pool.submit(c_library)
        futures = {k: pool.submit(_backends.get(k[1]).make_kernel, ops[k[0]]) for k in want}
        for k, f in futures.items():
            out[k] = f.result()
        probe.result()
    if baseline:
        from codegen.backends.c.binding import make_kernel
        label, paths = baseline
        out.update({(name, label): make_kernel(ops[name], path=paths[name]) for name in ops if name in paths})
    return out


def run_case(case: Case, op, fns: dict, torch, quick=False, repeat=None, seed=0, ceilings: dict | None = None,
             offset: int = 0) -> list[Record]:
    """One Record per backend in `fns` ({backend: kernel callable}) for `case`; `ceilings` keeps the C kernel's
    in-cache time per (op, layout, dtype) from one size to the next.  Every array starts `offset` bytes past a
    cache line (placement.py)."""
    kw = case.inputs(seed, offset)
    dt = NUMPY_DTYPES[case.dtype]                                     # every benchmarked output: the case's dtype
    outs = {b: outputs.allocate(op, kw, dt, offset) for b in fns}    # (a tuple for several outputs)
    reads = traffic.read_tensors(op, kw)
    written = outputs.as_list(outs[next(iter(outs))])
    nbytes = traffic.bytes_moved(reads, written)
    # the probe writes the first output, and any other of its own size (a reduced one, PReLU's gradWeight, too)
    probe = Probe(reads, dt, written[0].size, offset, extra=[a.size for a in written[1:]])
    ours = {b: (lambda fn=fn, o=outs[b]: fn(**kw, out=o)) for b, fn in fns.items()}

    torch_fn, torch_error = None, None
    try:
        torch_fn = torch_kernels.counterpart(torch, case.op, kw, offset, op=op)
        if torch_fn is not None:
            torch_fn()                     # a dtype PyTorch's CPU kernel lacks fails here, not mid-timing
    except Exception as e:
        torch_fn, torch_error = None, f"{type(e).__name__}: {e}".splitlines()[0]

    policy = _policy(case, quick, repeat)
    one = _round(1, ours, probe, torch_fn, torch, nbytes, policy)
    threaded = {b: f for b, f in ours.items() if b.split("@")[0] in THREADED_BACKENDS}   # (c@REV: a baseline)
    every = _round(T.all_threads(), threaded, probe, torch_fn, torch, nbytes, policy) if threaded else {}

    tensors = {k: v for k, v in kw.items() if isinstance(v, np.ndarray)}
    tensors.update({o.py_name: a for o, a in zip(op.outputs, written)})
    shapes = {k: list(np.shape(v)) for k, v in tensors.items()}
    itemsizes = {k: v.dtype.itemsize for k, v in tensors.items()}
    # the C kernels alone with their operands in the cache (today's and a baseline's side by side): once per
    # layout and dtype, as the cache-sized call is the same for every n
    libraries = {b: fn.library for b, fn in fns.items() if getattr(fn, "library", None) is not None}
    ceilings = {} if ceilings is None else ceilings
    key = (case.op, case.layout.label, case.dtype)
    if libraries and key not in ceilings:
        with T.threads(1, torch):
            ceilings[key] = ceiling.ns_per_element(case, op, libraries, nbytes / case.n, ceiling.policy(quick),
                                                   seed, offset)
    cache = ceilings.get(key) or {}
    with T.threads(1, torch):
        peaks = {b: peak_extra_bytes(fn) for b, fn in ours.items()}
    return [Record(case.op, case.layout.label, case.dtype, b, case.n, shapes, nbytes, one[b], every.get(b),
                   torch_error, cache.get(b), peaks[b], itemsizes) for b in fns]


def run(ops: dict, cases: list[Case], backends: list[str], quick=False, repeat=None,
        on_record=None, baseline: tuple[str, dict] | None = None, offset: int = 0) -> list[Record]:
    """Every case on every backend (and on the baseline's C libraries, see kernels()), every array `offset` bytes
    past a cache line; `on_record(record)` is called as each row is measured."""
    torch = torch_kernels.available()
    fns = kernels({name: ops[name] for name in dict.fromkeys(c.op for c in cases)}, backends, baseline)
    names = list(backends) + ([baseline[0]] if baseline else [])
    records, ceilings = [], {}
    for case in cases:
        mine = {b: fns[case.op, b] for b in names if (case.op, b) in fns}
        for r in run_case(case, ops[case.op], mine, torch, quick, repeat, ceilings=ceilings, offset=offset):
            records.append(r)
            if on_record:
                on_record(r)
    return records
