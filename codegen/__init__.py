"""opgen: declare an aclnn backward operator once, as SymPy, and get proofs, kernels, checkers and docs.

Public API:
    load_specs(specs_dir=None)         {op name: spec} for every spec file of a folder (default: specs/)
    kernel(op_name, backend="numpy")   a callable running the operator
    with_format(array, "NCHW")         a view of an array labelled with an aclFormat (a plain array is ND)
    AclnnError                         .status, .param, .message of a refused call
    SpecError                          a bad spec: file, op and what is wrong
The spec language itself is `codegen.spec` (its module docstring documents every name).
"""
from .api import kernel, load_specs
from .errors import AclnnError, SpecError
from .runtime.formats import with_format

__all__ = ["load_specs", "kernel", "with_format", "AclnnError", "SpecError"]
