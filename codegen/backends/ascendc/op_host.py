"""What `op_host/<op>.cpp` says, read off the spec and prepared for its template: the OpDef, shape and dtype
inference, the TilingFunc.

The kernel's operands become OpDef inputs (the tensors some variant reads, in aclnn order; optional ones
OPTIONAL), plus one output and the attributes (aclScalars as Float, int64 as Int, bool as Bool, and `numel_<t>`
as Int where a formula uses a tensor's element count).  The dtype lists are columns of (input dtype, output dtype)
pairs the kernel is built for (`plan.combos`), one `OpAICoreConfig` per SoC of the spec's table, so each SoC
lists exactly the dtypes the spec gives it.  Shape inference follows the ShapeSame / ShapeIsBroadcast rules.
"""
from __future__ import annotations

from pathlib import Path

from codegen.aclnn.variants import key_condition
from codegen.spec import rules as R
from codegen.spec.params import Attr, Scalar
from codegen.template_util import render

from . import names
from .plan import DTYPE_BYTES, DTYPE_CODE, GE_TYPE, Plan, all_combos, combos, lo_field, lo_params
from .socs import ARCHS, kernel_socs

TEMPLATES = Path(__file__).parent / "templates"


def opdef_params(p: Plan, cols: list[tuple[str, str]]) -> list[dict]:
    """Input and Output declarations for the (input dtype, output dtype) columns `cols`: every input takes the
    input dtype of a column, the output its output dtype."""
    def decl(kind, name, param_type, dts):
        return dict(kind=kind, name=name, param_type=param_type,
                    dtypes="{" + ", ".join(GE_TYPE[d] for d in dts) + "}",
                    formats="{" + ", ".join("ge::FORMAT_ND" for _ in dts) + "}")
    op = p.op
    out = [decl("Input", t, "OPTIONAL" if op.param(t).optional else "REQUIRED", [i for i, _ in cols])
           for t in p.operands]
    return out + [decl("Output", op.output.name, "REQUIRED", [o for _, o in cols])]


def soc_configs(p: Plan) -> list[dict]:
    """One OpAICoreConfig per SoC of the spec's table that has an Ascend C architecture here (socs.kernel_socs)."""
    return [dict(name=soc, var=f"{soc}Config", params=opdef_params(p, combos(p.op, soc))) for soc in kernel_socs(p.op)]


def attrs(op) -> list:
    return [q for q in op.params if isinstance(q, (Scalar, Attr))]


def attr_chain(q) -> str:
    """The OpAttrDef call chain of one attribute: aclScalars are Float attributes (an optional one OPTIONAL with
    its documented default, what a null aclScalar means), other attributes their kind's (double and float as
    Float, as CANN declares them; a string as String)."""
    if isinstance(q, Scalar) and q.optional:
        return f"AttrType(OPTIONAL).Float({float(q.default)!r})"
    return "AttrType(REQUIRED)." + ("Float" if isinstance(q, Scalar) else q.spec_type.opdef) + "()"


def attr_defs(p: Plan) -> list[tuple[str, str]]:
    """(name, the OpAttrDef call chain) of every attribute, element counts as Int, then the lo parts of the scalars
    a pair sum's constants are computed from (plan.lo_params: Float, 0 when not given)."""
    return ([(q.name, attr_chain(q)) for q in attrs(p.op)]
            + [(f"numel_{n}", "AttrType(REQUIRED).Int()") for n in p.numels]
            + [(lo_field(q.name), "AttrType(OPTIONAL).Float(0.0)") for q in lo_params(p.op)])


def host_ctype(q) -> str:
    if isinstance(q, Attr) and q.type == "string":
        return "char"   # read as a C string (GetAttrPointer<char>)
    return "float" if isinstance(q, Scalar) or q.is_real else ("bool" if q.type == "bool" else "int64_t")


def read_line(q, i: int) -> str:
    if isinstance(q, Attr) and q.type == "string":   # a string only chooses the variant
        return f"const char* {q.name} = attrs->GetAttrPointer<char>({i});"
    return f"const {host_ctype(q)} {q.name} = *attrs->GetAttrPointer<{host_ctype(q)}>({i});"


def has_strings(op) -> bool:
    return any(isinstance(q, Attr) and q.type == "string" for q in attrs(op))


def reads(p: Plan) -> list[str]:
    """TilingFunc's reads of the host values FillScalars takes (and of the strings that choose a variant): the
    attributes, element counts included."""
    lines = [read_line(q, i) for i, q in enumerate(attrs(p.op))]
    first = len(lines)
    lines += [f"const uint64_t numel_{n} = static_cast<uint64_t>(*attrs->GetAttrPointer<int64_t>({first + i}));"
              for i, n in enumerate(p.numels)]
    first += len(p.numels)
    lines += [f"const float {lo_field(q.name)} = *attrs->GetAttrPointer<float>({first + i});"
              for i, q in enumerate(lo_params(p.op))]
    return ["const auto* attrs = context->GetAttrs();"] + lines if lines else []


def row_lines(p: Plan) -> list[str]:
    """The row length the tiling splits by: the reduced axis (which the op_api layer moved last), or all."""
    if not p.rows:
        return ['const uint64_t rowLength = totalLength;  // elementwise: one "row"']
    op = p.op
    dim = op.dim_attr.name if op.dim_attr else f"static_cast<int64_t>({op.reduce_dim})"   # or a fixed axis
    return [
        f"// rows along {dim}: the op_api layer moves {dim} last, so the kernel sees contiguous rows",
        "const size_t rank = shape->GetStorageShape().GetDimNum();",
        f"const int64_t axis = {dim} < 0 ? {dim} + static_cast<int64_t>(std::max<size_t>(rank, 1)) : {dim};",
        "const uint64_t rowLength = rank == 0 ? 1 : shape->GetStorageShape().GetDim(axis);",
        "if (rank != 0 && axis + 1 != static_cast<int64_t>(rank)) {",
        "    return ge::GRAPH_FAILED;  // not the last axis: transpose first",
        "}",
    ]


def variant_condition(p: Plan, key: dict) -> str:
    """The C++ condition under which TilingFunc picks the variant of `key` (bool attributes, optional inputs)."""
    index = {t: i for i, t in enumerate(p.operands)}
    return key_condition(p.op, key, "nullptr", present=lambda name: f"context->GetOptionalInputShape({index[name]})",
                         strcmp="std::strcmp") or "true"


def variant_lines(p: Plan) -> list[str]:
    lines = []
    for v in p.variants:
        lines += [f"{'if' if v.index == 0 else '} else if'} ({variant_condition(p, v.kv.key)}) {{  // {v.doc}",
                  f"    variant = {v.index};"]
    return lines + ["}"]


def infer_shape_lines(p: Plan) -> list[str]:
    op = p.op
    index = {t: i for i, t in enumerate(p.operands)}
    out = op.output.name
    if op.output.sum_to:
        return [f"// the broadcast shape, every input's: the op_api layer broadcasts them to it and sums the result "
                f"back to {op.output.sum_to}'s shape",
                "*context->GetOutputShape(0) = *context->GetInputShape(0);"]
    for r in op.rules:
        if isinstance(r, R.ShapeSame) and out in r.params:
            ref = next(n for n in r.params if n != out)
            if ref not in index:   # the kernel does not read it (NLLLoss's self): the op_api layer gave every
                # operand its shape (codegen.spec.classes)
                return [f"// {out} has {ref}'s shape, every operand's (the op_api layer broadcasts them to it)",
                        "*context->GetOutputShape(0) = *context->GetInputShape(0);"]
            return [f"*context->GetOutputShape(0) = *context->GetInputShape({index[ref]});  // {out} has {ref}'s shape"]
        if isinstance(r, R.ShapeIsBroadcast) and r.params[0] == out:
            operands = r.params[1:]   # any number of them (a loss's gradOutput, self, target, weight)
            lines = [f"// {out} has the broadcast shape of {', '.join(operands)} (NumPy rules)",
                     "gert::Shape* y = context->GetOutputShape(0);",
                     f"*y = *context->GetInputShape({index[operands[0]]});"]
            for t in operands[1:]:
                lines += [
                    "{",
                    f"    const gert::Shape* b = context->GetInputShape({index[t]});  // {t}",
                    "    const gert::Shape a = *y;",
                    "    const size_t rank = std::max(a.GetDimNum(), b->GetDimNum());",
                    "    y->SetDimNum(rank);",
                    "    for (size_t i = 0; i < rank; ++i) {",
                    "        const int64_t da = i + a.GetDimNum() < rank ? 1 : a.GetDim(i + a.GetDimNum() - rank);",
                    "        const int64_t db = i + b->GetDimNum() < rank ? 1 : b->GetDim(i + b->GetDimNum() - rank);",
                    "        if (da != db && da != 1 && db != 1) {",
                    "            return ge::GRAPH_FAILED;",
                    "        }",
                    "        y->SetDim(i, da == 1 ? db : da);",
                    "    }",
                    "}"]
            return lines
    raise ValueError(f"{op.name}: no ShapeSame or ShapeIsBroadcast rule fixes the output shape")


def op_host_context(p: Plan) -> dict:
    op = p.op
    files = names.files(op)
    dtype_from = op.output_dtype_sources[0]
    if dtype_from not in p.operands:
        # (BinaryCrossEntropyWithLogitsTarget's gradTarget has target's dtype, but its gradient does not read
        # target.)  The op_api layer casts every kernel input to the one promoted dtype and casts the kernel's
        # result to the output's dtype afterwards, so the kernel's first input names the kernel's output dtype
        dtype_from = p.operands[0]
    return dict(
        op_name=op.name, op_type=names.op_type(op), description=op.description.en,
        std_includes=["algorithm", "cmath"] + (["cstring"] if has_strings(op) else []), host_tiling=Path(files["host_tiling"]).name,
        kernel_tiling=Path(files["kernel_tiling"]).name, tiling_type=p.tiling_type,
        api_scratch=max(a.api_scratch_bytes for a in ARCHS.values()),
        dtype_codes=[(GE_TYPE[d], DTYPE_CODE[d], DTYPE_BYTES[d]) for d in DTYPE_CODE],
        reads=reads(p), row_lines=row_lines(p), variant_lines=variant_lines(p),
        fill_args=", ".join(["variant", "*tiling"] + [q.name for q in attrs(op) if q.symbol is not None]
                            + [f"numel_{n}" for n in p.numels] + [lo_field(q.name) for q in lo_params(op)]),
        infer_shape=infer_shape_lines(p), dtype_from_index=p.operands.index(dtype_from),
        opdef_params=opdef_params(p, all_combos(op)), attr_defs=attr_defs(p), socs=soc_configs(p))


def render_op_host(p: Plan, preamble: str) -> str:
    return render(TEMPLATES, "op_host.cpp.jinja", preamble=preamble, **op_host_context(p))
