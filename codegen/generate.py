"""Render every backend for a set of specs, then write `generated/` or compare it (`--check`).

Backends are listed in codegen.backends.ORDER; each renders {relative path: text}.  Output is a pure
function of the specs and the generator, so two runs write the same bytes.
"""
from __future__ import annotations

import concurrent.futures
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
    from .keep import kept
    from .spec.outputs import refuse_emit
    files: dict[str, str] = {}
    chosen = [(name, fn) for name, fn in _backends() if not backends or name in backends]
    # the docs' call examples (a C compile and run each, most of a cold run's CPU) are built in a thread as soon
    # as the C sources are rendered, while the Ascend C backend renders (Python): the docs wait for them
    examples = None
    with kept(), concurrent.futures.ThreadPoolExecutor(1) as early:   # each op lowered once (codegen.keep)
        for name, fn in chosen:
            for op in ops.values():
                refuse_emit(op, name)
            if name == "docs" and examples is not None:
                examples.result()
            files.update(fn(ops, source_label))
            if name == "c" and "docs" in dict(chosen):
                from .backends.docs import build_examples
                examples = early.submit(build_examples, ops)
    return dict(sorted(files.items()))


def render_good(ops: dict, backends=None) -> tuple[dict[str, str], dict[str, Exception]]:
    """(files of every op that renders, {op name: the error} of those that do not): when rendering them all
    together fails, each op is rendered alone to find which ones fail, and the others are rendered together."""
    try:
        return render_all(ops, backends), {}
    except Exception:  # noqa: BLE001 - narrowed down below, op by op
        pass
    errors = {}
    for name, op in ops.items():
        try:
            render_all({name: op}, backends)
        except Exception as e:  # noqa: BLE001 - reported with the op's file
            errors[name] = e
    good = {k: v for k, v in ops.items() if k not in errors}
    return (render_all(good, backends) if good else {}), errors


def _existing(out: Path, roots) -> set[str]:
    found = set()
    for root in roots:
        base = out / root
        if base.is_dir():
            for p in base.rglob("*"):
                if p.is_file() and "__pycache__" not in p.parts:
                    found.add(p.relative_to(out).as_posix())
    return found


def _norm(name: str) -> str:
    """A path component or op name compared loosely: no extension, no aclnn/test prefix, no underscores."""
    stem = name.split(".", 1)[0].lower()
    for prefix in ("test_aclnn_", "aclnn_", "aclnn"):
        if stem.startswith(prefix):
            stem = stem[len(prefix):]
            break
    return stem.replace("_", "")


def owner(path: str, stems) -> str | None:
    """The op (one of `stems`, spec file stems = snake op names) a generated file belongs to, or None for a file
    shared by every op (the C runtime, the docs index, the NumPy package's __init__)."""
    names = {_norm(s): s for s in stems}
    for part in path.split("/"):
        hit = names.get(_norm(part))
        if hit:
            return hit
    return None


def keep_for(files: dict[str, str], out: Path, good_stems, bad_stems) -> set[str]:
    """When specs are bad: the paths `write` must leave as they are — every file of a bad op (on disk), and every
    shared file (it lists or serves every op, the bad ones included, and is rewritten once they are fixed)."""
    if not bad_stems:
        return set()
    roots = sorted({path.split("/")[0] for path in files})
    if not roots and out.is_dir():   # no good spec at all: every backend folder on disk
        roots = sorted(p.name for p in out.iterdir() if p.is_dir())
    every = set(files) | _existing(out, roots)
    stems = set(good_stems) | set(bad_stems)
    return {p for p in every if owner(p, bad_stems) is not None or owner(p, stems) is None}


def write(files: dict[str, str], out: Path = GENERATED, keep=frozenset()) -> list[str]:
    """Write the files, delete files of the same backends that are no longer generated; return what changed.
    Paths in `keep` are neither written nor deleted (the files of a bad spec, see `keep_for`)."""
    roots = sorted({path.split("/")[0] for path in files})
    changed = []
    for path in sorted(_existing(out, roots) - set(files) - set(keep)):
        (out / path).unlink()
        changed.append(f"deleted {path}")
    for path, text in files.items():
        if path in keep:
            continue
        target = out / path
        if target.is_file() and target.read_text() == text:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(target.suffix + ".tmp")
        tmp.write_text(text)
        os.replace(tmp, target)
        changed.append(f"wrote {path}")
    return changed


def check(files: dict[str, str], out: Path = GENERATED, keep=frozenset()) -> list[str]:
    """Differences between `files` and what is on disk: unified diffs, missing files, extra files (paths in
    `keep` are not compared)."""
    roots = sorted({path.split("/")[0] for path in files})
    problems = []
    for path in sorted(_existing(out, roots) - set(files) - set(keep)):
        problems.append(f"extra file {out.name}/{path} (no spec generates it)")
    for path, text in files.items():
        if path in keep:
            continue
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
