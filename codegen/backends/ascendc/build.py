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
FLAGS = ["-std=c++17", "-O1", "-ffp-contract=off", "-fno-fast-math"]


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
