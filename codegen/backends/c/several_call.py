"""`codegen.kernel(op, backend="c")` for an op with several outputs: the same keywords and `out=` as the NumPy
function (None, or a tuple of one array or None per output).  A tuple of arrays whose bytes are apart goes to the
compiled entry point (pyext.py: phase 1 is the same C checker); whatever it declines, through ctypes here.

Given every output, the call is C's alone: phase 1's verdict is the C checker's.  An output not given is sized by
the Python checker first, as the single-output path does without `out=` (the same verdicts: the checker parity
tests), and allocated: an output summed back to an input's shape is allocated as zeros (an empty input ends phase
1 early and nothing is written: the sum over no element is then 0).
"""
from __future__ import annotations

import numpy as np

from codegen.runtime import calls as _calls
from codegen.runtime import checks as _chk
from codegen.runtime import memory

from .binding import _record, with_entry


def several_kernel(op, lib, checker, entry=None):
    outs = op.outputs
    name = op.snake_name

    def python_path(**kw):   # what the entry point declines (all of a call, without one)
        given = _calls.several_outs(name, kw.get("out"), tuple(o.name for o in outs))
        call = _calls.KernelCall(op, dict(kw, out=None))   # the keywords and the product, as every backend reads them
        if any(o is None for o in given):
            # (a split op's extra output is allocated only when what it reads is given: else it stays None)
            wanted = [_calls.output_wanted(op, o.name, call.args) for o in outs]
            dtypes = [_chk.default_dtype(*[call.args[op.param(n).py_name]
                                           for n in _calls.output_dtype_sources(op, o.name)]) for o in outs]
            values = checker(*[call.args[n] for n in call.names],
                             *[g if g is not None else _chk.Allocate(d) if w else None
                               for g, d, w in zip(given, dtypes, wanted)], call.product)
            shape = (lambda o: _calls.shape_of_output(op, o.name, call.args)) if values is not None else \
                (lambda o: _chk.empty_shape(lambda: _calls.shape_of_output(op, o.name, call.args),
                                            *call.args.values()))
            # (zeros for a sum, the sum over no element, and for any output of a call that ends early on an empty
            # tensor: nothing is computed into it)
            given = [g if g is not None or not w else
                     (np.zeros if o.sum_to or values is None else memory.empty)(shape(o), _chk.NUMPY_DTYPES[d])
                     for o, g, d, w in zip(outs, given, dtypes, wanted)]
        # C cannot address a byte-strided view, nor write another byte order: such an output is computed aside
        targets = [g if g is None or g.dtype.isnative and _record(g.shape, g.strides, g.itemsize, 0) is not None
                   else np.ascontiguousarray(g, g.dtype.newbyteorder("=")) for g in given]   # (what is not written stays)
        from .binding import Unmarshallable
        try:
            lib.call(call.args, {o.name: t for o, t in zip(outs, targets)}, call.product)
        except Unmarshallable:
            # the Python checker's AclnnError, or success with nothing computed (an empty tensor ended the checks
            # before the argument C cannot carry was read), as the single-output path
            if checker(*[call.args[n] for n in call.names], *given, call.product) is None:
                return tuple(given)
            raise TypeError(f"{name}: an argument cannot be passed to C") from None
        for g, t in zip(given, targets):
            if t is not g and g is not None:
                np.copyto(g, t)
        return tuple(given)

    kernel = with_entry(lib, entry, python_path, name)
    kernel.__doc__ = f"{op.name} computed by the generated C library: returns ({', '.join(o.name for o in outs)})."
    kernel.library = lib
    return kernel
