"""The SDK gate: every generated project checked against CANN's own public sources.

    kernels   op_kernel/<op>.cpp compiled for every SoC of its spec against asc-devkit's Ascend C headers in
              CPU-debug mode, through the unchanged sim/<op>_launcher.cpp, and every tiling key launched at the
              lengths that matter with the headers' runtime checks active (ASCENDC_ASSERT, "not supported",
              value ranges);
    op_host   op_host/<op>.cpp compiled as CANN's flow compiles it (-std=c++11) against metadef, ge, runtime;
    op_api    op_api/*.cpp compiled against opbase's opdev and ops-math's level-0 headers (C++17);
    CMake     the project configured by CANN's CMake flow (asc-devkit's cmake/asc modules) with a CANN package
              directory assembled from the sources (tests/ascendc_sdk/cann_tree.py), as far as sources go.

Enabled by OPGEN_SDK, a folder holding work trees of the public repositories under their names (the project
vendors none of them):

    asc-devkit   github.com/mirror-cann/asc-devkit      opbase    github.com/hicann/opbase
    metadef      github.com/hicann/metadef              ops-math  github.com/hicann/ops-math
    ge           github.com/hicann/ge                   libboundscheck  github.com/openeuler-mirror/libboundscheck
    runtime      github.com/hicann/runtime

(OPGEN_ASC_DEVKIT / OPGEN_METADEF name those two trees directly.)  A test whose trees are missing is skipped
with that reason.  What CANN's CPU-debug build takes from the closed tikicpulib is replaced by the documented
stand-ins of tests/ascendc_sdk/: a launch checks that the open headers accept the kernel, not its values
(values are the simulator's job).  docs/ascendc.md says how to run it and what it found.
"""
from __future__ import annotations

import itertools
import os
import re
import subprocess
import tempfile
from pathlib import Path

import pytest

import codegen
from codegen.backends.ascendc import tiling as T
from codegen.backends.ascendc.names import files as project_paths
from codegen.backends.ascendc.plan import DTYPE_BYTES, combos, plan, tiling_key
from codegen.backends.ascendc.socs import arch_of, kernel_socs, tiling_ub
from codegen.buildcache import cached_build
from codegen.spec import PRODUCTS

from .ascendc_sdk import cann_tree, closed_checkers
from .conftest import REPO

SUPPORT = Path(__file__).parent / "ascendc_sdk"
OPS = codegen.load_specs()
CXX = os.environ.get("CXX", "g++")
GENERATED = REPO / "generated" / "ascendc"
CASES = [(name, soc) for name, op in sorted(OPS.items()) for soc in kernel_socs(op)]   # the SoCs with an architecture


def _tree(name: str, override: str | None = None) -> Path | None:
    """The work tree of one public repository: OPGEN_<override>, else OPGEN_SDK/<name>; None if absent."""
    if override and os.environ.get(override):
        return Path(os.environ[override])
    root = os.environ.get("OPGEN_SDK")
    return Path(root) / name if root and (Path(root) / name).is_dir() else None


DEVKIT = _tree("asc-devkit", "OPGEN_ASC_DEVKIT")
METADEF = _tree("metadef", "OPGEN_METADEF")
GE, RUNTIME = _tree("ge"), _tree("runtime")
OPBASE, OPS_MATH, BOUNDSCHECK = _tree("opbase"), _tree("ops-math"), _tree("libboundscheck")


def needs(**trees):
    missing = [n for n, t in trees.items() if t is None]
    return pytest.mark.skipif(bool(missing), reason=f"the SDK gate needs OPGEN_SDK=<folder> holding {', '.join(missing)} "
                                                    "(see docs/ascendc.md)")


# ---- kernels: compiled and launched on the real Ascend C headers --------------------------------------------------
def _kernel_tiling_header(build: Path) -> Path:
    """kernel_tiling/kernel_tiling.h, which CANN generates from the advanced API's tiling definitions with the
    script asc-devkit ships (the closed toolkit installs the result)."""
    out = build / "kernel_tiling" / "kernel_tiling.h"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        script = DEVKIT / "impl/adv_api/cmake/scripts/gen_kernel_tiling_data_def.py"
        subprocess.run(["python3", str(script), str(DEVKIT / "include/adv_api"), str(out)], check=True,
                       capture_output=True)
    return out.parent.parent


def _flags(soc: str, generated: Path) -> list[str]:
    a = arch_of(soc)
    d = DEVKIT
    defines = ["-DASCENDC_CPU_DEBUG=1", "-DASCENDC_DEBUG=1", "-DASCENDC_DUMP=0", f"-D__NPU_ARCH__={a.npu_arch}",
               f"-D__CCE_AICORE__={a.aicore}"] + [f"-D{x}" for x in a.defines]
    includes = [SUPPORT / "include", generated, d, d / "include", d / "include/basic_api", d / "include/utils",
                d / "impl", d / "impl/basic_api"]
    return ["-std=c++17", "-O0", "-w"] + defines + [f"-I{p}" for p in includes]


def _project(name: str) -> dict[str, str]:
    return {p.relative_to(GENERATED / name).as_posix(): p.read_text()
            for p in (GENERATED / name).rglob("*") if p.is_file()}


def _build(name: str, soc: str) -> Path:
    files = _project(name)
    files["opgen_sdk_stubs.cpp"] = (SUPPORT / "opgen_sdk_stubs.cpp").read_text()
    files["opgen_checks.inc"] = closed_checkers.definitions(DEVKIT)   # included by opgen_sdk_stubs.cpp
    gen = _kernel_tiling_header(Path(tempfile.gettempdir()) / "opgen-sdk-gate")
    flags = _flags(soc, gen) + [f"-DOPGEN_DEVKIT={DEVKIT}"]
    support = {f"support/{p.relative_to(SUPPORT).as_posix()}": p.read_text() for p in SUPPORT.rglob("*")
               if p.is_file() and p.suffix in (".h", ".inc", ".cpp")}
    launcher = project_paths(OPS[name])["launcher"]
    return cached_build("ascendc-sdk", f"{name}-{soc}", files, CXX, flags,
                        lambda src, out: [CXX, *flags, str(src / launcher), str(src / "opgen_sdk_stubs.cpp"),
                                          "-o", str(out)],
                        key_extra=support)


def _keys(op, soc: str) -> list[tuple]:
    """(variant index, input dtype, output dtype, tiling key) the kernel has for `soc`."""
    return [(v.index, din, dout, tiling_key(v.index, din, dout))
            for v in plan(op).variants for din, dout in combos(op, soc)]


def launch_sizes(op, soc: str, variant: int, din: str, dout: str) -> list[tuple[int, int]]:
    """(elements, row length) that exercise each path of the kernel and its tiling: one element; a 32-byte
    tail; every core busy with an uneven last share; one element past every core's first tile (a second tile);
    more than 225,280 elements (where ELU's tiles once reached the API's scratch on ascend910b); for a row op
    short rows over several cores, and a row longer than a tile (the two-pass path)."""
    lay = plan(op).variants[variant].layout
    tile = T.evaluate(lay, 1, 1, PRODUCTS[soc].cores, tiling_ub(soc), DTYPE_BYTES[din], DTYPE_BYTES[dout])["tileMax"]
    cores = PRODUCTS[soc].cores
    if not lay.rows:
        return [(n, n) for n in (1, 17, 4097, cores * tile + 1, 300_001)]
    return [(1, 1), (3 * 17, 17), (64 * 1000, 1000), ((cores + 3) * 33, 33), (2 * (tile + 3), tile + 3)]


def kernel_switches(op) -> list[str]:
    """The kernel op's bool attributes a call does not pass, which level 2 sets per launch: a split op's
    `secondHalf` (each half's form), CrossEntropyLossGrad's `gridSumPass` (the mean's divisor pass)."""
    given = {q.name for q in op.params}
    return [q.name for q in plan(op).op.params if q.kind == "attr" and q.name not in given]


def _launch(exe: Path, op, soc: str, variant: int, din: str, dout: str, total: int, row: int,
            switches: dict[str, int]):
    lines = [f"product {soc}", f"variant {variant}", f"in_dtype {din}", f"out_dtype {dout}", f"total {total}",
             f"row {row}", "output /dev/null"]
    for q in plan(op).op.params:            # the kernel op's: the call's scalars and attributes, and its switches
        if q.kind == "scalar":
            lines.append(f"{q.name} 0x1p-1")
        elif q.kind == "attr":
            lines.append(f"{q.name} {switches.get(q.name, -1 if q.name == op.reduce_dim else 0)}")
    for n in plan(op).numels:
        lines.append(f"numel_{n} {total}")
    for t in plan(op).operands:
        lines.append(f"input {t} /dev/null")
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


@needs(asc_devkit=DEVKIT)
@pytest.mark.parametrize("name, soc", CASES, ids=str)
def test_every_tiling_key_passes_the_apis_own_checks(name, soc):
    op = OPS[name]
    exe = _build(name, soc)
    failures, launched = [], 0
    switches = [dict(zip(kernel_switches(op), values))
                for values in itertools.product((0, 1), repeat=len(kernel_switches(op)))]
    for variant, din, dout, key in _keys(op, soc):
        for (total, row), switch in itertools.product(launch_sizes(op, soc, variant, din, dout), switches):
            run = _launch(exe, op, soc, variant, din, dout, total, row, switch)
            launched += 1
            if run.returncode != 0:
                failures.append(f"key {key} ({din}->{dout}) n={total} row={row} {switch}: {_check_message(run)}")
            elif f"tilingKey {key}" not in run.stdout:
                failures.append(f"key {key} n={total}: the launcher reported another key")
    print(f"{name} on {soc}: {launched} launches of {len(_keys(op, soc))} tiling keys")
    assert not failures, f"{name} on {soc}: " + "; ".join(failures)


# ---- op_host: as CANN's flow compiles it ------------------------------------------------------------------------
def _warnings_in(stderr: str, folder: Path) -> list[str]:
    """Diagnostics located in the generated files (the SDK's own headers emit deprecation notes)."""
    return [line for line in stderr.splitlines() if line.startswith(str(folder)) and
            re.search(r": (warning|error):", line)]


@needs(asc_devkit=DEVKIT, metadef=METADEF, ge=GE, runtime=RUNTIME, libboundscheck=BOUNDSCHECK)
@pytest.mark.parametrize("name", sorted(OPS))
def test_op_host_compiles_against_metadef(name):
    """-std=c++11 -D_GLIBCXX_USE_CXX11_ABI=0, the flags of the flow's own host compile (npu_op_code_gen)."""
    m = METADEF
    includes = [m / "inc/external/asc", m / "inc/external", m / "inc", m / "pkg_inc", GE / "inc/graph_metadef/external",
                DEVKIT / "include/utils/tiling", DEVKIT / "include/utils", RUNTIME / "pkg_inc", BOUNDSCHECK / "include"]
    incs = [f"-I{p}" for p in includes] + [f"-I{p}" for p in sorted(m.glob("inc/external/*")) if p.is_dir()]
    folder = GENERATED / name
    src = folder / project_paths(OPS[name])["host"]
    run = subprocess.run([CXX, "-std=c++11", "-D_GLIBCXX_USE_CXX11_ABI=0", "-fsyntax-only", "-Wall", "-Wextra",
                          *incs, str(src)], capture_output=True, text=True)
    errors = [line for line in run.stderr.splitlines() if "error" in line]
    assert run.returncode == 0, "\n".join(errors[:10])
    assert not _warnings_in(run.stderr, folder), _warnings_in(run.stderr, folder)


# ---- op_api: against opdev and the level-0 operators ------------------------------------------------------------
# ops-math's level-0 headers opgen_l2.h includes, as CANN installs them (level0/<name>.h) from their sources
LEVEL0 = {"broadcast_to.h": "conversion/broadcast_to/op_api/broadcast_to.h", "arange.h": "math/range/op_api/arange.h",
          "less.h": "math/less/op_api/less.h", "muls.h": "math/muls/op_api/muls.h",
          "select.h": "math/select/op_api/select.h",
          "zero_op.h": "math/zero_op/op_api/zero_op.h", "reduce_sum_op.h": "math/reduce_sum/op_api/reduce_sum_op.h",
          "concat.h": "conversion/concat/op_host/op_api/concat.h", "split_v.h": "conversion/split_v/op_api/split_v.h"}
FEATURES = codegen.load_specs(REPO / "tests" / "feature_specs")   # not in generated/: rendered here


@needs(metadef=METADEF, runtime=RUNTIME, opbase=OPBASE, ops_math=OPS_MATH, libboundscheck=BOUNDSCHECK)
@pytest.mark.parametrize("name", sorted(OPS) + sorted(FEATURES))
def test_op_api_compiles_against_opbase(name, tmp_path):
    """Level 2 and level 0 against opbase's opdev headers and ops-math's l0 Contiguous, Cast, Transpose,
    BroadcastTo and the others opgen_l2.h includes (installed by CANN as level0/*.h); C++17, which opdev needs."""
    level0 = tmp_path / "level0"
    level0.mkdir()
    for header, path in LEVEL0.items():
        (level0 / header).write_text((OPS_MATH / path).read_text())
    folder = GENERATED / name / "op_api"
    if name in FEATURES:
        from codegen.backends.ascendc.binding import project
        folder = tmp_path / "op_api"
        folder.mkdir()
        for path, text in project(FEATURES[name]).items():
            if path.startswith("op_api/"):
                (tmp_path / path).write_text(text)
    includes = [folder, OPBASE / "include/nnopbase", OPBASE / "include", OPS_MATH / "common/inc/external", tmp_path,
                METADEF / "inc/external", METADEF / "inc", METADEF / "pkg_inc", RUNTIME / "include",
                RUNTIME / "include/external", RUNTIME / "pkg_inc", BOUNDSCHECK / "include"]
    for src in sorted(folder.glob("*.cpp")):
        run = subprocess.run([CXX, "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra",
                              *[f"-I{p}" for p in includes], str(src)], capture_output=True, text=True)
        errors = [line for line in run.stderr.splitlines() if "error" in line]
        assert run.returncode == 0, f"{src.name}: " + "\n".join(errors[:10])
        assert not _warnings_in(run.stderr, folder), _warnings_in(run.stderr, folder)


# ---- CMake: CANN's flow, as far as the sources go ---------------------------------------------------------------
@needs(asc_devkit=DEVKIT, metadef=METADEF, ge=GE, runtime=RUNTIME, libboundscheck=BOUNDSCHECK)
@pytest.mark.parametrize("name", ["elu_backward"])
def test_cmake_flow_configures_up_to_canns_libraries(name, tmp_path):
    """`cmake --preset=default` on the generated project with asc-devkit's CMake modules: find_package(ASC),
    npu_op_package, framework/, and npu_op_code_gen's host compile of op_host/ (the real makefile, the real
    headers) pass; the flow stops linking that compile against CANN's libexe_graph, libregister and
    libtiling_api, which an installed toolkit provides (after them: opbuild, then the closed kernel compiler)."""
    cann = cann_tree.assemble(dict(metadef=METADEF, asc_devkit=DEVKIT, ge=GE, runtime=RUNTIME,
                                   boundscheck=BOUNDSCHECK), Path(tempfile.gettempdir()) / "opgen-sdk-cann")
    src = tmp_path / name
    for path, text in _project(name).items():
        (src / path).parent.mkdir(parents=True, exist_ok=True)
        (src / path).write_text(text)
    run = subprocess.run(["cmake", "-S", str(src), "-B", str(src / "build_out"), "--preset=default",
                          f"-DASCEND_CANN_PACKAGE_PATH={cann}", f"-DCUSTOM_ASC_CMAKE_PATH={DEVKIT / 'cmake/asc'}",
                          f"-DASC_DIR={DEVKIT / 'cmake/asc'}"],
                         capture_output=True, text=True, env={**os.environ, "ASCEND_HOME_PATH": str(cann)},
                         timeout=900)
    log = run.stdout + run.stderr
    if run.returncode == 0:
        return   # a complete CANN package: the whole configuration passed
    compiled = [o.stem for o in (src / "build_out/autogen").rglob("*.o")]
    assert compiled == [Path(project_paths(OPS[name])["host"]).stem], log[-3000:]
    assert set(re.findall(r"cannot find -l(\w+)", log)) == {"exe_graph", "register", "tiling_api"}, log[-3000:]
