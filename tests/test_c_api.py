"""The C runtime and kernels under AddressSanitizer and UndefinedBehaviorSanitizer.

* tests/c/test_runtime_api.c: the API contract in C (init, devices and the product, memory, tensors, phase-1
  null checks, every misuse of phase 2), compiled with `-Wall -Wextra -Werror -fsanitize=address,undefined`;
  LeakSanitizer also checks that aclFinalize frees the executors never run.
* The value and layout tests of test_c_values.py, run again in a Python whose kernels are the sanitized build
  (ASan preloaded): strided, negative, misaligned, overlapping and broadcast views, rank 0 and 8, long rows.
  ASan fills each allocation's first MiB (sanitized_build.ASAN_FILL), so a read before a write gives garbage.
* --deep: the runtime API test and call examples under clang's MemorySanitizer, where clang is installed.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

import codegen
from codegen.backends.c.examples import write_tree

from . import sanitized_build
from .conftest import REPO, TESTS, ci_kinds

OPS = codegen.load_specs()


def _runtime_lib(name: str) -> str | None:
    out = subprocess.run(["cc", f"-print-file-name={name}"], capture_output=True, text=True).stdout.strip()
    return out if os.path.isabs(out) and os.path.exists(out) else None


def test_runtime_api_contract_under_sanitizers(tmp_path):
    for name in ("log_sigmoid_backward", "softmax_backward"):
        write_tree(tmp_path, OPS[name])
    c = tmp_path / "generated" / "c"
    sources = sorted((c / "src").glob("*.c"))
    exe = tmp_path / "api"
    build = sanitized_build.build(c, [TESTS / "c" / "test_runtime_api.c", *sources], exe)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "ASAN_OPTIONS": "detect_leaks=1:" + sanitized_build.ASAN_FILL})
    assert run.returncode == 0 and "all passed" in run.stdout, run.stdout + run.stderr


# (not every_variant, streamed_sums nor which_calls_stream: the sanitized build has no AVX, hence no non-temporal
# stores, and their 16 MiB outputs would only add time)
VALUE_TESTS = "not every_variant and not streamed_sums and not which_calls_stream"
SAMPLE = 24   # value tests run under the sanitizers in CI, drawn with a fixed seed; --deep runs them all


def _sanitized_pytest(args: list[str], **extra_env):
    env = {**os.environ, **extra_env, "OPGEN_C_SANITIZE": "1", "LD_PRELOAD": _runtime_lib("libasan.so"),
           "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1:" + sanitized_build.ASAN_FILL, "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1"}
    # -s: a sanitizer report goes to stderr at once (pytest's capture would lose it when ASan aborts).
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-x", "-s", *args],
                         cwd=REPO, capture_output=True, text=True, env=env, timeout=1800)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert "passed" in run.stdout


def _value_test_ids() -> list[str]:
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=",
                          "--collect-only", "-q", str(TESTS / "test_c_values.py"), "-k", VALUE_TESTS],
                         cwd=REPO, capture_output=True, text=True)
    ids = [line for line in run.stdout.splitlines() if "::" in line]
    assert ids, run.stdout[-2000:] + run.stderr[-2000:]
    return ids


@pytest.mark.skipif(_runtime_lib("libasan.so") is None, reason="no AddressSanitizer runtime")
def test_a_sample_of_the_value_tests_under_sanitizers():
    """A fixed sample of the value and layout tests of test_c_values.py with the sanitized library (its builds are
    the ones --deep uses: built once per content, in build/c/)."""
    import random
    import re
    # of one op of each kind only: each op is one more sanitized library to build (5-10 s), while what the
    # sanitizers watch is mostly the runtime the ops share (loops, views, copies, the executor)
    ops = set(ci_kinds(OPS))
    named = lambda i: {w for w in re.split(r"[\[\]-]", i) if w in OPS}   # noqa: E731 - the ops an id names
    # nor the 16 MiB streamed outputs (ELU's, an op of no kind drawn here: one more sanitized library), whose
    # non-temporal path the sanitized build lacks, like streamed_sums' (VALUE_TESTS); --deep runs them sanitized
    ids = [i for i in _value_test_ids() if named(i) <= ops and "::test_streamed_outputs[" not in i]
    _sanitized_pytest(sorted(random.Random(33).sample(ids, min(SAMPLE, len(ids)))))


@pytest.mark.deep
@pytest.mark.skipif(_runtime_lib("libasan.so") is None, reason="no AddressSanitizer runtime")
def test_values_and_layouts_under_sanitizers():
    _sanitized_pytest([str(TESTS / "test_c_values.py"), "-k", VALUE_TESTS])


@pytest.mark.deep
@pytest.mark.skipif(_runtime_lib("libasan.so") is None, reason="no AddressSanitizer runtime")
def test_hostile_calls_under_sanitizers():
    """tests/test_hostile_fuzz.py's calls through the sanitized C library (and NumPy, for the verdicts)."""
    _sanitized_pytest([str(TESTS / "test_hostile_fuzz.py"), "--deep", "-p", "no:randomly"],
                      OPGEN_FUZZ_BACKENDS="numpy,c", OPGEN_FUZZ_EXAMPLES="400")


def _clang() -> str | None:
    import shutil
    return next((c for c in ("clang", "clang-19", "clang-18", "clang-17", "clang-16", "clang-15", "clang-14")
                 if shutil.which(c)), None)


# the executor API test, then every op's call example (about 8 minutes on two busy cores: session 19, none reported)
MSAN_PROGRAMS = ["runtime_api", *sorted(OPS)]


@pytest.mark.deep
@pytest.mark.skipif(_clang() is None, reason="MemorySanitizer needs clang (apt-get install clang)")
@pytest.mark.parametrize("program", MSAN_PROGRAMS)
def test_programs_under_memory_sanitizer(program, tmp_path):
    """A C program (the runtime API contract, or an op's call example), runtime and kernels built whole with
    `-fsanitize=memory` (libc's calls intercepted; no uninstrumented code of ours): any branch, address or libc
    argument that reads memory never written, the executor's un-zeroed call records included, is a report and exit
    code 1 (documented in docs/correctness.md)."""
    from codegen.backends.c import examples
    names = ["log_sigmoid_backward", "softmax_backward"] if program == "runtime_api" else [program]
    for name in names:
        examples.write_tree(tmp_path, OPS[name])
    c = tmp_path / "generated" / "c"
    main = TESTS / "c" / "test_runtime_api.c" if program == "runtime_api" else c / examples.example_path(OPS[program])
    exe = tmp_path / "msan"
    build = subprocess.run([_clang(), "-std=c11", "-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=memory",
                            "-fsanitize-memory-track-origins=2", "-ffp-contract=off", "-I", str(c / "include"),
                            str(main), *map(str, sorted((c / "src").glob("*.c"))), "-lm", "-lpthread", "-o", str(exe)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-4000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0 and "MemorySanitizer" not in run.stderr, run.stdout[-2000:] + run.stderr[-4000:]
