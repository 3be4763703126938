"""The SDK gate: every generated kernel, compiled against CANN's own Ascend C headers and launched with their
runtime checks active; op_host compiled against CANN's metadef headers.

Enabled by environment variables pointing at work trees of the public sources (the project vendors none):

    OPGEN_ASC_DEVKIT=/path/to/asc-devkit     (github.com/mirror-cann/asc-devkit)
    OPGEN_METADEF=/path/to/metadef           (github.com/hicann/metadef; optional, for op_host)

Without them every test here is skipped with that reason.  What is stubbed, and why, is in tests/ascendc_sdk/:
CANN's CPU-debug build links the closed tikicpulib, which provides `stub_def.h`/`stub_fun.h` (the AI Core
intrinsics and the compiler's types) and the closed argument checkers; the gate's stand-ins declare exactly the
names the open headers use and compute nothing.  So a launch checks that the headers accept the kernel: every
ASCENDC_ASSERT, "not supported" report and value-range check of the API runs before its (stubbed) intrinsic.

For each op × SoC of its spec: compile op_kernel/<op>.cpp through the unchanged sim/<op>_launcher.cpp with
`-DASCENDC_CPU_DEBUG=1` and the architecture's defines; then launch every tiling key the kernel has for that
SoC at lengths that give one tile, several tiles and an uneven last core.  docs/ascendc.md says how to run it.
"""
from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

import pytest

import codegen
from codegen.backends.ascendc.plan import DTYPE_CODE, combos, plan, tiling_key
from codegen.backends.ascendc.socs import arch_of
from codegen.buildcache import cached_build

from .conftest import REPO

DEVKIT = os.environ.get("OPGEN_ASC_DEVKIT")
METADEF = os.environ.get("OPGEN_METADEF")
SUPPORT = Path(__file__).parent / "ascendc_sdk"
OPS = codegen.load_specs()
CXX = os.environ.get("CXX", "g++")

pytestmark = pytest.mark.skipif(not DEVKIT, reason="the SDK gate needs OPGEN_ASC_DEVKIT=<asc-devkit work tree> "
                                                   "(see docs/ascendc.md)")

CASES = [(name, soc) for name, op in sorted(OPS.items()) for soc in op.dtypes if soc != "ascend310b"]


def _kernel_tiling_header(build: Path) -> Path:
    """kernel_tiling/kernel_tiling.h, which CANN generates from the advanced API's tiling definitions with the
    script asc-devkit ships (the closed toolkit installs the result)."""
    out = build / "kernel_tiling" / "kernel_tiling.h"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        script = Path(DEVKIT) / "impl/adv_api/cmake/scripts/gen_kernel_tiling_data_def.py"
        subprocess.run(["python3", str(script), str(Path(DEVKIT) / "include/adv_api"), str(out)], check=True,
                       capture_output=True)
    return out.parent.parent


def _flags(soc: str, generated: Path) -> list[str]:
    a = arch_of(soc)
    d = Path(DEVKIT)
    defines = ["-DASCENDC_CPU_DEBUG=1", "-DASCENDC_DEBUG=1", "-DASCENDC_DUMP=0", f"-D__NPU_ARCH__={a.npu_arch}",
               f"-D__CCE_AICORE__={a.aicore}"] + [f"-D{x}" for x in a.defines]
    includes = [SUPPORT / "include", generated, d, d / "include", d / "include/basic_api", d / "include/utils",
                d / "impl", d / "impl/basic_api"]
    return ["-std=c++17", "-O0", "-w"] + defines + [f"-I{p}" for p in includes]


def _build(name: str, soc: str) -> Path:
    files = {p.relative_to(REPO / "generated/ascendc" / name).as_posix(): p.read_text()
             for p in (REPO / "generated/ascendc" / name).rglob("*") if p.is_file()}
    files["opgen_sdk_stubs.cpp"] = (SUPPORT / "opgen_sdk_stubs.cpp").read_text()
    gen = _kernel_tiling_header(Path(tempfile.gettempdir()) / "opgen-sdk-gate")
    flags = _flags(soc, gen) + [f"-DOPGEN_DEVKIT={DEVKIT}"]
    support = {f"support/{p.relative_to(SUPPORT).as_posix()}": p.read_text() for p in SUPPORT.rglob("*")
               if p.is_file() and p.suffix in (".h", ".inc", ".cpp")}
    return cached_build("ascendc-sdk", f"{name}-{soc}", files, CXX, flags,
                        lambda src, out: [CXX, *flags, str(src / f"sim/{name}_launcher.cpp"),
                                          str(src / "opgen_sdk_stubs.cpp"), "-o", str(out)],
                        key_extra=support)


def _keys(op, soc: str) -> list[tuple]:
    """(variant index, input dtype, output dtype, tiling key) the kernel has for `soc`."""
    return [(v.index, din, dout, tiling_key(v.index, din, dout))
            for v in plan(op).variants for din, dout in combos(op, soc)]


def _launch(exe: Path, op, soc: str, variant: int, din: str, dout: str, total: int, row: int):
    lines = [f"product {soc}", f"variant {variant}", f"in_dtype {din}", f"out_dtype {dout}", f"total {total}",
             f"row {row}", "output /dev/null"]
    for q in op.params:
        if q.kind == "scalar":
            lines.append(f"{q.name} 0x1p-1")
        elif q.kind == "attr":
            lines.append(f"{q.name} {-1 if q.name == op.reduce_dim else 0}")
    for n in sorted({n for kv in plan(op).kernel.variants for n in kv.numels}):
        lines.append(f"numel_{n} {total}")
    for t in op.tensors:
        lines.append(f"input {t.name} /dev/null")
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines) + "\n")
    try:
        return subprocess.run([str(exe), f.name], capture_output=True, text=True, timeout=600)
    finally:
        os.unlink(f.name)


def _check_message(run) -> str:
    text = (run.stderr + run.stdout).strip().splitlines()
    hits = [t for t in text if "ERROR" in t or "not supported" in t or "Failed" in t or "error" in t]
    return (hits or text or [f"exit code {run.returncode}"])[-1][-400:]


@pytest.mark.parametrize("name, soc", CASES, ids=str)
def test_every_tiling_key_passes_the_apis_own_checks(name, soc):
    op = OPS[name]
    exe = _build(name, soc)
    failures = []
    for variant, din, dout, key in _keys(op, soc):
        row = 1000 if op.reduce_dim else None
        for total in (4097, 300_001):
            run = _launch(exe, op, soc, variant, din, dout, total, row or total)
            if run.returncode != 0:
                failures.append(f"key {key} ({din}->{dout}) n={total}: {_check_message(run)}")
    assert not failures, f"{name} on {soc}: " + "; ".join(failures)


@pytest.mark.skipif(not METADEF, reason="op_host needs OPGEN_METADEF=<metadef work tree> (see docs/ascendc.md)")
@pytest.mark.parametrize("name", sorted(OPS))
def test_op_host_compiles_against_metadef(name):
    m = Path(METADEF)
    includes = [m / "inc/external", m / "inc/external/asc", m / "inc", m / "pkg_inc", Path(DEVKIT) / "include/utils",
                Path(DEVKIT) / "include/utils/tiling", REPO / "generated/ascendc" / name / "op_host"]
    incs = [f"-I{p}" for p in includes] + [f"-I{p}" for p in sorted(m.glob("inc/external/*")) if p.is_dir()]
    src = REPO / "generated/ascendc" / name / "op_host" / f"{name}.cpp"
    run = subprocess.run([CXX, "-std=c++17", "-fsyntax-only", *incs, str(src)], capture_output=True, text=True)
    errors = [line for line in run.stderr.splitlines() if "error" in line]
    assert run.returncode == 0, "\n".join(errors[:10])
