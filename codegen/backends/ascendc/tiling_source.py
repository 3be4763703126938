"""What the two tiling headers say, prepared for their templates: `op_host/<op>_tiling.h` (ComputeTiling, the
program of codegen/backends/ascendc/tiling.py printed as C++; FillScalars; TilingKey) and
`op_kernel/<op>_tiling.h` (the struct REGISTER_TILING_DEFAULT names).
"""
from __future__ import annotations

import re
from pathlib import Path

import sympy

from codegen.spec import Op
from codegen.spec.params import Attr, Scalar
from codegen.template_util import render

from . import names
from . import tiling as T
from codegen.lower import prelude_in_double

from .lowering import DoubleScalarPrinter, ScalarPrinter
from .plan import DTYPE_CODE, Plan, VariantPlan, lo_field, lo_params, wide_fields

TEMPLATES = Path(__file__).parent / "templates"


def host_params(op: Op) -> list[tuple[str, str]]:
    """(C++ type, name) of the host values FillScalars takes: scalars, attributes, element counts, then the lo
    parts of the scalars a pair sum's constants are computed from (plan.lo_params).  A double attribute is a Float
    attribute of the OpDef, as in CANN; a string only chooses the variant (TilingFunc)."""
    out = []
    for p in op.params:
        if isinstance(p, Scalar) or (isinstance(p, Attr) and p.is_real):
            out.append(("float", p.name))
        elif isinstance(p, Attr) and p.type != "string":
            out.append(("bool" if p.type == "bool" else "int64_t", p.name))
    numels = sorted({n for v in op_variants(op) for n in v.numels})
    return out + [("uint64_t", f"numel_{n}") for n in numels] + [("float", lo_field(q.name)) for q in lo_params(op)]


def op_variants(op: Op):
    from codegen.lower import lower
    return lower(op).variants


def fill_lines(op: Op, v: VariantPlan) -> list[str]:
    """C++ statements of FillScalars for one variant: the prelude in FLOAT, in order, then the fields set."""
    syms = {p.symbol: p.name for p in op.params if p.symbol is not None}
    for n in v.kv.numels:
        syms[sympy.Symbol(f"numel_{n}", integer=True, positive=True)] = f"static_cast<float>(numel_{n})"
    lines = []
    for s, e in v.kv.prelude:
        lines.append(f"const float {s} = static_cast<float>({ScalarPrinter(syms).doprint(e)});")
        syms[s] = str(s)
    return lines + wide_lines(op, v) + [f"tiling.{name} = {name};" for name in v.scalars]


def wide_lines(op: Op, v: VariantPlan) -> list[str]:
    """FillScalars' lo parts of the constants a pair sum reads (plan.wide_fields): each constant computed in double
    from the unrounded scalars (hi + lo from the op_api layer; codegen.lower.prelude_in_double), less its FLOAT
    value, rounded to FLOAT."""
    fields = wide_fields(v.kv)
    if not fields:
        return []
    lows = {q.symbol for q in lo_params(op)}
    syms = {p.symbol: (f"(static_cast<double>({p.name}) + static_cast<double>({lo_field(p.name)}))"
                       if p.symbol in lows else f"static_cast<double>({p.name})")
            for p in op.params if p.symbol is not None}
    syms.update({sympy.Symbol(f"numel_{n}", integer=True, positive=True): f"static_cast<double>(numel_{n})"
                 for n in v.kv.numels})
    prelude = prelude_in_double(v.kv)
    # (a scalar read directly: its lo part is the host's already)
    return [f"const float {lo_field(f)} = static_cast<float>({DoubleScalarPrinter(syms).doprint(prelude.get(sym, sym))}"
            f" - static_cast<double>({f}));" for f, sym in fields if sym not in lows]


def unused_steps(layout: T.KernelLayout) -> list[str]:
    """Steps of the tiling program no field and no later step reads (printed, so `(void)`-ed)."""
    steps = T.program(layout)
    out = []
    for i, s in enumerate(steps):
        later = " ".join(x.expr.cpp() for x in steps[i + 1:])
        if not s.field and s.name != "tileMax" and not re.search(rf"\b{s.name}\b", later):
            out.append(s.name)
    return out


def layout_doc(lay: T.KernelLayout) -> str:
    return (f"{lay.num_in} input tile(s), {lay.num_temps} float temporaries, {lay.num_masks} mask(s)"
            + (f", {lay.num_sums} row sum(s)" if lay.rows else ""))


def variant_context(op: Op, v: VariantPlan) -> dict:
    return dict(index=v.index, doc=v.doc, function=f"ComputeTiling{v.suffix or 'Default'}",
                tiling_lines=T.cpp_lines(v.layout), unused=unused_steps(v.layout), fill=fill_lines(op, v),
                layout_doc=layout_doc(v.layout))


def render_host_tiling(p: Plan, preamble: str) -> str:
    op = p.op
    host = host_params(op)
    variants = [variant_context(op, v) for v in p.variants]
    used = {n for _, n in host if any(re.search(rf"\b{n}\b", line) for v in variants for line in v["fill"])}
    return render(TEMPLATES, "op_tiling.h.jinja", preamble=preamble, op_name=op.name,
                  kernel_tiling=Path(names.files(op)["kernel_tiling"]).name, tiling_type=p.tiling_type,
                  variants=variants, variant_doc="; ".join(f"{v.index} = {v.doc}" for v in p.variants),
                  fill_params=", ".join(["uint32_t variant", f"{p.tiling_type}& tiling"]
                                        + [f"{t} {n}" for t, n in host]),
                  unused_scalar_params=[n for _, n in host if n not in used]
                  + ([] if any(v["fill"] for v in variants) else ["tiling"]),
                  dtype_codes=", ".join(f"{d} {c}" for d, c in DTYPE_CODE.items()))


def render_kernel_tiling(p: Plan, preamble: str) -> str:
    files = names.files(p.op)
    return render(TEMPLATES, "kernel_tiling.h.jinja", preamble=preamble, op_name=p.op.name,
                  kernel=Path(files["kernel"]).name, tiling_type=p.tiling_type,
                  fields=[("uint32_t", f) for f in p.int_fields] + [("float", f) for f in p.float_fields])
