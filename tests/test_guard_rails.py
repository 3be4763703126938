"""Guard rails (issue 29, item 6): no kernel from a spec that does not verify; `opgen verify` and `opgen generate`
report every bad spec (file, line, what is wrong) and still process the good ones, writing nothing of a bad one."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import codegen
from codegen.errors import SpecError
from codegen.loader import load_folder, load_spec_file

from .conftest import REPO, TESTS

REGRESSION = TESTS / "regression"


def _opgen(*args, env=None):
    return subprocess.run([sys.executable, "-m", "codegen", *args], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=900)


def test_kernel_refuses_a_spec_that_does_not_verify():
    """On main, codegen.kernel built and ran this spec (an undeclared extra branch at the threshold) silently."""
    with pytest.raises(codegen.SpecError) as info:
        codegen.kernel("threshold_backward", specs_dir=REGRESSION / "threshold_extra_branch")
    msg = str(info.value)
    assert "threshold_backward.py:" in msg and "does not verify" in msg and "x = threshold" in msg
    fn = codegen.kernel("threshold_backward", specs_dir=REGRESSION / "threshold")   # the declared one runs
    got = fn(grad_output=np.float32([1, 2, 3]), self=np.float32([0.5, 1, 2]), threshold=1.0, value=0.0)
    assert got.tolist() == [0, 0, 3]


def _specs(tmp_path):
    """Two good seed specs, one malformed (Python error), one that loads but does not verify."""
    specs = tmp_path / "specs"
    specs.mkdir()
    for name in ("softshrink_backward", "log_sigmoid_backward", "elu_backward"):
        shutil.copy(REPO / "specs" / f"{name}.py", specs)
    text = (specs / "elu_backward.py").read_text()
    (specs / "elu_backward.py").write_text(text.replace('x, g, v = symbols("x', 'x, g, v = symbol("x'))
    shutil.copy(REGRESSION / "threshold_extra_branch" / "threshold_backward.py", specs)
    return specs


def test_load_folder_keeps_the_good_specs_and_names_each_bad_one_with_its_line(tmp_path):
    specs = _specs(tmp_path)
    text = (specs / "softshrink_backward.py").read_text()
    (specs / "softshrink_backward.py").write_text(text.replace('"ascend910": ["FLOAT16", "FLOAT"]',
                                                               '"ascend910": ["FLOAT17"]', 1))
    ops, errors = load_folder(specs)
    assert sorted(ops) == ["log_sigmoid_backward", "threshold_backward"]
    by_file = {os.path.basename(e.source): e for e in errors}
    assert by_file["elu_backward.py"].line == 4 and "NameError" in str(by_file["elu_backward.py"])
    dtypes_line = next(i for i, t in enumerate(text.splitlines(), 1) if t.strip().startswith("dtypes="))
    assert by_file["softshrink_backward.py"].line == dtypes_line
    assert f"softshrink_backward.py:{dtypes_line}: aclnnSoftshrinkBackward: " in str(by_file["softshrink_backward.py"])


def test_verify_reports_every_bad_spec_and_proves_the_good_ones(tmp_path):
    run = _opgen("--specs", str(_specs(tmp_path)), "verify", "--no-numeric")
    assert run.returncode == 2, run.stdout + run.stderr
    assert "elu_backward.py:4: aclnnEluBackward: NameError" in run.stderr   # malformed: file, line, op
    assert "threshold_backward.py:" in run.stderr and "x = threshold" in run.stderr   # unproven: file, line, point
    assert "2/4 ops proven" in run.stdout                                   # the good ones were proven
    assert "aclnnSoftshrinkBackward" in run.stdout and "aclnnLogSigmoidBackward" in run.stdout


def _digests(folder):
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_generate_writes_the_good_ops_and_nothing_of_a_bad_one(tmp_path):
    """One op edited (written), one malformed and one unproven (their files and every shared file untouched)."""
    specs = _specs(tmp_path)
    out = tmp_path / "generated"
    shutil.copytree(REPO / "generated", out)
    (out / "numpy" / "threshold_backward.py").write_text("# what an earlier, good version generated\n")
    text = (specs / "softshrink_backward.py").read_text()
    (specs / "softshrink_backward.py").write_text(text.replace('"Backward of the Softshrink function."',
                                                               '"Backward of Softshrink, edited."'))
    before = _digests(out)
    run = _opgen("--specs", str(specs), "generate", "--out", str(out))
    assert run.returncode == 2, run.stdout + run.stderr
    assert "elu_backward.py:4" in run.stderr and "x = threshold" in run.stderr
    assert "nothing written for: elu_backward, threshold_backward" in run.stderr
    after = _digests(out)
    changed = {p for p in before if before[p] != after.get(p)} | (set(after) - set(before))
    assert "docs/en/aclnnSoftshrinkBackward.md" in changed              # the edit ...
    assert all("softshrink" in p.lower() for p in changed), changed    # ... and nothing else
    assert after["numpy/threshold_backward.py"] == before["numpy/threshold_backward.py"]
    assert after["numpy/elu_backward.py"] == before["numpy/elu_backward.py"]
    run = _opgen("--specs", str(specs), "generate", "--check", "--out", str(out))
    assert run.returncode == 2 and "up to date" in run.stdout, run.stdout + run.stderr


@pytest.mark.parametrize("name, says", [
    ("n", "their own locals"), ("call", "their own locals"), ("t0", "their own locals"), ("int", "reserved word"),
    ("out", "out= keyword"), ("self_i", "element i of self"), ("grad_output", "same snake_case name")])
def test_a_parameter_name_the_generated_code_uses_is_refused_at_load(tmp_path, name, says):
    """A parameter named like a local of the generated kernels (or a C word) broke the C build or the NumPy kernel
    with a compiler's error (session 17: `n`, `call`, `params`, `res`, `int`, `in`, `out`, `self_i`); now the
    spec is refused at load, naming the parameter."""
    (tmp_path / "named_backward.py").write_text(f'''from codegen.spec import *
x, g, w = symbols("x gradOutput w", real=True)
SPEC = Op(name="aclnnNamedBackward", forward_name="F",
    params=[Tensor("gradOutput", g, role=GRAD, doc=Text("a", "a")),
            Tensor("self", x, role=FORWARD_INPUT, doc=Text("b", "b")),
            Tensor("{name}", w, role=OPERAND, doc=Text("w", "w")),
            Output("gradInput", doc=Text("c", "c"))],
    wrt=x, forward=w*x, backward=g*w, dtypes={{"ascend910b": ["FLOAT"]}},
    rules=[DtypeSupported("gradOutput", "self", "{name}", "gradInput")],
    description=Text("d", "d"))
''')
    with pytest.raises(SpecError, match=f"parameter.*{name}.*{says}"):
        load_spec_file(tmp_path / "named_backward.py")
