"""The expression fuzzer: random specs from the spec language's vocabulary, proved, built on every backend and
judged by the differential oracle (codegen.accuracy.oracle).

    grammar.py    Hypothesis strategies for forwards (VOCABULARY; CI_VOCABULARY is what CI draws from): a batch is
                  elementwise, a row op (DimSum) or a reduced loss, by the productions "row" and "loss"
    derive.py     backward = gradOutput * dF/dx (SymPy), declared values where F is not differentiable
    specfile.py   spec files: a batch of 2^k formulas selected by bool attributes, or one formula (a reproducer)
    batch.py      one batch: proof, one build per backend, the oracle, failures narrowed to single formulas

`run(...)` is the entry point of `opgen fuzz` and of tests/test_fuzz.py.  Hypothesis draws the batches (each
example is a list of forwards); `seed` fixes them, so a run is reproducible: `opgen fuzz --seed S --batches N`
draws the same N batches again.  Every failure is written as a single-formula spec (a reproducer) that
`opgen --specs DIR oracle` runs alone.
"""
from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import grammar, specfile
from .batch import BatchResult, Finding, run_batch
from .grammar import CI_DEPTH, CI_VOCABULARY, VOCABULARY

BACKENDS = ("numpy", "c", "ascendc")


class _TimeUp(Exception):
    pass


@dataclass
class Report:
    seed: int
    batches: int = 0
    formulas: int = 0
    records: int = 0
    dropped: list = field(default_factory=list)      # (forward, why)
    findings: list = field(default_factory=list)     # Finding
    seconds: float = 0.0
    folder: str = ""

    def summary(self) -> str:
        return (f"seed {self.seed}: {self.batches} batches, {self.formulas} formulas, {self.records} oracle "
                f"records, {len(self.dropped)} drawn formulas dropped (the prover cannot decide them), "
                f"{len(self.findings)} findings in {self.seconds:.0f} s; specs in {self.folder}")


def run(seed: int = 0, batches: int | None = 1, minutes: float | None = None, size: int = 16,
        vocabulary=CI_VOCABULARY, backends=BACKENDS, dtypes=tuple(specfile.DTYPES), folder=None, depth=CI_DEPTH,
        log=lambda m: None, kinds=None) -> Report:
    """Fuzz `batches` batches of `size` formulas (or as many as fit in `minutes`) drawn with `seed`.

    `vocabulary` is a list of constructs (one batch per draw, run on every backend) or {backend: list} (one
    batch per backend, drawn from its own list: CI_VOCABULARY); `depth` likewise an int or {backend: int}.
    `kinds`: the batch kinds drawn ("elementwise" and grammar.KINDS), else elementwise and those `vocabulary` names."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed
    from hypothesis import strategies as st

    # one vocabulary for every backend (one batch, run on each), or one per backend (a batch each)
    plans = {b: (tuple(vocabulary[b]), depth[b] if isinstance(depth, dict) else depth) for b in backends} \
        if isinstance(vocabulary, dict) else \
        {tuple(backends): (tuple(vocabulary), depth if isinstance(depth, int) else max(depth.values()))}
    unknown = {v for vocab, _ in plans.values() for v in vocab} - set(VOCABULARY)
    if unknown:
        raise ValueError(f"not in the vocabulary: {', '.join(sorted(unknown))} (have: {', '.join(VOCABULARY)})")
    folder = Path(folder or tempfile.mkdtemp(prefix="opgen-fuzz-"))
    report = Report(seed, folder=str(folder))
    t0 = time.perf_counter()
    deadline = t0 + minutes * 60 if minutes else None
    limit = batches if batches else 10 ** 6

    names = {key: "_".join(key) if isinstance(key, tuple) else key for key in plans}
    strategy = st.fixed_dictionaries({
        key: grammar.batch(vocab, d, size, kinds) for key, (vocab, d) in plans.items()})

    @hseed(seed)
    @settings(max_examples=limit, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def one(drawn):
        if report.batches >= limit or (deadline and time.perf_counter() > deadline):
            raise _TimeUp
        i = report.batches
        report.batches += 1
        for key, forwards in drawn.items():
            on = key if isinstance(key, tuple) else (key,)
            tag = "" if len(plans) == 1 else f"_{names[key]}"
            stem = f"fuzz_s{seed}_b{i}{tag}_backward"
            try:
                result: BatchResult = run_batch(forwards, folder, stem, on, dtypes,
                                                origin=f"seed {seed}, batch {i}{tag}", seed=seed)
            except Exception as e:  # noqa: BLE001 - the pipeline itself broke: a finding, and the run goes on
                result = BatchResult(findings=[Finding(forwards, "/".join(on), None,
                                                       f"the fuzzer broke: {type(e).__name__}: {e}",
                                                       str(folder / f"{stem}.py"))])
            report.formulas += len(result.formulas)
            report.records += result.records
            report.dropped += result.dropped
            report.findings += result.findings
            log(f"batch {i}{tag}: {len(result.formulas)} formulas, {len(result.findings)} findings, "
                + ", ".join(f"{k} {v:.0f} s" for k, v in result.seconds.items()))
            for f in result.findings:
                log(f"  FINDING {f.line()}\n    reproducer: {f.spec}")

    try:
        one()
    except _TimeUp:
        pass
    report.seconds = time.perf_counter() - t0
    return report


__all__ = ["run", "Report", "Finding", "VOCABULARY", "CI_VOCABULARY", "CI_DEPTH", "BACKENDS"]
