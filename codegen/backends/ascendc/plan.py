"""The plan of one op's Ascend C kernel, from the spec and `codegen.lower.lower(op)`: its variants, each lowered
to vector instructions for every architecture the op runs on (codegen.backends.ascendc.lowering), and the UB
layout the tiling sizes (codegen.backends.ascendc.tiling).  The renderers (emit.py, op_host.py) and the Python
binding read this plan; nothing here renders a file.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy

from codegen.lower import Kernel, KernelVariant, lower, prelude_in_double, wide_constants, wide_reductions
from codegen.runtime.calls import out_dtype_free
from codegen.spec import KERNEL_DTYPES, Op

from . import tiling as T
from .lowering import Lowered, Lowering
from .socs import ARCHS, SOC_ARCH, Arch, archs_of, kernel_socs

CPP_TYPE = {"FLOAT": "float", "FLOAT16": "half", "BFLOAT16": "bfloat16_t"}
GE_TYPE = {"FLOAT": "ge::DT_FLOAT", "FLOAT16": "ge::DT_FLOAT16", "BFLOAT16": "ge::DT_BF16"}
DTYPE_CODE = {"FLOAT": 0, "FLOAT16": 1, "BFLOAT16": 2}
DTYPE_BYTES = {"FLOAT": 4, "FLOAT16": 2, "BFLOAT16": 2}
# __CCE_AICORE__ of each product's architecture (A2 and A3 share dav-c220), from socs.py
ARCH = {soc: ARCHS[name].aicore for soc, name in SOC_ARCH.items()}


# ---- what the spec says about dtypes ----------------------------------------------------------------------
def combos(op: Op, soc: str) -> list[tuple[str, str]]:
    """(input dtype, output dtype) pairs the kernel is built for on `soc`: every input one dtype (aclnn promotes
    mixed inputs first), the output any dtype the table allows when the rules let it differ."""
    # (the AI Core kernel reads and writes FLOAT16, BFLOAT16 and FLOAT; the host layer casts other dtypes, and the
    # ones an op computes in DOUBLE go to the AI CPU: codegen/backends/ascendc/binding.py)
    ins = [d for d in op.dtypes.get(soc, []) if d in KERNEL_DTYPES]
    outs = [d for d in op.dtypes_of(op.output.name).get(soc, []) if d in KERNEL_DTYPES]
    pairs = [(i, o) for i in ins for o in outs] if out_dtype_free(op) else [(i, i) for i in ins if i in outs]
    if op.output.sum_to:
        # level 2 sums the kernel's result in FLOAT and casts the sum to the output's dtype (the library's ReduceSum
        # then Cast): every input dtype needs an instance writing FLOAT, even where the output's dtype is tied to an
        # input's (KlDivTargetBackward's gradTarget: FLOAT16 terms summed would round twice and overflow early)
        pairs += [(i, "FLOAT") for i in ins if (i, "FLOAT") not in pairs]
    return pairs


def all_combos(op: Op) -> list[tuple[str, str]]:
    """(input dtype, output dtype) of every kernel instance, over the SoCs of the spec that have an Ascend C
    architecture here (socs.kernel_socs), in first-seen order."""
    seen = []
    for soc in kernel_socs(op):
        seen += [c for c in combos(op, soc) if c not in seen]
    return seen


def tiling_key(variant: int, din: str, dout: str) -> int:
    return (variant + 1) * 100 + 10 * DTYPE_CODE[din] + DTYPE_CODE[dout]


def camel(suffix: str) -> str:
    return "".join(w.capitalize() for w in suffix.replace("__", "_").split("_"))


# ---- one kernel variant, lowered ------------------------------------------------------------------------
@dataclass
class Pass:
    name: str            # kernel method
    doc: str
    extra_param: str     # ", float* sums" ...
    lowered: dict        # {architecture name: Lowered}: the instructions each architecture's API has
    writes: bool         # produces an output tile
    sums: bool           # uses the ReduceSum buffers
    local_sums: bool     # declares its own `float sums[]`

    @property
    def lines(self) -> list[str]:
        """The Compute statements: shared by every architecture, or one `#if __CCE_AICORE__` block each."""
        bodies = {tuple(low.lines) for low in self.lowered.values()}
        if len(bodies) == 1:
            return list(bodies.pop())
        out = []
        for i, (name, low) in enumerate(self.lowered.items()):
            aicore = ARCHS[name].aicore
            out.append(f"#{'if' if i == 0 else 'elif'} __CCE_AICORE__ == {aicore}  // {name}")
            out += low.lines
        out.append("#endif")
        return out

    @property
    def num_temps(self): return max(low.num_temps for low in self.lowered.values())

    @property
    def num_masks(self): return max(low.num_masks for low in self.lowered.values())


@dataclass
class VariantPlan:
    index: int
    kv: KernelVariant
    cls: str
    suffix: str          # C++ identifier fragment ("" for a single variant)
    doc: str
    tensors: list[str]   # C++ names of the tensors loaded (aclnn names)
    scalars: list[str]   # tiling float fields the kernel reads
    passes: list[Pass]
    layout: T.KernelLayout

    @property
    def num_temps(self): return self.layout.num_temps

    @property
    def num_masks(self): return self.layout.num_masks

    @property
    def num_sums(self): return self.layout.num_sums


def _scalar_names(kv: KernelVariant) -> dict:
    names = {p.symbol: p.name + "_" for p in kv.scalars}
    names.update({s: f"{s}_" for s, _ in kv.prelude})
    names.update({s: f"sums[{i}]" for i, (s, _) in enumerate(kv.reductions)})
    return names


# ---- what the pairs of a sum computed wide read unrounded (codegen.lower.wide_constants, wide_reductions) --------
def lo_field(name: str) -> str:
    """The tiling field (and host value) of a constant's lo part: the double's remainder after FLOAT rounding."""
    return f"{name}Lo"


def wide_fields(kv: KernelVariant) -> list[tuple[str, object]]:
    """(tiling field of the FLOAT value, symbol) of the constants the variant's pair sums read with a lo part."""
    names = {p.symbol: p.name for p in kv.scalars}
    return [(names.get(sym, str(sym)), sym) for _, sym in wide_constants(kv)]


def lo_params(op: Op) -> list:
    """The real scalars and attributes a constant of a pair sum is computed from (codegen.lower.wide_constants,
    prelude_in_double): each also reaches the host as `<name>Lo`, the caller's double minus its FLOAT value, so
    that FillScalars computes those constants from the unrounded value (hi + lo holds 48 of its bits)."""
    read = set()
    for kv in lower(op).variants:
        prelude = prelude_in_double(kv)
        for _, sym in wide_constants(kv):
            read |= sympy.sympify(prelude.get(sym, sym)).free_symbols
    return [q for q in op.params if getattr(q, "symbol", None) in read]


def _lo_names(kv: KernelVariant) -> dict:
    """{symbol: C++ name of its lo part} for the pair sums: a constant's tiling member, a row sum's slot past the
    row sums (`sums[len(reductions) + k]`, summed as pairs: Lowering.pair_row_sum)."""
    out = {sym: lo_field(f) + "_" for f, sym in wide_fields(kv)}
    n = len(kv.reductions)
    out.update({s: f"sums[{n + k}]" for k, s in enumerate(wide_reductions(kv))})
    return out


def _scaled_names(kv: KernelVariant) -> dict:
    """{row sum a pair sum reads: C++ names of (sHi, sLo, c)}, its sum scaled by 2^-66 where it left FLOAT's range
    (PairRowSumWide), in `sums` past the lo parts: `sums[len(reductions) + wide + 3k + 0..2]`."""
    n, wide = len(kv.reductions), wide_reductions(kv)
    return {s: tuple(f"sums[{n + len(wide) + 3 * k + j}]" for j in range(3)) for k, s in enumerate(wide)}


def _lowering(kv: KernelVariant, arch: Arch) -> Lowering:
    low = Lowering({t.symbol: t.name for t in kv.tensors}, _scalar_names(kv), last=kv.last, arch=arch,
                   lo=_lo_names(kv), scaled=_scaled_names(kv))
    low.bind(kv.body)
    return low


def _per_arch(archs: list[Arch], build) -> dict:
    """{architecture name: Lowered} of `build(arch)` (a function lowering one pass for one architecture)."""
    return {a.name: build(a) for a in archs}


def kernel_scalars(kv: KernelVariant) -> list[str]:
    """Tiling float fields the kernel of this variant reads: hoisted prelude values and scalars used directly."""
    used = set()
    for e in [kv.result] + [e for _, e in kv.body] + [e for _, e in kv.reductions]:
        used |= e.free_symbols
    out = [p.name for p in kv.scalars if p.symbol in used]
    out += [str(s) for s, _ in kv.prelude if s in used]
    return out + [lo_field(f) for f, _ in wide_fields(kv)]


def plan_variant(op: Op, index: int, kv: KernelVariant) -> VariantPlan:
    rows = bool(kv.reductions)
    archs = archs_of(op.dtypes)
    names = _scalar_names(kv)
    passes = []

    def row_sums(low, first: bool):
        for i, (s, e) in enumerate(kv.reductions):
            if s in low.lo:   # a pair sum reads it: summed as a pair (the row's sums start at 0)
                low.pair_row_sum(e, names[s], low.lo[s], low.scaled[s])
            else:
                low.row_sum(e, f"sum{i}", "work", f"{names[s]} {'=' if first else '+='} {{sum}};")

    def compute(arch):
        low = _lowering(kv, arch)
        row_sums(low, True)
        low.result(kv.result, "res")
        return low.finish()

    def sum_tile(arch):
        low = _lowering(kv, arch)
        row_sums(low, False)
        return low.finish()

    if not rows:
        passes.append(Pass("Compute", "one tile: the formula, elementwise", "", _per_arch(archs, compute), True,
                           False, False))
    else:
        passes.append(Pass("ComputeRow", "a whole row in one tile: its sums, then the formula", "",
                           _per_arch(archs, compute), True, True, True))
        passes.append(Pass("SumTile", "a long row, first pass: add this tile to the row sums", ", float* sums",
                           _per_arch(archs, sum_tile), False, True, False))

        def body(arch):
            low = _lowering(kv, arch)
            low.result(kv.result, "res")
            return low.finish()
        passes.append(Pass("ComputeTile", "a long row, second pass: the formula with the finished row sums",
                           ", const float* sums", _per_arch(archs, body), True, False, False))
    layout = T.KernelLayout(num_in=len(kv.tensors), num_temps=max(p.num_temps for p in passes),
                            num_masks=max(p.num_masks for p in passes), num_sums=len(kv.reductions))
    suffix = camel(kv.suffix) if kv.suffix else ""
    doc = f"variant {', '.join(f'{k}={v}' for k, v in kv.key.items())}" if kv.key else "the only variant"
    return VariantPlan(index, kv, f"Kernel{op.api_name}{suffix}", suffix, doc, [t.name for t in kv.tensors],
                       kernel_scalars(kv), passes, layout)


@dataclass
class Plan:
    """Everything the templates and the Python binding need to know about one op's kernel."""
    op: Op
    kernel: Kernel
    variants: list[VariantPlan]
    rows: bool
    api_op: Op | None = None   # a split, class-index or several-output op's own (the aclnn API, level 2); `op` is its kernel op

    @property
    def api(self) -> Op:
        """The op of the aclnn API: the spec's (for a split op, `op` is its kernel op, codegen.spec.split)."""
        return self.api_op or self.op

    @property
    def tiling_type(self) -> str:
        return f"{self.op.api_name}TilingData"

    @property
    def int_fields(self) -> list[str]:
        return T.fields(self.variants[0].layout)

    @property
    def operands(self) -> list[str]:
        """The tensors some variant reads, in the op's parameter order: the kernel's (and the OpDef's) inputs.
        A tensor no variant reads (LogSigmoid's `buffer`) is not an input of the kernel."""
        read = {t for v in self.variants for t in v.tensors}
        return [t.name for t in self.op.tensors if t.name in read]

    @property
    def numels(self) -> list[str]:
        """Tensors whose element count a formula uses: `numel_<tensor>`, an Int attribute of the OpDef that the
        op_api layer sets from the caller's tensor (before any broadcast)."""
        return sorted({n for v in self.variants for n in v.kv.numels})

    @property
    def float_fields(self) -> list[str]:
        out = []
        for v in self.variants:
            out += [s for s in v.scalars if s not in out]
        return out

    def variant_index(self, key: dict) -> int:
        for v in self.variants:
            if v.kv.key == key:
                return v.index
        raise KeyError(key)


def plan(op: Op) -> Plan:
    if op.per_output:   # one kernel with a variant per output, launched once per output (opapi.py, binding.py)
        from codegen.spec.outputs import kernel_op
        p = plan(kernel_op(op))
        p.api_op = op
        return p
    if op.split is not None:   # one kernel with a variant per half, launched once per half (opapi.py, binding.py)
        from codegen.spec.split import kernel_op
        p = plan(kernel_op(op))
        p.api_op = op
        return p
    if op.classes is not None:   # the grid op's kernel (codegen.spec.classes), in FLOAT: level 2 lays out the views
        from codegen.spec.classes import kernel_grid_op
        p = plan(kernel_grid_op(op))
        p.api_op = op
        return p
    k = lower(op)
    variants = [plan_variant(op, i, kv) for i, kv in enumerate(k.variants)]
    modes = {v.layout.rows for v in variants}
    if len(modes) != 1:
        raise NotImplementedError(f"{op.name}: variants with and without row sums")
    return Plan(op, k, variants, modes.pop())


