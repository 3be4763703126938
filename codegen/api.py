"""The public Python API: `load_specs` and `kernel`."""
from __future__ import annotations

from . import backends
from .errors import SpecError
from .loader import _resolve, field_line, load_folder, load_spec_file, load_specs
from .spec import DEFAULT_PRODUCT
from .spec.outputs import refuse_emit


def kernel(op_name: str, backend: str = "numpy", specs_dir=None):
    """A callable running operator `op_name` on `backend` ("numpy", ...: see codegen.backends.ORDER).

    Keyword arguments: the aclnn parameter names in snake_case (tensors as NumPy arrays, None for a null
    optional tensor, scalars and attributes as Python numbers/bools), plus `product=` (SoC string, default
    "ascend910b"), `out_dtype=` where the output dtype may differ from the inputs', and `out=`.
    Returns the output array; raises codegen.AclnnError when an argument breaks a rule.

    The spec must verify first (its backward proven the derivative of its forward, as `opgen verify` does;
    the verdict is cached by content, so this costs a proof once per spec file): an unproven spec raises
    SpecError naming its file, line and the first failed check, and no kernel is built.
    """
    if backend not in backends.kernel_backends():
        raise ValueError(f"unknown kernel backend {backend!r} (have: {', '.join(backends.kernel_backends())})")
    op = _load_one(op_name, specs_dir)
    require_verified(op)
    refuse_emit(op, backend)
    return backends.get(backend).make_kernel(op)


def _load_one(op_name: str, specs_dir):
    """The op's own spec file (`<op_name>.py`, the name the loader requires), loaded alone: another spec's error
    in the folder is no reason to refuse this one, and loading 40 specs for one kernel costs 0.3 s a call."""
    path = _resolve(specs_dir) / f"{op_name}.py"
    if not op_name.startswith("_") and path.is_file():
        op = load_spec_file(path)
        if op.snake_name == op_name:
            return op
    ops, _ = load_folder(specs_dir)
    if op_name not in ops:
        raise KeyError(f"no operator {op_name!r} in {_resolve(specs_dir)} (have: {', '.join(ops)})")
    return ops[op_name]


def require_verified(op) -> None:
    """Raise SpecError unless the op's proof holds (cached in the proof cache, codegen.verify.cache)."""
    from .verify import verify_op
    failed = [r for r in verify_op(op, numeric=False, use_cache=True) if not r.ok]
    if failed:
        r = failed[0]
        more = f" (and {len(failed) - 1} more failed checks)" if len(failed) > 1 else ""
        raise SpecError(op.source, op.name, f"the spec does not verify, so no kernel is built: [{r.formula}] "
                                            f"{r.check}: {r.detail}{more}; run `opgen verify` for the table",
                        line=field_line(op.source, "backward"))


__all__ = ["kernel", "load_specs", "require_verified", "DEFAULT_PRODUCT"]
