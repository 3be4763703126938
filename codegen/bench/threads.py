"""Thread settings of one measurement round: one thread, or every core.

The C backend reads $OPGEN_NUM_THREADS at each call's phase 1, so setting it in this process (os.environ
calls putenv, which the library's getenv sees) switches the next call; PyTorch has its own intra-op pool,
set with torch.set_num_threads.  NumPy kernels and the probes are single-threaded whatever is set here.
Both settings are restored afterwards: the benchmark must leave the process as it found it.
"""
from __future__ import annotations

import contextlib
import os

ENV = "OPGEN_NUM_THREADS"


def all_threads() -> int:
    return os.cpu_count() or 1


@contextlib.contextmanager
def threads(n: int, torch=None):
    old_env = os.environ.get(ENV)
    old_torch = torch.get_num_threads() if torch is not None else None
    os.environ[ENV] = str(n)
    if torch is not None:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        if old_env is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = old_env
        if torch is not None:
            torch.set_num_threads(old_torch)
