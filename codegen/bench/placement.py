"""Where the bench puts its arrays: on a 64-byte cache line, or a fixed number of bytes past one.

A kernel's speed depends on where its arrays start. The C kernels write softmax's output with non-temporal stores
straight from their loops only when every run starts on a cache line (opgen_loops' runs_on_lines; off the lines,
through a line writer, one copy more), and a vector loop on lines splits fewer loads. NumPy leaves placement to
malloc: on this project's machine arrays start 0, 16 or 48 bytes past a line, varying with the size and from one
array to the next, so a figure measured on NumPy's own arrays would depend on the luck of the allocation. The bench
therefore places every array it allocates (the inputs, each contender's output, the probe's outputs, PyTorch's
outputs) `offset` bytes past a line: by default 0, on the line, as PyTorch (c10 aligns every CPU tensor to 64 bytes)
and the Ascend runtime (aclrtMalloc's first address is 64-byte aligned) hand out buffers; `opgen bench --offset 16`
measures arrays the way NumPy placed its 16M-element ones here.
"""
from __future__ import annotations

import numpy as np

from codegen.runtime.memory import LINE, empty

__all__ = ["LINE", "check_offset", "empty", "place"]

ELEMENT = 4                        # the widest benchmarked element (FLOAT): an offset must keep it aligned


def check_offset(offset: int) -> str | None:
    """Why `offset` cannot place arrays, or None when it can."""
    if not 0 <= offset < LINE or offset % ELEMENT:
        return f"--offset takes a multiple of {ELEMENT} bytes in 0..{LINE - ELEMENT} (got {offset})"
    return None


def place(a: np.ndarray, offset: int = 0) -> np.ndarray:
    """A copy of `a` placed like empty()."""
    out = empty(np.shape(a), a.dtype, offset)
    np.copyto(out, a)
    return out
