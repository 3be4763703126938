"""The call example of each op (调用示例): a C program in the shape of the aclnn pages (ascend.md §2), with the
spec's example data (`codegen.spec.example`), its build command, and running it.

The docs show the program, the command and what the program printed; tests compile it with
`-Wall -Wextra -Werror` (as C and as C++), run it, and compare what it prints with the spec's documented
result and with the NumPy backend.
"""
from __future__ import annotations

import concurrent.futures
import os
import subprocess
import tempfile
from pathlib import Path

from codegen.buildcache import BuildError, cached_build
from codegen.spec import DEFAULT_PRODUCT, Op
from codegen.spec.dtypes import DTYPES
from codegen.spec.example import resolve
from codegen.spec.params import Attr, IntArray, Output, Scalar, Tensor
from codegen.template_util import preamble, render

from codegen.aclnn import prototypes
from .emit import op_sources, runtime_files
from .names import example_path, header_name, program_name, source_name

TEMPLATES = Path(__file__).parent / "templates"
CC = os.environ.get("CC", "cc")
# portable, and every warning of build.STRICT_WARNINGS an error: the example's build is where CI holds every op's
# source and the runtime to them without -march=native (the libraries' builds hold them with it)
EXAMPLE_FLAGS = "-std=c11 -O2 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror"
# what build_and_run compiles with: the page's flags at -O1, the same printed bits (portable x86-64 has no FMA to
# contract into, there is no fast-math, and -O changes no rounding) for 0.6x the compiler's CPU (the op sources
# are most of a cold `opgen generate`'s CPU: 73 of 95 s at -O2); -O1 keeps the warnings that need the
# optimiser's flow analysis (-Wmaybe-uninitialized).  tests/test_docs.py builds with the page's command itself.
BUILD_FLAGS = EXAMPLE_FLAGS.replace(" -O2 ", " -O1 ").split()


def _c_float(v: float) -> str:
    """A float literal that reads back as the same FLOAT: `1.0f`, `0.1f`, `-2.5f`."""
    text = repr(float(v))
    return (text if ("." in text or "e" in text) else text + ".0") + "f"


def _attr(p: Attr, v) -> dict:
    """How the example declares an attribute: its C type, name and initialiser (a C string as a char array, which
    converts to `char *` and `const char *` alike, in C and C++)."""
    if p.type == "string":
        return {"ctype": "char", "name": p.name + "[]", "value": '"' + v + '"'}
    if p.type == "bool":
        return {"ctype": "bool", "name": p.name, "value": "true" if v else "false"}
    if p.type == "double":
        return {"ctype": "double", "name": p.name, "value": repr(float(v))}
    if p.type == "float":
        return {"ctype": "float", "name": p.name, "value": _c_float(v)}
    return {"ctype": "int64_t", "name": p.name, "value": str(v)}


# An integer tensor's example dtype (a class-index target: codegen.spec.classes; a BOOL mask,
# ScaledMaskedSoftmaxBackward's), its C type on the host
_INT_HOST = {"INT64": "int64_t", "INT32": "int32_t", "UINT8": "uint8_t", "INT8": "int8_t", "INT16": "int16_t",
             "BOOL": "bool"}


# A half-precision tensor's host array: its bits (the data rounded once to the dtype), ACL's aclFloat16 for FLOAT16
_HALF_HOST = {"FLOAT16": ("aclFloat16", "ACL_FLOAT16"), "BFLOAT16": ("uint16_t", "ACL_BF16")}


def example_dtype(op: Op, p: Tensor | Output) -> str:
    """The dtype of a tensor in the call example: FLOAT; for a tensor no product takes in FLOAT, FLOAT16 or
    BFLOAT16 (a half-precision-only op, TanhshrinkBackward of examples/more_specs/) or its first dtype (an integer
    target, a BOOL mask)."""
    dtypes = [d for dts in op.dtypes_of(p.name).values() for d in dts]
    if "FLOAT" in dtypes:
        return "FLOAT"
    half = next((d for d in _HALF_HOST if d in dtypes), None)
    return half or ("FLOAT" if dtypes[0] not in _INT_HOST else dtypes[0])


def _half_bits(d: str, v: float) -> str:
    """The bits of v rounded once to the half dtype d, as a C hexadecimal literal."""
    import numpy as np
    return f"0x{int(np.array(v, DTYPES[d].numpy_dtype()).view(np.uint16)):04X}"


def _host_data(op: Op, p: Tensor | Output, data: list) -> dict:
    """A tensor's host array in its example dtype (an integer one written as integers, a half one as its bits)."""
    d = example_dtype(op, p)
    if d == "FLOAT":
        return {"ctype": "float", "acl": "ACL_FLOAT", "data": [_c_float(v) for v in data]}
    if d in _HALF_HOST:
        ctype, acl = _HALF_HOST[d]
        return {"ctype": ctype, "acl": acl, "data": [_half_bits(d, v) for v in data]}
    return {"ctype": _INT_HOST[d], "acl": f"ACL_{d}", "data": [str(int(v)) for v in data]}


def _printed(op: Op, o: Output, var: str) -> dict:
    """How the example reads an output back: its host C type, and the float expression printed for element i
    (a FLOAT16 result through ACL's aclFloat16ToFloat, a BFLOAT16 one by widening its bits)."""
    d = example_dtype(op, o)
    if d == "FLOAT16":
        return {"ctype": "aclFloat16", "value": f"aclFloat16ToFloat({var}[i])"}
    if d == "BFLOAT16":
        return {"ctype": "uint16_t", "value": f"Bfloat16ToFloat({var}[i])"}
    return {"ctype": "float", "value": f"{var}[i]"}


def context(op: Op) -> dict:
    ex = resolve(op)
    tensors, args = [], []
    for p in op.params:
        if isinstance(p, Tensor):
            value = ex.tensors[p.name]
            if value is None:
                args.append("NULL")
                continue
            shape, data = value
            host = _host_data(op, p, data)
            tensors.append(_tensor(p.name, list(shape) or [1], host["data"], host["ctype"], host["acl"]))
            args.append(p.name)
        elif isinstance(p, Output):
            n = 1
            for d in ex.out_shapes[p.name]:
                n *= d
            host = _host_data(op, p, [0.0] * n)
            tensors.append(_tensor(p.name, list(ex.out_shapes[p.name]) or [1], host["data"], host["ctype"],
                                   host["acl"]))
            args.append(p.name)
        elif isinstance(p, Scalar):
            args.append(p.name if ex.scalars[p.name] is not None else "NULL")
        elif isinstance(p, Attr):
            args.append(p.name)
        elif isinstance(p, IntArray):
            args.append(p.name if ex.arrays[p.name] is not None else "NULL")
    # an aclIntArray: its values on the host, copied by aclCreateIntArray (a zero-length C array is not C: [1])
    arrays = [{"name": n, "data": "{" + ", ".join(map(str, v or [0])) + "}", "size": len(v)}
              for n, v in ex.arrays.items() if v is not None]
    scalars = [{"name": n, "value": _c_float(v)} for n, v in ex.scalars.items() if v is not None]
    attrs = [_attr(op.param(n), v) for n, v in ex.attrs.items()]
    # each output copied back and printed: `result[i]` for an op's only output, `<name>[i]` for several
    several = len(op.outputs) > 1
    outs = []
    for o in op.outputs:
        var = f"{o.name}Data" if several else "resultData"
        outs.append({"name": o.name, "numel": next(t for t in tensors if t["name"] == o.name)["numel"], "var": var,
                     "label": o.name if several else "result", **_printed(op, o, var)})
    return {"tensors": tensors, "scalars": scalars, "attrs": attrs, "arrays": arrays, "call_args": ", ".join(args),
            "outs": outs, **_bfloat16_printing(any(o["ctype"] == "uint16_t" for o in outs))}


# a BFLOAT16-only op's example prints its result through this (acl.h converts FLOAT16 only)
_BF16_TO_FLOAT = """static float Bfloat16ToFloat(uint16_t bits)
{
    uint32_t wide = (uint32_t)bits << 16;
    float value;
    memcpy(&value, &wide, sizeof value);
    return value;
}
"""


def _bfloat16_printing(needed: bool) -> dict:
    """The extra includes and helper functions of an example printing BFLOAT16 results (none otherwise)."""
    return {"includes": ["#include <string.h>"] if needed else [], "helpers": [_BF16_TO_FLOAT] if needed else []}


def _tensor(name: str, shape: list[int], data: list[str], ctype: str = "float", acl: str = "ACL_FLOAT") -> dict:
    """One tensor of the example: its C initialisers ({2, 3}), rank and element count, its host C type and
    aclDataType (float and ACL_FLOAT but for an integer target)."""
    return {"name": name, "shape": "{" + ", ".join(map(str, shape)) + "}", "rank": len(shape),
            "data": "{" + ", ".join(data) + "}", "numel": len(data), "ctype": ctype, "acl": acl}


def example_source(op: Op) -> str:
    from codegen.generate import source_label
    return render(TEMPLATES, "examples/example.c.jinja",
                  preamble=preamble("//", source_label(op), "example.c.jinja", "c"),
                  op=op, header=header_name(op), phase1=prototypes.phase1_name(op), **context(op))


def example_soc(op: Op) -> str | None:
    """The SoC the example runs on when the default product is not in the op's table (an Ascend 950 only op):
    the first of its products, chosen as the runtime learns its chip (OPGEN_SOC_VERSION); None otherwise."""
    return None if DEFAULT_PRODUCT in op.dtypes else next(iter(op.dtypes))


def build_command(op: Op) -> str:
    """The command that builds and runs the example from the repository's root."""
    sources = ["generated/c/" + example_path(op), "generated/c/src/opgen_*.c", f"generated/c/src/{source_name(op)}"]
    soc = example_soc(op)
    run = f"OPGEN_SOC_VERSION={soc} ./{program_name(op)}" if soc else f"./{program_name(op)}"
    return f"cc {EXAMPLE_FLAGS} -I generated/c/include {' '.join(sources)} -lm -lpthread -o {program_name(op)} && {run}"


def write_tree(root: Path, op: Op) -> None:
    """The runtime and the op's generated files under root/generated/c/, as `opgen generate` writes them."""
    from codegen.generate import source_label
    files = {**runtime_files(), **op_sources(op, source_label(op)), example_path(op): example_source(op)}
    for path, text in files.items():
        target = root / "generated" / "c" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def build_size(op: Op) -> int:
    """The size of the op's own C source, which its example's build time grows with (BCE's and softmax's take
    some 2.5 s at -O2, Softshrink's 0.4 s): builds run side by side start with the biggest, so that no long one
    starts last."""
    from codegen.generate import source_label
    return len(op_sources(op, source_label(op))[f"src/{source_name(op)}"])


def _object(files: dict[str, str], c_path: str) -> Path:
    """`c_path` of `files` (a tree under generated/c/) compiled with BUILD_FLAGS into an object file,
    cached by content in build/c-examples/: the runtime's objects are shared by every op's example."""
    flags = [*BUILD_FLAGS, "-I", "include", "-c", c_path]
    headers = {p: t for p, t in files.items() if p.endswith(".h")}

    def command(src: Path, out: Path) -> list[str]:
        return [CC, *BUILD_FLAGS, "-I", str(src / "include"), "-c", str(src / c_path), "-o", str(out)]
    return cached_build("c-examples", Path(c_path).stem, {**headers, c_path: files[c_path]}, CC, flags, command,
                        suffix=".o")


def build_and_run(op: Op) -> str:
    """Build the example as `build_command(op)` does (but at -O1: BUILD_FLAGS) and return what it printed.

    The command compiles each source with the same flags and links them in the same order; here each source is
    compiled on its own, side by side and cached by content, so that the runtime is compiled once for all the
    examples instead of once per op (a clean `opgen generate` builds all five).  tests/test_docs.py runs the
    page's command itself and compares what it prints with the page."""
    from codegen.generate import source_label
    runtime = runtime_files()
    files = {**runtime, **op_sources(op, source_label(op)), example_path(op): example_source(op)}
    units = [(runtime, p) for p in sorted(p for p in runtime if p.endswith(".c"))]
    units = [(files, example_path(op))] + units + [(files, f"src/{source_name(op)}")]   # the command's order
    try:
        with concurrent.futures.ThreadPoolExecutor(len(units)) as pool:
            objects = list(pool.map(lambda unit: _object(*unit), units))
    except BuildError as e:
        raise RuntimeError(f"{op.name}: the call example failed to build: {e}") from None
    with tempfile.TemporaryDirectory(prefix="opgen-example-") as tmp:
        exe = Path(tmp) / program_name(op)
        link = subprocess.run([CC, *BUILD_FLAGS, *map(str, objects), "-lm", "-lpthread", "-o", str(exe)],
                              capture_output=True, text=True)
        if link.returncode != 0:
            raise RuntimeError(f"{op.name}: the call example failed to link:\n{link.stderr[-4000:]}")
        soc = example_soc(op)
        env = {**os.environ, "OPGEN_SOC_VERSION": soc} if soc else None
        run = subprocess.run([str(exe)], cwd=tmp, capture_output=True, text=True, timeout=300, env=env)
        if run.returncode != 0:
            raise RuntimeError(f"{op.name}: the call example failed (exit {run.returncode}):\n{run.stdout}\n"
                               f"{run.stderr[-4000:]}")
        return run.stdout
