"""One batch of fuzzed formulas through the whole pipeline: spec file, proof, kernels on every backend, oracle.

    run_batch(forwards, folder, stem, backends, dtypes) -> BatchResult

1. each forward gets its backward (derive.py); the batch spec is written without declared values and proved:
   the branch points the proof names as not differentiable get the value the backward gives there; formulas
   the prover cannot handle are dropped (and counted), the batch is padded to 2^k formulas and written again
   with its declarations, then proved again: it must verify before any kernel is built (as `codegen.kernel`
   requires);
2. one build per backend serves every formula: the NumPy module, one C library (compiled at -O0: the printed
   C is what is under test, and on x86-64 (SSE arithmetic) with -ffp-contract=off and no fast-math the
   optimisation level does not change a result; -O3 takes several times longer), one Ascend C simulator
   executable for `specfile.PRODUCT`;
3. the oracle runs every formula (a kernel variant each) in every dtype.
A backend whose build fails is retried on each half of the batch, down to single formulas, so every formula
that builds is still judged; a formula the oracle fails is run again alone, from a spec of its own (a
reproducer, `Finding.spec`): what fails there is a finding.
"""
from __future__ import annotations

import signal
import threading
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import sympy

from codegen.accuracy import oracle

from . import specfile
from .derive import Unusable, backward_of, declarations, formula_index, outside
from codegen.spec import DimSum
from codegen.spec.op import points_of

from .specfile import ALPHA, X

FILLER = ALPHA + 7 * X / 11   # pads a batch to 2^k formulas: every backend handles it, the grammar never draws it
# a batch is of one kind (specfile.kind): a row op's or a loss's padding is a formula of that kind
FILLERS = {"elementwise": FILLER, "loss": specfile.LOSS * FILLER, "row": 7 * X / 11 - DimSum(X) / DimSum(1)}


def is_filler(forward) -> bool:
    return any(forward is f for f in FILLERS.values())


def _pad(forms: list, k: int) -> list:
    """`forms` padded to 2^k formulas with the filler of their kind."""
    f = FILLERS[specfile.kind([fwd for fwd, _, _ in forms])]
    return forms + [(f, backward_of(f), {})] * (2 ** k - len(forms))


@dataclass
class Finding:
    """A formula that a backend gets wrong (or cannot build), with a spec file that reproduces it alone."""
    forward: object
    backend: str
    dtype: str | None        # None: the build failed
    what: str                # the oracle's description, or the build error
    spec: str = ""           # path of the single-formula reproducer

    def line(self) -> str:
        return f"{self.backend} {self.dtype or 'build'}: F = {self.forward}: {self.what.splitlines()[0][:300]}"


@dataclass
class BatchResult:
    formulas: list = field(default_factory=list)       # the forwards run (padding excluded)
    dropped: list = field(default_factory=list)        # (forward, why): not a formula the prover can take
    findings: list = field(default_factory=list)
    records: int = 0
    seconds: dict = field(default_factory=dict)


def _c_flags():
    from codegen.backends.c import build
    return ["-O0" if f == "-O3" else f for f in build.FLAGS]


def c_kernel(op):
    """The C backend's kernel: the op's generated source compiled at -O0 (see the module docstring) and linked
    with the runtime archive, so a build compiles only what the op adds."""
    from codegen.backends.c import binding, build
    from codegen.buildcache import cached_build
    flags = _c_flags()
    runtime = build.runtime_archive(flags)
    files = build.sources(op)
    own = sorted(p for p in files if p.endswith(".c") and p.startswith("src/aclnn_"))

    def command(src: Path, out: Path) -> list[str]:
        return [build.CC, *flags, "-I", str(src / "include"), *[str(src / p) for p in own],
                *build.link_runtime(runtime), "-o", str(out), *build.LIBS]
    path = cached_build("c-fuzz", op.snake_name, files, build.CC, flags + build.LIBS, command, suffix=".so",
                        key_extra={"runtime": str(runtime)})
    return binding.make_kernel(op, path=path)


def kernel(op, backend: str):
    """Build `backend`'s kernel of `op` now (so a build error surfaces here, not at the first call)."""
    from codegen import backends
    if backend == "c":
        return c_kernel(op)
    if backend == "ascendc":
        from codegen.backends.ascendc import binding
        binding.executable(op, specfile.PRODUCT)
    return backends.get(backend).make_kernel(op)


def _verify(op):
    from codegen.verify import verify_op
    return verify_op(op, numeric=False)


# A proof that runs this long is a finding (a spec author's `opgen verify` would hang on it too), and the batch
# goes on without that formula.  (Seed 38: (exp(tanh((x - alpha)*|alpha*x - 1|)) - 1)*|1 + alpha - exp(...)|, whose
# nested kinks codegen.verify.intervals.piecewise_form folds for more than half an hour, stopped the run.)
PROOF_SECONDS = {"batch": 300, "formula": 120}


class ProofTimeout(BaseException):
    """A BaseException: codegen.verify reports any Exception of a case as a failed proof, which would drop the
    formula quietly (and the alarm fires once: the rest of the batch would run without a limit)."""


@contextmanager
def time_limit(seconds):
    """Raise ProofTimeout in the block after `seconds` of this process's CPU time (SIGPROF: the main thread only;
    elsewhere no limit).  CPU time, not wall time: on a machine shared with other jobs a proof's wall time grows
    with the load (seed 2525 batch 7: 84 s of CPU took 191 s at load 10 on two cores), and the run reported hangs
    that were not."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum, frame):
        raise ProofTimeout(f"no answer in {seconds} s of CPU time")
    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def _hanging(forms: list, folder: Path, origin: str, result) -> set:
    """Indices of the formulas whose proof alone does not finish in time: each a finding with its reproducer."""
    out = set()
    for i, (f, b, at) in enumerate(forms):
        if is_filler(f):
            continue
        stem = _stem_of((f,))
        path = specfile.write(folder / "reproducers", stem, specfile.single_source(
            stem, f, b, at, origin, "Found by codegen.fuzz: its proof does not finish (codegen/verify)."))
        try:
            with time_limit(PROOF_SECONDS["formula"]):
                _verify(_load(path))
        except ProofTimeout as e:
            out.add(i)
            result.findings.append(Finding(f, "verify", "proof", f"the prover hung: {e}", str(path)))
        except Exception:  # noqa: BLE001 - any other failure is the batch proof's to report
            pass
    return out


def _load(path: Path):
    from codegen.loader import load_spec_file
    return load_spec_file(path)


def _proved(forms: list, k: int, folder: Path, stem: str, origin: str, result: BatchResult):
    """(path, forms, the proof's lines) of the batch spec of `forms` (with their declared values) proved within
    the time limit: the formulas whose proof hangs alone are findings, and the batch is proved again without them.
    (None, [], []) when none is left."""
    path = specfile.write(folder, stem, specfile.batch_source(stem, forms, origin))
    try:
        with time_limit(PROOF_SECONDS["batch"]):
            return path, forms, _verify(_load(path))
    except ProofTimeout:
        pass
    hung = _hanging(forms, folder, origin, result)
    forms = [form for i, form in enumerate(forms) if i not in hung and not is_filler(form[0])]
    if not forms:
        return None, [], []
    forms = _pad(forms, k)
    path = specfile.write(folder, stem, specfile.batch_source(stem, forms, origin))
    try:
        with time_limit(PROOF_SECONDS["batch"]):
            return path, forms, _verify(_load(path))
    except ProofTimeout as e:   # the fuzzer broke (a finding), and the run goes on
        raise RuntimeError(f"{path}: the batch proof hangs without the formulas that hang alone: {e}") from None


def prepare(forwards: list, folder: Path, stem: str, origin: str, result: BatchResult):
    """The proved batch spec of `forwards` (or None when none is usable)."""
    forms = []
    for f in forwards:
        try:
            forms.append((f, backward_of(f), {}))
        except Unusable as e:
            result.dropped.append((f, str(e)))
    k = max(1, (len(forms) - 1).bit_length())
    if len(forms) > 2 ** k:
        forms = forms[:2 ** k]
    forms = _pad(forms, k)
    path, forms, lines = _proved(forms, k, folder, stem, origin, result)
    if path is None:
        return None, []
    # (seed 2121: comparing a jump's values across the proof's cases, expand in proof.is_zero, ran for more than
    # 20 minutes on a batch whose proof had finished: the run stopped there, with no finding)
    try:
        with time_limit(PROOF_SECONDS["batch"]):
            declared, undeclarable = declarations(lines, k)
    except ProofTimeout as e:   # the fuzzer broke (a finding), and the run goes on
        raise RuntimeError(f"{path}: comparing the values declared in the proof's cases hangs: {e}") from None
    bad = {formula_index(r.formula, k) for r in lines if not r.ok and not r.undeclared}
    unwritable = {i: names for i, at in declared.items() for v in at.values() if (names := outside(v))}
    kept = []
    for i, (f, b, _) in enumerate(forms):
        if i in undeclarable:
            result.dropped.append((f, undeclarable[i]))
            continue
        if i in unwritable:
            result.dropped.append((f, f"a declared value uses {', '.join(sorted(unwritable[i]))}"))
            continue
        if i in bad:
            why = next(f"{r.check}: {r.detail}" for r in lines if not r.ok and formula_index(r.formula, k) == i)
            result.dropped.append((f, f"the prover: {why}"))
            continue
        kept.append((f, b, declared.get(i, {})))
    if not kept:
        return None, []
    kept = _pad(kept, k)
    if declared or bad or unwritable or undeclarable:   # the spec changes: written again, and proved again before anything is built
        # (under the same time limit: checking a declared value may hang where the first proof did not; fuzz seed 7)
        path, kept, lines = _proved(kept, k, folder, stem, origin, result)
        if path is None:
            return None, []
    failed = [r for r in lines if not r.ok]
    partial = _partial_kinks(failed, k)
    if partial:
        # a kink in some scalar range only (x = -2 of a branch x <= -2 & x >= -beta, for beta > 2): its value is
        # declared for every beta, and where beta < 2 the backward gives the derivative there instead.  `at=`
        # states one value for all scalars, so the formula cannot be written in the spec language (seed 7, batch 3)
        for i, why in partial.items():
            result.dropped.append((kept[i][0], why))
        kept = [form for i, form in enumerate(kept) if i not in partial and not is_filler(form[0])]
        if not kept:
            return None, []
        kept = _pad(kept, k)
        path, kept, lines = _proved(kept, k, folder, stem, origin, result)
        if path is None:
            return None, []
        failed = [r for r in lines if not r.ok]
    if failed:   # declared values from the first proof must make the second one pass: anything else is a bug
        raise AssertionError(f"{path}: the batch does not verify with its declarations: "
                             f"{failed[0].formula} {failed[0].check}: {failed[0].detail}")
    op = _load(path)
    # from here on the backward and declarations are the spec file's (Python evaluates a printed formula back
    # into an equal expression, not always the same tree: 4*(a + 1) becomes 4*a + 4)
    loaded = [(f0, sympy.sympify(f.expr), {p: v for rel, v in f.at.items() for p in points_of(rel, X)})
              for (f0, _, _), f in zip(kept, op.formulas)]
    assert len(loaded) == len(kept)
    return op, loaded


def _partial_kinks(failed, k: int) -> dict:
    """{formula index: why} of the formulas whose proof with declared values fails at a declared point: a value
    declared from the cases where the point is a kink, refused in a case where it is not."""
    out = {}
    for r in failed:
        if "the spec declares" in r.detail or r.check.endswith("(declared)"):
            out.setdefault(formula_index(r.formula, k), f"a kink at {r.check} in some cases of the scalars only: "
                                                        f"at= declares one value for all ({r.formula}: {r.detail})")
    return out


def single_spec(forward, folder: Path, stem: str, note: str = "", origin: str = "written by hand"):
    """The proved single-formula spec of `forward` (backward and declared values derived as for a batch)."""
    b = backward_of(forward)
    path = specfile.write(Path(folder), stem, specfile.single_source(stem, forward, b, {}, origin, note))
    declared, undeclarable = declarations(_verify(_load(path)))
    if undeclarable:
        raise Unusable(f"{path}: {undeclarable[0]}")
    at = declared.get(0, {})
    names = set().union(*(outside(v) for v in at.values()))
    if names:
        raise Unusable(f"{path}: a declared value uses {', '.join(sorted(names))}")
    path = specfile.write(Path(folder), stem, specfile.single_source(stem, forward, b, at, origin, note))
    op = _load(path)
    failed = [r for r in _verify(op) if not r.ok]
    if failed:
        raise Unusable(f"{path}: does not verify: {failed[0].check}: {failed[0].detail}")
    return op


def _stem_of(form) -> str:
    return "fuzz_repro_h" + format(abs(hash(sympy.srepr(form[0]))) % 16 ** 8, "08x") + "_backward"


def _spec_for(forms: list, folder: Path, stem: str, origin: str, note: str = ""):
    """The op of `forms` (a batch of 2^k, or one formula), written to `folder` and loaded, not proved again:
    its formulas are the proved batch's, unchanged."""
    if len(forms) == 1:
        f, b, at = forms[0]
        text = specfile.single_source(stem, f, b, at, origin, note)
    else:
        text = specfile.batch_source(stem, forms, origin)
    return _load(specfile.write(folder, stem, text))


class _Runner:
    """Runs formulas on one backend: one build for all, halves when the build fails, single formulas at the
    end; every formula that builds is judged by the oracle; what fails alone is a finding."""

    def __init__(self, backend, dtypes, folder: Path, origin: str, seed: int, result: BatchResult):
        self.backend, self.dtypes, self.folder, self.origin = backend, list(dtypes), folder, origin
        self.seed, self.result = seed, result
        self.repro = folder / "reproducers"

    def run(self, forms: list, stem: str, op=None, built=None):
        """`built`: (kernel, records) when the caller already built and judged `op` on this backend."""
        single = len(forms) == 1
        if op is None:
            folder, sub = (self.repro, _stem_of(forms[0])) if single else (self.folder, stem)
            op = _spec_for(forms, folder, sub, self.origin,
                           f"Found by codegen.fuzz on {self.backend} in batch {stem}." if single else "")
        if built is None:
            try:
                built = (kernel(op, self.backend), None)
            except Exception as e:  # noqa: BLE001 - narrowed down to the formulas that do not build
                built = (e, None)
        fn, records = built
        if isinstance(fn, Exception):
            if single:
                if not is_filler(forms[0][0]):
                    self.result.findings.append(Finding(forms[0][0], self.backend, None,
                                                        f"{type(fn).__name__}: {fn}", op.source))
                return
            half = len(forms) // 2
            base = stem[:-len("_backward")]
            self.run(forms[:half], f"{base}_a_backward")
            self.run(forms[half:], f"{base}_b_backward")
            return
        broke = ""
        if records is None:
            try:
                records = judge(op, {self.backend: fn}, self.dtypes, self.seed)
            except Exception:  # noqa: BLE001 - the oracle broke on these formulas: a finding, never a silent pass
                records, broke = [], traceback.format_exc(limit=4)
            self.result.records += len(records)
        self.judged(forms, stem, op, records, broke)

    def judged(self, forms, stem, op, records, broke):
        single = len(forms) == 1
        suspects = set(range(len(forms))) if broke else set()
        k = (len(forms) - 1).bit_length()
        why = {}
        for r in oracle.failed(records):
            cases = {e.case for e in r.beyond + r.failures if not isinstance(e, str)}
            named = {formula_index(c, k) for c in cases} if k else {0}
            for i in named or range(len(forms)):
                why.setdefault(i, []).append((r.dtype, "; ".join(oracle.describe(r))))
                suspects.add(i)
        for i in sorted(suspects):
            if is_filler(forms[i][0]):
                continue
            if single:
                for dtype, what in why.get(i, [(None, f"the oracle crashed: {broke}")]):
                    self.result.findings.append(Finding(forms[i][0], self.backend, dtype, what, op.source))
            else:   # confirmed alone, with a reproducer of its own
                before = len(self.result.findings)
                self.run([forms[i]], stem)
                if len(self.result.findings) == before:   # never dropped: it failed, if only in the batch
                    reason = "; ".join(w for _, w in why.get(i, [])) or f"the oracle crashed: {broke}"
                    self.result.findings.append(Finding(forms[i][0], self.backend, "batch only",
                                                        f"fails in batch {stem}, not alone: {reason}",
                                                        str(self.repro / f"{_stem_of(forms[i])}.py")))


def judge(op, kernels: dict, dtypes, seed: int = 0) -> list:
    """Oracle records of `op` on every backend of `kernels` {backend: kernel} (the reference computed once)."""
    return oracle.check({op.snake_name: op}, list(kernels), dtypes=list(dtypes), products=[specfile.PRODUCT],
                        kernels={(op.snake_name, b): fn for b, fn in kernels.items()}, sizes=oracle.FUZZ,
                        seed=seed)


def run_batch(forwards: list, folder: Path, stem: str, backends=("numpy", "c", "ascendc"),
              dtypes=tuple(specfile.DTYPES), origin: str = "", seed: int = 0) -> BatchResult:
    result = BatchResult()
    t0 = time.perf_counter()
    op, forms = prepare(list(forwards), Path(folder), stem, origin, result)
    result.seconds["proof"] = time.perf_counter() - t0
    if op is None:
        return result
    result.formulas = [f for f, _, _ in forms if not is_filler(f)]
    built = {}
    for backend in backends:   # one build each, then one oracle run for all: the reference is computed once
        t1 = time.perf_counter()
        try:
            built[backend] = kernel(op, backend)
        except Exception as e:  # noqa: BLE001 - narrowed down by the runner below
            built[backend] = e
        result.seconds[f"build {backend}"] = time.perf_counter() - t1
    t1 = time.perf_counter()
    good = {b: fn for b, fn in built.items() if not isinstance(fn, Exception)}
    broke = ""
    try:
        records = judge(op, good, dtypes, seed) if good else []
    except Exception:  # noqa: BLE001 - reported for every formula, never a silent pass
        records, broke = [], traceback.format_exc(limit=4)
    result.records += len(records)
    result.seconds["oracle"] = time.perf_counter() - t1
    for backend in backends:
        t1 = time.perf_counter()
        runner = _Runner(backend, dtypes, Path(folder), origin, seed, result)
        if backend in good:
            runner.judged(forms, stem, op, [r for r in records if r.backend == backend], broke)
        else:
            runner.run(forms, stem, op, built=(built[backend], None))
        result.seconds[f"narrowing {backend}"] = time.perf_counter() - t1
    result.seconds["total"] = time.perf_counter() - t0
    return result
