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


def cell(text: str) -> str:
    """A Markdown table cell: `|` would end the cell early, and `[a](b)` would be a link (the zh text of
    DimInRange reads "[-n, n-1](n为…)")."""
    return text.replace("|", r"\|").replace("[", r"\[").replace("]", r"\]")
