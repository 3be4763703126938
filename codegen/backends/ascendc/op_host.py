"""What `op_host/<op>.cpp` says, read off the spec: the OpDef, shape and dtype inference, the TilingFunc.

Parameters become OpDef inputs (tensors, in aclnn order; optional ones OPTIONAL), one output, and attributes
(aclScalars as Float, int64 as Int, bool as Bool).  The dtype lists are columns of (input dtype, output dtype)
pairs the kernel is built for (`emit.combos`), one `OpAICoreConfig` per SoC of the spec's table, so each SoC
lists exactly the dtypes the spec gives it.  Shape inference follows the ShapeSame / ShapeIsBroadcast rules.
"""
from __future__ import annotations

from codegen.spec import ABSENT
from codegen.spec import rules as R
from codegen.spec.params import Attr, Scalar

from .plan import DTYPE_BYTES, DTYPE_CODE, GE_TYPE, Plan, combos
from .socs import kernel_socs


def _dtype_lists(op, soc: str) -> dict[str, list[str]]:
    """{tensor name: [ge dtype per column]} for one SoC; every input takes the input dtype of a column."""
    cols = combos(op, soc)
    lists = {t.name: [GE_TYPE[i] for i, _ in cols] for t in op.tensors}
    lists[op.output.name] = [GE_TYPE[o] for _, o in cols]
    return lists


def _union_lists(op) -> dict[str, list[str]]:
    seen = []
    for soc in kernel_socs(op):
        for c in combos(op, soc):
            if c not in seen:
                seen.append(c)
    lists = {t.name: [GE_TYPE[i] for i, _ in seen] for t in op.tensors}
    lists[op.output.name] = [GE_TYPE[o] for _, o in seen]
    return lists


def _infer_shape_lines(op) -> list[str]:
    idx = {t.name: i for i, t in enumerate(op.tensors)}
    out = op.output.name
    for r in op.rules:
        if isinstance(r, R.ShapeSame) and out in r.params:
            ref = next(n for n in r.params if n != out)
            return [f"*context->GetOutputShape(0) = *context->GetInputShape({idx[ref]});  // {out} has {ref}'s shape"]
        if isinstance(r, R.ShapeIsBroadcast) and r.params[0] == out:
            a, b = r.params[1:3]
            return [
                f"// {out} has the broadcast shape of {a} and {b} (NumPy rules)",
                f"const gert::Shape* a = context->GetInputShape({idx[a]});",
                f"const gert::Shape* b = context->GetInputShape({idx[b]});",
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
        shape = "GetOutputShape(0)" if n == op.output.name else f"GetInputShape({tensor_idx[n]})"
        reads.append(f"const uint64_t numel_{n} = context->{shape}->GetStorageShape().GetShapeSize();")
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
        dtype_codes=[(GE_TYPE[d], DTYPE_CODE[d], DTYPE_BYTES[d]) for d in DTYPE_CODE],
    )
