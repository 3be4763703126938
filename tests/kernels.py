"""`codegen.kernel(name, backend)` of the repository's specs, made once per test process and kept: what the tests
that call an op's kernel case after case run.

Each codegen.kernel call loads the op's spec file again (a new Op object: validated, its vocabulary checked),
looks its proof up, renders its NumPy module and, for C, its sources (the library's cache key): 0.03-0.09 s of
CPU for the same callable every time, some 900 times in test_c_values alone.  The first call of each (op,
backend) still goes that whole way; the ones after it would have redone identical work.  A kernel built under
$OPGEN_C_SANITIZE=1 (the sanitized library, read when the kernel is made) is kept apart from the plain one."""
from __future__ import annotations

import functools
import os

import codegen


def kernel(name: str, backend: str = "numpy"):
    return _kernel(name, backend, os.environ.get("OPGEN_C_SANITIZE") == "1")


@functools.lru_cache(maxsize=None)
def _kernel(name: str, backend: str, sanitize: bool):
    return codegen.kernel(name, backend=backend)
