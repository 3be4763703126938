"""Issue 35's targets, judged on a run's own rows: what `opgen bench` reports as met or missed, and by how much.

Every C row (op × layout × dtype) at every size the run measured, each ratio from the same interleaved passes:

* at least PyTorch's speed at one thread (our time ≤ PyTorch's CPU kernel's, both with `out=`);
* at least PyTorch's speed at all threads ($OPGEN_NUM_THREADS and torch.set_num_threads at the CPU count);
* no temporary proportional to the tensor: one call holds at most MEMORY_BYTES beyond its arguments and `out=`;
* `opgen generate` (cold, when measured) under 10 s and `opgen verify` (cold) under 30 s.

The streaming probe stays in the tables as context, not as a target (a C kernel can beat it: issue 35), and the
NumPy backend, the readable reference, has no speed target.  Next to each measured ratio (of medians), the lowest
and highest of the same ratio taken pass by pass: when that range straddles the target, the verdict could go
either way on this run's noise, and the table says so.  Next to a one-thread ratio, its ceiling (ceiling.py):
PyTorch's time over the kernel's own time with its operands in the cache, the ratio the kernel's arithmetic
allows at any size; a target above it is missed for the arithmetic, not for memory.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from .runner import Record

MEMORY_BYTES = 256 * 1024        # the C runtime's workspace is a few staging buffers per thread, whatever the size
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
    ceiling: float | None = None     # one thread vs PyTorch: the highest ratio the kernel's in-cache time allows
    goal: float | None = None        # the ratio to reach (None for times and bytes)

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


def _ratio(case: str, target: str, value: float, goal: float, spread: tuple[float, float] | None,
           ceiling: float | None = None) -> Verdict:
    """A ratio that must reach `goal`, with its per-pass range (lowest, highest) when measured."""
    met = value >= goal
    return Verdict(case, target, f"{value:.2f}x", met,
                   "met" if met else f"missed by {100 * (1 - value / goal):.0f}%",
                   "—" if spread is None else f"{spread[0]:.2f}–{spread[1]:.2f}x",
                   spread is not None and spread[0] < goal <= spread[1], ceiling, goal)


def torch_ceiling(r: Record) -> float | None:
    """PyTorch's time over r's kernel time with its operands in the cache (ceiling.py): the most a one-thread
    ratio can reach for r's arithmetic; None when either was not measured."""
    if not r.cache_ns or r.one.torch_ns is None:
        return None
    return r.one.torch_ns / (r.cache_ns * r.n)


def case_name(r: Record) -> str:
    return f"{r.op} · {r.layout} · {r.dtype} · 2^{r.n.bit_length() - 1}"


def rows(records: list[Record]) -> list[Verdict]:
    """The targets of every C row at every size measured."""
    out = []
    for r in records:
        if r.backend != "c":
            continue
        case = case_name(r)
        if r.one.vs_torch is not None:
            out.append(_ratio(case, "PyTorch's speed, one thread", r.one.vs_torch, 1.0, r.one.vs_torch_range,
                              torch_ceiling(r)))
        if r.all is not None and r.all.vs_torch is not None:
            out.append(_ratio(case, "PyTorch's speed, all threads", r.all.vs_torch, 1.0, r.all.vs_torch_range))
        if r.peak_bytes is not None:
            held = r.peak_bytes <= MEMORY_BYTES
            out.append(Verdict(case, f"<= {MEMORY_BYTES // 1024} KiB beyond its arguments",
                               f"{r.peak_bytes / 1024:.0f} KiB", held,
                               "met" if held else f"missed by {(r.peak_bytes - MEMORY_BYTES) / 1024:.0f} KiB"))
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


def judge(records: list[Record], commands: dict) -> list[Verdict]:
    """Every target of the run: the commands' times, then each C row's, size by size."""
    return command_rows(commands) + rows(records)


def table(verdicts: list[Verdict]) -> str:
    """The count of targets met, then a row for each target missed, not measured or whose passes straddle it
    (bench.json has every verdict)."""
    shown = [v for v in verdicts if v.met is not True or v.straddles]
    lines = ["| case | target | measured | passes: lowest–highest | ceiling (in cache) | verdict |",
             "|---|---|---|---|---|---|"]
    lines += ["| " + " | ".join(v.cells()) + " |" for v in shown]
    met = sum(bool(v.met) for v in verdicts)
    straddle = sum(v.straddles for v in verdicts)
    above = sum(v.above_ceiling for v in verdicts)
    return (f"{met} of {len(verdicts)} targets met; the passes of {straddle} straddle their target (their verdict "
            "could go either way on this run's noise); " + f"{above} missed targets lie above their kernel's "
            "ceiling: with its operands in the cache the kernel alone takes longer than PyTorch's whole call, so "
            "its arithmetic, not memory, is what misses them.  The targets not met (missed or not measured) or straddled:\n\n"
            + ("\n".join(lines) if shown else "(none)"))
