"""What a call costs from Python besides the kernel: each op at 2^10 elements in FLOAT (its first layout), one
thread, through the C library's compiled entry point (pyext.py), through its ctypes path (the same library and
kernel, the entry point switched off: what every call cost before the entry point existed), and PyTorch's aten
kernel with `out=`, all three timed in the same interleaved passes.  At this size the kernel itself takes about
a microsecond, so the times are the calls' overhead, side by side."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from codegen.runtime.checks import NUMPY_DTYPES

from . import outputs, torch_kernels
from . import threads as T
from .cases import select
from .timing import Policy, interleaved

N_LOG2 = 10
POLICY = Policy(warmup=50, min_runs=300, budget_s=0.4, max_runs=20000)
QUICK = Policy(warmup=20, min_runs=50, budget_s=0.05, max_runs=2000)


@dataclass
class CallCost:
    op: str
    layout: str
    entry_us: float              # medians, microseconds per call
    ctypes_us: float
    torch_us: float | None
    passes: int

    @property
    def vs_torch(self) -> float | None:
        """PyTorch's time over the entry point's (> 1: our call is the cheaper)."""
        return None if self.torch_us is None else self.torch_us / self.entry_us

    def to_json(self) -> dict:
        return dict(asdict(self), vs_torch=self.vs_torch)


def overhead(ops: dict, offset: int = 0, quick: bool = False) -> list[CallCost]:
    """One CallCost per op that has a FLOAT layout (`quick`: fewer passes, as --quick)."""
    from codegen.backends.c.binding import make_kernel
    torch = torch_kernels.available()
    out = []
    seen = set()
    for case in select(ops, sizes=[N_LOG2]):
        if case.op in seen or case.dtype != "FLOAT":
            continue
        seen.add(case.op)
        op = ops[case.op]
        kw = case.inputs(0, offset)
        entry, plain = make_kernel(op), make_kernel(op, entry=False)
        o1, o2 = (outputs.allocate(op, kw, NUMPY_DTYPES[case.dtype], offset) for _ in range(2))
        contenders = {"entry": lambda: entry(**kw, out=o1), "ctypes": lambda: plain(**kw, out=o2)}
        torch_fn = None
        if torch is not None:
            try:
                torch_fn = torch_kernels.counterpart(torch, case.op, kw, offset, op=op)
                if torch_fn is not None:
                    torch_fn()
                    contenders["torch"] = torch_fn
            except Exception:      # (a kernel PyTorch lacks: the cell says —)
                pass
        with T.threads(1, torch):
            t = interleaved(contenders, QUICK if quick else POLICY)
        out.append(CallCost(case.op, case.layout.label, t["entry"].median_ns / 1e3, t["ctypes"].median_ns / 1e3,
                            t["torch"].median_ns / 1e3 if "torch" in t else None, t["entry"].runs))
    return out


def table(costs: list[CallCost]) -> str:
    lines = ["| op | layout | compiled entry (µs) | ctypes path (µs) | PyTorch aten `out=` (µs) | "
             "ctypes / entry | vs PyTorch (PyTorch's time / ours) |", "|---|---|---|---|---|---|---|"]
    for c in costs:
        torch = "—" if c.torch_us is None else f"{c.torch_us:.2f}"
        vs = "—" if c.vs_torch is None else f"{c.vs_torch:.2f}×"
        lines.append(f"| {c.op} | {c.layout} | {c.entry_us:.2f} | {c.ctypes_us:.2f} | {torch} | "
                     f"{c.ctypes_us / c.entry_us:.1f}× | {vs} |")
    return "\n".join(lines)
