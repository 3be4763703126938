"""NumPy reference kernels: `generated/numpy/<op>.py`, readable, with the generated argument checker."""
from __future__ import annotations

import hashlib
import types

from .emit import generate, render_op

_MODULES: dict = {}
_RENDERED: dict = {}   # id(op) -> (op, module): rendering takes ~0.1 s, and the accuracy run asks per dtype


def load_module(op):
    """The op's generated module, rendered from the spec in memory and imported (cached by its text; an Op
    object is not changed once loaded, so the same object gives the same module)."""
    held = _RENDERED.get(id(op))
    if held is not None and held[0] is op:
        return held[1]
    from codegen.generate import source_label
    src = render_op(op, source_label(op))
    key = hashlib.sha256(src.encode()).hexdigest()
    if key not in _MODULES:
        mod = types.ModuleType(f"opgen_numpy_{op.snake_name}")
        mod.__file__ = f"<generated numpy/{op.snake_name}.py>"
        exec(compile(src, mod.__file__, "exec"), mod.__dict__)
        _MODULES[key] = mod
    _RENDERED[id(op)] = (op, _MODULES[key])
    return _MODULES[key]


def make_kernel(op):
    return getattr(load_module(op), op.snake_name)


__all__ = ["generate", "make_kernel", "load_module", "render_op"]
