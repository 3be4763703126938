"""The compiled Python entry point: each op's C library is also a CPython extension module.

Why a hand-written extension rather than a binding layer (cffi, pybind11, nanobind, Cython): the C library
already has its whole API in C, and the entry point needs only one call per op with a fixed signature plus the
NumPy array header, so the module is some 700 lines of plain C against Python's and NumPy's stable C APIs,
compiled by the same compiler, with the same flags, into the same shared library as the op (one build per op, as
before: no second copy of the runtime, no build-time dependency beyond the headers of the Python and NumPy that
run it).  cffi's API mode would still marshal every argument from Python and add a dependency; pybind11 and
nanobind are C++ (another compiler front end for one function); Cython is a build dependency generating the same C.

The op-independent part is `python/opgen_pycall.c` (reading the keywords, describing arrays as aclTensors,
allocating the outputs of a call without `out=`, both phases, errors, the kernel callable type); this module
writes the op-specific part: the parameter table, each output's shape rule and the dtype sources, and a phase-1
call with typed arguments.  The ctypes binding (binding.py) loads the same file, so both share one runtime (the product, the
executors, the last error); it tries the entry point first and takes every call the entry point declines.
"""
from __future__ import annotations

import sysconfig
from pathlib import Path

from codegen.spec import Op
from codegen.spec.params import Attr, IntArray, Output, Scalar, Tensor

from .names import header_name

GLUE = Path(__file__).parent / "python"


def module_name(op: Op) -> str:
    return f"_opgen_{op.snake_name}"


# each attribute type of the spec language (codegen.spec.params.ATTR_TYPES): how opgen_pycall.c converts the
# Python value and the member of the value union it fills (a float attribute converts through a double, as C does)
ATTR_KINDS = {"bool": ("OPGEN_PY_BOOL", "b"), "int64": ("OPGEN_PY_INT64", "i64"),
              "double": ("OPGEN_PY_DOUBLE", "f64"), "float": ("OPGEN_PY_DOUBLE", "f64"),
              "string": ("OPGEN_PY_STRING", "str")}


def _param(p) -> tuple[str, str, str]:
    """(Python keyword, opgen_py_kind, the value's union member) of a parameter."""
    if isinstance(p, Output):
        return "out", "OPGEN_PY_OUT", "out"
    if isinstance(p, Tensor):
        return p.py_name, "OPGEN_PY_TENSOR", "tensor"
    if isinstance(p, Scalar):
        return p.py_name, "OPGEN_PY_SCALAR", "scalar"
    if isinstance(p, IntArray):   # a list or tuple of ints; anything else takes the ctypes path
        return p.py_name, "OPGEN_PY_INT_ARRAY", "int_array"
    if isinstance(p, Attr):
        if p.type not in ATTR_KINDS:
            raise TypeError(f"{p.name}: no Python entry for a {p.type} attribute")
        return (p.py_name, *ATTR_KINDS[p.type])
    raise TypeError(f"{p.name}: no Python entry for a {type(p).__name__}")


MAX_SOURCES = 8      # opgen_pycall.h: OPGEN_PY_MAX_SOURCES
SHAPE_KINDS = {"same": "OPGEN_PY_SHAPE_SAME", "broadcast": "OPGEN_PY_SHAPE_BROADCAST",
               "channel": "OPGEN_PY_SHAPE_CHANNEL"}


def _outputs(op: Op) -> tuple[str, str] | None:
    """(C initializer of the outputs' opgen_py_output table, of the dtype sources' parameter indices) by which the
    entry point allocates the outputs of a call without `out=` as the Python path would (calls.KernelCall.check,
    several_call.py); None when it cannot (a shape no rule fixes, a dtype source that is not a tensor)."""
    from codegen.runtime import calls
    at = {p.name: i for i, p in enumerate(op.params)}
    if op.per_output:
        rules = [calls.output_rule(op, o.name) for o in op.outputs]
    else:   # (the single-output path's own rule: the snake_case names it reads back to parameters)
        rule = calls._signature(op).shape_rule
        py = {p.py_name: p.name for p in op.params}
        rules = [rule and (rule[0], [py[n] for n in rule[1]], None)]
    sources = op.output_dtype_sources
    if any(r is None or len(r[1]) > MAX_SOURCES for r in rules) or len(sources) > MAX_SOURCES \
            or not all(type(op.param(n)) is Tensor for n in sources):
        return None
    rows = []
    for o, (kind, names, dim) in zip(op.outputs, rules):
        zeros = "true" if op.per_output and o.sum_to else "false"   # (as several_call.py allocates a sum)
        rows.append(f"    {{{SHAPE_KINDS[kind]}, {len(names)}, {{{', '.join(str(at[n]) for n in names)}}}, "
                    f"{dim or 0}, {zeros}}},")
    return "\n".join(rows), ", ".join(str(at[n]) for n in sources)


def module_source(op: Op) -> str:
    """The op's part of its extension module (C)."""
    params = [_param(p) for p in op.params]
    outs = [p for p in op.params if isinstance(p, Output)]
    several = len(outs) > 1      # (then `out=` is a tuple: output j is its element j)
    index = {id(p): j for j, p in enumerate(outs)}
    table = "\n".join(f'    {{"{key}", OPGEN_PY_OUTS, {index[id(p)]}}},' if several and kind == "OPGEN_PY_OUT"
                      else f'    {{"{key}", {kind}, 0}},' for p, (key, kind, _) in zip(op.params, params))
    # a string goes as the header spells it (GeluBackwardV2 takes `char *`); the other members convert implicitly
    call_args = "".join((f"({p.ctype})" if isinstance(p, Attr) and p.type == "string" else "") + f"v[{i}].{member}, "
                        for i, (p, (_, _, member)) in enumerate(zip(op.params, params)))
    name = module_name(op)
    outputs = _outputs(op)
    tables = "" if outputs is None else f"""
static const opgen_py_output outputs[] = {{
{outputs[0]}
}};

static const int dtype_sources[] = {{{outputs[1]}}};
"""
    allocation = "NULL, 0, NULL" if outputs is None else \
        f"outputs, {len(op.output_dtype_sources)}, dtype_sources"
    return f"""/* {name}: the Python entry point of {op.name} (written by codegen/backends/c/pyext.py). */
#include "opgen_pycall.h"
#include "aclnnop/{header_name(op)}"

static const opgen_py_param params[] = {{
{table}
}};
{tables}
static aclnnStatus phase1(const opgen_py_value *v, uint64_t *workspaceSize, aclOpExecutor **executor)
{{
    return {op.name}GetWorkspaceSize({call_args}workspaceSize, executor);
}}

static const opgen_py_op op = {{"{op.name}", params, {len(params)}, phase1, {op.name}, {len(outs) if several else 0},
                             {allocation}}};

static PyObject *setup(PyObject *self, PyObject *args) {{ (void)self; return opgen_py_setup(&op, args); }}
static PyObject *call(PyObject *self, PyObject *kw) {{ (void)self; return opgen_py_call(&op, kw); }}
static PyObject *kernel(PyObject *self, PyObject *fallback) {{ (void)self; return opgen_py_kernel(&op, fallback); }}

static PyMethodDef methods[] = {{
    {{"setup", setup, METH_VARARGS, "setup(lock, AclnnError, {{numpy type number: aclDataType}}, products, default)"}},
    {{"call", call, METH_O, "call(keywords): the output, or NotImplemented for the ctypes path"}},
    {{"kernel", kernel, METH_O, "kernel(fallback): the kernel callable, the entry point then fallback(**keywords)"}},
    {{NULL, NULL, 0, NULL}},
}};

static struct PyModuleDef module = {{PyModuleDef_HEAD_INIT, "{name}", NULL, -1, methods, NULL, NULL, NULL, NULL}};

PyMODINIT_FUNC PyInit_{name}(void)
{{
    if (opgen_py_import_numpy() < 0)
        return NULL;
    return PyModule_Create(&module);
}}
"""


def sources(op: Op) -> dict[str, str]:
    """{path: text} the extension adds to the op's library sources (under src/, beside opgen_runtime.h)."""
    return {
        "src/opgen_pycall.h": (GLUE / "opgen_pycall.h").read_text(),
        "src/opgen_pycall.c": (GLUE / "opgen_pycall.c").read_text(),
        f"src/opgen_py_{op.snake_name}.c": module_source(op),
    }


def include_flags() -> list[str]:
    """-I for the running Python's and NumPy's headers."""
    import numpy
    return ["-I", sysconfig.get_paths()["include"], "-I", numpy.get_include()]


def build_key() -> dict[str, str]:
    """What the module is compiled against besides its sources, for the build cache's key: a library built for
    another interpreter or NumPy is built again."""
    import sys

    import numpy
    return {"python": sys.version, "numpy": numpy.__version__}
