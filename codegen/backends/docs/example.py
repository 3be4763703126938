"""调用示例: the C backend's example program for an op, its build command, and what it printed.

The program and the command come from `codegen.backends.c.examples`; the output is what the program really
printed when it was built and run.  Building takes seconds, so the output is cached in
`build/docs/examples/`, keyed by everything the run depends on (the program, the command and the C backend's
sources and generated files for the op): a change to any of them reruns the program.  The page carries the
output byte for byte.
"""
from __future__ import annotations

import hashlib
import importlib
import os
from dataclasses import dataclass
from pathlib import Path

from codegen.buildcache import build_root

C_EXAMPLES = "codegen.backends.c.examples"


@dataclass
class Example:
    source: str    # the C program
    build: str     # the shell command that builds (and names) it
    output: str    # its stdout when the docs were generated


def cache_dir() -> Path:
    return build_root() / "docs" / "examples"


def _c_backend_fingerprint(op) -> bytes:
    """The C backend's own sources and the files it generates for this op (runtime included)."""
    from codegen.generate import source_label
    c = importlib.import_module("codegen.backends.c")
    h = hashlib.sha256()
    root = Path(c.__file__).parent
    for p in sorted(root.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes())
    for path, text in sorted(c.generate({op.snake_name: op}, source_label).items()):
        h.update(path.encode() + b"\0" + text.encode())
    return h.digest()


def run_output(op, source: str, build: str, run) -> str:
    """`run(op)`'s stdout, from the cache when nothing it depends on changed."""
    key = hashlib.sha256(source.encode() + b"\0" + build.encode() + b"\0" + _c_backend_fingerprint(op))
    path = cache_dir() / f"{op.snake_name}-{key.hexdigest()[:24]}.out"
    if path.is_file():
        return path.read_text()
    out = run(op)
    if not isinstance(out, str) or not out.strip():
        raise RuntimeError(f"{op.name}: the example program printed nothing")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(out)
    os.replace(tmp, path)
    return out


def example(op) -> Example:
    """The op's call example."""
    ex = importlib.import_module(C_EXAMPLES)
    source = ex.example_source(op)
    build = ex.build_command(op)
    return Example(source, build, run_output(op, source, build, ex.build_and_run))


def build_size(op) -> int:
    """How big the op's example build is, to schedule the biggest first (the C backend's estimate)."""
    return importlib.import_module(C_EXAMPLES).build_size(op)
