"""Issue 7's targets, judged on a run's own rows: what `opgen bench` reports as met or missed, and by how much.

All at one thread and the summary size (2^24 elements when measured), each ratio from the same interleaved
passes:

* C backend: at least 90% of the streaming probe;
* C backend against PyTorch: 3x PyTorch's speed or more where the issue found PyTorch far from the memory
  limit (softmax along the first dim, BCE-with-logits, FLOAT16/BFLOAT16 ELU: `far_from_limit`), at least
  PyTorch's speed everywhere else;
* NumPy backend, elementwise ops (no row sum): within 3x of the probe (>= 1/3 of its GB/s);
* `opgen generate` (cold, when measured) under 10 s and `opgen verify` (cold) under 30 s.

Next to each measured ratio (of medians), the lowest and highest of the same ratio taken pass by pass: when
that range straddles the target, the verdict could go either way on this run's noise, and the table says so.
Next to a C kernel's share of the probe, its ceiling (ceiling.py): the share its time with the operands in the
cache allows; a target above it is missed for the kernel's arithmetic, not for memory.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from . import ceiling
from .runner import Record

PROBE_SHARE = 0.9
NUMPY_SHARE = 1 / 3
AHEAD = 3.0
ROW_OPS = ("softmax_backward",)          # ops with a row sum: the NumPy target is for elementwise ops only
GENERATE_S, VERIFY_S = 10.0, 30.0


@dataclass(frozen=True)
class Verdict:
    """One target judged on one case: a row of the targets table, and an entry of bench.json's "targets"."""
    case: str
    target: str                      # the target, in words
    measured: str                    # the measured value, formatted
    met: bool | None                 # None: not measured
    verdict: str                     # "met", "missed by …" or "not measured"
    passes: str = "—"                # the per-pass range of the ratio, formatted
    straddles: bool = False          # that range holds values on both sides of the target
    ceiling: float | None = None     # C vs the probe: the highest ratio the kernel's in-cache time allows
    goal: float | None = None        # the ratio to reach (None for the commands' times)

    @property
    def above_ceiling(self) -> bool:
        """Missed, with the goal beyond what the kernel's arithmetic allows (ceiling.py)."""
        return self.met is False and self.ceiling is not None and self.ceiling < self.goal

    def cells(self) -> list[str]:
        passes = self.passes + (" (straddles)" if self.straddles else "")
        ceiling = "—" if self.ceiling is None else f"{self.ceiling:.2f}"
        return [self.case, self.target, self.measured, passes,
                ceiling + (" (below the target)" if self.above_ceiling else ""), self.verdict]

    def to_json(self) -> dict:
        return dict(asdict(self), above_ceiling=self.above_ceiling)


def far_from_limit(r: Record) -> bool:
    """The cases where issue 7 measured PyTorch's CPU kernel well below streaming bandwidth."""
    return ((r.op == "softmax_backward" and r.layout.startswith("dim first"))
            or r.op == "binary_cross_entropy_with_logits_backward"
            or (r.op == "elu_backward" and r.dtype in ("FLOAT16", "BFLOAT16")))


def _ratio(case: str, target: str, value: float, goal: float, spread: tuple[float, float] | None,
           unit: str = "", ceiling: float | None = None) -> Verdict:
    """A ratio that must reach `goal`, with its per-pass range (lowest, highest) when measured."""
    met = value >= goal
    return Verdict(case, target, f"{value:.2f}{unit}", met,
                   "met" if met else f"missed by {100 * (1 - value / goal):.0f}%",
                   "—" if spread is None else f"{spread[0]:.2f}–{spread[1]:.2f}{unit}",
                   spread is not None and spread[0] < goal <= spread[1], ceiling, goal)


def probe_ceiling(r: Record) -> float | None:
    """The highest share of the probe r's kernel can reach: the probe's time per element over the kernel's
    with its operands in the cache, at most 1 (ceiling.py); None when not measured, or when the case is small
    enough for the probe itself to run in the cache (--quick)."""
    if not r.cache_ns or r.bytes < ceiling.STREAMING_BYTES:
        return None
    return min(1.0, r.one.probe_ns / r.n / r.cache_ns)


def rows(records: list[Record], n: int) -> list[Verdict]:
    """The targets of every benchmarked row at size n."""
    out = []
    for r in records:
        if r.n != n:
            continue
        case = f"{r.op} · {r.layout} · {r.dtype} · {r.backend}"
        if r.backend == "c":
            out.append(_ratio(case, f">= {PROBE_SHARE:.0%} of the probe", r.one.vs_probe, PROBE_SHARE,
                              r.one.vs_probe_range, ceiling=probe_ceiling(r)))
            if r.one.torch_gbps is not None:
                far = far_from_limit(r)
                what = f"{AHEAD:.0f}x PyTorch (far from the limit)" if far else "PyTorch's speed"
                out.append(_ratio(case, what, r.one.vs_torch, AHEAD if far else 1.0, r.one.vs_torch_range, "x"))
        elif r.backend == "numpy" and r.op not in ROW_OPS:
            out.append(_ratio(case, "within 3x of the probe", r.one.vs_probe, NUMPY_SHARE, r.one.vs_probe_range))
    return out


def command_rows(commands: dict) -> list[Verdict]:
    def one(name, entry, limit):
        s = entry.get("seconds")
        if s is None:
            return Verdict(name, f"< {limit:.0f} s", "—", None, "not measured")
        return Verdict(name, f"< {limit:.0f} s", f"{s:.3g} s", s < limit,
                       "met" if s < limit else f"missed by {s - limit:.3g} s")
    cold = commands.get("generate_cold", {})
    generate = cold if cold.get("seconds") is not None else commands["generate"]   # cold when measured
    if commands.get("quick"):   # --quick rendered only the benchmarked ops: no verdict on every op's time
        generate = {"seconds": None}
    return [one("opgen generate (cold)" if generate is cold else "opgen generate", generate, GENERATE_S),
            one("opgen verify (cold)", commands["verify_cold"], VERIFY_S)]


def judge(records: list[Record], n: int, commands: dict) -> list[Verdict]:
    """Every target of the run: the commands' times, then each row's ratios."""
    return command_rows(commands) + rows(records, n)


def table(verdicts: list[Verdict]) -> str:
    lines = ["| case | target | measured | passes: lowest–highest | ceiling (in cache) | verdict |",
             "|---|---|---|---|---|---|"]
    lines += ["| " + " | ".join(v.cells()) + " |" for v in verdicts]
    met = sum(bool(v.met) for v in verdicts)
    straddle = sum(v.straddles for v in verdicts)
    above = sum(v.above_ceiling for v in verdicts)
    return "\n".join(lines) + (
        f"\n\n{met} of {len(verdicts)} targets met; the passes of {straddle} straddle their target (their verdict "
        f"could go either way on this run's noise); {above} missed targets lie above their kernel's ceiling: with "
        "its operands in the cache the kernel alone takes longer than the target allows (below the target), so its "
        "arithmetic, not memory, is what misses them.")
