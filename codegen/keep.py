"""What a render of every op makes per op, made once for the whole render.

A render of every op (`codegen.generate.render_all`) asks each backend in turn for every op's kernel (NumPy, C,
Ascend C, then the docs and the C sources they fingerprint).  `codegen.lower.lower` keeps the last few kernels,
but a render takes more ops than that in turn, so that each would be evicted before it is asked for again:
lowered once per backend (42 ops: four lowerings each, about 0.2 s apiece), and the C sources rendered four
times (the C files, the docs' call example: its build size and its cache key's fingerprint in both languages).
Inside a `kept()` block what `kept_for` makes stays, keyed by the op's identity (and holding the op, so that an id
is never reused while its entry lives), until the block ends; outside one it is made every time.  A derived op
(a class-index op's grid op, a split op's halves, a several-output op's ops per output) is a new object at each
access outside a block, the same one inside.
"""
from __future__ import annotations

import contextlib

_KEPT: list[dict] = []   # the open blocks' {(what, id(op)): (op, value)}


@contextlib.contextmanager
def kept():
    """A block within which `kept_for` makes each value once (`render_all` renders inside one)."""
    _KEPT.append({})
    try:
        yield
    finally:
        _KEPT.pop()


def kept_for(op, what: str, make):
    """`make()` for `op` (by identity) and `what`: made once inside a `kept()` block, every time outside one."""
    if not _KEPT:
        return make()
    hit = _KEPT[-1].get((what, id(op)))
    if hit is not None and hit[0] is op:
        return hit[1]
    value = make()
    _KEPT[-1][what, id(op)] = (op, value)
    return value
