"""The public Python API: `load_specs` and `kernel`."""
from __future__ import annotations

from . import backends
from .loader import _resolve, load_specs
from .spec import DEFAULT_PRODUCT


def kernel(op_name: str, backend: str = "numpy", specs_dir=None):
    """A callable running operator `op_name` on `backend` ("numpy", ...: see codegen.backends.ORDER).

    Keyword arguments: the aclnn parameter names in snake_case (tensors as NumPy arrays, None for a null
    optional tensor, scalars and attributes as Python numbers/bools), plus `product=` (SoC string, default
    "ascend910b"), `out_dtype=` where the output dtype may differ from the inputs', and `out=`.
    Returns the output array; raises codegen.AclnnError when an argument breaks a rule.
    """
    ops = load_specs(specs_dir)
    if op_name not in ops:
        raise KeyError(f"no operator {op_name!r} in {_resolve(specs_dir)} (have: {', '.join(ops)})")
    if backend not in backends.kernel_backends():
        raise ValueError(f"unknown kernel backend {backend!r} (have: {', '.join(backends.kernel_backends())})")
    return backends.get(backend).make_kernel(ops[op_name])


__all__ = ["kernel", "load_specs", "DEFAULT_PRODUCT"]
