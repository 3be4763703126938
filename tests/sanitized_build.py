"""Programs built under AddressSanitizer and UndefinedBehaviorSanitizer from a generated C tree (the call examples',
the runtime API test's), each source compiled on its own and cached by content in build/c-sanitized/: the runtime's
objects are compiled once for every program instead of once per program (six call examples compiled the whole
runtime six times).  -O0, as the sanitized libraries (codegen.backends.c.build.SANITIZE_FLAGS): every access stays
for ASan to check, and a source compiles in about a third of -O1's CPU (the six examples and the API test: 34 CPU-s
instead of 58, cold).  The warnings are errors here too; the ones only an optimiser's flow analysis finds
(-Wmaybe-uninitialized) hold every source in the -O2 example build and the -O3 libraries' builds.  The link is
redone every time."""
from __future__ import annotations

import subprocess
from pathlib import Path

from codegen.buildcache import cached_build

SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g"]
# ASan fills the first 4 KiB of each allocation with 0xbe, no more by default: filled up to 1 MiB, a read of the
# executor's 19 KB of call records before they are written (perf20 stopped zeroing them) gives garbage counts and
# pointers, which ASan then reports, or a wrong result the test sees.  (MemorySanitizer, which reports the read
# itself, needs clang: test_c_api.py's --deep test_programs_under_memory_sanitizer.)
ASAN_FILL = "max_malloc_fill_size=1048576"
FLAGS = ["-std=c11", "-O0", "-Wall", "-Wextra", "-Werror", *SANITIZE]


def _object(c_dir: Path, source: Path) -> Path:
    """`source` compiled with FLAGS, against the headers of the tree c_dir (include/, src/): a runtime file (opgen_*.c) is keyed on
    the runtime's headers only, so that every op's tree shares its objects; any other on every header."""
    from codegen.backends.c.emit import runtime_files
    runtime = runtime_files()
    headers = {p.relative_to(c_dir).as_posix(): p.read_text()
               for p in sorted([*(c_dir / "include").rglob("*.h"), *(c_dir / "src").glob("*.h")])}
    if f"src/{source.name}" in runtime and source.read_text() == runtime[f"src/{source.name}"]:
        headers = {p: t for p, t in headers.items() if p in runtime}
    files = {**headers, f"src/{source.name}": source.read_text()}

    def command(src: Path, out: Path) -> list[str]:
        return ["cc", *FLAGS, "-I", str(src / "include"), "-c", str(src / "src" / source.name), "-o", str(out)]
    return cached_build("c-sanitized", source.stem, files, "cc", FLAGS, command, suffix=".o")


def build(c_dir: Path, sources: list[Path], exe: Path) -> subprocess.CompletedProcess:
    """Compile `sources` (cached objects) and link them into `exe`; a source the compiler refuses is a failed
    process with its diagnostics on stderr, as the one-command build gave."""
    from codegen.buildcache import BuildError
    try:
        objects = [str(_object(c_dir, Path(s))) for s in sources]
    except BuildError as e:
        return subprocess.CompletedProcess([], 1, "", str(e))
    return subprocess.run(["cc", *FLAGS, *objects, "-lm", "-lpthread", "-o", str(exe)], capture_output=True,
                          text=True)
