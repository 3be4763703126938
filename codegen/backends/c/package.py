"""How generated/c/ is built and installed the usual way: a CMakeLists.txt that builds a shared and a static
library from the runtime and the operators' sources and installs them with the headers, a CMake package
(find_package(opgen_aclnn)) and a pkg-config file (the last two from runtime/cmake/, copied as they are)."""
from __future__ import annotations

import functools
import importlib.metadata
import re
from pathlib import Path

from codegen.loader import REPO_ROOT
from codegen.spec import Op
from codegen.template_util import preamble, render

from .build import SEMANTIC_FLAGS
from .names import LIBRARY, program_name, source_name

TEMPLATES = Path(__file__).parent / "templates"


@functools.lru_cache(maxsize=None)
def version() -> str:
    """opgen's version (the library's and the package's): pyproject.toml's in a checkout, else the installed one."""
    pyproject = REPO_ROOT / "pyproject.toml"
    found = pyproject.is_file() and re.search(r'^version = "([^"]+)"', pyproject.read_text(), re.M)
    if found:
        return found.group(1)
    return importlib.metadata.version("opgen")


def cmake_lists(ops: list[Op], runtime_sources: list[str], source: str = "codegen/backends/c/templates") -> str:
    """generated/c/CMakeLists.txt: `runtime_sources` (paths under c/) and one source per op, in that order."""
    template = "cmake/CMakeLists.txt.jinja"
    return render(TEMPLATES, template, preamble=preamble("#", f"{source}/{template}", template, "c"),
                  library=LIBRARY, version=version(), semantic_flags=" ".join(SEMANTIC_FLAGS),
                  sources=sorted(runtime_sources) + sorted(f"src/{source_name(op)}" for op in ops),
                  examples=sorted(program_name(op) for op in ops))
