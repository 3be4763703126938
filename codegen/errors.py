"""The two errors the framework raises: a bad call (AclnnError) and a bad spec (SpecError)."""
from __future__ import annotations


class AclnnError(Exception):
    """A phase-1 check failed: `.status` is the aclnn code, `.param` the parameter's aclnn name (or None)."""

    def __init__(self, status: int, param: str | None, message: str):
        super().__init__(message)
        self.status = status
        self.param = param
        self.message = message

    def __str__(self):
        return f"[{self.status}] {self.message}"


class SpecError(Exception):
    """A spec file is wrong: names the file, the line (when known), the operator (when known) and what is wrong."""

    def __init__(self, source: str, op: str | None, message: str, line: int | None = None):
        self.source, self.op, self.message, self.line = source, op, message, line
        super().__init__(message)

    def __str__(self):
        where = f"{self.source}:{self.line}" if self.line else self.source
        return f"{where}: {self.op}: {self.message}" if self.op else f"{where}: {self.message}"
