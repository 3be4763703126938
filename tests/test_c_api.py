"""The C runtime and kernels under AddressSanitizer and UndefinedBehaviorSanitizer.

* tests/c/test_runtime_api.c: the API contract in C (init, devices and the product, memory, tensors, phase-1
  null checks, every misuse of phase 2), compiled with `-Wall -Wextra -Werror -fsanitize=address,undefined`;
  LeakSanitizer also checks that aclFinalize frees the executors never run.
* The value and layout tests of test_c_values.py, run again in a Python whose kernels are the sanitized build
  (ASan preloaded): strided, negative, misaligned, overlapping and broadcast views, rank 0 and 8, long rows.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

import codegen
from codegen.backends.c.examples import write_tree

from .conftest import REPO, TESTS

OPS = codegen.load_specs()
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g"]


def _runtime_lib(name: str) -> str | None:
    out = subprocess.run(["cc", f"-print-file-name={name}"], capture_output=True, text=True).stdout.strip()
    return out if os.path.isabs(out) and os.path.exists(out) else None


def test_runtime_api_contract_under_sanitizers(tmp_path):
    for name in ("log_sigmoid_backward", "softmax_backward"):
        write_tree(tmp_path, OPS[name])
    c = tmp_path / "generated" / "c"
    sources = [str(p) for p in sorted((c / "src").glob("*.c"))]
    exe = tmp_path / "api"
    build = subprocess.run(["cc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", *SANITIZE, "-I", str(c / "include"),
                            str(TESTS / "c" / "test_runtime_api.c"), *sources, "-lm", "-lpthread", "-o", str(exe)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "ASAN_OPTIONS": "detect_leaks=1"})
    assert run.returncode == 0 and "all passed" in run.stdout, run.stdout + run.stderr


@pytest.mark.skipif(_runtime_lib("libasan.so") is None, reason="no AddressSanitizer runtime")
def test_values_and_layouts_under_sanitizers():
    env = {**os.environ, "OPGEN_C_SANITIZE": "1", "LD_PRELOAD": _runtime_lib("libasan.so"),
           "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1", "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1"}
    # -s: a sanitizer report goes to stderr at once (pytest's capture would lose it when ASan aborts).
    # (not streamed_sums nor which_calls_stream: the sanitized build has no AVX, hence no non-temporal stores, and
    # their 16 MiB outputs would only add time)
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-x", "-s",
                          str(TESTS / "test_c_values.py"), "-k",
                          "not every_variant and not streamed_sums and not which_calls_stream"],
                         cwd=REPO, capture_output=True, text=True, env=env, timeout=1200)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert "passed" in run.stdout
