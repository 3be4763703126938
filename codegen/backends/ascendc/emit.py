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

from codegen.lower import lower
from codegen.spec import Op
from codegen.spec.params import Attr, Scalar
from codegen.template_util import preamble, render
from codegen.text import condition_code

from . import tiling as T
from .lowering import ScalarPrinter
from .op_host import op_host_context
from .plan import CPP_TYPE, Plan, VariantPlan, combos, plan, tiling_key
from .socs import ARCHS, archs_of, kernel_socs

TEMPLATES = Path(__file__).parent / "templates"


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
        lines.append(f"tiling.{name} = {name};")
    return lines


def render_kernel(p: Plan, source: str, forget_tail=False) -> str:
    op = p.op
    keys = []
    socs = kernel_socs(op)
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
                  tiling_type=p.tiling_type, round_modes=_round_modes(op), flush_tail=_flush_tail(op),
                  forget_tail=forget_tail, variants=variants, keys=keys, out=op.output.name,
                  all_tensors=[t.name for t in op.tensors])


def _round_modes(op: Op) -> list[str]:
    """C++ of `NarrowingRound<T>()`: the RoundMode of the float -> T Cast, per architecture (socs.py)."""
    lines = ["template <typename T>", "__aicore__ constexpr RoundMode NarrowingRound()", "{"]
    archs = archs_of(op.dtypes)
    for i, a in enumerate(archs):
        if len(archs) > 1:
            lines.append(f"#{'if' if i == 0 else 'elif'} __CCE_AICORE__ == {a.aicore}  // {a.name}")
        bf16 = a.cast_round.get("BFLOAT16")
        if bf16:
            lines.append(f"    return IsSameType<T, half>::value ? RoundMode::{a.cast_round['FLOAT16']} "
                         f": RoundMode::{bf16};")
        else:
            lines.append(f"    return RoundMode::{a.cast_round['FLOAT16']};  // half: the only narrowing type here")
    if len(archs) > 1:
        lines.append("#endif")
    return lines + ["}"]


def _flush_tail(op: Op) -> str:
    """After scalar writes to GM (the tail without DataCopyPad): flush the data cache line to GM, where the
    architecture has the instruction (DataCacheCleanAndInvalid; none on dav-c100)."""
    return ("#if __CCE_AICORE__ == 200\n"
            "        // scalar stores go through the data cache: flush the (at most two) 64-byte lines of the tail\n"
            "        DataCacheCleanAndInvalid<T, CacheLine::SINGLE_CACHE_LINE>(dst[body]);\n"
            "        DataCacheCleanAndInvalid<T, CacheLine::SINGLE_CACHE_LINE>(dst[len - 1]);\n"
            "#endif")


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


def render_kernel_tiling(p: Plan, source: str) -> str:
    return render(TEMPLATES, "kernel_tiling.h.jinja",
                  preamble=preamble("//", source, "kernel_tiling.h.jinja", "ascendc"),
                  op=p.op, tiling_type=p.tiling_type, int_fields=p.int_fields, float_fields=p.float_fields)


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
    return render(TEMPLATES, "op_host.cpp.jinja",
                  preamble=preamble("//", source, "op_host.cpp.jinja", "ascendc"),
                  api_scratch=max(a.api_scratch_bytes for a in ARCHS.values()), **op_host_context(p))


def project_files(op: Op, source: str, forget_tail=False) -> dict[str, str]:
    """{path relative to the op's project folder: text}."""
    p = plan(op)
    n = op.snake_name
    return {
        f"op_host/{n}.cpp": render_op_host(p, source),
        f"op_host/{n}_tiling.h": render_tiling(p, source),
        f"op_kernel/{n}.cpp": render_kernel(p, source, forget_tail),
        f"op_kernel/{n}_tiling.h": render_kernel_tiling(p, source),
        f"sim/{n}_launcher.cpp": render_launcher(p, source),
    }


def generate(ops: dict, source_of) -> dict[str, str]:
    files = {}
    for name, op in ops.items():
        for path, text in project_files(op, source_of(op)).items():
            files[f"ascendc/{name}/{path}"] = text
    return files
