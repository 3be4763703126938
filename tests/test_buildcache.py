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


def _fake_cxx(folder: Path, calls: Path, fails: str) -> Path:
    """A `g++` that logs its calls, writes an empty output, and fails when an argument ends with one of the
    space-separated names in `fails` (a translation unit the test wants rejected)."""
    cxx = folder / "fake-cxx"
    cxx.write_text(f"""#!/bin/sh
[ "$1" = --version ] && {{ echo fake-cxx 1; exit 0; }}
echo "$@" >> {calls}
out=""; prev=""
for a in "$@"; do
  [ "$prev" = -o ] && out="$a"
  for f in {fails}; do case "$a" in *"$f") echo "error in $f" >&2; exit 1;; esac; done
  prev="$a"
done
: > "$out"
""")
    cxx.chmod(cxx.stat().st_mode | stat.S_IEXEC)
    return cxx


def _launcher_jobs(monkeypatch, tmp_path, fails: str = "") -> tuple[list[tuple], Path]:
    from codegen.backends.ascendc import build as asc_build
    from codegen.backends.ascendc.binding import build_job
    calls = tmp_path / "calls"
    monkeypatch.setenv("OPGEN_BUILD_DIR", str(tmp_path / "build"))
    monkeypatch.setattr(asc_build, "CXX", str(_fake_cxx(tmp_path, calls, fails)))
    ops = codegen.load_specs()
    return [build_job(ops[n], "ascend910b") for n in ("glu_backward", "softshrink_backward")], calls


def _compiles(calls: Path, main: str) -> int:
    return sum(f"/{main} " in line for line in calls.read_text().splitlines()) if calls.exists() else 0


def test_launchers_built_together_are_served_under_their_own_keys(monkeypatch, tmp_path):
    """build_many compiles the launchers not built yet in one translation unit per architecture, and each op's
    executable is that unit's, linked under the op's own key: `build` of either op then compiles nothing, and a
    byte changed in a file one op's compile reads builds that op again, alone (the other is served)."""
    from codegen.backends.ascendc import build as asc_build
    jobs, calls = _launcher_jobs(monkeypatch, tmp_path)
    paths = asc_build.build_many(jobs)
    assert _compiles(calls, "launchers.cpp") == 1 and not any(_compiles(calls, j[2]) for j in jobs)
    assert [p.name.rsplit("-", 1)[0] for p in paths] == [f"{j[0]}-220" for j in jobs]
    assert paths[0].stat().st_ino == paths[1].stat().st_ino           # one executable, a name per op
    n = len(calls.read_text().splitlines())
    assert [asc_build.build(*j) for j in jobs] == paths and len(calls.read_text().splitlines()) == n
    name, files, main, aicore = jobs[0]
    tiling = "op_kernel/glu_backward_tiling.h"
    changed = (name, {**files, tiling: files[tiling] + "\n"}, main, aicore)
    again = asc_build.build_many([changed, jobs[1]])
    assert again[1] == paths[1] and again[0] != paths[0] and again[0].stat().st_ino != paths[1].stat().st_ino
    assert _compiles(calls, "launchers.cpp") == 1 and _compiles(calls, main) == 1


def test_a_group_that_fails_to_compile_is_built_op_by_op(monkeypatch, tmp_path):
    """A shared translation unit that the compiler rejects does not fail every op in it: each op is compiled
    alone, the op whose own launcher fails raises its own error (naming it), and the others are built."""
    from codegen.backends.ascendc import build as asc_build
    jobs, calls = _launcher_jobs(monkeypatch, tmp_path, fails="launchers.cpp glu_backward_launcher.cpp")
    with pytest.raises(buildcache.BuildError, match=r"building glu_backward-220 failed:\n.*glu_backward_launcher"):
        asc_build.build_many(jobs)
    assert _compiles(calls, "launchers.cpp") == 1 and _compiles(calls, jobs[1][2]) == 1
    assert asc_build.build(*jobs[1]).exists() and _compiles(calls, jobs[1][2]) == 1
