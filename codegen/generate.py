"""Render every backend for a set of specs, then write `generated/` or compare it (`--check`).

Backends are listed in codegen.backends.ORDER; each renders {relative path: text}.  Output is a pure
function of the specs and the generator, so two runs write the same bytes.
"""
from __future__ import annotations

import difflib
import os
from pathlib import Path

from .loader import REPO_ROOT

GENERATED = REPO_ROOT / "generated"


def _backends():
    from . import backends
    return [(name, backends.get(name).generate) for name in backends.ORDER]


def source_label(op) -> str:
    """How generated files name their spec: relative to the repository when inside it."""
    p = Path(op.source).resolve()
    try:
        return p.relative_to(REPO_ROOT).as_posix()
    except ValueError:
        return f"specs/{p.name}"


def render_all(ops: dict, backends=None) -> dict[str, str]:
    files: dict[str, str] = {}
    for name, fn in _backends():
        if backends and name not in backends:
            continue
        files.update(fn(ops, source_label))
    return dict(sorted(files.items()))


def _existing(out: Path, roots) -> set[str]:
    found = set()
    for root in roots:
        base = out / root
        if base.is_dir():
            for p in base.rglob("*"):
                if p.is_file() and "__pycache__" not in p.parts:
                    found.add(p.relative_to(out).as_posix())
    return found


def write(files: dict[str, str], out: Path = GENERATED) -> list[str]:
    """Write the files, delete files of the same backends that are no longer generated; return what changed."""
    roots = sorted({path.split("/")[0] for path in files})
    changed = []
    for path in sorted(_existing(out, roots) - set(files)):
        (out / path).unlink()
        changed.append(f"deleted {path}")
    for path, text in files.items():
        target = out / path
        if target.is_file() and target.read_text() == text:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(target.suffix + ".tmp")
        tmp.write_text(text)
        os.replace(tmp, target)
        changed.append(f"wrote {path}")
    return changed


def check(files: dict[str, str], out: Path = GENERATED) -> list[str]:
    """Differences between `files` and what is on disk: unified diffs, missing files, extra files."""
    roots = sorted({path.split("/")[0] for path in files})
    problems = []
    for path in sorted(_existing(out, roots) - set(files)):
        problems.append(f"extra file {out.name}/{path} (no spec generates it)")
    for path, text in files.items():
        target = out / path
        if not target.is_file():
            problems.append(f"missing file {out.name}/{path}")
            continue
        old = target.read_text()
        if old != text:
            diff = difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                        f"{out.name}/{path} (on disk)", f"{out.name}/{path} (regenerated)")
            problems.append("".join(diff))
    return problems
