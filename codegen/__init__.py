"""opgen: declare an aclnn backward operator once, as SymPy, and get proofs, kernels, checkers and docs.

Public API:
    load_specs(specs_dir=None)         {op name: spec} for every spec file of a folder (default: specs/)
    kernel(op_name, backend="numpy")   a callable running the operator
    AclnnError                         .status, .param, .message of a refused call
    SpecError                          a bad spec: file, op and what is wrong
The spec language itself is `codegen.spec` (its module docstring documents every name).
"""
from .api import kernel, load_specs
from .errors import AclnnError, SpecError

__all__ = ["load_specs", "kernel", "AclnnError", "SpecError"]
