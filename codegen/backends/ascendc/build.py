"""Compile a generated op project with the simulator into a launcher executable, cached by content hash.

The key covers every source compiled (the generated files, every simulator header), the flags and the
compiler's version, so an executable in `build/ascendc/` is reused exactly when nothing it was built from
changed.  Compiles of different keys may run in parallel (`build_many`); a lock file keeps two processes from
building the same key at once.
"""
from __future__ import annotations

import concurrent.futures
import fcntl
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from codegen.loader import REPO_ROOT

SIMULATOR = Path(__file__).parent / "simulator"
BUILD = Path(os.environ.get("OPGEN_BUILD_DIR", REPO_ROOT / "build")) / "ascendc"
CXX = os.environ.get("CXX", "g++")
FLAGS = ["-std=c++17", "-O1", "-ffp-contract=off", "-fno-fast-math"]


class BuildError(RuntimeError):
    """The C++ compiler rejected a generated project (the message holds its diagnostics)."""


@functools.lru_cache(maxsize=None)
def compiler_version() -> str:
    try:
        return subprocess.run([CXX, "--version"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise BuildError(f"no C++ compiler: `{CXX} --version` failed ({e}); set $CXX") from e


def _simulator_sources() -> dict[str, str]:
    return {p.relative_to(SIMULATOR).as_posix(): p.read_text()
            for p in sorted(SIMULATOR.rglob("*.h"))}


def build(name: str, files: dict[str, str], main: str, aicore: int) -> Path:
    """The executable built from `files` ({relative path: text}, `main` the file to compile) for an
    architecture (__CCE_AICORE__), compiling it unless an identical build exists."""
    flags = FLAGS + [f"-D__CCE_AICORE__={aicore}"]
    h = hashlib.sha256()
    for label, texts in (("src", files), ("sim", _simulator_sources())):
        for path, text in sorted(texts.items()):
            h.update(f"{label}:{path}\0{text}\0".encode())
    h.update(" ".join(flags).encode())
    h.update(compiler_version().encode())
    exe = BUILD / f"{name}-{aicore}-{h.hexdigest()[:20]}"
    if exe.exists():
        return exe
    BUILD.mkdir(parents=True, exist_ok=True)
    with open(str(exe) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if exe.exists():
                return exe
            with tempfile.TemporaryDirectory(dir=BUILD) as tmp:
                for path, text in files.items():
                    (Path(tmp) / path).parent.mkdir(parents=True, exist_ok=True)
                    (Path(tmp) / path).write_text(text)
                out = Path(tmp) / "a.out"
                cmd = [CXX, *flags, "-I", str(SIMULATOR), str(Path(tmp) / main), "-o", str(out)]
                run = subprocess.run(cmd, capture_output=True, text=True)
                if run.returncode != 0:
                    raise BuildError(f"compiling {name} for __CCE_AICORE__={aicore} failed:\n{run.stderr[-6000:]}")
                shutil.move(str(out), exe)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return exe


def build_many(jobs: list[tuple], workers: int | None = None) -> list[Path]:
    """Build several (name, files, main, aicore) at once, one compiler per core."""
    workers = workers or max(1, os.cpu_count() or 1)
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda j: build(*j), jobs))
