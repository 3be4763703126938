"""How two backends' results are compared: elementwise within an ulp, row sums within a bound that grows with
the row (sums are added in a different order by each backend)."""
from __future__ import annotations

import numpy as np

from .ulp import ulp_distance

EPS = {"FLOAT": 2.0 ** -23, "FLOAT16": 2.0 ** -10, "BFLOAT16": 2.0 ** -7, "DOUBLE": 2.0 ** -52}
INTEGERS = ("INT8", "INT16", "INT32", "INT64", "UINT8", "BOOL")


def assert_elementwise_close(got, want, dout, what, slack=None):
    """Within 1 ulp (2 for FLOAT), or — where float32 intermediates that differ by an ulp (exp/log from different
    libraries) meet cancellation (BCE's sigmoid(x) - t) — within 2^-20 of the largest result of the call, or within
    `slack` (an array: what the two may differ by at each element, e.g. twice the formula's rounding-error bound)."""
    assert got.shape == want.shape and got.dtype == want.dtype, what
    if dout in ("COMPLEX64", "COMPLEX128"):   # each part within the ulps of its real dtype
        part = "FLOAT" if dout == "COMPLEX64" else "DOUBLE"
        for name, f in (("real", np.real), ("imag", np.imag)):
            assert_elementwise_close(np.ascontiguousarray(f(got)), np.ascontiguousarray(f(want)), part, f"{what} {name}")
        return
    if dout in INTEGERS:   # rounded to nearest by both: equal, or one apart where FLOAT intermediates sit at a tie
        bad = np.argwhere(np.abs(got.astype(np.int64) - want.astype(np.int64)) > 1)
        assert not bad.size, f"{what}: {len(bad)} integers off, first at {tuple(bad[0])}: got {got[tuple(bad[0])]}, " \
                             f"numpy {want[tuple(bad[0])]}"
        return
    d = ulp_distance(got, want.astype(np.float64))
    limit = 2 if dout in ("FLOAT", "DOUBLE") else 1
    g, w = got.astype(np.float64), want.astype(np.float64)
    scale = np.abs(w[np.isfinite(w)]).max(initial=0.0)
    with np.errstate(invalid="ignore"):
        close = (d <= limit) | (np.abs(g - w) <= 4 * EPS[dout] * np.abs(w) + 2.0 ** -20 * scale)
        if slack is not None:
            close |= np.abs(g - w) <= slack
    bad = np.argwhere(~close)
    assert not bad.size, (f"{what}: {len(bad)} elements off, first at {tuple(bad[0])}: got "
                          f"{got[tuple(bad[0])]}, numpy {want[tuple(bad[0])]} ({int(d[tuple(bad[0])])} ulp)")


def magnitude(op, kw, dim):
    """The row's magnitude at each element: the documented backward with every sum and product taken over
    absolute values (|a| + |b|, |a|·|b|, a DimSum of |summand|), so that the rounding errors of each backend's
    own summation order are bounded relative to it: softmax's |g·y| + |y|·Σ|g·y|, log_softmax's
    |g| + exp(y)·Σ|g|.  (A bound for the comparison only: the values compared come from the kernels.)"""
    import sympy
    from codegen.spec import DimSum

    def mag(e):
        if isinstance(e, sympy.Add):
            return sympy.Add(*[mag(a) for a in e.args])
        if isinstance(e, sympy.Mul):
            return sympy.Mul(*[mag(a) for a in e.args])
        if isinstance(e, DimSum):
            return DimSum(mag(e.args[0]))
        if isinstance(e, sympy.Pow) and e.exp.is_Integer:
            return mag(e.base) ** e.exp
        if isinstance(e, sympy.Piecewise):
            return sympy.Piecewise(*[(mag(v), c) for v, c in e.args])
        return sympy.Abs(e)
    return evaluate(op, kw, dim, mag(sympy.sympify(op.variants[0].expr)))


def evaluate(op, kw, dim, expr=None):
    """`expr` (default: the documented backward of the op's first variant) on the call's arrays in float64,
    DimSum along `dim`: a data generator's estimate, never the expected value of a comparison."""
    import sympy
    expr = sympy.sympify(op.variants[0].expr) if expr is None else expr
    syms = [t.symbol for t in op.tensors if t.symbol is not None] + [p.symbol for p in op.reals]
    # a BOOL tensor (a mask) stays BOOL: it is read as a Piecewise condition
    args = [np.asarray(kw[t.py_name], bool if t in op.bool_tensors else np.float64) for t in op.tensors
            if t.symbol is not None]
    args += [float(kw[p.py_name]) for p in op.reals]
    f = sympy.lambdify(syms, expr, modules=[{"DimSum": lambda a: np.sum(a, axis=dim, keepdims=True)}, "numpy"])
    with np.errstate(all="ignore"):
        return np.broadcast_to(np.asarray(f(*args), np.float64), np.shape(args[0]))


def assert_rows_close(op, got, want, kw, dim, dout, what):
    """|got - want| within 2 ulps of the result plus 8·2^-23·sqrt(row length) times the row's magnitude."""
    assert got.shape == want.shape and got.dtype == want.dtype, what
    g = np.asarray(kw[op.grad.py_name], np.float64)
    scale = magnitude(op, kw, dim)
    length = g.shape[dim] if g.ndim else 1
    bound = 2 * EPS[dout] * np.abs(want.astype(np.float64)) + 8 * 2.0 ** -23 * np.sqrt(length) * scale + 1e-30
    err = np.abs(got.astype(np.float64) - want.astype(np.float64))
    assert (err <= bound).all(), \
        f"{what}: error {err.max():.3g} over bound at {np.unravel_index((err / bound).argmax(), err.shape)}"


def seed(*parts) -> int:
    """A test's random seed from its parameters, the same in every process (Python's hash() of a str is not:
    it is salted per process, which made seeded tests draw different inputs on every run)."""
    import zlib
    return zlib.crc32(repr(parts).encode())
