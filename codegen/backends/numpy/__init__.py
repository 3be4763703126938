"""NumPy reference kernels: `generated/numpy/<op>.py`, readable, with the generated argument checker."""
from __future__ import annotations

import hashlib
import types

from .emit import generate, render_op

_MODULES: dict = {}


def load_module(op):
    """The op's generated module, rendered from the spec in memory and imported (cached by its text)."""
    from codegen.generate import source_label
    src = render_op(op, source_label(op))
    key = hashlib.sha256(src.encode()).hexdigest()
    if key not in _MODULES:
        mod = types.ModuleType(f"opgen_numpy_{op.snake_name}")
        mod.__file__ = f"<generated numpy/{op.snake_name}.py>"
        exec(compile(src, mod.__file__, "exec"), mod.__dict__)
        _MODULES[key] = mod
    return _MODULES[key]


def make_kernel(op):
    return getattr(load_module(op), op.snake_name)


__all__ = ["generate", "make_kernel", "load_module", "render_op"]
