"""`codegen.kernel(op, backend="ascendc")` for an op with several outputs: what the project's level 2 does
(opapi.several_body_lines), in NumPy around the simulated AI Core kernel.

Phase 1 is the generated checker with every output; then every operand goes on the broadcast shape (a PerChannel
tensor first laid along its channel axis), the kernel op's kernel runs once per output (its `outputIndex`
variant: the output's position), a summed output's FLOAT terms are summed over the broadcast axes of its input
(in float64, rounded once to FLOAT, as ReduceSum in its compute dtype) and reshaped to its shape, and each result
is stored into its output.  `out=` is None or a tuple of one array or None per output, as for every backend.
"""
from __future__ import annotations

import numpy as np

from codegen.runtime import calls as _calls
from codegen.runtime import checks as _chk
from codegen.runtime import memory
from codegen.runtime.blocks import store
from codegen.spec import rules as R
from codegen.spec.outputs import OUTPUT_INDEX


def several_kernel(op, the_plan, checker):
    from .binding import run_kernel
    outs, name, kop = op.outputs, op.snake_name, the_plan.op
    channel = [r for r in op.rules if isinstance(r, R.PerChannel)]

    def kernel(**kw):
        given = _calls.several_outs(name, kw.get("out"), tuple(o.name for o in outs))
        call = _calls.KernelCall(op, dict(kw, out=None))
        dtype = _chk.default_dtype(*[call.args[op.param(n).py_name] for n in op.output_dtype_sources])
        values = checker(*[call.args[n] for n in call.names],
                         *[g if g is not None else _chk.Allocate(dtype) for g in given], call.product)
        shape = (lambda o: _calls.shape_of_output(op, o.name, call.args)) if values is not None else \
            (lambda o: _chk.empty_shape(lambda: _calls.shape_of_output(op, o.name, call.args), *call.args.values()))
        # (zeros for a sum, the sum over no element, and for any output of a call that ends early on an empty tensor)
        given = [g if g is not None else (np.zeros if o.sum_to or values is None else memory.empty)(
                 shape(o), _chk.NUMPY_DTYPES[dtype]) for o, g in zip(outs, given)]
        if values is None:
            return tuple(given)   # an empty tensor ended the checks early: nothing launched, nothing written
        args = dict(call.args, **values)
        for r in channel:   # laid along its channel axis ([1, C, 1, ...]), as level 2's ChannelView
            t, ref = (op.param(n).py_name for n in r.params)
            args[t] = _calls.channel_view(args[t], np.shape(args[ref]), r.dim)
        bshape = tuple(np.broadcast_shapes(*[np.shape(args[t.py_name]) for t in op.tensors
                                             if args.get(t.py_name) is not None]))
        results = []
        for k, (o, g) in enumerate(zip(outs, given)):
            args[kop.param(OUTPUT_INDEX).py_name] = k
            if o.sum_to:   # the terms in FLOAT on the broadcast shape, summed back to the input's view
                terms = np.zeros(bshape, np.float32) if 0 in bshape else \
                    run_kernel(kop, the_plan, args, bshape, "FLOAT", call.product)
                kept = np.shape(args[op.param(o.sum_to).py_name])
                results.append(_calls.sum_to(terms.astype(np.float32, copy=False), kept).reshape(g.shape))
            else:
                results.append(None if g.size == 0 else
                               run_kernel(kop, the_plan, args, bshape, _chk.dtype_name(g), call.product))
        for g, r in zip(given, results):   # stored last: an output over an input (in place) changes no kernel's read
            if r is not None:
                store(g, r)
        return tuple(given)

    kernel.__name__ = name
    kernel.__doc__ = f"{op.name} on the Ascend C simulator: returns ({', '.join(o.name for o in outs)})."
    return kernel
