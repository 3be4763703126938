"""The names a generated CANN project uses, in one place: a vendor namespace that cannot clash with CANN.

CANN's own operator library registers its kernels under OpTypes such as `EluGradV2` and exports the aclnn API
(`aclnnEluBackward`, ...) from libopapi.so.  A custom operator package installs beside it under
`opp/vendors/<vendor>/` and exports its API from libcust_opapi.so; had it reused those names, the two libraries
would define the same symbols and the loader would pick one.  So every name of a generated project carries the
vendor prefix:

    vendor (install folder, CMakePresets' vendor_name)   opgen
    OpType (OpDef, kernel registry, tiling key space)    OpgenEluBackward
    kernel entry (snake case of the OpType, as CANN's    opgen_elu_backward
      build maps it)
    aclnn API (op_api/, libcust_opapi.so)                aclnnOpgenEluBackwardGetWorkspaceSize / aclnnOpgenEluBackward

The prefix is a capitalised word (CANN's OpTypes are CamelCase and the aclnn generator capitalises the project
name); none of CANN's built-in OpTypes starts with it.
"""
from __future__ import annotations

from codegen.spec import Op

VENDOR = "opgen"
PREFIX = "Opgen"


def op_type(op: Op) -> str:
    """The OpType the package registers: the spec's API name in the vendor namespace."""
    return PREFIX + op.api_name


def kernel_name(op: Op) -> str:
    """The kernel's entry function: CANN's build derives it from the OpType (CamelCase to snake case)."""
    return f"{VENDOR}_{op.snake_name}"


def aclnn_name(op: Op) -> str:
    """The aclnn API's stem: `<stem>GetWorkspaceSize` and `<stem>`."""
    return "aclnn" + op_type(op)


def l0_name(op: Op) -> str:
    """The level-0 function (namespace l0op) that puts the kernel on the executor's launch list."""
    return op_type(op)


def files(op: Op) -> dict[str, str]:
    """{role: path in the op's project folder} of every generated file."""
    n, k = op.snake_name, kernel_name(op)
    return {
        "cmake": "CMakeLists.txt",
        "presets": "CMakePresets.json",
        "build": "build.sh",
        "prototype": f"{k}.json",
        "framework_cmake": "framework/CMakeLists.txt",
        "host_cmake": "op_host/CMakeLists.txt",
        "host": f"op_host/{n}.cpp",
        "host_tiling": f"op_host/{n}_tiling.h",
        "kernel_cmake": "op_kernel/CMakeLists.txt",
        "kernel": f"op_kernel/{n}.cpp",
        "kernel_tiling": f"op_kernel/{n}_tiling.h",
        "aclnn_header": f"op_api/aclnn_{k}.h",
        "aclnn_source": f"op_api/aclnn_{k}.cpp",
        "l0_header": f"op_api/{k}.h",
        "l0_source": f"op_api/{k}.cpp",
        "l2_helpers": "op_api/opgen_l2.h",
        "launcher": f"sim/{n}_launcher.cpp",
    }
