"""约束与限制: numerical notes and conventions, each read off the spec, its lowering or its proof.

- compute dtype and rounding: `op.compute_dtype` and the dtypes in the table;
- mixed input dtypes: input tensors no DtypeSame rule ties together;
- determinism: whether the lowered kernel reduces along `dim` (codegen.lower);
- validity conditions: every `Formula.assume`;
- branch points: the "convention" lines of the proof (`codegen.verify`): what the backward gives exactly at a
  branch point, next to both one-sided derivatives;
- broadcasting and empty tensors: the spec language's semantics, stated where the rules use them;
- the spec's own `notes`.
"""
from __future__ import annotations

import re

import sympy

from codegen.lower import lower
from codegen.spec import DTYPES, KERNEL_DTYPES
from codegen.spec import rules as R
from codegen.spec.params import Output, Tensor

from .errors import literal
from .formulas import when_words
from .latex import latex


def _is(lang, zh, en):
    return {"zh": zh, "en": en}[lang]


def _join(names, lang):
    return _is(lang, "、".join(names), ", ".join(names))


# ---- compute dtype, promotion, determinism -----------------------------------------------------------------
def compute_note(op, lang):
    claimed = {d for table in [op.dtypes] + [op.dtypes_of(t.name) for t in op.tensors] for dts in table.values()
               for d in dts}
    narrow = [d for d in KERNEL_DTYPES if d in claimed and d != op.compute_dtype]
    c = op.compute_dtype
    outs = _join([o.name for o in op.outputs], lang)
    if narrow and len(op.outputs) > 1:   # several outputs: a summed one adds its terms in double first
        summed = _join([o.name for o in op.outputs if o.sum_to], lang)
        text = _is(lang, f"计算精度:{_join(narrow, lang)}的输入先转换为{c}再计算,全部中间结果为{c},"
                         f"只在写入{outs}时舍入(就近舍入到偶数);{summed}的各项在double中求和,舍入到{c}后再写入。",
                   f"Precision: {_join(narrow, lang)} inputs are converted to {c} and computed in {c}; the results "
                   f"are rounded when written to {outs} (round to nearest even); the terms of {summed} are added "
                   f"in double, rounded to {c}, then written.")
    elif narrow:
        text = _is(lang, f"计算精度:{_join(narrow, lang)}的输入先转换为{c}再计算,全部中间结果为{c},"
                         f"只在写入{op.output.name}时舍入一次(就近舍入到偶数)。",
                   f"Precision: {_join(narrow, lang)} inputs are converted to {c} and computed in {c}; the result "
                   f"is rounded once, when written to {op.output.name} (round to nearest even).")
    else:
        text = _is(lang, f"计算精度:全部在{c}中计算。", f"Precision: everything is computed in {c}.")
    return text + _wide_sentences(op, [d for d in op.compute if d in claimed], lang)


def _wide_sentences(op, dtypes, lang):
    """What the dtypes outside FLOAT16/BFLOAT16/FLOAT compute in (Op.compute), and which backend computes them."""
    ints = lambda c: [d for d in dtypes if DTYPES[d].category in ("int", "bool") and op.compute_of(d) == c]
    out = ""
    if "DOUBLE" in dtypes and op.compute_of("DOUBLE") == "FLOAT":
        out += _is(lang, "DOUBLE的输入同样先转换为FLOAT计算(与CANN的op_api一致),结果再转换为输出的数据类型。",
                   " DOUBLE inputs are converted to FLOAT too and computed in FLOAT, as CANN's op_api does; the "
                   "result is cast to the output's dtype.")
    if ints("FLOAT"):
        names = _join(ints("FLOAT"), lang)
        out += _is(lang, f"{names}的输入转换为FLOAT计算(绝对值不超过2^24的整数精确);整数输出就近舍入(偶数优先)并饱和到其范围,"
                         "`nan`为0。",
                   f" {names} inputs are converted to FLOAT (integers up to 2^24 in magnitude exactly) and computed "
                   f"in FLOAT; an integer output takes the nearest integer (ties to even), saturated to its range, "
                   f"`nan` giving 0.")
    if "DOUBLE" in dtypes and op.compute_of("DOUBLE") == "DOUBLE":
        out += _is(lang, "DOUBLE在DOUBLE中计算(CANN由AI CPU计算)。", " DOUBLE is computed in DOUBLE (CANN computes it on "
                   "its AI CPU).")
    if ints("DOUBLE"):
        names = _join(ints("DOUBLE"), lang)
        out += _is(lang, f"{names}在DOUBLE中计算,DOUBLE精确表示其每个值,结果就近舍入回整数。",
                   f" {names} are computed in DOUBLE, which holds each of their values exactly; the result is rounded "
                   f"to the nearest integer.")
    complexes = [d for d in dtypes if op.compute_of(d) == "COMPLEX"]
    if complexes:
        names = _join(complexes, lang)
        out += _is(lang, f"{names}在双精度复数中计算(CANN由AI CPU计算):结果为gradOutput乘以局部导数的共轭"
                         f"(除gradOutput外的输入取共轭),与PyTorch和CANN AI CPU kernel的complex_conj一致。",
                   f" {names} are computed in complex double (CANN computes them on its AI CPU): the result is "
                   f"gradOutput times the conjugate of the local derivative (every input but gradOutput read "
                   f"conjugated), as PyTorch and the complex_conj of CANN's AI CPU kernel.")
    if set(op.computes) - {"FLOAT"}:
        out += _is(lang, "Ascend C后端没有DOUBLE或复数的AI Core kernel,这些调用由C后端的对应kernel计算。",
                   " The Ascend C backend has no AI Core kernel in DOUBLE or complex: those calls go to the C "
                   "backend's kernels.")
    if any(DTYPES[d].category in ("int", "bool") and op.compute_of(d) == "FLOAT" for d in dtypes) or (
            "DOUBLE" in dtypes and op.compute_of("DOUBLE") == "FLOAT"):
        out += _is(lang, "Ascend C后端的AI Core kernel只读写FLOAT16、BFLOAT16与FLOAT,其他数据类型由host侧先转换为FLOAT。",
                   " The Ascend C backend's AI Core kernel reads and writes FLOAT16, BFLOAT16 and FLOAT; other dtypes "
                   "are cast to FLOAT on the host first.")
    return out


def promotion_note(op, lang):
    """Input tensors whose dtypes no DtypeSame rule ties together may differ; all are computed in FLOAT."""
    counts = op.split.rows if op.split is not None else None   # a split op's row count is summed, not computed
    inputs = [t.name for t in op.tensors if t.name != counts]
    group = {n: n for n in inputs}

    def find(n):
        while group[n] != n:
            n = group[n]
        return n
    for r in op.rules:
        if isinstance(r, R.DtypeSame):
            members = [n for n in r.params if n in group]
            for n in members[1:]:
                group[find(n)] = find(members[0])
    classes = {}
    for n in inputs:
        classes.setdefault(find(n), []).append(n)
    if len(classes) < 2:
        return None
    c = op.compute_dtype
    if all(len(m) == 1 for m in classes.values()):
        names = _join(inputs, lang)
        if "DOUBLE" in op.computes:
            return _is(lang, f"数据类型组合:{names}的数据类型可以互不相同,计算前全部转换为推导后数据类型的计算精度。",
                       f"Mixed dtypes: {names} may have different dtypes; all are converted to the compute dtype of "
                       f"their promoted dtype before computing.")
        return _is(lang, f"数据类型组合:{names}的数据类型可以互不相同,计算前全部转换为{c}。",
                   f"Mixed dtypes: {names} may have different dtypes; all are converted to {c} before computing.")
    sep = _is(lang, ";", "; ")
    parts = sep.join(_join(m, lang) for m in classes.values())
    return _is(lang, f"数据类型组合:以下各组之间数据类型可以不同(组内须一致),计算前全部转换为{c}:{parts}。",
               f"Mixed dtypes: these groups may differ in dtype (each group has one dtype); all are converted to "
               f"{c} before computing: {parts}.")


def determinism_note(op, lang):
    summed = [o.name for o in op.outputs if o.sum_to]
    if len(op.outputs) > 1 and summed:   # several outputs (codegen.spec.outputs), one summed back
        s = _join(summed, lang)
        return _is(lang, f"确定性计算:{s}以外的输出元素只由对应位置(broadcast后)的输入元素算出;{s}的每个元素是"
                         "固定顺序的double求和;与并行切分无关,相同输入多次运行,结果逐位相同。",
                   f"Deterministic: each element of the outputs but {s} is computed from the input elements at its "
                   f"own (broadcast) position only; each element of {s} is a sum in double in a fixed order; "
                   f"independent of how the work is split, the same inputs give bitwise identical results on every "
                   f"run.")
    reduces = any(kv.reductions for kv in lower(op).variants)
    if reduces:
        dim = op.reduce_dim if op.dim_attr else _is(lang, f"第{op.reduce_dim}维", f"dimension {op.reduce_dim}")
        return _is(lang, f"确定性计算:沿{dim}的求和在每一行内按固定顺序完成;相同输入在同一产品上多次运行,结果逐位相同。",
                   f"Deterministic: the sums along {dim} run in a fixed order within each row; the same inputs on "
                   f"the same product give bitwise identical results on every run.")
    if op.split is not None and op.split.merged:
        t, dim = op.split.tensor, op.split.axis_words(lang)
        return _is(lang, f"确定性计算:{t}从{dim}起合轴为行,每个输出元素只由其所在行两半中对应位置的元素及其他输入的对应元素"
                         "算出(或为0),与并行切分无关;相同输入多次运行,结果逐位相同。",
                   f"Deterministic: {t} is read as rows from {dim} on; each output element is computed from the "
                   f"elements at the same position in the two halves of its row and in the other inputs only (or "
                   f"is 0), independent of how the work is split; the same inputs give bitwise identical results "
                   f"on every run.")
    if op.split is not None:
        t, dim = op.split.tensor, op.split.axis_words(lang)
        return _is(lang, f"确定性计算:每个输出元素只由{t}两半中对应位置的元素及其他输入的对应元素算出,与并行切分无关;"
                         "相同输入多次运行,结果逐位相同。",
                   f"Deterministic: each output element is computed from the elements at the same position in the "
                   f"two halves of {t} along {dim} and in the other inputs only, independent of how the work is "
                   f"split; the same inputs give bitwise identical results on every run.")
    return _is(lang, "确定性计算:每个输出元素只由对应位置(broadcast后)的输入元素算出,与并行切分无关;"
                     "相同输入多次运行,结果逐位相同。",
               "Deterministic: each output element is computed from the input elements at its own (broadcast) "
               "position only, independent of how the work is split; the same inputs give bitwise identical "
               "results on every run.")


def assume_notes(op, lang):
    out = []
    for f in op.formulas:
        if not f.assume:
            continue
        conds = _join([f"${latex(c, op)}$" for c in f.assume], lang)
        when = when_words(op, f.when, lang)
        out.append(_is(lang, f"公式适用条件:{when}的公式在{conds}时是正向函数的精确梯度(正确性证明的前提)。",
                       f"Validity: the form {when} is the exact gradient of the forward when {conds} (the "
                       f"premise of its proof)."))
    return out


# ---- branch points, from the proof -------------------------------------------------------------------------
_GIVES = re.compile(r"backward gives (?P<value>.+) \((?P<side>the left derivative|the right derivative|"
                    r"neither one-sided derivative); left (?P<left>.+), right (?P<right>.+)\)$")
_SIDE = {"the left derivative": ("等于左导数", "the left derivative"),
         "the right derivative": ("等于右导数", "the right derivative"),
         "neither one-sided derivative": ("不等于任一单侧导数", "neither one-sided derivative")}


def _parse(text: str, op):
    """A SymPy expression printed by the prover (`str()` of the op's symbols) back into SymPy.

    Names are swapped for placeholders first: a symbol may be called `lambda`, a Python keyword."""
    names = {str(s): s for s in [op.wrt] + [p.symbol for p in op.params if p.symbol is not None]}
    local = {}

    def swap(m):
        word = m.group(0)
        if word in names:
            key = f"_opgen_{len(local)}"
            local[key] = names[word]
            return key
        return word
    if re.fullmatch(r"-?\d+(/\d+)?", text.strip()):
        return sympy.Rational(text.strip())   # (1/2 unevaluated would print as 1 * 1/2)
    code = re.sub(r"[A-Za-z_]\w*", swap, text)
    return sympy.parse_expr(code, local_dict=local, evaluate=False) if code != "None" else None


def _case_words(label: str, op, lang):
    """The proof case: relations in LaTeX, settings (`isResult=true`) as code."""
    parts = []
    for part in label.split(", "):
        m = re.fullmatch(r"(\S+) < (\w+) < (\S+)", part)   # a scalar between two values: 0 < eps < 1/2
        if m:
            a, v, b = (latex(_parse(m.group(k), op), op) for k in (1, 2, 3))
            parts.append(f"${a} < {v} < {b}$")
            continue
        m = re.fullmatch(r"(\w+) (>|<|=) (.+)", part)
        if m:
            rel = {">": sympy.Gt, "<": sympy.Lt, "=": sympy.Eq}[m.group(2)]
            lhs, rhs = _parse(m.group(1), op), _parse(m.group(3), op)
            parts.append(f"${latex(rel(lhs, rhs, evaluate=False), op)}$")
        elif part == "all inputs":
            continue
        else:
            parts.append(f"`{part}`")
    return _join(parts, lang) if lang == "zh" else ", ".join(parts)


def branch_notes(op, lang, proof_results):
    """One line per branch point of every proven case (the 'convention' lines of `opgen verify`)."""
    out = []
    for r in proof_results:
        if r.verdict != "convention":
            continue
        m = _GIVES.match(r.detail)
        var, _, point = r.check.partition(" = ")
        if not m or not point:
            raise ValueError(f"{op.name}: cannot read the proof line {r.check!r}: {r.detail!r}")
        at = f"${latex(sympy.Eq(_parse(var, op), _parse(point, op), evaluate=False), op)}$"
        value, left, right = (_parse(m.group(k), op) for k in ("value", "left", "right"))
        side = _SIDE[m.group("side")][lang == "en"]
        tex = lambda e: "—" if e is None else f"${latex(e, op)}$"  # noqa: E731
        case = _case_words(r.formula, op, lang)
        prefix = _is(lang, f"{case}时," if case else "", f"With {case}, " if case else "")
        out.append(_is(lang, f"{prefix}在{at}处反向结果为{tex(value)},{side}(左导数{tex(left)},右导数{tex(right)})。",
                       f"{prefix}at {at} the backward gives {tex(value)}, {side} (left {tex(left)}, "
                       f"right {tex(right)})."))
    if out:
        head = _is(lang, "分支点约定(来自正确性证明 `opgen verify`):", "Branch points (from the proof, `opgen verify`):")
        return [head] + out
    return []


# ---- semantics the rules rely on ---------------------------------------------------------------------------
def broadcast_note(op, lang):
    if not any(isinstance(r, (R.Broadcastable, R.BroadcastTo, R.ShapeIsBroadcast)) for r in op.rules):
        return None
    text = _is(lang, "broadcast规则与NumPy相同:较短的shape在左侧补1,大小为1的维度扩展到另一方的大小。",
               "Broadcasting follows NumPy: the shorter shape is padded with 1 on the left; a size-1 dimension "
               "stretches to the other size.")
    for r in op.rules:   # a per-channel tensor is laid along its channel axis first (PerChannel)
        if isinstance(r, R.PerChannel):
            t, ref = r.params
            text += _is(lang, f"{t}不按此规则:其元素按顺序排在{ref}的第{r.dim}维上([1, C, 1, ...]),只有一个元素时"
                              "用于所有通道。",
                        f" {t} is not broadcast so: its elements, in order, lie along dimension {r.dim} of {ref} "
                        f"([1, C, 1, ...]); a single element serves every channel.")
    return text


def empty_note(op, lang):
    counts = op.split.rows if op.split is not None else None   # an empty row count means 0 rows, not nothing
    names = [p.name for p in op.params if isinstance(p, (Tensor, Output)) and p.name != counts]
    return _is(lang, f"空Tensor:{_join(names, lang)}的shape中含0时,参数检查通过后第一段接口返回workspaceSize为0并"
                     f"返回成功,不做任何计算。",
               f"Empty tensors: when a shape of {_join(names, lang)} contains 0, phase 1 returns workspaceSize 0 "
               f"and success once the checks pass; nothing is computed.")


def constraints(op, lang: str, proof_results) -> list:
    """The section's items in order: each a string, or a list [head, item, item, ...] for a nested list."""
    items = [compute_note(op, lang), promotion_note(op, lang), determinism_note(op, lang)]
    items += assume_notes(op, lang)
    branch = branch_notes(op, lang, proof_results)
    if branch:
        items.append(branch)
    items += [broadcast_note(op, lang), empty_note(op, lang)]
    items += [literal(n[lang]) for n in op.notes]   # plain text, not Markdown
    return [i for i in items if i]
