"""The 功能描述 formulas: the spec's forward and every documented backward form, printed by DocLatexPrinter.

Nothing here re-derives or rewrites a formula: each LaTeX string is the print of the very SymPy object the
kernels are lowered from (`op.forward`, `op.formulas[i].expr`); `formula_items` keeps the object next to its
LaTeX so the tests can check that identity.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy

from codegen.spec import ABSENT, PRESENT, DimSum, Formula
from codegen.spec.functions import numel, numel_param
from codegen.spec.params import FORWARD_INPUT, FORWARD_OUTPUT, Attr, Scalar, Tensor

from .latex import latex

@dataclass
class FormulaItem:
    when: str              # the words for the form's condition ('' for an unconditional form)
    tex: str               # `lhs = rhs` in LaTeX
    source: object         # the SymPy object printed (a Formula for backward forms, the forward expression)
    forward: object = None  # a backward form's own forward (Formula.forward), as a FormulaItem


def _is(lang, zh, en):
    return {"zh": zh, "en": en}[lang]


def when_words(op, when: dict, lang: str) -> str:
    """`isResult为true时` / `when isResult is true`; optional tensors read as null / given."""
    parts = []
    for name, value in when.items():
        if isinstance(op.param(name), Attr) and op.param(name).type == "string":
            parts.append(_is(lang, f'{name}为"{value}"', f'{name} is "{value}"'))
        elif isinstance(op.param(name), Attr) and op.param(name).type == "int64":
            parts.append(_is(lang, f"{name}为{value}", f"{name} is {value}"))
        elif isinstance(op.param(name), Attr):
            v = "true" if value else "false"
            parts.append(_is(lang, f"{name}为{v}", f"{name} is {v}"))
        elif value == ABSENT:
            parts.append(_is(lang, f"{name}为空指针", f"{name} is null"))
        elif value == PRESENT:
            parts.append(_is(lang, f"{name}不为空", f"{name} is given"))
        else:
            raise ValueError(f"{op.name}: unknown condition {name}={value!r}")
    if not parts:
        return ""
    return _is(lang, "当" + "且".join(parts) + "时", "when " + " and ".join(parts))


def forward_lhs(op) -> str:
    """`\\operatorname{LogSigmoid}(x)`; for a loss, the per-element loss `\\ell`."""
    if op.loss_reduction:
        return r"\ell"
    name = op.forward_name or "f"
    if op.split is not None:   # written on the halves of the split input: the input itself on the left
        return r"\operatorname{%s}(\mathit{%s})" % (name, op.split.tensor)
    return r"\operatorname{%s}(%s)" % (name, latex(op.wrt, op))


def forward_item(op) -> FormulaItem:
    return FormulaItem("", f"{forward_lhs(op)} = {latex(op.forward, op)}", op.forward)


def reduction_item(op) -> FormulaItem | None:
    """For a loss: the reduced loss per value of the reduction attribute (its modes and the divisors its
    `Reduction` declares), over the elements of the loss."""
    if not op.loss_reduction:
        return None
    red = op.reduction
    attr = op.param(red.attr)
    i = sympy.Symbol("i", integer=True, positive=True)
    ell = sympy.IndexedBase("ell")[i]
    total = sympy.Sum(ell, (i, 1, sympy.Symbol("N", integer=True, positive=True)))
    pieces = []
    for value in attr.values:
        mode, d = red.mode(op, value), red.divisor(op, value)
        form = ell if mode == "none" else total / d if d is not None else total
        if attr.type == "string":   # a C string: its name equal to the text (it has no symbol)
            pieces.append((form, sympy.Eq(sympy.Symbol(attr.name), sympy.Symbol(r'\text{"%s"}' % value))))
        else:
            pieces.append((form, sympy.Eq(attr.symbol, value)))
    loss = sympy.Piecewise(*pieces)
    name = op.forward_name or "loss"
    return FormulaItem("", r"\operatorname{%s} = %s" % (name, latex(loss, op)), loss)


def backward_items(op, lang: str) -> list[FormulaItem]:
    """One item per documented form, in the spec's order, each `output = expr` with its condition, then one per
    declared value where the forward is not differentiable (`Op.at`, `Formula.at`)."""
    lhs = latex(sympy.Symbol(op.output.name), op)
    items = [FormulaItem(_is(lang, "", ", ").join(w for w in (when_words(op, f.when, lang), _half_words(op, f, lang),
                                                              _output_words(op, f, lang)) if w),
                         f"{_lhs(op, f)} = {_sum(op, f)}{latex(f.expr, op)}", f,
                         FormulaItem("", f"{forward_lhs(op)} = {latex(f.forward, op)}", f.forward)
                         if f.forward is not None else None)
             for f in op.formulas]
    tables = [({}, op.at)] + [(f.when, f.at) for f in op.formulas if f.at]
    for when, table in tables:
        for rel, value in table.items():
            at = f"${latex(rel, op)}$"
            words = when_words(op, when, lang)
            words = _is(lang, f"{words}在{at}处(正向函数在此不可导,取值由接口约定)",
                        f"{words + ', ' if words else ''}at {at} (the forward is not differentiable there; "
                        f"the value is the interface's choice)")
            items.append(FormulaItem(words, f"{lhs} = {latex(sympy.sympify(value), op)}", rel))
    return items


def _output_of(op, f):
    """The output a form computes (an op with several: `Formula(output=...)`, the first by default)."""
    return op.param(f.output) if f.output else op.outputs[0]


def _lhs(op, f) -> str:
    return latex(sympy.Symbol(_output_of(op, f).name), op)


def _sum(op, f) -> str:
    """A summed-back output's form is the term of its sum: a sum sign before it."""
    return r"\sum " if len(op.outputs) > 1 and _output_of(op, f).sum_to else ""


def _output_words(op, f, lang: str) -> str:
    """For an op with several outputs: which output the form gives, and for a summed one over what."""
    if len(op.outputs) <= 1:
        return ""
    o = _output_of(op, f)
    if not o.sum_to:
        return _is(lang, f"{o.name}", f"{o.name}")
    if any(type(r).__name__ == "PerRow" and r.params[0] == o.sum_to for r in op.rules):   # one value per row
        return _is(lang, f"{o.name}:沿每行(最后一维)求和,每行一个值(与{o.sum_to}一致)",
                   f"{o.name}: summed along each row (the last axis), one value per row (as {o.sum_to})")
    return _is(lang, f"{o.name}:对{o.sum_to}被broadcast的各轴求和(逐通道的{o.sum_to}:除通道轴外的所有轴)",
               f"{o.name}: summed over the axes along which {o.sum_to} was broadcast (a per-channel {o.sum_to}: "
               f"every axis but the channel)")


def _half_words(op, f, lang: str) -> str:
    """For a split op's form: which half of the output it gives."""
    if f.wrt is None:
        return ""
    out, dim = op.output.name, op.split.axis_words(lang)
    first = f.wrt == op.wrt[0]
    if op.split.merged:   # read as rows from dim on (codegen.spec.split)
        return _is(lang, f"{out}中{f.wrt}所在的位置(对{f.wrt}的梯度)",
                   f"{out} where {f.wrt} is in {op.split.tensor} (the gradient w.r.t. {f.wrt})")
    return _is(lang, f"{out}沿{dim}的{'前' if first else '后'}半(对{f.wrt}的梯度)",
               f"the {'first' if first else 'second'} half of {out} along {dim} (the gradient w.r.t. {f.wrt})")


def _symbols_used(op) -> set:
    exprs = [sympy.sympify(op.forward)] + [sympy.sympify(f.expr) for f in op.formulas] + \
        [sympy.sympify(f.forward) for f in op.formulas if f.forward is not None]
    if op.loss_reduction:
        exprs += list(op.reduction.divisors.values())
    return set().union(*(e.free_symbols for e in exprs))


_ROLE_WORDS = {FORWARD_INPUT: ("正向的输入", "the forward input"), FORWARD_OUTPUT: ("正向的输出", "the forward output")}


def _role_words(op, tensor, lang: str) -> str:
    """For a tensor whose role changes between forms (ELU's selfOrResult): what it holds in each form."""
    roles = [(f, op.role_of(tensor.name, f)) for f in op.formulas]
    if len({r for _, r in roles}) < 2:
        return ""
    parts = [f"{when_words(op, f.when, lang)}{_is(lang, '为', ' it is ')}{_ROLE_WORDS[r][lang == 'en']}"
             for f, r in roles if r in _ROLE_WORDS]
    return _is(lang, "(" + ",".join(parts) + ")", " (" + "; ".join(parts) + ")")


def legend(op, lang: str) -> list[tuple[str, str]]:
    """[(LaTeX of a symbol, what it stands for)] for every symbol the formulas use, in parameter order."""
    used = _symbols_used(op)
    out = []
    param_syms = {p.symbol for p in op.params if p.symbol is not None}
    if op.split is not None:
        t, dim = op.split.tensor, op.split.axis_words(lang)
        inter = op.split.interleaved
        for h, s in enumerate(op.wrt):
            if op.split.merged:   # x read as rows [pre, cut] from dim on
                zh_half, en_half = ("前", "front") if h == 0 else ("后", "back")
                zh_pos, en_pos = ("偶", "an even") if h == 0 else ("奇", "an odd")
                if inter:
                    words = _is(lang, f"{t}从{dim}起合轴为行:{inter}为true时每行{zh_pos}数位的元素,"
                                      f"否则每行{zh_half}半中的元素",
                                f"an element of {t} read as rows (its axes from {dim} on): at {en_pos} position of "
                                f"its row when {inter} is true, else in the row's {en_half} half")
                else:
                    words = _is(lang, f"{t}从{dim}起合轴为行后每行{zh_half}半中的元素",
                                f"an element of the {en_half} half of a row of {t} (its axes from {dim} on)")
                out.append((latex(s, op), words))
                continue
            out.append((latex(s, op), _is(lang, f"{t}沿{dim}均分后{'前' if h == 0 else '后'}一半中的元素",
                                          f"an element of the {'first' if h == 0 else 'second'} half of {t} "
                                          f"along {dim}")))
    elif op.wrt not in param_syms:
        out.append((latex(op.wrt, op), _is(lang, f"{op.forward_name}正向计算的输入(不是本接口的参数)",
                                           f"the input of the forward {op.forward_name} (not a parameter here)")))
    for p in op.params:
        if p.symbol is None or p.symbol not in used:
            continue
        tex = latex(p.symbol, op)
        if isinstance(p, Tensor):
            words = _is(lang, f"{p.name}中的元素", f"an element of {p.name}") + _role_words(op, p, lang)
            if p.optional and p.default is not None:
                words += _is(lang, f"({p.name}为空时取{p.default})", f" ({p.default} when {p.name} is null)")
            elif p.optional:   # read only by an output computed when it is given (codegen.spec.split)
                words += _is(lang, f"(仅在{p.name}不为空时计算用到它的输出)",
                             f" (an output reading it is computed only when {p.name} is given)")
            if getattr(p, "holds", None) is not None:   # a function of a half the forward passed on
                words += _is(lang, f",正向计算的${latex(p.holds, op)}$",
                             f", which the forward computed as ${latex(p.holds, op)}$")
        elif isinstance(p, Scalar) and p.optional:
            words = _is(lang, f"{p.name}的值({p.name}为空时取{p.default})",
                        f"the value of {p.name} ({p.default} when {p.name} is null)")
        elif isinstance(p, Scalar):
            words = _is(lang, f"{p.name}的值", f"the value of {p.name}")
        else:
            words = _is(lang, f"{p.name}的取值", f"the value of {p.name}")
        out.append((tex, words))
    for s in sorted(used, key=str):
        t = numel_param(s)
        if t is not None:
            out.append((latex(s, op), _is(lang, f"{t}的元素个数", f"the number of elements of {t}")))
    if op.classes is not None:   # class-index targets (codegen.spec.classes): ℓ per (sample, class)
        from codegen.spec.classes import CLASS
        c, t = op.classes.tensor, op.classes.target
        out.append((latex(CLASS, op), _is(lang, f"元素所在的类别,即其在{c}类别维(第1维,{c}为1维时为第0维)上的下标;"
                                                f"{t}与gradOutput按样本、weight按类别与之对应",
                                          f"the element's class: its index along {c}'s class axis (dimension 1, or 0 "
                                          f"for a 1-D {c}); {t} and gradOutput are read per sample, weight per class")))
        out.append(("N", _is(lang, f"样本个数;每个样本的损失ℓ_i为其各类别上ℓ之和",
                             f"the number of samples; each sample's loss ℓ_i is the sum of ℓ over its classes")))
    if op.sequence is not None:   # codegen.spec.sequence: the mask, in words
        from codegen.spec.sequence import IN_SEQUENCE
        sq = op.sequence
        out.append((latex(IN_SEQUENCE, op),
                    _is(lang, f"元素在其序列之内:t < {sq.lengths}[b],t为元素在第{sq.time}维上的下标,b为其在第{sq.batch}维"
                              f"上的下标;序列长度及之后的位置梯度为0",
                        f"the element is within its sequence: t < {sq.lengths}[b], t its index along dimension "
                        f"{sq.time} and b along dimension {sq.batch}; at and past the length the gradient is 0")))
    if op.classes is None and op.loss_reduction:
        out.append(("N", _is(lang, f"损失的元素个数(即{op.output.name}的元素个数)",
                             f"the number of loss elements (the elements of {op.output.name})")))
    has_dimsum = any(sympy.sympify(e).has(DimSum) for e in [op.forward] + [f.expr for f in op.formulas])
    if has_dimsum:
        if op.dim_attr:
            words = _is(lang, f"沿{op.reduce_dim}所指的维度求和,并保留该维度(keepdim)",
                        f"the sum along dimension {op.reduce_dim}, keeping that dimension")
        else:
            last = op.reduce_dim == -1
            words = _is(lang, f"沿第{op.reduce_dim}维{'(最后一维)' if last else ''}求和,并保留该维度(keepdim)",
                        f"the sum along dimension {op.reduce_dim}{' (the last)' if last else ''}, keeping it")
        out.append((r"\sum_{\mathrm{dim}}", words))
    return out


def description(op, lang: str) -> dict:
    """Everything the 功能描述 section shows, in order."""
    return {
        "forward": forward_item(op),
        "reduction": reduction_item(op),
        "backward": backward_items(op, lang),
        "legend": legend(op, lang),
    }


__all__ = ["FormulaItem", "Formula", "description", "backward_items", "forward_item", "reduction_item",
           "legend", "when_words"]
