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


def op_function(op: Op, c: dict) -> str:
    """The public function of an op with several outputs: checks, allocations, each output's kernels, the tuple."""
    outs = op.outputs
    names = [o.py_name for o in outs]
    inputs = c["input_names"]
    params = "".join(f"{n}, " for n in inputs) + 'product="ascend910b", out=None'
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
