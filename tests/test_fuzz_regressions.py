"""Every defect the fuzzer (or the issue) found, as a small spec in tests/regression/<case>/ judged by the oracle.

Each case runs on the backends where it failed on main, and on NumPy (cheap) wherever it passes.  The defects
not fixed on this branch are strict xfails: the fix is to come from branch `vocab` (printers, lowering and
rewrites are its files; issue 29, part 1) — when a fix lands the test passes, strict xfail makes it fail, and
the mark is removed (widen codegen.fuzz.grammar.CI_VOCABULARY with it).  Reproduce one by hand with
`opgen --specs tests/regression/<case> oracle --backend <backend>`.
"""
from __future__ import annotations

import pytest

import codegen
from codegen.accuracy import oracle
from codegen.buildcache import BuildError
from codegen.fuzz.batch import kernel

from .conftest import TESTS

REGRESSION = TESTS / "regression"


def vocab(what: str, raises=AssertionError, known: bool = True):
    """A strict xfail for a defect of the printers/lowering/rewrites (branch `vocab`'s files)."""
    reason = ("fixed on branch vocab: " if known else "open, in branch vocab's files: ") + what
    return pytest.mark.xfail(strict=True, raises=raises, reason=reason)


LOWERING = (NotImplementedError, TypeError)
# (case, backend, mark): the backends each case failed on, plus NumPy where it passes
CASES = [
    ("printer_precedence", "numpy", None),
    ("printer_precedence", "c", vocab("C printer: (1 + x**2)**2 in a denominator printed /(x*x + 1)*(x*x + 1)")),
    ("printer_precedence", "ascendc", vocab("Ascend C lowering: a buffer reused while still to be read (liveness): "
                                            "the kernel returns 1")),
    ("sigmoid_grad", "numpy", vocab("codegen.rewrite: optims_c99 turns exp(-x)/(1 + exp(-x))**2 into "
                                    "exp(x)/(exp(x) + 1)**2, nan beyond x = 88.7", known=False)),
    ("sigmoid_grad", "c", vocab("the same rewrite, and the C printer's lost parentheses", known=False)),
    ("sigmoid_grad", "ascendc", vocab("the same rewrite", known=False)),
    ("leaky_relu", "numpy", vocab("codegen/lower.py _hoist: a Piecewise branch (alpha, True) of scalars only is "
                                  "replaced whole by a prelude symbol: TypeError", TypeError, known=False)),
    ("leaky_relu", "c", vocab("lower.py _hoist, as for numpy", TypeError, known=False)),
    ("leaky_relu", "ascendc", vocab("lower.py _hoist, as for numpy", TypeError, known=False)),
    ("repeated_condition", "numpy", None),
    ("repeated_condition", "ascendc", vocab("Ascend C lowering: a condition CSE'd into a temporary",
                                            NotImplementedError, known=False)),
    ("abs_kink", "numpy", None),
    ("abs_kink", "ascendc", vocab("Ascend C lowering of sign", NotImplementedError)),
    ("sqrt", "numpy", None),
    ("sqrt", "ascendc", vocab("Ascend C lowering of a power -1/2 (sqrt, rational powers)", NotImplementedError)),
    ("grad_last", "numpy", None),
    ("grad_last", "ascendc", vocab("Ascend C lowering multiplies gradOutput before the local derivative (it "
                                   "overflows at gradOutput = FLOAT max where codegen.lower's order does not)",
                                   known=False)),
    ("erf", "numpy", vocab("NumPy printer: erf as math.erf, `math` not imported (NameError)")),
    ("erf", "c", vocab("C: erf in a FLOAT kernel does not compile", BuildError)),
    ("erf", "ascendc", vocab("Ascend C lowering of erf", NotImplementedError)),
    ("tanh", "numpy", None),
    ("tanh", "ascendc", vocab("Ascend C lowering of tanh", NotImplementedError)),
    ("constant_sqrt2", "numpy", None),
    ("constant_sqrt2", "c", vocab("C printer: sqrt(2) printed M_SQRT2, undeclared under -std=c11", BuildError)),
    ("constant_sqrt2", "ascendc", vocab("Ascend C lowering: a double constant (no Muls overload)", BuildError)),
    ("log1p", "numpy", None),
    ("log1p", "ascendc", vocab("Ascend C lowering of log1p (log(1 + u) after codegen.rewrite)", NotImplementedError)),
    ("expm1", "numpy", None),
    ("expm1", "ascendc", vocab("Ascend C lowering of expm1 (exp(u) - 1 after codegen.rewrite)", NotImplementedError)),
    ("exp_expansion", "numpy", vocab("codegen.rewrite: optims_c99 rewrites exp(-(x - 2)**2)*exp(x/2) as "
                                     "exp(-4)*exp(9*x/2)*exp(-x**2): inf*0 = nan beyond x = 20", known=False)),
    ("exp_expansion", "c", vocab("the same rewrite", known=False)),
    ("exp_expansion", "ascendc", vocab("the same rewrite", known=False)),
    ("common_denominator", "numpy", vocab("codegen.rewrite: optims_c99 puts a sum of fractions over one denominator "
                                          "of degree 14: inf/inf = nan", known=False)),
    ("numel_without_self", "numpy", vocab("NumPy kernel: numel(\"self\") in a formula that reads no element of "
                                          "self raises NameError", known=False)),
]


def _params():
    for case, backend, mark in CASES:
        yield pytest.param(case, backend, marks=[mark] if mark else [], id=f"{case}-{backend}")


@pytest.mark.parametrize("case, backend", list(_params()))
def test_regression(case, backend):
    ops = codegen.load_specs(REGRESSION / case)
    assert len(ops) == 1
    (name, op), = ops.items()
    fn = kernel(op, backend)     # a build or lowering failure raises here
    records = oracle.check({name: op}, [backend], dtypes=["FLOAT"], products=["ascend910b"],
                           kernels={(name, backend): fn}, sizes=oracle.FUZZ)
    assert records
    for r in records:
        assert r.oracle_passed, oracle.describe(r)


def test_every_regression_spec_is_listed_and_verifies():
    listed = {c for c, _, _ in CASES} | {"threshold", "threshold_extra_branch"}   # (the last two: verification)
    on_disk = {p.name for p in REGRESSION.iterdir() if p.is_dir()}
    assert listed == on_disk
    for case in on_disk - {"threshold_extra_branch"}:
        (op,) = codegen.load_specs(REGRESSION / case).values()
        codegen.api.require_verified(op)
