"""One line of the verification table."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Result:
    op: str               # aclnn name
    formula: str          # which backward form / case
    check: str            # what was shown, e.g. "x in (lambda, oo)", "VJP, general n", "mpmath, 64 points"
    verdict: str          # "proven", "convention", "agrees", or "FAILED"
    detail: str = ""      # residual, boundary convention, or the failure
    point: dict = field(default_factory=dict)  # counterexample values when FAILED
    undeclared: list = field(default_factory=list)  # [point, value] of a branch point the spec must declare

    @property
    def ok(self) -> bool:
        return self.verdict != "FAILED"
