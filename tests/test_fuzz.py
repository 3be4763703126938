"""The expression fuzzer (codegen.fuzz): the fixed-seed slice through every backend, and the fuzzer's own parts.

The slice draws one batch of 8 formulas per backend from `CI_VOCABULARY[backend]` (every production whose
constructs codegen.vocabulary says the backend accepts: today the whole vocabulary), proves it, builds it once and judges every formula with the oracle in FLOAT,
FLOAT16 and BFLOAT16.  `pytest --deep` runs 8 batches per backend (about ten minutes); `opgen fuzz --minutes 10`
runs as long as asked.  A finding's message names a reproducer spec: `opgen --specs <its folder> oracle`.
"""
from __future__ import annotations

import time

import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, given, settings

import codegen
from codegen import fuzz
from codegen.accuracy.reference import Reference
from codegen.spec import DimSum
from codegen.fuzz import batch, grammar, specfile
from codegen.fuzz.derive import _same_at_samples, backward_of, declarations, in_vocabulary, outside
from codegen.fuzz.specfile import ALPHA, BETA, G, T, X
from codegen.verify import verify_op
from codegen.verify.cases import cases
from codegen.verify.result import Result

from .conftest import deep_examples

CI_SEED = 29


def test_fuzz_slice(tmp_path):
    report = fuzz.run(seed=CI_SEED, batches=deep_examples(1, 8), size=8, folder=tmp_path)
    assert report.formulas >= 3 * 6 * report.batches, report.summary()   # few drawn formulas dropped
    assert report.records > 0
    assert not report.findings, "\n".join(f"{f.line()}\n  reproducer: {f.spec}" for f in report.findings)


@settings(max_examples=deep_examples(40, 400), deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(grammar.forwards(grammar.VOCABULARY))
def test_drawn_forwards_are_sensible_specs(forward):
    """Every construct's domain is respected by construction: the forward and its derivative are real and finite
    on typical inputs, for every value of the scalars the rules allow."""
    backward = backward_of(forward)
    xs = np.linspace(-4, 4, 41)
    for alpha, beta, t in ((0.3, -1.7, 0.6), (2.5, 0.4, -2.0)):
        f = sympy.lambdify(X, forward.subs({ALPHA: alpha, BETA: beta, T: t}), "mpmath")
        b = sympy.lambdify(X, backward.subs({ALPHA: alpha, BETA: beta, T: t, G: 1}), "mpmath")
        for x in xs:
            for fn in (f, b):
                v = complex(fn(float(x)))
                assert v.imag == 0 and np.isfinite(v.real), (forward, alpha, beta, x)


def test_the_ci_vocabularies_are_what_each_backend_accepts():
    """One source of truth: each backend's CI vocabulary is every production whose constructs codegen.vocabulary
    says it accepts, and the productions draw every construct of the closed vocabulary but the reductions
    (DimSum, GridSum)."""
    from codegen import vocabulary
    assert set(fuzz.CI_VOCABULARY) == set(fuzz.BACKENDS)
    for backend, vocab in fuzz.CI_VOCABULARY.items():
        accepted = {c.name for c in vocabulary.accepted(backend)}
        assert vocab == tuple(p for p in grammar.VOCABULARY if p not in grammar.KINDS
                              and all(c.name in accepted for c in grammar.constructs(p))), backend
        # today every backend accepts the whole vocabulary; the slice leaves out the batch kinds (a row op's or a
        # reduced loss's batch costs many times an elementwise one: test_fuzz_slice_rows_and_losses, --deep)
        assert vocab == tuple(p for p in grammar.VOCABULARY if p not in grammar.KINDS), backend
    drawn = {c.name for p in grammar.VOCABULARY for c in grammar.constructs(p)}
    # (nan, acts' constant for a value outside a forward's domain, LogitGrad's, is not drawn: a drawn formula that
    # is nan somewhere tests nothing the oracle can judge; GridSum, a sum over the whole call, only by the catalog)
    assert drawn == {c.name for c in vocabulary.VOCABULARY} - {"GridSum(a)", "nan"}


@pytest.mark.deep
@pytest.mark.parametrize("kind", ["row", "loss"])
def test_fuzz_slice_rows_and_losses(tmp_path, kind):
    """The batch kinds through every backend: two batches of 4 row ops (softmax, log-softmax, L2-normalize,
    mean-center of a drawn u), or of 4 losses reduced none/mean/sum (some weighted)."""
    report = fuzz.run(seed=CI_SEED, batches=2, size=4, vocabulary=grammar.VOCABULARY, depth=3, kinds=(kind,),
                      folder=tmp_path)
    assert report.formulas >= 4 and report.records > 0, report.summary()
    assert not report.findings, "\n".join(f"{f.line()}\n  reproducer: {f.spec}" for f in report.findings)


def test_row_and_loss_batches_are_specs_of_their_kind(tmp_path):
    """A row batch is a DimSum op along the last axis, its backward the vector-Jacobian product derived with the
    row sums held (no DimSum inside another); a loss batch has `reduction` (none/mean/sum), the mean's factor in
    every backward and an optional weight where a formula reads it: both are proved (cheap formulas: ~2 CPU-s)."""
    u = sympy.sin(X / 2)
    row = [2 * X - sympy.log(DimSum(sympy.exp(2 * X))), u - DimSum(u) / DimSum(1)]
    b = backward_of(row[0])
    assert sympy.expand(b - (2 * G - 2 * sympy.exp(2 * X) * DimSum(G) / DimSum(sympy.exp(2 * X)))) == 0
    loss = [specfile.LOSS * specfile.W * sympy.Abs(X - 1) * X, specfile.LOSS * sympy.log(1 + sympy.exp(X - T))]
    for stem, forwards in (("fuzz_row_backward", row), ("fuzz_loss_backward", loss)):
        result = batch.BatchResult()
        op, loaded = batch.prepare(forwards, tmp_path, stem, "tests", result)
        assert not result.dropped and [f for f, _, _ in loaded] == forwards
        assert all(r.ok for r in verify_op(op, numeric=False))
        if stem == "fuzz_row_backward":
            assert op.reduce_dim == -1 and not op.loss_reduction
            assert not any(s.args[0].has(DimSum) for f in op.formulas for s in sympy.sympify(f.expr).atoms(DimSum))
        else:
            assert op.loss_reduction == "reduction" and op.param("weightOptional").optional
            assert all(sympy.sympify(f.expr).has(specfile.REDUCTION) for f in op.formulas)
            assert loaded[0][2] == {sympy.Integer(1): loaded[0][2][sympy.Integer(1)]}   # the kink at x = 1 declared


def test_a_batch_spec_selects_each_formula(tmp_path):
    """Formula i of a batch is selected by the bits of i in f0, f1: the forward, the backward and the declared
    values of each setting are that formula's, and the reference differentiates that forward."""
    forwards = [X ** 2, sympy.Abs(X - ALPHA), sympy.exp(X / 2) * BETA, sympy.Max(X, 1) * X]
    forms = [(f, backward_of(f), {}) for f in forwards]
    forms[1] = (forms[1][0], forms[1][1], {ALPHA: 0})
    forms[3] = (forms[3][0], forms[3][1], {sympy.Integer(1): G})
    specfile.write(tmp_path, "fuzz_t1_backward", specfile.batch_source("fuzz_t1_backward", forms, "tests"))
    op = codegen.load_specs(tmp_path)["fuzz_t1_backward"]
    assert all(r.ok for r in verify_op(op, numeric=False))
    point = {X: sympy.Rational(7, 3), ALPHA: sympy.Rational(1, 2), BETA: sympy.Rational(-3, 2), G: 1}
    assert len(op.variants) == 4
    for variant in op.variants:
        i = int(variant.key["f0"]) + 2 * int(variant.key["f1"])
        assert variant.formula is op.formulas[i]
        want = sympy.diff(forwards[i], X).subs(point)
        assert sympy.simplify(sympy.sympify(variant.expr).subs(point) - want) == 0
        ref = Reference(op, variant)
        got = ref._d_elementwise(*[sympy.Float(point[X], 30)], [], [float(point[p.symbol]) for p in ref.scalars])
        assert abs(float(got) - float(want)) < 1e-12
    assert op.formulas[1].at and op.formulas[3].at and not op.formulas[0].at


def test_each_formula_of_a_batch_splits_the_scalars_by_its_own_branch_points(tmp_path):
    """codegen.verify.cases reads a variant's forward with its bool attributes fixed: the kink at x = 1 of one
    formula and at x = alpha of the other meet at alpha = 1 in neither formula, so neither splits alpha there (each
    did: 6 cases for 2, and seed 3333's batch proof spent minutes in a spurious `0 < alpha < 1` its formulas never
    have alone)."""
    forwards = [sympy.Piecewise((X - 1, X > 1), (0, True)), sympy.Piecewise((X - ALPHA, X > ALPHA), (0, True))]
    forms = [(f, backward_of(f), {}) for f in forwards]
    specfile.write(tmp_path, "fuzz_t5_backward", specfile.batch_source("fuzz_t5_backward", forms, "tests"))
    op = codegen.load_specs(tmp_path)["fuzz_t5_backward"]
    assert [c.label for c in cases(op)] == ["f0=false, alpha > 0", "f0=true, alpha > 0"]


def test_a_failing_formula_is_narrowed_to_a_reproducer(tmp_path, monkeypatch):
    """A backend wrong on one formula of a batch: the finding names that formula, with a spec that fails alone."""
    real = batch.kernel

    def wrong_on_exp(op, backend):   # wrong where the formula is exp(x/2): f0 set in the batch, or alone
        fn = real(op, backend)
        alone = any(sympy.sympify(f.expr).has(sympy.exp) for f in op.formulas)

        def kernel(**kw):
            out = fn(**kw)
            return out * out.dtype.type(1.01) if kw.get("f0", alone) else out
        return kernel
    monkeypatch.setattr(batch, "kernel", wrong_on_exp)
    result = batch.run_batch([X ** 2, sympy.exp(X / 2)], tmp_path, "fuzz_t1_backward", backends=("numpy",),
                             dtypes=("FLOAT",))
    assert result.formulas == [X ** 2, sympy.exp(X / 2)]
    assert len(result.findings) == 1
    finding = result.findings[0]
    assert finding.forward == sympy.exp(X / 2) and finding.backend == "numpy" and finding.dtype == "FLOAT"
    assert "beyond the bound" in finding.what
    (op,) = codegen.load_specs(tmp_path / "reproducers").values()
    assert op.source == finding.spec and len(op.formulas) == 1


def test_a_declared_value_is_written_in_the_spec_language():
    """The proof may simplify the value a backward gives at a kink into functions a spec file does not import:
    G/cosh(13/6 + alpha)**2 at x = 2 + alpha (seed 37: the batch spec raised NameError, the whole batch was
    lost).  The fuzzer writes it in exponentials, equal to it.  (cosh is in the vocabulary since session 19: sech,
    which SymPy may also write, is not.)"""
    value = G * sympy.sech(sympy.Rational(13, 6) + ALPHA) ** 2
    assert outside(value) == {"sech"}
    written = in_vocabulary(value)
    assert not outside(written)
    point = {G: 1.5, ALPHA: 0.7}
    assert abs(float(written.subs(point)) - float(value.subs(point))) < 1e-15


def test_declared_values_are_read_per_formula_once_and_for_every_scalar():
    """(seed 7) the batch's proof split alpha's range in three (one formula's kinks alpha and 1 can stand in
    either order), and every formula was proved in each case: formula 1's kink 1/alpha came back as x = 1 (alpha
    = 1) and unsimplified (0 < alpha < 1), and all three were declared, x = 1 for every alpha: the proof with
    the declarations failed.  A point is now declared once, and one seen only where a scalar equals a value is
    that value's instance of a general point, or a kink `at=` cannot state (the formula is left out)."""
    def line(case, point, value="0"):
        return Result("op", case, "x = ...", "FAILED", "not differentiable", undeclared=[point, value])
    lines = [line("f0=true, 0 < alpha < 1", "(1 - alpha)*(alpha/(1 - alpha) + 1)/alpha"),
             line("f0=true, alpha > 1", "1/alpha"), line("f0=true, alpha = 1", "1"),
             line("f0=false, alpha = 1", "2")]
    declared, why = declarations(lines, 1)
    assert declared == {1: {1 / ALPHA: 0}}
    assert list(why) == [0] and "only where alpha = 1" in why[0]


def test_a_kink_in_some_scalar_range_only_is_left_out(tmp_path):
    """(seed 7, batch 3) a branch `x <= -2 & x >= -beta` is empty for beta < 2: its kink at x = -2 was declared
    for every beta (the value from beta > 2), the proof refused it for beta < 2 (the forward is smooth there), and
    the whole batch was lost as "the fuzzer broke".  The formula is left out, the rest of the batch goes on."""
    partial = sympy.Piecewise((X, (X <= -2) & (BETA + X >= 0)), (X ** 2, True))
    result = batch.BatchResult()
    op, loaded = batch.prepare([partial, sympy.exp(X / 2)], tmp_path, "fuzz_partial_backward", "tests", result)
    assert [f for f, _, _ in loaded] == [sympy.exp(X / 2), batch.FILLER]
    (dropped, why), = result.dropped
    assert dropped == partial and "a kink at x = -2 in some cases of the scalars only" in why


@pytest.mark.deep
def test_a_declared_value_is_written_in_the_spec_language_end_to_end(tmp_path):
    """The same through the proof: seed 37's formula gives a spec that loads and verifies."""
    forward = sympy.Min(2, X - ALPHA) / (1 + sympy.exp(-sympy.Max(sympy.Rational(-3, 2), 2 * X + sympy.Rational(1, 3))))
    op = batch.single_spec(forward, tmp_path, "fuzz_cosh_backward")
    values = list(op.at.values())
    assert values and not any(outside(v) for v in values)


def _spin(seconds):
    """Stands for a hang: CPU time spent (the fuzzer's time limits count the process's CPU time, not sleep)."""
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass


def test_a_proof_that_hangs_is_a_finding_and_the_batch_goes_on(tmp_path, monkeypatch):
    """(seed 38) a formula whose proof does not finish stopped the whole run: now it is a finding with its
    reproducer, and the rest of its batch is proved, built and judged."""
    real = batch._verify

    def slow_on_exp(op):   # stands for the prover's hang on one formula
        if any(sympy.sympify(f.expr).has(sympy.exp) for f in op.formulas):
            _spin(5)
        return real(op)
    monkeypatch.setattr(batch, "_verify", slow_on_exp)
    monkeypatch.setattr(batch, "PROOF_SECONDS", {"batch": 1, "formula": 1})
    result = batch.run_batch([X ** 2, sympy.exp(X / 2)], tmp_path, "fuzz_t2_backward", backends=("numpy",),
                             dtypes=("FLOAT",))
    assert result.formulas == [X ** 2]
    (finding,) = result.findings
    assert finding.forward == sympy.exp(X / 2) and finding.backend == "verify" and "hung" in finding.what
    assert codegen.load_specs(tmp_path / "reproducers")


def test_a_proof_that_hangs_only_with_its_declared_values_is_a_finding_too(tmp_path, monkeypatch):
    """(seed 7) the batch's second proof, with the values declared at the kinks, ran without the time limit:
    checking a declared value hung for most of an hour.  Now it is a finding like any hang."""
    real = batch._verify

    def slow_on_declared_abs(op):   # stands for simplify hanging on a declared value's check
        if any((f.at or op.at) and sympy.sympify(f.expr).has(sympy.Abs, sympy.sign) for f in op.formulas):
            _spin(5)
        return real(op)
    monkeypatch.setattr(batch, "_verify", slow_on_declared_abs)
    monkeypatch.setattr(batch, "PROOF_SECONDS", {"batch": 1, "formula": 1})
    result = batch.run_batch([X ** 2, sympy.Abs(X - 1)], tmp_path, "fuzz_t3_backward", backends=("numpy",),
                             dtypes=("FLOAT",))
    assert result.formulas == [X ** 2]
    (finding,) = result.findings
    assert finding.forward == sympy.Abs(X - 1) and finding.backend == "verify" and "hung" in finding.what
    (reproducer,) = [op for op in codegen.load_specs(tmp_path / "reproducers").values() if op.forward.has(sympy.Abs)]
    assert reproducer.at, "the reproducer carries the declared value that hung"


def test_declarations_that_hang_are_a_finding_and_the_run_goes_on(tmp_path, monkeypatch):
    """(seed 2121) after the batch proof, comparing the values declared in its cases (sympy.expand in
    proof.is_zero) ran for more than 20 minutes without a time limit: now it stops at the batch limit with an
    error naming it, which the run reports as a finding (codegen.fuzz.run) and goes on."""
    real = batch.declarations

    def slow(*args):   # stands for expand hanging on two case values
        _spin(5)
        return real(*args)
    monkeypatch.setattr(batch, "declarations", slow)
    monkeypatch.setattr(batch, "PROOF_SECONDS", {"batch": 1, "formula": 1})
    with pytest.raises(RuntimeError, match="comparing the values declared in the proof's cases hangs"):
        batch.run_batch([X ** 2, sympy.Abs(X - 1)], tmp_path, "fuzz_t4_backward", backends=("numpy",),
                        dtypes=("FLOAT",))



def test_two_cases_values_of_a_kink_are_compared_at_samples_not_by_simplify():
    """(seeds 2525 and 2626) comparing a kink's value across the proof's cases by `same_value` (simplify) took 149
    CPU-s for 32 pairs, past the batch's limit, and the batch was lost: they are compared at sample values of the
    scalars (the batch is proved again with the values declared), the proof only where a sample gives no number."""
    a = ALPHA / (3 * (sympy.Rational(1, 3) - ALPHA) * (ALPHA / (sympy.Rational(1, 3) - ALPHA) + 1))
    refuse = lambda *_: pytest.fail("no proof needed where the samples decide")
    assert _same_at_samples(a, ALPHA, refuse)
    u = sympy.Rational(3, 2) * ALPHA + sympy.Rational(1, 2)
    assert _same_at_samples(G * (1 - sympy.tanh(u) ** 2), G / sympy.cosh(u) ** 2, refuse)
    assert not _same_at_samples(a, ALPHA ** 2, refuse)
    assert not _same_at_samples(G * sympy.exp(-ALPHA), G * sympy.exp(-ALPHA) * (1 + sympy.Rational(1, 10 ** 20)),
                                refuse)
    # (no real number at a sample: the proof decides)
    assert _same_at_samples(sympy.log(ALPHA - 1), sympy.log(ALPHA - 1), lambda a, b: True)


def test_a_kinks_declared_value_in_nested_fractions_is_compared_without_expand(tmp_path):
    """(seed 3131, batch 1: the open proof hang of session 22) the value the backward gives at the kink x = 1/2 and
    the one declared there (from the proof's case alpha < 1/2), both tanh of one rational function of alpha written
    as differently nested fractions: `proof.is_zero`'s expand (then simplify) ran past the fuzzer's 120 CPU-s.
    Function applications held as symbols over arguments in one rational form (`_opaque_zero`, tried first) decide it
    at once, and the proof gives its verdict: at alpha = 1/2 the two kinks meet and the value declared at x = 1/2 is
    nan there (0/0 in alpha/(1/2 - alpha)), so the spec does not verify (the fuzzer leaves such a formula out).  The
    limit only stops a hang (the proof takes about 1 CPU-s)."""
    a, h = ALPHA, sympy.Rational(1, 2)
    n = a / (h - a) + 1
    m = a ** 2 / (16 * (h - a) ** 2 * n ** 2) + 1
    t = a / ((2 - 4 * a) * n * m)
    dt = a / ((1 - 2 * a) * n * m) - a ** 3 / (16 * (h - a) ** 3 * n ** 3 * m ** 2)
    u = a ** 2 / (a ** 4 + 1)
    at = {h: G * (1 - sympy.tanh(t) ** 2) * dt / (2 * sympy.sqrt(sympy.tanh(t) + 2)),
          a: G * (1 - sympy.tanh(u) ** 2) * (a / (a ** 4 + 1) - 2 * a ** 5 / (a ** 4 + 1) ** 2)
          / (2 * sympy.sqrt(sympy.tanh(u) + 2))}
    forward = sympy.Piecewise((sympy.log(3 - sympy.tanh(X)), (X > h) & (a - X < 0)),
                              (sympy.sqrt(2 + sympy.tanh(a * X / (1 + a ** 2 * X ** 2))), True))
    stem = "fuzz_hang3131_backward"
    specfile.write(tmp_path, stem, specfile.single_source(stem, forward, backward_of(forward), at, "tests"))
    op = codegen.load_specs(tmp_path)[stem]
    with batch.time_limit(60):
        failed = [r for r in verify_op(op, numeric=False) if not r.ok]
    assert [(r.formula, r.check) for r in failed] == [("alpha = 1/2", "x = 1/2")]
    assert "two declared values at x = 1/2: nan and" in failed[0].detail
