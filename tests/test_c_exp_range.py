"""A row kernel's finish whose double sums take exps of operands (LogSoftmaxBackward's g - e^y sum g) runs a loop
without opgen_exp_f64's range selects that also checks a block's arguments, and when one is not within (-708, 709]
computes the block again with them (codegen/backends/c/opsource.py: _exp_scan).  Both loops must give the same bits: here each row is computed once
alone (the loop without selects) and once with one more element whose argument is out of range and whose gradient is
0 (the same row sums; the loop with selects), and the row's own results are compared bit for bit."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import codegen

DTYPES = [np.float32, np.float16, ml_dtypes.bfloat16]


@pytest.mark.parametrize("dtype", DTYPES, ids=["FLOAT", "FLOAT16", "BFLOAT16"])
@pytest.mark.parametrize("n", [64, 300])   # packed rows of 64, and a row of one block
def test_the_loop_without_range_selects_gives_their_bits(dtype, n):
    k = codegen.kernel("log_softmax_backward", backend="c")
    rng = np.random.default_rng(35)
    rows = 4
    g = rng.standard_normal((rows, n)).astype(np.float32).astype(dtype)
    # log-probabilities, and the bounds of the range itself (-708 is out of it, 709 in it)
    y = np.log(rng.uniform(0.5 / n, 1.5 / n, (rows, n))).astype(np.float32).astype(dtype)
    y[0, :4] = [-700.0, 8.0, -707.0, 709.0]
    alone = k(grad_output=g, output=y, dim=-1)
    for outside in (-np.inf, -708.0, -1000.0, 1000.0, np.nan):
        g1 = np.concatenate([g, np.zeros((rows, 1), dtype)], axis=1)
        y1 = np.concatenate([y, np.full((rows, 1), outside, np.float32).astype(dtype)], axis=1)
        longer = k(grad_output=g1, output=y1, dim=-1)
        bits = f"u{alone.itemsize}"
        np.testing.assert_array_equal(longer[:, :n].view(bits), alone.view(bits), err_msg=f"{outside}")


@pytest.mark.parametrize("name", ["log_softmax_backward", "cross_entropy_loss_grad"])
def test_the_row_loops_call_no_double_exp(name):
    """The double exp of a row kernel's finish is inlined into its loops (vectorized): main's CrossEntropyLossGrad
    called opgen_exp_f64 out of line from its chunked FLOAT16/BFLOAT16 rows, one element at a time, 6-8x slower
    (GCC 12 kept it out of line beside the 256-bit entries, opgen_chunks.h: OPGEN_F64_ROWS).  The row walks'
    entries only (a column walk, finish_col_chunked, is not CrossEntropyLossGrad's)."""
    import re
    import shutil
    import subprocess

    from codegen.backends.c import build
    if shutil.which("objdump") is None:
        pytest.skip("needs objdump")
    lib = build.library(codegen.load_specs()[name])
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(lib)], capture_output=True, text=True,
                          check=True).stdout
    callers, function = set(), None
    for line in text.splitlines():
        if m := re.match(r"[0-9a-f]+ <([^>]+)>:$", line):
            function = m.group(1)
        elif re.search(r"call.*<opgen_exp", line) and re.match(r"(finish_row|finish_rowsum|rows)", function or ""):
            callers.add(function)
    assert not callers, f"{name}: the double exp called out of line from {sorted(callers)}"
