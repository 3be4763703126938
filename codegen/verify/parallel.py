"""Proofs of several ops side by side, in worker processes, while the caller does other work.

A proof is pure-Python SymPy (the GIL rules out threads), and `opgen generate` on a clean checkout would
otherwise prove every spec (about 5 s, BCE alone 3.7 s) before rendering anything.  Ops whose verdicts are
cached are answered at once; the rest go to a process pool, one op per task, and the caller renders in the
meantime.  Workers reload each spec from its file (Op objects hold SymPy expressions and callables that
need not pickle) and return plain Result objects.
"""
from __future__ import annotations

import concurrent.futures
import os

from .cache import lookup
from .result import Result


def _prove_in_worker(source: str, name: str, numeric: bool) -> list[Result]:
    from codegen.loader import load_spec_file

    from . import verify_op
    try:
        return verify_op(load_spec_file(source), numeric=numeric, use_cache=True)
    except Exception as e:  # never lose an op's verdict: a crash is a failed proof
        return [Result(name, "all cases", "symbolic proof", "FAILED", f"{type(e).__name__}: {e}")]


class Proofs:
    """`with Proofs(ops, specs_dir) as p: …; results = p.results()`: verdicts of every op (numeric=False)."""

    def __init__(self, ops: dict, specs_dir=None, numeric: bool = False):
        self.ops, self.numeric = ops, numeric
        self.done = {name: lookup(op, numeric) for name, op in ops.items()}
        todo = [name for name, hit in self.done.items() if hit is None]
        workers = min(len(todo), os.cpu_count() or 1)
        self.pool = concurrent.futures.ProcessPoolExecutor(workers) if workers > 1 else None
        self.futures = {name: self.pool.submit(_prove_in_worker, ops[name].source, ops[name].name, numeric)
                        for name in todo} \
            if self.pool else {}

    def results(self) -> list[Result]:
        from . import verify_op
        out = []
        for name, op in self.ops.items():
            if self.done[name] is None:
                self.done[name] = self.futures[name].result() if name in self.futures \
                    else verify_op(op, numeric=self.numeric, use_cache=True)
            out += self.done[name]
        return out

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.pool:
            self.pool.shutdown(cancel_futures=True)
        return False
