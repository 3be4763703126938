"""Waiting until this process's other threads have stopped running: the pause between two contenders' blocks in
the all-threads round (timing.blocked).

PyTorch's OpenMP workers do not sleep when a parallel region ends: libgomp spins them first (GOMP_SPINCOUNT's
default, some 300,000 polls), 10-17 ms on the 2-vCPU AMD EPYC the bench runs on, measured by reading their
state in /proc.  A call of ours made in that time finds the second CPU taken: our worker started 3.8 ms late
at 2^24 elements right after a PyTorch call, and our all-threads time was 11.8-12.5 ms with PyTorch in the
passes against 8.0 ms without.  So before each block the bench waits for the other threads of the process to
leave the run queue (state R in /proc/self/task/*/stat) — the spinning workers, our pool's, whatever else.
"""
from __future__ import annotations

import os
import threading
import time

POLL_S = 0.0005     # between two looks at the threads' states
LIMIT_S = 0.05      # a thread that keeps running longer is not a spin that will end: stop waiting
BLIND_S = 0.015     # where /proc cannot be read: a fixed pause longer than libgomp's spin measured above


# threads found still running when a wait hit LIMIT_S: they never stop (a busy-polling thread of some library),
# and waiting LIMIT_S before every block for them would multiply the round's time; later waits ignore them
_endless: set[int] = set()


def running_threads() -> set[int] | None:
    """The ids of this process's threads, other than the caller, that are running or runnable; None without /proc."""
    me = threading.get_native_id()
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return None
    out = set()
    for tid in tids:
        if int(tid) == me or int(tid) in _endless:
            continue
        try:
            with open(f"/proc/self/task/{tid}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue                      # the thread ended meanwhile
        # "pid (comm) S ...": comm may hold spaces and parentheses, the state follows the last ")"
        if stat[stat.rindex(b")") + 2:stat.rindex(b")") + 3] == b"R":
            out.add(int(tid))
    return out


def settle(limit_s: float = LIMIT_S) -> float:
    """Wait until no other thread of this process runs (at most `limit_s`; threads still running then are not
    waited for again); the seconds waited."""
    t0 = time.perf_counter()
    busy = running_threads()
    if busy is None:
        time.sleep(BLIND_S)
    while busy and time.perf_counter() - t0 < limit_s:
        time.sleep(POLL_S)
        busy = running_threads()
    if busy:
        _endless.update(busy)
    return time.perf_counter() - t0
