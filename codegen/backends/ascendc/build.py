"""Compile a generated op project with the simulator into a launcher executable, cached by content hash.

The key covers every source compiled (the generated files, every simulator header), the flags and the
compiler's version, so an executable in `build/ascendc/` is reused exactly when nothing it was built from
changed.  Compiles of different keys may run in parallel (`build_many`); a lock file keeps two processes from
building the same key at once.
"""
from __future__ import annotations

import concurrent.futures
import os
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


def build(name: str, files: dict[str, str], main: str, aicore: int) -> Path:
    """The executable built from `files` ({relative path: text}, `main` the file to compile) for an
    architecture (__CCE_AICORE__), compiling it unless an identical build exists."""
    flags = FLAGS + [f"-D__CCE_AICORE__={aicore}"]
    return cached_build("ascendc", f"{name}-{aicore}", files, CXX, flags,
                        lambda src, out: [CXX, *flags, "-I", str(SIMULATOR), str(src / main), "-o", str(out)],
                        key_extra={f"simulator/{p}": t for p, t in _simulator_sources().items()})


def build_many(jobs: list[tuple], workers: int | None = None) -> list[Path]:
    """Build several (name, files, main, aicore) at once, one compiler per core."""
    workers = workers or max(1, os.cpu_count() or 1)
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda j: build(*j), jobs))
