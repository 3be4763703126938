"""A CANN package directory assembled from the public SDK sources, as far as they go: what CANN's CMake flow
(asc-devkit's cmake/asc modules) reads from ASCEND_CANN_PACKAGE_PATH before it needs a built toolkit.

An installed CANN has one `include/` holding the headers of metadef, ge, runtime, asc-devkit and the bounds-
checking library, and `lib64/`, `tools/opbuild/op_build` and the kernel compiler built from them (the compiler
is closed).  Here `include/` is merged from the source trees in the order CANN's install lays them (the first
file of a path wins), so the flow's own host compile (`npu_op_code_gen` compiles op_host/ with
`-std=c++11 -I<cann>/include`) runs against the real headers.  Nothing is built: `lib64/` and `tools/` stay
empty, and the flow stops where it links op_host against CANN's libraries.
"""
from __future__ import annotations

import shutil
from pathlib import Path


def include_roots(sdk: dict[str, Path]) -> list[Path]:
    """The source folders whose contents an installed CANN's include/ holds, in precedence order."""
    m, d = sdk["metadef"], sdk["asc_devkit"]
    roots = [m / "inc/external/asc", m / "inc/external", m / "inc", m / "pkg_inc",
             sdk["ge"] / "inc/graph_metadef/external", d / "include/utils/tiling", d / "include/utils",
             sdk["runtime"] / "pkg_inc", sdk["boundscheck"] / "include"]
    return [r for r in roots if r.is_dir()]


def assemble(sdk: dict[str, Path], out: Path) -> Path:
    """Build the package directory at `out` (once: an existing one is reused) and return it."""
    include = out / "include"
    if not include.is_dir():
        tmp = out.with_name(out.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        for root in include_roots(sdk):
            for src in root.rglob("*.h"):
                dst = tmp / "include" / src.relative_to(root)
                if not dst.exists():
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(src, dst)
        for folder in ("lib64", "tools"):
            (tmp / folder).mkdir(parents=True, exist_ok=True)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp.rename(out)
    return out
