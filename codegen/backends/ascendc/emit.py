"""The Ascend C backend's emitter: one CANN custom operator project per op, laid out as msOpGen lays it out.

    ascendc/<op>/CMakeLists.txt, CMakePresets.json, build.sh, framework/    the build (project.py)
    ascendc/<op>/opgen_<op>.json                 the op prototype, msOpGen's input format (project.py)
    ascendc/<op>/op_host/<op>.cpp                OpDef, InferShape, TilingFunc (op_host.py)
    ascendc/<op>/op_host/<op>_tiling.h           ComputeTiling, FillScalars, TilingKey (tiling_source.py)
    ascendc/<op>/op_kernel/<op>.cpp              the kernel: one class per variant (kernel_source.py)
    ascendc/<op>/op_kernel/<op>_tiling.h         the tiling struct (tiling_source.py)
    ascendc/<op>/op_api/aclnn_opgen_<op>.{h,cpp} the aclnn API, level 2 (opapi.py)
    ascendc/<op>/op_api/opgen_<op>.{h,cpp}       the kernel launch, level 0 (opapi.py)
    ascendc/<op>/op_api/opgen_l2.h               level 2's checks and operand preparation (copied)
    ascendc/<op>/sim/<op>_launcher.cpp           the CPU launcher (simulator, SDK gate; not part of CANN's flow)

Each renderer takes the op's plan (plan.py) and the file's "generated, do not edit" line; the names of the
files and of the vendor namespace are in names.py.
"""
from __future__ import annotations

from pathlib import Path

from codegen.spec import Op
from codegen.template_util import preamble, render

from . import names, opapi, project
from .kernel_source import render_kernel
from .op_host import render_op_host
from .plan import Plan, plan
from .socs import kernel_socs
from .tiling_source import host_params, render_host_tiling, render_kernel_tiling

TEMPLATES = Path(__file__).parent / "templates"

# The template (under templates/) each file comes from, for its "generated, do not edit" line.
TEMPLATE_OF = {
    "cmake": "project/CMakeLists.txt.jinja", "host_cmake": "project/op_host_CMakeLists.txt.jinja",
    "kernel_cmake": "project/op_kernel_CMakeLists.txt.jinja",
    "framework_cmake": "project/framework_CMakeLists.txt.jinja", "build": "project/build.sh",
    "host": "op_host.cpp.jinja", "host_tiling": "op_tiling.h.jinja", "kernel": "op_kernel.cpp.jinja",
    "kernel_tiling": "kernel_tiling.h.jinja", "aclnn_header": "op_api/aclnn_op.h.jinja",
    "aclnn_source": "op_api/aclnn_op.cpp.jinja", "l0_header": "op_api/l0_op.h.jinja",
    "l0_source": "op_api/l0_op.cpp.jinja", "l2_helpers": "op_api/opgen_l2.h", "launcher": "launcher.cpp.jinja",
}


def launcher_context(p: Plan) -> dict:
    op = p.op
    files = names.files(op)
    request = {"float": "Float", "bool": "Bool", "int64_t": "Int64", "uint64_t": "Int"}
    return dict(op_name=op.name, kernel=Path(files["kernel"]).name, host_tiling=Path(files["host_tiling"]).name,
                tiling_type=p.tiling_type, tensors=p.operands, out=op.output.name, int_fields=p.int_fields,
                fill_args=", ".join(["variant", "tiling"] + [f'rq.{request[t]}("{n}")' for t, n in host_params(op)]),
                kernel_name=names.kernel_name(op),
                kernel_args=", ".join([f"gm_{t}" for t in p.operands + [op.output.name]] + ["workspace", "tilingGm"]))


def render_launcher(p: Plan, preamble_line: str) -> str:
    return render(TEMPLATES, "launcher.cpp.jinja", preamble=preamble_line, **launcher_context(p))


def project_files(op: Op, source: str, forget_tail: bool = False) -> dict[str, str]:
    """{path relative to the op's project folder: text}."""
    p = plan(op)
    files = names.files(op)

    def line(comment, role):
        return preamble(comment, source, TEMPLATE_OF[role], "ascendc")
    out = {files[role]: project.render_cmake(op, Path(TEMPLATE_OF[role]).name, line("#", role))
           for role in ("cmake", "host_cmake", "kernel_cmake", "framework_cmake")}
    out.update({
        files["presets"]: project.presets(op),
        files["build"]: project.build_script(line("#", "build")),
        files["prototype"]: project.prototype(p),
        files["host"]: render_op_host(p, line("//", "host")),
        files["host_tiling"]: render_host_tiling(p, line("//", "host_tiling")),
        files["kernel"]: render_kernel(p, line("//", "kernel"), forget_tail),
        files["kernel_tiling"]: render_kernel_tiling(p, line("//", "kernel_tiling")),
        files["aclnn_header"]: opapi.render_aclnn_header(p, line("//", "aclnn_header")),
        files["aclnn_source"]: opapi.render_aclnn_source(p, line("//", "aclnn_source")),
        files["l0_header"]: opapi.render_l0_header(p, line("//", "l0_header")),
        files["l0_source"]: opapi.render_l0_source(p, line("//", "l0_source")),
        files["l2_helpers"]: line("//", "l2_helpers") + "\n" + opapi.l2_helpers(),
        files["launcher"]: render_launcher(p, line("//", "launcher")),
    })
    return dict(sorted(out.items()))


def generate(ops: dict, source_of) -> dict[str, str]:
    files = {}
    for name, op in ops.items():
        if not kernel_socs(op):
            continue   # no product of its table has an architecture here (an Ascend 950 only op): no project
        for path, text in project_files(op, source_of(op)).items():
            files[f"ascendc/{name}/{path}"] = text
    return files
