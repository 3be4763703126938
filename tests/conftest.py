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
