"""The C prototypes of both phases, printed from the parameter list (ascend.md §2)."""
from __future__ import annotations

from codegen.spec.params import Attr, IntArray, Output, Scalar, Tensor

from codegen.aclnn.cann import const_stream, workspace_size_name

# The phase-1 out-parameters every aclnn operator ends with, and phase 2's fixed parameter list (the stream is
# `const aclrtStream` for the ops whose CANN header says so, and a few call the size `workspace_size`: see cann.py).
PHASE1_TAIL = [("uint64_t *", "workspaceSize"), ("aclOpExecutor **", "executor")]
PHASE2 = [("void *", "workspace"), ("uint64_t ", "workspaceSize"), ("aclOpExecutor *", "executor"),
          ("aclrtStream ", "stream")]


def phase2_params(op) -> list[tuple[str, str]]:
    """[(C type, name)] of phase 2."""
    (ws, _), (size_type, _), executor, _ = PHASE2
    return [(ws, "workspace"), (size_type, workspace_size_name(op.name)), executor,
            ("const aclrtStream " if const_stream(op.name) else "aclrtStream ", "stream")]


def c_type(p) -> str:
    """The C type of a parameter, with the pointer star (and a space) ending it: 'const aclTensor *'."""
    if isinstance(p, Tensor):
        return p.c_type or "const aclTensor *"
    if isinstance(p, Output):
        return p.c_type or "aclTensor *"
    if isinstance(p, Scalar):
        return "const aclScalar *"
    if isinstance(p, Attr):
        return p.ctype if p.ctype.endswith("*") else p.ctype + " "
    if isinstance(p, IntArray):
        return p.c_type
    raise TypeError(f"no C type for parameter {p.name} ({type(p).__name__})")


def phase1_name(op) -> str:
    return f"{op.name}GetWorkspaceSize"


def phase1_params(op) -> list[tuple[str, str]]:
    """[(C type, name)] of phase 1: the op's parameters in aclnn order, then workspaceSize and executor."""
    return [(c_type(p), p.name) for p in op.params] + PHASE1_TAIL


def _declaration(name: str, params: list[tuple[str, str]]) -> str:
    """`aclnnStatus name(` and one parameter per line, stars next to the names, the names lined up."""
    split = [(t.rstrip(" *"), t.count("*"), n) for t, n in params]
    width = max(len(base) for base, _, _ in split)
    stars = max(k for _, k, _ in split)
    lines = [f"    {base:<{width}} {'*' * k:>{stars}}{n}" for base, k, n in split]
    return f"aclnnStatus {name}(\n" + ",\n".join(lines) + ")"


def phase1_prototype(op) -> str:
    return _declaration(phase1_name(op), phase1_params(op))


def phase2_prototype(op) -> str:
    return _declaration(op.name, phase2_params(op))


def one_line(prototype: str) -> str:
    """The prototype on one line, spaces normalised: `T *name` (how tests compare it with a C header)."""
    import re
    text = " ".join(prototype.split())
    text = re.sub(r"\s*(\*+)\s*", r" \1", text)
    return text.replace("( ", "(").replace(" )", ")").replace(" ,", ",")
