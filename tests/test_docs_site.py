"""The documentation site's own extensions (docs/_ext/), on small sites built here.  The whole site is built by
.ci/run (`python -m sphinx -W ... docs build/site`); these tests pin down the behaviour other branches rely on:
any docs/*.md gets in, pages named before they exist do not break the build, the operator pages are mirrored."""
from __future__ import annotations

import re
import sys

import pytest

from .conftest import REPO

sphinx_build = pytest.importorskip("sphinx.cmd.build")
pytest.importorskip("myst_parser")
sys.path.insert(0, str(REPO / "docs" / "_ext"))

CONF = 'extensions = ["myst_parser", "pages"]\nimport sys\nsys.path.insert(0, {ext!r})\nexclude_patterns = ["_build"]\n'


def toctrees(out) -> dict:
    """{caption: the body's toctree under it, as HTML} of the built index page."""
    html = (out / "index.html").read_text()
    found = re.findall(r'<div class="toctree-wrapper compound">(.*?)</div>', html, re.S)
    return {re.search(r'caption-text">([^<]*)<', t).group(1): t for t in found}


def build(src, tmp_path):
    (src / "conf.py").write_text(CONF.format(ext=str(REPO / "docs" / "_ext")))
    out = tmp_path / "html"
    status = sphinx_build.build_main(["-W", "-q", "-b", "html", str(src), str(out)])
    return status, out


def test_pages_places_known_pages_skips_missing_ones_and_gathers_the_rest(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "index.md").write_text(
        "# Site\n\n```{pages}\n:caption: Design\n\nbackends\nc-api\n```\n\n"
        "```{pages}\n:caption: More topics\n:glob:\n\n**\n```\n")
    for page in ("backends", "vocabulary", "correctness", "topics/deep", "sect/child"):
        (src / page).parent.mkdir(exist_ok=True)
        (src / f"{page}.md").write_text(f"# {page.title()}\n\ntext\n")
    (src / "sect.md").write_text("# Section\n\n```{toctree}\nsect/child\n```\n")   # a page that lists its folder
    status, out = build(src, tmp_path)
    assert status == 0
    trees = toctrees(out)
    design, more = trees["Design"], trees["More topics"]
    assert "backends.html" in design and "c-api" not in design      # named before it exists: left out
    assert "vocabulary.html" in more and "correctness.html" in more   # nobody placed them: the catch-all has them
    assert "backends.html" not in more                               # placed once only
    assert "topics/deep.html" in more                                # any depth
    l1 = 'toctree-l1"><a class="reference internal" href="{}"'.format
    assert l1("sect.html") in more and l1("sect/child.html") not in more   # sect.md lists its own folder
    (src / "c-api.md").write_text("# C API\n\ntext\n")               # the page arrives: it is placed
    status, out = build(src, tmp_path)
    assert status == 0
    trees = toctrees(out)
    design, more = trees["Design"], trees["More topics"]
    assert "c-api.html" in design and "c-api.html" not in more


def test_a_page_in_no_toctree_still_fails_the_build(tmp_path):
    """The catch-all is what keeps -W green: without it, a new page is an error (so none goes unseen)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "index.md").write_text("# Site\n\n```{pages}\n\nbackends\n```\n")
    (src / "backends.md").write_text("# Backends\n")
    (src / "stray.md").write_text("# Stray\n")
    status, _ = build(src, tmp_path)
    assert status != 0


def test_the_operator_pages_are_mirrored_exactly(tmp_path):
    from operator_pages import mirror
    source, target = tmp_path / "generated", tmp_path / "site" / "operators"
    (source / "en").mkdir(parents=True)
    (source / "en" / "aclnnA.md").write_text("# A\n")
    (source / "en" / "index.md").write_text("# index\n")
    assert sorted(mirror(source, target)) == ["en/aclnnA.md", "en/index.md"]
    assert mirror(source, target) == []                          # unchanged: nothing rewritten
    (source / "en" / "aclnnA.md").write_text("# A, changed\n")
    (source / "en" / "aclnnA.md").rename(source / "en" / "aclnnB.md")
    assert sorted(mirror(source, target)) == ["-en/aclnnA.md", "en/aclnnB.md"]
    assert sorted(p.name for p in (target / "en").iterdir()) == ["aclnnB.md", "index.md"]
    assert (target / "en" / "aclnnB.md").read_text() == "# A, changed\n"


def test_the_command_reference_is_the_commands_own_help():
    from cli_help import help_text
    text = help_text("accuracy")
    assert text.startswith("usage: opgen accuracy") and "--full" in text
    assert help_text("plots").startswith("usage: python -m codegen.plots")
    assert max(len(line) for line in help_text("bench").splitlines()) <= 100
