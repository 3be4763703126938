"""Every file of generated/c/: the library's (`emit.py`), the call examples (`examples.py`) and the build and
install files (`package.py`)."""
from __future__ import annotations

from codegen.spec import Op

from .emit import op_sources, render_header, runtime_files
from .examples import example_source
from .names import example_path, header_name
from .package import cmake_lists


def op_files(op: Op, source_label: str) -> dict[str, str]:
    """{path under c/: text} of one op: its header, its source and its call example."""
    return {**op_sources(op, source_label), example_path(op): example_source(op)}


def generate(ops: dict, source_of) -> dict[str, str]:
    """{path relative to generated/: text} of the C backend: the runtime, and per op header, source, example."""
    runtime = runtime_files()
    files = {f"c/{path}": text for path, text in runtime.items()}
    files["c/CMakeLists.txt"] = cmake_lists(list(ops.values()), [p for p in runtime if p.endswith(".c")])
    for op in ops.values():
        files.update({f"c/{path}": text for path, text in op_files(op, source_of(op)).items()})
    # ops that CANN declares in one header (aclnnGeGluBackward, aclnnGeGluV3Backward) share it here too
    shared: dict[str, list] = {}
    for op in ops.values():
        shared.setdefault(header_name(op), []).append(op)
    for file, group in shared.items():
        if len(group) > 1:
            files[f"c/include/aclnnop/{file}"] = render_header(group, ", ".join(source_of(op) for op in group))
    return files
