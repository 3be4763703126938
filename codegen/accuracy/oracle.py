"""The differential oracle: every backend's kernel against the spec's own mathematics, for any spec.

    check(ops, backends=None, dtypes=None, ...) -> [Record]     the library entry (tests, `opgen oracle`,
                                                                 the fuzzer)
    table(records) -> str                                        one line per op × dtype × backend

For each op, every kernel variant (bool attributes, optional tensors), loss reduction, scalar setting (each
scalar a rule bounds by 0 both > 0 and == 0), dtype and product, the inputs of `inputs.py` (typical values,
exact branch points and their neighbours, declared points, ±0, subnormals, huge values, ±inf and nan, layouts)
go through the kernel, and each element is compared with the exact result (`reference.py`: the forward
differentiated by SymPy, evaluated in mpmath at 40-1280 digits, rounded once to the output dtype; at a
declared point the declared value).  Nothing in the reference or the tolerance reads a printer, the lowering,
or a kernel.  An element passes when

  * its reference is finite and the kernel is within twice the rounding-error bound of the documented
    backward evaluated in FLOAT (`bound.py`) plus one ulp of the output dtype — elements where the documented
    formula leaves FLOAT's range, or a branch decision lies within rounding of its switch point, have no bound
    and are counted as unjudged (`opgen accuracy` holds them to a relative error of their own,
    runner.judge_unbounded: its verdict, not this one's);
  * it has a non-finite input or reference and the kernel gives the same class as the exact limit (nan, the
    same infinity, a number close to a finite limit), or what the documented formula itself gives in IEEE
    arithmetic, or a documented difference of `runner.measure` (a nan input; ∞·0), or — on finite inputs —
    the documented formula has no bound there (it leaves FLOAT's range, or decides a branch within rounding);

and a record passes when no element fails, the output has the shape the rules require (and `out=` is written
in place and nowhere else), and both Ascend standards (ascend.md §6) hold on the representative elements the
formula leaves well-conditioned (bound below a tenth of the dual threshold).  `opgen accuracy` reports the
standards on every representative element instead, which is what the hardware is held to.
"""
from __future__ import annotations

from .inputs import FAST, FULL, Sizes
from .runner import Record, run

# the fuzzer's corpus is small per formula: a few dozen typical elements and every edge group
FUZZ = Sizes(typical=24, rows=(3, 6), draws=1, layouts=False, grads=3, wide=(2, 520))


def check(ops: dict, backends=None, dtypes=None, full: bool = False, products=None, kernels=None, sizes=None,
          seed: int = 0, log=lambda m: None) -> list[Record]:
    """Oracle records of every op × backend × dtype × product (PyTorch is not consulted)."""
    return run(ops, backends, full=full, dtypes=dtypes, log=log, kernels=kernels, products=products,
               sizes=sizes or (FULL if full else FAST), use_torch=False, seed=seed)


def failed(records: list[Record]) -> list[Record]:
    return [r for r in records if not r.oracle_passed]


def describe(r: Record, limit: int = 3) -> list[str]:
    """What failed in a record, one line each (for messages and the command's stderr)."""
    out = []
    if r.no_bound:
        out.append(f"no error bound: {r.no_bound}")
    for e in r.beyond[:limit]:
        out.append(f"beyond the bound: {e.group} [{e.case}] {e.inputs}: kernel {e.got!r}, exact {e.reference!r}")
    for e in r.failures[:limit]:
        if isinstance(e, str):
            out.append(e)
        else:
            out.append(f"special value: {e.group} [{e.case}] {e.inputs}: kernel {e.got!r}, exact {e.reference!r}")
    if r.errors_wc.n and not r.oracle_passed and not (
            r.n_beyond or r.n_failures > r.n_overflow_failures + r.n_unbounded_failures or r.no_bound):
        out.append(f"standards on well-conditioned elements: MARE {r.errors_wc.max_rel:.3g}, "
                   f"MERE {r.errors_wc.mean_rel:.3g}, {r.errors_wc.n_above_dual}/{r.errors_wc.n} above the dual "
                   f"threshold")
    return out


def table(records: list[Record]) -> str:
    head = ("op", "dtype", "backend", "products", "judged", "unjudged", "special", "beyond", "failures", "verdict")
    rows: dict = {}
    for r in records:
        key = (r.op, r.dtype, r.backend, r.judged, r.unjudged, r.special, r.n_beyond, r.n_failures, r.oracle_passed)
        rows.setdefault(key, []).append(r.product)
    lines = [[k[0], k[1], k[2], ",".join(p), str(k[3]), str(k[4]), str(k[5]), str(k[6]), str(k[7]),
              "pass" if k[8] else "FAIL"] for k, p in rows.items()]
    widths = [max(len(h), *(len(row[i]) for row in lines)) if lines else len(h) for i, h in enumerate(head)]
    fmt = lambda row: "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip()  # noqa: E731
    return "\n".join([fmt(head), fmt(["-" * w for w in widths])] + [fmt(row) for row in lines])


__all__ = ["check", "failed", "describe", "table", "FUZZ", "Record"]
