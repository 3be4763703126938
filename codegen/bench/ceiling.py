"""The compute ceiling of a C kernel: its time per element when its operands are already in the cache.

A kernel at 0.6 of the streaming probe waits either on memory or on its own arithmetic.  Timed on the same case
at a size whose operands fit in the cache, the kernel shows what its arithmetic costs with memory out of the way;
the probe's time per element over that is the largest share of the probe the kernel could reach at any size, its
*ceiling* (capped at 1); PyTorch's time over it, the highest ratio to PyTorch the arithmetic allows.  A target
above the ceiling is missed for the arithmetic, not for memory: the targets table (targets.py) shows the ceiling
next to each C row's one-thread ratio to PyTorch.

Only the kernel is timed: phase 1 runs once, on a repeatable executor (aclSetAclOpExecutorRepeatable), and phase 2
runs again and again on the same operands (`Library.prepared`), so neither Python's argument handling nor the
checks are in the time.  CACHE_BYTES moved per call keeps the operands in the last-level cache and the call long
enough (0.05-0.2 ms) that phase 2's own cost of ~1-2 µs per call stays a percent or two; an L2-sized call would be
mostly that cost.  Softmax along dim 0 is measured only where the cache-sized call keeps MIN_COLUMNS columns:
its vector loops run across the columns, and with rows of 1024 or 32768 a cache-sized call has too few of them
to do the same work per element as the full-size one.
"""
from __future__ import annotations

from contextlib import ExitStack
from dataclasses import replace

from codegen.runtime.calls import NUMPY_DTYPES, KernelCall

from . import outputs
from .cases import Case
from .timing import Policy, interleaved

CACHE_BYTES = 2 << 20            # bytes moved per call: in the last-level cache (32 MiB and more), far from DRAM
MIN_COLUMNS = 256
STREAMING_BYTES = 64 << 20       # cases moving fewer bytes may run from the cache too: no ceiling for them


def cache_size(case: Case, bytes_per_element: float) -> int | None:
    """The largest 2^k elements that move at most CACHE_BYTES (whatever case.n is), if that size keeps the
    layout's shape and work per element (see the module's docstring); else None."""
    n = 1
    while 2 * n * bytes_per_element <= CACHE_BYTES:
        n *= 2
    lay = case.layout
    if n % lay.divisor or (lay.columnwise and n // lay.divisor < MIN_COLUMNS):
        return None
    return n


def ns_per_element(case: Case, op, libraries: dict, bytes_per_element: float, policy: Policy,
                   seed: int = 0, offset: int = 0) -> dict[str, float] | None:
    """{label: median ns per element} of each library's kernel on the cache-sized version of `case`, timed in
    interleaved passes on the same operands (`libraries`: {label: codegen.backends.c.binding.Library}, e.g.
    today's and a --baseline revision's); None when the case has no cache size."""
    n = cache_size(case, bytes_per_element)
    if n is None:
        return None
    small = replace(case, n=n)
    kw = small.inputs(seed, offset)
    with ExitStack() as stack:
        runs = {}
        for label, library in libraries.items():
            out = outputs.allocate(op, kw, NUMPY_DTYPES[small.dtype], offset)
            call = KernelCall(op, dict(kw, out=None))
            runs[label] = stack.enter_context(library.prepared(call.args, outputs.by_name(op, out), call.product))
        times = interleaved(runs, policy)
    return {label: t.median_ns / n for label, t in times.items()}


def policy(quick: bool) -> Policy:
    return Policy(warmup=1, fixed=5) if quick else Policy(warmup=3, min_runs=20, budget_s=0.1)
