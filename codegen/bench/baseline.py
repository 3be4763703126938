"""`opgen bench --baseline REV`: the C kernels of another git revision, timed side by side with today's.

Run to run, this machine's timings move by 20-50% (page placement, other tenants), far more than most changes
to a kernel; two bench reports taken minutes apart cannot say whether a change helped.  A baseline makes it one
run: REV's tree is exported (`git archive`, nothing in the working copy is touched), REV's own generator builds
REV's C libraries in a subprocess (cached like any build; a copy of each in build/baseline/<commit>/loaded/), and
the libraries are loaded next to today's through today's binding — the aclnn C API they export is the contract, so any
revision with the C backend serves.  Its rows are backend `c@REV`, timed in the same interleaved passes as
`c`; `ratio` is their time over ours (> 1: today's kernels are faster).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from codegen.buildcache import build_root
from codegen.loader import REPO_ROOT

# Runs inside REV's exported tree: build its C library for each op named on the command line (after the specs
# folder, "" for specs/), print the paths.
_BUILD = """
import json, sys
import codegen
from codegen.backends.c import build
ops = codegen.load_specs(sys.argv[1] or None)
print(json.dumps({name: str(build.library(ops[name])) for name in sys.argv[2:] if name in ops}))
"""


class BaselineError(RuntimeError):
    """REV cannot be exported or its generator cannot build the libraries (the message says why)."""


def _git(*args: str) -> bytes:
    try:
        return subprocess.run(["git", "-C", str(REPO_ROOT), *args], capture_output=True, check=True).stdout
    except FileNotFoundError as e:
        raise BaselineError("--baseline needs git") from e
    except subprocess.CalledProcessError as e:
        raise BaselineError(f"git {' '.join(args)}: {e.stderr.decode(errors='replace').strip()}") from e


def _build_dir(commit: str) -> Path:
    """REV's build folder, build/baseline/<commit>/, whose runtime archives and libraries are today's folders
    (c-runtime, c): an artefact is named by a hash of everything it is built from, so REV reuses today's where it
    is the same (a baseline of HEAD: every run of the bench test) and adds its own beside them otherwise."""
    root = build_root() / "baseline" / commit
    for shared in ("c-runtime", "c"):
        link = root / shared
        if not link.exists():
            (build_root() / shared).mkdir(parents=True, exist_ok=True)
            root.mkdir(parents=True, exist_ok=True)
            try:
                link.symlink_to(build_root() / shared, target_is_directory=True)
            except FileExistsError:   # another bench made it meanwhile
                pass
    return root


def _apart(path: Path, commit: str) -> Path:
    """A copy of REV's library in REV's own folder: the same file loaded twice would be one library (the loader
    knows a file by its inode), not two timed side by side, and a baseline of HEAD is served today's build."""
    copy = build_root() / "baseline" / commit / "loaded" / path.name
    if not copy.exists():
        copy.parent.mkdir(parents=True, exist_ok=True)
        part = copy.with_name(f"{copy.name}.{os.getpid()}.part")
        shutil.copyfile(path, part)
        os.replace(part, copy)
    return copy


def libraries(rev: str, op_names: list[str], specs=None) -> tuple[str, dict[str, Path]]:
    """(label "c@<short commit>", {op name: REV's library}) for the ops REV has, in its `specs` folder (`opgen
    --specs`, a path inside the repository; default specs/: examples/more_specs/'s ops had no baseline rows)."""
    folder = ""
    if specs:
        try:
            folder = str(Path(specs).resolve().relative_to(REPO_ROOT.resolve()))
        except ValueError as e:
            raise BaselineError(f"--specs {specs} is outside the repository: REV has no copy of it") from e
    commit = _git("rev-parse", "--verify", f"{rev}^{{commit}}").decode().strip()
    with tempfile.TemporaryDirectory(prefix="opgen-baseline-") as tmp:
        archive = Path(tmp) / "rev.tar"
        archive.write_bytes(_git("archive", "--format=tar", commit))
        tree = Path(tmp) / "tree"
        with tarfile.open(archive) as tar:   # (our own commit; the "data" filter where Python has it)
            tar.extractall(tree, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
        env = dict(os.environ, PYTHONPATH=str(tree), OPGEN_BUILD_DIR=str(_build_dir(commit)))
        done = subprocess.run([sys.executable, "-c", _BUILD, folder, *op_names], cwd=tree, env=env, capture_output=True,
                              text=True)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise BaselineError(f"revision {rev} ({commit[:12]}) could not build its C libraries:\n{tail}")
    paths = {name: _apart(Path(p), commit) for name, p in json.loads(done.stdout.strip().splitlines()[-1]).items()}
    return f"c@{commit[:10]}", paths
