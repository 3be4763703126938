"""Every defect the fuzzer (or the issue) found, as a small spec in tests/regression/<case>/ judged by the oracle.

Each case runs on the backends where it failed (before branch vocab and the rewrite/lowering fixes), and on
NumPy (cheap) wherever it passed.  Reproduce one by hand with
`opgen --specs tests/regression/<case> oracle --backend <backend>`.
"""
from __future__ import annotations

import numpy as np
import pytest

import codegen
from codegen.accuracy import oracle
from codegen.fuzz.batch import kernel

from .conftest import TESTS

REGRESSION = TESTS / "regression"


# (case, backend, the defect it caught): the backends each case failed on, plus NumPy where it passed.  Every one
# of them passes since branch vocab (printers, lowering, closed vocabulary) and the fixes of the rewrites, the
# lowering and the printers made on branch oracle, and those of branch fuzz29; a case that fails again is a regression.
def open_defect(what: str):
    """A strict xfail for a defect not fixed yet (the test fails the day it is fixed: remove the mark then)."""
    return pytest.mark.xfail(strict=True, raises=AssertionError, reason="open: " + what)


# cases still failing: (case, backend) -> their mark
OPEN: dict = {}

CASES = [
    ("printer_precedence", "numpy", ""),
    ("printer_precedence", "c", "C printer: (1 + x**2)**2 in a denominator printed /(x*x + 1)*(x*x + 1)"),
    ("printer_precedence", "ascendc", "Ascend C lowering: a buffer reused while still to be read (liveness): the "
                                      "kernel returned 1; then gradOutput multiplied before the division"),
    ("sigmoid_grad", "numpy", "codegen.rewrite: optims_c99 factored exp(-x)/(1 + exp(-x))**2 into "
                              "exp(x)/(exp(x) + 1)**2, nan beyond x = 88.7"),
    ("sigmoid_grad", "c", "the same rewrite"),
    ("sigmoid_grad", "ascendc", "the same rewrite"),
    ("leaky_relu", "numpy", "codegen/lower.py _hoist: a Piecewise branch (alpha, True) of scalars only was "
                            "replaced whole by a prelude symbol: TypeError"),
    ("leaky_relu", "c", "lower.py _hoist, as for numpy"),
    ("leaky_relu", "ascendc", "lower.py _hoist, as for numpy"),
    ("repeated_condition", "numpy", ""),
    ("repeated_condition", "ascendc", "Ascend C lowering: a condition CSE'd into a temporary had no mask"),
    ("abs_kink", "numpy", ""),
    ("abs_kink", "ascendc", "Ascend C lowering of sign"),
    ("sqrt", "numpy", ""),
    ("sqrt", "ascendc", "Ascend C lowering of a power -1/2 (sqrt, rational powers)"),
    ("grad_last", "numpy", ""),
    ("grad_last", "ascendc", "Ascend C lowering multiplied gradOutput before the division by the local "
                             "derivative's denominator (overflow at gradOutput = FLOAT max)"),
    ("erf", "numpy", "NumPy printer: erf as math.erf, `math` not imported (NameError)"),
    ("erf", "c", "C: erf in a FLOAT kernel did not compile"),
    ("erf", "ascendc", "Ascend C lowering of erf"),
    ("tanh", "numpy", ""),
    ("tanh", "ascendc", "Ascend C lowering of tanh"),
    ("constant_sqrt2", "numpy", ""),
    ("constant_sqrt2", "c", "C printer: sqrt(2) printed M_SQRT2, undeclared under -std=c11"),
    ("constant_sqrt2", "ascendc", "Ascend C lowering: a double constant (no Muls overload)"),
    ("log1p", "numpy", ""),
    ("log1p", "ascendc", "Ascend C lowering of log1p (log(1 + u) after codegen.rewrite)"),
    ("expm1", "numpy", ""),
    ("expm1", "ascendc", "Ascend C lowering of expm1 (exp(u) - 1 after codegen.rewrite)"),
    ("exp_expansion", "numpy", "codegen.rewrite: optims_c99 factored exp(-(x - 2)**2)*exp(x/2) into "
                               "exp(-4)*exp(9*x/2)*exp(-x**2): inf*0 = nan beyond x = 20"),
    ("exp_expansion", "c", "the same rewrite"),
    ("exp_expansion", "ascendc", "the same rewrite"),
    ("common_denominator", "numpy", "codegen.rewrite: optims_c99 put a sum of fractions over one denominator of "
                                    "degree 14: inf/inf = nan"),
    ("erfc_huge", "numpy", "the oracle's reference: mpmath's erfc raised OverflowError beyond 2^512 (at the 1e300 "
                           "standing for +inf)"),
    ("tanh_kink_proof", "numpy", "the proof: SymPy's simplify ran for minutes on a one-sided derivative holding "
                                 "tanh(beta - 1/4) (the fuzzer's deep run hung)"),
    ("negative_denominator", "numpy", ""),
    ("negative_denominator", "c", "C printer: -1/(alpha + 1)**2 printed -1/(p.alpha + 1)*(p.alpha + 1) (a negative "
                                  "product's factors parenthesized at the level of +)"),
    ("negative_denominator", "ascendc", ""),
    ("log1p_factor", "numpy", "codegen.rewrite: SymPy's log1p_opt factored log(1 + exp(-x**2)) into "
                              "log1p(exp(x**2)) - x**2: 5% off at x = 3.79, nan at x = 10"),
    ("log1p_factor", "ascendc", "the same rewrite"),
    ("inf_grad_rounded_sign", "numpy", "the oracle's special-value rule: with gradOutput = ±inf, a sign FLOAT "
                                       "rounding decides (1 - tanh(10)**2 = 0) was judged against the exact "
                                       "sign (codegen/accuracy/runner.py)"),
    ("inf_grad_rounded_sign", "ascendc", "the same"),
    ("numel_without_self", "numpy", "NumPy kernel: numel(\"self\") in a formula that reads no element of self "
                                    "raised NameError"),
    ("sigmoid_temps", "numpy", ""),
    ("sigmoid_temps", "ascendc", "Ascend C lowering: two sigmoids' stable forms CSE'd into temporaries of the same "
                                 "names, the second divided by the first one's 1 + e (fuzz seed 37)"),
    ("denominator_product", "numpy", "NumPy printer: divided by the product of the denominators, 5e41 at "
                                     "x = 1.2e17: inf, the kernel gave 0 for 9e-23 (fuzz seed 37)"),
    ("denominator_product", "c", "C printer: the same"),
    ("piecewise_condition", "numpy", ""),
    ("piecewise_condition", "ascendc", "Ascend C lowering: no mask for ITE, SymPy's form of a comparison of a "
                                       "Piecewise (tanh's expansion of a Piecewise; fuzz seed 37)"),
    ("sigmoid_of_series", "numpy", ""),
    ("sigmoid_of_series", "ascendc", "Ascend C lowering: a sigmoid of a near-root series chose its branch by the "
                                     "series' sign everywhere (SymPy simplified the ITE; fuzz seed 1717)"),
    ("tanh_of_piecewise", "numpy", ""),
    ("tanh_of_piecewise", "ascendc", "Ascend C lowering: tanh's expansion of a Piecewise took its branch by one "
                                     "piece's sign (the ITE SymPy simplified; fuzz seed 1717)"),
    ("sigmoid_real", "numpy", ""),
    ("sigmoid_real", "ascendc", "Ascend C lowering: re(Sigmoid(u)), SymPy's real part of a power of a sigmoid that "
                                "declared no realness, had no lowering (fuzz seed 1919)"),
    ("constant_temporary", "numpy", ""),
    ("constant_temporary", "ascendc", "Ascend C lowering: a constant CSE temporary bound as a tile, `Add` of a "
                                      "float and a tile did not compile (fuzz seed 1717)"),
    ("sigmoid_times_infinity", "numpy", ""),
    ("sigmoid_times_infinity", "c", "C: -18x·σ(-9x²) at x = ±inf in a sum computed in double gave ∓inf, σ's "
                                    "clamp at -700 times ∞ (the other backends: the nan of ∞·0; fuzz seed 1919)"),
    ("sigmoid_times_infinity", "ascendc", ""),
    ("constant_factor", "numpy", "codegen.lower: 7/20 - 7/20·t² as CompensatedAdd(-c·t², c, lo(c)) gave lo(c) for "
                                 "the 0 at t = ±1 (x = ±inf; fuzz seed 2121)"),
    ("constant_factor", "c", "the same lowering"),
    ("constant_factor", "ascendc", "the same lowering"),
    ("sigmoid_beside_infinity", "numpy", ""),
    ("sigmoid_beside_infinity", "ascendc", ""),
    ("sigmoid_beside_infinity", "c", "C: (x - alpha)*σ(-x) in a sum computed in double gave inf at x = inf, the "
                                     "clamped σ's e^-700 times inf (fuzz seed 2323)"),
    ("log_of_power", "numpy", "the oracle's reference: simplify's log(a**b) with b ~ e^(2x) raised exactly by "
                              "mpmath, MemoryError at x = 3e38, the whole batch failed (fuzz seed 2525)"),
    ("saturate_double_root", "numpy", "codegen.saturate: nroots of u = x**3's derivative 3x**2 (a double root) did "
                                      "not converge: the lowering raised NoConvergence (session 22's grammar survey)"),
    ("saturate_double_root", "c", "the same lowering"),
    ("saturate_double_root", "ascendc", "the same lowering"),
    ("sin_beyond_reduction", "numpy", ""),
    ("sin_beyond_reduction", "ascendc", "the oracle: Ascend C's documented nan past its sin reduction (|a| > 65535.5) "
                                        "judged again against the bound, finite there (codegen.accuracy.runner; fuzz "
                                        "seed 3232)"),
    ("trig_kink_proof", "numpy", "the proof: simplify's trigsimp ran for minutes on the one-sided derivatives of a "
                                 "cos at a jump, shown in the proof's table (codegen.verify.proof.tidy; fuzz seed "
                                 "3131)"),
    ("rounding_sign_infinity", "numpy", "the oracle: an infinity of the other sign where the exact result leaves "
                                        "FLOAT16 and rounding decides its sign (codegen.accuracy.runner; fuzz seed "
                                        "3232)"),
    ("rounding_sign_infinity", "c", "the same (the backend it was found on)"),
    ("constant_in_x", "numpy", "the oracle: gradOutput = nan in a backward that is 0 taken for a tensor the formula "
                               "does not read (this session's unread_operand rule; fuzz seed 3232)"),
    ("constant_in_x", "c", "the same (the backend it was found on)"),
    ("unread_operand", "numpy", "the oracle: an inf in a tensor the formula does not read (a batch's target) made its "
                                "elements special values, judged by class alone (codegen.accuracy.runner; fuzz "
                                "seed 77)"),
    ("product_of_zeros", "numpy", "the oracle's bound: two factors of a product 0 in float64 (1 - tanh(x**3)**2 and "
                                  "log(2 + tanh(x**3)) at x = -2.8), the first-order bound 0, the kernel's 0 for "
                                  "3e-36 beyond it (codegen.accuracy.bound; fuzz seed 3434)"),
    ("scaled_root_power", "numpy", ""),
    ("scaled_root_power", "c", "codegen.rewrite.scaled_square_roots: (root/s)**3 distributed into root**3*2**198, a "
                               "constant outside FLOAT: the C build failed (fuzz seed 3434)"),
    ("finite_beyond_dtype", "numpy", "the oracle: a finite value where the exact result leaves FLOAT16 and rounding "
                                     "decides its size (cos of 4e10) judged by class alone (codegen.accuracy.runner; "
                                     "fuzz seed 3434)"),
    ("finite_beyond_dtype", "c", "the same (the backend it was found on)"),
    ("number_of_row_sums", "numpy", "the oracle's bound: 1/DimSum(1) (a row's length) is a number to SymPy, "
                                    "evaluated as a constant: TypeError, no bound, every record failed "
                                    "(codegen.accuracy.bound; fuzz11's row productions)"),
    ("row_length_nan", "numpy", "the oracle's reference: a row sum constant in x (DimSum(1)) entered the chain rule "
                                "as 0 times a nan dF/dS where a row held a nan: nan for a kernel's right finite "
                                "value (codegen.accuracy.reference; fuzz11, seed 29)"),
]


# the dtype a case is judged in where it is not FLOAT (the dtype its defect shows in)
DTYPE = {"rounding_sign_infinity": "FLOAT16", "finite_beyond_dtype": "FLOAT16"}


def _params():
    for case, backend, _ in CASES:
        mark = OPEN.get((case, backend))
        yield pytest.param(case, backend, marks=[mark] if mark else [], id=f"{case}-{backend}")


@pytest.fixture(scope="module")
def launchers():
    """Every Ascend C case's simulator launcher, built before the first case runs and together (build_many: one
    translation unit instead of 25 compiles, 25 launchers about 4 CPU-s instead of 19).  Each case's kernel is
    then served its launcher under its own key; a launcher that fails to compile is its case's to report (its
    test compiles it alone and raises the compiler's error), not every case's."""
    from codegen.backends.ascendc import build
    from codegen.backends.ascendc.binding import build_job
    from codegen.fuzz.specfile import PRODUCT
    jobs = [build_job(op, PRODUCT) for case, backend, _ in CASES if backend == "ascendc"
            for op in codegen.load_specs(REGRESSION / case).values()]
    try:
        build.build_many(jobs)
    except build.BuildError:
        pass


@pytest.mark.parametrize("case, backend", list(_params()))
def test_regression(case, backend, request):
    if backend == "ascendc":
        request.getfixturevalue("launchers")
    ops = codegen.load_specs(REGRESSION / case)
    assert len(ops) == 1
    (name, op), = ops.items()
    fn = kernel(op, backend)     # a build or lowering failure raises here
    records = oracle.check({name: op}, [backend], dtypes=[DTYPE.get(case, "FLOAT")], products=["ascend910b"],
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


def test_a_wrong_infinity_whose_sign_the_formula_decides_still_fails(ops):
    """The rule inf_grad_rounded_sign relies on excuses only the signs rounding decides: LogSigmoid's local
    derivative 1 - sigmoid(x) is far from 0 at moderate x, so a kernel giving -inf for gradOutput = +inf fails."""
    from codegen import backends
    op = ops["log_sigmoid_backward"]
    fn = backends.get("numpy").make_kernel(op)

    def flipped(**kw):
        out = fn(**kw)
        out[...] = np.where(np.isinf(out) & (np.abs(kw["self"]) < 4), -out, out)
        return out
    records = oracle.check({op.snake_name: op}, ["numpy"], dtypes=["FLOAT"], products=["ascend910b"],
                           kernels={(op.snake_name, "numpy"): flipped})
    assert [r.oracle_passed for r in records] == [False]
    assert records[0].n_failures > 0
