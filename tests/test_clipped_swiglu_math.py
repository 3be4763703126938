"""ClippedSwigluGrad's mathematics (specs/clipped_swiglu_grad.py): the half ops' forms against autograd, and the
proof with the library's inclusive masks (an exclusive one fails).  Its layouts (interleaved rows, groupIndex's
row count) on every backend: tests/test_split.py.

The documented masks are inclusive (the kernel's CompareScalar LE/GE): the gradient passes at x0 = limit and at
x1 = ±limit, as PyTorch's clamp backward does.  Expected values come from PyTorch's autograd of the forward."""
from __future__ import annotations

import dataclasses
import pytest
import sympy

import codegen
from codegen.spec import Formula, Piecewise
from codegen.verify import verify_op
from codegen.verify.cases import cases

torch = pytest.importorskip("torch")

@pytest.fixture(scope="module")
def op():
    return codegen.load_specs()["clipped_swiglu_grad"]


def test_requires_limits_the_halves_proof_cases(op):
    """Requires(limit > 0) reaches each half's proof (codegen.spec.split.half_ops): no case with limit <= 0."""
    for h in op.halves:
        labels = [c.label for c in cases(h)]
        assert labels and all("limit > 0" in lab for lab in labels), labels


def test_formulas_agree_with_autograd_at_and_beyond_the_clamps(op):
    alpha, limit, bias = 1.702, 7.0, 1.0
    pts = [(-3.0, 0.5), (7.0, 7.0), (7.0, -7.0), (7.5, 2.0), (1.0, 7.5), (-20.0, -8.0), (6.999, -6.999)]
    t = lambda v: torch.tensor(v, dtype=torch.float64, requires_grad=True)
    a_s, b_s = op.wrt
    syms = {p.name: p.symbol for p in op.params if p.symbol is not None}
    forms = {f.wrt: f.expr for f in op.formulas}
    for x0, x1 in pts:
        a, b = t(x0), t(x1)
        a0 = torch.clamp(a, max=limit)
        y = a0 * torch.sigmoid(alpha * a0) * (torch.clamp(b, -limit, limit) + bias)
        ga, gb = torch.autograd.grad(y, (a, b))
        env = {a_s: x0, b_s: x1, syms["gradY"]: 1.0, syms["alpha"]: alpha, syms["limit"]: limit, syms["bias"]: bias}
        assert float(forms[a_s].subs(env)) == pytest.approx(ga.item(), rel=1e-12, abs=1e-300), (x0, x1)
        assert float(forms[b_s].subs(env)) == pytest.approx(gb.item(), rel=1e-12, abs=1e-300), (x0, x1)


@pytest.mark.deep
def test_proven_with_inclusive_masks_and_an_exclusive_one_fails(op):
    results = verify_op(op, numeric=True)
    assert results and all(r.ok for r in results), [r for r in results if not r.ok]
    at_bounds = [r for r in results if r.check in ("a = limit", "b = limit", "b = -limit")]
    assert len(at_bounds) == 3 and all(r.verdict == "convention" for r in at_bounds)
    b = op.wrt[1]
    lim = op.param("limit").symbol
    wrong = [dataclasses.replace(f, expr=f.expr.replace(
        lambda e: isinstance(e, Piecewise), lambda e: Piecewise((1, (b > -lim) & (b < lim)), (0, True))))
        if f.wrt == b else f for f in op.formulas]
    bad = verify_op(dataclasses.replace(op, backward=wrong), numeric=False)
    assert any(not r.ok and r.check == "b = limit" for r in bad)
