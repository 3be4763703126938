"""The tiling function, written once: a pure function of (element count, row length, cores, UB bytes, dtype sizes).

It is a short program of named unsigned-integer steps (`Step`), built from a few operators.  The same program
is *evaluated* here in Python (`evaluate`: `opgen tiling`, the UB budget test) and *printed* as C++ (`cpp_lines`)
into the generated `op_host/<op>_tiling.h`, whose `ComputeTiling` both the generated op_host `TilingFunc` and the
simulator launcher call.  So the tiling chosen for a run is the tiling the report shows, by construction.

The op-specific inputs are constants read off the kernel layout (`KernelLayout`, from the lowering): how many
tensors are loaded, how many float temporaries and bit masks one tile needs, whether rows are reduced.

`ubSize` is the UB the kernel's own buffers may fill: the product's UB less the API's scratch at TMP_UB_OFFSET
(codegen.backends.ascendc.socs.tiling_ub).  Cores own whole 64-byte cache lines of the output
(`blockAlign`), so two cores never write one line with scalar stores.

Layout of one core's UB (every buffer a multiple of 32 bytes because tiles are multiples of 256 elements):
    NUM_IN input queues × BUFFER_NUM × tile × inBytes        (VECIN, double buffered)
    1 output queue × BUFFER_NUM × tile × outBytes              (VECOUT, double buffered)
    floatSlots × tile × 4                                      (VECCALC: temporaries, casts of 16-bit operands)
    NUM_MASKS × tile / 2                                       (VECCALC: Compare masks, 32 bytes per 256-byte
                                                               repeat so Select mode 0 can take them one repeat
                                                               at a time on dav-c100; packed elsewhere)
    row ops: a ReduceSum work buffer (tile / 64 floats) and one 32-byte result per row sum
"""
from __future__ import annotations

import math
from dataclasses import dataclass

BUFFER_NUM = 2          # double buffering: CopyIn of tile i+1 overlaps Compute of tile i
TILE_ALIGN = 256        # tiles are whole 256-byte Compare blocks of floats, and masks whole 32-byte blocks
BLOCK_BYTES = 32        # DataCopy granule and UB alignment
CACHE_LINE = 64         # GM data-cache line: the unit two cores must not share


# ---- a tiny integer expression language, printable as Python and C++ -------------------------------------
class E:
    """An unsigned integer expression over named inputs and earlier steps."""

    def __add__(self, o): return Op("+", self, lit(o))
    def __radd__(self, o): return Op("+", lit(o), self)
    def __sub__(self, o): return Op("-", self, lit(o))
    def __rsub__(self, o): return Op("-", lit(o), self)
    def __mul__(self, o): return Op("*", self, lit(o))
    def __rmul__(self, o): return Op("*", lit(o), self)
    def __floordiv__(self, o): return Op("/", self, lit(o))
    def __rfloordiv__(self, o): return Op("/", lit(o), self)


@dataclass(frozen=True, eq=False)
class Var(E):
    name: str

    def eval(self, env): return env[self.name]
    def cpp(self): return self.name


@dataclass(frozen=True, eq=False)
class Lit(E):
    value: int

    def eval(self, env): return self.value
    def cpp(self): return str(self.value)


@dataclass(frozen=True, eq=False)
class Op(E):
    op: str            # + - * /  (integer division), min, max, lt (1 when a < b else 0), gcd
    a: E
    b: E

    def eval(self, env):
        x, y = self.a.eval(env), self.b.eval(env)
        if self.op == "/":
            if y == 0:
                raise ZeroDivisionError(f"tiling: division by zero in {self.cpp()}")
            return x // y
        if self.op == "-" and y > x:
            raise ValueError(f"tiling: unsigned underflow in {self.cpp()} ({x} - {y})")
        return {"+": x + y, "-": x - y, "*": x * y, "min": min(x, y), "max": max(x, y), "lt": int(x < y),
                "gcd": math.gcd(x, y)}[self.op]

    def cpp(self):
        if self.op in ("min", "max"):
            return f"std::{self.op}<uint64_t>({self.a.cpp()}, {self.b.cpp()})"
        if self.op == "gcd":   # (std::gcd is C++17; the real op_host build compiles with -std=c++11)
            return f"Gcd({self.a.cpp()}, {self.b.cpp()})"
        if self.op == "lt":
            return f"uint64_t({self.a.cpp()} < {self.b.cpp()})"
        return f"({self.a.cpp()} {self.op} {self.b.cpp()})"


def lit(v) -> E:
    return v if isinstance(v, E) else Lit(int(v))


def Min(a, b): return Op("min", lit(a), lit(b))
def Max(a, b): return Op("max", lit(a), lit(b))
def Lt(a, b): return Op("lt", lit(a), lit(b))
def Gcd(a, b): return Op("gcd", lit(a), lit(b))
def CeilDiv(a, b): return (lit(a) + lit(b) - 1) // lit(b)
def AlignUp(a, b): return CeilDiv(a, b) * lit(b)


@dataclass(frozen=True)
class Step:
    name: str
    expr: E
    field: bool = False     # stored in the tiling struct (read by the kernel)
    doc: str = ""


# ---- the kernel layout the tiling needs ---------------------------------------------------------------------
@dataclass(frozen=True)
class KernelLayout:
    """What one tile of a kernel keeps in UB, from the lowering (the maximum over the op's variants)."""
    num_in: int          # tensors loaded per tile (input queues)
    num_temps: int       # float temporaries of the Compute stage
    num_masks: int       # Compare bit masks
    num_sums: int        # row reductions (DimSum): 0 for elementwise ops

    @property
    def rows(self) -> bool:
        return self.num_sums > 0


INPUTS = ("totalLength", "rowLength", "coreNum", "ubSize", "inBytes", "outBytes")


def program(layout: KernelLayout) -> list[Step]:
    """The tiling steps for one kernel layout, in order.  Fields marked `field` go to the kernel."""
    N, L, C, U = Var("totalLength"), Var("rowLength"), Var("coreNum"), Var("ubSize")
    inB, outB = Var("inBytes"), Var("outBytes")
    k, s, m, r = layout.num_in, layout.num_temps, layout.num_masks, layout.num_sums
    has_reduce = 1 if layout.rows else 0
    steps = [
        Step("castSlots", Lt(inB, 4) * k + Lt(outB, 4), doc="float copies of 16-bit inputs and of the result"),
        Step("floatSlots", Var("castSlots") + s, field=True, doc="float tiles in the VECCALC buffer"),
        Step("bytesPer256",
             (BUFFER_NUM * k * inB + BUFFER_NUM * outB + 4 * Var("floatSlots")) * TILE_ALIGN
             + m * (TILE_ALIGN // 2) + has_reduce * (TILE_ALIGN // 64) * 4,
             doc="UB bytes per 256 elements of tile"),
        Step("fixedBytes", Lit(BLOCK_BYTES * (r + 2 * has_reduce)),
             doc="row sums' 32-byte results and the work buffer's rounding"),
        Step("tileMax", (U - Var("fixedBytes")) // Var("bytesPer256") * TILE_ALIGN,
             doc="the longest tile that fits the UB"),
        Step("blockAlign", CACHE_LINE // Min(inB, outB), doc="elements per 64-byte cache line of the narrowest dtype"),
    ]
    if not layout.rows:
        steps += [
            Step("blockLength", Max(AlignUp(CeilDiv(N, C), Var("blockAlign")), Var("blockAlign")), field=True,
                 doc="elements per core (whole cache lines, so no two cores share one)"),
            Step("usedCores", CeilDiv(N, Var("blockLength")), field=True, doc="blockDim"),
            Step("lastBlockLength", N - (Var("usedCores") - 1) * Var("blockLength"), field=True,
                 doc="elements of the last core (the uneven tail)"),
            Step("tileLength", Min(Var("tileMax"), AlignUp(Var("blockLength"), TILE_ALIGN)), field=True,
                 doc="elements per tile"),
        ]
    else:
        steps += [
            Step("rows", N // L, doc="rows along dim"),
            Step("rowAlign", Var("blockAlign") // Gcd(L, Var("blockAlign")),
                 doc="the fewest rows that fill whole cache lines (1 when a row is whole lines already)"),
            Step("rowsPerCore", AlignUp(CeilDiv(Var("rows"), C), Var("rowAlign")), field=True,
                 doc="rows per core, a multiple of rowAlign: each core's share is whole cache lines"),
            Step("usedCores", CeilDiv(Var("rows"), Var("rowsPerCore")), field=True, doc="blockDim"),
            Step("lastCoreRows", Var("rows") - (Var("usedCores") - 1) * Var("rowsPerCore"), field=True),
            Step("tileLength", Min(Var("tileMax"), AlignUp(L, TILE_ALIGN)), field=True,
                 doc="elements per tile of a row"),
            Step("tilesPerRow", CeilDiv(L, Var("tileLength")), field=True,
                 doc="1: one pass per row; more: a long row, summed in a first pass and scaled in a second"),
        ]
    steps += [
        Step("ubBytes",
             Var("tileLength") * (BUFFER_NUM * k * inB + BUFFER_NUM * outB + 4 * Var("floatSlots"))
             + m * (Var("tileLength") // 2)
             + has_reduce * AlignUp(Var("tileLength") // 64 * 4, BLOCK_BYTES) + BLOCK_BYTES * r,
             field=True, doc="UB bytes the kernel's buffers take (TPipe::InitBuffer total)"),
        Step("bytesPerElement",
             (k * inB * (1 + Lt(1, Var("tilesPerRow"))) if layout.rows else k * inB) + outB,
             doc="GM bytes read and written per element (long rows read their inputs twice)"),
    ]
    return steps


def fields(layout: KernelLayout) -> list[str]:
    return ["totalLength", "rowLength"] + [s.name for s in program(layout) if s.field]


class TilingError(ValueError):
    """The UB of the product cannot hold even one tile."""


def evaluate(layout: KernelLayout, total_length: int, row_length: int, cores: int, ub_bytes: int,
             in_bytes: int, out_bytes: int) -> dict:
    """Run the tiling program; returns every step's value (and the inputs)."""
    env = dict(totalLength=total_length, rowLength=row_length, coreNum=cores, ubSize=ub_bytes, inBytes=in_bytes,
               outBytes=out_bytes)
    for step in program(layout):
        env[step.name] = step.expr.eval(env)
        if step.name == "tileMax" and env["tileMax"] < TILE_ALIGN:
            raise TilingError(f"a {TILE_ALIGN}-element tile needs {env['bytesPer256']} bytes; the UB has {ub_bytes}")
    return env


def cpp_lines(layout: KernelLayout) -> list[str]:
    """The body of the generated C++ ComputeTiling: one `const uint64_t` per step, fields stored."""
    lines = []
    for step in program(layout):
        if step.doc:
            lines.append(f"// {step.doc}")
        lines.append(f"const uint64_t {step.name} = {step.expr.cpp()};")
        if step.name == "tileMax":
            lines.append(f"if (tileMax < {TILE_ALIGN}) return false;  // not even one tile fits the UB")
        if step.field:
            lines.append(f"tiling.{step.name} = static_cast<uint32_t>({step.name});")
    return lines
