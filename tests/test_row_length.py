"""A row's length as a row sum, `DimSum(1)` along a fixed axis (tests/row_length_specs/rms_norm_grad_x.py, RMSNorm's
mean square), written from the README as a newcomer would: the spec loads (the vocabulary check crashed on
DimSum(1), which SymPy calls a number), proves, and its kernels match PyTorch's autograd of the forward; and the
accuracy run's broadcast layouts are calls the spec's rules accept (dy and x tied by ShapeSame stay whole beside a
broadcast gamma: the run cut x and reported 'a valid call was refused')."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import codegen
from codegen.accuracy import inputs
from codegen.verify import verify_op

SPECS = Path(__file__).parent / "row_length_specs"


def test_a_rows_length_proves():
    op = codegen.load_specs(SPECS)["rms_norm_grad_x"]
    assert all(r.ok for r in verify_op(op)), [str(r) for r in verify_op(op)]


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_a_rows_length_kernel_against_pytorch(backend):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    x, g = (rng.standard_normal((6, 1000)).astype(np.float32) for _ in range(2))
    w = rng.standard_normal(1000).astype(np.float32)
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    y = xt * torch.tensor(w, dtype=torch.float64) / torch.sqrt((xt ** 2).mean(1, keepdim=True) + 1e-6)
    (want,) = torch.autograd.grad(y, xt, torch.tensor(g, dtype=torch.float64))
    got = codegen.kernel("rms_norm_grad_x", backend=backend, specs_dir=SPECS)(dy=g, x=x, gamma=w, epsilon=1e-6)
    # FLOAT arithmetic on a difference that cancels where its two terms meet: judged against the size of the terms
    terms = np.abs(g * w) * 3 + np.abs(want.numpy())
    assert np.all(np.abs(got - want.numpy()) <= 2e-6 * terms)


def test_broadcast_layouts_are_calls_the_rules_accept():
    op = codegen.load_specs(SPECS)["rms_norm_grad_x"]
    kernel = codegen.kernel("rms_norm_grad_x", specs_dir=SPECS)
    layouts = [s for s in inputs.samples(op, "FLOAT") if s.group.startswith("layout: broadcast")]
    assert layouts and all(s.kw["x"].shape == s.kw["dy"].shape for s in layouts)
    for s in layouts:
        kernel(**s.kw)   # raises codegen.AclnnError if the checker refuses the call
