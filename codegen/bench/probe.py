"""The streaming probe: what this machine's memory gives a single thread moving the same bytes as a kernel.

A kernel's GB/s means little alone; next to a loop that reads the same input arrays (same count, sizes and
dtypes, broadcast operands included) and writes one output of the same size, it says how close the kernel
comes to the memory system.  Two probes run, and the faster counts:

* NumPy: `np.add(a, b, out=c)`, then `np.add(c, d, out=c)` for each further input.  With more than two inputs
  it works in chunks that stay in cache, so that re-reading `c` costs no memory traffic and the bytes moved
  stay those of the kernel;
* C: a plain loop compiled with `-O3 -march=native` (cached in build/bench/, called through ctypes) that
  sums the inputs into the output chunk by chunk.

Both really read every input byte: FLOAT inputs are summed as floats, FLOAT16/BFLOAT16 ones as uint16
integers (wrapping) — the probe measures memory, not half-precision arithmetic, and writes uint16 back, so it
moves exactly two bytes per element like the kernel.  A broadcast operand of m elements is read as the
output's row pattern (element i reads index i mod m), a one-element operand once per chunk.  Both probes are
single-threaded, also in the report's all-threads columns.
"""
from __future__ import annotations

import ctypes
import functools
import os

import numpy as np

from codegen.buildcache import cached_build

from . import placement

CC = os.environ.get("CC", "cc")
FLAGS = ["-std=c11", "-O3", "-march=native", "-fPIC", "-shared"]
NUMPY_CHUNK = 1 << 15            # elements; a chunk of the output plus one input stays in L2

MAX_FULL = 8                     # full-size inputs one C call sums in a single fused loop


def _c_function(name: str, t: str) -> str:
    """C source of one probe for element type `t`.  Full-size inputs are summed in one fused loop per chunk
    (one `case` per input count: a loop over inputs inside the element loop would not vectorize, and adding
    them one pass at a time is measurably slower); broadcast rows and one-element inputs are then added to
    the chunk, which is still in L1."""
    cases = "\n".join(
        f"        case {k}: for (int64_t i = 0; i < len; ++i) o[i] = "
        + " + ".join(f"f[{j}][s + i]" for j in range(k)) + "; break;" for k in range(1, MAX_FULL + 1))
    indent = " " * len(f"void {name}(")
    return f"""
/* out[i] = the sum over inputs of input[i mod its size], i < n: full[] have n elements, part[] have
   psize[j] elements (a row repeating along the output, or one element); chunk by chunk. */
void {name}(int nfull, const {t} *const *f, int npart, const {t} *const *part, const int64_t *psize,
{indent}{t} *out, int64_t n)
{{
    for (int64_t s = 0; s < n; s += CHUNK) {{
        const int64_t len = n - s < CHUNK ? n - s : CHUNK;
        {t} *o = out + s;
        switch (nfull) {{
        case 0: for (int64_t i = 0; i < len; ++i) o[i] = 0; break;
{cases}
        }}
        for (int j = 0; j < npart; ++j) {{
            const {t} *a = part[j];
            const int64_t m = psize[j];
            if (m == 1) {{
                const {t} v = a[0];
                for (int64_t i = 0; i < len; ++i) o[i] += v;
                continue;
            }}
            for (int64_t i = 0, off = s % m; i < len; off = 0) {{   /* runs of the repeating row */
                const int64_t run = m - off < len - i ? m - off : len - i;
                for (int64_t r = 0; r < run; ++r) o[i + r] += a[off + r];
                i += run;
            }}
        }}
    }}
}}
"""


C_SOURCE = ("/* opgen bench: the streaming probe (codegen/bench/probe.py). */\n"
            "#include <stdint.h>\n#define CHUNK 4096\n"
            + _c_function("probe_f32", "float") + _c_function("probe_u16", "uint16_t"))


@functools.lru_cache(maxsize=1)
def c_library() -> ctypes.CDLL:
    """The probe library, built once per content (build/bench/)."""
    def command(src, out):
        return [CC, *FLAGS, str(src / "probe.c"), "-o", str(out)]
    path = cached_build("bench", "probe", {"probe.c": C_SOURCE}, CC, FLAGS, command, suffix=".so")
    lib = ctypes.CDLL(str(path))
    for fn in (lib.probe_f32, lib.probe_u16):
        fn.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                       ctypes.c_void_p, ctypes.c_int64]
        fn.restype = None
    return lib


def _units(a: np.ndarray) -> np.ndarray:
    """The array's elements as float32 (4-byte dtypes) or uint16 (2-byte dtypes), flat and contiguous."""
    a = np.ascontiguousarray(a).reshape(-1)
    if a.dtype.itemsize not in (2, 4):
        raise ValueError(f"probe: no probe for {a.dtype}")
    return a.view(np.float32) if a.dtype.itemsize == 4 else a.view(np.uint16)


class Probe:
    """Both probes for one case, prepared once (outside any timed region), then called with no arguments.

    `inputs` are the arrays the kernel reads, `n` the output's element count; every input has n elements,
    one element, or m elements with n a multiple of m (a row broadcast over the output's rows; one such m per
    case).  All inputs and the output share one element size, as in every benchmarked call."""

    def __init__(self, inputs: list[np.ndarray], out_dtype, n: int, offset: int = 0):
        self.n = n
        self.ins = [_units(a) for a in inputs]
        width = np.dtype(out_dtype).itemsize
        if not self.ins or any(a.itemsize != width for a in self.ins):
            raise ValueError("probe: inputs and output must share one element size")
        rows = {a.size for a in self.ins if 1 < a.size < n}
        if len(rows) > 1 or any(n % a.size for a in self.ins):
            raise ValueError(f"probe: inputs of {[a.size for a in self.ins]} elements do not tile {n}")
        self.row = rows.pop() if rows else None
        self.out_c = placement.empty(n, self.ins[0].dtype, offset)     # placed like the kernels' outputs
        self.out_np = placement.empty(n, self.ins[0].dtype, offset)
        self._c_call = self._prepare_c()
        self._np_plan = self._prepare_numpy()

    # ---- C -----------------------------------------------------------------------------------------------
    def _prepare_c(self):
        lib = c_library()
        fn = lib.probe_f32 if self.out_c.itemsize == 4 else lib.probe_u16
        full = [a for a in self.ins if a.size == self.n]
        part = [a for a in self.ins if a.size < self.n]
        if len(full) > MAX_FULL:
            raise ValueError(f"probe: more than {MAX_FULL} full-size inputs")
        fp = (ctypes.c_void_p * max(1, len(full)))(*[a.ctypes.data for a in full])
        pp = (ctypes.c_void_p * max(1, len(part)))(*[a.ctypes.data for a in part])
        ps = (ctypes.c_int64 * max(1, len(part)))(*[a.size for a in part])
        nf, np_, out, n = len(full), len(part), self.out_c.ctypes.data, self.n
        return lambda: fn(nf, fp, np_, pp, ps, out, n)

    def c(self) -> np.ndarray:
        self._c_call()
        return self.out_c

    # ---- NumPy -------------------------------------------------------------------------------------------
    def _prepare_numpy(self):
        """[(output chunk, [input views])], every view already shaped so that NumPy broadcasts it: with a
        broadcast row of m elements, the chunk and full inputs are (rows, m) and the row input (1, m)."""
        n, out, m = self.n, self.out_np, self.row
        # two inputs: one np.add over everything; more: chunks a whole number of rows long, kept in cache
        whole = len(self.ins) <= 2
        chunk = n if whole else max(m or 1, NUMPY_CHUNK // (m or 1) * (m or 1))
        shape = (lambda v: v.reshape(-1, m)) if m else (lambda v: v)
        plan = []
        for s in range(0, n, chunk):
            e = min(n, s + chunk)
            views = [shape(a[s:e]) if a.size == n else a if a.size == 1 else a.reshape(1, m) for a in self.ins]
            plan.append((shape(out[s:e]), views))
        return plan

    def numpy(self) -> np.ndarray:
        for o, (first, *rest) in self._np_plan:
            if not rest:
                np.copyto(o, first)
                continue
            np.add(first, rest[0], out=o)
            for a in rest[1:]:
                np.add(o, a, out=o)
        return self.out_np
