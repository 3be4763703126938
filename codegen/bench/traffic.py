"""Bytes moved by one kernel call, and the bandwidth they make.

The count is the *logical* traffic of the call, the least any implementation must move: every input tensor
the kernel reads, once, plus every output (PreluBackward writes two), once, each at its own dtype's size.  A
broadcast operand counts its own elements, not the broadcast shape's (a (1, 1024) gradOutput is 1024 elements
however many rows it meets).
A tensor the op accepts but never reads (LogSigmoid's `buffer`, role UNUSED in the spec) is not counted: the
kernels do not touch it, so counting it would credit them with bandwidth they never used.  Scalars and
attributes are not tensors and move nothing.
"""
from __future__ import annotations

import numpy as np

from codegen.spec import Op

UNUSED = "unused"


def read_tensors(op: Op, kw: dict) -> list[np.ndarray]:
    """The arrays of `kw` (kernel keywords) that the op's kernel reads, in parameter order."""
    out = []
    for p in op.params:
        if p.kind == "output" or getattr(p, "role", None) == UNUSED:
            continue
        v = kw.get(p.py_name)
        if isinstance(v, np.ndarray):
            out.append(v)
    return out


def bytes_moved(inputs, outputs) -> int:
    """Bytes of every input read plus every output written (one array, or a list or tuple of them: an op with
    several outputs), each counted once at its own size."""
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    return sum(int(a.size) * a.dtype.itemsize for a in list(inputs) + outputs)


def gbps(nbytes: int, time_ns: float) -> float:
    """Decimal GB/s (1e9 bytes per second), as memory bandwidth is quoted."""
    return nbytes / time_ns if time_ns > 0 else float("nan")
