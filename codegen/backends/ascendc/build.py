"""Compile a generated op project with the simulator into a launcher executable, cached by content hash.

The key covers every source compiled (the generated files, every simulator header), the flags and the
compiler's version, so an executable in `build/ascendc/` is reused exactly when nothing it was built from
changed.  Compiles of different keys may run in parallel (`build_many`, which compiles the launchers not built
yet together, one translation unit per architecture, and links each op's executable to it under the op's own
key); a lock file keeps two processes from building the same key at once.
"""
from __future__ import annotations

import concurrent.futures
import os
import posixpath
import re
import shlex
import shutil
import threading
from pathlib import Path

from codegen.buildcache import BuildError, artefact, cached_build, compiler_version  # noqa: F401  (re-exported)

SIMULATOR = Path(__file__).parent / "simulator"
CXX = os.environ.get("CXX", "g++")
# -O0: a build is the simulator's cost, not a run (measured: LogSigmoid's launcher 3.3 s of CPU at -O1, 2.2 s at
# -O0; a call on 2^20 FLOAT16 elements 0.2 s at -O1, 0.4 s at -O0, and the tests' calls are small).  The values
# do not change: SSE arithmetic rounds every operation to its type at any level, and contraction is off.
FLAGS = ["-std=c++17", "-O0", "-ffp-contract=off", "-fno-fast-math"]


def _simulator_sources() -> dict[str, str]:
    return {p.relative_to(SIMULATOR).as_posix(): p.read_text()
            for p in sorted(SIMULATOR.rglob("*.h"))}


# Every generated launcher includes the simulator (launcher_util.h, which includes kernel_operator.h) before
# anything else: parsed once per architecture into a precompiled header (`_precompiled`), a launcher's compile takes
# less CPU (LogSigmoid's: 1.04 s instead of 1.55; the value sweep's 55: 103 s instead of 118 with the three
# headers) and gives the same executable, byte for byte (GCC uses a .gch only under the flags it was built with,
# else the header's text, -Winvalid-pch saying so).  A file that starts otherwise (the simulator's self-tests)
# compiles as written.
PCH = "opgen_sim_pch.h"
FIRST = '#include "opgen_sim/launcher_util.h"'
PCH_TEXT = FIRST + "\n"


def _starts_with_the_simulator(text: str) -> bool:
    """Whether the first line of `text` that is not a comment or blank includes launcher_util.h."""
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("//"):
            return line.strip() == FIRST
    return False


def _precompiled(flags: list[str], aicore: int) -> Path:
    """A folder holding PCH and its precompiled form for `flags` (built once per content, in build/ascendc-pch/)."""
    def command(src: Path, out: Path) -> list[str]:
        return ["sh", "-c", " && ".join(shlex.join(step) for step in (
            ["mkdir", str(out)], ["cp", str(src / PCH), str(out / PCH)],
            [CXX, *flags, "-I", str(SIMULATOR), "-x", "c++-header", str(out / PCH), "-o", f"{out / PCH}.gch"]))]
    return cached_build("ascendc-pch", f"simulator-{aicore}", {PCH: PCH_TEXT}, CXX, flags, command,
                        key_extra={f"simulator/{p}": t for p, t in _simulator_sources().items()})


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*["<]([^">]+)[">]', re.M)


def compiled_files(files: dict[str, str], main: str) -> dict[str, str]:
    """The files of `files` that compiling `main` reads: `main` and what it includes, transitively, by a path
    relative to the including file (the simulator's headers, on the -I path, are in the key apart).  A project
    holds more (op_api/, CMake, the JSON definition) that the launcher never reads: a class-index, halves or
    several-outputs op's kernel is made from a derived op whose op_api differs, and keying on those files built
    the same launcher twice (8 ops' launchers, two per architecture, in a cold test run).  Only these files are
    written for the compiler, so one it reads by a route not followed here fails the build; it cannot go stale."""
    seen, todo = {}, [main]
    while todo:
        path = todo.pop()
        if path in seen or path not in files:
            continue
        seen[path] = files[path]
        folder = posixpath.dirname(path)
        todo += [posixpath.normpath(posixpath.join(folder, inc)) for inc in _INCLUDE.findall(files[path])]
    return seen


def _pch(flags: list[str], aicore: int, text: str) -> list[str]:
    """The flags that make a compile of `text` use the simulator's precompiled header (none if it starts otherwise)."""
    if not _starts_with_the_simulator(text):
        return []
    return ["-Winvalid-pch", "-I", str(_precompiled(flags, aicore)), "-include", PCH]


def _flags(aicore: int) -> list[str]:
    return FLAGS + [f"-D__CCE_AICORE__={aicore}"]


def _key_extra() -> dict[str, str]:
    return {f"simulator/{p}": t for p, t in _simulator_sources().items()}


def _compile(kind: str, name: str, files: dict[str, str], main: str, aicore: int) -> Path:
    """`main` of `files` compiled and linked for an architecture, cached under `kind` by content."""
    flags = _flags(aicore)
    pch = _pch(flags, aicore, files[main])
    return cached_build(kind, f"{name}-{aicore}", files, CXX, flags,
                        lambda src, out: [CXX, *flags, *pch, "-I", str(SIMULATOR), str(src / main), "-o", str(out)],
                        key_extra=_key_extra())


def build(name: str, files: dict[str, str], main: str, aicore: int) -> Path:
    """The executable built from `files` ({relative path: text}, `main` the file to compile) for an
    architecture (__CCE_AICORE__), compiling it unless an identical build exists (keyed on the files it reads;
    a launcher that `build_many` compiled in a shared executable is served that executable under its own key)."""
    return _compile("ascendc", name, compiled_files(files, main), main, aicore)


def _target(job: tuple) -> Path:
    """Where `build(*job)` keeps its executable."""
    name, files, main, aicore = job
    return artefact("ascendc", f"{name}-{aicore}", compiled_files(files, main), CXX, _flags(aicore),
                    key_extra=_key_extra())


# Launchers compiled together: several ops' launchers in one translation unit, each in a namespace of its own,
# with one `main` that runs the launcher its executable is named after (argv[0]).  The simulator's templates,
# libstdc++'s and the link are paid once for the group instead of once per op (ci2 measured six launchers: 1.8 CPU-s
# together against 5.9 apart).  Each op's executable is then a hard link to the group's under the op's own key —
# the files its own compile reads, the simulator, the flags and the compiler — so `build` serves it exactly as
# it would serve a launcher compiled alone, and a byte changed in any of those files builds it again.
# A group's size trades CPU for wall time: the value sweep's 42 launchers on one architecture took 6.4 CPU-s as one
# translation unit, 10.3 as six groups of at most 8 (both cores: 11.9 s of wall time at load 2.6, the one unit 8.8)
# and ~30 one by one.  Under `pytest -n auto` both cores are busy with tests, so the CPU figure is the one that
# counts: every architecture's launchers in one unit.
GROUP = 48


def _groupable(job: tuple) -> bool:
    name, files, main, _ = job
    return _starts_with_the_simulator(files[main]) and not _target(job).exists()


def _group_source(jobs: list[tuple]) -> tuple[dict[str, str], str]:
    """The files of one translation unit of `jobs`' launchers ({path: text}) and its main file.  Each op's files
    keep their relative paths under a folder of the op's name (its `#include "../op_kernel/…"` resolve as alone);
    the `<…>` headers they include are included first, at file scope, so that the copies inside a namespace are
    empty (include guards)."""
    files, system, parts, calls = {}, set(), [FIRST], []
    for i, (name, own, main, aicore) in enumerate(jobs):
        for path, text in compiled_files(own, main).items():
            files[f"{name}/{path}"] = text
            system |= {line.strip() for line in text.splitlines() if re.match(r"\s*#\s*include\s*<", line)}
        parts.append(f"namespace opgen_launcher_{i} {{\n#include \"{name}/{main}\"\n}}")
        calls.append(f'    if (self == "{name}-{aicore}") return opgen_launcher_{i}::main(argc, argv);')
    names = ", ".join(f"{name}-{aicore}" for name, _, _, aicore in jobs)
    files["launchers.cpp"] = "\n".join([
        FIRST, *sorted(system), "#include <cstring>", *parts[1:], "",
        "int main(int argc, char** argv)", "{",
        "    // the executable's name is <op>-<arch>-<key>: a hard link per op (codegen/backends/ascendc/build.py)",
        "    const char* slash = std::strrchr(argv[0], '/');",
        "    std::string self = slash ? slash + 1 : argv[0];",
        "    self = self.substr(0, self.rfind('-'));",
        *calls,
        f'    std::cerr << argv[0] << ": this launcher holds {names}; run it by one of their names\\n";',
        "    return 2;", "}", ""])
    return files, "launchers.cpp"


def _build_group(jobs: list[tuple]) -> None:
    """Compile `jobs` (one architecture) in one translation unit and link each op's executable to it."""
    group = _compile("ascendc-group", "launchers", *_group_source(jobs), jobs[0][3])
    for job in jobs:
        target = _target(job)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.link")
            try:
                os.link(group, tmp)
            except OSError:   # a file system without hard links: a copy, the same bytes
                shutil.copy2(group, tmp)
            os.replace(tmp, target)


def build_many(jobs: list[tuple], workers: int | None = None) -> list[Path]:
    """Build several (name, files, main, aicore) at once, one compiler per core: the launchers not built yet
    together, up to `GROUP` to a translation unit per architecture.  A group that fails to compile is built again
    one op at a time (`build`), so a compile error is reported by the op whose own launcher fails, exactly as a
    build of it alone reports it, and the group's other launchers are built and served as usual."""
    workers = workers or max(1, os.cpu_count() or 1)
    fresh: dict[int, dict[str, tuple]] = {}
    for job in jobs:
        if _groupable(job):
            fresh.setdefault(job[3], {}).setdefault(job[0], job)
    groups = [g[i:i + GROUP] for g in map(list, map(dict.values, fresh.values())) for i in range(0, len(g), GROUP)]

    def together(group: list[tuple]):
        try:
            _build_group(group)
        except BuildError:
            pass   # one by one below: each op's own error, on its own key

    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        list(pool.map(together, [g for g in groups if len(g) > 1]))
        return list(pool.map(lambda j: build(*j), jobs))
