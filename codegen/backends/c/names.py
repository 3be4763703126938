"""File names of the C backend: an op's header, source and call example (no imports of the other modules, so
that every one of them may use these)."""
from __future__ import annotations

from codegen.spec import Op


def header_name(op: Op) -> str:
    return f"aclnn_{op.snake_name}.h"


def source_name(op: Op) -> str:
    return f"aclnn_{op.snake_name}.c"


def example_path(op: Op) -> str:
    """Where the example lives under generated/c/."""
    return f"examples/test_aclnn_{op.snake_name}.c"


def program_name(op: Op) -> str:
    return f"test_aclnn_{op.snake_name}"
