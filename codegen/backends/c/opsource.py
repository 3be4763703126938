"""What `src/aclnn_<op>.c` is made of, worked out in Python and handed to short templates as finished lines.

Per op the file holds
  * the dtype × product table of every checked tensor (from the spec),
  * per kernel variant: a struct of the kernel's constants and the kernel functions over FLOAT blocks, printed
    from `codegen.lower` by `KernelCPrinter` (elementwise: `block`; with row sums: `rowsum`/`colsum` and
    `finish_row`/`finish_col`, see opgen_runtime.h), their `*_chunked` entries, which run them over
    FLOAT16/BFLOAT16 operands converted a chunk at a time, `finish_rowsum`, which finishes one row while it
    sums the next (FLOAT, and chunked for FLOAT16/BFLOAT16; both in opgen_chunks.h), and `rows`, the same for
    short rows packed in a block (templates `src/kernel_block.c.jinja`, `src/kernel_rows.c.jinja`),
  * phase 1: the checks of `codegen.checkplan.steps` (the Python checker's, in the same order), then the
    variant's constants and the call handed to the runtime; phase 2: the runtime runs it.

Every list here is C text without its indentation unless its name says `_lines` (indented, blank lines kept):
the templates only indent, substitute and loop.
"""
from __future__ import annotations

import re
from typing import NamedTuple

import sympy

from codegen.checkplan import none_test, steps
from codegen.lower import (KernelVariant, exact_constants, extended_reads, lower, prelude_in_double,
                           reads_outside_extended, wide_constants, wide_grid_sums, wide_reductions)
from codegen.rewrite import Sigmoid
from codegen.scaled import in_float_from_float16, rare_path, unscaled
from codegen.spec import DTYPES, Op
from codegen.spec.functions import BROADCAST, ROW_AXIS, count_parts
from codegen.spec.params import Attr, Scalar, Tensor
from codegen.aclnn.variants import key_condition
from codegen.cancellation import Extended
from codegen.text import condition_code

from . import several, wide
from .extended import EXP_IN_RANGE, exp_arguments, extended_c
from .printer import KernelCPrinter

# continuation lines of the kernel functions' signatures line up at these columns plus the suffix's length
_PADS = (0, 16, 20, 22, 24, 25, 28, 30, 34, 33, 35, 37, 40, 46, 49, 60)


def value_var(p) -> str:
    """The local of phase 1 holding a scalar's value (double, as the Python checker reads it)."""
    return f"{p.name}_value"


def numel_field(name: str) -> str:
    return f"numel_{Tensor(name).py_name}"


def _key_text(key: dict) -> str:
    """`isResult=false, posWeightOptional=absent`: a variant's key as the comments print it."""
    return ", ".join(f"{k}={str(v).lower()}" for k, v in key.items())


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
    for s, _ in kv.grid_sums:   # last and together: the runtime writes them as a double[] at grid_at, in phase 2
        out.append(("double", str(s), s))
    return out


def _used(exprs) -> set:
    syms = set()
    for e in exprs:
        syms |= sympy.sympify(e).free_symbols
    return syms


def _wide_fields(kv: KernelVariant) -> list[tuple[str, object]]:
    """The real constants that a sum computed in double reads (codegen.lower.wide_constants): each gets a double
    field `<name>_f64` beside its FLOAT one, the value unrounded (_fill), which that sum reads instead."""
    return [(f"{f}_f64", sym) for f, sym in wide_constants(kv)]


def _function(exprs, tensors_by_sym, fields, reductions_by_sym, suffix, wide=()) -> dict:
    """What a kernel function declares and loads: the input pointers, the constants and the row sums it reads
    (`wide`, _wide_fields: a constant that only sums computed in double read is declared as its double field
    alone; a row sum they read is taken unrounded too: "sums64")."""
    used = _used(exprs)   # `exprs` lists every temporary the function computes, so this is all it reads
    inside, outside = extended_reads(exprs), reads_outside_extended(exprs)
    wide_syms = {sym for _, sym in wide}
    grid = {sym for ctype, _, sym in fields if ctype == "double"}   # the grid sums, double fields (_fields)
    as_float = used - (inside - outside) | (inside - wide_syms - set(reductions_by_sym) - grid)
    loads = [(k, name) for k, (sym, name) in enumerate(tensors_by_sym) if sym in used]
    consts = [(ctype, f) for ctype, f, sym in fields if sym in as_float]
    consts += [("double", f) for f, sym in wide if sym in inside]
    declare = [f"const Params{suffix} *prm = params;"] if consts or grid & inside else ["(void)params;"]
    declare += [f"const float *restrict {name} = in[{k}];" for k, name in loads]
    # (a grid sum read as FLOAT is rounded once, as the runtime rounded it before; read by a sum computed in
    # double, it is taken unrounded: `_f64`)
    grid_fields = {f for ctype, f, sym in fields if sym in grid}
    declare += [f"const float {f} = (float)prm->{f};" if f in grid_fields else f"const {ctype} {f} = prm->{f};"
                for ctype, f in consts]
    declare += [f"const double {f}_f64 = prm->{f};" for ctype, f, sym in fields if sym in grid & inside]
    return {
        "declare": declare,
        # element i of every operand, loaded at the top of the loop body
        "load": [f"const float {name}_i = {name}[i];" for _, name in loads],
        "sums": [(j, str(s)) for j, s in enumerate(reductions_by_sym) if s in as_float],
        "sums64": [(j, str(s)) for j, s in enumerate(reductions_by_sym) if s in inside],
    }


def _fill(kv: KernelVariant, ppr) -> list[str]:
    """Phase 1's assignments of the kernel's constants: scalars (rounded to FLOAT), attributes, counts, prelude."""
    lines = []
    for p in kv.scalars:
        if isinstance(p, Scalar):
            lines.append(f"prm.{p.py_name} = (float){value_var(p)};")
        elif p.is_real:
            lines.append(f"prm.{p.py_name} = (float){p.name};")
        else:
            lines.append(f"prm.{p.py_name} = {p.name};")
    for n in kv.numels:
        lines.append(f"prm.{numel_field(n)} = (float){count_c(n)};")
    for s, e in kv.prelude:
        lines.append(f"prm.{s} = {ppr.doprint(e)};")
    return lines + _fill64(kv)


def _fill64(kv: KernelVariant) -> list[str]:
    """Phase 1's assignments of the double fields (_wide_fields): scalars and attributes unrounded, a prelude
    constant computed in double from them (its earlier prelude constants substituted)."""
    wide_fields = _wide_fields(kv)
    if not wide_fields:
        return []
    names = {p.symbol: value_var(p) if isinstance(p, Scalar) else f"((double){p.name})" for p in kv.scalars}
    names.update({sympy.Symbol(f"numel_{n}", integer=True, positive=True): f"((double){count_c(n)})"
                  for n in kv.numels})
    prelude = prelude_in_double(kv)
    dpr = wide.DoubleCPrinter(names)
    return [f"prm.{f} = {dpr.doprint(prelude.get(sym, sym))};" for f, sym in wide_fields]


def count_c(name: str) -> str:
    """Phase 1's value of count `name`: a tensor's element count or extent, or the broadcast shape's (call.bdims)."""
    tensor, axis = count_parts(name)
    if tensor == BROADCAST:   # (a row's length: along the call's dim, rowAxis of broadcast_lines)
        return f"opgen_count(call.bndim, call.bdims, {-1 if axis is None else 'rowAxis' if axis == ROW_AXIS else axis})"
    return f"opgen_numel({tensor})" if axis is None else f"opgen_count({tensor}->ndim, {tensor}->dims, {axis})"


def _dim_c(op: Op):
    """Phase 1's value of the row reduction's dim: the attribute's, or the fixed axis."""
    return op.dim_attr.name if op.dim_attr else op.reduce_dim


def broadcast_lines(op: Op, kv: KernelVariant) -> list[str]:
    """Phase 1's lines that record the broadcast shape of every input (a sum_to output, or a count of it)."""
    if op.output.sum_to is None and not any(count_parts(n)[0] == BROADCAST for n in kv.numels):
        return []
    every = ", ".join(t.name for t in op.tensors)
    lines = ["{",
             f"    const aclTensor *const every[] = {{{every}}};",
             f"    opgen_call_broadcast(&call, {len(op.tensors)}, every);",
             "}"]
    if op.output.sum_to:
        # the kernel on that shape, summed back to the input's; where nothing is summed, straight into the output
        lines.append(f"call.sum_to = opgen_broadcast_differs(&call, {op.output.name});")
    if any(count_parts(n)[1] == ROW_AXIS for n in kv.numels):   # a row's length: the call's dim, normalized
        lines.append(f"const int rowAxis = call.bndim == 0 ? 0 : (int)(({_dim_c(op)} + (int64_t)call.bndim) "
                     f"% (int64_t)call.bndim);")
    return lines


def _dispatch(op: Op, kv: KernelVariant) -> str:
    return key_condition(op, kv.key)


def _branch_exps_hoisted(body: list, result) -> list[tuple[int, str, sympy.Expr]]:
    """The exps that lie in a branch of a `?:` (a Piecewise value, not a condition) of the kernel's temporaries and
    result, to compute first, each as a temporary of its own: (index of the first temporary that reads it, or
    len(body) for the result; its name ex0, ex1, ...; the exp).  The printer prints the exp as that name where it
    is read (the expressions are not changed, so their products print in the same order: the same bits).
    Why: GCC if-converts a `?:` whose branch calls opgen_expf(_nonpos) into AVX-512 code in which the exp's own
    clamp compare is masked by the branch condition, so that the lanes of the other branch run the exp at its
    clamp (-150) and the final product by 2^-100 underflows there, a microcode assist per vector on AMD Zen 4.
    Computed before the `?:`, the exp takes no mask: GeluBackwardV2 none 1.11-1.13x in L1 (its near-root
    polynomial's lanes took the assist; with FTZ/DAZ set the old form ran as fast).  An expression with a sum
    computed in double (Extended) is left as it is."""
    hoisted, seen = [], set()
    for at, e in enumerate([e for _, e in body] + [result]):
        if not isinstance(e, sympy.Basic) or e.has(Extended) or not e.has(sympy.Piecewise):
            continue
        found = set()
        for pw in e.atoms(sympy.Piecewise):
            for value, _ in pw.args:
                found |= {x for x in value.atoms(sympy.exp) if not x.args[0].has(sympy.exp)}
        for x in sorted(found - seen, key=sympy.default_sort_key):
            seen.add(x)
            hoisted.append((at, f"ex{len(hoisted)}", x))
    return hoisted


def _erfc_gauss(body: list, hoisted: list) -> dict:
    """{erfc(|u|/sqrt(2)): ex-name} for each temporary of the kernel that computes that erfc outside any `?:` while
    exp(-u^2/2) of the same u is an exp computed before a `?:` (_branch_exps_hoisted) that only later temporaries or
    the result read: the printer prints the erfc as opgen_erfc_gaussf(u, &ex) (opgen_math.h), which also gives the
    exp, and the exp's own line is left out (GeluBackwardV2 none: Φ and the Gaussian, one exp where there were
    two)."""
    found = {}
    for k, (_, e) in enumerate(body):
        if not isinstance(e, sympy.Basic) or e.has(sympy.Piecewise) or e.has(Extended):
            continue
        for f in e.atoms(sympy.erfc):
            a = exact_constants(f.args[0])
            u = sympy.simplify(a * sympy.sqrt(2))
            if not isinstance(u, sympy.Abs):
                continue
            for at, name, x in hoisted:
                if at > k and sympy.simplify(exact_constants(x.args[0]) + u.args[0] ** 2 / 2) == 0:
                    found[f] = name
    return found


def _paired_sums(pairs: list, width: str, span: str, modulus: str) -> list[str]:
    """rowsum_lanes' (width 8) or rowsum_lanes_wide's (width OPGEN_ROW_LANES) loops over the whole pairs of lane
    groups, a loop per sum: the summands of 2·width elements into t[], then t[lane] + t[lane + width] in FLOAT to the
    double lane (kernel_rows.c.jinja: "Paired").  `pairs`: (the summand's lines, its sum's index); none: no loops."""
    if not pairs:
        return []
    lines = [f"const int64_t pairs = whole - whole % {modulus};"]
    for summand, j in pairs:
        lines += ([f"for (int64_t i0 = 0; i0 < pairs; i0 += {span}) {{", f"    float t[{span}];",
                   f"    for (int64_t lane = 0; lane < {span}; ++lane) {{", "        const int64_t i = i0 + lane;"]
                  + ["        " + line for line in summand]
                  + ["    }", f"    for (int64_t lane = 0; lane < {width}; ++lane)",
                     f"        s{j}[lane] += (double)(t[lane] + t[lane + {width}]);", "}"])
    return lines


def variant_context(op: Op, kv: KernelVariant) -> dict:
    """The template data of one variant's kernel functions, and what phase 1 needs to hand it to the runtime."""
    tensors = [(t.symbol, t.py_name) for t in kv.tensors]
    fields = _fields(kv)
    # element i of every operand is loaded into a local at the top of the loop: loads under a `?:` would be
    # masked loads (the compiler may not read memory the program might not read), slow on some CPUs
    names = {sym: f"{name}_i" for sym, name in tensors}
    names.update({sym: f for _, f, sym in fields})
    for s, _ in kv.reductions + kv.body:
        names[s] = str(s)
    red_syms = [s for s, _ in kv.reductions]
    pr = KernelCPrinter(names, last=kv.last)
    # the double locals of the constants and row sums that the sums computed in double read (_wide_fields)
    wide_fields = _wide_fields(kv)
    wide_names = {sym: f for f, sym in wide_fields}
    wide_names.update({s: f"{s}_f64" for s in wide_reductions(kv) + wide_grid_sums(kv)})
    pr.wide_names = wide_names
    # (elementwise kernels: an exp under a `?:` computed before it, see _branch_exps_hoisted)
    hoisted = [] if kv.reductions else _branch_exps_hoisted(kv.body, kv.result)
    hpr = KernelCPrinter({**names, **{x: name for _, name, x in hoisted}}, last=kv.last)
    hpr.wide_names = wide_names
    gauss = _erfc_gauss(kv.body, hoisted)
    pr.erfc_gauss = hpr.erfc_gauss = gauss
    reductions = [pr.doprint(e) for _, e in kv.reductions]
    # the prelude is computed in phase 1, over the fields of `p`
    ppr = KernelCPrinter({sym: f"prm.{f}" for _, f, sym in fields})
    suffix = ("__" + kv.suffix) if kv.suffix else ""
    finish = _function([e for _, e in kv.body] + [kv.result], tensors, fields, red_syms, suffix, wide_fields)
    # the column sums in double when the finish reads one in a sum computed in double (opgen_loops.c: the same
    # bits as the row path's unrounded acc[j]); else rounded to FLOAT by the runtime once per tile
    col64 = bool(finish["sums64"])
    sum_type = "double" if col64 else "float"
    summed = _function([e for _, e in kv.reductions], tensors, fields, red_syms, suffix)
    def kernel_lines(tail=""):
        hpr.sigmoid_tail = pr.sigmoid_tail = tail
        lines = [f"const float {s} = {hpr.doprint(e)};" for s, e in kv.body] + [f"res[i] = {hpr.doprint(kv.result)};"]
        for at, name, x in reversed(hoisted):
            if name not in gauss.values():
                lines.insert(at, f"const float {name} = {pr.doprint(x)};")
        lines[:0] = [f"float {name};   /* opgen_erfc_gaussf's e^(-x^2/2) */" for name in sorted(set(gauss.values()))]
        hpr.sigmoid_tail = pr.sigmoid_tail = ""
        return lines

    compute = finish["load"] + kernel_lines()
    ctx = {
        "suffix": suffix,
        "title": f" for {_key_text(kv.key)}" if kv.key else "",
        # (the grid sums last: the runtime writes them as a double[] at grid_at)
        "fields": ([f"{ctype} {f};" for ctype, f, _ in fields[:len(fields) - len(kv.grid_sums)]]
                   + [f"double {f};   /* unrounded, for the sums computed in double */" for f, _ in wide_fields]
                   + [f"{ctype} {f};" for ctype, f, _ in fields[len(fields) - len(kv.grid_sums):]]
                   or ["char none;   /* the kernel reads no constant */"]),
        "pad": {f"p{k}": " " * (k + len(suffix)) for k in _PADS},   # pad.p22: 22 columns
        "chunked_inline": "",   # (the plain copy's entry where phase 1 does not hand it on: _plain_copy)
        "ntensors": len(kv.tensors),
        "nred": len(kv.reductions),
        "lanes": f"OPGEN_ROW_LANES * {len(kv.reductions)}",
        "declare_finish": finish["declare"],
        "compute": compute,
        # rowsum_lanes(_wide): 8 (32) lanes per sum, each summand added to its lane
        "declare_lanes": summed["declare"],
        "wide_lanes": [f"double *restrict s{j} = lanes + OPGEN_ROW_LANES * {j};" for j in range(len(reductions))],
        "narrow_lanes": [f"double *restrict s{j} = lanes + 8 * {j};" for j in range(len(reductions))],
        # a loop per sum: with two sums in one loop (CrossEntropyLossGrad's Σw and Σw[target]) GCC 12 vectorized
        # neither and added them one scalar at a time (perf: the rowsum took as long as the finish); each lane
        # still adds the same values in the same order
        "lane_loops": [_function([e], tensors, fields, red_syms, suffix)["load"]
                       + [f"s{j}[lane] += (double)({c});"] for j, ((_, e), c) in enumerate(zip(kv.reductions,
                                                                                               reductions))],
        "tail_sums": summed["load"] + [f"s{j}[i - whole] += (double)({c});" for j, c in enumerate(reductions)],
        "narrow_tail_sums": summed["load"] + [f"s{j}[0] += (double)({c});" for j, c in enumerate(reductions)],
        "declare_colsum": summed["declare"] + [f"double *restrict a{j} = acc[{j}];" for j in range(len(reductions))],
        "col_sums": summed["load"] + [f"a{j}[i] += (double)({c});" for j, c in enumerate(reductions)],
        # colsum2: each row's summands through colsum_at, added to the sums in row order
        "declare_colsum_at": summed["declare"],
        "colsum_terms": summed["load"] + [f"t[{j}] = (double)({c});" for j, c in enumerate(reductions)],
        "declare_colsum2": [f"double *restrict a{j} = acc[{j}];" for j in range(len(reductions))],
        "col_sums2": [f"a{j}[i] = (a{j}[i] + t[{j}]) + u[{j}];" for j in range(len(reductions))],
        "declare_finish_row": finish["declare"] + [f"const float {s} = (float)acc[{j}];" for j, s in finish["sums"]]
                              + [f"const double {s}_f64 = acc[{j}];" for j, s in finish["sums64"]],
        # (the runtime rounds the column sums to FLOAT once per tile, the value finish_row takes: opgen_loops.c;
        # col64: it hands them in double, each rounded here as finish_row rounds it)
        "sum_type": sum_type,
        "finish_col64": col64,
        "declare_finish_col": finish["declare"] + [f"const {sum_type} *restrict a{j} = sums[{j}];"
                                                   for j in sorted({j for j, _ in finish["sums"] + finish["sums64"]})],
        "finish_col": _col_reads(finish, col64) + compute,
    }
    # a row op's finish with exps of operands in double: a loop without opgen_exp_f64's selects that also checks the
    # block's arguments within the range where it needs none, and the loop with them only where one is not
    scanned = _exp_scan(op, kv, tensors)
    ctx["exp_scan"] = [f"out_of_range |= !({name}[i] > -708.0f) | !({name}[i] <= 709.0f);" for name in scanned]
    in_range = _InRangePrinter(names, last=kv.last)
    in_range.wide_names = wide_names
    compute_in_range = finish["load"] + [f"const float {s} = {in_range.doprint(e)};" for s, e in kv.body] + \
        [f"res[i] = {in_range.doprint(kv.result)};"]
    ctx["finish_in_range"] = _finish_in_range(ctx["exp_scan"], compute_in_range) if scanned else []
    # a kernel with scaled products: the plain products first, the scaled loop only for a block where one of their
    # results is not finite (_plain_form decides where and how)
    plain = _plain_form(op, kv, scanned or hoisted or gauss or half_tuned(op, kv))
    ctx["plain_row"] = ctx["plain_col"] = ctx["plain_first"] = []
    # (with the scaled loop beside the plain one, GCC no longer inlined finish_row and its chunk function into the
    # row loops, the FLOAT16/BFLOAT16 ones handing it their converted inputs through memory: SoftmaxGrad FLOAT16
    # 0.54-0.65x the kernel before ovf7's scaled form, side by side)
    ctx["finish_always"] = "__attribute__((always_inline)) " if plain and kv.reductions else ""
    ctx["finish_inline"] = "inline " + ctx["finish_always"] if plain and kv.reductions else ""
    if plain:
        pf = _function([e for _, e in plain.body] + [plain.result], tensors, fields, red_syms, suffix, wide_fields)
        plain_lines = pf["load"] + [f"const float {s} = {pr.doprint(e)};" for s, e in plain.body] \
            + [f"res[i] = {pr.doprint(plain.result)};"]
        ctx["plain_row"] = ctx["plain_first"] = _plain_first(plain_lines)
        ctx["plain_col"] = _plain_first(_col_reads(pf, col64) + plain_lines)
    # FLOAT16 rows at 256 bits (opgen_chunks.h: OPGEN_F16_ROWS) but where the results are computed in double
    ctx["f16_rows"] = "OPGEN_F64_ROWS" if _extended(kv) else "OPGEN_F16_ROWS"
    ctx["f16_skewed"] = "OPGEN_F64_ROWS" if _extended(kv) else "OPGEN_F16_SKEWED"   # (the skewed rows: see there)
    ctx["rolled_sums"] = ["OPGEN_ROLLED"] if _extended(kv) else []   # (opgen_chunks.h)
    # softmax's sums in lane pairs (kernel_rows.c.jinja: "Paired"), not where the results are computed in double
    pairs = [(_function([e], tensors, fields, red_syms, suffix)["load"] + [f"t[lane] = {c};"], j)
             for j, ((_, e), c) in enumerate(zip(kv.reductions, reductions))] if not _extended(kv) else []
    ctx["narrow_pairs"] = _paired_sums(pairs, "8", "16", "16")
    ctx["wide_pairs"] = _paired_sums(pairs, "OPGEN_ROW_LANES", "2 * OPGEN_ROW_LANES", "(2 * OPGEN_ROW_LANES)")
    ctx["lanes_from"] = "pairs" if pairs else "0"   # where the unpaired lane loops start
    ctx["paired_inline"] = ["__attribute__((always_inline))"] if pairs else []
    ctx["grid_functions"] = _grid_functions(kv, tensors, fields, suffix, pr)
    ctx.update(_row_wide_context(kv, tensors, fields, wide_fields, suffix))
    # FLOAT16 rows whose finish reads a sum's summand keep it from the sum (kernel_stash.c.jinja)
    ctx["stash"] = _stash_context(ctx, kv, pairs, reductions, names, wide_names, tensors, fields, red_syms, plain)
    # a copy of the elementwise kernel for a FLOAT16 or BFLOAT16 output, with the sigmoid tuned to it
    ctx["half_tuned"] = [{**ctx, "suffix": suffix + HALF_TAIL, "title": ctx["title"] + HALF_TITLE,
                          "pad": {f"p{k}": " " * (k + len(suffix + HALF_TAIL)) for k in _PADS},
                          "compute": finish["load"] + kernel_lines(HALF_TAIL), "grid_functions": []}
                         ] if half_tuned(op, kv) else []
    # FLOAT16/BFLOAT16 operands: a copy with the plain products alone, run a span at a time first (_plain_copy)
    ctx["plain"] = _plain_copy(op, kv, ctx, pf["declare"], plain_lines) if plain and plain.span else []
    ctx["rare"] = [{**ctx, "plain": suffix + PLAIN_TAIL, "rare": suffix + RARE_TAIL,
                    "pad": {f"p{k}": " " * (k + len(suffix + RARE_TAIL)) for k in _PADS}}] if ctx["plain"] else []
    ctx["dispatch"] = _dispatch(op, kv)
    # the DOUBLE (and complex double) kernel of the dtypes the op computes wider than FLOAT (wide.py)
    ctx["wide_kernel"] = wide.kernel_lines(op, kv, suffix)
    ctx["phase1"] = _phase1_variant(op, kv, ctx, _fill(kv, ppr))
    return ctx


PLAIN_TAIL, RARE_TAIL = "_plain", "_rare"

# a block's check after its plain products (_plain_first): res - res is +0 where finite, nan where not, OR-ed as bits:
# a subtraction and an integer OR per vector, where |res| <= max (an and, a compare into a mask, the mask OR-ed) cost
# ELU FLOAT 0.80x main, this 0.91-0.93x (side by side, 2^16-2^20)
_FINITE_CHECK = ["const float z = res[i] - res[i];   /* +0 where finite, nan where not */", "uint32_t zb;",
                 "memcpy(&zb, &z, sizeof zb);", "beyond |= zb;"]


def _col_reads(f: dict, col64: bool) -> list[str]:
    """finish_col's reads of the column sums a kernel function reads (`f`: _function's), at the top of its loop."""
    return [f"const float {s} = {'(float)' if col64 else ''}a{j}[i];" for j, s in f["sums"]] \
        + [f"const double {s}_f64 = a{j}[i];" for j, s in f["sums64"]]


class PlainFirst(NamedTuple):
    """A kernel's plain form (`scaled.rare_path`: its temporaries and result with each scaled product as its plain
    L*g) and where it is checked (_plain_form)."""
    body: list
    result: object
    span: bool   # FLOAT16/BFLOAT16 operands: the plain copy a span at a time, the results looked at once (_plain_copy)


def _plain_form(op: Op, kv: KernelVariant, excluded) -> PlainFirst | None:
    """How a kernel with scaled products (codegen.scaled) computes its plain products first and the scaled form
    only where one of their results is not finite (an L or a sum beyond max makes it ±inf or nan, and the scaled
    form is the plain one wherever none is), or None: where it has none, where its results are computed in double
    (no L of FLOAT operands leaves the range there: `unscaled`), and where `excluded` (a form of the kernel printed
    otherwise: an elementwise kernel whose exps are hoisted out of a `?:`, one tuned to a half output, a row finish
    with _finish_in_range's pre-loop).  The one place the backend decides it, per kernel shape and dtype:
      * every kernel function over FLOAT blocks (the elementwise `block`; the row finishes finish_row, finish_col
        and finish_row_stash, over every dtype: their FLOAT16/BFLOAT16 rows call them a chunk at a time): the plain
        loop with the check of each result first, in the same function as the scaled loop (_plain_first).  The
        scaled form's compare, selects and second product per element cost 0.5-0.98x the kernel without it (ELU,
        KlDivTarget, ScaledMaskedSoftmax, SoftmaxGrad: ovf7, perf27); the check costs a subtraction and an OR per
        vector (ELU FLOAT 0.91-0.93x main).  The plain-factor kernels' FLOAT blocks, which kept the select, gained
        too: HuberLoss with a weight 1.6x, MseLoss, BCE-with-logits-target, PoissonNll 1.0-1.1x (unify, CPU time
        per call side by side, 2^16);
      * the elementwise kernels' FLOAT16/BFLOAT16 operands also (`span`): a copy without the check first, a span of
        2048 elements at a time, whose half results are looked at once (opgen_chunks.h: opgen_chunked_rows_rare),
        the span again through the checked block where one is not finite (_plain_copy).  Why not the check alone
        there: in each 64-element chunk it measured ELU (isResult false) and KlDivTarget (logTarget) FLOAT16/
        BFLOAT16 0.75-0.81x this, MseLoss BFLOAT16 0.83-0.89x in the cache (unify, load 12-16; perf25 likewise).
        Not for the shapes whose calls are built elsewhere (split, class-index): their chunks take the checked
        block."""
    if excluded or _extended(kv):
        return None
    split = rare_path(kv.body, kv.result)
    if split is None:
        return None
    span = not kv.reductions and op.reduce_dim is None and op.split is None and not op.per_output \
        and op.classes is None
    return PlainFirst(split[0], split[1], span)


def _plain_first(body: list[str]) -> list[str]:
    """The lines before a kernel function's own loop (the elementwise `block`; the row finishes finish_row,
    finish_col, finish_row_stash) where it has scaled products (_plain_form): a loop over the block with the plain
    products (`body`: its loads, temporaries and result) that checks the results (_FINITE_CHECK), and a return where
    every one is finite.  The scaled form is the plain products wherever no L (or sum) left FLOAT, and one that did
    makes its result ±inf or nan; where one is not finite, the function's own loop (the scaled form) computes the
    block again, so every element has the scaled kernel's bits.  The results are the output's, never an input's
    (an output that overlaps an input is computed in the workspace, opgen_loops.c, or staged, as for
    _finish_in_range), so the inputs read again are the same.  In the same function as the scaled loop, inlined
    with it: a call out of line made the FLOAT16/BFLOAT16 chunk loops' converted inputs memory (0.7-0.84x main,
    KlDivTarget, ovf7)."""
    return ["/* the plain products first (opsource._plain_first): the results wherever every one is finite; else",
            " * the loop below, the scaled form, computes the block again */",
            "uint32_t beyond = 0;",
            "for (int64_t i = 0; i < n; ++i) {",
            *[f"    {line}" for line in body + _FINITE_CHECK],
            "}",
            "if (!beyond)",
            "    return;"]


def _plain_copy(op: Op, kv: KernelVariant, ctx: dict, declare: list[str], compute: list[str]) -> list[dict]:
    """The template data of a copy of the elementwise kernel with its plain products alone and no check (`compute`,
    `declare`: _plain_form's, printed), as a list of one.  Its `_rare` entry (kernel_rare.c.jinja) runs it over
    FLOAT16/BFLOAT16 operands a span at a time and the checked block only over a span where one of its results is
    not finite; where every input is FLOAT16 and no L can leave FLOAT then (`scaled.in_float_from_float16`:
    MseLoss's 2*(x - t) is at most 2.6e5), phase 1 hands the call the copy alone (`plain_f16`, call_kernels)."""
    suffix = ctx["suffix"] + PLAIN_TAIL
    f16 = in_float_from_float16(kv.body, kv.result, kv.prelude, [t.symbol for t in kv.tensors])
    return [{**ctx, "suffix": suffix, "title": ctx["title"] + " (the products L*g alone)",
             "pad": {f"p{k}": " " * (k + len(suffix)) for k in _PADS}, "declare_finish": declare,
             "compute": compute, "plain_first": [], "grid_functions": [],
             "plain_f16": f16, "chunked_inline": "" if f16 else "inline "}]   # (inline: unused, no warning)


_KEPT = "kept"   # the C local of a kept summand (kernel_stash.c.jinja)


def _stash_context(ctx: dict, kv: KernelVariant, pairs: list, reductions: list[str], names: dict, wide_names: dict,
                   tensors, fields, red_syms, plain=None) -> list[dict]:
    """The template data of kernel_stash.c.jinja, as a list of one (none: the variant keeps no summand): for the
    first sum whose summand (not a bare operand) is a subexpression of the finish (the result or a temporary),
    the sum that also stores each element's FLOAT summand and the finish that reads it in its place.  Only where
    the sums are paired FLOAT sums (`pairs`: not where the results are computed in double) and the finish printed
    with the summand read is the finish printed before, the summand's text in its place evaluated as a unit
    (_reads_as_unit): the same operations in the same order, so the same bits."""
    if not pairs:
        return []
    exprs = [e for _, e in kv.body] + [kv.result]
    kept = sympy.Symbol(_KEPT, real=True)
    pr = KernelCPrinter(names, last=kv.last)
    pr.wide_names = wide_names
    kpr = KernelCPrinter({**names, kept: _KEPT}, last=kv.last)
    kpr.wide_names = wide_names
    for j, (_, summand) in enumerate(kv.reductions):
        if summand.is_Atom:
            continue
        replaced = [sympy.sympify(e).xreplace({summand: kept}) for e in exprs]
        before, after = [pr.doprint(e) for e in exprs], [kpr.doprint(e) for e in replaced]
        if after == before or not all(_reads_as_unit(a, b, reductions[j]) for a, b in zip(after, before)):
            continue
        finish = _function(replaced, tensors, fields, red_syms, ctx["suffix"], _wide_fields(kv))
        declare = finish["declare"] + [f"const float {s} = (float)acc[{i}];" for i, s in finish["sums"]]
        declare.append("(void)acc;" if not finish["sums"] else "")
        body = [f"const float {s} = {t};" for (s, _), t in zip(kv.body, after)] + [f"res[i] = {after[-1]};"]
        loads = _function([summand], tensors, fields, red_syms, ctx["suffix"])["load"]
        kept_pairs = [(lines + ["stash[i] = t[lane];"] if k == j else lines, k) for lines, k in pairs]
        keep = [f"const float {_KEPT} = {reductions[j]};", f"stash[i] = {_KEPT};"]
        lane_loops = [group if k != j else loads + keep + [f"s{j}[lane] += (double){_KEPT};"]
                      for k, group in enumerate(ctx["lane_loops"])]
        tail = _function([e for _, e in kv.reductions], tensors, fields, red_syms, ctx["suffix"])["load"]
        narrow_tail = list(tail)
        for k, c in enumerate(reductions):
            tail += [f"s{k}[i - whole] += (double)({c});"] if k != j else keep + [f"s{k}[i - whole] += (double){_KEPT};"]
            narrow_tail += [f"s{k}[0] += (double)({c});"] if k != j else keep + [f"s{k}[0] += (double){_KEPT};"]
        return [{**ctx, "kept_sum": j, "summand": reductions[j].replace("_i", ""),
                 "stash_pairs": _paired_sums(kept_pairs, "OPGEN_ROW_LANES", "2 * OPGEN_ROW_LANES",
                                             "(2 * OPGEN_ROW_LANES)"),
                 "stash_narrow_pairs": _paired_sums(kept_pairs, "8", "16", "16"),
                 "stash_lane_loops": lane_loops, "stash_tail_sums": tail, "stash_narrow_tail": narrow_tail,
                 "declare_finish_stash": [d for d in declare if d],
                 "compute_stash": finish["load"] + [f"const float {_KEPT} = stash[i];"] + body,
                 "plain_stash": _plain_stash(plain, summand, kept, kpr, tensors, fields, red_syms, ctx["suffix"])}]
    return []


def _plain_stash(plain, summand, kept, kpr, tensors, fields, red_syms, suffix) -> list[str]:
    """finish_row_stash's plain loop first (_plain_first), the kept summand read in its place as the scaled loop
    reads it; none where the finish has no scaled product (`plain`: _row_plain's)."""
    if not plain:
        return []
    exprs = [sympy.sympify(e).xreplace({summand: kept}) for e in [e for _, e in plain.body] + [plain.result]]
    texts = [kpr.doprint(e) for e in exprs]
    f = _function(exprs, tensors, fields, red_syms, suffix)
    reads = [f"const float {_KEPT} = stash[i];"] if any(e.has(kept) for e in exprs) else []
    return _plain_first(f["load"] + reads + [f"const float {s} = {t};" for (s, _), t in zip(plain.body, texts)]
                        + [f"res[i] = {texts[-1]};"])


def _reads_as_unit(after: str, before: str, summand: str) -> bool:
    """Does C text `after`, which reads the kept summand as `kept`, compute what `before` computes with the summand
    in its place: `before` is `after` with the summand's text for `kept`, and at each place the summand's text is
    one operand there (a product or quotient not right of a `*` or `/`; a sum or difference only alone, or after a
    parenthesis, comma or part of `?:` and before one or a `+` or `-`), so that C's precedence and left-to-right
    order group it whole."""
    if after.replace(_KEPT, summand) != before:
        return False
    depth, top = 0, set()
    for ch in summand:
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and ch in "+-*/?:<>=&|!":
            top.add(ch)
    additive = bool(top - {"*", "/"}) or summand.lstrip().startswith("-")
    for m in re.finditer(r"\b" + _KEPT + r"\b", after):
        left, right = after[:m.start()].rstrip(), after[m.end():].lstrip()
        if not additive and left.endswith(("*", "/")):
            return False
        if additive and (left[-1:] not in ("", "(", ",", "?", ":") or right[:1] not in ("", ")", ",", "?", ":", "+", "-")):
            return False
    return True


class _InRangePrinter(KernelCPrinter):
    """The kernel's C with the exps of its sums computed in double printed without range selects
    (extended.InRangeCPrinter)."""

    def _print_Extended(self, expr):
        return extended_c(self, expr, in_range=True)


def _finish_in_range(scan: list[str], compute: list[str]) -> list[str]:
    """finish_row's lines before its loop with the exp's range selects: the loop without them, which also checks the
    exps' arguments, and a return when every one is in range (kernel_rows.c.jinja prints them).  Where one is not,
    the loop with the selects computes the block again (the results are the output's, never an input's: an
    overlapping output is staged)."""
    return ["/* the loop without opgen_exp_f64's range selects, which is right where every exp's argument is within",
            " * (-708, 709] (nan is not); else the loop below computes the block again */",
            "int out_of_range = 0;",
            "for (int64_t i = 0; i < n; ++i) {",
            *[f"    {line}" for line in scan],
            *[f"    {line}" for line in compute],
            "}",
            "if (!out_of_range)",
            "    return;"]


def _exp_scan(op: Op, kv: KernelVariant, tensors) -> list[str]:
    """The operands a row kernel's finish checks in its loop without range selects (see variant_context): those
    whose elements are the arguments of the exps in its sums computed in double, when every such argument is one;
    else none.  Measured: LogSoftmaxBackward's finishing loop, 68 vector instructions per 16 elements with the
    selects, 55 without, 1.09x as fast in the cache with the check (AMD EPYC Zen 4); the check then a pass of its
    own over the block, folded into the loop since (perf21): 1.03-1.11x FLOAT rows of 1024 and 32768, 1.00-1.04x
    the rest (one thread, side by side)."""
    exprs = [kv.result] + [e for _, e in kv.body]
    # (not under a condition: CrossEntropyLossGrad's `target != ignoreIndex ? ... : 0` loop, without the selects,
    # was not vectorized by GCC 12 and ran 8x slower)
    if op.reduce_dim is None or any(p.has(Extended) for e in exprs for p in sympy.sympify(e).atoms(sympy.Piecewise)):
        return []
    args = exp_arguments(exprs)
    names = dict(tensors)
    if not args or any(a not in names for a in args):
        return []
    return sorted(names[a] for a in args)


def _extended(kv: KernelVariant) -> bool:
    """Are the variant's results computed in double (a sum that cancels, codegen.cancellation.Extended)?"""
    return any(sympy.sympify(e).has(Extended) for e in [kv.result] + [x for _, x in kv.body])


def _row_wide_context(kv: KernelVariant, tensors, fields, wide_fields, suffix: str) -> dict:
    """The template data of sum_wide and finish_wide (kernel_rows.c.jinja), which the runtime takes for a row or a
    column whose FLOAT sums leave FLOAT's range (opgen_loops.c: wide_row, wide_columns): Σ dy·γ·x of RMSNorm's
    backward with dy near 3.4e38 is ±inf in FLOAT (a summand, or the sum once rounded), where the result, after the
    rest of the formula, is finite.  Its sums again in double from double summands, then its results in double
    from them, rounded once.  The same lowered expressions printed in double (wide.DoubleCPrinter: a sum computed
    in double, Extended, prints as it stands); the constants read as doubles (their unrounded double field where the
    variant has one, _wide_fields).  Plain loops: only such rows take them."""
    if not kv.reductions:
        return {}
    names = {sym: f"{name}_i" for sym, name in tensors}
    names.update({sym: f for _, f, sym in fields})
    for s, _ in kv.reductions + kv.body:
        names[s] = str(s)
    pr = wide.DoubleCPrinter(names, last=kv.last)
    unrounded = {sym: f for f, sym in wide_fields}

    def declare(exprs):
        used = _used(exprs)
        consts = [(ctype, f, sym) for ctype, f, sym in fields if sym in used]
        lines = [f"const Params{suffix} *prm = params;"] if consts else ["(void)params;"]
        lines += [f"const double {f} = prm->{unrounded.get(sym, f)};" if ctype == "float"
                  else f"const {ctype} {f} = prm->{f};" for ctype, f, sym in consts]
        return lines, [f"const double {name}_i = opgen_src_get(in[{k}], i);"
                       for k, (sym, name) in enumerate(tensors) if sym in used]

    summands = [e for _, e in kv.reductions]
    sum_declare, sum_load = declare(summands)
    # the plain products L*g: in double no L of FLOAT operands leaves the range (codegen.scaled)
    body, result = unscaled(kv.body, kv.result)
    finish = [e for _, e in body] + [result]
    finish_declare, finish_load = declare(finish)
    read = _used(finish)
    sums = [f"const double {s} = sums[{j}][i * step];" for j, (s, _) in enumerate(kv.reductions) if s in read]
    return {
        "declare_wide_sum": sum_declare,
        "wide_sum": sum_load + [f"acc[{j}][i * step] += {pr.doprint(e)};" for j, e in enumerate(summands)],
        "declare_wide_finish": finish_declare,
        "wide_finish": finish_load + sums + [f"const double {s} = {pr.doprint(e)};" for s, e in body]
                       + [f"opgen_dst_put(out, i, (float)({pr.doprint(result)}));"],
    }


def _grid_functions(kv: KernelVariant, tensors, fields, suffix: str, pr) -> list[str]:
    """Each sum over the whole grid's summand as an elementwise kernel over the call's inputs (GridSum: the
    runtime sums it before the kernel runs and writes the sum into the params' field of the same name)."""
    lines = []
    for j, (s, e) in enumerate(kv.grid_sums):
        f = _function([e], tensors, fields, [], suffix)
        lines += [f"/* the summand of {s}, the sum over the whole grid the kernel divides by (GridSum) */",
                  f"static void grid{j}{suffix}(int64_t n, const float *const *in, float *out, const void *params)",
                  "{", *["    " + d for d in f["declare"]],
                  "    for (int64_t i = 0; i < n; ++i) {", *["        " + d for d in f["load"]],
                  f"        out[i] = {pr.doprint(e)};", "    }", "}", ""]
    return lines


def _grid_lines(kv: KernelVariant, suffix: str) -> list[str]:
    """Phase 1's lines handing the grid sums' summands to the call (opgen_run_call computes them first)."""
    if not kv.grid_sums:
        return []
    return ([f"call.ngrid = {len(kv.grid_sums)};"]
            + [f"call.grid[{j}] = grid{j}{suffix};" for j in range(len(kv.grid_sums))]
            + [f"call.grid_at = offsetof(Params{suffix}, {kv.grid_sums[0][0]});"])


def _phase1_variant(op: Op, kv: KernelVariant, v: dict, fill: list[str]) -> list[str]:
    """Phase 1's lines for one variant (indented, inside `if (<its key>)` when the op has several): the kernel's
    constants, the operands and the functions handed to the runtime."""
    s, out = v["suffix"], op.output.name
    body = broadcast_lines(op, kv) + [f"Params{s} prm;", "memset(&prm, 0, sizeof prm);", *fill]
    body += _input_lines(op, kv) + [f"opgen_call_output(&call, {out});"] + _grid_lines(kv, s)
    body += wide.phase1_lines(op, kv, s, value_var)   # returns here when the inputs promote to a wide dtype
    if op.reduce_dim is not None:
        dim = _dim_c(op)
        body += [f"call.nred = {v['nred']};",
                 f"call.dim = {out}->ndim == 0 ? 0 : ({dim} + (int64_t){out}->ndim) % (int64_t){out}->ndim;"]
        col = "finish_col64" if v["finish_col64"] else "finish_col"   # (the column sums in double)
        fields = {"finish_col": col, "finish_col_chunked": col + "_chunked"}
        body += [f"call.{fields.get(f, f)} = {f}{s};"
                 for f in ("rowsum", "rowsum_chunked", "colsum", "colsum_chunked", "colsum2", "finish_row",
                           "finish_row_chunked", "finish_rowsum", "finish_rowsum_chunked", "finish_col",
                           "finish_col_chunked", "rows", "rows_chunked", "rowsum_wide", "finish_row_wide", "colsum_wide",
                           "finish_col_wide")]
        body += [f"call.finish_rowsum_stash = finish_rowsum_stash{s};",
                 f"call.rows_chunked = rows_stash_chunked{s};"] if v["stash"] else []
    else:
        body += call_kernels(kv, v, "call", out)
        target = sparse_target(op, kv)
        if target:
            body.append(f"call.sparse_target = {target};   /* 0 at every other class: opgen_loops.c, run_sparse */")
    if op.sequence is not None:   # codegen.spec.sequence: phase 2 writes 0 past each length after the call
        sq = op.sequence
        body.append(f"return opgen_phase1_masked(OP, &call, &prm, sizeof prm, {sq.lengths}, {sq.time}, {sq.batch}, "
                    "workspaceSize, executor);")
    else:
        body.append("return opgen_phase1_done(OP, &call, &prm, sizeof prm, workspaceSize, executor);")
    if not v["dispatch"]:
        return ["    " + line for line in body]
    return [f"    if ({v['dispatch']}) {{", *["        " + line for line in body], "    }"]


def call_kernels(kv: KernelVariant, v: dict, call: str, out: str) -> list[str]:
    """The elementwise kernel functions handed to `call`: the copy tuned to a FLOAT16 or BFLOAT16 output `out`
    (half_tuned); a kernel with scaled products chunked through its `_rare` entry (FLOAT16/BFLOAT16 operands: the
    plain copy first, _plain_form), or its plain copy alone where every input is FLOAT16 and no L can leave FLOAT
    then; the kernel itself elsewhere.  (An output of several, codegen/backends/c/several.py, is chosen here
    too: its half-tuned copy was emitted and never called, which -Werror=unused-function refused: LogAddExpBackward
    in examples/more_specs.)"""
    s = v["suffix"]
    if v["half_tuned"]:
        pick = f"{out}->dtype == ACL_FLOAT16 || {out}->dtype == ACL_BF16 ? {{f}}{s}_half : {{f}}{s}"
        return [f"{call}.{field} = {pick.format(f=f)};" for field, f in (("block", "block"),
                                                                          ("chunked", "block_chunked"))]
    if not v["plain"]:
        return [f"{call}.block = block{s};", f"{call}.chunked = block_chunked{s};"]
    if not v["plain"][0]["plain_f16"]:
        return [f"{call}.block = block{s};", f"{call}.chunked = block_chunked{s}{RARE_TAIL};"]
    f16 = " && ".join(f"{t.name}->dtype == ACL_FLOAT16" for t in kv.tensors)
    return [f"const bool inputs_f16{s} = {f16};", f"{call}.block = inputs_f16{s} ? block{s}{PLAIN_TAIL} : block{s};",
            f"{call}.chunked = inputs_f16{s} ? block_chunked{s}{PLAIN_TAIL} : block_chunked{s}{RARE_TAIL};"]


def sparse_target(op: Op, kv: KernelVariant) -> int:
    """1 + the kernel input the class coordinate is compared with, when the result is that comparison's branch
    or 0: Piecewise((e, Eq(classIndex, target) & ...), (0, True)) (NLLLossBackward), so that every class but the
    target's gets 0 and the runtime may zero the output and compute one element per sample; 0 otherwise."""
    from codegen.spec.classes import CLASS_TENSOR
    r = kv.result
    if op.classes is None or kv.reductions or kv.grid_sums or not isinstance(r, sympy.Piecewise) \
            or len(r.args) != 2 or r.args[1].expr != 0 or r.args[1].cond != sympy.true:
        return 0
    index = {t.symbol: k for k, t in enumerate(kv.tensors)}
    coordinate = next((t.symbol for t in kv.tensors if t.name == CLASS_TENSOR), None)
    cond = r.args[0].cond
    for term in (cond.args if isinstance(cond, sympy.And) else (cond,)):
        if isinstance(term, sympy.Eq) and coordinate in term.args:
            other = term.args[1] if term.args[0] == coordinate else term.args[0]
            if other in index:
                return index[other] + 1
    return 0


def _input_lines(op: Op, kv: KernelVariant) -> list[str]:
    """The kernel's operands handed to the call; a class-index op's as views on its (sample, class) grid and the
    class coordinate last (codegen.spec.classes)."""
    if op.classes is None:
        return [f"opgen_call_input(&call, {t.name});" for t in kv.tensors]
    from codegen.spec.classes import CLASS_TENSOR, kind_of
    grid, lines = op.classes.tensor, []
    for t in kv.tensors:
        kind = kind_of(op, t.name)
        if t.name == CLASS_TENSOR:
            lines.append(f"opgen_call_classes(&call, {grid});")
        elif kind == "grid":
            lines.append(f"opgen_call_input(&call, {t.name});")
        else:
            lines += [f"aclTensor {t.name}_grid;",
                      f"if (!opgen_class_view({t.name}, {grid}, OPGEN_{kind.upper()}, &{t.name}_grid))",
                      f'    return opgen_fail(ACLNN_ERR_INNER, "{t.name}", "%s: {t.name}\'s elements are not '
                      f'equally spaced in memory (a per-class tensor of that layout is not supported)", OP);',
                      f"opgen_call_input(&call, &{t.name}_grid);"]
    return lines


def _split_phase1(op: Op, variants: list[dict], kvs: list[KernelVariant], extras=()) -> list[str]:
    """Phase 1's lines for a split op (codegen.spec.split): the halves of the input and the output along dim as
    views, per dispatch condition one call per half (its FLOAT or DOUBLE kernel), handed to opgen_phase1_split;
    `extras` [(output's op, [(variant, kernel variant)])]: a call per extra output computed (_extra_calls), all
    handed to opgen_phase1_rows_n."""
    from codegen.spec.split import extra_params
    src, out = op.split.tensor, op.output.name
    dim = op.split.dim if op.split.dim_attr else f"(int64_t)({op.split.dim})"   # an attribute, or a fixed axis
    halves = [str(s) for s in op.wrt]
    lines = [f"const int64_t split_dim = {src}->ndim == 0 ? 0 : "
             f"(({dim} % (int64_t){src}->ndim) + (int64_t){src}->ndim) % (int64_t){src}->ndim;"]
    merged = op.split.merged   # read as rows (interleaved= or rows=): opgen_rows
    renamed = {}
    if merged:
        flag = op.split.interleaved or "false"
        counts = op.split.rows or "NULL"
        lines += [f"opgen_rows rows;   /* {src} read as rows from {dim} on (codegen/spec/split.py) */",
                  f"opgen_rows_init(&rows, split_dim, {flag}, {counts});"]
        if op.split.rows_sum == "uint32":
            lines += ["rows.uint32_sum = true;   /* each count cast to uint32, summed modulo 2^32 (rows_sum) */"]
    for h, name in enumerate(halves):
        if merged:
            lines += [f"const aclTensor {name}_view = opgen_rows_half(&rows, {src}, {h});",
                      f"const aclTensor *const {name} = &{name}_view;",
                      f"const aclTensor {out}_{name} = opgen_rows_out_half(&rows, {out}, {h});"]
        else:
            lines += [f"const aclTensor {name}_view = opgen_half({src}, split_dim, {h});",
                      f"const aclTensor *const {name} = &{name}_view;",
                      f"const aclTensor {out}_{name} = opgen_half({out}, split_dim, {h});"]
        lines += [f"(void){name};   /* (a half only some kernel reads) */"]
    per_row = {r.params[0]: r.params[1] for r in op.rules if type(r).__name__ == "PerRow"}
    extra_only = {p.name for p in extra_params(op)}   # (read by an extra output's call only: as given)
    for t, ref in per_row.items():   # one value per row, read broadcast along it (PerRow)
        lines += [f"aclTensor {t}_per_row;   /* {t} laid along the rows of {ref}, [..., 1] */",
                  f"if ({t} != NULL && !opgen_row_view({t}, {ref}, &{t}_per_row))",
                  f'    return opgen_fail(ACLNN_ERR_INNER, "{t}", "%s: {t}\'s elements are not equally spaced in '
                  f'memory (a per-row tensor of that layout is not supported)", OP);']
        renamed[t] = f"&{t}_per_row"
    if merged:   # the tensors of the halves' shape (gradOutput), read as rows too
        for t in op.tensors:
            if t.name not in (src, op.split.rows) and t.name not in per_row and t.name not in extra_only:
                lines += [f"const aclTensor {t.name}_rows = opgen_rows_of(&rows, {t.name});"]
                renamed[t.name] = f"&{t.name}_rows"
    wide_types = wide.wide_dtypes(op)
    groups: dict = {}
    for v, kv in zip(variants, kvs):
        groups.setdefault(v["dispatch"], []).append((v, kv))
    n = 2 + len(extras)
    for dispatch, group in groups.items():
        body = [f"opgen_call calls[{n}];", "memset(calls, 0, sizeof calls);", f"const void *params[{n}];",
                f"size_t sizes[{n}];"]
        if wide_types:
            tensors = ", ".join(dict.fromkeys(t.name for _, kv in group for t in kv.tensors))
            body += [f"static const aclDataType wide[] = {{{', '.join(wide_types)}}};",
                     f"const aclTensor *const inputs[] = {{{tensors}}};",
                     f"const bool computes_wide = opgen_computes_wide({len(tensors.split(', '))}, inputs, "
                     f"{len(wide_types)}, wide);"]
        for h, (v, kv) in enumerate(group):
            s, half = v["suffix"], kv.variant.half
            ppr = KernelCPrinter({sym: f"prm_{half}.{f}" for _, f, sym in _fields(kv)})
            body += [f"/* the half {half}: {out}'s along {dim} */", f"Params{s} prm_{half};",
                     f"memset(&prm_{half}, 0, sizeof prm_{half});"]
            body += [re.sub(r"^prm\.", f"prm_{half}.", line) for line in _fill(kv, ppr)]
            body += [f"opgen_call_input(&calls[{h}], {renamed.get(t.name, t.name)});" for t in kv.tensors]
            body += [f"opgen_call_output(&calls[{h}], &{out}_{half});"]
            floats = [f"calls[{h}].block = block{s};", f"calls[{h}].chunked = block_chunked{s};",
                      f"params[{h}] = &prm_{half};", f"sizes[{h}] = sizeof prm_{half};"]
            if wide_types:
                body += [f"Params64{s} prm64_{half};", f"memset(&prm64_{half}, 0, sizeof prm64_{half});"]
                body += wide.fill64_lines(kv, value_var, f"prm64_{half}")
                body += ["if (computes_wide) {", f"    calls[{h}].wide = block_f64{s};",
                         f"    params[{h}] = &prm64_{half};", f"    sizes[{h}] = sizeof prm64_{half};", "} else {"]
                body += ["    " + line for line in floats] + ["}"]
            else:
                body += floats
        if extras:
            body += _extra_calls(op, extras, renamed)
            body.append(f"return opgen_phase1_rows_n(OP, ncalls, calls, params, sizes, {out}, &rows, workspaceSize, "
                        "executor);")
        elif merged:
            body.append(f"return opgen_phase1_rows(OP, calls, params, sizes, {out}, &rows, workspaceSize, executor);")
        else:
            body.append(f"return opgen_phase1_split(OP, calls, params, sizes, {out}, split_dim, workspaceSize, "
                        "executor);")
        if dispatch:
            lines += [f"if ({dispatch}) {{", *["    " + line for line in body], "}"]
        else:
            lines += ["{", *["    " + line for line in body], "}"]
    return ["    " + line for line in lines]


def _extra_calls(op: Op, extras, renamed: dict) -> list[str]:
    """The calls of a split op's extra outputs (codegen.spec.split), after the halves' two: each, when it is given
    and every optional tensor its op reads is, on gradOutput's shape with the per-row tensors laid [..., 1]
    (`renamed`), its output the per-row view of itself, summed along the row (the call's sum_to)."""
    per_row = {r.params[0]: r.params[1] for r in op.rules if type(r).__name__ == "PerRow"}
    lines = ["int ncalls = 2;"]
    for sub, group in extras:
        o = sub.output.name
        given = " && ".join([f"{o} != NULL"] + [f"{t.name} != NULL" for t in sub.tensors if op.param(t.name).optional])
        arg = lambda name: renamed.get(name, name)
        every = ", ".join(arg(t.name) for t in sub.tensors)
        w = op.param(o).sum_to   # (the sub-op's own output carries no sum_to: the call sums along the row)
        body = [f"aclTensor {o}_per_row;   /* {o} laid along the rows of {per_row[w]} */",
                f"if (!opgen_row_view({o}, {per_row[w]}, &{o}_per_row))",
                 f'    return opgen_fail(ACLNN_ERR_INNER, "{o}", "%s: {o}\'s elements are not equally spaced in '
                 f'memory (a per-row tensor of that layout is not supported)", OP);',
                 "{", f"    const aclTensor *const every[] = {{{every}}};",
                 f"    opgen_call_broadcast(&calls[ncalls], {len(sub.tensors)}, every);", "}"]
        for i, (v, kv) in enumerate(group):
            body += several.dispatched(v, several.variant_call(kv, v, _Fill, "ncalls", f"prm_extra{v['suffix']}", o,
                                                               arg), i == 0)
        body += [f"opgen_call_output(&calls[ncalls], &{o}_per_row);",
                 f"calls[ncalls].sum_to = opgen_broadcast_differs(&calls[ncalls], &{o}_per_row);"]
        if o in op.split.masks:
            body += ["rows.masked |= 1u << ncalls;   /* its rows past the count hold 0 (Split(masks=...)) */"]
        body += ["ncalls++;"]
        decls = [f"Params{v['suffix']} prm_extra{v['suffix']};" for v, _ in group]
        lines += decls + [f"/* {o}: the gradient of {w}, summed along the row; computed when it and what it reads "
                          f"are given */", f"if ({given}) {{"]
        lines += ["    " + b for b in body] + ["}"]
    return lines


# the sigmoid tuned to a half output: opgen_sigmoidf_half over opgen_expf_nonpos_2p100_half (opgen_math.h)
HALF_TAIL = "_half"
HALF_TITLE = " (FLOAT16 or BFLOAT16 output)"


def _factor_of_products(expr) -> bool:
    """Is every sigmoid in `expr` a factor of a product (or the whole of it) whose other factors hold no sigmoid?
    Then the sigmoid's relative error is the product's: nothing cancels it.  (Not under a `?:`: SoftplusBackward's
    g·σ(βx) would qualify, but its FLOAT16/BFLOAT16 rows are 2-2.8x PyTorch already, and its max error on the
    accuracy inputs, 0 ulp, would become 1.)"""
    if isinstance(expr, Sigmoid):
        return not expr.args[0].has(Sigmoid)
    if isinstance(expr, sympy.Mul):
        return all(_factor_of_products(a) for a in expr.args)
    return not expr.has(Sigmoid)


def half_tuned(op: Op, kv: KernelVariant) -> bool:
    """Does the elementwise kernel get a copy for a FLOAT16 or BFLOAT16 output whose sigmoid's exp is a shorter
    polynomial (opgen_math.h: opgen_expf_nonpos_2p100_half)?  Where the result is rounded to 11 or 8 bits and
    the sigmoid is a factor of it (its relative error carried over, not amplified): LogSigmoidBackward's g·σ(-x),
    SoftMarginLossBackward's.  Not in a row kernel, a split or per-output op (their calls are built elsewhere),
    nor where a sum is computed in double."""
    if op.reduce_dim is not None or op.split is not None or op.per_output or kv.reductions or _extended(kv):
        return False
    exprs = [kv.result] + [e for _, e in kv.body]
    return any(e.has(Sigmoid) for e in exprs) and all(_factor_of_products(e) for e in exprs) \
        and not any(e.has(Sigmoid) for _, e in kv.body)


def sigmoid_helper(tail: str = "") -> list[str]:
    """opgen_sigmoidf's body, printed from Sigmoid.stable_form, (u >= 0 ? 1 : e)/(1 + e) with e = exp(-|u|), its
    numerator and denominator scaled by 2^100: e*2^100 is opgen_expf_nonpos_2p100 (opgen_math.h), the exact
    product opgen_expf_nonpos rounds by its last multiply by 2^-100.  The same bits: the scaled sum and quotient
    round as the unscaled ones (a power of two, no overflow), and where e itself would round (subnormal,
    u < -87) 1 + e is 1 and the quotient rounds e*2^100 / 2^100 once, as e was.  One multiply less per
    element (LogSigmoid 1.05-1.08x in the cache), and above all no multiply that underflows: where GCC computes the
    sigmoid under a mask (SoftplusBackward's `beta x > threshold ? g : g σ(beta x)`), the masked-off lanes run the
    exp at its clamp, -150, and the product by 2^-100 underflowed there, a microcode assist per vector on AMD Zen 4
    (with FTZ/DAZ set the old form ran as fast; the division that now rounds those lanes to 0 runs at the same
    speed with or without FTZ/DAZ): SoftplusBackward 1.5-1.8x in the cache (one thread, side by side)."""
    u = sympy.Symbol("u", real=True)
    scaled = sympy.Symbol("t0", positive=True)                    # e * 2^100
    two100 = sympy.Symbol("0x1p100F", positive=True)              # (printed as it is named: 2^100 exactly)
    e = sympy.exp(-sympy.Abs(u))
    num, den = sympy.fraction(Sigmoid.stable_form(u))

    def scale(x):
        return sympy.expand(sympy.piecewise_fold(x * two100)).subs(e * two100, scaled)

    res = scale(num) / scale(den)
    assert not res.has(sympy.exp), res
    pr = KernelCPrinter({u: "u", scaled: "t0", two100: "0x1p100F"})
    return [f"const float t0 = opgen_expf_nonpos_2p100{tail}({pr.doprint(e.args[0])});",
            f"return {pr.doprint(res)};"]


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
        elif s.kind in ("dtype_same", "dtype_castable", "format_same", "shape_same", "broadcastable"):
            lines.append(f'OPGEN_TRY(opgen_check_{s.kind}("{ref}", {ref}, "{n}", {n}));')
        elif s.kind in ("max_rank", "min_rank"):
            lines.append(f'OPGEN_TRY(opgen_check_{s.kind}("{n}", {n}, {s.n}));')
        elif s.kind in ("dim_at_most", "dim_at_least"):
            lines.append(f'OPGEN_TRY(opgen_check_{s.kind}("{n}", {n}, {s.values[0]}, {s.n}));')
        elif s.kind == "format_not_private":
            lines.append(f'OPGEN_TRY(opgen_check_format_not_private("{n}", {n}));')
        elif s.kind == "broadcast_to" and s.n is not None:   # along the listed axes only
            axes = ", ".join(str(a) for a in s.values) or "0"
            lines += ["{",
                      f"    static const int64_t axes[] = {{{axes}}};",
                      f'    OPGEN_TRY(opgen_check_broadcast_on("{n}", {n}, "{ref}", {ref}, {s.n}, axes));',
                      "}"]
        elif s.kind in ("broadcast_to", "same_or_one", "dim_in_range"):
            lines.append(f'OPGEN_TRY(opgen_check_{s.kind}("{n}", {n}, "{ref}", {ref}));')
        elif s.kind in ("shape_is_broadcast", "broadcastable_with", "broadcasts_into"):
            names = ", ".join(f'"{o}"' for o in s.others)
            ptrs = ", ".join(s.others)
            lines += ["{",
                      f"    static const char *const names[] = {{{names}}};",
                      f"    const aclTensor *const operands[] = {{{ptrs}}};",
                      f'    OPGEN_TRY(opgen_check_{s.kind}("{n}", {n}, {len(s.others)}, names, operands));',
                      "}"]
        elif s.kind == "shape_halved_at":
            lines.append(f'OPGEN_TRY(opgen_check_shape_halved_at("{n}", {n}, "{ref}", {ref}, {s.n}));')
        elif s.kind == "dim_even":
            lines.append(f'OPGEN_TRY(opgen_check_dim_even("{n}", {n}, "{ref}", {ref}));')
        elif s.kind == "shape_halved":
            d = s.others[0]
            lines.append(f'OPGEN_TRY(opgen_check_shape_halved("{n}", {n}, "{ref}", {ref}, "{d}", {d}));')
        elif s.kind in ("class_target", "class_count"):
            lines.append(f'OPGEN_TRY(opgen_check_{s.kind}("{n}", {n}, "{ref}", {ref}));')
        elif s.kind == "per_channel":
            lines.append(f'OPGEN_TRY(opgen_check_per_channel("{n}", {n}, "{ref}", {ref}, {s.n}));')
        elif s.kind == "channel_grad":
            o = s.others[0]
            lines.append(f'OPGEN_TRY(opgen_check_channel_grad("{n}", {n}, "{ref}", {ref}, "{o}", {o}, {s.n}));')
        elif s.kind == "not_empty":
            lines.append(f'OPGEN_TRY(opgen_check_not_empty("{n}", {n}));')
        elif s.kind == "one_element":
            lines.append(f'OPGEN_TRY(opgen_check_one_element("{n}", {n}));')
        elif s.kind in ("per_row", "not_null_when", "present_with"):
            lines.append(f'OPGEN_TRY(opgen_check_{s.kind}("{n}", {n}, "{ref}", {ref}));')
        elif s.kind == "array_length":
            lines.append(f'OPGEN_TRY(opgen_check_array_length("{n}", {n}, "{ref}", {ref}, {s.n}));')
        elif s.kind == "array_in_range":
            args = []
            for b in (s.rule.bound("low"), s.rule.bound("high")):
                args += (["false", "0"] if b is None else ["true", str(b[1])] if b[0] == "int"
                         else ["true", f"opgen_array_bound({b[1]}, {b[2]})"])
            lines.append(f'OPGEN_TRY(opgen_check_array_in_range("{n}", {n}, {", ".join(args)}));')
        elif s.kind == "sample_shaped":
            lines.append(f'OPGEN_TRY(opgen_check_sample_shaped("{n}", {n}, "{ref}", {ref}, {none_test(op, s)}));')
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


def dtype_tables(op: Op) -> list[list[str]]:
    """The C lines of the dtype × product table of every tensor a DtypeSupported rule checks."""
    out = []
    names = [s.param for s in steps(op) if s.kind in ("dtype_supported", "promoted_supported")]
    for n in dict.fromkeys(names):
        socs = [(soc, [DTYPES[d].acl_name for d in dts]) for soc, dts in op.dtypes_of(n).items()]
        lines = [f"static const aclDataType DTYPES_{n}_{soc}[] = {{{', '.join(dts)}}};" for soc, dts in socs]
        lines.append(f"static const opgen_soc_dtypes DTYPES_{n}_socs[] = {{")
        lines += [f'    {{"{soc}", {len(dts)}, DTYPES_{n}_{soc}}},' for soc, dts in socs]
        lines += ["};", f"static const opgen_dtype_table DTYPES_{n} = {{{len(socs)}, DTYPES_{n}_socs}};"]
        out.append(lines)
    return out


def phase1_lines(op: Op, variants: list[dict]) -> list[str]:
    """The body of phase 1 after its own two null checks: the scalars' locals, the checks, then the variant
    that the arguments select (an internal error when none does, which the validator's coverage rules out)."""
    lines = [f"    double {value_var(p)} = 0.0;" for p in op.params if isinstance(p, Scalar)]
    lines += ["    " + line for line in check_lines(op)]
    lines += [f"    (void){p.name};   /* accepted, never read (the spec says it has no effect) */"
              for p in _ignored(op)]
    if op.per_output and op.split is not None:   # a split op with extra outputs: the halves, then one call each
        kvs = several.kernel_variants(op)
        first = op.outputs[0].name
        lines += [""] + _split_phase1(op, [v for v, (o, _, _) in zip(variants, kvs) if o.name == first],
                                      [kv for o, _, kv in kvs if o.name == first],
                                      extras=[(sub, [(v, kv) for v, (o, s, kv) in zip(variants, kvs) if s is sub])
                                              for sub in op.per_output[1:]])
    elif op.per_output:   # several outputs: one call each (several.py)
        lines += [""] + several.phase1_lines(op, variants, several.kernel_variants(op), _Fill)
    elif op.split is not None:
        lines += [""] + _split_phase1(op, variants, lower(op).variants)
    else:
        lines += ["", "    opgen_call call;", "    memset(&call, 0, sizeof call);"]
        for v in variants:
            lines += v["phase1"]
    if variants[0]["dispatch"] and (not op.per_output or op.split is not None):
        lines.append('    return opgen_fail(ACLNN_ERR_INNER, NULL, "%s: no kernel variant for these arguments", OP);')
    return lines


def _ignored(op: Op) -> list:
    """The attributes with a symbol that no formula reads and no variant is chosen by (CrossEntropyLossGrad's
    lseSquareScaleForZloss): phase 1 reads nothing of them."""
    read = set().union(*(sympy.sympify(f.expr).free_symbols for f in op.formulas))
    split = (op.split.dim_attr, op.split.interleaved, op.split.rows) if op.split is not None else ()
    return [p for p in op.params if isinstance(p, Attr) and p.symbol is not None and p.symbol not in read
            and p.name not in op.variant_keys() and not any(p.name in r.params for r in op.rules)
            and p.name not in split]   # (the split's own attributes: ClippedSwigluGrad's interleaved)


class _Fill:
    """What several.py reads of a variant's constants (their fields, phase 1's assignments)."""
    fields = staticmethod(_fields)
    lines = staticmethod(_fill)


def context(op: Op) -> dict:
    """Everything `src/aclnn_op.c.jinja` substitutes, but the names of files."""
    if op.per_output:   # several outputs: each output's kernels, named after it (several.py)
        kvs = several.kernel_variants(op)
        variants = [variant_context(sub, kv) for _, sub, kv in kvs]
        all_kvs = [kv for _, _, kv in kvs]
    else:
        k = lower(op.grid or op)   # a class-index op's kernels are its grid op's (codegen.spec.classes)
        variants = [variant_context(op, kv) for kv in k.variants]
        all_kvs = k.variants
    uses_sigmoid = any(e.has(Sigmoid) for kv in all_kvs
                       for e in [kv.result] + [x for _, x in kv.body + kv.reductions])
    template = "src/kernel_rows.c.jinja" if op.reduce_dim is not None else "src/kernel_block.c.jinja"
    return {
        "op": op,
        "output": ", ".join(o.name for o in op.outputs),
        "documented": [(f"{f.output or op.outputs[0].name}: " if op.per_output else "")
                       + (f"when {_key_text(f.when)}: " if f.when else "")
                       + (f"the half {f.wrt}: " if f.wrt is not None else "") + condition_code(f.expr, op)
                       for f in op.formulas],
        "tables": dtype_tables(op),
        "sigmoid": sigmoid_helper() if uses_sigmoid else [],
        "sigmoid_half": [sigmoid_helper(HALF_TAIL)] if any(v["half_tuned"] for v in variants) else [],
        "wide_helpers": (wide.helpers(op, k) + (EXP_IN_RANGE + [""] if any(v["exp_scan"] for v in variants) else [])
                         if not op.per_output else
                         # (a split op's first output: its halves' helpers; the extra outputs' are plain)
                         wide.helpers(op.per_output[0], lower(op.per_output[0])) if op.split is not None else []),
        "variants": variants,
        "kernel_template": template,
        "phase1": phase1_lines(op, variants),
    }
