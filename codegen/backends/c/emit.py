"""The C backend's files: the shared runtime, and per op its header, its source and its call example.

Per op, `aclnn_<op>.c` holds
  * the dtype × product table of every checked tensor (from the spec),
  * per kernel variant: a struct of the kernel's constants and the kernel functions over FLOAT blocks, printed
    from `codegen.lower` by `KernelCPrinter` (elementwise: `block`; with row sums: `rowsum`/`colsum` and
    `finish_row`/`finish_col`, see opgen_runtime.h), their `*_chunked` entries, which run them over
    FLOAT16/BFLOAT16 operands converted a chunk at a time, `finish_rowsum`, which finishes one row while it
    sums the next (FLOAT, and chunked for FLOAT16/BFLOAT16; both in opgen_chunks.h), and `rows`, the same for
    short rows packed in a block,
  * phase 1: the checks of `codegen.checkplan.steps` (the Python checker's, in the same order), then the
    variant's constants and the call handed to the runtime; phase 2: the runtime runs it.
"""
from __future__ import annotations

from pathlib import Path

import sympy

from codegen.checkplan import steps
from codegen.lower import KernelVariant, lower
from codegen.rewrite import Sigmoid
from codegen.spec import ABSENT, DEFAULT_PRODUCT, DTYPES, PRODUCTS, Op
from codegen.spec.params import Attr, Scalar, Tensor
from codegen.spec.rules import STATUS_NAMES
from codegen.template_util import preamble, render
from codegen.text import condition_code

from . import prototypes, wide
from .printer import KernelCPrinter, math_functions

TEMPLATES = Path(__file__).parent / "templates"
MAX_DIMS = 16
# opgenCreateArgs's record kinds (aclnn_base.h), which the Python binding writes
ARG_KINDS = {"OPGEN_ARG_NULL": 0, "OPGEN_ARG_TENSOR": 1, "OPGEN_ARG_SCALAR": 2}

# The shared runtime: template -> generated path (relative to generated/c/).
RUNTIME = {
    "include/acl/acl.h.jinja": "include/acl/acl.h",
    "include/acl/acl_base.h.jinja": "include/acl/acl_base.h",
    "include/acl/acl_rt.h.jinja": "include/acl/acl_rt.h",
    "include/aclnn/acl_meta.h.jinja": "include/aclnn/acl_meta.h",
    "include/aclnn/aclnn_base.h.jinja": "include/aclnn/aclnn_base.h",
    "src/opgen_runtime.h.jinja": "src/opgen_runtime.h",
    "src/opgen_half.h.jinja": "src/opgen_half.h",
    "src/opgen_chunks.h.jinja": "src/opgen_chunks.h",
    "src/opgen_math.h.jinja": "src/opgen_math.h",
    "src/opgen_runtime.c.jinja": "src/opgen_runtime.c",
    "src/opgen_tables.c.jinja": "src/opgen_tables.c",
    "src/opgen_check.c.jinja": "src/opgen_check.c",
    "src/opgen_loops.c.jinja": "src/opgen_loops.c",
    "src/opgen_wide.c.jinja": "src/opgen_wide.c",
}


def _comment(path: str) -> str:
    return "#" if path.endswith(("Makefile", ".mk")) else "//"


def runtime_files(source: str = "codegen/backends/c/templates") -> dict[str, str]:
    """{path under c/: text} of the runtime shared by every op."""
    from codegen.spec.dtypes import COMPUTED, PROMOTE, can_cast
    context = {
        "computed": COMPUTED,
        "dtypes": list(DTYPES.values()),
        "promote": [(DTYPES[a].acl_name, DTYPES[b].acl_name, DTYPES[c].acl_name)
                    for (a, b), c in PROMOTE.items() if c is not None],
        "casts": [(a.acl_name, b.acl_name) for a in DTYPES.values() for b in DTYPES.values()
                  if can_cast(a.name, b.name)],
        "socs": list(PRODUCTS),
        "default_soc": DEFAULT_PRODUCT,
        "statuses": [(name, code) for code, name in STATUS_NAMES.items()],
        "max_dims": MAX_DIMS,
        "arg_kinds": list(ARG_KINDS.items()),
        "math_functions": math_functions(),   # opgen_math.h's expansions (codegen.expansions)
    }
    out = {}
    for template, path in RUNTIME.items():
        out[path] = render(TEMPLATES, template, preamble=preamble("//", f"{source}/{template}", template, "c"),
                           **context)
    return out


# ---- names ----------------------------------------------------------------------------------------------------
def header_name(op: Op) -> str:
    return f"aclnn_{op.snake_name}.h"


def source_name(op: Op) -> str:
    return f"aclnn_{op.snake_name}.c"


def value_var(p) -> str:
    """The local of phase 1 holding a scalar's value (double, as the Python checker reads it)."""
    return f"{p.name}_value"


def numel_field(name: str) -> str:
    return f"numel_{Tensor(name).py_name}"


# ---- kernel variants -------------------------------------------------------------------------------------------
def _fields(kv: KernelVariant) -> list[tuple[str, str, object]]:
    """The constants a variant's kernel reads: [(C type, field name, symbol)]."""
    out = []
    for p in kv.scalars:
        ctype = "float" if isinstance(p, Scalar) or p.is_real else ("bool" if p.type == "bool" else "int64_t")
        out.append((ctype, p.py_name, p.symbol))
    for n in kv.numels:
        out.append(("float", numel_field(n), sympy.Symbol(f"numel_{n}", integer=True, positive=True)))
    for s, _ in kv.prelude:
        out.append(("float", str(s), s))
    return out


def _used(exprs) -> set:
    syms = set()
    for e in exprs:
        syms |= sympy.sympify(e).free_symbols
    return syms


def _function(exprs, tensors_by_sym, fields, reductions_by_sym, suffix):
    """What a kernel function declares and loads: the input pointers, the constants and the row sums it reads."""
    used = _used(exprs)   # `exprs` lists every temporary the function computes, so this is all it reads
    loads = [(k, name) for k, (sym, name) in enumerate(tensors_by_sym) if sym in used]
    consts = [(ctype, f) for ctype, f, sym in fields if sym in used]
    declare = [f"const Params{suffix} *p = params;"] if consts else ["(void)params;"]
    declare += [f"const float *restrict {name} = in[{k}];" for k, name in loads]
    declare += [f"const {ctype} {f} = p->{f};" for ctype, f in consts]
    return {
        "declare": declare,
        # element i of every operand, loaded at the top of the loop body
        "load": [f"const float {name}_i = {name}[i];" for _, name in loads],
        "sums": [(j, str(s)) for j, s in enumerate(reductions_by_sym) if s in used],
    }


def variant_context(op: Op, kv: KernelVariant) -> dict:
    tensors = [(t.symbol, t.py_name) for t in kv.tensors]
    fields = _fields(kv)
    # element i of every operand is loaded into a local at the top of the loop: loads under a `?:` would be
    # masked loads (the compiler may not read memory the program might not read), slow on some CPUs
    names = {sym: f"{name}_i" for sym, name in tensors}
    names.update({sym: f for _, f, sym in fields})
    for s, _ in kv.reductions + kv.body:
        names[s] = str(s)
    pr = KernelCPrinter(names, last=kv.last)
    body = [(str(s), pr.doprint(e)) for s, e in kv.body]
    result = pr.doprint(kv.result)
    reductions = [(str(s), pr.doprint(e)) for s, e in kv.reductions]
    red_syms = [s for s, _ in kv.reductions]
    finish_exprs = [e for _, e in kv.body] + [kv.result]
    # the prelude is computed in phase 1, over the fields of `p`
    pnames = {sym: f"p.{f}" for _, f, sym in fields}
    ppr = KernelCPrinter(pnames)
    suffix = ("__" + kv.suffix) if kv.suffix else ""
    return {
        "suffix": suffix,
        "key": kv.key,
        "fields": [(ctype, f) for ctype, f, _ in fields],
        "fill": _fill(op, kv, ppr),
        "tensors": [t.name for t in kv.tensors],
        "body": body,
        "result": result,
        "reductions": reductions,
        "finish": _function(finish_exprs, tensors, fields, red_syms, suffix),
        "sum": _function([e for _, e in kv.reductions], tensors, fields, red_syms, suffix),
        "dispatch": _dispatch(op, kv),
        "wide_kernel": wide.kernel_lines(op, kv, suffix),
        "wide_phase1": wide.phase1_lines(op, kv, suffix, value_var),
    }


def _fill(op: Op, kv: KernelVariant, ppr) -> list[str]:
    """Phase 1's assignments of the kernel's constants: scalars (rounded to FLOAT), attributes, counts, prelude."""
    lines = []
    for p in kv.scalars:
        if isinstance(p, Scalar):
            lines.append(f"p.{p.py_name} = (float){value_var(p)};")
        elif p.is_real:
            lines.append(f"p.{p.py_name} = (float){p.name};")
        else:
            lines.append(f"p.{p.py_name} = {p.name};")
    for n in kv.numels:
        lines.append(f"p.{numel_field(n)} = (float)opgen_numel({n});")
    for s, e in kv.prelude:
        lines.append(f"p.{s} = {ppr.doprint(e)};")
    return lines


def _dispatch(op: Op, kv: KernelVariant) -> str:
    parts = []
    for name, value in kv.key.items():
        p = op.param(name)
        if isinstance(p, Attr) and p.type == "string":
            parts.append(f'strcmp({name}, "{value}") == 0')
        elif isinstance(p, Attr):
            parts.append(name if value else f"!{name}")
        else:
            parts.append(f"{name} == NULL" if value == ABSENT else f"{name} != NULL")
    return " && ".join(parts)   # "" for the only variant


def sigmoid_helper() -> list[tuple[str, str]]:
    """opgen_sigmoidf's body, printed from Sigmoid.stable_form."""
    u = sympy.Symbol("u", real=True)
    temps, (res,) = sympy.cse([Sigmoid.stable_form(u)], symbols=sympy.numbered_symbols("t"), order="canonical")
    pr = KernelCPrinter({u: "u"})
    return [(str(s), pr.doprint(e)) for s, e in temps] + [("return", pr.doprint(res))]


# ---- phase 1 checks --------------------------------------------------------------------------------------------
def check_lines(op: Op) -> list[str]:
    """Phase 1's checks, one per codegen.checkplan step, in the order the Python checker runs them."""
    lines = []
    cond = KernelCPrinter({p.symbol: (value_var(p) if isinstance(p, Scalar) else p.name)
                           for p in op.params if p.symbol is not None}, float_kernel=False)
    for s in steps(op):
        n, ref = s.param, s.ref
        if s.kind == "not_null":
            lines.append(f'OPGEN_TRY(opgen_check_not_null("{n}", {n}));')
        elif s.kind == "convert":
            p = op.param(n)
            if isinstance(p, Scalar) and p.optional:
                lines.append(f'OPGEN_TRY(opgen_check_optional_scalar_value("{n}", {n}, {float(p.default)!r}, '
                             f'&{value_var(p)}));')
            elif isinstance(p, Scalar):
                lines.append(f'OPGEN_TRY(opgen_check_scalar_value("{n}", {n}, &{value_var(p)}));')
            # attributes come by value, already of their C type (a null C string failed its null check)
        elif s.kind == "dtype_supported":
            lines.append(f'OPGEN_TRY(opgen_check_dtype_supported(OP, "{n}", {n}, &DTYPES_{n}));')
        elif s.kind in ("promoted_supported", "promoted_castable", "promoted_same"):
            names = ", ".join(f'"{o}"' for o in s.others)
            ptrs = ", ".join(s.others)
            call = (f'opgen_check_promoted_supported(OP, "{n}", &DTYPES_{n}, ' if s.kind == "promoted_supported"
                    else f'opgen_check_{s.kind}("{n}", {n}, ')
            lines += ["{",
                      f"    static const char *const names[] = {{{names}}};",
                      f"    const aclTensor *const operands[] = {{{ptrs}}};",
                      f"    OPGEN_TRY({call}{len(s.others)}, names, operands));",
                      "}"]
        elif s.kind in ("dtype_same", "dtype_castable", "shape_same", "broadcastable"):
            lines.append(f'OPGEN_TRY(opgen_check_{s.kind}("{ref}", {ref}, "{n}", {n}));')
        elif s.kind in ("max_rank", "min_rank"):
            lines.append(f'OPGEN_TRY(opgen_check_{s.kind}("{n}", {n}, {s.n}));')
        elif s.kind in ("broadcast_to", "dim_in_range"):
            lines.append(f'OPGEN_TRY(opgen_check_{s.kind}("{n}", {n}, "{ref}", {ref}));')
        elif s.kind in ("shape_is_broadcast", "broadcastable_with"):
            names = ", ".join(f'"{o}"' for o in s.others)
            ptrs = ", ".join(s.others)
            lines += ["{",
                      f"    static const char *const names[] = {{{names}}};",
                      f"    const aclTensor *const operands[] = {{{ptrs}}};",
                      f'    OPGEN_TRY(opgen_check_{s.kind}("{n}", {n}, {len(s.others)}, names, operands));',
                      "}"]
        elif s.kind == "one_of" and op.param(n).type == "string":
            values = ", ".join(f'"{v}"' for v in s.values)
            lines += ["{",
                      f"    static const char *const values[] = {{{values}}};",
                      f'    OPGEN_TRY(opgen_check_one_of_s("{n}", {n}, {len(s.values)}, values));',
                      "}"]
        elif s.kind == "one_of":
            values = ", ".join(str(v) for v in s.values)
            lines += ["{",
                      f"    static const int64_t values[] = {{{values}}};",
                      f'    OPGEN_TRY(opgen_check_one_of("{n}", {n}, {len(s.values)}, values));',
                      "}"]
        elif s.kind == "kernel_dtypes":
            ptrs = ", ".join(s.others)
            lines += ["{",
                      f"    const aclTensor *const tensors[] = {{{ptrs}}};",
                      f"    OPGEN_TRY(opgen_check_kernel_dtypes(OP, {len(s.others)}, tensors, "
                      f"{'true' if 'COMPLEX' in op.computes else 'false'}));",
                      "}"]
        elif s.kind == "empty_returns":
            ptrs = ", ".join(s.others)
            lines += ["{",
                      f"    const aclTensor *const operands[] = {{{ptrs}}};",
                      f"    if (opgen_any_empty({len(s.others)}, operands))   /* success; the later checks do not run */",
                      "        return opgen_phase1_empty(OP, workspaceSize, executor);",
                      "}"]
        elif s.kind == "requires":
            r, p = s.rule, op.param(n)
            kind = "f" if isinstance(p, Scalar) or p.is_real else ("b" if p.type == "bool" else "i")
            value = value_var(p) if isinstance(p, Scalar) else f"(double){n}" if p.is_real else n
            text = condition_code(r.condition, op).replace('"', '\\"')
            call = f'OPGEN_TRY(opgen_check_requires_{kind}("{n}", {cond.doprint(r.condition)}, "{text}", {value}));'
            if r.when == sympy.true:
                lines.append(call)
            else:
                lines += [f"if ({cond.doprint(r.when)})", f"    {call}"]
        else:
            raise TypeError(f"no C check for step {s.kind}")
    return lines


def dtype_tables(op: Op) -> list[tuple[str, list[tuple[str, list[str]]]]]:
    """[(tensor, [(soc, [ACL enumerators])])] for every tensor a DtypeSupported rule checks."""
    names = [s.param for s in steps(op) if s.kind in ("dtype_supported", "promoted_supported")]
    names = list(dict.fromkeys(names))
    return [(n, [(soc, [DTYPES[d].acl_name for d in dts]) for soc, dts in op.dtypes_of(n).items()])
            for n in names]


# ---- files -----------------------------------------------------------------------------------------------------
def render_header(op: Op, source_label: str) -> str:
    return render(TEMPLATES, "include/aclnnop/aclnn_op.h.jinja",
                  preamble=preamble("//", source_label, "aclnn_op.h.jinja", "c"),
                  op=op, guard=f"OPGEN_ACLNNOP_ACLNN_{op.snake_name.upper()}_H_",
                  phase1=prototypes.phase1_prototype(op) + ";",
                  phase2=prototypes.phase2_prototype(op) + ";")


def render_source(op: Op, source_label: str) -> str:
    k = lower(op)
    variants = [variant_context(op, kv) for kv in k.variants]
    uses_sigmoid = any(e.has(Sigmoid) for kv in k.variants
                       for e in [kv.result] + [x for _, x in kv.body + kv.reductions])
    return render(TEMPLATES, "src/aclnn_op.c.jinja",
                  preamble=preamble("//", source_label, "aclnn_op.c.jinja", "c"),
                  op=op,
                  header=header_name(op),
                  tables=dtype_tables(op),
                  variants=variants,
                  rows=bool(op.reduce_dim),
                  dim=op.reduce_dim,
                  sigmoid=sigmoid_helper() if uses_sigmoid else None,
                  wide_helpers=wide.helpers(op, k),
                  scalars=[value_var(p) for p in op.params if isinstance(p, Scalar)],
                  check_lines=check_lines(op),
                  phase1_signature=prototypes.phase1_prototype(op)[len("aclnnStatus "):],
                  phase2_signature=prototypes.phase2_prototype(op)[len("aclnnStatus "):],
                  output=op.output.name,
                  documented=[(f.when, condition_code(f.expr, op)) for f in op.formulas])


def op_files(op: Op, source_label: str) -> dict[str, str]:
    """{path under c/: text} of one op."""
    from .examples import example_path, example_source
    return {
        f"include/aclnnop/{header_name(op)}": render_header(op, source_label),
        f"src/{source_name(op)}": render_source(op, source_label),
        example_path(op): example_source(op),
    }


def generate(ops: dict, source_of) -> dict[str, str]:
    """{path relative to generated/: text} of the C backend: the runtime, and per op header, source, example."""
    files = {f"c/{path}": text for path, text in runtime_files().items()}
    for op in ops.values():
        files.update({f"c/{path}": text for path, text in op_files(op, source_of(op)).items()})
    return files


__all__ = ["generate", "op_files", "runtime_files", "header_name", "source_name"]
