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
# CI runs the fast tier (fixed seeds, shared builds, under ~10 minutes on 2 cores).  `pytest --deep` adds the tests
# marked `@pytest.mark.deep`: long fuzzing runs, every op x dtype x product x layout where CI takes a fixed sample,
# sanitizer runs over everything.  Hypothesis tests read their example budget from `deep_examples(fast, deep)`.

def pytest_addoption(parser):
    parser.addoption("--deep", action="store_true", default=False,
                     help="also run the deep tier (tests marked @pytest.mark.deep; larger Hypothesis budgets)")


def pytest_configure(config):
    config.addinivalue_line("markers", "deep: long-running test, run only with --deep")
    global DEEP
    DEEP = bool(config.getoption("--deep"))


def pytest_collection_modifyitems(config, items):
    if config.getoption("--deep"):
        return
    skip = pytest.mark.skip(reason="deep tier: run with pytest --deep")
    for item in items:
        if "deep" in item.keywords:
            item.add_marker(skip)


DEEP = False


def deep_examples(fast: int, deep: int) -> int:
    """A Hypothesis `max_examples` budget: `fast` in CI, `deep` under --deep."""
    return deep if DEEP else fast
