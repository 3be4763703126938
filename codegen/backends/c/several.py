"""An op with several outputs (codegen.spec.outputs) in the C backend: one call per output in one executor.

Each output's kernels are those of its own single-output op (`Op.per_output`), printed as any op's with the
output's name in their suffix (`block__grad_input`).  Phase 1 runs the op's checks once, then fills one
`opgen_call` per output: its kernel's constants, its operands (a `PerChannel` tensor as a [1, C, 1, ...] view laid
along its channel axis, `opgen_channel_view`) and its output (an `Output(sum_to=...)` as the same view of the
output, the call summing the kernel's result on the broadcast shape back to it).  `opgen_phase1_calls` orders the
calls so that no output is written before another call has read an input it overlaps.
"""
from __future__ import annotations

import dataclasses
import re

from codegen.lower import lower
from codegen.spec import Op
from codegen.spec import rules as R

from .printer import KernelCPrinter


def channel_rules(op: Op) -> list:
    return [r for r in op.rules if isinstance(r, R.PerChannel)]


def kernel_variants(op: Op) -> list:
    """[(output, its op, its KernelVariant renamed after the output)] of every output, in parameter order."""
    out = []
    for sub in op.per_output:
        o = sub.output
        for kv in lower(sub).variants:
            out.append((o, sub, dataclasses.replace(kv, suffix=o.py_name + ("__" + kv.suffix if kv.suffix else ""))))
    return out


def _views(op: Op) -> tuple[list[str], dict]:
    """Phase 1's lines making the per-channel views, and {parameter: the C expression the calls use for it}."""
    lines, use = [], {}
    summed = {o.sum_to: o.name for o in op.outputs if o.sum_to}
    for r in channel_rules(op):
        t, ref = r.params
        for name in [t] + ([summed[t]] if t in summed else []):
            lines += [f"aclTensor {name}_channels;   /* {name} laid along dimension {r.dim} of {ref} */",
                      f"if (!opgen_channel_view({name}, {ref}, {r.dim}, &{name}_channels))",
                      f'    return opgen_fail(ACLNN_ERR_INNER, "{name}", "%s: {name}\'s elements are not equally "',
                      '                      "spaced in memory (a per-channel tensor of that layout is not supported)", '
                      'OP);']
            use[name] = f"&{name}_channels"
    return lines, use


def variant_call(kv, v: dict, fill, index: str, prm: str, out: str, arg) -> list[str]:
    """One kernel variant's lines filling calls[index]: its constants in the struct `prm`, its inputs (`arg` maps a
    parameter to the C expression the call reads), its kernels for output `out`, its params; under its dispatch
    condition by the caller (`dispatched`)."""
    from .opsource import call_kernels   # (opsource imports this module)
    ppr = KernelCPrinter({sym: f"{prm}.{f}" for _, f, sym in fill.fields(kv)})
    body = [f"memset(&{prm}, 0, sizeof {prm});"]
    body += [re.sub(r"^prm\.", f"{prm}.", line) for line in fill.lines(kv, ppr)]
    body += [f"opgen_call_input(&calls[{index}], {arg(t.name)});" for t in kv.tensors]
    body += call_kernels(kv, v, f"calls[{index}]", out)
    return body + [f"params[{index}] = &{prm};", f"sizes[{index}] = sizeof {prm};"]


def dispatched(v: dict, body: list[str], first: bool) -> list[str]:
    """`body` under the variant's dispatch condition (an `if`, or an `else if` after the first), or as it is."""
    if not v["dispatch"]:
        return body
    return [f"{'if' if first else 'else if'} ({v['dispatch']}) {{", *["    " + b for b in body], "}"]


def phase1_lines(op: Op, variants: list[dict], kvs: list, fill) -> list[str]:
    """Phase 1 after the checks: the views, each output's call (its variant chosen by the arguments), the end."""
    views, use = _views(op)
    arg = lambda name: use.get(name, name)
    outs = op.outputs
    lines = views + [f"opgen_call calls[{len(outs)}];", "memset(calls, 0, sizeof calls);",
                     f"const void *params[{len(outs)}];", f"size_t sizes[{len(outs)}];"]
    for v, (_, _, kv) in zip(variants, kvs):
        lines += [f"Params{v['suffix']} prm{v['suffix']};"]
    for k, o in enumerate(outs):
        group = [(v, sub, kv) for v, (out, sub, kv) in zip(variants, kvs) if out.name == o.name]
        lines.append(f"/* {o.name}" + (f": on the broadcast shape, summed back to {o.sum_to}'s */" if o.sum_to
                                         else " */"))
        if o.sum_to:
            every = ", ".join(arg(t.name) for t in op.tensors)
            lines += ["{", f"    const aclTensor *const every[] = {{{every}}};",
                      f"    opgen_call_broadcast(&calls[{k}], {len(op.tensors)}, every);", "}"]
        for i, (v, sub, kv) in enumerate(group):
            lines += dispatched(v, variant_call(kv, v, fill, str(k), f"prm{v['suffix']}", o.name, arg), i == 0)
        if group[0][0]["dispatch"]:
            lines += ["else",
                      f'    return opgen_fail(ACLNN_ERR_INNER, NULL, "%s: no kernel variant of {o.name} for these '
                      f'arguments", OP);']
        lines.append(f"opgen_call_output(&calls[{k}], {arg(o.name)});")
        if o.sum_to:   # where nothing is summed, the kernel writes the output directly
            lines.append(f"calls[{k}].sum_to = opgen_broadcast_differs(&calls[{k}], {arg(o.name)});")
    lines.append(f"return opgen_phase1_calls(OP, {len(outs)}, calls, params, sizes, workspaceSize, executor);")
    return ["    " + line for line in lines]
