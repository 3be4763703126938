"""Compiled artefacts cached by content: an executable or library is rebuilt exactly when something it is
built from changes.

The key covers every source file compiled (path and text), the command's flags and the compiler's version.
Artefacts live in `build/<kind>/` (or $OPGEN_BUILD_DIR/<kind>/), which is not committed.  A lock file per key
keeps two processes from building the same artefact at once; builds of different keys run in parallel.
"""
from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from .loader import REPO_ROOT


class BuildError(RuntimeError):
    """The compiler rejected generated code (the message holds its diagnostics), or there is no compiler."""


def _log_build(kind: str, name: str, seconds: float, cpu: float) -> None:
    """With $OPGEN_BUILD_LOG set, append each compile's wall time and the CPU seconds (user + system) of the
    compiler's process tree to that file (what a cold test run spends compiling, by kind: where CI time goes; on a
    shared machine only the CPU figure compares)."""
    log = os.environ.get("OPGEN_BUILD_LOG")
    if log:
        with open(log, "a") as f:
            f.write(f"{kind}\t{name}\t{seconds:.2f}\t{os.getpid()}\t{cpu:.2f}\n")


def _run(args: list[str]) -> tuple[subprocess.CompletedProcess, float]:
    """`subprocess.run(args)` with its output captured, and the CPU seconds (user + system) of the process and the
    children it waited for: os.wait4's own figures, exact even while other threads run compilers of their own."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(args, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(args, proc.returncode, out.read(), err.read()), \
            usage.ru_utime + usage.ru_stime


def build_root() -> Path:
    return Path(os.environ.get("OPGEN_BUILD_DIR") or REPO_ROOT / "build")


@functools.lru_cache(maxsize=None)
def compiler_version(compiler: str) -> str:
    try:
        return subprocess.run([compiler, "--version"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise BuildError(f"no compiler: `{compiler} --version` failed ({e})") from e


def artefact(kind: str, name: str, files: dict[str, str], compiler: str, flags: list[str], suffix: str = "",
             key_extra: dict[str, str] | None = None) -> Path:
    """Where cached_build keeps the artefact of these arguments (whether or not it exists yet): its name ends in
    the key, a hash of every file's path and text, the flags and the compiler's version."""
    h = hashlib.sha256()
    for path, text in sorted(files.items()) + sorted((key_extra or {}).items()):
        h.update(f"{path}\0{text}\0".encode())
    h.update("\0".join(flags).encode())
    h.update(compiler_version(compiler).encode())
    return build_root() / kind / f"{name}-{h.hexdigest()[:20]}{suffix}"


def cached_build(kind: str, name: str, files: dict[str, str], compiler: str, flags: list[str],
                 command, suffix: str = "", key_extra: dict[str, str] | None = None) -> Path:
    """The artefact built from `files` ({relative path: text}), compiling it unless an identical one exists.

    `command(src_dir, out_path)` returns the argument list that builds `out_path` from the files written
    under `src_dir`; `flags` are part of the key (and usually of the command), and so are the texts of
    `key_extra` — files the command reads from elsewhere (headers on an -I path)."""
    target = artefact(kind, name, files, compiler, flags, suffix, key_extra)
    folder = target.parent
    if target.exists():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    with open(str(target) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if target.exists():
                return target
            with tempfile.TemporaryDirectory(dir=folder) as tmp:
                for path, text in files.items():
                    (Path(tmp) / path).parent.mkdir(parents=True, exist_ok=True)
                    (Path(tmp) / path).write_text(text)
                out = Path(tmp) / ("artefact" + suffix)
                start = time.perf_counter()
                run, cpu = _run(command(Path(tmp), out))
                _log_build(kind, name, time.perf_counter() - start, cpu)
                if run.returncode != 0:
                    raise BuildError(f"building {name} failed:\n{run.stderr[-6000:]}")
                shutil.move(str(out), target)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return target
