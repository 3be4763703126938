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
of one input across its range — the differentiated input (x, or the forward output y a tensor holds), or the
operand the gradient reads when it does not read that one; sinh-spaced from -10^4 to 10^4 for elementwise
operators (across a narrower domain where the forward has one), rows from narrow to near one-hot for row
reductions and class-index operators — through the same reference (`codegen.accuracy`: the forward
differentiated by SymPy, evaluated in mpmath, rounded once), every kernel backend and PyTorch's kernel on the
same inputs.  An op is drawn in the parts the accuracy run measures (each half of a split op, each output of a
several-output op), read from the spec.  The table comes from the report; the gallery
(`docs/_generated/accuracy-figures.md`) lists every op's figure, or why it has none.

matplotlib is a docs extra (`pip install -e ".[docs]"`), not a runtime dependency.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import textwrap
from collections import defaultdict
from dataclasses import dataclass
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


def _save(fig, path: Path, colors: int | None = None, dpi: int = 110, **quantize) -> Path:
    """`fig` as a PNG; with `colors`, reduced to a palette of that many (the accuracy figures' thousands of
    markers: a quarter of the bytes, the same picture; `quantize` passes PIL's method and dither)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if colors is None:
        fig.savefig(path, dpi=dpi, bbox_inches="tight", metadata={"Software": None})
    else:
        import io
        from PIL import Image
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight", metadata={"Software": None})
        buf.seek(0)
        Image.open(buf).convert("RGB").quantize(colors, **quantize).save(path, optimize=True)
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
    from PIL import Image
    return _save(fig, path, BENCH_COLOURS, BENCH_DPI, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)


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


@dataclass
class Row:
    """One row of an op's figure: what the accuracy run measures as one op (the op itself, one half of a split
    op, one output of a several-output op: codegen.accuracy.runner.split_halves, outputs.output_ops), in one
    verification case, with the kernels that compute it and the tensor swept (None: `why` says why not)."""
    part: str            # '' for the op itself, else the half or output ('a', 'gradWeight')
    op: object
    case: object
    kernels: dict        # backend -> callable(**kw, product=...)
    swept: object = None
    why: str = ""

    @property
    def title(self) -> str:
        head = f"{self.part}: " if self.part else ""
        return textwrap.fill(f"{head}{self.case.label}", 48)


def _preference(op, case) -> int:
    """Sort key of the cases worth a row: the usual setting first.  A case that draws a scalar negative
    (Softplus's beta < 0, Hardshrink's lambd < 0), puts two scalars against their order in the spec (Hardtanh's
    max < min) or sets them equal (max = min) comes after one that does not."""
    from .verify.cases import sample_scalars
    values = sample_scalars(case, lambda kind: {"positive": 1.0, "negative": -1.0, "any": 0.5}[kind])
    negative = sum(1 for v in values.values() if float(v) < 0)
    order = [p.name for p in op.params]
    unusual = 0
    for a in case.assumptions:
        unusual += " = " in a
        parts = a.split(" < ")
        if len(parts) == 2 and all(p in order for p in parts) and order.index(parts[0]) > order.index(parts[1]):
            unusual += 1
    return negative + unusual


def _cases(op, limit=2):
    """Up to `limit` verification cases with distinct kernel variants, elementwise loss (no mean/sum), no scalar
    pinned to zero, the usual setting first (`_preference`): the cases whose error against the input says most."""
    from .verify.cases import cases
    every = list(cases(op))

    def elementwise(case):
        if case.reduction in (None, 0):
            return True
        return op.loss_reduction is not None and op.reduction.mode(op, case.reduction) == "none"
    ranked = sorted(range(len(every)), key=lambda i: (_preference(op, every[i]), i))
    out, seen = [], set()
    for i in ranked:
        case = every[i]
        key = tuple(sorted(case.variant.key.items()))
        if key in seen or not elementwise(case) or any(v == 0 for v in case.subs.values()):
            continue
        seen.add(key)
        out.append(case)
    return out[:limit] or every[:1]


def _symbols(case) -> set:
    """The names of the symbols the case's documented gradient reads."""
    import sympy
    return {str(s) for s in sympy.sympify(case.variant.expr).free_symbols}


def swept_tensor(op, case):
    """(the tensor a sweep varies, '') or (None, why not).  The differentiated input x, or the forward output y a
    tensor holds; when the documented gradient does not depend on it (a per-output op whose gradient w.r.t. the
    weight reads self, not the weight), an operand it does depend on; when it depends on neither (NLLLoss: minus
    the target's weight times gradOutput over totalWeight), nothing: the error has no input to be plotted
    against, and the report's table is the measurement."""
    used = _symbols(case)
    if op.classes is not None:
        t = op.param(op.classes.tensor)
        if str(t.symbol) in used:
            return t, ""
        return None, (f"the gradient does not depend on {t.name} (it reads {_reads(op, used)}): the error has no "
                      "input to be plotted against; the table above gives its measurement")
    from .accuracy.reference import _cached
    ref = _cached(op.name, op, tuple(sorted(case.variant.key.items())))
    held = ref.x_tensor or ref.y_tensor
    if ref.coupled or (held is not None and str(held.symbol) in used):
        return held, ""
    for t in ref.operands:
        if str(t.symbol) in used and t.name not in {b.name for b in op.bool_tensors}:
            return t, ""
    return None, (f"the gradient depends on no input tensor but {op.grad.name} (it reads {_reads(op, used)}): the "
                  "error has no input to be plotted against; the table above gives its measurement")


def _reads(op, used: set) -> str:
    """The parameters the gradient reads, in the spec's order: `gradOutput, target, weight and totalWeight`."""
    names = [p.name for p in op.params if getattr(p, "symbol", None) is not None and str(p.symbol) in used]
    return ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1] if names else "no parameter"


def rows_of(op, backends: list[str], limit: int = 2) -> list[Row]:
    """The rows of an op's figure: per measured part, up to `limit` cases."""
    from . import backends as B
    from .accuracy.outputs import output_ops
    from .accuracy.runner import split_halves
    parts, kernels = split_halves({op.name: op}, backends, None)
    parts, kernels = output_ops(parts, backends, kernels)
    out = []
    for key, part in parts.items():
        made = {b: (kernels or {}).get((key, b)) or B.get(b).make_kernel(part) for b in backends}
        label = key[len(op.name) + 1:-1] if key != op.name else ""   # 'a' of name[a], 'gradWeight'
        if label and op.split is not None:
            label = f"d/d{label}"
        for case in _cases(part, limit):
            swept, why = swept_tensor(part, case)
            out.append(Row(label, part, case, made, swept, why))
    return out


def _class_sample(op, case, fmt, rng, points):
    """A class-index op's call for a sweep: rows of logits from narrow to near one-hot (as a softmax sweep), the
    targets, weights and gradient typical (codegen.accuracy.classes)."""
    from .accuracy.classes import _Maker, _grid_shape, _ranks
    rank = 2 if 2 in _ranks(op) else _ranks(op)[0]
    rows = max(4, points // 16)
    shape = _grid_shape(rank, rows, 16)
    axis = 1 if len(shape) >= 2 else 0
    z = rng.normal(0, 1, shape)
    spread = np.geomspace(0.25, 40, int(np.prod(shape)) // shape[axis])
    moved = np.moveaxis(z, axis, -1)
    moved *= spread.reshape(moved.shape[:-1] + (1,))
    return _Maker(op, fmt, rng, case).call("sweep", shape, x=z)


@dataclass
class Sweep:
    swept: object            # the tensor varied
    values: np.ndarray       # its values at the elements kept
    errors: dict             # series -> ulp errors at those elements
    sample: object           # the call (codegen.accuracy.inputs.Sample)
    keep: np.ndarray         # the output elements kept (finite inputs and reference)


def sweep(op, case, dtype: str, backends: list[str], points: int, seed: int = 0, kernels: dict | None = None,
          swept=None):
    """(swept tensor's name, its values, {series: ulp errors}) of `sweep_call`."""
    s = sweep_call(op, case, dtype, backends, points, seed, kernels, swept)
    return s.swept.name, s.values, s.errors


def sweep_call(op, case, dtype: str, backends: list[str], points: int, seed: int = 0, kernels: dict | None = None,
               swept=None) -> Sweep:
    """One sweep: the call, the swept tensor's values and each series' ulp errors; elements whose reference or
    inputs are not finite are left out.  Elementwise: the swept tensor sinh-spaced from -10^4 to 10^4 (or the forward's
    outputs of those x); where the forward's domain keeps fewer than a quarter of them (Logit's (0, 1)), again
    evenly across the interval the kept ones span.  Row reductions and class-index ops: rows from narrow to near
    one-hot.  `kernels` {backend: callable} (default: the backends' kernels of `op`)."""
    from .accuracy import inputs as I
    from .accuracy.dtypes import FORMATS, ulp_distance
    from .accuracy.runner import prepare
    from . import backends as B
    fmt = FORMATS[dtype]
    rng = np.random.default_rng([seed, points])
    if swept is None:
        swept, why = swept_tensor(op, case)
        if swept is None:
            raise ValueError(why)
    p = None
    if op.classes is not None:
        sample = _class_sample(op, case, fmt, rng, points)
    else:
        ctx = I.Context(op, case, fmt, rng, I.FAST)
        held = ctx.ref.x_tensor or ctx.ref.y_tensor
        if ctx.ref.coupled:
            rows = max(4, points // 16)
            spread = np.geomspace(0.25, 40, rows)[:, None]      # narrow rows to near one-hot ones
            sample = ctx.rows("sweep", rng.normal(0, 1, (rows, 16)) * spread)[0]
        else:
            t = np.linspace(-math.asinh(1e4), math.asinh(1e4), points)
            xs = np.sinh(t)

            def make(v):
                if swept is held:
                    return ctx.elementwise("sweep", v)[0]
                return ctx.elementwise("sweep", rng.normal(0, 3, len(v)), opnds={swept.name: v})[0]
            sample = make(xs)
            p = prepare(op, sample, fmt)
            keep = _kept(p)
            if 0 < keep.sum() < len(xs) / 4:   # a domain narrower than the sweep: sweep the interval it spans
                lo, hi = _bracket(_values(sample, swept), keep)
                sample, p = make(np.linspace(lo, hi, points + 2)[1:-1]), None
    p = p or prepare(op, sample, fmt)
    keep = _kept(p)
    values = _values(sample, swept)
    want = p.ref.reshape(-1).astype(fmt.np)[keep]
    product = next(s for s, dts in op.dtypes.items() if dtype in dts)
    errors = {}
    for b in backends:
        fn = (kernels or {}).get(b) or B.get(b).make_kernel(op)
        got = np.asarray(fn(**sample.kw, product=product)).astype(fmt.np).reshape(-1)
        errors[b] = ulp_distance(got[keep], want)
    if p.torch is not None:
        errors["PyTorch"] = ulp_distance(p.torch.astype(fmt.np).reshape(-1)[keep], want)
    return Sweep(swept, values[keep], errors, sample, keep)


def _kept(p):
    ref = p.ref.reshape(-1)
    return np.isfinite(ref) & ~p.unresolved.reshape(-1) & ~(p.nan_in | p.inf_in).reshape(-1)


def _values(sample, t) -> np.ndarray:
    return np.broadcast_to(np.asarray(sample.kw[t.py_name], dtype=np.float64), sample.shape).reshape(-1)


def _bracket(vals, keep):
    """The interval around the kept sweep values, out to the neighbouring values that were dropped (so that the
    domain's ends are approached), in the swept tensor's own values."""
    order = np.argsort(vals)
    v, k = vals[order], keep[order]
    first, last = np.flatnonzero(k)[[0, -1]]
    lo = v[first - 1] if first > 0 else v[first]
    hi = v[last + 1] if last + 1 < len(v) else v[last]
    return float(lo), float(hi)


def _xscale(ax, xs):
    """Logarithmic beyond a linear band around 0 (linear band: 1 for sweeps across ±10^4, 10^-3 for values in
    (-1, 1) such as log-probabilities); log for positive values spanning decades (probabilities)."""
    if not xs.size:
        return
    if xs.min() > 0 and xs.max() / xs.min() > 100:
        ax.set_xscale("log")
    elif np.abs(xs).max() > 20:
        ax.set_xscale("symlog", linthresh=1)
    elif xs.min() < 0 and xs.max() <= 0 and xs.min() < -20 * max(-xs.max(), 1e-30):
        ax.set_xscale("symlog", linthresh=1e-3)


def _note(ax, text: str):
    ax.set_axis_off()
    ax.text(0.5, 0.5, textwrap.fill(text, 60), ha="center", va="center", fontsize=7, transform=ax.transAxes,
            wrap=True)


def plot_accuracy(ops: dict, backends: list[str], points: int, out: Path, log=print, dtypes=DTYPES) -> dict:
    """{op key: the PNG written, or the reason no figure could be drawn}: per op one figure, a row per
    measured part × case, a panel per dtype; a row whose gradient depends on no input says so in its place."""
    plt = _pyplot()
    result = {}
    wanted = dtypes
    for name, op in ops.items():
        rows = rows_of(op, backends)
        drawable = [r for r in rows if r.swept is not None]
        if not drawable:
            result[name] = rows[0].why if rows else "no verification case"
            log(f"  {name}: no figure: {result[name]}")
            continue
        dtypes = [d for d in wanted if any(d in dts for dts in op.dtypes.values())]
        fig, axes = plt.subplots(len(rows), len(dtypes), figsize=(3.4 * len(dtypes), 2.6 * len(rows)),
                                 squeeze=False, layout="constrained")
        for i, row in enumerate(rows):
            for j, dtype in enumerate(dtypes):
                ax = axes[i][j]
                if row.swept is None:
                    _note(ax, f"{dtype}; {row.title}: {row.why}" if j == 0 else "")
                    continue
                if not any(dtype in dts for dts in row.op.dtypes.values()):
                    _note(ax, f"{dtype}: not in this part's dtype table")
                    continue
                held, xs, errors = sweep(row.op, row.case, dtype, backends, points, kernels=row.kernels,
                                         swept=row.swept)
                for series, e in errors.items():
                    worst = e.max() if e.size else 0
                    ax.plot(xs, e, ls="none", label=f"{series} (max {'∞' if np.isinf(worst) else int(worst)})",
                            **STYLE.get(series, {}))
                _xscale(ax, xs)
                finite = [e[np.isfinite(e)].max() for e in errors.values() if np.isfinite(e).any()]
                ax.set_yscale("symlog", linthresh=1)
                ax.set_ylim(-0.3, max([4.0] + [3 * f for f in finite]))
                ax.grid(True, alpha=0.3)
                ax.set_title(f"{dtype}; {row.title}", fontsize=7)
                ax.set_xlabel(held)
                if j == 0:
                    ax.set_ylabel("error (ulp)")
                ax.legend(loc="upper left")
                log(f"  {name} {dtype} [{row.part or ''}{' ' if row.part else ''}{row.case.label}]: {len(xs)} "
                    f"inputs, " + ", ".join(f"{s} max {e.max() if e.size else 0:g}" for s, e in errors.items()))
        fig.suptitle(f"{op.name}: error against the exact result, per input")
        result[name] = _save(fig, out / f"accuracy-{name}.png", colors=64)
        plt.close(fig)
    return result


def accuracy_gallery(ops: dict, results: dict, out: Path) -> str:
    """The Markdown the Accuracy page includes: every op's figure (this run's, or one already in `out`), or why it
    has none, in the order of specs/."""
    lines = []
    for name, op in ops.items():
        lines += [f"### {op.name.removeprefix('aclnn')}", ""]
        got = results.get(name)
        png = out / f"accuracy-{name}.png"
        if got is None and not png.is_file():   # not drawn in this run: is there anything to draw?
            rows = rows_of(op, [])
            got = rows[0].why if rows and all(r.swept is None for r in rows) else None
        if isinstance(got, str):
            lines.append(f"No figure: {got}.")
        elif isinstance(got, Path) or png.is_file():
            lines.append(f"![{op.name.removeprefix('aclnn')}](/_static/plots/accuracy-{name}.png)")
        else:
            lines.append(f"No figure yet: run `python -m codegen.plots --only accuracy {name}`.")
        lines.append("")
    return "\n".join(lines)


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
    parser.add_argument("--tables-only", action="store_true",
                        help="accuracy: only the table and the figure gallery, from the report and the figures "
                             "already in --out (no sweeps)")
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
        every = ops
        ops = {k: v for k, v in ops.items() if not args.ops or k in args.ops}
        results = {} if args.tables_only else plot_accuracy(ops, args.backend or have, args.points, out,
                                                             log=lambda m: print(m, file=sys.stderr),
                                                             dtypes=args.dtype or DTYPES)
        written += [p for p in results.values() if isinstance(p, Path)]
        tables.mkdir(parents=True, exist_ok=True)
        written.append(tables / "accuracy-table.md")
        written[-1].write_text(accuracy_table(json.loads(path.read_text())))
        written.append(tables / "accuracy-figures.md")
        written[-1].write_text(accuracy_gallery(every, results, out))
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
