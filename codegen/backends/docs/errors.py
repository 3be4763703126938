"""返回值: the phase-1 error table, one row per checker rule in the order the checks run (`op.all_rules`)."""
from __future__ import annotations

from dataclasses import dataclass

from codegen.spec.rules import STATUS_NAMES


@dataclass
class ErrorRow:
    status: str      # ACLNN_ERR_PARAM_NULLPTR
    code: int        # 161001
    condition: str   # the rule in words (Rule.describe)
    rule: object     # the rule itself, so tests can match rows to the checker


def error_rows(op, lang: str) -> list[ErrorRow]:
    """Every rule the generated checkers run, first to last: null checks, then the spec's rules."""
    return [ErrorRow(STATUS_NAMES[r.status], r.status, r.describe(lang, op), r) for r in op.all_rules]


def literal(text: str) -> str:
    """Plain text for Markdown: `[a](b)` would be a link (aclnn's docs write intervals that way: DimInRange's zh
    text, and LogSoftmax's `dim` doc, read "[-n, n-1](n为…)"), which MyST reports as a broken reference."""
    return text.replace("[", r"\[").replace("]", r"\]")


def cell(text: str) -> str:
    """A Markdown table cell: `|` would end the cell early; brackets as in `literal`."""
    return literal(text.replace("|", r"\|"))
