"""How long the framework's own commands take, for the report's header: `opgen generate` and `opgen verify`
(every proof with the mpmath check).

`opgen generate` is timed cold, as on a clean checkout: the command itself in a new Python process, with an
empty build directory and an empty proof cache, so that every spec is proved and the docs' five call examples
are compiled and run, writing into an empty folder; wall-clock time, the interpreter's start and the imports
included.  That is the time the target judges.  It is also timed warm, in this process: every file rendered in
memory with the call examples' outputs cached, as when no C source changed.  `opgen verify` is timed cold (no
proof cache) and cached (the proof cache hit that `opgen generate` and repeated runs see).  The cold runs take
seconds, so --quick skips them, and renders only the files of the ops it benchmarks (every op's took 40 s of
the CI's ten minutes): it must stay well under 30 s in CI.  A command that fails is reported with its
error instead of stopping the benchmark (the generator may be mid-edit while kernels are being measured).
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from codegen.loader import REPO_ROOT


def _timed(fn) -> dict:
    t0 = time.perf_counter()
    try:
        detail = fn()
    except Exception as e:   # reported, not raised: the kernels can still be measured
        return {"seconds": None, "error": f"{type(e).__name__}: {e}"}
    return {"seconds": time.perf_counter() - t0, **(detail or {})}


def cold_generate_command(specs_dir, out: Path) -> list[str]:
    """`opgen generate`, as a user types it, writing into `out` (run from the repository's root: a relative
    `specs_dir` is resolved here first)."""
    specs = ["--specs", str(Path(specs_dir).resolve())] if specs_dir is not None else []
    return [sys.executable, "-m", "codegen", *specs, "generate", "--out", str(out)]


def _generate_cold(specs_dir, run=subprocess.run) -> dict:
    """`opgen generate` in a new process on an empty build directory and proof cache (see above)."""
    with tempfile.TemporaryDirectory(prefix="opgen-bench-cold-") as tmp:
        build, cache, out = (Path(tmp) / d for d in ("build", "cache", "out"))
        for d in (build, cache, out):
            d.mkdir()
        path = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "OPGEN_BUILD_DIR": str(build), "OPGEN_CACHE": str(cache), "PYTHONPATH": path}
        t0 = time.perf_counter()
        done = run(cold_generate_command(specs_dir, out), env=env, cwd=REPO_ROOT, capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        if done.returncode != 0:
            return {"seconds": None, "error": f"exit {done.returncode}: {done.stderr.strip()[-2000:]}"}
        return {"seconds": seconds, "files": sum(p.is_file() for p in out.rglob("*"))}


def skipped(n_ops: int, why: str) -> dict:
    """What `measure` returns when no command is timed (`why` says so in the report)."""
    out = {"ops": n_ops, "quick": False}
    for key in ("generate_cold", "generate", "verify_cold", "verify_cached"):
        out[key] = {"seconds": None, "skipped": why}
    return out


def measure(ops: dict, quick: bool, specs_dir=None) -> dict:
    """{"generate_cold": {...}, "generate": {...}, "verify_cold": {...}, "verify_cached": {...}} over all of
    `ops`, the specs of `specs_dir` (None: the default folder, as for the CLI)."""
    from codegen import generate
    from codegen.verify import verify_op

    out = {"ops": len(ops), "quick": quick}
    out["generate_cold"] = {"seconds": None, "skipped": "--quick"} if quick else _generate_cold(specs_dir)
    out["generate"] = _timed(lambda: {"files": len(generate.render_all(ops))})
    if quick:
        out["verify_cold"] = out["verify_cached"] = {"seconds": None, "skipped": "--quick"}
        return out

    def verify(use_cache):
        results = [r for op in ops.values() for r in verify_op(op, numeric=True, use_cache=use_cache)]
        return {"checks": len(results), "failed": sum(not r.ok for r in results)}
    out["verify_cold"] = _timed(lambda: verify(False))
    verify(True)                           # fills the cache when it is empty or stale; not timed
    out["verify_cached"] = _timed(lambda: verify(True))
    return out
