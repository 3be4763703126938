"""`opgen bench`: how fast the generated kernels are, against the memory system and against PyTorch.

    cases.py          op × layout × dtype × size, and each call's inputs (plain NumPy random data)
    placement.py      every array on a cache line, or a fixed number of bytes past one (--offset)
    outputs.py        the arrays a call writes: one, or a tuple for several outputs (PReLU's gradInput, gradWeight)
    traffic.py        bytes moved by a call (inputs read + outputs written, each once) and GB/s
    timing.py         warm-up, interleaved round-robin passes, medians
    probe.py          the streaming probe: NumPy and a compiled C loop moving the same bytes
    torch_kernels.py  PyTorch's CPU kernels for the same calls, with preallocated outputs
    threads.py        one thread or all: $OPGEN_NUM_THREADS and torch.set_num_threads
    command_times.py  how long `opgen generate` and `opgen verify` take (the report's header)
    runner.py         per case: every contender timed side by side, at one thread and at all; peak extra memory
    calls.py          a call's overhead at 2^10 elements: compiled entry point, ctypes path, PyTorch
    ceiling.py        a C kernel's time with its operands in the cache: how much of the probe its arithmetic allows
    baseline.py       --baseline REV: another revision's C libraries, built by its own generator, as contenders
    targets.py        issue 35's targets judged on the run's own rows: met, or missed by how much (and the ceiling)
    report.py         Markdown (with the README's summary table), JSON, and stdout rows

`opgen bench` (codegen/cli.py) drives it.  No timing is ever asserted: the numbers are for people.
"""
from . import calls, placement
from .cases import DEFAULT_SIZES, QUICK_SIZES, Case, select
from .runner import Record, run

BACKENDS = ("numpy", "c")          # the CPU backends; the Ascend C simulator's speed means nothing

__all__ = ["BACKENDS", "calls", "placement", "DEFAULT_SIZES", "QUICK_SIZES", "Case", "Record", "run", "select"]
