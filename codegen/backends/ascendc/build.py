"""Compile a generated op project with the simulator into a launcher executable, cached by content hash.

The key covers every source compiled (the generated files, every simulator header), the flags and the
compiler's version, so an executable in `build/ascendc/` is reused exactly when nothing it was built from
changed.  Compiles of different keys may run in parallel (`build_many`); a lock file keeps two processes from
building the same key at once.
"""
from __future__ import annotations

import concurrent.futures
import os
import posixpath
import re
import shlex
from pathlib import Path

from codegen.buildcache import BuildError, cached_build, compiler_version  # noqa: F401  (re-exported)

SIMULATOR = Path(__file__).parent / "simulator"
CXX = os.environ.get("CXX", "g++")
# -O0: a build is the simulator's cost, not a run (measured: LogSigmoid's launcher 3.3 s of CPU at -O1, 2.2 s at
# -O0; a call on 2^20 FLOAT16 elements 0.2 s at -O1, 0.4 s at -O0, and the tests' calls are small).  The values
# do not change: SSE arithmetic rounds every operation to its type at any level, and contraction is off.
FLAGS = ["-std=c++17", "-O0", "-ffp-contract=off", "-fno-fast-math"]


def _simulator_sources() -> dict[str, str]:
    return {p.relative_to(SIMULATOR).as_posix(): p.read_text()
            for p in sorted(SIMULATOR.rglob("*.h"))}


# Every generated launcher includes the simulator (launcher_util.h, which includes kernel_operator.h) before
# anything else: parsed once per architecture into a precompiled header (`_precompiled`), a launcher's compile takes
# less CPU (LogSigmoid's: 1.04 s instead of 1.55; the value sweep's 55: 103 s instead of 118 with the three
# headers) and gives the same executable, byte for byte (GCC uses a .gch only under the flags it was built with,
# else the header's text, -Winvalid-pch saying so).  A file that starts otherwise (the simulator's self-tests)
# compiles as written.
PCH = "opgen_sim_pch.h"
FIRST = '#include "opgen_sim/launcher_util.h"'
PCH_TEXT = FIRST + "\n"


def _starts_with_the_simulator(text: str) -> bool:
    """Whether the first line of `text` that is not a comment or blank includes launcher_util.h."""
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("//"):
            return line.strip() == FIRST
    return False


def _precompiled(flags: list[str], aicore: int) -> Path:
    """A folder holding PCH and its precompiled form for `flags` (built once per content, in build/ascendc-pch/)."""
    def command(src: Path, out: Path) -> list[str]:
        return ["sh", "-c", " && ".join(shlex.join(step) for step in (
            ["mkdir", str(out)], ["cp", str(src / PCH), str(out / PCH)],
            [CXX, *flags, "-I", str(SIMULATOR), "-x", "c++-header", str(out / PCH), "-o", f"{out / PCH}.gch"]))]
    return cached_build("ascendc-pch", f"simulator-{aicore}", {PCH: PCH_TEXT}, CXX, flags, command,
                        key_extra={f"simulator/{p}": t for p, t in _simulator_sources().items()})


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*["<]([^">]+)[">]', re.M)


def compiled_files(files: dict[str, str], main: str) -> dict[str, str]:
    """The files of `files` that compiling `main` reads: `main` and what it includes, transitively, by a path
    relative to the including file (the simulator's headers, on the -I path, are in the key apart).  A project
    holds more (op_api/, CMake, the JSON definition) that the launcher never reads: a class-index, halves or
    several-outputs op's kernel is made from a derived op whose op_api differs, and keying on those files built
    the same launcher twice (8 ops' launchers, two per architecture, in a cold test run).  Only these files are
    written for the compiler, so one it reads by a route not followed here fails the build; it cannot go stale."""
    seen, todo = {}, [main]
    while todo:
        path = todo.pop()
        if path in seen or path not in files:
            continue
        seen[path] = files[path]
        folder = posixpath.dirname(path)
        todo += [posixpath.normpath(posixpath.join(folder, inc)) for inc in _INCLUDE.findall(files[path])]
    return seen


def build(name: str, files: dict[str, str], main: str, aicore: int) -> Path:
    """The executable built from `files` ({relative path: text}, `main` the file to compile) for an
    architecture (__CCE_AICORE__), compiling it unless an identical build exists (keyed on the files it reads)."""
    flags = FLAGS + [f"-D__CCE_AICORE__={aicore}"]
    pch = []
    if _starts_with_the_simulator(files[main]):
        pch = ["-Winvalid-pch", "-I", str(_precompiled(flags, aicore)), "-include", PCH]
    files = compiled_files(files, main)
    return cached_build("ascendc", f"{name}-{aicore}", files, CXX, flags,
                        lambda src, out: [CXX, *flags, *pch, "-I", str(SIMULATOR), str(src / main), "-o", str(out)],
                        key_extra={f"simulator/{p}": t for p, t in _simulator_sources().items()})


def build_many(jobs: list[tuple], workers: int | None = None) -> list[Path]:
    """Build several (name, files, main, aicore) at once, one compiler per core."""
    workers = workers or max(1, os.cpu_count() or 1)
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda j: build(*j), jobs))
