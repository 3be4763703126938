"""The package's module graph has no cycles (issue 30): every module-level import of codegen points one way, so a
module can be read, imported and tested after the ones it names.  (An import inside a function is deferred on
purpose, to reach a module that sits above in the graph, and is not counted.)"""
from __future__ import annotations

import ast

from .conftest import REPO

PACKAGE = REPO / "codegen"


def _modules() -> dict:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(REPO).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


MODULES = _modules()


def _imported(module: str, node) -> list[str]:
    """The codegen modules a module-level import statement names (`from . import x` names module x when it is
    one, else the package)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in MODULES]
    base = node.module or ""
    if node.level:
        parts = module.split(".")
        package = parts if MODULES[module].name == "__init__.py" else parts[:-1]
        base = ".".join(package[:len(package) - (node.level - 1)] + ([base] if base else []))
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names
            if (f"{base}.{a.name}" in MODULES or base in MODULES)]


def graph() -> dict[str, set[str]]:
    edges = {}
    for module, path in MODULES.items():
        body = ast.parse(path.read_text()).body
        edges[module] = {t for node in body if isinstance(node, (ast.Import, ast.ImportFrom))
                         for t in _imported(module, node) if t != module}
    return edges


def cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph, or None (depth-first search, colouring the modules on the current path)."""
    state: dict[str, int] = {}

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, path + [nxt])
                if found:
                    return found
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state:
            found = visit(start, [start])
            if found:
                return found
    return None


def test_no_module_level_import_cycle():
    assert cycle(graph()) is None, " -> ".join(cycle(graph()))


def test_the_cycle_finder_finds_cycles():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) is None
    assert "codegen.backends.c.emit" in graph() and graph()["codegen.backends.numpy.emit"]
