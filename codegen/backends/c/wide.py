"""The C kernels of the dtypes an op computes in DOUBLE (`Op.compute`: LeakyRelu's and Sigmoid's DOUBLE, the
integers of ThresholdBackward): per variant a struct of the kernel's constants in double and one function over a
block of doubles, printed from the same lowered expressions as the FLOAT kernels; phase 1 takes them when the
inputs promote to one of those dtypes, and opgen_wide.c runs them.

The lines are finished here and handed to the op's template as text (the template only places them).
"""
from __future__ import annotations

import sympy

from codegen.cancellation import Extended
from codegen.lower import KernelVariant
from codegen.rewrite import Sigmoid
from codegen.spec import DTYPES, Op
from codegen.spec.params import Scalar

from .printer import KernelCPrinter


class DoubleCPrinter(KernelCPrinter):
    """C in double: libm's exp, a double sigmoid and NaN-propagating max/min of this file (the FLOAT kernels'
    helpers are float-only)."""

    def __init__(self, names=None, last=frozenset()):
        super().__init__(names, float_kernel=False, last=last)

    def _print_exp(self, expr):
        return f"exp({self._print(expr.args[0])})"

    def _print_Sigmoid(self, expr):
        return f"opgen_sigmoid_f64({self._print(expr.args[0])})"

    def _print_Max(self, expr):
        return self._fold("opgen_maximum_f64", expr)

    def _print_Min(self, expr):
        return self._fold("opgen_minimum_f64", expr)


class ComplexCPrinter(DoubleCPrinter):
    """C in complex double: conj of codegen.lower.conjugated, libm's complex exp."""

    def _print_Conj(self, expr):
        return f"conj({self._print(expr.args[0])})"

    def _print_exp(self, expr):
        return f"cexp({self._print(expr.args[0])})"


def wide_dtypes(op: Op, compute: str = "DOUBLE") -> list[str]:
    """The dtypes (of the promoted inputs) that compute in DOUBLE (or COMPLEX), as ACL enumerators."""
    return [DTYPES[d].acl_name for d, c in op.compute.items() if c == compute]


def _any_wide(op: Op) -> bool:
    return bool(wide_dtypes(op) or wide_dtypes(op, "COMPLEX"))


def helpers(op: Op, kernel) -> list[str]:
    """Lines of the double helpers the op's DOUBLE kernels, its sums computed in double and its rows whose sums
    leave FLOAT (opsource._row_wide_context) call (none when it has none of them)."""
    extended = any(e.has(Extended) for kv in kernel.variants for e in [kv.result] + [x for _, x in kv.body])
    if not _any_wide(op) and not extended and op.reduce_dim is None:
        return []
    lines = ["/* helpers of the DOUBLE kernels (opgen_wide.c runs them) and of the sums computed in double */"]
    if wide_dtypes(op, "COMPLEX"):
        lines += ["#include <complex.h>"]
    lines += [
             "static inline double opgen_maximum_f64(double a, double b) { return (a > b || a != a) ? a : b; }",
             "static inline double opgen_minimum_f64(double a, double b) { return (a < b || a != a) ? a : b; }"]
    if any(e.has(Sigmoid) for kv in kernel.variants for e in [kv.result] + [x for _, x in kv.body + kv.reductions]):
        u = sympy.Symbol("u", real=True)
        temps, (res,) = sympy.cse([Sigmoid.stable_form(u)], symbols=sympy.numbered_symbols("t"), order="canonical")
        pr = DoubleCPrinter({u: "u"})
        lines += ["static inline double opgen_sigmoid_f64(double u)", "{"]
        lines += [f"    const double {s} = {pr.doprint(e)};" for s, e in temps]
        lines += [f"    return {pr.doprint(res)};", "}"]
    return lines + [""]


def _fields(kv: KernelVariant) -> list[tuple[str, object]]:
    out = [(p.py_name, p.symbol) for p in kv.scalars]
    out += [(f"numel_{n}", sympy.Symbol(f"numel_{n}", integer=True, positive=True)) for n in kv.numels]
    return out + [(str(s), s) for s, _ in kv.prelude]


def kernel_lines(op: Op, kv: KernelVariant, suffix: str) -> list[str]:
    """The variant's DOUBLE constants struct and kernel functions: in DOUBLE and, for an op that computes complex
    dtypes, in complex double (every tensor but gradOutput conjugated: codegen.lower.conjugated)."""
    if not _any_wide(op):
        return []
    fields = _fields(kv)
    names = {t.symbol: f"{t.py_name}_i" for t in kv.tensors}
    names.update({sym: f for f, sym in fields})
    for s, _ in kv.body:
        names[s] = str(s)
    pr = DoubleCPrinter(names, last=kv.last)
    lines = [f"/* the kernel{' for ' + suffix.strip('_') if suffix else ''} in DOUBLE */", "typedef struct {"]
    lines += [f"    double {f};" for f, _ in fields] or ["    char none;"]
    lines += [f"}} Params64{suffix};", ""]
    used = set().union(*[sympy.sympify(e).free_symbols for e in [kv.result] + [e for _, e in kv.body]])
    consts = [f for f, sym in fields if sym in used]
    if wide_dtypes(op):
        lines += [f"static void block_f64{suffix}(int64_t n, const double *const *in, double *out, "
                  "const void *params)", "{"]
        lines.append(f"    const Params64{suffix} *prm = params;" if consts else "    (void)params;")
        lines += [f"    const double *restrict {t.py_name} = in[{k}];" for k, t in enumerate(kv.tensors)]
        lines += [f"    const double {f} = prm->{f};" for f in consts]
        lines += ["    for (int64_t i = 0; i < n; ++i) {"]
        lines += [f"        const double {t.py_name}_i = {t.py_name}[i];" for t in kv.tensors]
        lines += [f"        const double {s} = {pr.doprint(e)};" for s, e in kv.body]
        lines += [f"        out[i] = {pr.doprint(kv.result)};", "    }", "}", ""]
    if wide_dtypes(op, "COMPLEX"):
        from codegen.lower import conjugated
        body, result = conjugated(op, kv)
        cpr = ComplexCPrinter(names, last=kv.last)
        lines += [f"static void block_c128{suffix}(int64_t n, const double *const *in, double *out, const void *params)",
                  "{", f"    const Params64{suffix} *prm = params;" if consts else "    (void)params;"]
        lines += [f"    const double complex *restrict {t.py_name} = (const double complex *)in[{k}];"
                  for k, t in enumerate(kv.tensors)]
        lines += [f"    const double {f} = prm->{f};" for f in consts]
        lines += ["    double complex *restrict res = (double complex *)out;", "    for (int64_t i = 0; i < n; ++i) {"]
        lines += [f"        const double complex {t.py_name}_i = {t.py_name}[i];" for t in kv.tensors]
        lines += [f"        const double complex {s} = {cpr.doprint(e)};" for s, e in body]
        lines += [f"        res[i] = {cpr.doprint(result)};", "    }", "}", ""]
    return lines


def phase1_lines(op: Op, kv: KernelVariant, suffix: str, value_var) -> list[str]:
    """Phase 1's switch to the DOUBLE kernel: when the inputs promote to a dtype that computes in DOUBLE, its
    constants in double (the scalars unrounded, the prelude in double) and the call handed to opgen_run_wide."""
    if not _any_wide(op):
        return []
    fields = _fields(kv)
    pnames = {sym: f"prm64.{f}" for f, sym in fields}
    ppr = DoubleCPrinter(pnames)
    tensors = ", ".join(t.name for t in kv.tensors)
    out = []
    for compute, fn, flag in (("DOUBLE", "block_f64", "false"), ("COMPLEX", "block_c128", "true")):
        wide = wide_dtypes(op, compute)
        if wide:
            out += _phase1_switch(op, kv, suffix, value_var, wide, fields, ppr, tensors, fn + suffix, flag)
    return out


def fill64_lines(kv: KernelVariant, value_var, var: str = "prm64") -> list[str]:
    """The assignments of the DOUBLE kernel's constants into the struct `var` (scalars unrounded, the prelude in
    double)."""
    fields = _fields(kv)
    ppr = DoubleCPrinter({sym: f"{var}.{f}" for f, sym in fields})
    lines = []
    for p in kv.scalars:
        value = value_var(p) if isinstance(p, Scalar) else f"(double){p.name}"
        lines.append(f"{var}.{p.py_name} = {value};")
    lines += [f"{var}.numel_{n} = (double)opgen_numel({n});" for n in kv.numels]
    return lines + [f"{var}.{s} = {ppr.doprint(e)};" for s, e in kv.prelude]


def _phase1_switch(op, kv, suffix, value_var, wide, fields, ppr, tensors, fn, complex_flag):
    lines = ["{",
             f"    static const aclDataType wide[] = {{{', '.join(wide)}}};",
             f"    const aclTensor *const inputs[] = {{{tensors}}};",
             f"    if (opgen_computes_wide({len(kv.tensors)}, inputs, {len(wide)}, wide)) {{",
             f"        Params64{suffix} prm64;",
             "        memset(&prm64, 0, sizeof prm64);"]
    for p in kv.scalars:
        value = value_var(p) if isinstance(p, Scalar) else f"(double){p.name}"
        lines.append(f"        prm64.{p.py_name} = {value};")
    for n in kv.numels:
        lines.append(f"        prm64.numel_{n} = (double)opgen_numel({n});")
    for s, e in kv.prelude:
        lines.append(f"        prm64.{s} = {ppr.doprint(e)};")
    lines += [f"        call.wide = {fn};",
              f"        call.is_complex = {complex_flag};",
              # (a sequence mask, codegen.spec.sequence: phase 2 writes 0 past each length after the call)
              "        return opgen_phase1_masked(OP, &call, &prm64, sizeof prm64, "
              f"{op.sequence.lengths}, {op.sequence.time}, {op.sequence.batch}, workspaceSize, executor);"
              if op.sequence is not None else
              "        return opgen_phase1_done(OP, &call, &prm64, sizeof prm64, workspaceSize, executor);",
              "    }",
              "}"]
    return lines
