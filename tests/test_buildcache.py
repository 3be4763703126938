"""The build cache (codegen/buildcache.py) that every test, pytest-xdist worker and `opgen` command shares: it
serves an artefact only when everything it was built from is the same — every source's text, the flags, the
compiler — builds it once when several processes ask at once, and never serves one built from other source (one
byte changed gives a rebuild)."""
from __future__ import annotations

import ctypes
import multiprocessing
import os
import stat
from pathlib import Path

import pytest

import codegen
from codegen import buildcache
from codegen.backends.c import build as c_build

SOURCE = "int opgen_answer(void) { return 41; }\n"


def _build(root: Path, text: str = SOURCE, flags=("-O2",), extra=None) -> Path:
    """A shared library of `text` through cached_build (the build folder: $OPGEN_BUILD_DIR, `root`)."""
    assert os.environ["OPGEN_BUILD_DIR"] == str(root)
    return buildcache.cached_build(
        "test", "answer", {"answer.c": text}, "cc", ["-shared", "-fPIC", *flags],
        lambda src, out: ["cc", "-shared", "-fPIC", *flags, str(src / "answer.c"), "-o", str(out)],
        suffix=".so", key_extra=extra)


def _answer(path: Path) -> int:
    return ctypes.CDLL(str(path)).opgen_answer()


def _builds(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_one_byte_of_source_flags_compiler_or_header_builds_again(monkeypatch, tmp_path):
    log = tmp_path / "builds.tsv"
    monkeypatch.setenv("OPGEN_BUILD_LOG", str(log))
    monkeypatch.setenv("OPGEN_BUILD_DIR", str(tmp_path))
    first = _build(tmp_path)
    assert _answer(first) == 41 and _builds(log) == 1
    assert _build(tmp_path) == first and _builds(log) == 1                 # the same: served, not built
    changed = _build(tmp_path, SOURCE.replace("41", "42"))                 # one byte: built again
    assert changed != first and _builds(log) == 2 and _answer(changed) == 42
    assert first.exists() and _answer(first) == 41                         # and the first left as it was
    assert _build(tmp_path, flags=("-O3",)) not in (first, changed) and _builds(log) == 3
    assert _build(tmp_path, extra={"include/h.h": "#define A 1\n"}) != first and _builds(log) == 4
    assert _build(tmp_path, extra={"include/h.h": "#define A 2\n"}) != first and _builds(log) == 5
    buildcache.compiler_version.cache_clear()
    monkeypatch.setattr(buildcache, "compiler_version", lambda compiler: "another cc 99\n")
    assert _build(tmp_path) != first and _builds(log) == 6                 # another compiler
    assert not list(tmp_path.glob("test/tmp*"))                            # no half-built folder left


def test_a_failed_build_leaves_nothing_to_serve(monkeypatch, tmp_path):
    monkeypatch.setenv("OPGEN_BUILD_DIR", str(tmp_path))
    with pytest.raises(buildcache.BuildError, match="building answer failed"):
        _build(tmp_path, SOURCE.replace("return", "retrun"))
    assert [p.name for p in (tmp_path / "test").iterdir() if not p.name.endswith(".lock")] == []


def _build_in_a_process(root: str, log: str, queue) -> None:
    os.environ.update(OPGEN_BUILD_LOG=log, OPGEN_BUILD_DIR=root)
    queue.put(str(_build(Path(root))))


def test_processes_asking_at_once_share_one_build(tmp_path):
    """What pytest-xdist's workers do when two tests need one library: one compiles, the other waits on the
    key's lock and is served that build."""
    log = tmp_path / "builds.tsv"
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_build_in_a_process, args=(str(tmp_path), str(log), queue)) for _ in range(3)]
    for p in procs:
        p.start()
    paths = {queue.get(timeout=120) for _ in procs}
    for p in procs:
        p.join(timeout=120)
    assert len(paths) == 1 and _builds(log) == 1


def _fake_compiler(folder: Path, calls: Path) -> Path:
    """A `cc` that writes, as its output, the text of the .c and .o files it was given (and logs its call): what it
    built from is then readable in the artefact."""
    cc = folder / "fake-cc"
    cc.write_text(f"""#!/bin/sh
[ "$1" = --version ] && {{ echo fake-cc 1; exit 0; }}
echo "$@" >> {calls}
out=""; prev=""; srcs=""
for a in "$@"; do
  if [ "$prev" = -o ]; then out="$a"; else case "$a" in *.c|*.o) srcs="$srcs $a";; esac; fi
  prev="$a"
done
cat $srcs /dev/null > "$out"
""")
    cc.chmod(cc.stat().st_mode | stat.S_IEXEC)
    return cc


def test_an_ops_library_is_built_again_when_one_byte_of_its_source_changes(monkeypatch, tmp_path):
    """c_build.library, the path every C test and `codegen.kernel` loads: the op's own source with one byte
    changed gives another library, built from the changed text (a compiler that copies its sources stands in for
    cc, so the artefact shows what it was built from); the unchanged source is served without a compile."""
    calls = tmp_path / "calls"
    monkeypatch.setenv("OPGEN_BUILD_DIR", str(tmp_path / "build"))
    monkeypatch.setattr(c_build, "CC", str(_fake_compiler(tmp_path, calls)))
    op = codegen.load_specs()["softshrink_backward"]
    first = c_build.library(op)
    n = _builds(calls)
    assert n > 0 and c_build.library(op) == first and _builds(calls) == n
    sources = c_build.sources

    def one_byte_changed(op_):
        files = sources(op_)
        path = next(p for p in files if p.startswith("src/aclnn_"))
        return {**files, path: files[path].replace("lambd < fabsf", "lambd <= fabsf", 1)}
    monkeypatch.setattr(c_build, "sources", one_byte_changed)
    changed = c_build.library(op)
    assert changed != first and _builds(calls) > n
    assert "lambd <= fabsf" in changed.read_text() and "lambd <= fabsf" not in first.read_text()
    assert "lambd < fabsf" in first.read_text()


def test_a_launcher_is_keyed_on_the_files_it_compiles(monkeypatch, tmp_path):
    """An Ascend C simulator launcher: a byte changed in a file the compile reads (the kernel's tiling header,
    included by the kernel and the host's header) builds it again; one changed in a project file the launcher
    never reads (op_api/, which a derived op renders differently for the same kernel) is served the same build."""
    from codegen.backends.ascendc import build as asc_build
    from codegen.backends.ascendc.binding import build_job
    calls = tmp_path / "calls"
    monkeypatch.setenv("OPGEN_BUILD_DIR", str(tmp_path / "build"))
    monkeypatch.setattr(asc_build, "CXX", str(_fake_compiler(tmp_path, calls)))
    name, files, main, aicore = build_job(codegen.load_specs()["glu_backward"], "ascend910b")
    first = asc_build.build(name, files, main, aicore)
    n = _builds(calls)
    api = next(p for p in files if p.startswith("op_api/") and p.endswith(".cpp"))
    assert asc_build.build(name, {**files, api: files[api] + "\n"}, main, aicore) == first and _builds(calls) == n
    tiling = "op_kernel/glu_backward_tiling.h"
    assert tiling in asc_build.compiled_files(files, main) and api not in asc_build.compiled_files(files, main)
    again = asc_build.build(name, {**files, tiling: files[tiling] + "\n"}, main, aicore)
    assert again != first and _builds(calls) == n + 1
