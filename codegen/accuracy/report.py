"""The accuracy report: Markdown for people (and the README's table), JSON for tools.  Deterministic: the same
kernels and inputs give the same bytes (no dates, no timings)."""
from __future__ import annotations

import json
from pathlib import Path

from . import known, standards as S
from .runner import UNBOUNDED_REL, Record


def _fmt(v: float) -> str:
    if v != v:
        return "nan"
    if v in (float("inf"), float("-inf")):
        return "∞" if v > 0 else "-∞"
    if v == 0:
        return "0"
    return f"{v:.3g}"


def _documented_overflows(records) -> list[str]:
    """The kernels whose overflows codegen.accuracy.known.OVERFLOWS documents, each with its reason and whether this
    run still found one (an entry that finds none is to be removed once `--full` finds none either)."""
    seen, out = {}, []
    for r, _ in rows(records):
        why = known.overflow_reason(r.op_name, r.dtype, r.backend)
        if why is not None:
            seen.setdefault((r.op_name, r.dtype, why), []).append(r.n_overflow)
    for (name, dtype, why), counts in seen.items():
        state = f"{sum(counts)} in this run" if sum(counts) else \
            "none in this run: remove the entry from codegen/accuracy/known.py if `--full` finds none either"
        out.append(f"- **{name} {dtype}** ({state}): {why}")
    return ["## Documented overflows", ""] + out + [""] if out else []


def _documented_unbounded(records) -> list[str]:
    """The kernels whose elements without a bound codegen.accuracy.known.UNBOUNDED documents, with the reason and
    how many this run found beyond their standard."""
    seen = {}
    for r, _ in rows(records):
        why = known.unbounded_reason(r.op_name, r.dtype)
        if why is not None:
            seen.setdefault((r.op_name, r.dtype, why), []).append(r.n_unbounded_off)
    out = [f"- **{name} {dtype}** ({sum(n)} in this run" + ("" if sum(n) else ": remove the entry from "
           "codegen/accuracy/known.py if `--full` finds none either") + f"): {why}"
           for (name, dtype, why), n in seen.items()]
    return ["## Documented elements without a bound", ""] + out + [""] if out else []


def _ulp(v: float) -> str:
    return "∞" if v == float("inf") else f"{int(v)}"


def first_failure(rec: Record) -> str:
    """One line a failing record's FAILED message shows: the first failing element (its group, case, inputs, the
    kernel's value and the exact one), or the element with the largest ulp error when only a standard failed, so a
    newcomer sees the input without opening the report."""
    listed = [*rec.failures, *rec.beyond,
              *(e for e in (*rec.overflows, *rec.unbounded_off) if e not in rec.documented)]
    e = listed[0] if listed else rec.worst
    if e is None:
        return ""
    if isinstance(e, str):
        return e
    return (f"{e.group} [{e.case}]: {e.inputs}: kernel {_fmt(e.got)}, exact {_fmt(e.reference)}"
            + ("" if listed else " (largest ulp error)"))


def verdict(rec: Record) -> str:
    if rec.passed:
        return "pass"
    return "FAIL (known)" if known.reason(rec.op_name, rec.dtype) else "FAIL"


def rows(records: list[Record]) -> list[tuple[Record, list[str]]]:
    """Records grouped by op × dtype × backend; products with identical results share a row."""
    out: dict = {}
    for r in records:
        d = r.to_json()
        d.pop("product")
        key = (r.op, r.dtype, r.backend, json.dumps(d, sort_keys=True, default=str))
        out.setdefault(key, (r, []))[1].append(r.product)
    return list(out.values())


def summary_table(records: list[Record]) -> str:
    head = ("| op | dtype | backend | products | elements (std / all) | MARE | MERE | max ulp | dual | single "
            "| PyTorch: max ulp, dual, single | goal | verdict |")
    lines = [head, "|" + "---|" * 13]
    for r, products in rows(records):
        goal_met, goal_what = r.goal
        goal = "n/a" if goal_met is None else ("met" if goal_met else "missed")
        t = r.torch
        lines.append(
            f"| {r.op} | {r.dtype} | {r.backend} | {', '.join(products)} | {r.errors.n} / {r.errors_all.n} "
            f"| {_fmt(r.errors.max_rel)} | {_fmt(r.errors.mean_rel)} | {_ulp(r.errors_all.max_ulp)} "
            f"| {'pass' if r.dual else 'FAIL'} | {'pass' if r.single else 'FAIL'} | {_torch(r)} "
            f"| {goal} ({goal_what}) | {verdict(r)} |")
    return "\n".join(lines)


def _torch(r: Record) -> str:
    if r.torch is None:
        return "—"
    ts = r.torch_std or S.Errors.empty()
    ok = lambda b: "pass" if b else "FAIL"
    return f"{_ulp(r.torch.max_ulp)}, {ok(S.dual_ok(ts, r.dtype))}, {ok(S.single_ok(ts, r.dtype))}"


def _examples(title, exs) -> list[str]:
    if not exs:
        return []
    out = [f"{title}:", ""]
    out.append("| group | case | inputs | kernel | reference | PyTorch |")
    out.append("|---|---|---|---|---|---|")
    for e in exs:
        if isinstance(e, str):
            out.append(f"| {e} | | | | | |")
            continue
        out.append(f"| {e.group} | {e.case} | {e.inputs} | {_fmt(e.got)} | {_fmt(e.reference)} "
                   f"| {'—' if e.torch is None else _fmt(e.torch)} |")
    return out + [""]


def markdown(records: list[Record], meta: dict) -> str:
    out = ["# Accuracy of the generated kernels", "",
           f"Generated by `{meta['command']}` ({meta['mode']} input sets; backends: {', '.join(meta['backends'])}; "
           f"PyTorch: {meta['torch'] or 'not installed'}). Do not edit: rerun the command.", "",
           "Reference: the spec's forward differentiated by SymPy and evaluated in mpmath (40–1280 digits, until "
           "two precisions agree), rounded once to the output dtype; softmax and BCE as whole VJPs. "
           "**std** elements are the representative groups (typical values and layouts) on which the Ascend "
           "standards of ascend.md §6 are judged; **all** adds the edge groups (branch points, large, tiny, "
           "special gradOutput/operands), whose max ulp error is shown and held to the goal. Elements with a "
           "nan/±inf input or result are judged as special values (below). Relative error is "
           "|got − ref| / max(|ref|, smallest normal); results below the normal range count in ulps only.", "",
           f"Standards: dual — at most {S.DUAL['FLOAT16'][1]:.1%} (FLOAT16), {S.DUAL['FLOAT'][1]:.2%} (FLOAT), "
           f"{S.DUAL['BFLOAT16'][1]:.1%} (BFLOAT16) of elements above a relative error of 1e-3 / 1e-4 / 4e-3; "
           "single — MERE below 2^-10 / 2^-13 / 2^-7 and MARE below 10× that. Goal (issue): elementwise "
           "FLOAT16/BFLOAT16 within 1 ulp; FLOAT max ulp no worse than PyTorch's; softmax and BCE (coupled "
           "ops) MERE below the threshold / 8.", "",
           "## Summary", "", summary_table(records), ""]
    by_op: dict = {}
    for r, products in rows(records):
        by_op.setdefault(r.op, []).append((r, products))
    out += ["## Special values and differences", ""]
    for op, items in by_op.items():
        out += [f"### {op}", ""]
        for r, products in items:
            out.append(f"- {r.dtype} / {r.backend} ({', '.join(products)}): {r.special} special elements, "
                       f"{r.special_ok} as the limit, {r.n_documented} documented differences, "
                       f"{r.n_failures} failures, PyTorch differs from the reference on {r.n_torch_differs}"
                       + (f"; {r.unresolved} elements without a reference (no forward output, or not settled)" if r.unresolved else "")
                       + (f"; {r.n_overflow} overflows (±inf where the exact result and PyTorch's are finite)"
                          if r.n_overflow else "")
                       + (f"; {r.unbounded} elements without a bound (the formula leaves FLOAT or decides a branch "
                          f"within rounding), {r.n_unbounded_off} beyond a relative error of "
                          f"{_fmt(UNBOUNDED_REL[r.dtype])}, worst {_fmt(r.unbounded_max_rel)} "
                          f"({_ulp(r.unbounded_max_ulp)} ulp) at {r.unbounded_worst.group}, "
                          f"{r.unbounded_worst.inputs}: kernel {_fmt(r.unbounded_worst.got)}, reference "
                          f"{_fmt(r.unbounded_worst.reference)}" if r.unbounded else "")
                       + (f"; worst element ({_ulp(_worst(r))} ulp): {r.worst.group}, {r.worst.inputs}: "
                          f"kernel {_fmt(r.worst.got)}, reference {_fmt(r.worst.reference)}"
                          + (f", PyTorch {_fmt(r.worst.torch)}" if r.worst.torch is not None else "")
                          if r.worst else ""))
        out.append("")
        r0 = items[0][0]
        out += _examples("Failures", [e for r, _ in items for e in r.failures][:12])
        out += _examples("Documented differences (kernel ≠ reference: a nan input, or ∞·0 in FLOAT)",
                         r0.documented)
        out += _examples("Where PyTorch differs from the reference on special values", r0.torch_differs)
        out += _examples("Overflows (finite inputs; the exact result and PyTorch's are finite, the kernel's ±inf: an "
                         "intermediate left FLOAT's range)", [e for r, _ in items for e in r.overflows][:12])
        out += _examples("Elements without a bound beyond the standard of their own (a relative error above the "
                         "dual threshold; finite inputs, result and kernel)",
                         [e for r, _ in items for e in r.unbounded_off][:12])
    out += _documented_overflows(records)
    out += _documented_unbounded(records)
    k = [(r, known.reason(r.op_name, r.dtype)) for r, _ in rows(records) if known.reason(r.op_name, r.dtype)]
    if k:
        out += ["## Known failures", ""]
        seen = set()
        for r, why in k:
            if (r.op, r.dtype) in seen:
                continue
            seen.add((r.op, r.dtype))
            state = "fails in this run" if not r.passed else \
                "passes in this run: remove the entry from codegen/accuracy/known.py if `--full` passes too"
            out.append(f"- **{r.op} {r.dtype}** ({state}): {why}")
        out.append("")
    return "\n".join(out)


def _worst(r: Record) -> float:
    from .runner import _worst_ulp
    from .dtypes import FORMATS
    return _worst_ulp(r, FORMATS[r.dtype])


def write(records: list[Record], out_dir, meta: dict) -> tuple[Path, Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    md = out / "accuracy.md"
    js = out / "accuracy.json"
    md.write_text(markdown(records, meta) + "\n", encoding="utf-8")
    js.write_text(json.dumps({"meta": meta, "records": [r.to_json() for r in records]}, indent=1,
                             sort_keys=True, default=str) + "\n", encoding="utf-8")
    return md, js
