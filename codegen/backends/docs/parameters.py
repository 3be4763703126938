"""参数说明 of both phases: per parameter its role, direction, dtypes per product, format, shape rule and
whether it may be null — the spec's parameter list and doc text, plus one phrase per rule that names it.

A rule class without a phrase here is an error, not a silent omission: a new rule type must say how the docs
describe it (the error table uses `Rule.describe`, which every rule has).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from codegen.spec import rules as R
from codegen.spec.params import Attr, IntArray, Output, Scalar, Tensor

from .errors import literal
from .products import dtype_groups
from codegen.aclnn.cann import workspace_size_name
from codegen.aclnn.prototypes import c_type, phase1_name
from codegen.aclnn.prototypes import phase2_params as c_phase2_params

FORMAT = "ND"  # every operator of the spec language takes format ND (ascend.md §4)
PUBLIC_FORMATS = ("ND", "NCHW", "NHWC", "HWCN", "NDHWC", "NCDHW", "NCL")  # CANN's list where private ones are refused


def _is(lang, zh, en):
    return {"zh": zh, "en": en}[lang]


def _join(names, lang):
    names = list(names)
    if lang == "zh":
        return "、".join(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


@dataclass
class ParamDoc:
    name: str
    ctype: str              # 'const aclTensor *'
    direction: str          # 计算输入 / 计算输出 / 出参 / 入参 (input / output ...)
    summary: str            # the spec's doc text, then where it lives (Device/Host)
    details: list = field(default_factory=list)   # [(label, [lines])]: 数据类型, 数据格式, shape, 取值, 可选


# ---- phrases for one parameter of one rule ---------------------------------------------------------------
def _dtype_phrase(r, name, lang):
    others = [p for p in r.params if p != name]
    if isinstance(r, (R.DtypeSupported, R.FormatSame, R.FormatNotPrivate)):
        return None  # the dtype × product table itself; a format rule goes to the format line
    if isinstance(r, R.DtypeSame):
        return _is(lang, f"须与{_join(others, lang)}一致", f"must equal that of {_join(others, lang)}")
    if isinstance(r, R.DtypeCastable):
        src, dst = r.params
        if name == dst:
            return _is(lang, f"须可由{src}的数据类型转换得到(aclnn的互转换关系)",
                       f"must be castable from {src}'s dtype (aclnn's conversion rules)")
        return _is(lang, f"须可转换为{dst}的数据类型", f"must be castable to {dst}'s dtype")
    if isinstance(r, R.PromotedSupported):
        return _is(lang, f"可与{_join(others, lang)}不同,按aclnn的互推导关系推导后的数据类型须在上述范围之内",
                   f"may differ from that of {_join(others, lang)}: the dtype they promote to (aclnn's deduction "
                   f"rules) must be one listed above")
    if isinstance(r, (R.PromotedCastable, R.PromotedSame)):
        out, srcs = r.params[0], r.params[1:]
        if name != out:
            return None   # the output's entry says it
        if isinstance(r, R.PromotedSame):
            return _is(lang, f"须与{_join(srcs, lang)}推导后的数据类型一致",
                       f"must equal the promoted dtype of {_join(srcs, lang)}")
        return _is(lang, f"须可由{_join(srcs, lang)}推导后的数据类型转换得到(aclnn的互转换关系)",
                   f"must be castable from the promoted dtype of {_join(srcs, lang)} (aclnn's conversion rules)")
    raise TypeError(f"no doc phrase for dtype rule {type(r).__name__}")


def _shape_phrase(r, name, lang):
    others = [p for p in r.params if p != name]
    if isinstance(r, R.MaxRank):
        return _is(lang, f"维度不超过{r.n}维", f"at most {r.n} dimensions")
    if isinstance(r, R.MinRank):
        return _is(lang, f"维度不少于{r.n}维", f"at least {r.n} dimension{'s' if r.n != 1 else ''}")
    if isinstance(r, R.DimAtMost):
        return _is(lang, f"第{r.dim}维不超过{r.n}", f"dimension {r.dim} at most {r.n}")
    if isinstance(r, R.DimAtLeast):
        return _is(lang, f"第{r.dim}维不小于{r.n}", f"dimension {r.dim} at least {r.n}")
    if isinstance(r, R.NotEmpty):
        return _is(lang, "不能为空Tensor(至少一个元素)", "not empty (at least one element)")
    if isinstance(r, R.PerRow):   # one value per row (SwigluGroupGrad's weight)
        t, ref = r.params
        if name != t:
            return None
        return _is(lang, f"元素个数须等于{ref}除最后一维外各维大小之积(行数),shape任意;每行一个值,沿行broadcast",
                   f"as many elements as {ref} has rows (the product of its sizes but the last), in any shape; "
                   f"one value per row, broadcast along it")
    if isinstance(r, R.ShapeSame):
        return _is(lang, f"须与{_join(others, lang)}一致", f"must equal that of {_join(others, lang)}")
    if isinstance(r, R.ShapeSameOrOneElement):
        dst = r.params[-1]
        if name == dst:
            return None  # the target: the sources describe the relation
        return _is(lang, f"须与{dst}一致或只有一个元素", f"must equal {dst}'s or have exactly one element")
    if isinstance(r, R.BroadcastTo):
        dst = r.params[-1]
        if name == dst:
            return None  # the target: the sources describe the relation
        return _is(lang, f"须可broadcast到{dst}的shape", f"must broadcast to {dst}'s shape")
    if isinstance(r, R.Broadcastable):
        return _is(lang, f"须与{_join(others, lang)}满足broadcast关系",
                   f"must broadcast with {_join(others, lang)}")
    if isinstance(r, R.ShapeIsBroadcast):
        out, srcs = r.params[0], r.params[1:]
        if name != out:
            return None  # the sources: the output describes the relation
        return _is(lang, f"须为{_join(srcs, lang)} broadcast后的shape",
                   f"must be the broadcast shape of {_join(srcs, lang)}")
    if isinstance(r, R.BroadcastsInto):
        src, others = r.params[0], r.params[1:]
        if name != src:
            return None  # the others: the source describes the relation
        return _is(lang, f"须可broadcast到{_join(others, lang)} broadcast后的shape(不能扩大它)",
                   f"must broadcast to the broadcast shape of {_join(others, lang)} (without enlarging it)")
    if isinstance(r, R.DimInRange):
        return None  # a value rule of the attribute; the tensor is only its reference
    if isinstance(r, (R.ClassTarget, R.ClassCount)):   # class-index targets (codegen.spec.classes)
        t, ref = r.params
        if name != t:
            return None
        if isinstance(r, R.ClassCount):
            return _is(lang, f"元素个数须等于{ref}的类别数C(第1维,{ref}为1维时为第0维)",
                       f"as many elements as {ref} has classes, C (its dimension 1, or 0 for a 1-D {ref})")
        return _is(lang, f"须为{ref}去掉类别维(第1维)后的shape;{ref}为1维时为0维或(1)",
                   f"{ref}'s shape without its class axis (dimension 1); rank 0 or (1) for a 1-D {ref}")
    if isinstance(r, R.OneElement):
        return _is(lang, "只有一个元素(任意维数)", "exactly one element (of any rank)")
    if isinstance(r, R.ArrayLength):   # an aclIntArray's length (codegen.spec.params.IntArray)
        a, ref = r.params
        if name != a:
            return None
        return _is(lang, f"长度须等于{ref}第{r.dim}维的大小", f"as many values as {ref}'s size along dimension {r.dim}")
    if isinstance(r, R.PerChannel):   # a per-channel tensor (PReLU's weight)
        t, ref = r.params
        if name != t:
            return None
        return _is(lang, f"元素个数为1,或等于{ref}第{r.dim}维的大小C(通道数),shape任意;按通道(第{r.dim}维)读取",
                   f"1 element, or as many as {ref} has channels, C (its dimension {r.dim}), in any shape; read "
                   f"along dimension {r.dim}")
    if isinstance(r, R.ChannelGrad):
        g, t, ref = r.params
        if name != g:
            return None
        return _is(lang, f"{t}的元素个数不为1时为[C] (C为{ref}第{r.dim}维的大小),否则与{t}的shape一致",
                   f"[C] (C: {ref}'s dimension {r.dim}) when {t} has other than one element, else {t}'s shape")
    raise TypeError(f"no doc phrase for shape rule {type(r).__name__}")


def _value_phrase(r, name, lang, op):
    from codegen.text import condition_code, condition_text
    if isinstance(r, R.DimInRange):
        dim, t = r.params
        if name != dim:
            return None
        return _is(lang, f"[-n, n-1],n为{t}的维数(0维按1维计)",
                   f"in [-n, n-1], n being {t}'s rank (a rank-0 tensor counts as rank 1)")
    if isinstance(r, R.DimEven):
        t, dim = r.params
        if name != t:
            return None
        return _is(lang, f"在{dim}维上的大小须为偶数(沿{dim}均分为两半)",
                   f"of an even size along {dim} (split in halves along it)")
    if isinstance(r, R.ShapeHalved) and r.axis is not None:   # a fixed axis
        t, ref = r.params
        if name != t:
            return None
        where = _is(lang, "最后一维" if r.axis == -1 else f"第{r.axis}维",
                    "the last dimension" if r.axis == -1 else f"dimension {r.axis}")
        return _is(lang, f"shape须与{ref}在{where}上减半后的shape一致({ref}在该维的大小为其2倍)",
                   f"of {ref}'s shape with {where} halved ({ref}'s size there twice its own)")
    if isinstance(r, R.ShapeHalved):
        t, ref, dim = r.params
        if name != t:
            return None
        return _is(lang, f"shape须与{ref}在{dim}维上减半后的shape一致", f"of {ref}'s shape with {dim} halved")
    if isinstance(r, R.PresentWith):
        given, t = r.params
        return _is(lang, f"{given}不为空时{t}须提供", f"{t} must be given when {given} is") if name in r.params \
            else None
    if isinstance(r, R.SampleShaped):
        g, ref, red = r.params
        if name != g:
            return None
        return _is(lang, f"{red}为none且{ref}至少2维时为{ref}去掉类别维(第1维)后的shape,否则为单个元素(0维或1维)",
                   f"{ref}'s shape without its class axis (dimension 1) for {red} none with a {ref} of rank 2 or "
                   f"more, otherwise one element (rank 0 or 1)")
    if isinstance(r, R.OneOf):
        attr = op.param(name)
        names = getattr(attr, "values", {}) or {}
        vals = [f"{v}{_is(lang, '', ' ')}({names[v]})" if v in names else str(v) for v in r.values]
        return _is(lang, f"只能取{'、'.join(vals)}", f"one of {', '.join(vals)}")
    if isinstance(r, R.ArrayInRange):
        if name != r.params[0]:
            return None   # a tensor whose size bounds the values: the array's entry says it
        lo, hi = (None if b is None else R._bound_text(b, lang) for b in (r.low, r.high))
        if lo is not None and hi is not None:
            return _is(lang, f"每个取值须在[{lo}, {hi}]之内", f"each value in [{lo}, {hi}]")
        return _is(lang, f"每个取值须不小于{lo}", f"each value at least {lo}") if lo is not None else \
            _is(lang, f"每个取值须不大于{hi}", f"each value at most {hi}")
    if isinstance(r, R.Requires):
        cond = condition_code(r.condition, op)
        if str(r.when) == "True":
            return _is(lang, f"须满足{cond}", f"must satisfy {cond}")
        when = condition_text(r.when, lang, op)
        return _is(lang, f"当{when}时须满足{cond}", f"must satisfy {cond} when {when}")
    raise TypeError(f"no doc phrase for value rule {type(r).__name__}")


def _phrases(op, name, category, lang):
    out = []
    for r in op.rules:
        if name not in r.params or r.category != category:
            continue
        phrase = {"dtype": lambda: _dtype_phrase(r, name, lang),
                  "shape": lambda: _shape_phrase(r, name, lang),
                  "value": lambda: _value_phrase(r, name, lang, op)}[category]()
        if phrase and phrase not in out:
            out.append(phrase)
    return out


def _sentence(parts, lang):
    if lang == "en":
        text = "; ".join(parts)
        return text[0].upper() + text[1:] + "."
    return ",".join(parts) + "。"


# ---- one parameter ---------------------------------------------------------------------------------------
def _dtype_lines(op, name, lang):
    """One line per group of products with the same dtypes: every tensor's table (one that a DtypeSame rule ties
    to a checked tensor too: the reader should not have to work it out)."""
    sep = _is(lang, "、", ", ")
    return [_is(lang, f"{'、'.join(products)}:{sep.join(dts)}。", f"{', '.join(products)}: {sep.join(dts)}.")
            for products, dts in dtype_groups(op.dtypes_of(name), lang)]


def _tensor_details(op, p, lang):
    details = []
    dtype = _dtype_lines(op, p.name, lang)
    relations = _phrases(op, p.name, "dtype", lang)
    if relations:
        dtype.append(_is(lang, "数据类型", "") + _sentence(relations, lang))
    if dtype:
        details.append((_is(lang, "数据类型", "dtype"), dtype))
    details.append((_is(lang, "数据格式", "format"), [_format_line(op, p.name, lang)]))
    # (a tensor a NotEmpty rule names is not accepted empty)
    empty = [] if any(type(r).__name__ == "NotEmpty" and p.name in r.params for r in op.rules) else \
        [_is(lang, "支持空Tensor", "empty tensors are accepted")]
    shape = _phrases(op, p.name, "shape", lang) + empty
    details.append(("shape", [_sentence(shape, lang)]))
    return details


def _format_line(op, name, lang):
    """ND; for a tensor a FormatSame rule compares, also that its format must be the others'; for one a
    FormatNotPrivate rule names, the public formats CANN's pages list for such an operator."""
    others = [n for r in op.rules if isinstance(r, R.FormatSame) and name in r.params for n in r.params if n != name]
    public = any(isinstance(r, R.FormatNotPrivate) and name in r.params for r in op.rules)
    first = (_is(lang, f"支持{'、'.join(PUBLIC_FORMATS)},不支持私有格式", f"{', '.join(PUBLIC_FORMATS)}; no private format")
             if public
             else _is(lang, f"支持{FORMAT}", FORMAT))
    if not others:
        return first + _is(lang, "。", ".")
    return first + _is(lang, f",须与{_join(others, lang)}一致。", f"; must equal that of {_join(others, lang)}.")


def _nullability(p, lang):
    if isinstance(p, Scalar) and p.optional:
        return _is(lang, f"可选,可传空指针,为空时取{p.default}。", f"yes: may be null, which means {p.default}.")
    if getattr(p, "optional", False) and getattr(p, "default", None) is None:   # (a row count, an optional output)
        return _is(lang, "可选,可传空指针,含义见描述。", "yes: may be null, as its description says.")
    if getattr(p, "optional", False):
        return _is(lang, f"可选,可传空指针,为空时按全{p.default}处理。",
                   f"yes: may be null, which means all {p.default}.")
    if isinstance(p, Attr) and p.type != "string":
        return None  # passed by value: there is no null
    return _is(lang, "必选,不能为空指针。", "no: must not be null.")


def phase1_params(op, lang: str) -> list[ParamDoc]:
    docs = []
    for p in op.params:
        doc = literal(p.doc[lang].strip())   # the spec's words are plain text, not Markdown
        if isinstance(p, (Tensor, Output)):
            where = _is(lang, "Device侧的aclTensor。", "An aclTensor on the device.")
            details = _tensor_details(op, p, lang)
        elif isinstance(p, Scalar):
            where = _is(lang, f"Host侧的aclScalar,数据类型为{p.dtype}。",
                        f"An aclScalar on the host, of dtype {p.dtype}.")
            details = []
        elif isinstance(p, IntArray):
            where = _is(lang, "Host侧的aclIntArray,元素为INT64。", "An aclIntArray on the host, of INT64 values.")
            shape = _phrases(op, p.name, "shape", lang)
            details = [(_is(lang, "长度", "length"), [_sentence(shape, lang)])] if shape else []
        else:
            kind = p.spec_type
            where = _is(lang, f"Host侧的{kind.zh}。", f"A host {kind.en}.")
            details = []
        values = _phrases(op, p.name, "value", lang)
        if values:
            details.append((_is(lang, "取值", "value"), [_sentence(values, lang)]))
        null = _nullability(p, lang)
        if null:
            details.append((_is(lang, "是否可选", "optional"), [null]))
        direction = _is(lang, "计算输出", "output") if isinstance(p, Output) else _is(lang, "计算输入", "input")
        docs.append(ParamDoc(p.name, c_type(p).strip(), direction, f"{doc}{_spacer(doc, lang)}{where}", details))
    docs.append(ParamDoc("workspaceSize", "uint64_t *", _is(lang, "出参", "output"),
                         _is(lang, "返回需要在Device侧申请的workspace大小。",
                             "Returns the size of the workspace to allocate on the device.")))
    docs.append(ParamDoc("executor", "aclOpExecutor **", _is(lang, "出参", "output"),
                         _is(lang, "返回op执行器,包含了算子计算流程。",
                             "Returns the op executor, which holds the computation.")))
    return docs


def _spacer(doc, lang):
    return "" if lang == "zh" else " "


def phase2_params(op, lang: str) -> list[ParamDoc]:
    words = {
        "workspace": _is(lang, "在Device侧申请的workspace内存地址。", "The workspace memory allocated on the device."),
        workspace_size_name(op.name): _is(lang, f"在Device侧申请的workspace大小,由第一段接口{phase1_name(op)}获取。",
                             f"The size of that workspace, as returned by the first phase {phase1_name(op)}."),
        "executor": _is(lang, "op执行器,包含了算子计算流程。", "The op executor, which holds the computation."),
        "stream": _is(lang, "指定执行任务的Stream。", "The stream the task runs on."),
    }
    return [ParamDoc(n, t.strip(), _is(lang, "入参", "input"), words[n]) for t, n in c_phase2_params(op)]
