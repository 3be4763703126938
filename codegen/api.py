"""The public Python API: `load_specs` and `kernel`."""
from __future__ import annotations

import hashlib
import types
from pathlib import Path

from .loader import _resolve, load_specs
from .spec import DEFAULT_PRODUCT

_MODULES: dict = {}


def _numpy_module(op):
    from .backends.numpy.emit import render_op
    from .generate import source_label
    src = render_op(op, source_label(op))
    key = ("numpy", hashlib.sha256(src.encode()).hexdigest())
    if key not in _MODULES:
        mod = types.ModuleType(f"opgen_numpy_{op.snake_name}")
        mod.__file__ = f"<generated numpy/{op.snake_name}.py>"
        exec(compile(src, mod.__file__, "exec"), mod.__dict__)
        _MODULES[key] = mod
    return _MODULES[key]


def kernel(op_name: str, backend: str = "numpy", specs_dir=None):
    """A callable running operator `op_name` on `backend`.

    Keyword arguments: the aclnn parameter names in snake_case (tensors as NumPy arrays, None for a null
    optional tensor, scalars and attributes as Python numbers/bools), plus `product=` (SoC string, default
    "ascend910b"), `out_dtype=` where the output dtype may differ from the inputs', and `out=`.
    Returns the output array; raises codegen.AclnnError when an argument breaks a rule.
    """
    ops = load_specs(specs_dir)
    if op_name not in ops:
        raise KeyError(f"no operator {op_name!r} in {_resolve(specs_dir)} (have: {', '.join(ops)})")
    op = ops[op_name]
    if backend == "numpy":
        return getattr(_numpy_module(op), op.snake_name)
    raise ValueError(f"unknown backend {backend!r} (have: numpy)")


__all__ = ["kernel", "load_specs", "DEFAULT_PRODUCT"]
