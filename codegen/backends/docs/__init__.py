"""The docs backend: aclnn-style API pages in Chinese and English (`generated/docs/{zh,en}/`), from the specs.

    generate(ops, source_of)   one page per op and language, plus an index page per language with the
                               op × product × dtype matrix

Every fact on a page comes from the spec or from running generated code.  Parts, one per page section:
`products.py` (支持的产品型号 and every dtype × product statement), `codegen/aclnn/prototypes.py` (接口原型),
`formulas.py` + `latex.py` (功能描述: the spec's SymPy expressions printed by a LatexPrinter subclass),
`parameters.py` (参数说明), `errors.py` (返回值: the checker rules), `constraints.py` (约束与限制, including
the proof's branch-point conventions), `example.py` (调用示例: the C backend's example program and what it
printed), `page.py` (assembly and the page checks) and `templates/<lang>/` (one Jinja template per page kind and
language).
"""
from __future__ import annotations

import concurrent.futures
import os

from . import example
from .page import LANGS, page_path, render_index, render_page


def build_examples(ops: dict) -> None:
    """Build and run the call examples not cached yet, side by side, the biggest first (each compiles and runs a
    C program: `opgen generate` starts this as soon as the C sources are rendered, codegen.generate.render_all)."""
    with concurrent.futures.ThreadPoolExecutor(max(1, os.cpu_count() or 1)) as pool:
        list(pool.map(example.example, sorted(ops.values(), key=example.build_size, reverse=True)))


def generate(ops: dict, source_of) -> dict[str, str]:
    """{relative path: text} of every page."""
    build_examples(ops)   # (at once when render_all built them already)
    files = {}
    for lang in LANGS:
        for op in ops.values():
            files[page_path(op, lang)] = render_page(op, lang, source_of(op))
        files[f"docs/{lang}/index.md"] = render_index(ops, lang)
    return files


__all__ = ["generate", "render_page", "render_index", "page_path", "LANGS"]
