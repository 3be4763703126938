"""One page per op and language, and the index page: the section builders' results, rendered by Jinja.

A rendered page is checked before it is returned: no section may be empty and no text of a broken page
(`[object Object]`, `undefined`, `None`, `nan`) may appear — a generator bug fails generation, it never ships.
"""
from __future__ import annotations

import re
from pathlib import Path

from codegen.aclnn import prototypes
from codegen.template_util import preamble, render
from codegen.verify import verify_op

from . import constraints, errors, example, formulas, layout, parameters, products

TEMPLATES = Path(__file__).parent / "templates"
LANGS = ("zh", "en")
BANNED = ("[object Object]", "undefined", "None", "NaN", "nan")


class PageError(ValueError):
    pass


def page_path(op, lang: str) -> str:
    return f"docs/{lang}/{op.name}.md"


def page_context(op, lang: str) -> dict:
    proof = verify_op(op, numeric=False, use_cache=True)
    described = formulas.description(op, lang)
    ex = example.example(op)
    return {
        "op": op,
        "products": layout.product_marks(products.product_rows(op, lang)),
        "phase1": prototypes.phase1_name(op),
        "prototype1": prototypes.phase1_prototype(op),
        "prototype2": prototypes.phase2_prototype(op),
        "description": op.description[lang],
        "formula_blocks": layout.formula_blocks(op, lang, described),
        "formulas": described,
        "params1": [_param(p, lang) for p in parameters.phase1_params(op, lang)],
        "params2": [_param(p, lang) for p in parameters.phase2_params(op, lang)],
        "errors": [{"status": r.status, "code": r.code, "cell": errors.cell(r.condition)}
                   for r in errors.error_rows(op, lang)],
        "constraints": layout.constraint_lines(constraints.constraints(op, lang, proof)),
        "example": {"source": ex.source.strip(), "build": ex.build.strip(), "output": ex.output.strip()},
    }


def _param(p, lang: str) -> dict:
    return {"name": p.name, "ctype": p.ctype, "direction": p.direction, "summary": p.summary,
            "detail_lines": layout.detail_lines(p.details, lang)}


def render_page(op, lang: str, source_label: str) -> str:
    template = f"{lang}/page.md.jinja"
    text = render(TEMPLATES, template, preamble=preamble("<!--", source_label, template, "docs") + " -->",
                  **page_context(op, lang))
    check_page(text, f"{page_path(op, lang)}")
    return text


def render_index(ops: dict, lang: str) -> str:
    template = f"{lang}/index.md.jinja"
    header, rows = products.matrix(ops, lang)
    text = render(TEMPLATES, template, preamble=preamble("<!--", "specs/", template, "docs") + " -->",
                  header=header, rows=[(op, layout.index_cells(cells, lang)) for op, cells in rows])
    check_page(text, f"docs/{lang}/index.md")
    return text


def headings(text: str) -> list[tuple[int, str]]:
    """[(level, title)] of the Markdown headings outside code blocks."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            m = re.match(r"(#{1,6}) (.+)", line)
            if m:
                out.append((len(m.group(1)), m.group(2).strip()))
    return out


def sections(text: str) -> list[tuple[str, str]]:
    """[(heading, body)] for every level-2 heading (the page's sections); the body runs to the next one."""
    out, title, body, fenced = [], None, [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        m = None if fenced else re.match(r"## (.+)", line)
        if m:
            if title is not None:
                out.append((title, "\n".join(body)))
            title, body = m.group(1).strip(), []
        elif title is not None:
            body.append(line)
    if title is not None:
        out.append((title, "\n".join(body)))
    return out


def check_page(text: str, where: str) -> None:
    prose = re.sub(r"```.*?```", "", text, flags=re.S)  # code and program output are checked by the tests
    prose = re.sub(r"`[^`\n]+`", "", prose)  # an inline code span is meant: "`nan` passes gradOutput"
    prose = prose.replace(r"\text{NaN}", "")  # SymPy's LaTeX of nan in a formula (LogitGrad's value outside [0, 1])
    for bad in BANNED:
        if re.search(r"(?<![A-Za-z])" + re.escape(bad) + r"(?![A-Za-z])", prose):
            raise PageError(f"{where}: the page contains {bad!r}")
    for title, body in sections(text):
        if not body.strip():
            raise PageError(f"{where}: section {title!r} is empty")
