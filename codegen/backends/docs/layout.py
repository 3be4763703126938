"""What the page templates would otherwise decide: which formula blocks a page shows and how they are introduced,
how a parameter's details nest, the product marks, the constraint list, the index's cells.

The section builders (formulas, parameters, errors, constraints, products) say *what* a page tells; this module
lays it out as Markdown lines, so the templates (templates/<lang>/*.md.jinja) hold the fixed prose and
substitutions only.
"""
from __future__ import annotations

# the words between the fixed prose and the formulas, per language
_FORWARD = {"en": "The forward {forward}", "zh": "{forward}正向计算"}
_FORWARD_WHEN = {"en": "The forward {forward} {when}", "zh": "{when}{forward}正向计算"}
_REDUCTION = {"en": "The loss, reduced by {reduction}", "zh": "按{reduction}对损失做reduce"}
_BACKWARD = {"en": "{op} {when}", "zh": "{op}{when}的计算公式"}
_COLON = {"en": ": ", "zh": ":"}
_LIST_JOIN = {"en": ", ", "zh": "、"}


def formula_blocks(op, lang: str, formulas: dict) -> list[tuple[str, str]]:
    """[(introduction, LaTeX)] of the Description section: the forward, the reduction of a loss, then each
    backward form (after its own forward where a form has one)."""
    blocks = [(_FORWARD[lang].format(forward=op.forward_name), formulas["forward"].tex)]
    if formulas["reduction"]:
        blocks.append((_REDUCTION[lang].format(reduction=op.loss_reduction), formulas["reduction"].tex))
    for form in formulas["backward"]:
        if form.forward:
            blocks.append((_FORWARD_WHEN[lang].format(forward=op.forward_name, when=form.when),
                           form.forward.tex))
        blocks.append((_BACKWARD[lang].format(op=op.name, when=form.when).rstrip(), form.tex))
    return blocks


def detail_lines(details: list, lang: str) -> list[str]:
    """A parameter's details as nested list items: `- label: line`, or `- label:` over one item per line."""
    lines = []
    for label, items in details:
        if len(items) == 1:
            lines.append(f"    - {label}{_COLON[lang]}{items[0]}")
        else:
            lines.append(f"    - {label}{_COLON[lang].rstrip()}")
            lines += [f"      - {item}" for item in items]
    return lines


def constraint_lines(items: list) -> list[str]:
    """The Constraints section's list: a string is one item; a list is a head over its nested items."""
    lines = []
    for item in items:
        if isinstance(item, str):
            lines.append(f"- {item}")
        else:
            lines += [f"- {item[0]}"] + [f"  - {line}" for line in item[1:]]
    return lines


def product_marks(rows: list[tuple[str, bool]]) -> list[tuple[str, str]]:
    """[(product, √ or ×)] of the Supported products table."""
    return [(name, "√" if supported else "×") for name, supported in rows]


def index_cells(cells: list[list[str]], lang: str) -> list[str]:
    """The index's cells of one op: its dtypes on each product, × where it has none."""
    return [_LIST_JOIN[lang].join(dtypes) if dtypes else "×" for dtypes in cells]
