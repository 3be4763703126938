"""The tutorial (docs/tutorial.md) stays true: its spec is a real spec, and what it shows verify, the NumPy
backend and the checks printing is what they print."""
from __future__ import annotations

import re
from pathlib import Path

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


# ---- step 9: the rest of the language, one example per feature -------------------------------------------------
STEP9 = TUTORIAL.split("## 9. ")[1].split("\n## ")[0]
ADDED = "# added to the rules of "


def _code(line: str) -> str:
    """A line without its trailing comment (the examples may leave comments out)."""
    return line.split("  #")[0].strip()


def _pieces(block: str) -> list:
    """[(spec path, its lines)] of a block whose lines are headed `# specs/<file>.py`."""
    pieces = []
    for line in block.splitlines():
        head = re.fullmatch(r"# ((?:tests/feature_specs/|specs/)\w+\.py)", line.strip())
        if head:
            pieces.append((head.group(1), []))
        else:
            assert pieces, f"a step-9 block that names no spec: {block[:80]!r}"
            pieces[-1][1].append(line)
    return pieces


def test_each_example_of_step_9_is_the_specs_own_lines():
    """Every line of a step-9 block is a line of the spec it names (its trailing comment may be left out), in the
    spec's order; lines not separated by `...` are consecutive there too, comment lines aside."""
    blocks = re.findall(r"```python\n(.*?)```", STEP9, re.S)
    checked = set()
    for b in blocks:
        if b.startswith(ADDED):
            continue
        for path, lines in _pieces(b):
            spec = [line.strip() for line in (REPO / path).read_text().splitlines()
                    if line.strip() and not line.strip().startswith("#")]   # comment lines aside
            at, adjacent = 0, False
            for line in lines:
                if line.strip() == "...":
                    adjacent = False
                    continue
                found = [i for i in range(at, len(spec)) if _code(spec[i]) == _code(line) and
                         (spec[i] == line.strip() or _code(line) == line.strip())]
                assert found, f"{path}: not there (after line {at}): {line.strip()}"
                assert not adjacent or found[0] == at, f"{path}: not right after the line before: {line.strip()}"
                at, adjacent = found[0] + 1, True
            checked.add(path)
    assert len(blocks) >= 10 and len(checked) >= 15, (len(blocks), sorted(checked))


def test_the_rule_step_9_adds_is_checked_and_leaves_the_proof_two_orders(tmp_path):
    b = next(b for b in re.findall(r"```python\n(.*?)```", STEP9, re.S) if b.startswith(ADDED))
    path = b.splitlines()[0][len(ADDED):].strip()
    rule = "".join(f"        {line.strip()}\n" for line in b.splitlines()[1:])
    text = (REPO / path).read_text()
    assert text.count("    rules=[\n") == 1
    (tmp_path / Path(path).name).write_text(text.replace("    rules=[\n", "    rules=[\n" + rule))
    name = Path(path).stem
    cases = lambda op: {r.formula for r in verify_op(op, numeric=False, use_cache=False) if r.ok}  # noqa: E731
    assert cases(codegen.load_specs(REPO / "specs")[name]) == {"max < min", "max = min", "min < max"}
    assert cases(codegen.load_specs(tmp_path)[name]) == {"min < max", "min = max"}
    fn = codegen.kernel(name, specs_dir=tmp_path)
    x = np.ones(3, np.float32)
    with pytest.raises(codegen.AclnnError) as e:
        fn(grad_output=x, self=x, min=2.0, max=1.0)
    assert f"`{e.value}`" in STEP9
    np.testing.assert_array_equal(fn(grad_output=x, self=x, min=1.0, max=1.0), [0, 0, 0])   # x at both bounds


def test_the_int_array_example_of_step_9_runs_as_shown():
    """Step 9's aclIntArray example (tests/feature_specs/sequence_tanh_backward.py): the calls shown give what the
    tutorial prints, on NumPy, C and Ascend C; the values are 1 - tanh(x)^2 where t < inputLengths[b], else 0 (math.tanh)."""
    import math
    shown = next(b for b in re.findall(r"```pycon\n(.*?)```", STEP9, re.S) if "input_lengths=[3, 1]" in b)
    x = np.array([[0.0, 0.5], [1.0, -1.0], [2.0, -2.0]], np.float32)
    printed = re.search(r"^array\((.*?)\], dtype", shown, re.S | re.M).group(1) + "]"
    want = np.array(eval(printed), np.float32)   # noqa: S307 (the tutorial's own literal)
    oracle = [[1 - math.tanh(v) ** 2 if t < n else 0 for v, n in zip(row, (3, 1))] for t, row in enumerate(x)]
    np.testing.assert_allclose(want, oracle, rtol=1e-6)
    for backend in ("numpy", "c", "ascendc"):
        fn = codegen.kernel("sequence_tanh_backward", backend=backend, specs_dir=REPO / "tests" / "feature_specs")
        np.testing.assert_allclose(fn(grad_output=np.ones_like(x), self=x, input_lengths=[3, 1]), want, rtol=1e-6)
        with pytest.raises(codegen.AclnnError) as e:
            fn(grad_output=np.ones_like(x), self=x, input_lengths=[3, 4])
        assert f"AclnnError: {e.value}" in shown
    op = codegen.load_specs(REPO / "tests" / "feature_specs")["sequence_tanh_backward"]
    assert all(r.ok for r in verify_op(op, numeric=False, use_cache=False))
