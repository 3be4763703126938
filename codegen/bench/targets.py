"""Issue 7's targets, judged on a run's own rows: what `opgen bench` reports as met or missed, and by how much.

All at one thread and the summary size (2^24 elements when measured), each ratio from the same interleaved
passes:

* C backend: at least 90% of the streaming probe;
* C backend against PyTorch: 3x PyTorch's speed or more where the issue found PyTorch far from the memory
  limit (softmax along the first dim, BCE-with-logits, FLOAT16/BFLOAT16 ELU: `far_from_limit`), at least
  PyTorch's speed everywhere else;
* NumPy backend, elementwise ops (no row sum): within 3x of the probe (>= 1/3 of its GB/s);
* `opgen generate` under 10 s and `opgen verify` (cold) under 30 s.

Next to each measured ratio (of medians), the lowest and highest of the same ratio taken pass by pass: when
that range straddles the target, the verdict could go either way on this run's noise, and the table says so.
"""
from __future__ import annotations

from .runner import Record

PROBE_SHARE = 0.9
NUMPY_SHARE = 1 / 3
AHEAD = 3.0
ROW_OPS = ("softmax_backward",)          # ops with a row sum: the NumPy target is for elementwise ops only
GENERATE_S, VERIFY_S = 10.0, 30.0


def far_from_limit(r: Record) -> bool:
    """The cases where issue 7 measured PyTorch's CPU kernel well below streaming bandwidth."""
    return ((r.op == "softmax_backward" and r.layout.startswith("dim first"))
            or r.op == "binary_cross_entropy_with_logits_backward"
            or (r.op == "elu_backward" and r.dtype in ("FLOAT16", "BFLOAT16")))


def _verdict(value: float | None, goal: float) -> str:
    if value is None:
        return "not measured"
    if value >= goal:
        return "met"
    return f"missed by {100 * (1 - value / goal):.0f}%"


def _passes(spread: tuple[float, float] | None, goal: float, unit: str = "") -> str:
    """The per-pass range of a ratio, flagged when it straddles the goal."""
    if spread is None:
        return "—"
    lo, hi = spread
    return f"{lo:.2f}–{hi:.2f}{unit}" + (" (straddles)" if lo < goal <= hi else "")


def rows(records: list[Record], n: int) -> list[list[str]]:
    """[case, target, measured, per-pass range, verdict] per benchmarked row at size n."""
    out = []
    for r in records:
        if r.n != n:
            continue
        case = f"{r.op} · {r.layout} · {r.dtype} · {r.backend}"
        if r.backend == "c":
            out.append([case, f">= {PROBE_SHARE:.0%} of the probe", f"{r.one.vs_probe:.2f}",
                        _passes(r.one.vs_probe_range, PROBE_SHARE), _verdict(r.one.vs_probe, PROBE_SHARE)])
            if r.one.torch_gbps is not None:
                far = far_from_limit(r)
                goal = AHEAD if far else 1.0
                what = f"{AHEAD:.0f}x PyTorch (far from the limit)" if far else "PyTorch's speed"
                out.append([case, what, f"{r.one.vs_torch:.2f}x", _passes(r.one.vs_torch_range, goal, "x"),
                            _verdict(r.one.vs_torch, goal)])
        elif r.backend == "numpy" and r.op not in ROW_OPS:
            out.append([case, "within 3x of the probe", f"{r.one.vs_probe:.2f}",
                        _passes(r.one.vs_probe_range, NUMPY_SHARE), _verdict(r.one.vs_probe, NUMPY_SHARE)])
    return out


def command_rows(commands: dict) -> list[list[str]]:
    def one(name, entry, limit):
        s = entry.get("seconds")
        return [name, f"< {limit:.0f} s", "—" if s is None else f"{s:.3g} s", "—",
                "not measured" if s is None else ("met" if s < limit else f"missed by {s - limit:.3g} s")]
    return [one("opgen generate", commands["generate"], GENERATE_S),
            one("opgen verify (cold)", commands["verify_cold"], VERIFY_S)]


def table(records: list[Record], n: int, commands: dict) -> str:
    body = command_rows(commands) + rows(records, n)
    lines = ["| case | target | measured | passes: lowest–highest | verdict |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(r) + " |" for r in body]
    met = sum(r[4] == "met" for r in body)
    straddle = sum(r[3].endswith("(straddles)") for r in body)
    return "\n".join(lines) + (f"\n\n{met} of {len(body)} targets met; the passes of {straddle} straddle their "
                               "target (their verdict could go either way on this run's noise).")
