"""Compile an op's generated C (the runtime and the op) into a shared library, cached by content.

The flags are the generator's business, not the user's: `-O3 -march=native` to let the compiler vectorize
the block loops for this machine (AVX2, F16C where the CPU has them), `-fno-trapping-math` so that it may
compute both sides of a `?:` and select (if-conversion; no program here reads the floating-point exception
flags), `-ffp-contract=off` so that no multiply-add is fused (every backend then rounds the same float
operations the same way), and no fast-math (nan and inf keep their meaning, sums keep their order).
`sanitize=True` builds with AddressSanitizer and UndefinedBehaviorSanitizer instead (tests/test_c_sanitizers.py).

The library is also the op's CPython extension module (pyext.py: the compiled entry point of
`codegen.kernel(op, backend="c")`), so it is built with the running Python's and NumPy's headers on the include
path; loaded by a C program it would lack Python's symbols, and the CMake build (generated/c) has none of it.
"""
from __future__ import annotations

import os
import shlex
from pathlib import Path

from codegen.buildcache import BuildError, cached_build  # noqa: F401  (re-exported)
from codegen.spec import Op

CC = os.environ.get("CC", "cc")
SEMANTIC_FLAGS = ["-ffp-contract=off", "-fno-math-errno", "-fno-trapping-math"]   # also the CMake build's
FLAGS = ["-std=c11", "-O3", "-march=native", "-fPIC", "-shared", *SEMANTIC_FLAGS]
# the sanitized build at -O0: every load and store stays in the program for ASan to check (none is optimised
# away), and a library compiles in a third of the CPU -O1 takes (softmax_backward's 3.6 s instead of 11.5, the
# runtime's 1.9 instead of 4.7); its calls are tests' calls, small
SANITIZE_FLAGS = ["-std=c11", "-O0", "-g", "-fPIC", "-shared", "-ffp-contract=off", "-fno-omit-frame-pointer",
                  "-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
LIBS = ["-lm", "-lpthread"]
# the warnings every generated C file compiles clean under, as errors: the libraries' builds (for this CPU, its
# AVX/AVX-512 paths) and the call examples' (portable) use them, so every op's source and the runtime are held to
# them wherever they are built (the CPython entry points, which include Python's and NumPy's headers, are not)
STRICT_WARNINGS = ["-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Wstrict-prototypes", "-Wmissing-prototypes",
                   "-Werror"]


def sources(op: Op) -> dict[str, str]:
    """{path: text} of everything the op's library is built from (its example excluded)."""
    from codegen.generate import source_label

    from .emit import op_sources, runtime_files
    runtime = {p: text for p, text in runtime_files().items() if p.endswith((".c", ".h"))}
    return {**runtime, **op_sources(op, source_label(op))}


def runtime_archive(flags: list[str]) -> Path:
    """The C runtime compiled once per content and flags into a static archive of position-independent objects,
    which every op's library links whole: the runtime is about half of a small op's build, and 40 ops would
    compile it 40 times.  Under STRICT_WARNINGS, but for the sanitizers' build (-O0: their reports are its
    check; the optimised builds hold the runtime to the warnings)."""
    from .emit import runtime_files
    files = {p: t for p, t in runtime_files().items() if p.endswith((".c", ".h"))}
    flags = _compiling(flags) + _strict(flags) + ["-c"]
    c_files = sorted(p for p in files if p.endswith(".c"))

    def command(src: Path, out: Path) -> list[str]:
        compile_ = " && ".join(f"{CC} {' '.join(flags)} -I include {p} -o {p}.o" for p in c_files)
        return ["sh", "-c", f"cd {src} && {compile_} && ar rcs {out} {' '.join(p + '.o' for p in c_files)}"]
    return cached_build("c-runtime", "opgen_runtime", files, CC, flags, command, suffix=".a")


def link_runtime(archive: Path) -> list[str]:
    """Linker arguments that put all of the runtime in a library (its API, aclCreateTensor and the rest, is what
    callers load it for, not only what the op's own source calls)."""
    return ["-Wl,--whole-archive", str(archive), "-Wl,--no-whole-archive"]


def library(op: Op, sanitize: bool = False) -> Path:
    """The op's shared library (built once per content, in build/c/): its own source and entry point, linked with
    the runtime archive."""
    from . import pyext
    flags = SANITIZE_FLAGS if sanitize else FLAGS
    runtime = runtime_archive(flags)
    entry = pyext.sources(op)
    files = {**sources(op), **entry}
    from .emit import runtime_files
    own = sorted(p for p in files if p.endswith(".c") and p not in runtime_files() and p not in entry)
    strict = _strict(flags)

    def command(src: Path, out: Path) -> list[str]:
        # the op's source on its own, under the strict warnings; then the entry points, linked with it
        compile_ = [[CC, *_compiling(flags), *strict, "-I", str(src / "include"), "-c",
                     str(src / p), "-o", f"{src / p}.o"] for p in own]
        link = [CC, *flags, "-I", str(src / "include"), *pyext.include_flags(), *[str(src / p) for p in sorted(entry)
                if p.endswith(".c")], *[f"{src / p}.o" for p in own], *link_runtime(runtime), "-o", str(out), *LIBS]
        return ["sh", "-c", " && ".join(shlex.join(step) for step in compile_ + [link])]

    name = op.snake_name + ("-asan" if sanitize else "")
    return cached_build("c", name, files, CC, flags + strict + LIBS, command, suffix=".so",
                        key_extra={**pyext.build_key(), "runtime": runtime.name})   # (named by its content)


def _compiling(flags: list[str]) -> list[str]:
    """A library's flags for compiling one object (`-c`): all but the link's `-shared`."""
    return [f for f in flags if f != "-shared"]


def _strict(flags: list[str]) -> list[str]:
    """STRICT_WARNINGS for an optimized build; none for the sanitizers' -O0 -g (their reports are the check)."""
    return [] if "-fsanitize=address,undefined" in flags else STRICT_WARNINGS
