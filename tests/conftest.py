"""Shared fixtures: the loaded specs and the test data folder."""
from __future__ import annotations

from pathlib import Path

import pytest

import codegen

TESTS = Path(__file__).parent
REPO = TESTS.parent


@pytest.fixture(scope="session")
def ops():
    return codegen.load_specs()
