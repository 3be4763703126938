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


def cached(op, numeric: bool, compute) -> list[Result]:
    if os.environ.get("OPGEN_NO_CACHE") or not op.source or not Path(op.source).is_file():
        return compute()
    key = hashlib.sha256(Path(op.source).read_bytes() + _framework_fingerprint().encode()
                         + (b"numeric" if numeric else b"symbolic")).hexdigest()[:24]
    path = cache_dir() / f"{op.snake_name}-{key}.json"
    if path.is_file():
        try:
            return [Result(**d) for d in json.loads(path.read_text())]
        except (ValueError, TypeError):
            pass  # a damaged entry is recomputed
    results = compute()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps([dataclasses.asdict(r) for r in results]))
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only tree still verifies, just without the cache
    return results
