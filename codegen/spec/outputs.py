"""Several outputs: an operator returning more than one gradient (PreluBackward: gradInput and gradWeight).

    Tensor("self", x, role=FORWARD_INPUT), Tensor("weight", w, role=OPERAND), ...
    Output("gradInput"),                                  # the gradient w.r.t. the op's `wrt`, x
    Output("gradWeight", wrt=w, sum_to="weight"),         # the gradient w.r.t. w, summed back to weight's shape
    wrt=x,
    forward=Piecewise((x, x > 0), (w * x, True)),
    backward=[Formula(Piecewise((g, x > 0), (g * w, True))),                # output= omitted: the first output
              Formula(Piecewise((0, x > 0), (g * x, True)), output="gradWeight")],

Each output is the gradient of the one forward with respect to its own input (`Output(wrt=...)`, the op's `wrt`
by default), computed by the forms that name it (`Formula(..., output=...)`).  Everything that reasons per element
sees such an op as one single-output op per output (`output_ops`), as a split op is seen as its halves: the
tensor whose symbol the output differentiates takes the role FORWARD_INPUT there, the op's own FORWARD_INPUT tensor
becomes an OPERAND, and the forms are that output's.  Each one is validated and proven as any op is, so each
output is proved on its own (`opgen verify` prefixes its lines with the output's name).
"""
from __future__ import annotations

import dataclasses

from .params import FORWARD_INPUT, OPERAND, Output, Tensor


def output_wrt(op, out: Output):
    """The symbol output `out` differentiates."""
    return out.wrt if out.wrt is not None else op.wrt


def forms_of(op, out: Output) -> list:
    """The documented forms computing output `out` (a form without `output=` computes the first)."""
    first = op.outputs[0].name
    return [dataclasses.replace(f, output=None) for f in op.formulas if (f.output or first) == out.name]


def output_ops(op) -> list:
    """One single-output op per output (cached on the op): every input tensor, scalar and attribute, that output,
    the roles turned so that the tensor holding the output's `wrt` is the FORWARD_INPUT, and its forms."""
    cached = op.__dict__.get("_output_ops")
    if cached is not None:
        return cached
    if op.split is not None:   # the split op for the first output, an elementwise op per extra output
        from .split import split_output_ops
        op.__dict__["_output_ops"] = split_output_ops(op)
        return op.__dict__["_output_ops"]
    from .op import Op   # (op.py imports this module)
    out_ops = []
    for out in op.outputs:
        z = output_wrt(op, out)
        params = []
        for p in op.params:
            if isinstance(p, Output):
                if p is out:
                    params.append(dataclasses.replace(p, wrt=None))
                continue
            if isinstance(p, Tensor) and p.role == FORWARD_INPUT and p.symbol != z:
                p = dataclasses.replace(p, role=OPERAND)
            elif isinstance(p, Tensor) and p.symbol == z and p.role != FORWARD_INPUT:
                p = dataclasses.replace(p, role=FORWARD_INPUT)
            params.append(p)
        names = {p.name for p in params}
        rules = [r for r in op.rules if set(r.params) <= names]
        sub = Op(name=op.name, params=params, wrt=z, forward=op.forward, backward=forms_of(op, out),
                 dtypes=op.dtypes, rules=rules, description=op.description, forward_name=op.forward_name,
                 loss_reduction=op._reduction or op.loss_reduction, compute_dtype=op.compute_dtype,
                 compute=dict(op.compute), at=_at_of(op, z), source=op.source, torch=_torch_of(op))
        sub.output_of = (op, out.name)
        out_ops.append(sub)
    op.__dict__["_output_ops"] = out_ops
    return out_ops


def _torch_of(op):
    """The op's `TorchGrad` for every output: autograd of the one forward w.r.t. the tensor each output's op holds
    as its FORWARD_INPUT is that output's gradient (LogAddExpBackward's two; before, no output had a PyTorch
    column in `opgen accuracy`).  An aten call (`Torch`) returns one gradient: none."""
    from .torch import TorchGrad
    return op.torch if isinstance(op.torch, TorchGrad) else None


def _at_of(op, z) -> dict:
    """The op's declared values (`at=`) that apply to the output differentiating z: every one for the op's own
    wrt; for another output those whose point involves z (MarginRankingLoss's kink -y*(x1 - x2) + margin = 0 is
    one for both inputs), not those of a point of the op's wrt alone (PReLU's x = 0 is no point of w).  A value
    that differs per output goes on that output's form, Formula(..., output=..., at=...)."""
    if z == op.wrt:
        return dict(op.at)
    return {rel: v for rel, v in op.at.items() if z in rel.free_symbols}


def check(op, fail) -> None:
    """What an op with several outputs must say, beyond what each output's op checks."""
    outs = op.outputs
    names = [o.name for o in outs]
    symbols = {t.symbol: t for t in op.tensors if t.symbol is not None}
    seen = set()
    for o in outs:
        z = output_wrt(op, o)
        if z not in symbols:
            fail(f"output {o.name}: wrt={z} is not the symbol of an input tensor")
        if z in seen:
            fail(f"output {o.name}: another output is already the gradient w.r.t. {z}")
        seen.add(z)
        if not forms_of(op, o):
            fail(f"output {o.name}: no backward form computes it (Formula(..., output={o.name!r}))")
    for i, f in enumerate(op.formulas):
        if f.output is not None and f.output not in names:
            fail(f"backward formula {i + 1}: output={f.output!r} is not one of the outputs ({', '.join(names)})")
    from . import rules as R
    for o in outs:
        # each output's op keeps only the rules naming no other output (output_ops): one of them must fix its shape
        others = set(names) - {o.name}
        fixed = [r for r in op.rules if isinstance(r, (R.ShapeSame, R.ShapeIsBroadcast)) and o.name in r.params
                 and not set(r.params) & others]
        if not fixed and not o.sum_to:
            fail(f"output {o.name}: no shape rule of its own fixes its shape (a rule naming several outputs is "
                 f"not one: each output is emitted as an op of its own); add e.g. ShapeSame(<input>, {o.name!r})")
    if op.split is not None or op.reduce_dim is not None or op.classes is not None:
        fail("several outputs with a split, a row reduction or class-index targets are not implemented")
    if len(outs) > 4:
        fail(f"{len(outs)} outputs: at most 4 (the C runtime's OPGEN_MAX_CALLS, one call per output)")
    if set(op.computes) != {"FLOAT"}:
        fail("several outputs computed in DOUBLE or COMPLEX are not implemented")


EMITS_SEVERAL = ("numpy", "c", "docs", "ascendc")   # the backends that emit an op with several outputs


def refuse_emit(op, backend: str) -> None:
    """A backend that does not emit several outputs yet refuses such an op with what is missing rather than
    giving it a kernel computing only its first output."""
    if len(op.outputs) > 1 and backend not in EMITS_SEVERAL:
        from codegen.errors import SpecError
        raise SpecError(op.source, op.name, f"several outputs ({', '.join(o.name for o in op.outputs)}): the "
                                            f"{backend} backend does not emit them yet (they are proven: opgen verify)")


OUTPUT_INDEX = "outputIndex"   # the kernel op's int64 attribute choosing the output whose form runs


def kernel_op(op):
    """One elementwise op holding every output's forms (cached on the op), for a backend that builds one kernel
    with a variant per output (Ascend C: one AI Core kernel, launched once per output, as a split op's is once per
    half): the op's input parameters, an int64 attribute `outputIndex` (the output's position among the outputs)
    choosing the forms, and one output `out` on the broadcast shape of the operands (a summed output's terms,
    summed back by the caller; `sum_to` marks that its instances may write FLOAT).  Not a spec: nothing proves it
    (each output's op is proven), it only carries the lowered forms."""
    cached = op.__dict__.get("_several_kernel_op")
    if cached is not None:
        return cached
    import sympy

    from . import rules as R
    from .op import Op
    from .params import Attr
    choose = sympy.Symbol(OUTPUT_INDEX, integer=True)
    params = [p for p in op.params if not isinstance(p, Output)]
    params.append(Attr(OUTPUT_INDEX, choose, type="int64", values={k: o.name for k, o in enumerate(op.outputs)},
                       doc=op.outputs[0].doc))
    summed = next((o.sum_to for o in op.outputs if o.sum_to), None)
    params.append(Output("out", doc=op.outputs[0].doc, sum_to=summed))
    forms = []
    for k, sub in enumerate(output_ops(op)):
        roles = {t.name: t.role for t in sub.tensors}
        for f in sub.formulas:
            forms.append(dataclasses.replace(f, when={**f.when, OUTPUT_INDEX: k}, roles={**roles, **f.roles},
                                             at={**sub.at, **f.at}))
    rules = [R.DtypeSame(*[t.name for t in op.tensors], "out")]
    if summed is None:   # (a summed output's host layer gives the shape: Ascend C's InferShape copies input 0's)
        rules.append(R.ShapeIsBroadcast("out", *[t.name for t in op.tensors]))
    k = Op(name=op.name, params=params, wrt=op.wrt, forward=op.forward, backward=forms, dtypes=op.dtypes,
           rules=rules, description=op.description, forward_name=op.forward_name,
           compute_dtype=op.compute_dtype, compute=dict(op.compute), source=op.source)
    op.__dict__["_several_kernel_op"] = k
    return k
