"""How long the framework's own commands take, for the report's header: `opgen generate` (every file of
generated/ rendered in memory, not written) and `opgen verify` (every proof with the mpmath check), both
run in this process and timed once.

`opgen generate` is timed cold, as on a clean checkout — with an empty build directory, so that the docs'
five call examples are compiled and run (most of its time) — and warm (their outputs cached, as when no C
source changed).  The cold time is the one the target judges.  `opgen verify` is timed cold (no proof cache)
and cached (the proof cache hit that `opgen generate` and repeated runs see).  The cold runs take seconds, so
--quick skips them: it must stay well under 30 s in CI.  A command that fails is reported with its error
instead of stopping the benchmark (the generator may be mid-edit while kernels are being measured).
"""
from __future__ import annotations

import os
import tempfile
import time
from contextlib import contextmanager


def _timed(fn) -> dict:
    t0 = time.perf_counter()
    try:
        detail = fn()
    except Exception as e:   # reported, not raised: the kernels can still be measured
        return {"seconds": None, "error": f"{type(e).__name__}: {e}"}
    return {"seconds": time.perf_counter() - t0, **(detail or {})}


@contextmanager
def _empty_build_dir():
    """$OPGEN_BUILD_DIR pointed at an empty directory for the duration (codegen.buildcache.build_root)."""
    old = os.environ.get("OPGEN_BUILD_DIR")
    with tempfile.TemporaryDirectory(prefix="opgen-bench-build-") as tmp:
        os.environ["OPGEN_BUILD_DIR"] = tmp
        try:
            yield
        finally:
            if old is None:
                del os.environ["OPGEN_BUILD_DIR"]
            else:
                os.environ["OPGEN_BUILD_DIR"] = old


def measure(ops: dict, quick: bool) -> dict:
    """{"generate_cold": {...}, "generate": {...}, "verify_cold": {...}, "verify_cached": {...}} over all of
    `ops`."""
    from codegen import generate
    from codegen.verify import verify_op

    def render():
        return {"files": len(generate.render_all(ops))}
    out = {"ops": len(ops)}
    if quick:
        out["generate_cold"] = {"seconds": None, "skipped": "--quick"}
    else:
        with _empty_build_dir():
            out["generate_cold"] = _timed(render)
    out["generate"] = _timed(render)
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
