"""Sphinx configuration of the opgen documentation site (MyST Markdown, furo, MathJax, Mermaid).

Build it from the repository's root (what .ci/run does; warnings are errors):

    pip install -e ".[docs]"
    python -m sphinx -W --keep-going -b html docs build/site

Every `docs/*.md` is a page: the index places the ones it knows, and any other lands under "More topics"
(`_ext/pages.py`).  The operator pages are `generated/docs/{zh,en}/*.md`, mirrored into `docs/operators/` (git
ignores it) at the start of every build by `_ext/operator_pages.py`: generated, never copied by hand.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # codegen, for the command-line reference

project = "opgen"
author = "the opgen developers"
copyright = "the opgen developers"

extensions = [
    "myst_parser",
    "sphinx.ext.mathjax",
    "sphinxcontrib.mermaid",
    "pages",
    "operator_pages",
    "cli_help",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_generated", "README.md"]  # _generated: tables included by pages
language = "en"

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3               # `[text](page.md#a-heading)` links resolve
myst_fence_as_directive = ["mermaid"]  # ```mermaid blocks: diagrams in Sphinx and on a Git forge alike

html_theme = "furo"
html_title = "opgen"
html_static_path = ["_static"]
html_show_sourcelink = False
pygments_style = "sphinx"

mermaid_output_format = "raw"          # drawn in the browser: the build needs no Mermaid CLI
