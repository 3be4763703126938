"""Accuracy and conformance of the generated kernels against references that share no code with them.

    reference.py   the exact result: the spec's forward differentiated by SymPy, evaluated in mpmath
    dtypes.py      formats, rounding once from mpmath to FLOAT/FLOAT16/BFLOAT16, ulps
    inputs.py      OpInfo-style input sets generated from the spec (typical, branch points, large, tiny,
                   special values, broadcast/empty/rank 0/rank 8/non-contiguous layouts)
    standards.py   the Ascend precision standards (ascend.md §6) and the issue's goal
    torch_ref.py   PyTorch's own backward kernels on the same inputs (when installed), keyed by aclnn name
    runner.py      op × backend × dtype × product: run, measure, judge
    report.py      the Markdown and JSON report

`opgen accuracy` (codegen/cli.py) drives it; `run(ops, backends, full)` is the Python entry point.
"""
from .runner import Record, run

__all__ = ["Record", "run"]
