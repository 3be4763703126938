"""Backends: one package per target, each exposing

    generate(ops, source_label) -> {path relative to generated/: text}   what `opgen generate` writes
    make_kernel(op) -> callable                                          (kernel backends) what
                                                                          `codegen.kernel(op, backend=...)` returns

`ORDER` lists them; a backend that is not importable is an error, not a silent skip.
"""
from __future__ import annotations

import importlib

ORDER = ["numpy", "c", "ascendc", "docs"]


def get(name: str):
    if name not in ORDER:
        raise ValueError(f"unknown backend {name!r} (have: {', '.join(ORDER)})")
    return importlib.import_module(f"codegen.backends.{name}")


def kernel_backends() -> list[str]:
    return [n for n in ORDER if hasattr(get(n), "make_kernel")]
