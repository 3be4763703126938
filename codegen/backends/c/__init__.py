"""The C backend: the aclnn two-phase C API on the CPU, generated from the specs (`generated/c/`).

    generate(ops, source_of)   the runtime (acl/acl.h, aclnn headers, opgen_*.c) and per op
                               include/aclnnop/aclnn_<op>.h, src/aclnn_<op>.c and examples/test_aclnn_<op>.c
    make_kernel(op)            the NumPy backend's callable, computed by the generated C library (ctypes)

Parts: `printer.py` (SymPy → C99, FLOAT kernels), `opsource.py` (what an op's source holds, as finished
lines), `emit.py` + `templates/` + `runtime/` (the library's files; runtime/ is copied as it is), `names.py`
(file names; the aclnn prototypes they print are `codegen/aclnn/`), `examples.py` (调用示例),
`files.py` (all of generated/c/), `build.py` (compile, cached by content in build/c/), `binding.py` (ctypes).
"""
from .emit import runtime_files
from .files import generate, op_files

__all__ = ["generate", "make_kernel", "op_files", "runtime_files"]


def make_kernel(op):
    from .binding import make_kernel as make
    return make(op)
