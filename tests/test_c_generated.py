"""What the generated C is made of: it compiles cleanly under strict warnings, its FLOAT kernels hold no
double literal or double libm call (SymPy's printer subclassed where it would print one), and the headers
are laid out as the official examples include them."""
from __future__ import annotations

import re
import subprocess

import pytest

import codegen
from codegen.backends.c.emit import source_name
from codegen.backends.c.names import header_name

from .conftest import REPO

C = REPO / "generated" / "c"
OPS = codegen.load_specs()
STRICT = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Wstrict-prototypes",
          "-Wmissing-prototypes", "-Werror"]


# Each file compiled on its own at -O2 for each target, under --deep.  CI holds every op's source and the runtime
# to the same warnings where it builds them anyway: each library's build (for this CPU) and each call example's
# (portable) compile them under build.STRICT_WARNINGS / examples.EXAMPLE_FLAGS (the next two tests).
@pytest.mark.deep
@pytest.mark.parametrize("path", sorted(p.relative_to(C).as_posix() for p in C.rglob("*.c")))
@pytest.mark.parametrize("target", [[], ["-march=native"]], ids=["portable", "native"])
def test_compiles_under_strict_warnings(path, target, tmp_path):
    """Portable (the call examples' build) and for this CPU (the library's: its AVX/AVX-512 paths)."""
    run = subprocess.run(["cc", *STRICT, *target, "-I", str(C / "include"), "-c", str(C / path),
                          "-o", str(tmp_path / "x.o")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_the_builds_compile_under_the_strict_warnings():
    from codegen.backends.c import build, examples
    warnings = [f for f in STRICT if f.startswith("-W")]
    assert set(warnings) <= set(build.STRICT_WARNINGS) and set(warnings) <= set(examples.EXAMPLE_FLAGS.split())


def test_a_warning_in_an_ops_source_fails_its_library_build(monkeypatch):
    from codegen.backends.c import build
    sources = build.sources

    def with_an_unused_variable(op):
        files = sources(op)
        path = next(p for p in files if p.startswith("src/aclnn_"))
        return {**files, path: files[path] + "\nstatic int opgen_never_read;\n"}
    monkeypatch.setattr(build, "sources", with_an_unused_variable)
    with pytest.raises(build.BuildError, match="opgen_never_read"):
        build.library(OPS["hardshrink_backward"])


def _kernel_section(name: str) -> str:
    text = (C / "src" / source_name(OPS[name])).read_text()
    start = min(i for i in (text.find("static inline float opgen_sigmoidf"), text.find("/* ---- the kernel")) if i >= 0)
    code = text[start:text.index("/* ---- phase 1 ---- */")]
    # the DOUBLE kernels and their helpers compute in double on purpose (an op's `compute` DOUBLE, GluBackward's)
    code = re.sub(r"/\* (helpers of the DOUBLE kernels[^*]*|the kernel[^*]* in DOUBLE) \*/.*?(?=/\* ---- the kernel|\Z)", "",
                  code, flags=re.S)
    return re.sub(r"/\*.*?\*/", "", code, flags=re.S)   # comments may quote measurements ("1.2x")


DOUBLE_LITERAL = re.compile(r"(?<![\w.])(\d+\.\d*|\.\d+|\d+[eE][-+]?\d+)([eE][-+]?\d+)?(?![\w.])")
DOUBLE_CALL = re.compile(r"\b(exp|log|log1p|expm1|fabs|sqrt|pow|tanh|fmax|fmin)\(")


def _without_extended_sums(code: str) -> str:
    """The code with each `(float)(...)` taken out: a sum that cancels, computed in double on purpose
    (codegen.cancellation, codegen/backends/c/extended.py)."""
    out, i = [], 0
    while (j := code.find("(float)(", i)) >= 0:
        out.append(code[i:j])
        depth, k = 0, j + len("(float)")
        while True:
            depth += {"(": 1, ")": -1}.get(code[k], 0)
            k += 1
            if depth == 0:
                break
        i = k
    return "".join(out) + code[i:]


@pytest.mark.parametrize("name", sorted(OPS))
def test_float_kernels_have_no_double_literal_or_call(name):
    code = _without_extended_sums(_kernel_section(name))
    # the row sums are accumulated in double on purpose: `(double)(...)` and the accumulators are allowed; so are
    # the sums that cancel, `(float)(...)` of a double expression
    assert not DOUBLE_LITERAL.findall(code), DOUBLE_LITERAL.findall(code)
    assert not DOUBLE_CALL.findall(code), DOUBLE_CALL.findall(code)


def test_headers_resolve_as_in_the_official_examples():
    """CANN's file names (aclnn_logsigmoid_backward.h, not aclnn_log_sigmoid_backward.h), ACLNN_API on every
    prototype, and both spellings of the include the official examples use compile: `aclnnop/aclnn_x.h` with
    include/ on the path, `aclnn_x.h` with include/aclnnop/ on it too (as CANN's own example build has)."""
    assert header_name(OPS["log_sigmoid_backward"]) == "aclnn_logsigmoid_backward.h"
    for op in OPS.values():
        example = (C / "examples" / f"test_aclnn_{op.snake_name}.c").read_text()
        assert '#include "acl/acl.h"' in example
        assert f'#include "aclnnop/{header_name(op)}"' in example
        header = (C / "include" / "aclnnop" / header_name(op)).read_text()
        assert f"ACLNN_API aclnnStatus {op.name}GetWorkspaceSize(" in header
        assert f"ACLNN_API aclnnStatus {op.name}(" in header
    includes = "".join(f'#include "{header_name(op)}"\n' for op in OPS.values())
    run = subprocess.run(["cc", *STRICT, "-I", str(C / "include"), "-I", str(C / "include" / "aclnnop"), "-x", "c",
                          "-fsyntax-only", "-"], input=includes + "int main(void) { return 0; }\n",
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
