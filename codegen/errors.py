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
    """A spec file is wrong: names the file, the operator (when known) and what is wrong."""

    def __init__(self, source: str, op: str | None, message: str):
        self.source, self.op, self.message = source, op, message
        where = f"{source}: {op}" if op else source
        super().__init__(f"{where}: {message}")
