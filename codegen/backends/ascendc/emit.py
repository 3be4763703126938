"""The Ascend C backend's emitter: one CANN custom-op project per op, from the spec and `codegen.lower.lower(op)`.

    ascendc/<op>/op_host/<op>.cpp          OpDef (inputs, attrs, dtype/format lists per SoC), InferShape, TilingFunc
    ascendc/<op>/op_host/<op>_tiling.h     tiling struct and the tiling function (codegen/backends/ascendc/tiling.py)
    ascendc/<op>/op_kernel/<op>.cpp        the kernel: one class per variant, TQue double buffering, lowered Compute
    ascendc/<op>/sim/<op>_launcher.cpp     the simulator launcher (not part of a CANN project)

Everything op-specific comes from the spec: parameters, dtype × product table, rules (shape inference, which
output dtype may differ), variants; the Compute stages come from codegen.backends.ascendc.lowering.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import sympy

from codegen.lower import Kernel, KernelVariant, lower
from codegen.spec import ABSENT, KERNEL_DTYPES, Op
from codegen.runtime.calls import out_dtype_free
from codegen.spec.functions import numel_param
from codegen.spec.params import Attr, Output, Scalar, Tensor, UNUSED
from codegen.template_util import preamble, render
from codegen.text import condition_code

from . import tiling as T
from .lowering import Lowered, Lowering, ScalarPrinter

TEMPLATES = Path(__file__).parent / "templates"

CPP_TYPE = {"FLOAT": "float", "FLOAT16": "half", "BFLOAT16": "bfloat16_t"}
GE_TYPE = {"FLOAT": "ge::DT_FLOAT", "FLOAT16": "ge::DT_FLOAT16", "BFLOAT16": "ge::DT_BF16"}
DTYPE_CODE = {"FLOAT": 0, "FLOAT16": 1, "BFLOAT16": 2}
DTYPE_BYTES = {"FLOAT": 4, "FLOAT16": 2, "BFLOAT16": 2}
# __CCE_AICORE__ of each product's architecture (A2 and A3 share dav-c220)
ARCH = {"ascend910": 100, "ascend310p": 200, "ascend910b": 220, "ascend910_93": 220}


# ---- what the spec says about dtypes ----------------------------------------------------------------------
def combos(op: Op, soc: str) -> list[tuple[str, str]]:
    """(input dtype, output dtype) pairs the kernel is built for on `soc`: every input one dtype (aclnn promotes
    mixed inputs first), the output any dtype the table allows when the rules let it differ."""
    # (the AI Core kernel reads and writes FLOAT16, BFLOAT16 and FLOAT; the host layer casts other dtypes, and the
    # ones an op computes in DOUBLE go to the AI CPU: codegen/backends/ascendc/binding.py)
    ins = [d for d in op.dtypes.get(soc, []) if d in KERNEL_DTYPES]
    outs = [d for d in op.dtypes_of(op.output.name).get(soc, []) if d in KERNEL_DTYPES]
    if out_dtype_free(op):
        return [(i, o) for i in ins for o in outs]
    return [(i, i) for i in ins if i in outs]


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
    lowered: Lowered
    writes: bool         # produces an output tile
    sums: bool           # uses the ReduceSum buffers
    local_sums: bool     # declares its own `float sums[]`

    @property
    def lines(self): return self.lowered.lines

    @property
    def num_temps(self): return self.lowered.num_temps

    @property
    def num_masks(self): return self.lowered.num_masks


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


def _lowering(kv: KernelVariant) -> Lowering:
    low = Lowering({t.symbol: t.name for t in kv.tensors}, _scalar_names(kv), last=kv.last)
    low.bind(kv.body)
    return low


def kernel_scalars(kv: KernelVariant) -> list[str]:
    """Tiling float fields the kernel of this variant reads: hoisted prelude values and scalars used directly."""
    used = set()
    for e in [kv.result] + [e for _, e in kv.body] + [e for _, e in kv.reductions]:
        used |= e.free_symbols
    out = [p.name for p in kv.scalars if p.symbol in used]
    out += [str(s) for s, _ in kv.prelude if s in used]
    return out


def plan_variant(op: Op, index: int, kv: KernelVariant) -> VariantPlan:
    rows = bool(kv.reductions)
    passes = []
    if not rows:
        low = _lowering(kv)
        low.result(kv.result, "res")
        passes.append(Pass("Compute", "one tile: the formula, elementwise", "", low.finish(), True, False, False))
    else:
        names = _scalar_names(kv)
        fused = _lowering(kv)
        for i, (s, e) in enumerate(kv.reductions):
            fused.row_sum(e, f"sum{i}", "work", f"{names[s]} = {{sum}};")
        fused.result(kv.result, "res")
        passes.append(Pass("ComputeRow", "a whole row in one tile: its sums, then the formula", "", fused.finish(),
                           True, True, True))
        sums = _lowering(kv)
        for i, (s, e) in enumerate(kv.reductions):
            sums.row_sum(e, f"sum{i}", "work", f"{names[s]} += {{sum}};")
        passes.append(Pass("SumTile", "a long row, first pass: add this tile to the row sums", ", float* sums",
                           sums.finish(), False, True, False))
        body = _lowering(kv)
        body.result(kv.result, "res")
        passes.append(Pass("ComputeTile", "a long row, second pass: the formula with the finished row sums",
                           ", const float* sums", body.finish(), True, False, False))
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

    @property
    def tiling_type(self) -> str:
        return f"{self.op.api_name}TilingData"

    @property
    def int_fields(self) -> list[str]:
        return T.fields(self.variants[0].layout)

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
    k = lower(op)
    variants = [plan_variant(op, i, kv) for i, kv in enumerate(k.variants)]
    modes = {v.layout.rows for v in variants}
    if len(modes) != 1:
        raise NotImplementedError(f"{op.name}: variants with and without row sums")
    return Plan(op, k, variants, modes.pop())


# ---- templates ------------------------------------------------------------------------------------------
def _documented(op: Op):
    def when_text(when):
        return ("when " + ", ".join(f"{k}={str(v).lower()}" for k, v in when.items()) + ": ") if when else ""
    return [(when_text(f.when), condition_code(f.expr, op)) for f in op.formulas]


def _host_params(op: Op) -> list[tuple[str, str]]:
    """(C++ type, name) of the host values FillScalars takes: scalars, attributes, element counts."""
    out = []
    for p in op.params:
        if isinstance(p, Scalar) or (isinstance(p, Attr) and p.is_real):
            out.append(("float", p.name))     # (a double attribute is a Float attr of the OpDef, as in CANN)
        elif isinstance(p, Attr) and p.type != "string":   # (a string only chooses the variant: TilingFunc)
            out.append(("bool" if p.type == "bool" else "int64_t", p.name))
    numels = sorted({n for kv in lower(op).variants for n in kv.numels})
    out += [("uint64_t", f"numel_{n}") for n in numels]
    return out


def _fill(op: Op, v: VariantPlan) -> list[str]:
    """C++ statements of FillScalars for one variant: the prelude in FLOAT, in order, then the fields set."""
    names = {p.symbol: p.name for p in op.params if p.symbol is not None}
    for n in v.kv.numels:
        names[sympy.Symbol(f"numel_{n}", integer=True, positive=True)] = f"static_cast<float>(numel_{n})"
    lines = []
    for s, e in v.kv.prelude:
        lines.append(f"const float {s} = static_cast<float>({ScalarPrinter(names).doprint(e)});")
        names[s] = str(s)
    for name in v.scalars:
        lines.append(f"tiling.set_{name}({name});")
    return lines


def render_kernel(p: Plan, source: str, forget_tail=False) -> str:
    op = p.op
    keys = []
    socs = list(op.dtypes)
    seen = []
    for soc in socs:
        for c in combos(op, soc):
            if c not in seen:
                seen.append(c)
    for v in p.variants:
        init_args = _init_args(p, v, "tilingData.")
        for din, dout in seen:
            keys.append(dict(key=tiling_key(v.index, din, dout), cls=v.cls, tin=CPP_TYPE[din], tout=CPP_TYPE[dout],
                             bf16="BFLOAT16" in (din, dout), tensors=v.tensors, init_args=init_args,
                             doc=f"{v.doc}; {din} in, {dout} out"))
    variants = []
    for v in p.variants:
        variants.append(dict(cls=v.cls, doc=v.doc, tensors=v.tensors, scalars=v.scalars, passes=v.passes,
                             num_temps=v.num_temps, num_masks=v.num_masks, num_sums=v.num_sums,
                             init_params=_init_params(p, v)))
    return render(TEMPLATES, "op_kernel.cpp.jinja",
                  preamble=preamble("//", source, "op_kernel.cpp.jinja", "ascendc"),
                  op=op, documented=_documented(op), rows=p.rows, buffer_num=T.BUFFER_NUM,
                  forget_tail=forget_tail, variants=variants, keys=keys, out=op.output.name,
                  all_tensors=[t.name for t in op.tensors])


def _kernel_int_fields(p: Plan) -> list[str]:
    if p.rows:
        return ["rowLength", "rowsPerCore", "lastCoreRows", "tileLength", "tilesPerRow", "floatSlots"]
    return ["blockLength", "lastBlockLength", "tileLength", "floatSlots"]


def _init_params(p: Plan, v: VariantPlan) -> list[str]:
    return [f"uint32_t {f}" for f in _kernel_int_fields(p)] + [f"float {s}" for s in v.scalars]


def _init_args(p: Plan, v: VariantPlan, prefix: str) -> list[str]:
    return [prefix + f for f in _kernel_int_fields(p)] + [prefix + s for s in v.scalars]


def render_tiling(p: Plan, source: str) -> str:
    op = p.op
    host = _host_params(op)
    used = set()
    variants = []
    for v in p.variants:
        fill = _fill(op, v)
        used |= {n for _, n in host if any(re.search(rf"\b{n}\b", line) for line in fill)}
        lay = v.layout
        variants.append(dict(
            suffix=v.suffix, doc=v.doc, fill=fill, tiling_lines=T.cpp_lines(lay),
            layout_doc=(f"{lay.num_in} input tile(s), {lay.num_temps} float temporaries, {lay.num_masks} mask(s)"
                        + (f", {lay.num_sums} row sum(s)" if lay.rows else ""))))
    vdoc = "; ".join(f"{v.index} = {v.doc}" for v in p.variants)
    return render(TEMPLATES, "op_tiling.h.jinja",
                  preamble=preamble("//", source, "op_tiling.h.jinja", "ascendc"),
                  op=op, tiling_type=p.tiling_type, int_fields=p.int_fields, float_fields=p.float_fields,
                  variants=variants, variant_doc=vdoc,
                  scalar_params=[f"{t} {n}" for t, n in host],
                  unused_scalar_params=[n for _, n in host if n not in used])


def render_launcher(p: Plan, source: str) -> str:
    op = p.op
    fill_args = []
    for t, n in _host_params(op):
        fill_args.append({"float": f'rq.Float("{n}")', "bool": f'rq.Bool("{n}")',
                          "int64_t": f'rq.Int64("{n}")', "uint64_t": f'rq.Int("{n}")'}[t])
    return render(TEMPLATES, "launcher.cpp.jinja",
                  preamble=preamble("//", source, "launcher.cpp.jinja", "ascendc"),
                  op=op, tiling_type=p.tiling_type, fill_args=fill_args, int_fields=p.int_fields,
                  all_tensors=[t.name for t in op.tensors], out=op.output.name)


def render_op_host(p: Plan, source: str) -> str:
    from .op_host import op_host_context
    return render(TEMPLATES, "op_host.cpp.jinja",
                  preamble=preamble("//", source, "op_host.cpp.jinja", "ascendc"),
                  **op_host_context(p))


def project_files(op: Op, source: str, forget_tail=False) -> dict[str, str]:
    """{path relative to the op's project folder: text}."""
    p = plan(op)
    n = op.snake_name
    return {
        f"op_host/{n}.cpp": render_op_host(p, source),
        f"op_host/{n}_tiling.h": render_tiling(p, source),
        f"op_kernel/{n}.cpp": render_kernel(p, source, forget_tail),
        f"sim/{n}_launcher.cpp": render_launcher(p, source),
    }


def generate(ops: dict, source_of) -> dict[str, str]:
    files = {}
    for name, op in ops.items():
        for path, text in project_files(op, source_of(op)).items():
            files[f"ascendc/{name}/{path}"] = text
    return files
