"""File names of the C backend: an op's header, source and call example (no imports of the other modules, so
that every one of them may use these)."""
from __future__ import annotations

from codegen.spec import Op

from codegen.aclnn.cann import header_file


def header_name(op: Op) -> str:
    """The op's header under include/aclnnop/, named as CANN names it (aclnn_logsigmoid_backward.h)."""
    return header_file(op.name, op.snake_name)


def source_name(op: Op) -> str:
    return f"aclnn_{op.snake_name}.c"


def example_path(op: Op) -> str:
    """Where the example lives under generated/c/."""
    return f"examples/test_aclnn_{op.snake_name}.c"


def program_name(op: Op) -> str:
    return f"test_aclnn_{op.snake_name}"


LIBRARY = "opgen_aclnn"   # libopgen_aclnn.so/.a, find_package(opgen_aclnn), opgen_aclnn.pc
