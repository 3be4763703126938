"""What `op_kernel/<op>.cpp` says, prepared for its templates (op_kernel.cpp.jinja, kernel_class.cpp.jinja):
one class per kernel variant and one `TILING_KEY_IS` branch per (variant, input dtype, output dtype).

The templates only substitute and loop; every choice is made here, in small functions: which fixed fragment a
class uses (rows or elementwise, templates/kernel/), which buffers and members it declares, the declarations
around each Compute pass's lowered instructions, the rounding mode of each architecture's narrowing Cast.
"""
from __future__ import annotations

from pathlib import Path

from codegen.lower import wide_reductions
from codegen.spec import Op
from codegen.template_util import render
from codegen.text import condition_code

from . import names
from . import tiling as T
from .outline import named
from .plan import CPP_TYPE, Pass, Plan, VariantPlan, all_combos, tiling_key
from .socs import ARCHS, archs_of

TEMPLATES = Path(__file__).parent / "templates"
FRAGMENTS = TEMPLATES / "kernel"


def fragment(name: str) -> str:
    """A fixed piece of kernel code (templates/kernel/<name>.cpp), without its final newline."""
    return (FRAGMENTS / f"{name}.cpp").read_text().rstrip("\n")


def mode(p: Plan) -> str:
    """`rows` (a row reduction: each core takes whole rows) or `elementwise`."""
    return "rows" if p.rows else "elementwise"


# ---- the whole file --------------------------------------------------------------------------------------------
def documented(op: Op) -> list[str]:
    """The spec's documented backward, one line per formula (`when k=v: expr`)."""
    def when_text(when):
        return ("when " + ", ".join(f"{k}={str(v).lower()}" for k, v in when.items()) + ": ") if when else ""
    return [when_text(f.when) + condition_code(f.expr, op) for f in op.formulas]


def round_mode_lines(op: Op) -> list[str]:
    """The body of `NarrowingRound<T>()`: the RoundMode of the float -> T Cast, per architecture (socs.py)."""
    archs = archs_of(op.dtypes)
    lines = []
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
    return lines


def kernel_int_fields(p: Plan) -> list[str]:
    """The tiling fields every class's Init takes, in order."""
    if p.rows:
        return ["rowLength", "rowsPerCore", "lastCoreRows", "tileLength", "tilesPerRow", "floatSlots"]
    return ["blockLength", "lastBlockLength", "tileLength", "floatSlots"]


def bf16_guard(din: str, dout: str) -> tuple[list[str], list[str]]:
    """(#if, #endif) around a tiling key that names bfloat16_t: only architectures with bfloat16 compile it."""
    if "BFLOAT16" not in (din, dout):
        return [], []
    cond = " || ".join(f"__CCE_AICORE__ == {a.aicore}" for a in ARCHS.values() if a.bf16)
    return [f"#if {cond}"], ["#endif"]


def dispatch(p: Plan) -> list[dict]:
    """One `TILING_KEY_IS` branch per variant × dtype pair."""
    op = p.op
    keys = []
    for v in p.variants:
        args = ", ".join(v.tensors + [op.output.name] + [f"tilingData.{f}" for f in kernel_int_fields(p)]
                         + [f"tilingData.{s}" for s in v.scalars])
        for din, dout in all_combos(op):
            open_, close = bf16_guard(din, dout)
            keys.append(dict(key=tiling_key(v.index, din, dout), cls=v.cls, tin=CPP_TYPE[din], tout=CPP_TYPE[dout],
                             init_args=args, doc=f"{v.doc}; {din} in, {dout} out",
                             guard_open=open_, guard_close=close))
    return keys


def share_doc(p: Plan) -> str:
    return "whole rows along dim" if p.rows else "32-byte aligned, the last core the uneven tail"


def contract(p: Plan) -> str:
    if p.rows:
        return "operands have the output's shape, contiguous, with dim moved last (rows of rowLength)"
    return "operands have the output's shape, contiguous"


def helpers(p: Plan) -> tuple[list[str], dict]:
    """The pair operations' helper functions the passes call (codegen.backends.ascendc.outline), each once, inner
    ones first, named in order of first use; one that only some architectures' passes call is compiled for those
    alone (it may use an instruction the others lack).  Returns (lines, {placeholder key: name})."""
    found = {}
    for v in p.variants:
        for q in v.passes:
            for arch, low in q.lowered.items():
                for h in low.helpers:
                    found.setdefault(h.key, h).archs.add(arch)
    all_archs = {a.name for a in archs_of(p.op.dtypes)}
    counts, names_ = {}, {}
    for h in found.values():
        counts[h.method] = counts.get(h.method, 0) + 1
        names_[h.key] = f"{h.method}{counts[h.method]}"
    names_ = {k: n[:-1] if n.endswith("1") and counts[found[k].method] == 1 else n for k, n in names_.items()}
    lines = []
    for h in found.values():
        guard = h.archs != all_archs
        lines.append("")
        if guard:
            lines.append("#if " + " || ".join(f"__CCE_AICORE__ == {ARCHS[a].aicore}" for a in sorted(h.archs)))
        lines.append(f"// {h.doc}")
        lines += wrap_signature(f"__aicore__ inline void {names_[h.key]}(", h.params)
        lines.append("{")
        lines += ["    " + line for line in named(h.body, names_)]
        lines.append("}")
        if guard:
            lines.append("#endif")
    return lines, names_


def pair_row_sum(p: Plan) -> list[str]:
    """templates/kernel/pair_row_sum.cpp where a variant sums a row as a pair (Lowering.pair_row_sum)."""
    if not any(wide_reductions(v.kv) for v in p.variants):
        return []
    return fragment("pair_row_sum").split("\n")


def wrap_signature(head: str, params: list[str], width: int = 116) -> list[str]:
    """`head` and the parameters, broken before a parameter that would pass `width`, aligned under the first."""
    lines, line = [], head
    for i, prm in enumerate(params):
        piece = prm + (")" if i == len(params) - 1 else ",")
        if line != head and len(line) + 1 + len(piece) > width:
            lines.append(line)
            line = " " * len(head) + piece
        else:
            line += ("" if line == head else " ") + piece
    lines.append(line)
    return lines


def kernel_context(p: Plan, forget_tail: bool = False) -> dict:
    op = p.op
    files = names.files(op)
    helper_lines, helper_names = helpers(p)
    return dict(
        op_name=op.name, description=op.description.en, out=op.output.name, documented=documented(op),
        share_doc=share_doc(p), contract=contract(p), aclnn_source=Path(files["aclnn_source"]).name,
        tiling_header=Path(files["kernel_tiling"]).name, buffer_num=T.BUFFER_NUM,
        tile_io=fragment("tile_io_forget_tail" if forget_tail else "tile_io"),
        round_modes=round_mode_lines(op),
        helpers=helper_lines + pair_row_sum(p),
        classes=[render(TEMPLATES, "kernel_class.cpp.jinja", **class_context(p, v, helper_names)).rstrip("\n")
                 for v in p.variants],
        kernel_name=names.kernel_name(op),
        kernel_params=", ".join(f"GM_ADDR {t}" for t in p.operands + [op.output.name, "workspace", "tiling"]),
        tiling_type=p.tiling_type, keys=dispatch(p))


# ---- one class per variant -------------------------------------------------------------------------------------
def extra_buffers(p: Plan, v: VariantPlan) -> list[str]:
    """InitBuffer calls beyond the queues and the float slots: Compare masks, ReduceSum work and results."""
    lines = []
    if v.num_masks:
        lines.append(f"pipe_.InitBuffer(maskBuf_, {v.num_masks} * (tileLength / 2));  "
                     f"// {v.num_masks} mask(s): 32 bytes per 256-byte repeat")
    if p.rows:
        lines.append("pipe_.InitBuffer(workBuf_, (tileLength / REPEAT_ELEMS * sizeof(float) + 31) / 32 * 32);  "
                     "// ReduceSum partials")
        lines.append(f"pipe_.InitBuffer(sumBuf_, {v.num_sums} * 32);  // one 32-byte result per row sum")
    return lines


def calc_buffers(p: Plan, v: VariantPlan) -> list[str]:
    return (["maskBuf_"] if v.num_masks else []) + (["workBuf_", "sumBuf_"] if p.rows else [])


def share_fields(p: Plan) -> list[str]:
    return ["rowLength_", "rows_", "tilesPerRow_"] if p.rows else ["length_"]


def sums_constant(v: VariantPlan) -> str:
    """The length of a row's `sums`: its row sums, then the lo parts of those a pair sum reads (plan._lo_names),
    then their scaled sums (sHi, sLo, c: plan._scaled_names)."""
    wide = len(wide_reductions(v.kv))
    if not wide:
        return f"static constexpr uint32_t NUM_SUMS = {v.num_sums};  // row sums"
    return (f"static constexpr uint32_t NUM_SUMS = {v.num_sums} + 4 * {wide};  "
            f"// row sums, then the lo parts of the {wide} summed as pairs, then their scaled sums")


def class_context(p: Plan, v: VariantPlan, helper_names: dict) -> dict:
    op = p.op
    init_params = ([f"GM_ADDR {t}" for t in v.tensors] + [f"GM_ADDR {op.output.name}"]
                   + [f"uint32_t {f}" for f in kernel_int_fields(p)] + [f"float {s}" for s in v.scalars])
    return dict(
        doc=v.doc, cls=v.cls, out=op.output.name, tensors=v.tensors, scalars=v.scalars,
        constants=[sums_constant(v)] if p.rows else [],
        init_params=", ".join(init_params), share=fragment(f"{mode(p)}_share"),
        extra_buffers=extra_buffers(p, v), process=fragment(f"{mode(p)}_process"),
        passes=[pass_context(v, q, helper_names) for q in v.passes], calc_buffers=calc_buffers(p, v),
        share_fields=share_fields(p))


# ---- one Compute pass --------------------------------------------------------------------------------------------
def pass_prologue(v: VariantPlan, q: Pass) -> list[str]:
    """Declarations before the lowered instructions: the result tile, temporaries, masks, ReduceSum buffers."""
    lines = []
    if q.writes:
        lines += ["LocalTensor<TOut> outTile = outQueue_.AllocTensor<TOut>();",
                  f"LocalTensor<float> res = ResultTile(outTile, slots, {v.num_temps} + (sizeof(TIn) < sizeof(float) "
                  f"? {len(v.tensors)} : 0), tileLength_);"]
    lines += [f"LocalTensor<float> f{i} = slots[{i} * tileLength_];" for i in range(q.num_temps)]
    lines += [f"LocalTensor<uint8_t> m{i} = maskBuf_.Get<uint8_t>()[{i} * (tileLength_ / 2)];"
              for i in range(q.num_masks)]
    if q.sums:
        lines.append("LocalTensor<float> work = workBuf_.Get<float>();")
        lines += [f"LocalTensor<float> sum{i} = sumBuf_.Get<float>()[{i * 8}];" for i in range(v.num_sums)]
    if q.local_sums:
        lines.append("float sums[NUM_SUMS] = {};")
    return lines


def pass_epilogue(q: Pass) -> list[str]:
    return ["FromFloat(outTile, res, calc);", "outQueue_.EnQue(outTile);"] if q.writes else []


def pass_context(v: VariantPlan, q: Pass, helper_names: dict) -> dict:
    return dict(doc=q.doc, name=q.name, params="uint32_t len" + q.extra_param,
                loads=[(t, v.num_temps + i) for i, t in enumerate(v.tensors)],
                prologue=pass_prologue(v, q), lines=named(q.lines, helper_names), epilogue=pass_epilogue(q))


def render_kernel(p: Plan, preamble: str, forget_tail: bool = False) -> str:
    return render(TEMPLATES, "op_kernel.cpp.jinja", preamble=preamble, **kernel_context(p, forget_tail))
