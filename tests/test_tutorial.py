"""The tutorial (docs/tutorial.md) stays true: its spec is a real spec, and what it shows verify, the NumPy
backend and the checks printing is what they print."""
from __future__ import annotations

import re

import numpy as np
import pytest

import codegen
from codegen.verify import verify_op

from .conftest import REPO

TUTORIAL = (REPO / "docs" / "tutorial.md").read_text()


def block(lang: str, containing: str) -> str:
    return next(b for b in re.findall(rf"```{lang}\n(.*?)```", TUTORIAL, re.S) if containing in b)


@pytest.fixture(scope="module")
def hardswish(tmp_path_factory):
    specs = tmp_path_factory.mktemp("tutorial") / "specs"
    specs.mkdir()
    (specs / "hardswish_backward.py").write_text(block("python", '"""aclnnHardswishBackward'))
    return specs, codegen.load_specs(specs)["hardswish_backward"]


def test_the_proof_shown_is_what_verify_prints(hardswish):
    _, op = hardswish
    shown = block("text", "opgen --specs myops/specs verify")
    results = verify_op(op, numeric=True, use_cache=False)
    assert all(r.ok for r in results)
    for r in results:
        if r.verdict != "agrees":   # the mpmath row's figure depends on the random points
            assert f"{r.check}" in shown and re.search(rf"{re.escape(r.check)}\s+{r.verdict}\s+{re.escape(r.detail)}",
                                                       shown), (r.check, r.detail)


def test_the_wrong_formula_fails_as_shown(hardswish, tmp_path):
    specs, _ = hardswish
    text = (specs / "hardswish_backward.py").read_text().replace("x / 3 + Rational(1, 2)", "x / 3 + 1")
    (tmp_path / "hardswish_backward.py").write_text(text)
    op = codegen.load_specs(tmp_path)["hardswish_backward"]
    failed = [r for r in verify_op(op, numeric=False, use_cache=False) if not r.ok]
    shown = block("text", "FAILED myops/specs/hardswish_backward.py")
    assert failed and all(re.search(re.escape(f"[all inputs] {r.check}: {r.detail}") + "(;|$)", shown, re.M) for r in failed)


def test_the_calls_shown_give_what_the_tutorial_says(hardswish):
    specs, op = hardswish
    fn = codegen.kernel("hardswish_backward", specs_dir=specs)
    x = np.array([-4, -3, -1.5, 0, 1.5, 3, 4], dtype=np.float32)
    g = np.ones_like(x)
    shown = block("text", "numpy [")
    want = [float(v) for v in re.search(r"numpy \[(.*?)\]", shown).group(1).split()]
    np.testing.assert_array_equal(fn(grad_output=g, self=x), want)
    # independent check of the shown values: the forward's one-sided derivatives, and the page's conventions
    np.testing.assert_array_equal(want, [0, -0.5, 0, 0.5, 1, 1.5, 1])
    errors = block("python", ">>> fn(")
    for call, kw in (("x[:3]", dict(grad_output=g, self=x[:3])),
                     ("product=", dict(grad_output=g.astype(np.float16), self=x, product="ascend910"))):
        with pytest.raises(codegen.AclnnError) as e:
            fn(**kw)
        assert f"AclnnError: {e.value}" in errors, call


def test_the_kernel_line_shown_is_generated(hardswish):
    _, op = hardswish
    from codegen.backends import numpy as numpy_backend
    files = numpy_backend.generate({"hardswish_backward": op}, lambda o: "specs/hardswish_backward.py")
    shown = block("python", "result = _where").strip()
    assert shown in files["numpy/hardswish_backward.py"]
