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


# A C library built for a test alone: of a spec outside specs/ (examples/more_specs, examples/experimental_specs,
# tests' own folders and tmp_path specs), or of a repository op with flags of the test's own (the stream and call
# counters, -DOPGEN_COUNT_STREAMS; the AVX2 build, -mno-avx512f).  No other test loads it, and the test makes a few
# calls.  In CI it is compiled at -O1 instead of the shipped -O3 (MseLossGrad's own source 3.6 CPU-s instead of
# 8.4): what these tests check is the C the backend prints and the runtime's paths, and on x86-64 (SSE arithmetic,
# -ffp-contract=off, no fast-math) the optimisation level changes no result, as the fuzzer's -O0 builds rely on
# (codegen/fuzz/batch.py); -O1 keeps the warnings that need the optimiser's flow analysis (-Wmaybe-uninitialized)
# under -Werror.  The shipped flags are compiled and run on every repository op by test_c_values and the accuracy
# run, and on these libraries too under --deep.
FAST_OPT = "-O1"


def own_build_flags(flags: list[str]) -> list[str]:
    """`flags` (codegen.backends.c.build.FLAGS and a test's additions) for a library only a test loads."""
    from . import conftest
    return list(flags) if conftest.DEEP else [FAST_OPT if f == "-O3" else f for f in flags]


def spec_kernel(name: str, backend: str = "numpy", specs_dir=None):
    """codegen.kernel(name, backend, specs_dir): the same callable, its C library built with own_build_flags when
    specs_dir is not the repository's specs/ (whose libraries the other tests share at the shipped flags)."""
    from pathlib import Path

    from codegen.backends.c import build

    from . import conftest
    if backend != "c" or specs_dir is None or Path(specs_dir).resolve() == (conftest.REPO / "specs").resolve():
        return codegen.kernel(name, backend, specs_dir=specs_dir)
    shipped = build.FLAGS
    build.FLAGS = own_build_flags(shipped)
    try:
        return codegen.kernel(name, backend, specs_dir=specs_dir)
    finally:
        build.FLAGS = shipped
