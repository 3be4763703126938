"""Proof results cached by content: the spec file's bytes, the prover's sources and SymPy's version.

A proof takes seconds (BCE: 12 cases); `opgen generate` proves every spec before writing, so unchanged specs
reuse their verdicts.  Anything that could change a verdict is in the key; set OPGEN_NO_CACHE=1 to bypass.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
from pathlib import Path

import mpmath
import sympy

from .result import Result

ROOT = Path(__file__).resolve().parent.parent  # codegen/


def cache_dir() -> Path:
    return Path(os.environ.get("OPGEN_CACHE") or ROOT.parent / ".opgen-cache") / "proofs"


@functools.lru_cache(maxsize=1)
def _framework_fingerprint() -> str:
    h = hashlib.sha256(f"sympy {sympy.__version__} mpmath {mpmath.__version__}".encode())
    for folder in ("spec", "verify"):
        for p in sorted((ROOT / folder).glob("*.py")):
            h.update(p.name.encode() + p.read_bytes())
    return h.hexdigest()


def _path(op, numeric: bool) -> Path | None:
    if os.environ.get("OPGEN_NO_CACHE") or not op.source or not Path(op.source).is_file():
        return None
    key = hashlib.sha256(Path(op.source).read_bytes() + _framework_fingerprint().encode()
                         + (b"numeric" if numeric else b"symbolic")).hexdigest()[:24]
    return cache_dir() / f"{op.snake_name}-{key}.json"


def lookup(op, numeric: bool) -> list[Result] | None:
    """The cached verdicts for op, or None when they must be computed."""
    path = _path(op, numeric)
    if path is None or not path.is_file():
        return None
    try:
        return [Result(**d) for d in json.loads(path.read_text())]
    except (ValueError, TypeError):
        return None  # a damaged entry is recomputed


def cached(op, numeric: bool, compute) -> list[Result]:
    hit = lookup(op, numeric)
    if hit is not None:
        return hit
    results = compute()
    if numeric and all(r.ok for r in results):
        # the symbolic verdicts (what `opgen generate` and codegen.kernel ask for) are these lines without the
        # mpmath ones (the same lines in the same order once every check passed): `opgen verify` stores them too,
        # so that nothing after it proves an op again (.ci/run: verify, then pytest)
        _store(op, False, [r for r in results if not r.check.startswith("mpmath")])
    _store(op, numeric, results)
    return results


def _store(op, numeric: bool, results: list[Result]) -> None:
    path = _path(op, numeric)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")   # (ops may be proved in parallel processes)
        tmp.write_text(json.dumps([dataclasses.asdict(r) for r in results]))
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only tree still verifies, just without the cache
