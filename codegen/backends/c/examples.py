"""The call example of each op (调用示例): a C program in the shape of the aclnn pages (ascend.md §2), with the
spec's example data (`codegen.spec.example`), its build command, and running it.

The docs show the program, the command and what the program printed; tests compile it with
`-Wall -Wextra -Werror` (as C and as C++), run it, and compare what it prints with the spec's documented
result and with the NumPy backend.
"""
from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from codegen.spec import Op
from codegen.spec.example import resolve
from codegen.spec.params import Attr, Output, Scalar, Tensor
from codegen.template_util import preamble, render

from . import prototypes

TEMPLATES = Path(__file__).parent / "templates"
CC = os.environ.get("CC", "cc")
EXAMPLE_FLAGS = "-std=c11 -O2 -Wall -Wextra -Werror"


def example_path(op: Op) -> str:
    """Where the example lives under generated/c/."""
    return f"examples/test_aclnn_{op.snake_name}.c"


def program_name(op: Op) -> str:
    return f"test_aclnn_{op.snake_name}"


def _c_float(v: float) -> str:
    """A float literal that reads back as the same FLOAT: `1.0f`, `0.1f`, `-2.5f`."""
    text = repr(float(v))
    return (text if ("." in text or "e" in text) else text + ".0") + "f"


def context(op: Op) -> dict:
    ex = resolve(op)
    tensors, args = [], []
    for p in op.params:
        if isinstance(p, Tensor):
            value = ex.tensors[p.name]
            if value is None:
                args.append("NULL")
                continue
            shape, data = value
            tensors.append({"name": p.name, "shape": list(shape) or [1], "data": [_c_float(v) for v in data]})
            args.append(p.name)
        elif isinstance(p, Output):
            n = 1
            for d in ex.out_shape:
                n *= d
            tensors.append({"name": p.name, "shape": list(ex.out_shape) or [1], "data": ["0.0f"] * n})
            args.append(p.name)
        elif isinstance(p, Scalar):
            args.append(p.name)
        elif isinstance(p, Attr):
            args.append(p.name)
    scalars = [{"name": n, "value": _c_float(v)} for n, v in ex.scalars.items()]
    attrs = [{"name": n, "ctype": "bool" if isinstance(v, bool) else "int64_t",
              "value": ("true" if v else "false") if isinstance(v, bool) else str(v)} for n, v in ex.attrs.items()]
    out_numel = len(next(t for t in tensors if t["name"] == op.output.name)["data"])
    return {"tensors": tensors, "scalars": scalars, "attrs": attrs, "call_args": args,
            "out": {"name": op.output.name, "numel": out_numel}}


def example_source(op: Op) -> str:
    from codegen.generate import source_label

    from .emit import header_name
    return render(TEMPLATES, "examples/example.c.jinja",
                  preamble=preamble("//", source_label(op), "example.c.jinja", "c"),
                  op=op, header=header_name(op), phase1=prototypes.phase1_name(op), **context(op))


def build_command(op: Op) -> str:
    """The command that builds and runs the example from the repository's root."""
    from .emit import source_name
    sources = ["generated/c/" + example_path(op), "generated/c/src/opgen_*.c", f"generated/c/src/{source_name(op)}"]
    return (f"cc {EXAMPLE_FLAGS} -I generated/c/include {' '.join(sources)} -lm -lpthread "
            f"-o {program_name(op)} && ./{program_name(op)}")


def write_tree(root: Path, op: Op) -> None:
    """The runtime and the op's generated files under root/generated/c/, as `opgen generate` writes them."""
    from codegen.generate import source_label

    from .emit import op_files, runtime_files
    files = {**runtime_files(), **op_files(op, source_label(op))}
    for path, text in files.items():
        target = root / "generated" / "c" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def build_and_run(op: Op) -> str:
    """Build the example with exactly `build_command(op)` in a fresh tree and return what it printed."""
    with tempfile.TemporaryDirectory(prefix="opgen-example-") as tmp:
        write_tree(Path(tmp), op)
        cmd = build_command(op)
        if CC != "cc":
            cmd = shlex.quote(CC) + cmd[len("cc"):]
        run = subprocess.run(cmd, shell=True, cwd=tmp, capture_output=True, text=True, timeout=300)
        if run.returncode != 0:
            raise RuntimeError(f"{op.name}: the call example failed (exit {run.returncode}):\n{run.stdout}\n"
                               f"{run.stderr[-4000:]}")
        return run.stdout
