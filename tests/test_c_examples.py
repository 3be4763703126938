"""The call example of every op (调用示例): generated from the spec, it compiles with -Wall -Wextra -Werror as C
(and its headers as C++), runs clean under the sanitizers, and prints the result the aclnn page documents
(the spec's `expected`, copied from ascend.md §4) and the NumPy backend's result on the same data."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import codegen
from codegen.backends.c import examples
from codegen.spec.example import resolve
from codegen.spec.params import Attr, Scalar, Tensor

from . import sanitized_build
from .conftest import ci_kinds

OPS = codegen.load_specs()


def _printed(text: str, op=None) -> list[float]:
    """The printed values; an op with several outputs prints each output's under its own name, in order."""
    lines = text.strip().splitlines()
    names = [o.name for o in op.outputs] if op is not None and op.per_output else ["result"]
    pattern = rf"({'|'.join(names)})\[\d+\] is: -?\d+\.\d{{6}}"
    assert lines and all(re.fullmatch(pattern, ln) for ln in lines), text
    order = [names.index(ln.split("[")[0]) for ln in lines]
    assert order == sorted(order) and set(order) == set(range(len(names))), text
    return [float(ln.split(": ")[1]) for ln in lines]


def _numpy_result(op) -> np.ndarray:
    ex = resolve(op)
    kw = {}
    for p in op.params:
        if isinstance(p, Tensor):
            v = ex.tensors[p.name]
            d = examples.example_dtype(op, p)   # FLOAT, or an integer target's dtype
            dtype = np.float32 if d == "FLOAT" else np.dtype(d.lower())
            kw[p.py_name] = None if v is None else np.array(v[1], dtype).reshape(v[0])
        elif isinstance(p, Scalar):
            kw[p.py_name] = ex.scalars[p.name]
        elif isinstance(p, Attr):
            kw[p.py_name] = ex.attrs[p.name]
    got = codegen.kernel(op.snake_name)(**kw)
    return np.concatenate([g.reshape(-1) for g in got]) if op.per_output else got.reshape(-1)


@pytest.mark.parametrize("name", sorted(OPS))
def test_example_prints_the_documented_result(name):
    op = OPS[name]
    got = _printed(examples.build_and_run(op), op)   # the docs' command's warnings, -Werror included (at -O1)
    np.testing.assert_allclose(got, _numpy_result(op), rtol=1e-6, atol=1e-6)
    if op.example is not None and op.example.expected is not None:
        np.testing.assert_allclose(got, op.example.expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ci_kinds(OPS))
def test_example_is_clean_under_sanitizers_and_as_cpp(name, tmp_path):
    op = OPS[name]
    examples.write_tree(tmp_path, op)
    c = tmp_path / "generated" / "c"
    src = [str(c / examples.example_path(op)), *map(str, sorted((c / "src").glob("opgen_*.c"))),
           str(c / "src" / f"aclnn_{op.snake_name}.c")]
    exe = tmp_path / "example"
    build = sanitized_build.build(c, src, exe)   # (the runtime's objects are shared by every op's example)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "ASAN_OPTIONS": "detect_leaks=1:" + sanitized_build.ASAN_FILL})
    assert run.returncode == 0, run.stdout + run.stderr
    assert _printed(run.stdout, op) == _printed(examples.build_and_run(op), op)
    cpp = subprocess.run(["c++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-x", "c++",
                          "-I", str(c / "include"), src[0]], capture_output=True, text=True)
    assert cpp.returncode == 0, cpp.stderr


def test_a_spec_without_example_gets_one(tmp_path):
    """Default data from the parameters: a running example for a new spec with no more work."""
    op = OPS["log_sigmoid_backward"]
    saved = op.example
    try:
        op.example = None
        got = _printed(examples.build_and_run(op))
        np.testing.assert_allclose(got, _numpy_result(op), rtol=1e-6, atol=1e-6)
    finally:
        op.example = saved


def test_examples_share_the_runtime_objects_and_name_the_op_when_the_build_fails(monkeypatch):
    """Each source of an example is compiled on its own and cached by content: the runtime's objects are built
    once for every op's example (both ops' builds are given the same files), the op's own source once per op.  A
    build the compiler refuses names the op and carries the compiler's message.  (In the shared build folder:
    one of its own would compile the runtime again for this test alone.)"""
    from codegen.backends.c.emit import runtime_files
    from codegen.buildcache import build_root
    compiled, made = examples._object, {}

    def recorded(files, c_path):
        path = compiled(files, c_path)
        made.setdefault(name, {})[Path(c_path).stem] = path
        return path
    monkeypatch.setattr(examples, "_object", recorded)
    names = ["softshrink_backward", "log_sigmoid_backward"]          # the two quickest to build
    for name in names:
        _printed(examples.build_and_run(OPS[name]))
    runtime = [Path(p).stem for p in runtime_files() if p.endswith(".c")]
    assert len(runtime) >= 4
    for name in names:
        assert sorted(made[name]) == sorted([*runtime, f"aclnn_{name}", f"test_aclnn_{name}"])
        assert all(p.parent == build_root() / "c-examples" and p.is_file() for p in made[name].values())
    first, second = (made[n] for n in names)
    assert all(first[stem] == second[stem] for stem in runtime)
    assert len({*first.values(), *second.values()}) == len(runtime) + 4
    monkeypatch.setattr(examples, "BUILD_FLAGS", [*examples.BUILD_FLAGS, "-fopgen-no-such-option"])
    with pytest.raises(RuntimeError, match="(?s)aclnnSoftshrinkBackward: the call example failed to build.*"
                                           "opgen-no-such-option"):
        examples.build_and_run(OPS["softshrink_backward"])
