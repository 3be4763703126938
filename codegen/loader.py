"""Find, import and validate spec files."""
from __future__ import annotations

import importlib.util
import os
import traceback
from pathlib import Path

from .errors import SpecError
from .spec import Op
from .validate import validate

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SPECS = REPO_ROOT / "specs"


def _resolve(path=None) -> Path:
    """The spec folder: the argument, else $OPGEN_SPECS, else the repository's specs/."""
    return Path(path or os.environ.get("OPGEN_SPECS") or DEFAULT_SPECS).resolve()


def load_spec_file(path: Path) -> Op:
    """Import one spec file and return its validated SPEC; any problem is a SpecError naming the file."""
    name = f"opgen_spec_{path.stem}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(module_spec)
    try:
        module_spec.loader.exec_module(module)
    except Exception as e:  # a spec is user code: report any failure as a spec error, with the line
        frame = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == str(path)]
        line = f" (line {frame[-1].lineno})" if frame else ""
        raise SpecError(str(path), None, f"{type(e).__name__}{line}: {e}") from e
    op = getattr(module, "SPEC", None)
    if not isinstance(op, Op):
        raise SpecError(str(path), None, "the file must bind SPEC = Op(...)")
    op.source = str(path)
    validate(op)
    return op


def load_specs(specs_dir=None) -> dict[str, Op]:
    """All specs of a folder as {op name: Op}, sorted by name.  Raises SpecError on the first bad spec."""
    folder = _resolve(specs_dir)
    if not folder.is_dir():
        raise SpecError(str(folder), None, "no such spec folder")
    ops: dict[str, Op] = {}
    for path in sorted(folder.glob("*.py")):
        if path.name.startswith("_"):
            continue
        op = load_spec_file(path)
        if op.snake_name in ops:
            raise SpecError(str(path), op.name, f"op {op.snake_name} is also declared in {ops[op.snake_name].source}")
        if path.stem != op.snake_name:
            raise SpecError(str(path), op.name, f"the file must be named {op.snake_name}.py")
        ops[op.snake_name] = op
    return dict(sorted(ops.items()))
