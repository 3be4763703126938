"""The benchmark's reports: Markdown for people (its summary table is the README's), JSON for tools, and the
rows printed on stdout as they are measured.

Numbers: time is the median in ms; GB/s is bytes moved (traffic.py) per second, decimal; "vs probe" is our
GB/s over the single-threaded streaming probe's on the same bytes (1 = as fast as streaming memory); "vs
PyTorch" is PyTorch's time over ours (> 1: faster than PyTorch's CPU kernel).  "—" is a cell with nothing
measured: no PyTorch, or a single-threaded backend in the all-threads columns.
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
from pathlib import Path

from . import calls, targets
from .runner import Record, Round
from .threads import all_threads

BACKEND_TITLE = {"numpy": "NumPy", "c": "C"}
SUMMARY_N = 1 << 24


# ---- cells ---------------------------------------------------------------------------------------------
def _num(v, fmt="{:.3g}") -> str:
    return "—" if v is None else fmt.format(v)


def _ms(ns) -> str:
    return "—" if ns is None else f"{ns / 1e6:.3g}"


def _x(v) -> str:
    return "—" if v is None else f"{v:.2f}×"


def _ratios(r: Round | None) -> list[str]:
    """GB/s, vs probe, vs PyTorch of one round."""
    if r is None:
        return ["—", "—", "—"]
    return [_num(r.gbps), _num(r.vs_probe, "{:.2f}"), _x(r.vs_torch)]


def _seconds(entry: dict) -> str:
    if entry.get("seconds") is not None:
        return f"{entry['seconds']:.3g} s"
    return f"not measured ({entry['skipped']})" if "skipped" in entry else f"failed: {entry.get('error')}"


# ---- the full table ------------------------------------------------------------------------------------
COLUMNS = ["op", "layout", "dtype", "backend", "n", "MB moved", "time (ms)", "GB/s", "vs probe",
           "vs PyTorch (1 thread)", "all threads: time (ms)", "GB/s", "vs probe", "vs PyTorch", "peak extra KiB"]


def _kib(b) -> str:
    return "—" if b is None else f"{b / 1024:.3g}"


def row_cells(r: Record) -> list[str]:
    every = r.all
    return [r.op, r.layout, r.dtype, r.backend, str(r.n), f"{r.bytes / 1e6:.3g}", _ms(r.one.time_ns),
            *_ratios(r.one), _ms(every.time_ns if every else None), *_ratios(every), _kib(r.peak_bytes)]


# ---- against PyTorch at every size (issue 35's targets) -------------------------------------------------
def _log2(n: int) -> str:
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def torch_by_size_table(records: list[Record], backend: str = "c") -> str:
    """Per op × layout × dtype, PyTorch's time over ours at every size, one thread / all threads, and the
    largest peak extra memory of a call; then per size, how many rows are behind PyTorch (< 1.0x)."""
    sizes = sorted({r.n for r in records if r.backend == backend})
    rows: dict = {}
    for r in records:
        if r.backend == backend:
            rows.setdefault((r.op, r.layout, r.dtype), {})[r.n] = r
    head = ["op", "layout", "dtype"] + [f"{_log2(n)}: 1 / all threads" for n in sizes] + ["peak extra KiB"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (op, layout, dtype), by in rows.items():
        cells = [op, layout, dtype]
        for n in sizes:
            r = by.get(n)
            one = r.one.vs_torch if r else None
            every = r.all.vs_torch if r and r.all else None
            cells.append(f"{_num(one, '{:.2f}')} / {_num(every, '{:.2f}')}")
        peaks = [r.peak_bytes for r in by.values() if r.peak_bytes is not None]
        cells.append(_kib(max(peaks)) if peaks else "—")
        lines.append("| " + " | ".join(cells) + " |")
    behind = ["", "| size | rows behind PyTorch, 1 thread (ratio range) | all threads (ratio range) |", "|---|---|---|"]
    for n in sizes:
        cells = [_log2(n)]
        for pick in (lambda r: r.one, lambda r: r.all):
            got = [pick(r).vs_torch for r in records
                   if r.backend == backend and r.n == n and pick(r) is not None and pick(r).vs_torch is not None]
            late = sum(v < 1.0 for v in got)
            cells.append(f"{late} of {len(got)} ({min(got):.2f}–{max(got):.2f}×)" if got else "—")
        behind.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines + behind)


def full_table(records: list[Record]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(row_cells(r)) + " |" for r in records]
    return "\n".join(lines)


# ---- the summary: one size, backends side by side --------------------------------------------------------
def summary_n(records: list[Record]) -> int | None:
    """2^24 when measured, else the largest size measured (--quick, --sizes)."""
    sizes = {r.n for r in records}
    return SUMMARY_N if SUMMARY_N in sizes else max(sizes, default=None)


def summary_table(records: list[Record]) -> str:
    """op × layout × dtype at one size: the probe's GB/s, then per backend "GB/s, vs probe, vs PyTorch" at one
    thread, and at all threads for the backends that thread."""
    n = summary_n(records)
    rows: dict = {}
    for r in records:
        if r.n == n:
            rows.setdefault((r.op, r.layout, r.dtype), {})[r.backend] = r
    backends = list(dict.fromkeys(r.backend for r in records))
    threaded = [b for b in backends if any(r.all for r in records if r.backend == b)]
    head = (["op", "layout", "dtype", "probe GB/s", "PyTorch GB/s (1 / all threads)"]
            + [f"{BACKEND_TITLE.get(b, b)}: GB/s, vs probe, vs PyTorch" for b in backends]
            + [f"{BACKEND_TITLE.get(b, b)}, {all_threads()} threads: GB/s, vs probe, vs PyTorch" for b in threaded])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (op, layout, dtype), by in rows.items():
        first = next(iter(by.values()))
        torch_all = next((r.all.torch_gbps for r in by.values() if r.all), None)
        cells = [op, layout, dtype, _num(first.one.probe_gbps),
                 f"{_num(first.one.torch_gbps)} / {_num(torch_all)}"]
        cells += [", ".join(_ratios(by[b].one)) if b in by else "—" for b in backends]
        cells += [", ".join(_ratios(by[b].all)) if b in by else "—" for b in threaded]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def baseline_table(records: list[Record], label: str) -> str:
    """Today's C kernels against a baseline revision's (`--baseline`), at the summary's size: both times and
    their ratio, one thread and all threads, from the same interleaved passes; and the ratio of their in-cache
    times (ceiling.py), also taken side by side."""
    n = summary_n(records)
    pairs: dict = {}
    for r in records:
        if r.n == n and r.backend in ("c", label):
            pairs.setdefault((r.op, r.layout, r.dtype), {})[r.backend] = r
    head = ["op", "layout", "dtype", f"{label} ms", "c ms", f"{label} / c", f"{all_threads()} threads: {label} / c",
            f"in cache: {label} / c"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (op, layout, dtype), by in pairs.items():
        if len(by) < 2:
            continue
        old, new = by[label], by["c"]
        both = old.all and new.all
        cached = old.cache_ns and new.cache_ns
        lines.append("| " + " | ".join([op, layout, dtype, _ms(old.one.time_ns), _ms(new.one.time_ns),
                                        _x(old.one.time_ns / new.one.time_ns),
                                        _x(old.all.time_ns / new.all.time_ns) if both else "—",
                                        _x(old.cache_ns / new.cache_ns) if cached else "—"]) + " |")
    return "\n".join(lines)


# ---- stdout ---------------------------------------------------------------------------------------------
_WIDTHS = [41, 34, 8, 7, 8, 8, 9, 6, 8, 10, 14, 6, 8, 10, 8]


def text_header() -> str:
    cols = [c.replace(" (1 thread)", "").replace("all threads: ", "all: ") for c in COLUMNS]
    line = "  ".join(c.ljust(w) for c, w in zip(cols, _WIDTHS)).rstrip()
    return line + "\n" + "-" * len(line)


def text_row(r: Record) -> str:
    return "  ".join(c.ljust(w) for c, w in zip(row_cells(r), _WIDTHS)).rstrip()


# ---- files ----------------------------------------------------------------------------------------------
def machine() -> dict:
    """What the numbers were measured on."""
    import numpy
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cc = os.environ.get("CC", "cc")
    try:
        compiler = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        compiler = None
    from .torch_kernels import available
    torch = available()
    return {"cpu": cpu, "cpus": all_threads(), "python": platform.python_version(), "numpy": numpy.__version__,
            "torch": torch.__version__.split("+")[0] if torch else None, "compiler": compiler}


def markdown(records: list[Record], meta: dict) -> str:
    m, c = meta["machine"], meta["commands"]
    n = summary_n(records)
    rendered = " ".join(str(w) for w in ("the benchmarked ops’" if c.get("quick") else "all",
                                         c["generate"].get("files")) if w is not None)
    lines = [
        "# opgen bench",
        "",
        f"`{meta['command']}` · {meta['date']} · {m['cpu']} ({m['cpus']} CPUs) · Python {m['python']}, "
        f"NumPy {m['numpy']}, PyTorch {m['torch'] or '—'}, {m['compiler'] or 'no C compiler'}",
        "",
        "| command | time |",
        "|---|---|",
        f"| `opgen generate` ({c['ops']} ops), cold as on a clean checkout: a new process, empty build directory "
        f"and proof cache (every proof run, the call examples compiled and run) | "
        f"{_seconds(c.get('generate_cold', {'skipped': 'older run'}))} |",
        f"| `opgen generate`: {rendered} files rendered in memory, the call examples' outputs cached | "
        f"{_seconds(c['generate'])} |",
        f"| `opgen verify` ({c['ops']} ops, mpmath check included), cold | {_seconds(c['verify_cold'])} |",
        f"| `opgen verify`, proof cache hit | {_seconds(c['verify_cached'])} |",
        "",
        "Bytes moved: every input tensor the kernel reads plus every output, each once at its dtype's size (a "
        "broadcast operand at its own size). GB/s: decimal. vs probe: our GB/s over a single-threaded loop "
        "reading the same inputs and writing the same outputs (the faster of NumPy's and a C loop's). vs PyTorch: "
        "PyTorch's CPU kernel's time over ours, preallocated outputs both (> 1: faster). Times are medians of "
        "interleaved passes, ratios are ratios of those medians (the targets table adds the lowest and highest "
        "of each ratio taken within a pass); all-threads columns set $OPGEN_NUM_THREADS and "
        f"torch.set_num_threads to {m['cpus']}; the probe stays single-threaded; NumPy kernels are "
        "single-threaded (—). Every array (inputs, outputs, the probe's and PyTorch's) starts "
        + (f"{meta['offset']} bytes past a 64-byte cache line (--offset)." if meta.get("offset")
           else "on a 64-byte cache line, as PyTorch allocates (--offset changes it)."),
        "",
        f"## Summary at n = {n} elements" + (" (2^24)" if n == SUMMARY_N else " (the largest size measured)"),
        "",
        summary_table(records),
        "",
        *([f"## Against {meta['baseline']['rev']} (`{meta['baseline']['backend']}`: its C kernels, timed in the "
           "same passes; > 1: today's are faster)", "", baseline_table(records, meta['baseline']['backend']), ""]
          if meta.get("baseline") else []),
        "## Against PyTorch at every size (C backend)",
        "",
        "PyTorch's time over ours (> 1: we are faster), at one thread and at all threads, and the most memory one "
        "call held beyond its arguments and `out=` (tracemalloc, one thread: the C runtime's workspace). Issue "
        "35's target is 1.00 or more in every cell.",
        "",
        torch_by_size_table(records),
        "",
        *(["## Call overhead (2^10 elements, FLOAT, one thread)", "",
           "Medians of interleaved passes: the compiled entry point (the default), the same call through ctypes "
           "(the entry point switched off: the path every call took before it), PyTorch's aten kernel with `out=`.",
           "", calls.table([calls.CallCost(**{k: v for k, v in c.items() if k != "vs_torch"})
                            for c in meta["calls"]]), ""] if meta.get("calls") else []),
        "## Targets (issue 35: every C row at every size, one thread and all threads)",
        "",
        targets.table(targets.judge(records, c)),
        "",
        "## All results",
        "",
        full_table(records),
        "",
    ]
    errors = sorted({(r.op, r.dtype, r.torch_error) for r in records if r.torch_error})
    if errors:
        lines += ["## PyTorch calls that failed", ""] + [f"- {op} {dt}: {e}" for op, dt, e in errors] + [""]
    return "\n".join(lines)


def write(records: list[Record], out_dir, meta: dict) -> tuple[Path, Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    md, js = out / "bench.md", out / "bench.json"
    md.write_text(markdown(records, meta))
    verdicts = targets.judge(records, meta["commands"])
    js.write_text(json.dumps({"meta": meta, "results": [r.to_json() for r in records],
                              "targets": [v.to_json() for v in verdicts]}, indent=1) + "\n")
    return md, js
