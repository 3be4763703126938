"""Timing several callables side by side: warm-up, then round-robin repeats, median per callable.

The machine is shared and noisy, and a ratio is only meaningful when both of its times saw the same machine.
So the contenders of one case (our kernels, the probes, PyTorch) are not timed one after the other but in
passes, each pass calling every contender once; a burst of load then hits all of them alike.  The order is
shuffled from pass to pass (fixed seed: the same orders every run) so that no contender always runs right after
the same neighbour, whose data would still be in cache, or whose threads would still hold a core (PyTorch's
OpenMP workers spin-wait after a parallel region).  A rotation of one fixed order, used before, keeps every
contender's predecessor: with five contenders the C kernel followed PyTorch in four passes of five, and its
all-threads times came out up to 1.5x slower than the same library's timed elsewhere in the order (measured
with `opgen bench --baseline HEAD`).  The median of a contender's passes is its time.

Repeats are adaptive unless fixed: passes continue until at least `min_runs` were made and `budget_s`
seconds have gone by (small sizes get thousands of passes, 2^24 elements a handful), with `max_runs` as a cap.

Every pass's times are kept (`Timing.samples`, in pass order), so that two contenders can also be compared
pass by pass (`paired_range`): a ratio of two times taken in the same pass saw the same machine, and the
spread of those ratios over the passes shows how far a run's noise could move the ratio of the medians.

The all-threads round is timed in blocks instead (`blocked`): a pass gives each contender, in shuffled order, a
block of back-to-back calls, and before each block waits until the process's other threads have stopped
running (settle.py).  Called one after the other, a contender found the previous one's threads still holding
the second CPU: PyTorch's OpenMP workers spin 10-17 ms after each call, and our all-threads call right after
one took 11.8-12.5 ms at 2^24 elements against 8.0 ms without PyTorch in the passes.  Within a block the calls
follow each other as in a user's loop (PyTorch's workers, and ours, still awake from the previous call); the
first call of a block, which wakes them, is not timed (unless a call fills the block alone, 2 ms or more: then
its wake-up, tens of microseconds, is in the time).  Each contender's block is about 2 ms of its own calls.  The blocks still alternate pass by pass, so a burst of
load hits every contender alike.
"""
from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator

from .settle import settle


@dataclass
class Timing:
    median_ns: float
    min_ns: float
    runs: int
    samples: list[int] = field(default_factory=list, repr=False)   # ns per pass (a block's median), in pass order


def paired_range(num: Timing, den: Timing) -> tuple[float, float] | None:
    """(lowest, highest) over the passes of num's time / den's time in the same pass; None without samples."""
    ratios = [a / b for a, b in zip(num.samples, den.samples) if b > 0]
    return (min(ratios), max(ratios)) if ratios else None


@dataclass(frozen=True)
class Policy:
    warmup: int = 2            # untimed calls per contender (first-call costs: page faults, lazy binding)
    min_runs: int = 5
    budget_s: float = 0.2      # per case and thread setting, all contenders together
    max_runs: int = 2000
    fixed: int | None = None   # exactly this many passes (--repeat, --quick)


def interleaved(contenders: dict[str, Callable[[], object]], policy: Policy) -> dict[str, Timing]:
    """{name: Timing} for every contender, timed in round-robin passes of shuffled order."""
    _warm_up(contenders, policy.warmup)
    samples: dict[str, list[int]] = {name: [] for name in contenders}
    clock = time.perf_counter_ns
    for order in _passes(list(contenders), policy):
        for name in order:
            fn = contenders[name]
            t0 = clock()
            fn()
            samples[name].append(clock() - t0)
    return {name: Timing(statistics.median(s), min(s), len(s), s) for name, s in samples.items()}


def _warm_up(contenders: dict[str, Callable[[], object]], calls: int) -> dict[str, int]:
    """Calls each contender `calls` times (first-call costs: page faults, lazy binding); {name: its fastest call
    in ns}, for the contenders called at least once."""
    clock, fastest = time.perf_counter_ns, {}
    for name, fn in contenders.items():
        for _ in range(calls):
            t0 = clock()
            fn()
            ns = max(1, clock() - t0)
            fastest[name] = min(fastest.get(name, ns), ns)
    return fastest


def _passes(names: list[str], policy: Policy) -> Iterator[list[str]]:
    """Each pass's order of the contenders (shuffled, seeded: runs repeat), until the round has run its passes."""
    clock = time.perf_counter_ns
    start, passes = clock(), 0
    order, rng = list(names), random.Random(0)
    while True:
        rng.shuffle(order)
        yield order
        passes += 1
        if _enough(policy, passes, clock() - start):
            return


def _enough(policy: Policy, passes: int, elapsed_ns: int) -> bool:
    """Whether a round has run its passes: `fixed` of them, else `max_runs`, or `min_runs` once the budget is spent."""
    if policy.fixed is not None:
        return passes >= policy.fixed
    return passes >= policy.max_runs or (passes >= policy.min_runs and elapsed_ns >= policy.budget_s * 1e9)


BLOCK_NS = 2_000_000   # a block's length: ~2 ms of the contender's calls, so a pass (five blocks and PyTorch's
BLOCK_MAX = 256        # ~10 ms spin) stays short against the round's budget and the passes still alternate


def blocked(contenders: dict[str, Callable[[], object]], policy: Policy) -> dict[str, Timing]:
    """{name: Timing} for every contender, timed in passes of one block of its calls each (shuffled order), every
    block started once the process's other threads have stopped running (settle.settle).  A block is ~BLOCK_NS of
    the contender's own calls (counted from its fastest warm-up call, cut short where they have slowed down
    since), after one untimed call unless a call fills the block alone; a pass's sample is the median of the
    block, so `samples` pairs the contenders pass by pass as `interleaved` does.  The median is over every timed
    call."""
    names = list(contenders)
    clock = time.perf_counter_ns
    fastest = _warm_up(contenders, max(1, policy.warmup))
    block = {name: max(1, min(BLOCK_MAX, BLOCK_NS // ns)) for name, ns in fastest.items()}
    lead = {name: ns < BLOCK_NS for name, ns in fastest.items()}
    calls: dict[str, list[int]] = {name: [] for name in names}
    samples: dict[str, list[int]] = {name: [] for name in names}
    for order in _passes(names, policy):
        for name in order:
            fn, times = contenders[name], []
            settle()
            if lead[name]:
                fn()                 # wakes the contender's threads, as the first call of a loop does: untimed
            begin = clock()
            while len(times) < block[name]:
                t0 = clock()
                fn()
                times.append(clock() - t0)
                if clock() - begin >= BLOCK_NS:
                    break            # calls slower than at the warm-up (a loaded machine): the block stays ~2 ms
            calls[name] += times
            samples[name].append(statistics.median_low(times))
    return {name: Timing(statistics.median(calls[name]), min(calls[name]), len(calls[name]), samples[name])
            for name in names}
