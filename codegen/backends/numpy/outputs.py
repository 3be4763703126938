"""An op with several outputs (codegen.spec.outputs) in the NumPy backend: one kernel per output, one function.

Each output is computed by the kernels of its own single-output op (`Op.per_output`: lowered, printed and laid out
as any op's, their names suffixed with the output's), so nothing about a kernel is special here.  What is: the
public function checks once with every output (the library's one phase 1), allocates each output that `out=`
does not give, reads a per-channel tensor laid along its channel axis (`PerChannel`), and returns the outputs as a
tuple in parameter order; an output summed back to an input's shape (`Output(sum_to=...)`) is computed on the
broadcast shape and summed after, as for a single output.
"""
from __future__ import annotations

from codegen.spec import Op
from codegen.spec import rules as R
from codegen.spec.params import Output, Scalar, Attr

from . import functions as F


def channel_rules(op: Op) -> list:
    return [r for r in op.rules if isinstance(r, R.PerChannel)]


def output_shape_expr(op: Op, out: Output, var) -> str:
    """How the function sizes output `out` it allocates, read off the shape rules (ChannelGrad included)."""
    for r in op.rules:
        if isinstance(r, R.ChannelGrad) and r.params[0] == out.name:
            w, ref = var(r.params[1]), var(r.params[2])
            return f"_chk.channel_grad_shape({w}, {ref}, {r.dim})"
        if isinstance(r, R.ShapeSame) and out.name in r.params:
            return f"{var(next(n for n in r.params if n != out.name))}.shape"
        if isinstance(r, R.ShapeIsBroadcast) and r.params[0] == out.name:
            return "np.broadcast_shapes(" + ", ".join(f"{var(n)}.shape" for n in r.params[1:]) + ")"
    raise ValueError(f"{op.name}: no ShapeSame, ShapeIsBroadcast or ChannelGrad rule fixes the shape of {out.name}")


def rename(v: dict, out: Output, target: str, call_args: list[str]) -> dict:
    """A variant context of output `out`'s op, its kernel named after the output and writing into `target`."""
    suffix = "__" + out.py_name + v["suffix"]
    return dict(v, suffix=suffix, call=f"_compute{suffix}({', '.join(call_args + [target])})")


def split_op_function(op: Op, c: dict) -> str:
    """The public function of a split op with extra outputs (codegen.spec.split): the first output by its halves
    (functions._split_calls), each extra output, the gradient of a per-row tensor, on gradOutput's shape with that
    tensor laid [..., 1] and summed along the row.  An extra output is allocated and computed only when every
    optional tensor it reads is given (else it is returned None); its sums are computed first, into a temporary
    (the halves' lines take the tensors' rows), and stored after the first output."""
    from codegen.spec import rules as R
    outs, subs = op.outputs, op.per_output
    names = [o.py_name for o in outs]
    inputs = c["input_names"]
    params = "".join(f"{n}, " for n in inputs) + f'product="{op.default_product}", out=None'
    body = [f'"""{op.name}: returns ({", ".join(o.name for o in outs)}).', "",
            "`out` is None or a tuple of one array (or None) per output; each output it does not give is allocated "
            "(an", "extra output only when every optional tensor it reads is given: else it is None).",
            "Raises codegen.AclnnError (status, param, message) when an argument breaks a rule.", '"""',
            f'{F.tuple_of(names)} = _calls.several_outs("{op.snake_name}", out, {tuple(o.name for o in outs)!r})',
            "_chk.known_product(product)", c["describable"]]
    needs = {}
    for sub, o, n in zip(subs, outs, names):
        default = f"_chk.Allocate(_chk.default_dtype({c['dtype_from'][o.name]}))"
        if sub.split is not None:
            body += [f"{n}_arg = {n} if {n} is not None else {default}"]
            continue
        needs[o.name] = " and ".join(f"{op.param(t.name).py_name} is not None" for t in sub.tensors
                                     if op.param(t.name).optional) or "True"
        body += [f"{n}_arg = {n} if {n} is not None else ({default} if {needs[o.name]} else None)"]
    body += [f"values = check({', '.join(inputs + [n + '_arg' for n in names])}, product)"]
    body += [f'{n} = values["{n}"]' for n in c["converted"]]
    for o, n in zip(outs, names):
        body += [f"if {n} is None and {n}_arg is not None:",
                 f"    {n} = np.empty({c['shapes'][o.name]}, dtype=_chk.numpy_dtype({n}_arg))"]
    per_row = {r.params[0]: r.params[1] for r in op.rules if isinstance(r, R.PerRow)}
    for sub, o, n in zip(subs[1:], outs[1:], names[1:]):
        w = op.param(o.sum_to).py_name
        ref = op.param(per_row[o.sum_to]).py_name
        group = c["variants"][o.name]
        calls = [group[0]["call"]] if len(group) == 1 else \
            [line for i, v in enumerate(group) for line in (f"{'if' if i == 0 else 'elif'} {v['dispatch']}:",
                                                            f"    {v['call']}")]
        tensors = ", ".join(op.param(t.name).py_name for t in sub.tensors)
        body += [f"# {o.name}: the gradient of {o.sum_to}, one value per row of {per_row[o.sum_to]}, on "
                 f"{per_row[o.sum_to]}'s shape and summed along the row",
                 f"full_{n} = None",
                 f"if {n} is not None and {needs[o.name]}:"]
        body += F.indent([f"{w} = np.reshape({w}, {ref}.shape[:-1] + (1,))  # laid along the rows (PerRow)",
                          f"full_{n} = np.empty(np.broadcast_shapes(*(np.shape(t) for t in ({tensors},))), "
                          f"dtype=np.float32)"] + calls)
    first = names[0]
    body += [f"# {outs[0].name}: its halves", "out = " + first, "if out.size:"]
    body += F.indent(_split_lines(c))
    for o, n in zip(outs[1:], names[1:]):
        summed = f"np.sum(full_{n}, axis=-1, dtype=np.float64)"
        if o.name in op.split.masks:   # its rows past the count hold 0 (Split(masks=...))
            uint32 = ", uint32=True" if op.split.rows_sum == "uint32" else ""
            summed = f"_Rows.zero_past({summed}, {op.param(op.split.rows).py_name}{uint32})"
        body += [f"if full_{n} is not None:",
                 f"    # the adjoint of broadcasting {o.sum_to} along the row: the row's sum, rounded once to "
                 f"{o.name}'s dtype" + (", 0 past the row count" if o.name in op.split.masks else ""),
                 f"    _store({n}, {summed}.reshape({n}.shape))"]
    return F.function(f"{op.snake_name}(*, {params})", body + [f"return {F.tuple_of(names)}"])


def _split_lines(c: dict) -> list[str]:
    return F._split_calls(c["split"], False)


def op_function(op: Op, c: dict) -> str:
    """The public function of an op with several outputs: checks, allocations, each output's kernels, the tuple."""
    if op.split is not None:
        return split_op_function(op, c)
    outs = op.outputs
    names = [o.py_name for o in outs]
    inputs = c["input_names"]
    params = "".join(f"{n}, " for n in inputs) + f'product="{op.default_product}", out=None'
    listed = ", ".join(o.name for o in outs)
    body = [f'"""{op.name}: returns ({listed}).', "",
            "`out` is None or a tuple of one array (or None) per output; each output it does not give is allocated.",
            "Raises codegen.AclnnError (status, param, message) when an argument breaks a rule.", '"""',
            f'{F.tuple_of(names)} = _calls.several_outs("{op.snake_name}", out, {tuple(o.name for o in outs)!r})',
            "_chk.known_product(product)", c["describable"]]
    default = f"_chk.default_dtype({c['default_dtype_from']})"
    for n in names:
        body += [f"{n}_arg = {n} if {n} is not None else _chk.Allocate({default})"]
    body += [f"values = check({', '.join(inputs + [n + '_arg' for n in names])}, product)"]
    if c["empty_returns"]:
        # an empty tensor ended the checks early: success, and nothing is written (as the library does); an
        # output allocated here holds zeros (a sum: the sum over no element; any other: nothing computed into it)
        body += ["if values is None:  # an empty tensor ended the checks early: success, nothing written"]
        for o, n in zip(outs, names):
            body += [f"    if {n} is None:",
                     f"        shape = _chk.empty_shape(lambda: {c['shapes'][o.name]}, {c['empty_returns']})",
                     f"        {n} = np.zeros(shape, dtype=_chk.numpy_dtype({n}_arg))"]
        body += [f"    return {F.tuple_of(names)}"]
    body += [f'{n} = values["{n}"]' for n in c["converted"]]
    for o, n in zip(outs, names):
        body += [f"if {n} is None:",
                 f"    {n} = np.empty({c['shapes'][o.name]}, dtype=_chk.numpy_dtype({n}_arg))"]
    for t, ref, dim in c["channels"]:
        body += [f"# {t} holds one value per channel of {ref} (dimension {dim}): read laid along it",
                 f"{t} = _calls.channel_view({t}, {ref}.shape, {dim})"]
    body += [f"bshape = np.broadcast_shapes(*(np.shape(a) for a in ({c['bshape']},) if a is not None))"]
    # an output written over an input (in place) is computed aside while a later output still reads the inputs
    aside = [n for o, n in zip(outs[:-1], names) if not o.sum_to]
    for n in aside:
        body += [f"{n}_into = _calls.aside({n}, ({c['bshape']},))"]
    for o, n in zip(outs, names):
        target = f"full_{n}" if o.sum_to else (f"{n}_into" if n in aside else n)
        body += [f"# {o.name}"]
        if o.sum_to:
            body += [f"{target} = np.empty(bshape, dtype=np.float32)  # on the broadcast shape, summed below"]
        group = c["variants"][o.name]
        group = [dict(v, call=v["call"].replace(f", {n})", f", {target})")) for v in group] if n in aside else group
        calls = [group[0]["call"]] if len(group) == 1 else \
            [line for i, v in enumerate(group) for line in (f"{'if' if i == 0 else 'elif'} {v['dispatch']}:",
                                                            f"    {v['call']}")]
        # an empty output has nothing to compute; a summed one is computed anyway: a sum over nothing is 0
        body += calls if o.sum_to else [f"if {n}.size:"] + F.indent(calls)
        if o.sum_to:
            body += [f"# the adjoint of broadcasting {o.sum_to}: summed over the broadcast axes, rounded once to "
                     f"{o.name}'s dtype",
                     f"_store({n}, _calls.sum_to({target}, np.shape({c['py'][o.sum_to]})).reshape({n}.shape))"]
    for n in aside:
        body += [f"if {n}_into is not {n}:", f"    {n}[...] = {n}_into"]
    return F.function(f"{op.snake_name}(*, {params})", body + [f"return {F.tuple_of(names)}"])


def converted(op: Op) -> list[str]:
    return [p.py_name for p in op.params if isinstance(p, (Scalar, Attr))]
