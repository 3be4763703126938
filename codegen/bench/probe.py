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
    """C source of one probe for element type `t`.  Full-size inputs of `t`'s width are summed in one fused loop
    per chunk (one `case` per input count: a loop over inputs inside the element loop would not vectorize, and
    adding them one pass at a time is measurably slower); the other inputs (broadcast rows, one-element inputs,
    and inputs of another width, full-size or not: a BOOL mask, an INT64 target) are then added to the chunk,
    which is still in L1, each read as unsigned integers of its own width.  Extra outputs of n elements get a
    copy of the chunk; smaller ones (a reduced output) the output's first elements once at the end."""
    cases = "\n".join(
        f"        case {k}: for (int64_t i = 0; i < len; ++i) o[i] = "
        + " + ".join(f"f[{j}][s + i]" for j in range(k)) + "; break;" for k in range(1, MAX_FULL + 1))
    indent = " " * len(f"void {name}(")
    add = "\n".join(f"            case {w}: ADD_PART({ty}); break;" for w, ty in
                     ((1, "uint8_t"), (2, "uint16_t"), (4, "uint32_t"), (8, "uint64_t")))
    return f"""
/* out[i] = the sum over inputs of input[i mod its size], i < n: full[] have n elements of {t}, part[] have
   psize[j] elements of pwidth[j] bytes (a row repeating along the output, one element, or another width);
   chunk by chunk.  extra[j] (osize[j] elements) receives out's first osize[j] elements. */
void {name}(int nfull, const {t} *const *f, int npart, const void *const *part, const int64_t *psize,
{indent}const int *pwidth, {t} *out, int64_t n, int nextra, {t} *const *extra, const int64_t *osize)
{{
    for (int64_t s = 0; s < n; s += CHUNK) {{
        const int64_t len = n - s < CHUNK ? n - s : CHUNK;
        {t} *o = out + s;
        switch (nfull) {{
        case 0: for (int64_t i = 0; i < len; ++i) o[i] = 0; break;
{cases}
        }}
        for (int j = 0; j < npart; ++j) {{
            const int64_t m = psize[j];
#define ADD_PART(IT) do {{ \\
                const IT *a = (const IT *)part[j]; \\
                if (m == 1) {{ const {t} v = ({t})a[0]; for (int64_t i = 0; i < len; ++i) o[i] += v; break; }} \\
                for (int64_t i = 0, off = s % m; i < len; off = 0) {{   /* runs of the repeating row */ \\
                    const int64_t run = m - off < len - i ? m - off : len - i; \\
                    for (int64_t r = 0; r < run; ++r) o[i + r] += ({t})a[off + r]; \\
                    i += run; \\
                }} }} while (0)
            if (pwidth[j] == (int)sizeof({t})) {{ ADD_PART({t}); continue; }}
            switch (pwidth[j]) {{
{add}
            }}
#undef ADD_PART
        }}
        for (int j = 0; j < nextra; ++j)
            if (osize[j] == n)
                for (int64_t i = 0; i < len; ++i) extra[j][s + i] = o[i];
    }}
    for (int j = 0; j < nextra; ++j)
        if (osize[j] < n)
            for (int64_t i = 0; i < osize[j]; ++i) extra[j][i] = out[i];
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
                       ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int, ctypes.c_void_p,
                       ctypes.c_void_p]
        fn.restype = None
    return lib


_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _units(a: np.ndarray, width: int) -> np.ndarray:
    """The array's elements flat and contiguous: as float32 (4-byte outputs) or uint16 (2-byte ones) when they
    have the output's width, else as unsigned integers of their own width (a BOOL mask, an INT64 target)."""
    a = np.ascontiguousarray(a).reshape(-1)
    if a.dtype.itemsize not in _UNSIGNED:
        raise ValueError(f"probe: no probe for {a.dtype}")
    if a.dtype.itemsize == width:
        return a.view(np.float32) if width == 4 else a.view(np.uint16)
    return a.view(_UNSIGNED[a.dtype.itemsize])


class Probe:
    """Both probes for one case, prepared once (outside any timed region), then called with no arguments.

    `inputs` are the arrays the kernel reads, `n` the output's element count; every input has n elements, or
    m elements with n a multiple of m (a row broadcast over the output's rows, a per-channel or per-sample
    tensor, one element).  The output has 4 or 2 bytes per element; inputs of its width are summed as it is,
    others (1, 2, 4 or 8 bytes) as unsigned integers.  `extra`: the element counts of further outputs (an op
    with several: PReLU's gradWeight), each written too, n elements chunk by chunk, fewer once."""

    def __init__(self, inputs: list[np.ndarray], out_dtype, n: int, offset: int = 0, extra=()):
        self.n = n
        width = np.dtype(out_dtype).itemsize
        if width not in (2, 4):
            raise ValueError(f"probe: no probe writes {np.dtype(out_dtype)}")
        self.ins = [_units(a, width) for a in inputs]
        if not any(a.itemsize == width for a in self.ins):
            raise ValueError("probe: no input has the output's element size")
        if any(n % a.size for a in self.ins) or any(k > n or (k < n and k and n % k) for k in extra):
            raise ValueError(f"probe: inputs of {[a.size for a in self.ins]} elements do not tile {n}")
        unit = np.float32 if width == 4 else np.uint16
        self.out_c = placement.empty(n, unit, offset)     # placed like the kernels' outputs
        self.out_np = placement.empty(n, unit, offset)
        self.extra_c = [placement.empty(k, unit, offset) for k in extra]
        self.extra_np = [placement.empty(k, unit, offset) for k in extra]
        self._c_call = self._prepare_c()
        self._np_plan = self._prepare_numpy()

    def _full(self, a) -> bool:
        """Summed in the fused loop: n elements of the output's type."""
        return a.size == self.n and a.dtype == self.out_c.dtype

    # ---- C -----------------------------------------------------------------------------------------------
    def _prepare_c(self):
        lib = c_library()
        fn = lib.probe_f32 if self.out_c.itemsize == 4 else lib.probe_u16
        full = [a for a in self.ins if self._full(a)]
        part = [a for a in self.ins if not self._full(a)]
        if len(full) > MAX_FULL:
            raise ValueError(f"probe: more than {MAX_FULL} full-size inputs")
        fp = (ctypes.c_void_p * max(1, len(full)))(*[a.ctypes.data for a in full])
        pp = (ctypes.c_void_p * max(1, len(part)))(*[a.ctypes.data for a in part])
        ps = (ctypes.c_int64 * max(1, len(part)))(*[a.size for a in part])
        pw = (ctypes.c_int * max(1, len(part)))(*[a.itemsize for a in part])
        ne = len(self.extra_c)
        ep = (ctypes.c_void_p * max(1, ne))(*[a.ctypes.data for a in self.extra_c])
        es = (ctypes.c_int64 * max(1, ne))(*[a.size for a in self.extra_c])
        nf, np_, out, n = len(full), len(part), self.out_c.ctypes.data, self.n
        return lambda: fn(nf, fp, np_, pp, ps, pw, out, n, ne, ep, es)

    def c(self) -> np.ndarray:
        self._c_call()
        return self.out_c

    # ---- NumPy -------------------------------------------------------------------------------------------
    def _prepare_numpy(self):
        """[(output chunk, [(view, how)])]: with one or two inputs one pass over everything, with more chunks a
        whole number of every repeating input's length long, kept in cache; a repeating input of m elements is
        added to the chunk seen as (rows, m)."""
        n, out = self.n, self.out_np
        periods = [a.size for a in self.ins if a.size < n]
        step = int(np.lcm.reduce(periods)) if periods else 1
        whole = len(self.ins) <= 2
        chunk = n if whole else max(step, NUMPY_CHUNK // step * step)
        plan = []
        for s in range(0, n, chunk):
            e = min(n, s + chunk)
            views = [a[s:e] if a.size == n else a if a.size == 1 else a.reshape(1, -1) for a in self.ins]
            plan.append((out[s:e], views))
        return plan

    def numpy(self) -> np.ndarray:
        for o, views in self._np_plan:
            same = [a for a in views if a.dtype == o.dtype and np.ndim(a) == 1 and a.size == o.size]
            if len(same) >= 2:
                np.add(same[0], same[1], out=o)
            elif same:
                np.copyto(o, same[0])
            else:
                o[...] = 0
            for a in same[2:]:
                np.add(o, a, out=o)
            for a in views:
                if not any(a is b for b in same):   # a repeating row, one element, another width
                    target = o.reshape(-1, a.shape[1]) if np.ndim(a) == 2 else o
                    np.add(target, a, out=target, casting="unsafe")
            for x in self.extra_np:
                if x.size == self.n:
                    at = (o.ctypes.data - self.out_np.ctypes.data) // o.itemsize
                    np.copyto(x[at:at + o.size], o)
        for x in self.extra_np:
            if x.size < self.n:
                np.copyto(x, self.out_np[:x.size])
        return self.out_np
