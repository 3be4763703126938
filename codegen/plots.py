"""The documentation site's figures and result tables, from the accuracy and bench reports.

    python -m codegen.plots                       # both, into docs/_static/plots/ and docs/_generated/
    python -m codegen.plots --only bench          # only what bench.json gives (no kernel runs)
    python -m codegen.plots --only accuracy log_sigmoid_backward --backend numpy --points 64

Bench (`opgen bench` → `reports/bench/bench.json`): per operator, throughput in GB/s against the element
count, one panel per layout × dtype, a line per backend and thread count, PyTorch's CPU kernel and the
streaming probe (the memory system's speed for the same bytes) beside them, for every operator in the report;
the gallery that shows them all on the Performance page (docs/_generated/bench-figures.md, so a new operator's
figure needs no edit of the page); the summary table at the largest size measured, PyTorch's time over ours at
every size and the call overhead, each headed by where and under what load it was measured.

Accuracy (`opgen accuracy --full` → `reports/accuracy/accuracy.json`): the report keeps per-kernel statistics,
not per-input errors, so the error-against-input plots come from a focused measurement run here: a dense sweep
of the differentiated input (x, or the forward output y a tensor holds) across its range — sinh-spaced from
-10^4 to 10^4 for elementwise operators, rows of softmax outputs from narrow to near one-hot for row reductions
— through the same reference (`codegen.accuracy`: the forward differentiated by SymPy, evaluated in mpmath,
rounded once), every kernel backend and PyTorch's kernel on the same inputs.  The table comes from the report.

matplotlib is a docs extra (`pip install -e ".[docs]"`), not a runtime dependency.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import textwrap
from collections import defaultdict
from pathlib import Path

import numpy as np

from .loader import REPO_ROOT

PLOTS = REPO_ROOT / "docs" / "_static" / "plots"
TABLES = REPO_ROOT / "docs" / "_generated"
ACCURACY_JSON = REPO_ROOT / "reports" / "accuracy" / "accuracy.json"
BENCH_JSON = REPO_ROOT / "reports" / "bench" / "bench.json"
DTYPES = ("FLOAT", "FLOAT16", "BFLOAT16")
STYLE = {   # series -> matplotlib keywords; the same colours in every figure
    "numpy": dict(color="tab:blue", marker="o", mfc="none", ms=5),
    "c": dict(color="tab:orange", marker="x", ms=5),
    "ascendc": dict(color="tab:green", marker="+", ms=6),
    "c, all threads": dict(color="tab:red", marker="^", mfc="none", ms=5),
    "PyTorch": dict(color="black", marker=".", ms=4),
    "PyTorch, all threads": dict(color="grey", marker=".", ms=4, ls="--"),
    "probe": dict(color="tab:purple", ls=":", marker=None),
}


def _pyplot():
    try:
        import matplotlib
    except ImportError as e:  # a docs extra: say how to get it
        raise SystemExit(f"{e}: the plots need matplotlib: pip install -e \".[docs]\"") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 8, "axes.titlesize": 8, "legend.fontsize": 7, "svg.hashsalt": "opgen"})
    return plt


def _save(fig, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, bbox_inches="tight", metadata={"Software": None})
    fig.clf()
    return path


# ---- bench -------------------------------------------------------------------------------------------------
def bench_series(results: list[dict]) -> dict:
    """{op: {(layout, dtype): {series: [(n, GB/s)]}}} from bench.json's results: our backends at one thread
    (and the C backend at all threads), PyTorch at one and all threads, and the probe."""
    out: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    for r in results:
        panel = out[r["op"]][(r["layout"], r["dtype"])]
        one, every = r.get("one"), r.get("all")
        if r["backend"].startswith("c@"):     # a --baseline revision: not part of the figures
            continue
        if one:
            panel[r["backend"]][r["n"]] = one["gbps"]
            panel["probe"][r["n"]] = one["probe_gbps"]
            if one.get("torch_gbps"):
                panel["PyTorch"][r["n"]] = one["torch_gbps"]
        if every and r["backend"] == "c":
            panel["c, all threads"][r["n"]] = every["gbps"]
            if every.get("torch_gbps"):
                panel["PyTorch, all threads"][r["n"]] = every["torch_gbps"]
    return {op: {k: {s: sorted(v.items()) for s, v in series.items()} for k, series in panels.items()}
            for op, panels in out.items()}


def plot_bench(report: dict, out: Path) -> list[Path]:
    plt = _pyplot()
    paths = []
    for op, panels in sorted(bench_series(report["results"]).items()):
        layouts = list(dict.fromkeys(layout for layout, _ in panels))
        dtypes = [d for d in DTYPES if any(d == dt for _, dt in panels)]
        fig, axes = plt.subplots(len(layouts), len(dtypes), figsize=(3.2 * len(dtypes), 2.4 * len(layouts)),
                                 squeeze=False, sharex=True, layout="constrained")
        for i, layout in enumerate(layouts):
            for j, dtype in enumerate(dtypes):
                ax = axes[i][j]
                series = panels.get((layout, dtype))
                if not series:
                    ax.set_axis_off()
                    continue
                for name, points in series.items():
                    ns, gbps = zip(*points)
                    ax.plot(ns, gbps, label=name, lw=1, **STYLE.get(name, {}))
                ax.set_xscale("log", base=2)
                ax.set_title(f"{layout}, {dtype}")
                ax.grid(True, alpha=0.3)
                if j == 0:
                    ax.set_ylabel("GB/s")
                if i == len(layouts) - 1:
                    ax.set_xlabel("elements")
        handles, labels = axes[0][0].get_legend_handles_labels()
        fig.suptitle(f"{op}: throughput against size")
        fig.legend(handles, labels, loc="outside lower center", ncol=len(labels))
        paths.append(_save_small(fig, out / f"bench-{op}.png"))
        plt.close(fig)
    return paths


BENCH_DPI = 80           # the bench figures are many small panels: enough to read, small to ship
BENCH_COLOURS = 48       # a palette PNG: the figures have a dozen colours plus antialiasing


def _save_small(fig, path: Path) -> Path:
    """`fig` as a palette PNG (the docs ship one figure per operator: each stays well under 150 KB)."""
    import io

    from PIL import Image
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=BENCH_DPI, bbox_inches="tight", metadata={"Software": None})
    fig.clf()
    buf.seek(0)
    Image.open(buf).convert("RGB").quantize(BENCH_COLOURS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE) \
        .save(path, optimize=True)
    return path


def bench_gallery(report: dict, figures: list[Path]) -> str:
    """The Performance page's gallery: every figure `plot_bench` wrote, one per operator in the report's order,
    each under the operator's name with its layouts (Sphinx reads `/_static/...` from the docs' source root)."""
    layouts: dict = {}
    for r in report["results"]:
        if not r["backend"].startswith("c@"):
            layouts.setdefault(r["op"], {}).setdefault(r["layout"], None)
    by_op = {p.stem.removeprefix("bench-"): p for p in figures}
    lines = []
    for op, lays in layouts.items():
        if op not in by_op:
            continue
        lines += [f"#### {op}", "", f"Layouts: {'; '.join(lays)}.", "",
                  f"![{op}: throughput against size](/_static/plots/{by_op[op].name})", ""]
    return "\n".join(lines) if lines else "(no rows in the bench report)\n"


def _records(results: list[dict]) -> list:
    """bench.json's results as the report's Records (the tables of codegen.bench.report read them)."""
    from .bench.runner import Record, Round
    out = []
    for r in results:
        r = dict(r)
        r["one"] = Round(**r["one"])
        r["all"] = Round(**r["all"]) if r.get("all") else None
        out.append(Record(**{k: v for k, v in r.items() if k in Record.__dataclass_fields__}))
    return out


def bench_torch_table(report: dict) -> str:
    """PyTorch's time over ours for every C row at every size, one / all threads, with each row's peak extra
    memory, and per size the rows behind PyTorch (codegen.bench.report.torch_by_size_table)."""
    from .bench.report import torch_by_size_table
    records = [r for r in _records(report["results"]) if not r.backend.startswith("c@")]
    return torch_by_size_table(records) + "\n" if records else "(no rows in the bench report)\n"


def bench_calls_table(report: dict) -> str:
    """The call overhead at 2^10 elements (codegen.bench.calls.table), or a line saying the run had none."""
    from .bench.calls import CallCost, table
    calls = report["meta"].get("calls")
    if not calls:
        return "(the bench run measured no call overhead: it needs the c backend)\n"
    return table([CallCost(**{k: v for k, v in c.items() if k != "vs_torch"}) for c in calls]) + "\n"


def bench_table(report: dict) -> str:
    """The summary at the largest size measured: GB/s per backend, share of the probe, PyTorch's time over ours."""
    results = [r for r in report["results"] if not r["backend"].startswith("c@") and r.get("one")]
    if not results:
        return "(no rows in the bench report)\n"
    n = max(r["n"] for r in results)
    rows: dict = {}
    for r in results:
        if r["n"] == n:
            rows.setdefault((r["op"], r["layout"], r["dtype"]), {})[r["backend"]] = r
    backends = [b for b in ("numpy", "c") if any(b in v for v in rows.values())]
    head = ["op", "layout", "dtype", "probe GB/s", "PyTorch GB/s"] + [f"{b}: GB/s, vs probe, vs PyTorch"
                                                                       for b in backends]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (op, layout, dtype), by in rows.items():
        first = next(iter(by.values()))["one"]
        tg = first.get("torch_gbps")
        cells = [op, layout, dtype, f"{first['probe_gbps']:.3g}", f"{tg:.3g}" if tg else "—"]
        for b in backends:
            o = by[b]["one"] if b in by else None
            vt = o.get("vs_torch") if o else None
            cells.append("—" if o is None else f"{o['gbps']:.3g}, {o['vs_probe']:.2f}, "
                                               + (f"{vt:.2f}×" if vt else "—"))
        lines.append("| " + " | ".join(cells) + " |")
    return f"Elements per call: {n} (2^{int(math.log2(n))}); one thread.\n\n" + "\n".join(lines) + "\n"


# ---- accuracy ----------------------------------------------------------------------------------------------
def accuracy_table(report: dict) -> str:
    """Per op × dtype × backend (products with the same figures merged): max ulp over every input set, MERE and
    MARE on the typical inputs, the two Ascend standards and PyTorch's max ulp on the same inputs."""
    from .accuracy import known
    rows: dict = {}
    for r in report["records"]:
        key = (r["op"], r["dtype"], r["backend"])
        if key not in rows:
            rows[key] = r
    head = ["op", "dtype", "backend", "max ulp", "MERE", "MARE", "dual", "single", "PyTorch max ulp", "verdict"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def num(v):
        return "∞" if v == float("inf") else f"{v:.3g}"

    def ulp(v):
        return "∞" if v == float("inf") else str(int(v))
    for (op, dtype, backend), r in rows.items():
        t = r.get("torch")
        verdict = "pass" if r["passed"] else ("FAIL (known)" if known.reason(r["op_name"], dtype) else "FAIL")
        lines.append("| " + " | ".join([
            op, dtype, backend, ulp(r["errors_all"]["max_ulp"]), num(r["errors"]["mean_rel"]),
            num(r["errors"]["max_rel"]), "pass" if r["dual_ok"] else "FAIL", "pass" if r["single_ok"] else "FAIL",
            ulp(t["max_ulp"]) if t else "—", verdict]) + " |")
    meta = report.get("meta", {})
    return (f"From `{meta.get('command', 'opgen accuracy')}` (PyTorch {meta.get('torch') or 'not installed'}).\n\n"
            + "\n".join(lines) + "\n")


def _cases(op, limit=2):
    """Up to `limit` verification cases with distinct kernel variants, elementwise loss (no mean/sum) and no
    scalar pinned to zero: the cases whose error against the input says most."""
    from .verify.cases import cases
    out, seen = [], set()
    for case in cases(op):
        key = tuple(sorted(case.variant.key.items()))
        if key in seen or case.reduction not in (None, 0) or any(v == 0 for v in case.subs.values()):
            continue
        seen.add(key)
        out.append(case)
    return out[:limit] or list(cases(op))[:1]


def sweep(op, case, dtype: str, backends: list[str], points: int, seed: int = 0):
    """(held tensor's name, its values, {series: ulp errors}) of one sweep; elements whose reference or inputs
    are not finite are left out."""
    from .accuracy import inputs as I
    from .accuracy.dtypes import FORMATS, ulp_distance
    from .accuracy.runner import prepare
    from . import backends as B
    fmt = FORMATS[dtype]
    rng = np.random.default_rng([seed, points])
    ctx = I.Context(op, case, fmt, rng, I.FAST)
    held = ctx.ref.x_tensor or ctx.ref.y_tensor
    if ctx.ref.coupled:
        rows = max(4, points // 16)
        spread = np.geomspace(0.25, 40, rows)[:, None]      # narrow rows to near one-hot ones
        sample = ctx.rows("sweep", rng.normal(0, 1, (rows, 16)) * spread)[0]
    else:
        t = np.linspace(-math.asinh(1e4), math.asinh(1e4), points)
        sample = ctx.elementwise("sweep", np.sinh(t))[0]
    p = prepare(op, sample, fmt)
    values = np.broadcast_to(np.asarray(sample.kw[held.py_name], dtype=np.float64), sample.shape).reshape(-1)
    ref = p.ref.reshape(-1)
    keep = np.isfinite(ref) & ~p.unresolved.reshape(-1) & ~(p.nan_in | p.inf_in).reshape(-1)
    want = ref.astype(fmt.np)[keep]
    product = next(s for s, dts in op.dtypes.items() if dtype in dts)
    errors = {}
    for b in backends:
        got = np.asarray(B.get(b).make_kernel(op)(**sample.kw, product=product)).astype(fmt.np).reshape(-1)
        errors[b] = ulp_distance(got[keep], want)
    if p.torch is not None:
        errors["PyTorch"] = ulp_distance(p.torch.astype(fmt.np).reshape(-1)[keep], want)
    return held.name, values[keep], errors


def plot_accuracy(ops: dict, backends: list[str], points: int, out: Path, log=print, dtypes=DTYPES) -> list[Path]:
    plt = _pyplot()
    paths = []
    wanted = dtypes
    for name, op in ops.items():
        cases = _cases(op)
        dtypes = [d for d in wanted if any(d in dts for dts in op.dtypes.values())]
        fig, axes = plt.subplots(len(cases), len(dtypes), figsize=(3.4 * len(dtypes), 2.6 * len(cases)),
                                 squeeze=False, layout="constrained")
        for i, case in enumerate(cases):
            for j, dtype in enumerate(dtypes):
                ax = axes[i][j]
                held, xs, errors = sweep(op, case, dtype, backends, points)
                for series, e in errors.items():
                    worst = e.max() if e.size else 0
                    ax.plot(xs, e, ls="none", label=f"{series} (max {'∞' if np.isinf(worst) else int(worst)})",
                            **STYLE.get(series, {}))
                if op.reduce_dim is not None:
                    ax.set_xscale("log")
                else:
                    ax.set_xscale("symlog", linthresh=1)
                finite = [e[np.isfinite(e)].max() for e in errors.values() if np.isfinite(e).any()]
                ax.set_yscale("symlog", linthresh=1)
                ax.set_ylim(-0.3, max([4.0] + [3 * f for f in finite]))
                ax.grid(True, alpha=0.3)
                ax.set_title(textwrap.fill(f"{dtype}; {case.label}", 48), fontsize=7)
                ax.set_xlabel(held)
                if j == 0:
                    ax.set_ylabel("error (ulp)")
                ax.legend(loc="upper left")
                log(f"  {name} {dtype} [{case.label}]: {len(xs)} inputs, "
                    + ", ".join(f"{s} max {e.max() if e.size else 0:g}" for s, e in errors.items()))
        fig.suptitle(f"{op.name}: error against the exact result, per input")
        paths.append(_save(fig, out / f"accuracy-{name}.png"))
        plt.close(fig)
    return paths


# ---- command -----------------------------------------------------------------------------------------------
def main(argv=None) -> int:
    from . import backends as B
    from .loader import load_specs
    parser = argparse.ArgumentParser(prog="python -m codegen.plots", description=__doc__.split("\n\n")[0])
    parser.add_argument("ops", nargs="*", help="op names for the accuracy sweeps (default: all)")
    parser.add_argument("--specs", help="spec folder (default: the repository's specs/)")
    parser.add_argument("--only", choices=("accuracy", "bench"), help="make only these figures and table")
    parser.add_argument("--accuracy-report", default=str(ACCURACY_JSON), help="accuracy.json to tabulate")
    parser.add_argument("--bench-report", default=str(BENCH_JSON), help="bench.json to plot and tabulate")
    parser.add_argument("--backend", action="append", help="kernel backends of the sweeps (default: all)")
    parser.add_argument("--dtype", action="append", choices=DTYPES, help="dtypes of the sweeps (default: all)")
    parser.add_argument("--points", type=int, default=801, help="inputs per accuracy sweep (default 801)")
    parser.add_argument("--out", default=str(PLOTS), help="folder of the PNG figures (default docs/_static/plots)")
    parser.add_argument("--tables", default=str(TABLES), help="folder of the Markdown tables (default docs/_generated)")
    args = parser.parse_args(argv)
    out, tables = Path(args.out), Path(args.tables)
    written = []
    if args.only in (None, "bench"):
        path = Path(args.bench_report)
        if not path.is_file():
            print(f"{path} is missing: run `opgen bench` first (or --only accuracy)", file=sys.stderr)
            return 2
        report = json.loads(path.read_text())
        figures = plot_bench(report, out)
        written += figures
        tables.mkdir(parents=True, exist_ok=True)
        head = _provenance(report["meta"])
        for name, text in (("bench-table.md", bench_table(report)), ("bench-vs-torch.md", bench_torch_table(report)),
                           ("bench-calls.md", bench_calls_table(report)),
                           ("bench-figures.md", bench_gallery(report, figures))):
            written.append(tables / name)
            written[-1].write_text(head + text)
    if args.only in (None, "accuracy"):
        path = Path(args.accuracy_report)
        if not path.is_file():
            print(f"{path} is missing: run `opgen accuracy --full` first (or --only bench)", file=sys.stderr)
            return 2
        ops = load_specs(args.specs)
        unknown = [o for o in args.ops if o not in ops]
        have = B.kernel_backends()
        bad = [b for b in args.backend or [] if b not in have]
        if unknown or bad:
            print(f"unknown op or backend: {', '.join(unknown + bad)}", file=sys.stderr)
            return 2
        ops = {k: v for k, v in ops.items() if not args.ops or k in args.ops}
        written += plot_accuracy(ops, args.backend or have, args.points, out,
                                 log=lambda m: print(m, file=sys.stderr), dtypes=args.dtype or DTYPES)
        tables.mkdir(parents=True, exist_ok=True)
        written.append(tables / "accuracy-table.md")
        written[-1].write_text(accuracy_table(json.loads(path.read_text())))
    for p in written:
        print(p)
    return 0


def _provenance(meta: dict) -> str:
    m = meta.get("machine", {})
    load = meta.get("load")
    under = ""
    if load:   # (os.getloadavg: 1, 5 and 15 minutes) against the CPU count: a shared machine skews every figure
        worst = max(load["start"][0], load["end"][0])
        busy = worst > 0.5 * (m.get("cpus") or 1)
        under = (f" Load average {load['start'][0]:.1f} at the start, {load['end'][0]:.1f} at the end"
                 + (f": **measured under load** (other jobs on the same {m.get('cpus', '?')} CPUs)." if busy
                    else "."))
    return (f"From `{meta.get('command', 'opgen bench')}`, {meta.get('date', '')}, on {m.get('cpu', '?')} "
            f"({m.get('cpus', '?')} CPUs), Python {m.get('python', '?')}, NumPy {m.get('numpy', '?')}, "
            f"PyTorch {m.get('torch', '?')}, {m.get('compiler', '?')}.{under}\n\n")


if __name__ == "__main__":
    sys.exit(main())
