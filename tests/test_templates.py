"""Templates without logic (issue 30): every backend's Jinja templates are pages of text with substitutions and
loops over lists that Python built; conditionals, filters, calls, arithmetic and literals live in the emitters,
where they can be read, tested and reused."""
from __future__ import annotations

import jinja2
import jinja2.nodes as N
import pytest

from .conftest import REPO

BACKENDS = REPO / "codegen" / "backends"
TEMPLATES = sorted(p.relative_to(BACKENDS).as_posix() for p in BACKENDS.rglob("*.jinja"))
ALLOWED = (N.Template, N.Output, N.TemplateData, N.Name, N.Getattr, N.For, N.Tuple)


def logic_in(source: str) -> list[str]:
    """What a template does beyond substitutions and loops over lists: conditionals, filters, calls, arithmetic,
    comparisons, literals, `loop.*`, assignments, macros."""
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True)
    found = []
    for node in env.parse(source).find_all(N.Node):
        if not isinstance(node, ALLOWED):
            found.append(type(node).__name__)
        elif isinstance(node, N.Name) and node.name == "loop":
            found.append("loop.*")
        elif isinstance(node, N.For) and (node.test is not None or node.else_ or node.recursive):
            found.append("for with a filter or an else")
    return found


def test_every_backend_has_templates():
    assert {t.split("/")[0] for t in TEMPLATES} == {"ascendc", "c", "docs", "numpy"}


@pytest.mark.parametrize("template", TEMPLATES)
def test_templates_hold_no_logic(template):
    assert logic_in((BACKENDS / template).read_text()) == []


def test_the_logic_detector_finds_logic():
    assert logic_in("{% if a %}x{% endif %}") == ["If"]
    assert "Filter" in logic_in("{{ a | join(', ') }}")
    assert "loop.*" in logic_in("{% for x in a %}{{ loop.index }}{% endfor %}")
    assert logic_in('{{ "{" }}') == ["Const"] and logic_in("{{ a[0] }}") == ["Getitem", "Const"]
    assert logic_in("{% for x, y in a %}{{ x.name }} {{ y }}{% endfor %}") == []
