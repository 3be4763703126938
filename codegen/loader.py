"""Find, import and validate spec files.

`load_specs(folder)` raises on the first bad spec (the API: a program asking for the ops wants them all);
`load_folder(folder)` returns the good ops *and* one SpecError per bad file, each naming the file, the line and
what is wrong, so `opgen verify` and `opgen generate` report every bad spec and still process the others.
"""
from __future__ import annotations

import ast
import importlib.util
import os
import traceback
from pathlib import Path

from .errors import SpecError
from .spec import Op
from .validate import validate

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SPECS = REPO_ROOT / "specs"

# the validator's checks (codegen.validate) and the Op field each one reads, to point at the field's line
_CHECK_FIELDS = {"_check_params": "params", "_check_dtypes": "dtypes", "_check_rules": "rules",
                 "_check_at": "at", "problems": "example",
                 "_check_library_names": "params", "_check_symbol_names": "params"}


def _resolve(path=None) -> Path:
    """The spec folder: the argument, else $OPGEN_SPECS, else the repository's specs/."""
    return Path(path or os.environ.get("OPGEN_SPECS") or DEFAULT_SPECS).resolve()


def field_line(path, field: str | None) -> int | None:
    """The line of `field=` in the file's `SPEC = Op(...)` (of `SPEC = ` itself when the field is not written
    there, or None when the file does not parse)."""
    try:
        tree = ast.parse(Path(path).read_text(), str(path))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "SPEC" for t in node.targets):
            if isinstance(node.value, ast.Call) and field:
                for kw in node.value.keywords:
                    if kw.arg == field:
                        return kw.value.lineno
            return node.lineno
    return None


def _field_of(error: SpecError) -> str | None:
    """The Op field a validation error is about, from the validator's frame that raised it and its message."""
    names = [f.name for f in traceback.extract_tb(error.__traceback__)]
    for name in reversed(names):
        if name == "_check_math":
            msg = error.message
            return "backward" if ("backward" in msg or "formula" in msg) else (
                "wrt" if msg.startswith("wrt") else "forward")
        if name in _CHECK_FIELDS:
            return "backward" if name == "_check_at" and error.message.startswith("backward formula") \
                else _CHECK_FIELDS[name]
    msg = error.message
    return "name" if msg.startswith("name") else ("description" if "description" in msg or "notes" in msg
                                                    else None)


def _name_hint(error: Exception) -> str:
    """For a SymPy function `codegen.spec` does not export (`atan`): where it comes from and where it may stand."""
    import sympy
    name = getattr(error, "name", None)
    if not isinstance(error, NameError) or not name or not callable(getattr(sympy, name, None)):
        return ""
    return (f": `from codegen.spec import *` brings the backward's vocabulary, which has no {name}; a forward may "
            f"use any SymPy function (`from sympy import {name}`), a backward only what docs/vocabulary.md lists")


def load_spec_file(path: Path) -> Op:
    """Import one spec file and return its validated SPEC; any problem is a SpecError naming the file and line."""
    path = Path(path)
    name = f"opgen_spec_{path.stem}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(module_spec)
    try:
        module_spec.loader.exec_module(module)
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # a spec is user code: report any failure (sys.exit too) as a spec error, with the line
        frame = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == str(path)]
        line = frame[-1].lineno if frame else getattr(e, "lineno", None)
        where = f" (line {line})" if line else ""
        raise SpecError(str(path), _written_name(path), f"{type(e).__name__}{where}: {e}{_name_hint(e)}",
                        line=line) from e
    op = getattr(module, "SPEC", None)
    if not isinstance(op, Op):
        got = "" if op is None else f", not a {type(op).__name__}"
        raise SpecError(str(path), _written_name(path), f"the file must bind SPEC = Op(...){got}",
                        line=field_line(path, None))
    op.source = str(path)
    try:
        validate(op)
    except SpecError as e:
        e.line = field_line(path, _field_of(e))
        raise
    except Exception as e:   # a check tripped over a value of a kind it does not expect: still a spec error
        name = op.name if isinstance(op.name, str) else None
        raise SpecError(str(path), name, f"a field holds a value of the wrong kind ({type(e).__name__}: {e}); "
                                         f"see docs/spec-language.md for each field", line=field_line(path, None)) from e
    return op


def _written_name(path) -> str | None:
    """The op's name as the file writes it (`SPEC = Op(name="aclnn...")`), for a file that does not load."""
    try:
        tree = ast.parse(Path(path).read_text(), str(path))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                any(isinstance(t, ast.Name) and t.id == "SPEC" for t in node.targets):
            for kw in node.value.keywords:
                if kw.arg == "name" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                    return kw.value.value
    return None


# folder -> (the folder's files and their stamps, ops, errors): a folder is imported again only when one of
# its files changed.  A test session and a program that asks for the ops more than once load each spec once,
# and every caller gets the same Op objects, so what is derived from an Op (a rendered module, a proof) is too.
_LOADED: dict[Path, tuple] = {}


def _stamp(folder: Path) -> tuple:
    return tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in sorted(folder.glob("*.py")))


def load_folder(specs_dir=None) -> tuple[dict[str, Op], list[SpecError]]:
    """({op name: Op} of the good specs, sorted by name; [SpecError] of the bad ones, in file order)."""
    folder = _resolve(specs_dir)
    if not folder.is_dir():
        raise SpecError(str(folder), None, "no such spec folder")
    stamp = _stamp(folder)
    if folder in _LOADED and _LOADED[folder][0] == stamp:
        _, ops, errors = _LOADED[folder]
        return dict(ops), list(errors)
    ops, errors = _import_folder(folder)
    _LOADED[folder] = (stamp, ops, errors)
    return dict(ops), list(errors)


def _import_folder(folder: Path) -> tuple[dict[str, Op], list[SpecError]]:
    ops: dict[str, Op] = {}
    errors: list[SpecError] = []
    for path in sorted(folder.glob("*.py")):
        if path.name.startswith("_"):
            continue
        try:
            op = load_spec_file(path)
            if op.snake_name in ops:
                raise SpecError(str(path), op.name, f"op {op.snake_name} is also declared in "
                                                    f"{ops[op.snake_name].source}", line=field_line(path, "name"))
            if path.stem != op.snake_name:
                raise SpecError(str(path), op.name, f"the file must be named {op.snake_name}.py",
                                line=field_line(path, "name"))
        except SpecError as e:
            errors.append(e)
            continue
        ops[op.snake_name] = op
    return dict(sorted(ops.items())), errors


def load_specs(specs_dir=None) -> dict[str, Op]:
    """All specs of a folder as {op name: Op}, sorted by name.  Raises SpecError on the first bad spec."""
    ops, errors = load_folder(specs_dir)
    if errors:
        raise errors[0]
    return ops
