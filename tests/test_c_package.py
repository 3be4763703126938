"""The C library installed the usual way (docs/c-api.md): `cmake -S generated/c`, build, `cmake --install --prefix
DIR` gives CANN's include layout, a shared and a static library, a CMake package and a pkg-config file; a program
outside the tree finds them with `find_package(opgen_aclnn)` or `pkg-config`, and the installed tree may be moved.

CI builds the library without optimization (the packaging is under test here, the kernels' results elsewhere);
the deep tier builds the release configuration and runs every call example under CTest."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import codegen
from codegen.backends.c import examples
from codegen.backends.c.names import LIBRARY, header_name, program_name
from codegen.buildcache import cached_build
from codegen.loader import REPO_ROOT

OPS = codegen.load_specs()
TREE = REPO_ROOT / "generated" / "c"   # fresh: tests/test_specs_and_cli.py fails when generated/ is stale
OP = OPS["softshrink_backward"]        # the quickest example to build
CMAKE = shutil.which("cmake")
PKG_CONFIG = shutil.which("pkg-config")
needs_cmake = pytest.mark.skipif(CMAKE is None, reason="no cmake on PATH: the library installs with CMake")


def _tree_files() -> dict[str, str]:
    return {p.relative_to(TREE).as_posix(): p.read_text() for p in sorted(TREE.rglob("*")) if p.is_file()}


def install(build_type: str, examples_on: bool = False) -> Path:
    """The prefix `cmake --install` fills from generated/c, built once per content of the tree (build/c-package/)."""
    flags = [f"-DCMAKE_BUILD_TYPE={build_type}", f"-DOPGEN_ACLNN_EXAMPLES={'ON' if examples_on else 'OFF'}"]
    if build_type == "Debug":
        flags.append("-DCMAKE_C_FLAGS_DEBUG=-O0")

    def command(src: Path, out: Path) -> list[str]:
        build = src / "_build"
        steps = [[CMAKE, "-S", str(src), "-B", str(build), *flags],
                 [CMAKE, "--build", str(build), "-j2"],
                 *([["ctest", "--test-dir", str(build), "--output-on-failure"]] if examples_on else []),
                 [CMAKE, "--install", str(build), "--prefix", str(out)]]
        return ["sh", "-c", " && ".join(" ".join(f"'{a}'" for a in step) for step in steps)]

    return cached_build("c-package", f"{LIBRARY}-{build_type.lower()}", _tree_files(), CMAKE, flags, command)


def _printed_by(exe: Path, **env) -> str:
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, env={**os.environ, **env})
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


@pytest.fixture(scope="module")
def prefix(tmp_path_factory) -> Path:
    """A copy of the installed tree in a fresh place: what is tested is also that the tree may be moved."""
    moved = tmp_path_factory.mktemp("moved") / "opt"
    shutil.copytree(install("Debug"), moved, symlinks=True)
    return moved


@needs_cmake
def test_the_install_tree_has_cann_include_layout_both_libraries_and_both_package_files(prefix):
    headers = {f"include/aclnnop/{header_name(op)}" for op in OPS.values()}
    expected = headers | {"include/acl/acl.h", "include/acl/acl_base.h", "include/aclnn/aclnn_base.h",
                          "include/aclnnop/aclnn_util.h", f"lib/lib{LIBRARY}.a", f"lib/lib{LIBRARY}.so",
                          f"lib/cmake/{LIBRARY}/{LIBRARY}Config.cmake",
                          f"lib/cmake/{LIBRARY}/{LIBRARY}ConfigVersion.cmake", f"lib/pkgconfig/{LIBRARY}.pc"}
    present = {p.relative_to(prefix).as_posix() for p in prefix.rglob("*")}
    assert expected <= present, sorted(expected - present)
    assert not any(p.startswith("src/") or p.endswith(".c") for p in present)   # sources stay out of the prefix
    for lib in (f"lib/lib{LIBRARY}.a", f"lib/lib{LIBRARY}.so"):
        symbols = subprocess.run(["nm", "-g", "--defined-only", str(prefix / lib)], capture_output=True,
                                 text=True, check=True).stdout
        for op in OPS.values():
            assert f" T {op.name}GetWorkspaceSize\n" in symbols and f" T {op.name}\n" in symbols, lib


CONSUMER = """cmake_minimum_required(VERSION 3.16)
project(consumer LANGUAGES C CXX)
find_package(opgen_aclnn 0.1 REQUIRED)
add_executable(shared_c example.c)
target_link_libraries(shared_c PRIVATE opgen_aclnn::opgen_aclnn)
# CANN's example programs are C++: the same program compiled as C++ and linked against the static library
add_executable(static_cxx example.cpp)
target_link_libraries(static_cxx PRIVATE opgen_aclnn::opgen_aclnn_static)
"""


@needs_cmake
def test_find_package_builds_a_c_and_a_cxx_program_against_the_shared_and_the_static_library(prefix, tmp_path):
    source = (TREE / examples.example_path(OP)).read_text()
    (tmp_path / "CMakeLists.txt").write_text(CONSUMER)
    (tmp_path / "example.c").write_text(source)
    (tmp_path / "example.cpp").write_text(source)
    build = tmp_path / "build"
    for step in ([CMAKE, "-S", str(tmp_path), "-B", str(build), f"-DCMAKE_PREFIX_PATH={prefix}"],
                 [CMAKE, "--build", str(build)]):
        run = subprocess.run(step, capture_output=True, text=True)
        assert run.returncode == 0, run.stdout + run.stderr
    want = examples.build_and_run(OP)
    assert _printed_by(build / "shared_c") == want          # the shared library found through the build's rpath
    assert _printed_by(build / "static_cxx") == want
    deps = subprocess.run(["ldd", str(build / "static_cxx")], capture_output=True, text=True).stdout
    assert LIBRARY not in deps


@needs_cmake
def test_find_package_refuses_a_version_it_does_not_provide(prefix, tmp_path):
    (tmp_path / "CMakeLists.txt").write_text(CONSUMER.replace("opgen_aclnn 0.1 REQUIRED", "opgen_aclnn 9.0 REQUIRED"))
    run = subprocess.run([CMAKE, "-S", str(tmp_path), "-B", str(tmp_path / "build"),
                          f"-DCMAKE_PREFIX_PATH={prefix}"], capture_output=True, text=True)
    assert run.returncode != 0 and "opgen_aclnn" in run.stderr and "9.0" in run.stderr


@needs_cmake
@pytest.mark.skipif(PKG_CONFIG is None, reason="no pkg-config on PATH")
def test_pkg_config_flags_build_the_example_from_a_moved_tree(prefix, tmp_path):
    env = {**os.environ, "PKG_CONFIG_PATH": str(prefix / "lib" / "pkgconfig")}
    flags = subprocess.run([PKG_CONFIG, "--cflags", "--libs", LIBRARY], capture_output=True, text=True, env=env,
                           check=True).stdout.split()
    includes = {os.path.normpath(f[2:]) for f in flags if f.startswith("-I")}
    assert includes == {str(prefix / "include"), str(prefix / "include" / "aclnnop")}   # CANN's include path
    exe = tmp_path / program_name(OP)
    run = subprocess.run([examples.CC, *examples.EXAMPLE_FLAGS.split(), str(TREE / examples.example_path(OP)),
                          *flags, "-o", str(exe)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert _printed_by(exe, LD_LIBRARY_PATH=str(prefix / "lib")) == examples.build_and_run(OP)


def _consumer_build(prefix: Path, folder: Path, ops) -> Path:
    """A CMake project outside the tree with one program per op of `ops` (its call example), against `prefix`."""
    lines = ["cmake_minimum_required(VERSION 3.16)", "project(consumer LANGUAGES C)",
             "find_package(opgen_aclnn REQUIRED)"]
    for op in ops:
        shutil.copy(TREE / examples.example_path(op), folder / f"{program_name(op)}.c")
        lines += [f"add_executable({program_name(op)} {program_name(op)}.c)",
                  f"target_link_libraries({program_name(op)} PRIVATE opgen_aclnn::opgen_aclnn)"]
    (folder / "CMakeLists.txt").write_text("\n".join(lines) + "\n")
    build = folder / "build"
    for step in ([CMAKE, "-S", str(folder), "-B", str(build), f"-DCMAKE_PREFIX_PATH={prefix}"],
                 [CMAKE, "--build", str(build), "-j2"]):
        run = subprocess.run(step, capture_output=True, text=True)
        assert run.returncode == 0, run.stdout + run.stderr
    return build


@pytest.mark.deep
@needs_cmake
def test_the_release_build_runs_every_call_example(tmp_path):
    """The optimized library (CMake's Release configuration), its own CTest run of every example included (the
    install fails unless all of them run), and every example built outside the tree prints the documented result."""
    build = _consumer_build(install("Release", examples_on=True), tmp_path, OPS.values())
    for op in OPS.values():
        assert _printed_by(build / program_name(op)) == examples.build_and_run(op), op.name
