"""The files that make an op's folder a CANN custom operator project as msOpGen lays it out: the CMake files
(asc-devkit's CMake functions), CMakePresets.json, build.sh, framework/, and the op prototype JSON (msOpGen's
input format, from which the OpDef of op_host/ could be regenerated).
"""
from __future__ import annotations

import json
from pathlib import Path

from codegen.spec import Op
from codegen.spec.dtypes import DTYPES
from codegen.spec.params import Attr, Scalar
from codegen.template_util import render

from . import names
from .plan import Plan, all_combos, lo_field, lo_params
from .socs import kernel_socs

TEMPLATES = Path(__file__).parent / "templates"
CANN_DEFAULT = "/usr/local/Ascend/cann"     # where CANN installs by default (its set_env.sh sets ASCEND_HOME_PATH)


def file_names(op: Op) -> dict:
    """The file names the CMake files list, by role (names.files, without folders)."""
    return {role: Path(path).name for role, path in names.files(op).items()}


def cmake_context(op: Op) -> dict:
    return dict(op_name=op.name, vendor=names.VENDOR, op_type=names.op_type(op), project=names.kernel_name(op),
                kernel_name=names.kernel_name(op), **file_names(op))


def render_cmake(op: Op, template: str, preamble: str) -> str:
    return render(TEMPLATES, f"project/{template}", preamble=preamble, **cmake_context(op))


def presets(op: Op) -> str:
    """CMakePresets.json: msOpGen's `default` preset, ASCEND_COMPUTE_UNIT the SoCs of the spec's table."""
    def var(kind, value):
        return {"type": kind, "value": value}
    cache = {
        "CMAKE_BUILD_TYPE": var("STRING", "Release"),
        "ENABLE_SOURCE_PACKAGE": var("BOOL", "True"),
        "ENABLE_BINARY_PACKAGE": var("BOOL", "True"),
        "ASCEND_COMPUTE_UNIT": var("STRING", ";".join(kernel_socs(op))),
        "ENABLE_TEST": var("BOOL", "False"),
        "vendor_name": var("STRING", names.VENDOR),
        "ASCEND_CANN_PACKAGE_PATH": var("PATH", CANN_DEFAULT),
        "ASCEND_PYTHON_EXECUTABLE": var("STRING", "python3"),
        "CMAKE_INSTALL_PREFIX": var("PATH", "${sourceDir}/build_out"),
        "ENABLE_CROSS_COMPILE": var("BOOL", "False"),
        "CMAKE_CROSS_PLATFORM_COMPILER": var("PATH", "/usr/bin/aarch64-linux-gnu-g++"),
        "ASCEND_PACK_SHARED_LIBRARY": var("BOOL", "False"),
    }
    doc = {"version": 1, "cmakeMinimumRequired": {"major": 3, "minor": 19, "patch": 0},
           "configurePresets": [{"name": "default", "displayName": "Default Config",
                                 "description": "Default build using Unix Makefiles generator",
                                 "generator": "Unix Makefiles", "binaryDir": "${sourceDir}/build_out",
                                 "cacheVariables": cache}]}
    return json.dumps(doc, indent=4) + "\n"


def proto_dtype(name: str) -> str:
    """msOpGen's spelling of a dtype: float (FLOAT), float16, bfloat16, double, int32, ..."""
    return "float" if name == "FLOAT" else DTYPES[name].numpy.replace("float64", "double")


def proto_attr_type(q) -> str:
    if isinstance(q, Scalar) or q.is_real:
        return "float"
    return {"bool": "bool", "string": "str"}.get(q.type, "int")


def proto_attr(q) -> dict:
    """An attribute of the prototype: an optional aclScalar is optional with its documented default."""
    if isinstance(q, Scalar) and q.optional:
        return {"name": q.name, "param_type": "optional", "type": "float", "default_value": float(q.default)}
    return {"name": q.name, "param_type": "required", "type": proto_attr_type(q)}


def prototype(p: Plan) -> str:
    """The op prototype JSON msOpGen takes (`msopgen gen -i <this> -c ai_core-<soc> -lan cpp`): inputs and
    output with one (format, type) column per kernel instance, attributes with their types (the lo parts of
    plan.lo_params last, as in the OpDef)."""
    op = p.op
    cols = all_combos(op)

    def desc(name, optional, dtypes):
        return {"name": name, "param_type": "optional" if optional else "required",
                "format": ["ND"] * len(dtypes), "type": [proto_dtype(d) for d in dtypes]}
    inputs = [desc(t, op.param(t).optional, [i for i, _ in cols]) for t in p.operands]
    output = [desc(op.output.name, False, [o for _, o in cols])]
    attrs = [proto_attr(q) for q in op.params if isinstance(q, (Scalar, Attr))]
    attrs += [{"name": f"numel_{n}", "param_type": "required", "type": "int"} for n in p.numels]
    attrs += [{"name": lo_field(q.name), "param_type": "optional", "type": "float", "default_value": 0.0}
              for q in lo_params(op)]   # (a pair sum's scalar: its lo part, op_host.attr_defs)
    doc = [{"op": names.op_type(op), "language": "cpp", "input_desc": inputs, "output_desc": output, "attr": attrs}]
    return json.dumps(doc, indent=4) + "\n"


def build_script(preamble: str) -> str:
    """build.sh (templates/project/build.sh) with the generated-file line after the shebang."""
    first, rest = (TEMPLATES / "project" / "build.sh").read_text().split("\n", 1)
    return f"{first}\n{preamble}\n{rest}"
