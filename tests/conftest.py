"""Shared fixtures: the loaded specs, the test data folder, and what -march=native targets here."""
from __future__ import annotations

import functools
import subprocess
from pathlib import Path

import pytest

import codegen

TESTS = Path(__file__).parent
REPO = TESTS.parent


@pytest.fixture(scope="session")
def ops():
    return codegen.load_specs()


@functools.lru_cache(maxsize=None)
def native_defines(macro: str) -> bool:
    """Whether `cc -march=native` defines `macro` here (__AVX512F__, __AVX512BF16__: the C runtime's vector paths
    for this CPU)."""
    done = subprocess.run(["cc", "-march=native", "-dM", "-E", "-"], input="", capture_output=True, text=True)
    return f"#define {macro} " in done.stdout


# ---- test tiers -------------------------------------------------------------------------------------------------
# CI runs the fast tier (fixed seeds, shared builds; its budget is ~10 minutes on 2 cores, docs/correctness.md says
# what it took).  `pytest --deep` adds the tests marked `@pytest.mark.deep`: long fuzzing runs, every op x dtype x
# product x layout where CI takes a fixed sample, sanitizer runs over everything.  Hypothesis tests read their
# example budget from `deep_examples(fast, deep)`.

def pytest_addoption(parser):
    parser.addoption("--deep", action="store_true", default=False,
                     help="also run the deep tier (tests marked @pytest.mark.deep; larger Hypothesis budgets)")


def pytest_configure(config):
    config.addinivalue_line("markers", "deep: long-running test, run only with --deep")
    config.addinivalue_line("markers", "ci_share(n): of a parametrized test's cases CI runs a fixed one in n (drawn "
                                       "by a hash of the case's id, at least one); --deep runs them all")
    config.addinivalue_line("markers", "ci_kinds: of a test parametrized by op `name`, CI runs one op of each kind "
                                       "(conftest.ci_kinds); --deep runs every op")
    global DEEP
    DEEP = bool(config.getoption("--deep"))


# Fixtures that build something (a bench run, compiled programs, an installed package) once per module or session
# — but once per pytest-xdist worker, unless the tests that use them run on one worker.  pyproject's addopts say
# `--dist loadgroup`: the tests of one group run on one worker, every other test goes wherever a worker is free.
SHARED_BUILDS = {"quick", "binaries", "convert", "source", "prefix", "silu", "hardswish", "probe", "rendered"}


def _xdist_group(item) -> str | None:
    """One worker per shared build (the module's), and one per op for the accuracy run, whose exact references
    (SymPy simplification, then mpmath) are built once per op and process for all of its dtypes."""
    module = item.nodeid.split("::")[0]
    shared = sorted(SHARED_BUILDS.intersection(item.fixturenames))
    if shared:
        return f"{module}:{shared[0]}"
    params = item.callspec.params if hasattr(item, "callspec") else {}
    if module.endswith("test_accuracy.py") and "name" in params:
        return f"accuracy:{params['name']}"
    return None


@pytest.hookimpl(tryfirst=True)   # before xdist's own hook, which reads the xdist_group marks
def pytest_collection_modifyitems(config, items):
    for item in items:
        group = _xdist_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    if config.getoption("--deep"):
        return
    skip = pytest.mark.skip(reason="deep tier: run with pytest --deep")
    for item in items:
        if "deep" in item.keywords:
            item.add_marker(skip)
    # a ci_share(n) test: the cases whose id draws 0 among n, or its first case if none does (a case keeps its draw
    # when others are added, so the sample grows with the op count at 1/n of the cost)
    cases: dict = {}
    for item in items:
        mark = item.get_closest_marker("ci_share")
        if mark is not None and "deep" not in item.keywords:
            cases.setdefault((item.nodeid.split("[")[0], mark.args[0]), []).append(item)
    for (_, n), group in cases.items():
        kept = [i for i in group if _draw(i.name, n) == 0] or group[:1]
        for item in group:
            if item not in kept:
                item.add_marker(pytest.mark.skip(reason=f"deep tier: CI runs a fixed 1 in {n} of these cases "
                                                        f"(pytest --deep runs all)"))
    # a ci_kinds test: the cases of the ops ci_kinds draws (one of each kind), whatever their other parameters
    marked = [i for i in items if i.get_closest_marker("ci_kinds") is not None and "deep" not in i.keywords]
    if marked:
        chosen = set(ci_kinds(codegen.load_specs()))
        for item in marked:
            if item.callspec.params["name"] not in chosen:
                item.add_marker(pytest.mark.skip(reason="deep tier: CI runs one op of each kind (conftest.ci_kinds; "
                                                        "pytest --deep runs every op)"))


# With $OPGEN_TEST_TIMELINE set, every test's worker, start and end (wall seconds since the epoch) and the CPU
# seconds its process spent on it (setup, call and teardown: a shared build lands on the test that first needs it)
# are appended to that file, one line each: where a run's time goes by file and fixture, and whether one
# pytest-xdist worker idles while the other finishes (tests/timeline.py sums them).
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):   # (where the test runs: a pytest-xdist worker, not the controller)
    import os
    import time
    log = os.environ.get("OPGEN_TEST_TIMELINE")
    wall, cpu, children = time.time(), time.process_time(), _children_cpu()
    yield
    if log:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(log, "a") as f:
            f.write(f"{worker}\t{item.nodeid}\t{wall:.3f}\t{time.time():.3f}\t{time.process_time() - cpu:.3f}\t"
                    f"{_children_cpu() - children:.3f}\n")


def _children_cpu() -> float:
    """CPU seconds of the child processes waited for so far (compilers, the simulator, `opgen` subprocesses)."""
    import resource
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


DEEP = False


def deep_examples(fast: int, deep: int) -> int:
    """A Hypothesis `max_examples` budget: `fast` in CI, `deep` under --deep."""
    return deep if DEEP else fast


def _draw(name: str, n: int) -> int:
    """A fixed choice among n for an op, by a hash of its name: the same in every run and on every machine (unlike
    Python's hash), and an op added later does not reshuffle the others' choices."""
    import zlib
    return zlib.crc32(name.encode()) % n


def op_kind(op) -> str:
    """The structure a backend generates code of its own for: what a sample of ops must cover."""
    if op.classes is not None:
        return "class-index rows"
    if op.split is not None:
        return "split in halves"
    if op.per_output:
        return "several outputs"
    if op.reduce_dim is not None:
        return "rows"
    if op.loss_reduction:
        return "loss reduction"
    if op.output.sum_to:
        return "summed to a shape"
    return "elementwise"


def ci_kinds(ops: dict, per_kind: int = 1) -> list:
    """Op names for a test too costly to run per op in CI (a program or library built from nothing per op, under
    sanitizers or for another ISA): every op under --deep; in CI `per_kind` ops of each kind (op_kind), first in
    the order of a hash of their names.  The CI cost stays fixed as ops are added (it grows with the kinds, not
    the ops), every code path the backends generate is still built, and an op added later displaces another only
    when its hash comes first.  The cheaper per-op tests beside these still run every op."""
    names = sorted(ops)
    if DEEP:
        return names
    import zlib
    taken: dict = {}
    for name in sorted(names, key=lambda n: zlib.crc32(n.encode())):
        group = taken.setdefault(op_kind(ops[name]), [])
        if len(group) < per_kind:
            group.append(name)
    return sorted(n for group in taken.values() for n in group)


def ci_sample(cases, op=lambda c: c[0], soc=lambda c: c[1], dtype=lambda c: c[2]):
    """`cases` (op × product × dtype × ... tuples) whole under --deep; in CI a fixed sample that still runs every
    op in every dtype it has: for each op one product, chosen by a hash of its name (so that the products take
    turns across the ops), with every case there, and each dtype that product lacks on the first other product
    that has it.  What a product adds beyond its dtypes (another Ascend C architecture, another UB) is covered by
    the ops that drew it; everything, by `pytest --deep`."""
    if DEEP:
        return list(cases)
    cases = list(cases)
    by_op = {}
    for c in cases:
        by_op.setdefault(op(c), []).append(c)
    keep = []
    for name, group in by_op.items():
        socs = sorted({soc(c) for c in group})
        chosen = socs[_draw(name, len(socs))]
        kept = [c for c in group if soc(c) == chosen]
        have = {dtype(c) for c in kept}
        for c in group:
            if dtype(c) not in have:
                kept.append(c)
                have.add(dtype(c))
        keep += kept
    return [c for c in cases if c in keep]
