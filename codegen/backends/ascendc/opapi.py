"""The op_api layer of a generated project (`op_api/`): what CANN's level 2 does around an AI Core kernel,
printed as C++ on CANN's opdev API, and the same steps for the simulator's Python binding.

Level 2 (`aclnn_opgen_<op>.cpp`, the public aclnn API in the vendor namespace, names.py):

    1. the parameter checks: codegen.checkplan's steps, in their order, each a call of a check in
       templates/op_api/opgen_l2.h (the C++ of codegen/runtime/checks.py: same verdicts and status codes);
    2. an empty output: done, nothing launched;
    3. the kernel's dtypes: the present operands promoted (`kernel_in_dtype`), the output dtype the kernel
       writes (`kernel_out_dtype`: the caller's when a kernel instance writes it on this SoC, else the input's);
    4. every kernel operand (`OPERAND_STEPS`): Contiguous, Cast to the kernel's input dtype, BroadcastTo the
       output's shape, and for a row op Transpose (the reduced axis last);
    5. the kernel (level 0, `<kernel>.cpp`: ADD_TO_LAUNCHER_LIST_AICORE of the OpType);
    6. the result (`RESULT_STEPS`): for a row op Transpose back, Cast to the output's dtype, ViewCopy into it.

The Python binding (binding.py) runs steps 3, 4 and 6 in NumPy with the functions here, so the simulator's
launches see the operands the C++ layer would hand the kernel.  The kernel's operands are the tensors some
variant reads (`Plan.operands`): a tensor no variant reads (LogSigmoid's `buffer`) is not a kernel input.
"""
from __future__ import annotations

import re
from pathlib import Path

import sympy
from sympy.printing.c import C99CodePrinter

from codegen.aclnn.variants import key_condition
from codegen.aclnn.prototypes import c_type
from codegen.checkplan import none_test, steps
from codegen.spec import Op
from codegen.spec.classes import GRID_PASS, GRID_SCALED, GRID_SUM
from codegen.spec import rules as R
from codegen.spec.dtypes import DTYPES, promote
from codegen.spec.functions import BROADCAST, ROW_AXIS, count_parts
from codegen.spec.params import Attr, Scalar
from codegen.template_util import render
from codegen.text import condition_code

from . import names
from .doublefloat import STEP
from .plan import Plan, combos, lo_field, lo_params
from .socs import kernel_socs

TEMPLATES = Path(__file__).parent / "templates"

OPERAND_STEPS = ("Contiguous", "Cast", "BroadcastTo", "Transpose")   # Transpose: row ops only
RESULT_STEPS = ("Transpose", "Cast", "ViewCopy")


# ---- what the steps compute (shared with the binding) ------------------------------------------------------------
def kernel_in_dtype(dtypes: list[str], soc_in_dtypes: list[str]) -> str:
    """The dtype the kernel reads: the present operands' dtypes promoted, FLOAT where no kernel reads that."""
    d = promote(dtypes)
    return d if d in soc_in_dtypes else "FLOAT"


def kernel_out_dtype(op: Op, soc: str, din: str, out_dtype: str) -> str:
    """The dtype the kernel writes: the output's own when a kernel instance writes it on `soc`, else `din`."""
    return out_dtype if (din, out_dtype) in combos(op, soc) else din


def soc_in_dtypes(op: Op, soc: str) -> list[str]:
    return sorted({i for i, _ in combos(op, soc)})


# ---- C++ spellings -----------------------------------------------------------------------------------------------
def ge_dtype(name: str) -> str:
    """op::DataType enumerator of an aclnn dtype: DT_ and the aclDataType name (ACL_BF16 -> DT_BF16)."""
    return "op::DataType::DT_" + DTYPES[name].acl_name[len("ACL_"):]


def soc_enum(soc: str) -> str:
    return soc.upper()


def dtype_list(dtypes) -> str:
    return "{" + ", ".join(ge_dtype(d) for d in dtypes) + "}"


def dtype_table(function: str, doc: str, per_soc: dict) -> dict:
    return dict(function=function, doc=doc, socs=[(soc_enum(s), dtype_list(d)) for s, d in per_soc.items()])


def dtype_tables(op: Op) -> list[dict]:
    """One function per tensor a DtypeSupported step checks (the spec's table on the current SoC), and the
    input dtypes the kernel reads on it."""
    checked = list(dict.fromkeys(s.param for s in steps(op) if s.kind in ("dtype_supported", "promoted_supported")))
    tables = [dtype_table(f"Dtypes_{n}", f"{n}: the dtypes the spec's table allows", op.dtypes_of(n))
              for n in checked]
    return tables + [dtype_table("KernelInDtypes", "the input dtypes a kernel instance reads",
                                 {soc: soc_in_dtypes(op, soc) for soc in kernel_socs(op)})]


def casting_instances(op: Op) -> list[str]:
    """`{SoC, input dtype, output dtype}` of every kernel instance writing a dtype other than it reads."""
    return [f"{{op::SocVersion::{soc_enum(soc)}, {ge_dtype(i)}, {ge_dtype(o)}}}"
            for soc in kernel_socs(op) for i, o in combos(op, soc) if i != o]


def value_name(p) -> str:
    return f"{p.name}Value"


class ConditionPrinter(C99CodePrinter):
    """C++ of a check's condition, in double as the Python and C checkers evaluate it (a FLOAT literal would move
    a boundary that is not a FLOAT)."""

    def __init__(self, names: dict):
        super().__init__()
        self.names = names

    def _print_Symbol(self, expr):
        """Customizations: a scalar's double value (`alphaValue`) or an attribute's name."""
        return self.names[expr]


def check_lines(op: Op) -> list[str]:
    """CheckParams' body: one opgen_l2 check per codegen.checkplan step, in order."""
    lines = []
    # scalars a value rule reads: its own and any other its condition names (ClampModeBackward's low <= high)
    read = set().union(*[s.rule.condition.free_symbols | sympy.sympify(s.rule.when).free_symbols
                         for s in steps(op) if s.kind == "requires"])
    valued = {s.param for s in steps(op) if s.kind == "requires"} | {p.name for p in op.params if p.symbol in read}
    cond = ConditionPrinter({p.symbol: (value_name(p) if isinstance(p, Scalar) else p.name)
                             for p in op.params if p.symbol is not None})
    invalid = "ACLNN_ERR_PARAM_INVALID"
    for s in steps(op):
        n, ref = s.param, s.ref
        if s.kind == "not_null":
            lines.append(f'CHECK_RET(opgen_l2::NotNull({n}, "{n}"), ACLNN_ERR_PARAM_NULLPTR);')
        elif s.kind == "convert":
            p = op.param(n)
            if isinstance(p, Scalar):
                lines.append(f'CHECK_RET(opgen_l2::RealScalar({n}, "{n}"), {invalid});')
                if n in valued:   # (a null optional scalar is its documented default)
                    value = (f"{n} == nullptr ? {float(p.default)!r} : {n}->ToDouble()" if p.optional
                             else f"{n}->ToDouble()")
                    lines.append(f"const double {value_name(p)} = {value};")
        elif s.kind == "dtype_supported":
            lines.append(f'CHECK_RET(opgen_l2::DtypeSupported({n}, "{n}", Dtypes_{n}(), OP_NAME), {invalid});')
        elif s.kind == "promoted_supported":
            lines.append(f'CHECK_RET(opgen_l2::PromotedSupported({{{", ".join(s.others)}}}, "{n}", '
                         f'"{" and ".join(s.others)}", Dtypes_{n}(), OP_NAME), {invalid});')
        elif s.kind in ("promoted_castable", "promoted_same"):
            same = "true" if s.kind == "promoted_same" else "false"
            lines.append(f'CHECK_RET(opgen_l2::PromotedCastable({n}, "{n}", {{{", ".join(s.others)}}}, '
                         f'"{" and ".join(s.others)}", {same}), {invalid});')
        elif s.kind == "empty_returns":   # one of them empty: success, the later checks do not run
            lines.append(f'CHECK_RET(!opgen_l2::AnyEmpty({{{", ".join(s.others)}}}, "{n}"), ACLNN_SUCCESS);')
        elif s.kind == "kernel_dtypes":
            complex_ok = "true" if "COMPLEX" in op.computes else "false"
            lines.append(f'CHECK_RET(opgen_l2::KernelDtypes({{{", ".join(s.others)}}}, OP_NAME, {complex_ok}), '
                         f'ACLNN_ERR_INNER_FIND_KERNEL_ERROR);')
        elif s.kind == "one_of" and op.param(n).type == "string":
            values = ", ".join(f'"{v}"' for v in s.values)
            lines.append(f'CHECK_RET(opgen_l2::OneOfString({n}, "{n}", {{{values}}}), {invalid});')
        elif s.kind in ("dtype_same", "dtype_castable", "format_same", "shape_same", "broadcastable"):
            fn = {"dtype_same": "DtypeSame", "dtype_castable": "DtypeCastable", "format_same": "FormatSame",
                  "shape_same": "ShapeSame", "broadcastable": "Broadcastable"}[s.kind]
            lines.append(f'CHECK_RET(opgen_l2::{fn}({ref}, "{ref}", {n}, "{n}"), {invalid});')
        elif s.kind == "format_not_private":
            lines.append(f'CHECK_RET(opgen_l2::FormatNotPrivate({n}, "{n}"), {invalid});')
        elif s.kind in ("max_rank", "min_rank"):
            fn = "MaxRank" if s.kind == "max_rank" else "MinRank"
            lines.append(f'CHECK_RET(opgen_l2::{fn}({n}, "{n}", {s.n}), {invalid});')
        elif s.kind == "broadcast_to" and s.n is not None:   # along the listed axes only
            axes = ", ".join(str(a) for a in s.values)
            lines.append(f'CHECK_RET(opgen_l2::BroadcastsTo({n}, "{n}", {ref}, "{ref}", {{{axes}}}), {invalid});')
        elif s.kind == "broadcast_to":
            lines.append(f'CHECK_RET(opgen_l2::BroadcastsTo({n}, "{n}", {ref}, "{ref}"), {invalid});')
        elif s.kind == "same_or_one":
            lines.append(f'CHECK_RET(opgen_l2::ShapeSameOrOne({n}, "{n}", {ref}, "{ref}"), {invalid});')
        elif s.kind == "dim_at_most":
            lines.append(f'CHECK_RET(opgen_l2::DimAtMost({n}, "{n}", {s.values[0]}, {s.n}), {invalid});')
        elif s.kind == "dim_in_range":
            lines.append(f'CHECK_RET(opgen_l2::DimInRange({n}, "{n}", {ref}, "{ref}"), {invalid});')
        elif s.kind == "shape_is_broadcast":
            lines += ["{",
                      f"    const aclTensor* const operands[] = {{{', '.join(s.others)}}};",
                      f'    CHECK_RET(opgen_l2::IsBroadcastOf({n}, "{n}", operands, {len(s.others)}), {invalid});',
                      "}"]
        elif s.kind in ("broadcastable_with", "broadcasts_into"):
            fn = "BroadcastableWith" if s.kind == "broadcastable_with" else "BroadcastsInto"
            lines += ["{",
                      f"    const aclTensor* const operands[] = {{{', '.join(s.others)}}};",
                      f'    CHECK_RET(opgen_l2::{fn}({n}, "{n}", operands, {len(s.others)}, '
                      f'"{" and ".join(s.others)}"), {invalid});',
                      "}"]
        elif s.kind == "dim_even":
            lines.append(f'CHECK_RET(opgen_l2::DimEven({n}, "{n}", {ref}, "{ref}"), {invalid});')
        elif s.kind == "shape_halved":
            d = s.others[0]
            lines.append(f'CHECK_RET(opgen_l2::ShapeHalved({n}, "{n}", {ref}, "{ref}", {d}, "{d}"), {invalid});')
        elif s.kind in ("class_target", "class_count"):
            fn = "ClassTarget" if s.kind == "class_target" else "ClassCount"
            lines.append(f'CHECK_RET(opgen_l2::{fn}({n}, "{n}", {ref}, "{ref}"), {invalid});')
        elif s.kind == "per_channel":
            lines.append(f'CHECK_RET(opgen_l2::PerChannel({n}, "{n}", {ref}, "{ref}", {s.n}), {invalid});')
        elif s.kind == "channel_grad":
            o = s.others[0]
            lines.append(f'CHECK_RET(opgen_l2::ChannelGrad({n}, "{n}", {ref}, "{ref}", {o}, "{o}", {s.n}), '
                         f'{invalid});')
        elif s.kind == "one_element":
            lines.append(f'CHECK_RET(opgen_l2::OneElement({n}, "{n}"), {invalid});')
        elif s.kind == "array_length":
            lines.append(f'CHECK_RET(opgen_l2::ArrayLength({n}, "{n}", {ref}, "{ref}", {s.n}), {invalid});')
        elif s.kind == "array_in_range":   # each bound: none, an int, or dim_size(tensor, axis)
            args = []
            for b in (s.rule.bound("low"), s.rule.bound("high")):
                args += (["false", "0"] if b is None else ["true", str(b[1])] if b[0] == "int"
                         else ["true", f"opgen_l2::ArrayBound({b[1]}, {b[2]})"])
            lines.append(f'CHECK_RET(opgen_l2::ArrayInRange({n}, "{n}", {", ".join(args)}), {invalid});')
        elif s.kind == "sample_shaped":
            lines.append(f'CHECK_RET(opgen_l2::SampleShaped({n}, "{n}", {ref}, "{ref}", {none_test(op, s)}), '
                         f'{invalid});')
        elif s.kind == "one_of":
            values = ", ".join(str(v) for v in s.values)
            lines.append(f'CHECK_RET(opgen_l2::OneOf({n}, "{n}", {{{values}}}), {invalid});')
        elif s.kind == "requires":
            r, p = s.rule, op.param(n)
            value = value_name(p) if isinstance(p, Scalar) else f"static_cast<double>({n})"
            text = condition_code(r.condition, op).replace('"', '\\"')
            call = (f'CHECK_RET(opgen_l2::Requires({cond.doprint(r.condition)}, "{n}", "{text}", {value}), '
                    f'{invalid});')
            lines += [call] if r.when == sympy.true else [f"if ({cond.doprint(r.when)}) {{", f"    {call}", "}"]
        else:
            raise NotImplementedError(f"{op.name}: the op_api layer has no C++ check for step {s.kind!r} "
                                      f"(codegen/backends/ascendc/opapi.py, check_lines)")
    # a parameter no check reads (a scalar only the kernel uses): said so, not an unused-parameter warning
    read = set(re.findall(r"[A-Za-z_]\w*", "\n".join(lines)))
    lines += [f"(void){q.name};  // (no check reads it)" for q in op.params if q.name not in read]
    return lines


def aclnn_params(op: Op) -> list[str]:
    """The aclnn parameters, C++ spelled: CANN's signature for this op (codegen/aclnn/prototypes.py)."""
    return [f"{c_type(p).replace(' *', '*').strip()} {p.name}" for p in op.params]


def l0_params(p: Plan) -> list[tuple[str, str]]:
    """(C++ type, name) of the level-0 function: the kernel operands, the OpDef's attributes, then the output
    dtype and the executor."""
    op = p.op
    out = [("const aclTensor*", t) for t in p.operands]
    out += [(l0_ctype(q), q.name) for q in opdef_attrs(op)]
    out += [("int64_t", f"numel_{n}") for n in p.numels]
    out += [("float", lo_field(q.name)) for q in lo_params(op)]
    return out + [("op::DataType", "outDtype"), ("aclOpExecutor*", "executor")]


def opdef_attrs(op: Op) -> list:
    return [q for q in op.params if isinstance(q, (Scalar, Attr))]


def l0_ctype(q) -> str:
    if isinstance(q, Attr) and q.type == "string":
        return "const char*"
    return "float" if isinstance(q, Scalar) or q.is_real else ("bool" if q.type == "bool" else "int64_t")


def l0_args(p: Plan) -> list[str]:
    """Level 2's arguments of the level-0 call."""
    op = p.op
    args = [f"{t}K" for t in p.operands]
    for q in opdef_attrs(op):
        if isinstance(q, Scalar) and q.optional:   # a null optional scalar is its documented default
            args.append(f"{q.name} == nullptr ? {float(q.default)!r}f : {q.name}->ToFloat()")
        elif isinstance(q, Scalar):
            args.append(f"{q.name}->ToFloat()")
        elif isinstance(q, Attr) and q.is_real:
            args.append(f"static_cast<float>({q.name})")
        elif q.name == op.reduce_dim:
            args.append("static_cast<int64_t>(-1)  /* the reduced axis, moved last */")
        else:
            args.append(q.name)
    args += [count_cpp(n, _dim_cpp(op)) for n in p.numels]
    args += [lo_arg(q) for q in lo_params(op)]
    return args + ["outDtype", "exec"]


def lo_arg(q) -> str:
    """The caller's double less its FLOAT value, as a FLOAT (plan.lo_params): FillScalars adds it back."""
    if isinstance(q, Scalar):
        value = (f"({q.name} == nullptr ? {float(q.default)!r} : {q.name}->ToDouble())" if q.optional
                 else f"{q.name}->ToDouble()")
    else:
        value = f"static_cast<double>({q.name})"
    return f"opgen_l2::LoPart({value})"


def _dim_cpp(op: Op) -> str:
    """Level 2's value of the row reduction's dim: the attribute, or the fixed axis."""
    return op.dim_attr.name if op.dim_attr else f"static_cast<int64_t>({op.reduce_dim})"


def count_cpp(name: str, dim: str | None = None) -> str:
    """Level 2's value of count `name`: a tensor's Numel(), or the kernel's shape's (the broadcast shape B); a
    row's length (ROW_AXIS) B's extent along the call's dim `dim` (the attribute, negative from the end)."""
    tensor, axis = count_parts(name)
    if axis == ROW_AXIS:
        return f"(shape.GetDimNum() == 0 ? static_cast<int64_t>(1) : shape.GetDim(opgen_l2::WrapDim({dim}, " \
               f"shape.GetDimNum())))"
    if tensor != BROADCAST:
        return f"static_cast<int64_t>({tensor}->Numel())" if axis is None else \
            f"({tensor}->GetViewShape().GetDimNum() > {axis} ? {tensor}->GetViewShape().GetDim({axis}) : 1)"
    return "shape.GetShapeSize()" if axis is None else \
        f"(shape.GetDimNum() > {axis} ? shape.GetDim({axis}) : static_cast<int64_t>(1))"


# level 2's kernel shape as the aclIntArray the operands are broadcast to
SHAPE_ARRAY = ["const aclIntArray* shapeArray = opgen_l2::ShapeArray(shape, exec);",
               "CHECK_RET(shapeArray != nullptr, ACLNN_ERR_INNER_NULLPTR);"]


def _operand(t: str, src: str | None = None, perm: str = "nullptr", optional: bool = False) -> list[str]:
    """Kernel operand `<t>K`: `src` (default t) contiguous, in inDtype, broadcast to the kernel's shape (its axes
    permuted by `perm`); an optional tensor's null stays null."""
    return [f"const aclTensor* {t}K = opgen_l2::KernelOperand({src or t}, inDtype, shape, shapeArray, {perm}, exec);",
            f"CHECK_RET({t} == nullptr || {t}K != nullptr, ACLNN_ERR_INNER_NULLPTR);" if optional
            else f"CHECK_RET({t}K != nullptr, ACLNN_ERR_INNER_NULLPTR);"]


def split_body_lines(p: Plan) -> list[str]:
    """Level 2 of a split op after the checks (codegen.spec.split): the input cut in halves along dim (SplitV), the
    kernel launched once per half (its `secondHalf` variant), the two results concatenated (ConcatD), cast and
    copied into the output."""
    api, kop = p.api, p.op
    src, dim, out = api.split.tensor, api.split.dim, api.output.name
    first, second = (str(s) for s in api.wrt)
    whole = [t.name for t in api.tensors if t.name != api.split.rows]   # (a row count is summed, not computed)
    others = [t for t in p.operands if t not in (first, second)]
    merged = api.split.merged   # read as rows [pre, cut] from dim on (codegen.spec.split)
    inter = api.split.interleaved or "false"
    if merged:
        cut = [f"// {src} read as rows [pre, cut] from {dim} on, each cut into halves {first}, {second} ({inter}: its",
               "// even and odd elements, else its front and back halves), contiguous, in inDtype",
               f"const aclTensor* {first}K = nullptr;",
               f"const aclTensor* {second}K = nullptr;",
               f"CHECK_RET(opgen_l2::RowHalves({src}, inDtype, {dim}, {inter}, &{first}K, &{second}K, exec), "
               "ACLNN_ERR_INNER_NULLPTR);"]
    else:
        cut = [f"// {src} cut in halves {first}, {second} along {dim} (SplitV), contiguous, in inDtype",
               f"const aclTensor* {first}K = nullptr;",
               f"const aclTensor* {second}K = nullptr;",
               f"CHECK_RET(opgen_l2::Halves({src}, inDtype, {dim}, &{first}K, &{second}K, exec), ACLNN_ERR_INNER_NULLPTR);"]
    lines = [
        "// the kernel's dtypes: the inputs promoted (FLOAT where no kernel reads that dtype), the result in",
        f"// {out}'s dtype when a kernel instance writes it on this SoC, else in the input dtype and cast after",
        f"const op::DataType inDtype = opgen_l2::Promoted({{{', '.join(whole)}}}, KernelInDtypes());",
        f"const op::DataType outDtype = KernelOutDtype(inDtype, {out}->GetDataType());",
        *cut,
    ]
    lines += ["// the other operands: contiguous, in inDtype, of a half's shape",
              f"const op::Shape& shape = {first}K->GetViewShape();", *SHAPE_ARRAY]
    if merged:
        for t in others:   # of the halved shape (gradOutput): read as rows [pre, cut/2] the same way
            lines += [f"const aclTensor* {t}R = opgen_l2::AsRows({t}, {dim}, exec);",
                      f"CHECK_RET({t}R != nullptr, ACLNN_ERR_INNER_NULLPTR);"]
    for t in others:
        lines += _operand(t, src=f"{t}R" if merged else None)
    for h, name in enumerate((first, second)):
        args = [a if a != "secondHalf" else ("true" if h else "false") for a in l0_args(p)]
        lines += [f"// the kernel ({names.op_type(kop)} on the AI Core) for the half {name}",
                  f"const aclTensor* {name}Grad = l0op::{names.l0_name(kop)}({', '.join(args)});",
                  f"CHECK_RET({name}Grad != nullptr, ACLNN_ERR_INNER_NULLPTR);"]
    if merged:
        counts = api.split.rows or "nullptr"
        lines += [f"// the halves back where they were taken from, the rows from sum({counts}) on set to 0, in "
                  f"{out}'s shape",
                  f"const aclTensor* kernelResult = opgen_l2::RowConcat({first}Grad, {second}Grad, {inter}, exec);",
                  "CHECK_RET(kernelResult != nullptr, ACLNN_ERR_INNER_NULLPTR);",
                  f"kernelResult = opgen_l2::KeepRows(kernelResult, {counts}, exec);",
                  "CHECK_RET(kernelResult != nullptr, ACLNN_ERR_INNER_NULLPTR);",
                  f"kernelResult = l0op::Reshape(kernelResult, opgen_l2::ShapeArray({out}->GetViewShape(), exec), exec);",
                  "CHECK_RET(kernelResult != nullptr, ACLNN_ERR_INNER_NULLPTR);"]
        return lines + _into_output(out)
    lines += [f"const aclTensor* kernelResult = opgen_l2::Concat({first}Grad, {second}Grad, {dim}, exec);",
              "CHECK_RET(kernelResult != nullptr, ACLNN_ERR_INNER_NULLPTR);"]
    return lines + _into_output(out)


def several_body_lines(p: Plan) -> list[str]:
    """Level 2 of an op with several outputs (codegen.spec.outputs): every operand on the broadcast shape (a
    PerChannel tensor first laid along its channel axis), the kernel launched once per output (its `outputIndex`
    variant), a summed output's terms reduced over the broadcast axes of its input and reshaped to its shape; then
    each result cast and copied into its output."""
    from codegen.spec.outputs import OUTPUT_INDEX
    api, kop = p.api, p.op
    channel = {r.params[0]: r for r in api.rules if isinstance(r, R.PerChannel)}
    every = [t.name for t in api.tensors]
    lines = [
        "// the kernel's dtypes: the inputs promoted (FLOAT where no kernel reads that dtype); a summed output's terms",
        "// in FLOAT, the others in their output's dtype when a kernel instance writes it on this SoC",
        f"const op::DataType inDtype = opgen_l2::Promoted({{{', '.join(every)}}}, KernelInDtypes());"]
    viewed = []
    for t, r in channel.items():
        ref = r.params[1]
        lines += [f"// {t} holds one value per channel of {ref}: its elements laid along dimension {r.dim}",
                  f"const aclTensor* {t}C = opgen_l2::ChannelView({t}, {ref}->GetViewShape().GetDimNum(), {r.dim}, "
                  "exec);",
                  f"CHECK_RET({t}C != nullptr, ACLNN_ERR_INNER_NULLPTR);"]
        viewed.append(t)
    seen = [f"{t}C" if t in channel else t for t in every]
    lines += [f"// the operands: contiguous, in inDtype, of the broadcast shape of {', '.join(every)}",
              f"const op::Shape shape = opgen_l2::BroadcastShape({{{', '.join(seen)}}});", *SHAPE_ARRAY]
    for t in p.operands:
        lines += _operand(t, src=f"{t}C" if t in channel else t)
    for k, o in enumerate(api.outputs):
        args = [a if a != OUTPUT_INDEX else str(k) for a in l0_args(p)]
        res = f"{o.name}Result"
        lines += [f"// {o.name}: the kernel ({names.op_type(kop)} on the AI Core), its outputIndex {k} variant"]
        if o.sum_to:
            args = ["op::DataType::DT_FLOAT" if a == "outDtype" else a for a in args]
            lines += [f"const aclTensor* {res} = l0op::{names.l0_name(kop)}({', '.join(args)});",
                      f"CHECK_RET({res} != nullptr, ACLNN_ERR_INNER_NULLPTR);",
                      f"// the adjoint of broadcasting {o.sum_to}: the sum over the axes it was broadcast along",
                      f"const op::Shape {o.name}Kept = {(o.sum_to + 'C') if o.sum_to in channel else o.sum_to}"
                      "->GetViewShape();",
                      f"const aclIntArray* {o.name}Axes = opgen_l2::BroadcastAxes(shape, {o.name}Kept, exec);",
                      f"if ({o.name}Axes != nullptr) {{",
                      f"    {res} = l0op::ReduceSumOp({res}, {o.name}Axes, true, exec);",
                      f"    CHECK_RET({res} != nullptr, ACLNN_ERR_INNER_NULLPTR);",
                      "}",
                      f"{res} = l0op::Reshape({res}, opgen_l2::ShapeArray({o.name}->GetViewShape(), exec), exec);",
                      f"CHECK_RET({res} != nullptr, ACLNN_ERR_INNER_NULLPTR);"]
        else:
            args = [f"KernelOutDtype(inDtype, {o.name}->GetDataType())" if a == "outDtype" else a for a in args]
            lines += [f"const aclTensor* {res} = l0op::{names.l0_name(kop)}({', '.join(args)});",
                      f"CHECK_RET({res} != nullptr, ACLNN_ERR_INNER_NULLPTR);"]
    # copied into the outputs only once every kernel is queued: an output written over an input (in place) must not
    # change what a later kernel reads
    for o in api.outputs:
        lines += ["{", f"    const aclTensor* kernelResult = {o.name}Result;"] + ["    " + x for x in _into_output(o.name)] + ["}"]
    return lines


def _into_output(out: str) -> list[str]:
    """`kernelResult` cast to the output's dtype where it differs, and copied into the output."""
    return [f"if (kernelResult->GetDataType() != {out}->GetDataType()) {{",
            f"    kernelResult = l0op::Cast(kernelResult, {out}->GetDataType(), exec);",
            "    CHECK_RET(kernelResult != nullptr, ACLNN_ERR_INNER_NULLPTR);",
            "}",
            f"CHECK_RET(l0op::ViewCopy(kernelResult, {out}, exec) != nullptr, ACLNN_ERR_INNER_NULLPTR);"]


def classes_body_lines(p: Plan) -> list[str]:
    """Level 2 of a class-index op after the checks (codegen.spec.classes): every input in FLOAT, reshaped onto
    the (sample, class) grid and broadcast to it, the class coordinate, the grid op's kernel, the result cast and
    copied into the output."""
    from codegen.spec.classes import CLASS_TENSOR, kind_of
    api, kop = p.api, p.op
    grid, out = api.classes.tensor, api.output.name
    lines = [
        "// the kernel reads and writes FLOAT (FLOAT16 and BFLOAT16 promoted, class indices exact up to 2^24), as",
        "// the library's level 2 does; the result is cast to the output's dtype after",
        "const op::DataType inDtype = op::DataType::DT_FLOAT;",
        "const op::DataType outDtype = op::DataType::DT_FLOAT;",
        f"// every operand as a view on the (sample, class) grid of {grid}, of its shape",
        f"const op::Shape& shape = {grid}->GetViewShape();",
        *SHAPE_ARRAY,
    ]
    for t in p.operands:
        if t in (GRID_SUM, GRID_SCALED):
            continue   # the sum over the grid, computed below (grid_sum_lines)
        if t == CLASS_TENSOR:
            lines.append(f"const aclTensor* {t}K = opgen_l2::ClassIndex(inDtype, shape, shapeArray, exec);")
        else:
            kind = {"grid": "SAMPLE", "sample": "SAMPLE", "class": "CLASS", "scalar": "SCALAR"}[kind_of(api, t)]
            if kind_of(api, t) == "grid":
                lines.append(f"const aclTensor* {t}K = opgen_l2::KernelOperand({t}, inDtype, shape, shapeArray, "
                             f"nullptr, exec);")
            else:
                lines.append(f"const aclTensor* {t}K = opgen_l2::GridOperand({t}, opgen_l2::{kind}, inDtype, shape, "
                             f"shapeArray, exec);")
        lines.append(f"CHECK_RET({t}K != nullptr, ACLNN_ERR_INNER_NULLPTR);")
    args = l0_args(p)
    if GRID_SUM in p.operands:
        lines += grid_sum_lines(p, args, grid)
    lines += [f"// the kernel ({names.op_type(kop)} on the AI Core)",
              f"const aclTensor* kernelResult = l0op::{names.l0_name(kop)}({', '.join(_chosen(args, 'false'))});",
              "CHECK_RET(kernelResult != nullptr, ACLNN_ERR_INNER_NULLPTR);"]
    return lines + _into_output(out)


def _chosen(args: list[str], grid_pass: str) -> list[str]:
    """The level-0 call's arguments with the GRID_PASS attribute set."""
    return [grid_pass if a == GRID_PASS else a for a in args]


def grid_sum_lines(p: Plan, args: list[str], grid: str) -> list[str]:
    """Level 2's sum over the whole grid a form divides by (codegen.spec.classes.GRID_SUM): where the chosen form
    reads it, the kernel's GRID_PASS variant (each row's sum at class 0, 0 elsewhere; it reads no GRID_SUM, handed
    the grid tensor in its place) added up over every axis by ReduceSum, in FLOAT, and where the form reads
    GRID_SCALED (a sum of weights, codegen.lower.grid_companions), the same rows scaled by 2^-66 added up: finite
    where a total beyond FLOAT's range makes the first inf.  Null tensors elsewhere."""
    def chosen(t):
        return " || ".join("(" + key_condition(p.api, {k: x for k, x in v.kv.key.items() if k != GRID_PASS},
                                               "nullptr") + ")" for v in p.variants if t in v.tensors)

    def summed(t, rows, total, indent):
        return [f"{indent}const aclTensor* {total} = l0op::ReduceSumOp({rows}, everyAxis, true, exec);",
                f"{indent}CHECK_RET({total} != nullptr, ACLNN_ERR_INNER_NULLPTR);",
                f"{indent}{t}K = opgen_l2::GridOperand({total}, opgen_l2::SCALAR, inDtype, shape, shapeArray, exec);",
                f"{indent}CHECK_RET({t}K != nullptr, ACLNN_ERR_INNER_NULLPTR);"]
    pass_args = [f"{grid}K" if a in (f"{GRID_SUM}K", f"{GRID_SCALED}K") else a for a in _chosen(args, "true")]
    lines = [f"// the sum over the whole grid the mean divides by: the kernel's {GRID_PASS} variant gives each row's "
             "sum at class 0,",
             "// ReduceSum adds them up (FLOAT); the other forms read none",
             f"const aclTensor* {GRID_SUM}K = nullptr;",
             f"if ({chosen(GRID_SUM)}) {{",
             f"    const aclTensor* rowSums = l0op::{names.l0_name(p.op)}({', '.join(pass_args)});",
             "    CHECK_RET(rowSums != nullptr, ACLNN_ERR_INNER_NULLPTR);",
             "    const aclIntArray* everyAxis = opgen_l2::AxisRange(shape.GetDimNum(), exec);",
             *summed(GRID_SUM, "rowSums", "total", "    ")]
    if GRID_SCALED in p.operands:
        lines[3:3] = [f"const aclTensor* {GRID_SCALED}K = {grid}K;   // (read by no form chosen here)"]
        lines += ["    // a sum of weights: also scaled by 2^-66, which the kernel reads where the sum is beyond FLOAT",
                  f"    if ({chosen(GRID_SCALED)}) {{",
                  f"        const aclTensor* scaledRows = l0op::Muls(rowSums, {2.0 ** -STEP!r}F, exec);",
                  "        CHECK_RET(scaledRows != nullptr, ACLNN_ERR_INNER_NULLPTR);",
                  *summed(GRID_SCALED, "scaledRows", "totalScaled", "        "),
                  "    }"]
    return lines + ["} else {", f"    {GRID_SUM}K = {grid}K;   // (read by no form chosen here)", "}"]


def body_lines(p: Plan) -> list[str]:
    """Level 2 after the checks: the kernel's dtypes, its operands, the launch, the result into the output."""
    if p.api_op is not None and p.api_op.per_output:
        return several_body_lines(p)
    if p.api_op is not None and p.api_op.classes is not None:
        return classes_body_lines(p)
    if p.api_op is not None:
        return split_body_lines(p)
    op = p.op
    out = op.output.name
    operands = p.operands
    optional = {t.name for t in op.tensors if t.optional}
    sum_to = op.output.sum_to
    lines = [
        "// the kernel's dtypes: the present operands promoted (FLOAT where no kernel reads that dtype), the result",
        f"// in {out}'s dtype when a kernel instance writes it on this SoC, else in the input dtype and cast after",
        f"const op::DataType inDtype = opgen_l2::Promoted({{{', '.join(operands)}}}, KernelInDtypes());",
    ]
    if sum_to:
        every = ", ".join(t.name for t in op.tensors)
        lines += [f"// summed back to {sum_to}'s shape after the kernel: the kernel writes FLOAT where it can, the sum",
                  f"// is cast to {out}'s dtype after",
                  "const op::DataType outDtype = KernelOutDtype(inDtype, op::DataType::DT_FLOAT);",
                  f"// the operands: contiguous, in inDtype, of the broadcast shape of {every.replace(', ', ', ')}",
                  f"const op::Shape shape = opgen_l2::BroadcastShape({{{every}}});"]
    else:
        lines += [f"const op::DataType outDtype = KernelOutDtype(inDtype, {out}->GetDataType());",
                  f"// the operands: contiguous, in inDtype, of {out}'s shape" + (", the reduced axis last" if p.rows else ""),
                  f"const op::Shape& shape = {out}->GetViewShape();"]
    lines += SHAPE_ARRAY
    perm = "nullptr"
    if p.rows:
        dim = _dim_cpp(op)
        lines += [f"const aclIntArray* toLast = opgen_l2::AxisPermutation({dim}, shape.GetDimNum(), true, exec);",
                  f"const aclIntArray* fromLast = opgen_l2::AxisPermutation({dim}, shape.GetDimNum(), false, exec);"]
        perm = "toLast"
    for t in operands:
        lines += _operand(t, perm=perm, optional=t in optional)
    lines += [f"// the kernel ({names.op_type(op)} on the AI Core)",
              f"const aclTensor* kernelResult = l0op::{names.l0_name(op)}({', '.join(l0_args(p))});",
              "CHECK_RET(kernelResult != nullptr, ACLNN_ERR_INNER_NULLPTR);"]
    if op.sequence is not None:   # codegen.spec.sequence: the kernel computed the form where IN_SEQUENCE holds
        sq = op.sequence
        lines += [f"// 0 at and past each sequence's length: t >= {sq.lengths}[b] (t along axis {sq.time}, b along "
                  f"{sq.batch})",
                  f"kernelResult = opgen_l2::KeepSequence(kernelResult, {sq.lengths}, {sq.time}, {sq.batch}, exec);",
                  "CHECK_RET(kernelResult != nullptr, ACLNN_ERR_INNER_NULLPTR);"]
    if sum_to:
        lines += [f"// the adjoint of broadcasting {sum_to}: the sum over the axes it was broadcast along, in its shape",
                  f"const aclIntArray* axes = opgen_l2::BroadcastAxes(shape, {out}->GetViewShape(), exec);",
                  "if (axes != nullptr) {",
                  "    kernelResult = l0op::ReduceSumOp(kernelResult, axes, true, exec);",
                  "    CHECK_RET(kernelResult != nullptr, ACLNN_ERR_INNER_NULLPTR);",
                  f"    kernelResult = l0op::Reshape(kernelResult, opgen_l2::ShapeArray({out}->GetViewShape(), exec), exec);",
                  "    CHECK_RET(kernelResult != nullptr, ACLNN_ERR_INNER_NULLPTR);",
                  "}"]
    if p.rows:
        lines += ["if (fromLast != nullptr) {",
                  "    kernelResult = l0op::Transpose(kernelResult, fromLast, exec);",
                  "    CHECK_RET(kernelResult != nullptr, ACLNN_ERR_INNER_NULLPTR);",
                  "}"]
    return lines + _into_output(out)


def launch_args(p: Plan) -> str:
    """ADD_TO_LAUNCHER_LIST_AICORE's arguments after the OpType: inputs, output, attributes (if any)."""
    op = p.op
    parts = [f"OP_INPUT({', '.join(p.operands)})", "OP_OUTPUT(out)"]
    attrs = ([q.name for q in opdef_attrs(op)] + [f"numel_{n}" for n in p.numels]
             + [lo_field(q.name) for q in lo_params(op)])
    return ", ".join(parts + ([f"OP_ATTR({', '.join(attrs)})"] if attrs else []))


def signature(params: list[str]) -> list[str]:
    """Parameters one per line, commas after all but the last."""
    return [x + ("," if i + 1 < len(params) else "") for i, x in enumerate(params)]


def header_context(p: Plan) -> dict:
    op = p.api
    stem = names.aclnn_name(op)
    return dict(op_name=op.name, op_type=names.op_type(op), vendor=names.VENDOR,
                guard=f"OPGEN_OP_API_{names.kernel_name(op).upper()}_H_", phase1=f"{stem}GetWorkspaceSize",
                phase2=stem, phase1_params=signature(aclnn_params(op) + ["uint64_t* workspaceSize",
                                                                         "aclOpExecutor** executor"]))


def source_context(p: Plan) -> dict:
    op = p.api
    files = names.files(op)
    return dict(
        header_context(p),
        aclnn_header=Path(files["aclnn_header"]).name, l0_header=Path(files["l0_header"]).name,
        out=", ".join(o.name for o in op.outputs), dtype_tables=dtype_tables(op),
        # (several outputs: the kernel op's instances, FLOAT-writing ones for a summed output among them)
        casting_instances=casting_instances(p.op if op.per_output else op), check_params=", ".join(aclnn_params(op)),
        check_args=", ".join(q.name for q in op.params),
        dfx_in=", ".join(q.name for q in op.params if q not in op.outputs), check_lines=check_lines(op),
        nothing_to_do=" || ".join([" && ".join(f"{o.name}->IsEmpty()" for o in op.outputs)
                                   if len(op.outputs) == 1 else
                                   "(" + " && ".join(f"{o.name}->IsEmpty()" for o in op.outputs) + ")"] + [
            # (an EmptyReturns input: the checks ended)
            f'opgen_l2::AnyEmpty({{{", ".join(s.others)}}}, "{s.param}")' for s in steps(op) if s.kind == "empty_returns"]),
        extra_includes=extra_includes(op, p), body=body_lines(p))


def extra_includes(op, p: Plan) -> str:
    """The #include lines level 2 needs beyond every op's (each ending in a newline; empty for most ops): a sum_to
    output's ReduceSum and Reshape; the Muls of a grid sum scaled by 2^-66 (grid_sum_lines)."""
    lines = ['#include "level0/muls.h"\n'] if GRID_SCALED in p.operands else []
    if any(o.sum_to for o in op.outputs):
        lines += ['#include "aclnn_kernels/reshape.h"\n', '#include "level0/reduce_sum_op.h"\n']
    return "".join(lines)


def l0_context(p: Plan) -> dict:
    op = p.op
    files = names.files(op)
    params = l0_params(p)
    return dict(op_name=op.name, op_type=names.op_type(op), l0=names.l0_name(op),
                guard=f"OPGEN_OP_API_L0_{names.kernel_name(op).upper()}_H_", l0_header=Path(files["l0_header"]).name,
                l0_params=", ".join(f"{t} {n}" for t, n in params),
                dfx_args=", ".join(n for _, n in params[:-1]), first=p.operands[0],
                launch_args=launch_args(p))


def render_aclnn_header(p: Plan, preamble: str) -> str:
    return render(TEMPLATES, "op_api/aclnn_op.h.jinja", preamble=preamble, **header_context(p))


def render_aclnn_source(p: Plan, preamble: str) -> str:
    return render(TEMPLATES, "op_api/aclnn_op.cpp.jinja", preamble=preamble, **source_context(p))


def render_l0_header(p: Plan, preamble: str) -> str:
    return render(TEMPLATES, "op_api/l0_op.h.jinja", preamble=preamble, **l0_context(p))


def render_l0_source(p: Plan, preamble: str) -> str:
    return render(TEMPLATES, "op_api/l0_op.cpp.jinja", preamble=preamble, **l0_context(p))


def l2_helpers() -> str:
    """templates/op_api/opgen_l2.h, copied into every project."""
    return (TEMPLATES / "op_api" / "opgen_l2.h").read_text()
