"""The NumPy backend: one readable reference module per op, checker and kernel, from the spec."""
from __future__ import annotations

import keyword
from pathlib import Path

import sympy

from codegen.backends import literals
from codegen.checkplan import steps
from codegen.lower import (Kernel, KernelVariant, lower, prelude_in_double, reads_outside_extended, wide_constants,
                           wide_grid_sums, wide_reductions)
from codegen.rewrite import Sigmoid
from codegen.scaled import rare_path
from codegen.spec import ABSENT, Op
from codegen.spec.functions import BROADCAST, ROW_AXIS, count_parts
from codegen.runtime.calls import out_dtype_free
from codegen.spec import rules as R
from codegen.spec.params import Attr, IntArray, Output, Scalar, Tensor
from codegen.template_util import preamble, render
from codegen.text import condition_code

from . import functions as F
from . import outputs as O
from .printer import KernelNumPyPrinter

TEMPLATES = Path(__file__).parent / "templates"


def var(op: Op, name: str) -> str:
    """The Python variable holding parameter `name` (an op's only output is always `out`; each of several outputs
    is its own name)."""
    p = op.param(name)
    return "out" if isinstance(p, Output) and len(op.outputs) == 1 else p.py_name


def check_lines(op: Op, used: set | None = None) -> list[str]:
    """The body of `check()`: one runtime call per check step (codegen.checkplan), in the order they run.  The
    module helpers the printed conditions call are added to `used`."""
    v = lambda n: var(op, n)
    # (scalar conditions: `not x` for a bool attribute, where the elementwise `~True` is -2, true)
    pr = ScalarPrinter({p.symbol: p.py_name for p in op.params if p.symbol is not None})
    lines = []
    for s in steps(op):
        lines += _step_lines(op, s, v, pr)
    if used is not None:
        used |= pr.used
    return lines


def _step_lines(op, s, v, pr):
    n, ref = s.param, s.ref
    if s.kind == "not_null":
        return [f'_chk.not_null("{n}", {v(n)})']
    if s.kind == "convert":
        p = op.param(n)
        if isinstance(p, IntArray):
            return [f'{p.py_name} = _chk.int_array("{n}", {p.py_name})'
                    + (f" if {p.py_name} is not None else None" if p.optional else "")]
        if isinstance(p, Scalar) and p.optional:
            return [f'{p.py_name} = _chk.optional_scalar_value("{n}", {p.py_name}, {float(p.default)!r})']
        if isinstance(p, Scalar):
            return [f'{p.py_name} = _chk.scalar_value("{n}", {p.py_name})']
        fn = {"bool": "bool_attr", "int64": "int_attr", "double": "double_attr", "float": "float_attr",
              "string": "string_attr"}[p.type]
        return [f'{p.py_name} = _chk.{fn}("{n}", {p.py_name})']
    if s.kind == "dtype_supported":
        return [f'_chk.dtype_supported(OP, "{n}", {v(n)}, product, DTYPES["{n}"])']
    if s.kind == "promoted_supported":
        named = ", ".join(f'"{o}", {v(o)}' for o in s.others)
        return [f'_chk.promoted_supported(OP, "{n}", product, DTYPES["{n}"], {named})']
    if s.kind in ("promoted_castable", "promoted_same"):
        named = ", ".join(f'"{o}", {v(o)}' for o in s.others)
        return [f'_chk.{s.kind}("{n}", {v(n)}, {named})']
    if s.kind in ("dtype_same", "dtype_castable", "format_same", "shape_same", "broadcastable"):
        return [f'_chk.{s.kind}("{ref}", {v(ref)}, "{n}", {v(n)})']
    if s.kind in ("max_rank", "min_rank"):
        return [f'_chk.{s.kind}("{n}", {v(n)}, {s.n})']
    if s.kind in ("dim_at_most", "dim_at_least"):
        return [f'_chk.{s.kind}("{n}", {v(n)}, {s.values[0]}, {s.n})']
    if s.kind == "format_not_private":
        return [f'_chk.format_not_private("{n}", {v(n)})']
    if s.kind == "broadcast_to" and s.n is not None:   # along the listed axes only
        return [f'_chk.broadcast_to("{n}", {v(n)}, "{ref}", {v(ref)}, {s.values!r})']
    if s.kind in ("broadcast_to", "same_or_one", "dim_in_range"):
        return [f'_chk.{s.kind}("{n}", {v(n)}, "{ref}", {v(ref)})']
    if s.kind in ("shape_is_broadcast", "broadcastable_with", "broadcasts_into"):
        others = ", ".join(f'"{o}", {v(o)}' for o in s.others)
        return [f'_chk.{s.kind}("{n}", {v(n)}, {others})']
    if s.kind == "shape_halved_at":
        return [f'_chk.shape_halved_at("{n}", {v(n)}, "{ref}", {v(ref)}, {s.n})']
    if s.kind == "dim_even":
        return [f'_chk.dim_even("{n}", {v(n)}, "{ref}", {v(ref)})']
    if s.kind == "shape_halved":
        d = s.others[0]
        return [f'_chk.shape_halved("{n}", {v(n)}, "{ref}", {v(ref)}, "{d}", {v(d)})']
    if s.kind in ("class_target", "class_count"):
        return [f'_chk.{s.kind}("{n}", {v(n)}, "{ref}", {v(ref)})']
    if s.kind == "per_channel":
        return [f'_chk.per_channel("{n}", {v(n)}, "{ref}", {v(ref)}, {s.n})']
    if s.kind == "channel_grad":
        o = s.others[0]
        return [f'_chk.channel_grad("{n}", {v(n)}, "{ref}", {v(ref)}, "{o}", {v(o)}, {s.n})']
    if s.kind == "not_empty":
        return [f'_chk.not_empty("{n}", {v(n)})']
    if s.kind == "one_element":
        return [f'_chk.one_element("{n}", {v(n)})']
    if s.kind in ("per_row", "not_null_when", "present_with"):
        return [f'_chk.{s.kind}("{n}", {v(n)}, "{ref}", {v(ref)})']
    if s.kind == "sample_shaped":
        red = s.others[0]
        return [f'_chk.sample_shaped("{n}", {v(n)}, "{ref}", {v(ref)}, {v(red)} in {none_values(op, red)!r})']
    if s.kind == "array_length":
        return [f'_chk.array_length("{n}", {v(n)}, "{ref}", {v(ref)}, {s.n})']
    if s.kind == "array_in_range":
        b = [s.rule.bound(w) for w in ("low", "high")]
        lo, hi = (("None" if x is None else str(x[1]) if x[0] == "int" else f"_chk.array_bound({v(x[1])}, {x[2]})")
                  for x in b)
        return [f'_chk.array_in_range("{n}", {v(n)}, {lo}, {hi})']
    if s.kind == "one_of":
        return [f'_chk.one_of("{n}", {v(n)}, {s.values!r})']
    if s.kind == "kernel_dtypes":
        named = ", ".join(f'"{o}", {v(o)}' for o in s.others)
        extra = ", complex_ok=True" if "COMPLEX" in op.computes else ""
        return [f"_chk.kernel_dtypes(OP, {named}{extra})"]
    if s.kind == "empty_returns":
        named = ", ".join(f'"{o}", {v(o)}' for o in s.others)
        return [f"if _chk.any_empty({named}):",
                "    return None  # an empty tensor: success, and the checks after this one do not run"]
    if s.kind == "requires":
        r = s.rule
        call = (f'_chk.requires("{n}", bool({pr.doprint(r.condition)}), '
                f'"{condition_code(r.condition, op)}", {v(n)})')
        if r.when == sympy.true:
            return [call]
        return [f"if {pr.doprint(r.when)}:", "    " + call]
    raise TypeError(f"no NumPy check for step {s.kind}")


def none_values(op: Op, attr: str) -> tuple:
    """The values of a loss reduction attribute that mean none (SampleShaped's check)."""
    return tuple(k for k, m in op.param(attr).values.items() if m == "none")


def count_local(op: Op, name: str) -> str:
    """The kernel's local holding count `name` (a tensor's numel, BROADCAST's, a dim_size): numel_<py_name>..."""
    tensor, axis = count_parts(name)
    base = op.param(tensor).py_name if tensor != BROADCAST else tensor
    return f"numel_{base}" + (f"_dim{axis}" if axis is not None else "")


def count_arg(op: Op, name: str) -> str:
    """How the op function reads count `name` from the call: `a.size`, or from the broadcast shape `bshape`."""
    tensor, axis = count_parts(name)
    if tensor != BROADCAST and axis is None:
        return f"{var(op, tensor)}.size"
    shape = "bshape" if tensor == BROADCAST else f"{var(op, tensor)}.shape"
    dim = f", {_dim_arg(op)}" if axis == ROW_AXIS else ""   # a row's length: along the call's dim
    return f'_calls.count("{name}", {{"{tensor}": {shape}}}{dim})'


def _dim_arg(op: Op) -> str:
    """The op function's value of the row reduction's dim: the dim attribute, or the fixed axis as a literal."""
    return op.dim_attr.py_name if op.dim_attr else str(op.reduce_dim)


def needs_bshape(op: Op, k: Kernel) -> bool:
    """Whether the op function computes the broadcast shape of its inputs (a sum_to output, or a count of it)."""
    return op.output.sum_to is not None or any(count_parts(n)[0] == BROADCAST for kv in k.variants for n in kv.numels)


def output_shape_expr(op: Op) -> str:
    """How the kernel sizes an output it allocates, read off the shape rules."""
    out = op.output.name
    for r in op.rules:
        if isinstance(r, R.ShapeSame) and out in r.params:
            ref = next(n for n in r.params if n != out)
            return f"{var(op, ref)}.shape"
        if isinstance(r, R.ShapeIsBroadcast) and r.params[0] == out:
            return "np.broadcast_shapes(" + ", ".join(f"{var(op, n)}.shape" for n in r.params[1:]) + ")"
    raise ValueError(f"{op.name}: no ShapeSame or ShapeIsBroadcast rule fixes the shape of {out}")


class ScalarPrinter(KernelNumPyPrinter):
    """Prints prelude expressions: plain Python/NumPy scalars, so Piecewise is a conditional expression."""

    def _print_Piecewise(self, expr):
        args = list(expr.args)
        out = self._print(args[-1][0])
        for e, c in reversed(args[:-1]):
            out = f"({self._print(e)} if {self._print(c)} else {out})"
        return out

    def _print_fma(self, expr):
        """a*b + c in Python floats (doubles): exact for FLOAT a, b, c when it is a product's rounding error
        fma(a, b, -fl(a*b)), the only fma codegen.lower emits (the 48-bit product and the difference are exact)."""
        a, b, c = (self._print(x) for x in expr.args)
        return f"(float({a})*float({b}) + float({c}))"

    def _print_And(self, expr):
        return "(" + " and ".join(self._print(a) for a in expr.args) + ")"

    def _print_Or(self, expr):
        return "(" + " or ".join(self._print(a) for a in expr.args) + ")"

    def _print_Not(self, expr):
        return f"(not {self._print(expr.args[0])})"


class DoublePrinter(KernelNumPyPrinter):
    """The same kernel in DOUBLE, for the dtypes a spec computes in DOUBLE (`Op.compute`): constants as the
    nearest double, NumPy's float64 functions (erf and erfc: codegen.runtime.mathf's float64 ones), a float64
    sigmoid, and np.where (the module's `_where` is a FLOAT bit select)."""

    def literal(self, value) -> str:
        return literals.python_double(value)

    def _print_exp(self, expr):
        return self._call("np.exp", expr.args[0])

    def _mathf(self, expr):
        name = type(expr).__name__
        if name in ("erf", "erfc"):
            self.used.add("_mathf")
            return self._call(f"_mathf.{name}64", expr.args[0])
        return self._call(f"np.{name}", expr.args[0])

    _print_expm1 = _print_log = _print_log1p = _print_tanh = _print_erf = _print_erfc = _mathf
    _print_cosh = _print_sinh = _print_sin = _print_cos = _mathf

    def _print_Sigmoid(self, expr):
        self.used.add("_sigmoid64")
        return self._call("_sigmoid64", expr.args[0])

    def _print_Pow(self, expr, rational=False):
        e = expr.exp
        if e.is_Integer or e in (sympy.S.Half, -sympy.S.Half):
            return super()._print_Pow(expr, rational=rational)
        return f"np.power({self._print(expr.base)}, {literals.python_double(e)})"

    def _print_Piecewise(self, expr):
        args = list(expr.args)
        out = self._print(args[-1][0])
        for e, c in reversed(args[:-1]):
            out = f"np.where({self._print(c)}, {self._print(e)}, {out})"
        return out

    def _print_Extended(self, expr):
        return self._print(expr.args[0])   # already in double

    def _print_ExactArgument(self, expr):
        return self._print(expr.args[0])

    def _precedence_Extended(self, expr):
        return self.precedence_of(expr.args[0])


class ComplexPrinter(DoublePrinter):
    """The complex kernel (an op's `compute` COMPLEX): NumPy complex128, the conjugates of codegen.lower.conjugated."""

    def _print_Conj(self, expr):
        return f"np.conj({self._print(expr.args[0])})"


def variant_context(op: Op, k: Kernel, kv: KernelVariant) -> dict:
    names = dict(k.names)
    names.update({sympy.Symbol(f"numel_{n}", integer=True, positive=True): count_local(op, n) for n in kv.numels})
    pr = KernelNumPyPrinter(names, last=kv.last)
    spr = ScalarPrinter(names)
    for s, _ in kv.prelude + kv.reductions + kv.body + kv.grid_sums:
        names[s] = str(s)
    # a sum over the whole grid reads the whole views, each converted to FLOAT as the block loop's loads are
    gpr = KernelNumPyPrinter({**names, **{t.symbol: f"_f32({t.py_name})" for t in kv.tensors}}, last=kv.last)
    wide, wide_sums = _wide(op, kv)
    pr.wide_names = {**{sym: name for name, sym, _ in wide},
                     **{s: f"{s}_f64" for s in wide_reductions(kv) + wide_grid_sums(kv)}}
    context = {
        "suffix": ("__" + kv.suffix) if kv.suffix else "",
        "key": kv.key,
        "tensors": [t.py_name for t in kv.tensors],
        "scalars": [p.py_name for p in kv.scalars],
        "float_scalars": [p.py_name for p in kv.scalars if isinstance(p, Scalar) or p.is_real],
        "numels": [count_local(op, n) for n in kv.numels],
        "prelude": [(str(s), spr.doprint(e)) for s, e in kv.prelude],
        "reductions": [(str(s), pr.doprint(e)) for s, e in kv.reductions],
        "wide": [(name, code) for name, _, code in wide],
        # the row sums a sum computed in double reads, summed in double: {name: also read as FLOAT}
        "wide_sums": wide_sums,
        "grid_sums": [(str(s), gpr.doprint(e)) for s, e in kv.grid_sums],
        # the grid sums a sum computed in double reads, summed in double: {name: also read as FLOAT}
        "wide_grid": {str(s): s in reads_outside_extended([e for _, e in kv.body] + [kv.result])
                      for s in wide_grid_sums(kv)},
        "body": [(str(s), pr.doprint(e)) for s, e in kv.body],
        "result": pr.doprint(kv.result),
        "dispatch": _dispatch_condition(op, kv),
        "call": _call(op, kv),
        "promoted": ", ".join(t.py_name for t in kv.tensors),
    }
    used = pr.used | spr.used | gpr.used   # the helpers the printed code calls (printed first)
    context["row_wide"] = _row_wide_context(kv, names, wide_sums, used) if kv.reductions else None
    context["scaled_rare"] = None if kv.reductions else _scaled_rare_context(kv, pr)
    context["double"] = _double_context(op, kv, names, used) if "DOUBLE" in op.computes else None
    context["complex"] = _complex_context(op, kv, names, used) if "COMPLEX" in op.computes else None
    context["used"] = used
    return context


def _scaled_rare_context(kv: KernelVariant, pr) -> dict | None:
    """An elementwise kernel whose products L*g are scaled where L leaves FLOAT (codegen.scaled.rare_path): the
    plain products and the test `beyond` first, then, where a block has an L beyond FLOAT, the temporaries only the
    scaled form reads and the kernel's own result (functions.compute_function).  The usual block pays np.abs, the
    comparison and np.any where the scaled form took about eight passes: MseLossBackward 1.9-2.9x as fast (perf25,
    one process, side by side)."""
    split = rare_path(kv.body, kv.result)
    if split is None:
        return None
    body, result, beyond, rest = split
    tests = [pr.doprint(c) for c in beyond]
    return {"body": [(str(s), pr.doprint(e)) for s, e in body], "result": pr.doprint(result),
            "beyond": tests[0] if len(tests) == 1 else "(" + " | ".join(tests) + ")",
            "rest": [(str(s), pr.doprint(e)) for s, e in rest]}


def _wide(op: Op, kv: KernelVariant) -> tuple[list, dict]:
    """What the sums computed in double (Extended) read unrounded (as the C backend's double fields and acc[j]):
    [(local, symbol, its float64 code)] of the real constants (codegen.lower.wide_constants), computed from the
    call's unrounded scalars before they are rounded to FLOAT, and {row sum's name: whether the kernel reads it as
    FLOAT too} of the row sums, summed in double (np.sum of FLOAT summands rounds every partial sum to FLOAT)."""
    names = {p.symbol: f"np.float64({p.py_name})" for p in kv.scalars}
    names.update({sympy.Symbol(f"numel_{n}", integer=True, positive=True): f"np.float64({count_local(op, n)})"
                  for n in kv.numels})
    prelude = prelude_in_double(kv)
    dpr = DoublePrinter(names)
    wide = [(f"{name}_f64", sym, dpr.doprint(prelude.get(sym, sym))) for name, sym in wide_constants(kv)]
    outside = reads_outside_extended([e for _, e in kv.body + kv.reductions] + [kv.result])
    return wide, {str(s): s in outside for s in wide_reductions(kv)}


def _row_wide_context(kv: KernelVariant, names: dict, wide_sums: dict, used: set) -> dict:
    """The lines that compute again, in float64, the rows whose FLOAT sums leave FLOAT's range (the C runtime's
    wide_row, opgen_loops.c): Σ dy·γ·x of RMSNorm's backward with dy near 3.4e38 is ±inf in FLOAT, a summand or the
    sum, where the result after the rest of the formula is finite.  `left`: the rows whose FLOAT sum is not finite;
    their sums again from float64 summands and, where those are finite, their results in float64 from them, rounded
    once (an `np.where` over the block: the FLOAT results elsewhere, bit for bit).  Locals `<tensor>_w`, `<sum>_w`."""
    wide_names = dict(names)
    wide_names.update({t.symbol: f"{t.py_name}_w" for t in kv.tensors})
    wide_names.update({s: f"{s}_w" for s, _ in kv.reductions + kv.body})
    # a grid sum a double sum reads is summed in double before the blocks, under its `_f64` name only where the
    # kernel does not read it as FLOAT too (functions._grid_sums): the float64 lines read that one
    wide_names.update({s: f"{s}_f64" for s in wide_grid_sums(kv)})
    pr = DoublePrinter(wide_names, last=kv.last)
    rounded = [str(s) if wide_sums.get(str(s), True) else f"{s}_f64.astype(np.float32)" for s, _ in kv.reductions]
    context = {
        "left": " | ".join(f"~np.isfinite({r})" for r in rounded),
        "tensors": [t.py_name for t in kv.tensors],
        "reductions": [(f"{s}_w", pr.doprint(e)) for s, e in kv.reductions],
        "body": [(f"{s}_w", pr.doprint(e)) for s, e in kv.body],
        "result": pr.doprint(kv.result),
    }
    used |= pr.used
    return context


def _complex_context(op: Op, kv: KernelVariant, names: dict, used: set) -> dict:
    """The complex kernel's lines: the lowered expressions with every tensor but gradOutput conjugated."""
    from codegen.lower import conjugated
    body, result = conjugated(op, kv)
    pr = ComplexPrinter(names, last=kv.last)
    spr = ScalarPrinter(names)
    context = {
        "prelude": [(str(s), spr.doprint(e)) for s, e in kv.prelude],
        "body": [(str(s), pr.doprint(e)) for s, e in body],
        "result": pr.doprint(result),
        "call": _call(op, kv).replace("_compute", "_computeC", 1),
    }
    used |= pr.used | spr.used
    return context


def _double_context(op: Op, kv: KernelVariant, names: dict, used: set) -> dict:
    """The DOUBLE kernel's lines (codegen.spec: `Op.compute`): the same lowered expressions, printed for float64."""
    if op.reduce_dim is not None or op.loss_reduction:
        raise ValueError(f"{op.name}: DOUBLE compute is implemented for elementwise operators only")
    pr = DoublePrinter(names, last=kv.last)
    spr = ScalarPrinter(names)
    context = {
        "prelude": [(str(s), spr.doprint(e)) for s, e in kv.prelude],
        "body": [(str(s), pr.doprint(e)) for s, e in kv.body],
        "result": pr.doprint(kv.result),
        "call": _call(op, kv).replace("_compute", "_compute64", 1),
    }
    used |= pr.used | spr.used
    return context


def _call(op: Op, kv: KernelVariant) -> str:
    # element counts are taken where every tensor is in scope: the formula need not read the tensor it counts
    args = [t.py_name for t in kv.tensors] + [p.py_name for p in kv.scalars] \
        + [count_arg(op, n) for n in kv.numels]
    if op.reduce_dim is not None:
        args += ["view", _dim_arg(op)]
    else:   # a sum_to output: the kernel writes the gradient on the broadcast shape, summed into out after; a
        # split op's half kernel writes its half of out
        args += ["full" if op.output.sum_to else (f"out_{kv.variant.half}" if kv.variant.half else "out")]
    return f"_compute{'__' + kv.suffix if kv.suffix else ''}({', '.join(args)})"


def split_context(op: Op, variants: list[dict]) -> dict | None:
    """A split op's call (codegen.spec.split): the halves of the input and of the output along dim, and each
    dispatch condition's kernels, one per half."""
    if op.split is None:
        return None
    groups: dict = {}
    for v in variants:
        groups.setdefault(v["dispatch"], []).append(v)
    halves = [str(s) for s in op.wrt]
    return {
        "tensor": op.param(op.split.tensor).py_name,
        "dim": op.param(op.split.dim).py_name if op.split.dim_attr else str(op.split.dim),
        "inputs": ", ".join(t.py_name for t in op.tensors),
        "halves": ", ".join(op.halves[0].param(h).py_name for h in halves),
        "out_halves": ", ".join(f"out_{h}" for h in halves),
        "groups": list(groups.items()),
        "rows": _rows_context(op),
    }


def _rows_context(op: Op) -> dict | None:
    """A split op read as rows (interleaved= or rows=, codegen.runtime.rows): the attribute choosing the even and
    odd elements, the row count tensor, and the tensors of the halved shape read as rows too."""
    split = op.split
    if not split.merged:
        return None
    from codegen.spec.split import per_row_tensors
    skip = {split.tensor, split.rows} | set(per_row_tensors(op))
    return {"interleaved": op.param(split.interleaved).py_name if split.interleaved else None,
            "counts": op.param(split.rows).py_name if split.rows else None,
            "uint32": split.rows_sum == "uint32",
            "others": [t.py_name for t in op.tensors if t.name not in skip],
            "per_row": [op.param(n).py_name for n in per_row_tensors(op)]}


def _rank0_line(op: Op, k: Kernel) -> str:
    names = sorted({t.py_name for kv in k.variants for t in kv.tensors},
                   key=lambda n: [p.py_name for p in (op.grid or op).params].index(n))
    return ", ".join(names + ["view"]) + " = " + ", ".join(f"{n}.reshape(1)" for n in names + ["out"])


def _dispatch_condition(op: Op, kv: KernelVariant) -> str:
    parts = []
    for name, value in kv.key.items():
        p = op.param(name)
        if isinstance(p, Attr) and p.type in ("string", "int64"):
            parts.append(f"{p.py_name} == {value!r}")
        elif isinstance(p, Attr):
            parts.append(p.py_name if value else f"not {p.py_name}")
        else:
            parts.append(f"{p.py_name} is None" if value == ABSENT else f"{p.py_name} is not None")
    return " and ".join(parts) or "True"


def when_text(when: dict) -> str:
    """'when isResult=true: ' for a formula's condition ('' for an unconditional one)."""
    if not when:
        return ""
    return "when " + ", ".join(f"{k}={str(v).lower()}" for k, v in when.items()) + ": "


def sigmoid_helper(pr: KernelNumPyPrinter) -> list[tuple[str, str]]:
    """`_sigmoid`'s body, printed from Sigmoid.stable_form (the helpers it calls are added to `pr.used`)."""
    u = sympy.Symbol("u", real=True)
    temps, (res,) = sympy.cse([Sigmoid.stable_form(u)], symbols=sympy.numbered_symbols("t"), order="canonical")
    return [(str(s), pr.doprint(e)) for s, e in temps] + [("return", pr.doprint(res))]


def classes_context(op: Op) -> dict | None:
    """A class-index op's views (codegen.spec.classes): its tensors laid on the grid, the class coordinate."""
    if op.classes is None:
        return None
    from codegen.spec.classes import kind_of
    from codegen.spec.params import UNUSED
    # (a tensor accepted and never read, CrossEntropyLossGrad's zloss ones, is not viewed: no shape rule binds it)
    moved = [t for t in op.tensors if kind_of(op, t.name) != "grid" and t.role != UNUSED]
    return {"tensor": op.param(op.classes.tensor).py_name,
            "names": ", ".join([t.py_name for t in moved] + [op.grid.tensors[-1].py_name]),
            "kinds": "[" + ", ".join(f'("{kind_of(op, t.name)}", {t.py_name})' for t in moved) + "]"}


def several_variants(op: Op) -> dict:
    """{output name: its variant contexts}: each output's kernels are its own op's (codegen.spec.outputs), named
    after the output and writing into it (or, for an output summed back, into the broadcast shape)."""
    out = {}
    for sub in op.per_output:
        o = sub.output
        k = lower(sub)
        target = f"full_{o.py_name}" if o.sum_to else o.py_name
        # (a split op's first output: each half's kernel writes its half, out_a or out_b)
        out[o.name] = [O.rename(variant_context(sub, k, kv), o,
                                f"out_{kv.variant.half}" if sub.split is not None else target,
                                [t.py_name for t in kv.tensors] + [p.py_name for p in kv.scalars]
                                + [count_arg(sub, n) for n in kv.numels]) for kv in k.variants]
    return out


def render_op(op: Op, source_label: str) -> str:
    helper_printer = KernelNumPyPrinter()
    helper = sigmoid_helper(helper_printer)
    if op.per_output:
        by_output = several_variants(op)
        variants = [v for group in by_output.values() for v in group]
    else:
        k = lower(op.grid or op)   # a class-index op's kernels are its grid op's (codegen.spec.classes)
        variants = [variant_context(op, k, kv) for kv in k.variants]
    used = set().union(*(v["used"] for v in variants))
    checks = check_lines(op, used)
    if "_sigmoid" in used:
        used |= helper_printer.used
    helper64_printer = DoublePrinter()
    helper64 = sigmoid_helper(helper64_printer)
    if "_sigmoid64" in used:
        used |= helper64_printer.used
    dtype_params = sorted({n for r in op.rules if isinstance(r, R.DtypeSupported) for n in r.params}
                          | {r.params[0] for r in op.rules if isinstance(r, R.PromotedSupported)},
                          key=lambda n: [p.name for p in op.params].index(n))
    inputs = [p for p in op.params if not isinstance(p, Output)]
    reduce_dim = (op.dim_attr.py_name if op.dim_attr else "dim") if op.reduce_dim is not None else None
    compute = {d: c for d, c in op.compute.items()} if set(op.computes) - {"FLOAT"} else None
    empty_returns = ", ".join(var(op, n) for n in dict.fromkeys(
        n for r in op.rules if isinstance(r, R.EmptyReturns) for n in r.params))
    if op.per_output:
        return _render_several(op, source_label, by_output, checks, used, helper, dtype_params, inputs, empty_returns)
    call = {
        "op_name": op.name, "snake_name": op.snake_name, "output_name": op.output.name,
        "input_names": [p.py_name for p in inputs],
        "default_product": op.default_product,
        "describable": describable_call(op, [(op.output.name, "out")]),
        "check_args": [p.py_name for p in inputs] + ["out"],
        "converted": [p.py_name for p in inputs if isinstance(p, (Scalar, Attr, IntArray))],
        "out_dtype_free": out_dtype_free(op),
        "default_dtype_from": ", ".join(op.param(n).py_name for n in op.output_dtype_sources),
        "output_shape": output_shape_expr(op),
        "empty_returns": empty_returns,
        "bshape": ", ".join(t.py_name for t in op.tensors) if needs_bshape(op, k) else None,
        "sum_to": op.output.sum_to,
        "reduce_dim": reduce_dim,
        "rank0_line": _rank0_line(op, k) if reduce_dim else "",
        "variants": variants,
        "split": split_context(op, variants),
        "classes": classes_context(op),
        "compute": compute,
        "sequence": (op.param(op.sequence.lengths).py_name, op.sequence.time, op.sequence.batch)
        if op.sequence else None,
    }
    definitions = F.constants(compute) + [
                   F.check_function(op.name, call["check_args"], checks, call["converted"], bool(empty_returns))]
    definitions += [F.EXP] if "_exp" in used else []
    definitions += [F.sigmoid_function("_sigmoid", SIGMOID_DOC, helper)] if "_sigmoid" in used else []
    definitions += [F.sigmoid_function("_sigmoid64", "The same in DOUBLE.", helper64)] if "_sigmoid64" in used else []
    definitions += [F.F32] + ([F.F64] if compute else [])
    for v in variants:
        definitions += F.variant_functions(v, reduce_dim)
    definitions.append(F.op_function(call))
    return render(
        TEMPLATES, "kernel.py.jinja",
        preamble=preamble("#", source_label, "kernel.py.jinja", "numpy"),
        op=op,
        documented_of=op.output.name,
        documented=[(when_text(f.when) + (f"the half {f.wrt}: " if f.wrt is not None else ""),
                     condition_code(f.expr, op)) for f in op.formulas],
        imports=F.imports(reduce_dim=bool(reduce_dim), where="_where" in used,
                          split=("rows" if op.split.merged else True) if op.split else False, mathf="_mathf" in used),
        dtypes=F.dtype_table({n: op.dtypes_of(n) for n in dtype_params}),
        definitions="\n\n\n".join(definitions),
    )


def describable_call(op, outs: list) -> str:
    """The call that refuses a tensor argument aclCreateTensor could not describe (codegen.runtime.checks.describable),
    keyed by aclnn names; `outs`: (aclnn name, variable) of the output when it is checked here, as in KernelCall."""
    pairs = [(t.name, t.py_name) for t in op.tensors] + outs
    # an aclnn name that is a Python keyword (a tensor named `lambda`) is passed as **{"lambda": lambd}
    return "_chk.describable(" + ", ".join(f"**{{{a!r}: {p}}}" if keyword.iskeyword(a) else f"{a}={p}"
                                           for a, p in pairs) + ")"


def _render_several(op, source_label, by_output, checks, used, helper, dtype_params, inputs, empty_returns):
    """The module of an op with several outputs (codegen.backends.numpy.outputs)."""
    v = lambda n: var(op, n)
    c = {
        "input_names": [p.py_name for p in inputs],
        "describable": describable_call(op, []),
        "converted": O.converted(op),
        "default_dtype_from": ", ".join(op.param(n).py_name for n in op.output_dtype_sources),
        "shapes": {o.name: O.output_shape_expr(op, o, v) for o in op.outputs},
        "empty_returns": empty_returns,
        "channels": [(v(r.params[0]), v(r.params[1]), r.dim) for r in O.channel_rules(op)],
        "bshape": ", ".join(t.py_name for t in op.tensors),
        "variants": by_output,
        "py": {t.name: t.py_name for t in op.tensors},
        # a split op's first output: its halves' calls (functions._split_calls), the other outputs per row
        "split": split_context(op.per_output[0], by_output[op.outputs[0].name]) if op.split else None,
        "dtype_from": {o.name: ", ".join(op.param(n).py_name for n in
                                         ((o.dtype_from,) if isinstance(o.dtype_from, str) else op.output_dtype_sources))
                       for o in op.outputs},
    }
    check_args = [p.py_name for p in inputs] + [o.py_name for o in op.outputs]
    definitions = [F.check_function(op.name, check_args, checks, c["converted"], bool(empty_returns))]
    definitions += [F.EXP] if "_exp" in used else []
    definitions += [F.sigmoid_function("_sigmoid", SIGMOID_DOC, helper)] if "_sigmoid" in used else []
    if "_sigmoid64" in used:   # (a kernel computing a term in float64: a split op's clamped SwiGLU)
        helper64_printer = DoublePrinter()
        definitions += [F.sigmoid_function("_sigmoid64", "The same in DOUBLE.", sigmoid_helper(helper64_printer))]
    definitions += [F.F32]
    for group in by_output.values():
        for variant in group:
            definitions += F.variant_functions(variant, None)
    definitions.append(O.op_function(op, c))
    return render(
        TEMPLATES, "kernel.py.jinja",
        preamble=preamble("#", source_label, "kernel.py.jinja", "numpy"),
        op=op,
        documented_of=", ".join(o.name for o in op.outputs),
        documented=[(f"{f.output or op.outputs[0].name}: " + when_text(f.when), condition_code(f.expr, op))
                    for f in op.formulas],
        imports=F.imports(reduce_dim=False, where="_where" in used,
                          split=("rows" if op.split.merged else True) if op.split else False, mathf="_mathf" in used),
        dtypes=F.dtype_table({n: op.dtypes_of(n) for n in dtype_params}),
        definitions="\n\n\n".join(definitions),
    )


SIGMOID_DOC = "1/(1 + exp(-u)) without overflow: exp(-|u|) <= 1, and both branches are finite for every u."


def generate(ops: dict, source_of) -> dict[str, str]:
    """{relative path: file text} of the NumPy backend for all ops."""
    files = {}
    for name, op in ops.items():
        files[f"numpy/{name}.py"] = render_op(op, source_of(op))
    files["numpy/__init__.py"] = render(TEMPLATES, "init.py.jinja",
                                        preamble=preamble("#", "specs/", "init.py.jinja", "numpy"),
                                        names=list(ops), all_names=", ".join(f'"{n}"' for n in ops))
    return files
