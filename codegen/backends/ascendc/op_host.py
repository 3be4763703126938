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

from codegen.spec import ABSENT
from codegen.spec import rules as R
from codegen.spec.params import Attr, Scalar
from codegen.template_util import render

<<<<<<< HEAD
from .plan import DTYPE_BYTES, DTYPE_CODE, GE_TYPE, Plan, combos
from .socs import kernel_socs
=======
from . import names
from .plan import DTYPE_BYTES, DTYPE_CODE, GE_TYPE, Plan, all_combos, combos
from .socs import ARCHS

TEMPLATES = Path(__file__).parent / "templates"
>>>>>>> main


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


<<<<<<< HEAD
def _union_lists(op) -> dict[str, list[str]]:
    seen = []
    for soc in kernel_socs(op):
        for c in combos(op, soc):
            if c not in seen:
                seen.append(c)
    lists = {t.name: [GE_TYPE[i] for i, _ in seen] for t in op.tensors}
    lists[op.output.name] = [GE_TYPE[o] for _, o in seen]
    return lists
=======
def soc_configs(p: Plan) -> list[dict]:
    """One OpAICoreConfig per SoC of the spec's table."""
    return [dict(name=soc, var=f"{soc}Config", params=opdef_params(p, combos(p.op, soc))) for soc in p.op.dtypes]
>>>>>>> main


def attrs(op) -> list:
    return [q for q in op.params if isinstance(q, (Scalar, Attr))]


def attr_defs(p: Plan) -> list[tuple[str, str]]:
    """(name, the OpAttrDef call chain) of every attribute: aclScalars are Float attributes, element counts Int."""
    return ([(q.name, "AttrType(REQUIRED)." + ("Float" if isinstance(q, Scalar) else
                                                "Bool" if q.type == "bool" else "Int") + "()")
             for q in attrs(p.op)]
            + [(f"numel_{n}", "AttrType(REQUIRED).Int()") for n in p.numels])


def host_ctype(q) -> str:
    return "float" if isinstance(q, Scalar) else ("bool" if q.type == "bool" else "int64_t")


def reads(p: Plan) -> list[str]:
    """TilingFunc's reads of the host values FillScalars takes: the attributes, element counts included."""
    lines = [f"const {host_ctype(q)} {q.name} = *attrs->GetAttrPointer<{host_ctype(q)}>({i});"
             for i, q in enumerate(attrs(p.op))]
    first = len(lines)
    lines += [f"const uint64_t numel_{n} = static_cast<uint64_t>(*attrs->GetAttrPointer<int64_t>({first + i}));"
              for i, n in enumerate(p.numels)]
    return ["const auto* attrs = context->GetAttrs();"] + lines if lines else []


def row_lines(p: Plan) -> list[str]:
    """The row length the tiling splits by: the reduced axis (which the op_api layer moved last), or all."""
    if not p.rows:
        return ['const uint64_t rowLength = totalLength;  // elementwise: one "row"']
    dim = p.op.param(p.op.reduce_dim).name
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
    op = p.op
    index = {t: i for i, t in enumerate(p.operands)}
    conds = []
    for name, value in key.items():
        if isinstance(op.param(name), Attr):
            conds.append(name if value else f"!{name}")
        else:
            conds.append(f"context->GetOptionalInputShape({index[name]}) {'==' if value == ABSENT else '!='} nullptr")
    return " && ".join(conds) or "true"


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
    for r in op.rules:
        if isinstance(r, R.ShapeSame) and out in r.params:
            ref = next(n for n in r.params if n != out)
            return [f"*context->GetOutputShape(0) = *context->GetInputShape({index[ref]});  // {out} has {ref}'s shape"]
        if isinstance(r, R.ShapeIsBroadcast) and r.params[0] == out:
            a, b = r.params[1:3]
            return [
                f"// {out} has the broadcast shape of {a} and {b} (NumPy rules)",
                f"const gert::Shape* a = context->GetInputShape({index[a]});",
                f"const gert::Shape* b = context->GetInputShape({index[b]});",
                "gert::Shape* y = context->GetOutputShape(0);",
                "const size_t rank = std::max(a->GetDimNum(), b->GetDimNum());",
                "y->SetDimNum(rank);",
                "for (size_t i = 0; i < rank; ++i) {",
                "    const int64_t da = i + a->GetDimNum() < rank ? 1 : a->GetDim(i + a->GetDimNum() - rank);",
                "    const int64_t db = i + b->GetDimNum() < rank ? 1 : b->GetDim(i + b->GetDimNum() - rank);",
                "    if (da != db && da != 1 && db != 1) {",
                "        return ge::GRAPH_FAILED;",
                "    }",
                "    y->SetDim(i, da == 1 ? db : da);",
                "}",
            ]
    raise ValueError(f"{op.name}: no ShapeSame or ShapeIsBroadcast rule fixes the output shape")


def op_host_context(p: Plan) -> dict:
    op = p.op
<<<<<<< HEAD
    tensors = op.tensors
    attrs = [q for q in op.params if isinstance(q, (Scalar, Attr))]
    attr_idx = {q.name: i for i, q in enumerate(attrs)}
    tensor_idx = {t.name: i for i, t in enumerate(tensors)}
    attr_defs = []
    for q in attrs:
        if isinstance(q, Scalar) and q.optional:   # a null aclScalar reaches the kernel as its default
            attr_defs.append((q.name, f"AttrType(OPTIONAL).Float({float(q.default)!r})"))
        else:
            attr_defs.append((q.name, "AttrType(REQUIRED)." + ("Float" if isinstance(q, Scalar)
                                                                else q.spec_type.opdef) + "()"))
    reads = []   # host values FillScalars takes (and the strings that choose a variant), read from the context
    for q in attrs:
        if isinstance(q, Attr) and q.type == "string":
            reads.append(f"const char* {q.name} = attrs->GetAttrPointer<char>({attr_idx[q.name]});")
            continue
        ctype = "float" if isinstance(q, Scalar) or q.is_real else ("bool" if q.type == "bool" else "int64_t")
        reads.append(f"const {ctype} {q.name} = *attrs->GetAttrPointer<{ctype}>({attr_idx[q.name]});")
    numels = sorted({n for v in p.variants for n in v.kv.numels})
    for n in numels:
        reads.append(f"const uint64_t numel_{n} = context->GetInputShape({tensor_idx[n]})->GetStorageShape()"
                     f".GetShapeSize();")
    fill_args = [q.name for q in attrs if q.symbol is not None] + [f"numel_{n}" for n in numels]
    variant_conds = []
    for v in p.variants:
        conds = []
        for name, value in v.kv.key.items():
            q = op.param(name)
            if isinstance(q, Attr) and q.type == "string":
                conds.append(f'std::strcmp({name}, "{value}") == 0')
            elif isinstance(q, Attr):
                conds.append(name if value else f"!{name}")
            else:
                test = "==" if value == ABSENT else "!="
                conds.append(f"context->GetOptionalInputShape({tensor_idx[name]}) {test} nullptr")
        variant_conds.append((v.index, " && ".join(conds) or "true", v.doc))
    dim = op.param(op.reduce_dim).name if op.reduce_dim else None
    dtype_from = op.output_dtype_sources[0]
    return dict(
        op=op, tiling_type=p.tiling_type, rows=p.rows, dim=dim,
        inputs=[(t.name, "OPTIONAL" if t.optional else "REQUIRED") for t in tensors],
        output=op.output.name, attr_defs=attr_defs, reads=reads, fill_args=fill_args,
        variant_conds=variant_conds, infer_shape=_infer_shape_lines(op),
        strings=any(isinstance(q, Attr) and q.type == "string" for q in attrs),
        dtype_from_index=tensor_idx[dtype_from],
        union=_union_lists(op),
        socs=[(soc, _dtype_lists(op, soc)) for soc in kernel_socs(op)],
=======
    files = names.files(op)
    dtype_from = op.output.dtype_from or op.tensors[0].name
    if dtype_from not in p.operands:
        raise NotImplementedError(f"{op.name}: the output's dtype comes from {dtype_from}, which the kernel does not "
                                  f"read (InferDataType can only name a kernel input)")
    return dict(
        op_name=op.name, op_type=names.op_type(op), description=op.description.en,
        std_includes=["algorithm", "cmath"], host_tiling=Path(files["host_tiling"]).name,
        kernel_tiling=Path(files["kernel_tiling"]).name, tiling_type=p.tiling_type,
        api_scratch=max(a.api_scratch_bytes for a in ARCHS.values()),
>>>>>>> main
        dtype_codes=[(GE_TYPE[d], DTYPE_CODE[d], DTYPE_BYTES[d]) for d in DTYPE_CODE],
        reads=reads(p), row_lines=row_lines(p), variant_lines=variant_lines(p),
        fill_args=", ".join(["variant", "*tiling"] + [q.name for q in attrs(op)] + [f"numel_{n}" for n in p.numels]),
        infer_shape=infer_shape_lines(p), dtype_from_index=p.operands.index(dtype_from),
        opdef_params=opdef_params(p, all_combos(op)), attr_defs=attr_defs(p), socs=soc_configs(p))


def render_op_host(p: Plan, preamble: str) -> str:
    return render(TEMPLATES, "op_host.cpp.jinja", preamble=preamble, **op_host_context(p))
