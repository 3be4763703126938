"""Spec loading, bad specs, `opgen` commands, regeneration, and a new operator from the README alone."""
from __future__ import annotations

import re
import shutil
import os
import subprocess
import sys

import numpy as np
import pytest

import codegen
from codegen import generate as gen
from codegen.verify import verify_op

from .conftest import REPO, TESTS, ci_kinds

SEEDS = ["binary_cross_entropy_with_logits_backward", "elu_backward", "log_sigmoid_backward",
         "softmax_backward", "softshrink_backward"]


def opgen(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "codegen", *args], cwd=cwd, capture_output=True, text=True)


def test_the_five_seed_operators_load(ops):
    assert set(SEEDS) <= set(ops) and list(ops) == sorted(ops)
    assert ops["softmax_backward"].name == "aclnnSoftmaxBackward"


@pytest.mark.parametrize("name", SEEDS)
def test_every_seed_operator_is_proven(ops, name):
    results = verify_op(ops[name], numeric=False)
    assert results and all(r.ok for r in results), [r for r in results if not r.ok]
    assert any(r.verdict == "proven" for r in results)


@pytest.mark.parametrize("folder, op_name", [("wrong_formula", "aclnnLogSigmoidBackward"),
                                             ("wrong_softmax", "aclnnSoftmaxBackward")])
def test_a_wrong_formula_is_caught(tmp_path, folder, op_name):
    specs = TESTS / "bad_specs" / folder
    run = opgen("--specs", str(specs), "verify")
    assert run.returncode == 1
    assert op_name in run.stderr and "FAILED" in run.stderr and "residual" in run.stderr
    assert "counterexample" in run.stderr
    out = tmp_path / "gen"
    run = opgen("--specs", str(specs), "generate", "--out", str(out))
    assert run.returncode == 1 and op_name in run.stderr
    assert not out.exists(), "a spec with a wrong formula must write nothing"


def test_a_wrong_formula_among_unproven_specs_writes_nothing_for_it(tmp_path):
    """On an empty proof cache `opgen generate` proves the specs in worker processes while it renders: a wrong
    formula among them is named, and nothing of it (nor any file every op shares) is written; the good ops are
    (issue 29, item 6: one bad spec no longer stops every op)."""
    specs = tmp_path / "specs"
    specs.mkdir()
    for name in SEEDS:
        (specs / f"{name}.py").write_text((REPO / "specs" / f"{name}.py").read_text())
    wrong = TESTS / "bad_specs" / "wrong_formula" / "log_sigmoid_backward.py"
    (specs / "log_sigmoid_backward.py").write_text(wrong.read_text())
    out = tmp_path / "gen"
    env = {**os.environ, "OPGEN_CACHE": str(tmp_path / "cache")}
    run = subprocess.run([sys.executable, "-m", "codegen", "--specs", str(specs), "generate", "--out", str(out)],
                         cwd=REPO, capture_output=True, text=True, env=env)
    assert run.returncode == 1, run.stderr
    assert "aclnnLogSigmoidBackward" in run.stderr and "nothing written for: log_sigmoid_backward" in run.stderr
    assert (out / "numpy" / "softshrink_backward.py").is_file()
    assert not (out / "numpy" / "log_sigmoid_backward.py").exists()
    assert not (out / "numpy" / "__init__.py").exists() and not (out / "docs" / "en" / "index.md").exists()


# Each bad spec is a seed spec with one defect; the check names the file, the op and the defect.
BAD = [
    ("unknown dtype", "log_sigmoid_backward", '"ascend910": ["FLOAT16", "FLOAT"]', '"ascend910": ["FLOAT17"]',
     "unknown dtype 'FLOAT17'"),
    ("unknown product", "log_sigmoid_backward", '"ascend910": ["FLOAT16", "FLOAT"]',
     '"ascend911": ["FLOAT16"]', "unknown product 'ascend911'"),
    ("undefined symbol", "softshrink_backward", "backward=Piecewise((g, x > lam)",
     "backward=Piecewise((g * Symbol('mu'), x > lam)", "undefined symbol mu"),
    ("rule naming a missing parameter", "softshrink_backward", 'Requires("lambda", lam >= 0)',
     'Requires("lambd", lam >= 0)', "missing parameter 'lambd'"),
    ("a null order missing a pointer", "softshrink_backward", '    rules=[\n        DtypeSupported(',
     '    null_order=["self", "gradOutput"],\n    rules=[\n        DtypeSupported(',
     "null_order must list every required pointer parameter once"),
    ("Python error", "elu_backward", "x, g, v = symbols", "x, g, v = symbol", "NameError"),
]


@pytest.mark.parametrize("what, spec, old, new, message", BAD, ids=[b[0] for b in BAD])
def test_bad_specs_fail_clearly_and_write_nothing(tmp_path, what, spec, old, new, message):
    specs = tmp_path / "specs"
    specs.mkdir()
    text = (REPO / "specs" / f"{spec}.py").read_text()
    assert old in text
    (specs / f"{spec}.py").write_text(text.replace(old, new))
    with pytest.raises(codegen.SpecError) as info:
        codegen.load_specs(specs)
    assert message in str(info.value) and f"{spec}.py" in str(info.value)
    out = tmp_path / "gen"
    for cmd in (["generate", "--out", str(out)], ["verify"], ["list"]):
        run = opgen("--specs", str(specs), *cmd)
        assert run.returncode == 2 and message in run.stderr and f"{spec}.py" in run.stderr
    assert not out.exists()


def test_list_shows_ops_products_dtypes():
    run = opgen("list")
    assert run.returncode == 0
    assert re.search(r"softshrink_backward\s+FLOAT16, FLOAT\s+FLOAT16, FLOAT\s+FLOAT16, FLOAT, BFLOAT16\s+"
                     r"FLOAT16, FLOAT, BFLOAT16\s+—", run.stdout)


@pytest.fixture(scope="module")
def rendered(ops):
    """Every generated file rendered in memory, once for the module's tests (a whole render takes 10-25 s; the
    name is in conftest.SHARED_BUILDS, so the tests that use it run on one pytest-xdist worker)."""
    return gen.render_all(ops)


def test_generated_is_up_to_date_and_deterministic(ops, rendered):
    """generated/ was written by `opgen generate` in another process (another hash seed, other work done before):
    the render here equal to it, file for file, is the render's independence of both.  Then a second render in
    this process, from specs loaded again, against a render of the spec objects the first one used (a render that
    changed its specs or depended on what an earlier one left behind would differ): of one op of each kind in CI
    (conftest.ci_kinds, every emitter's paths; ~3 s of CPU where all ops took 10), of every op under --deep."""
    problems = gen.check(rendered)
    assert not problems, "generated/ is stale; run `opgen generate`:\n" + "\n".join(problems[:3])
    again = codegen.load_specs()
    names = ci_kinds(again)
    first = rendered if len(names) == len(ops) else gen.render_all({n: ops[n] for n in names})
    assert first == gen.render_all({n: again[n] for n in names}), "two renders differ"


def test_a_render_lowers_each_op_once_and_keeps_nothing_after(monkeypatch):
    """Inside `kept()` (what render_all renders in) an op asked for in turn by every backend is lowered once, more
    ops than the few `lower` keeps included (taken in turn, each was evicted before it was asked for again:
    lowered once per backend); after the block only those few stay.  Stand-in ops and kernels: the caching, not
    the lowering, is under test."""
    from codegen import keep, lower as lowering
    made = []
    monkeypatch.setattr(lowering, "_lower", lambda op: made.append(op) or ("kernel of", op))
    monkeypatch.setattr(lowering, "_LOWERED", type(lowering._LOWERED)())
    ops = [object() for _ in range(40)]                      # more than the 32 kept outside a block
    with keep.kept():
        for _ in range(4):                                   # four backends, each over every op in turn
            assert [lowering.lower(op) for op in ops] == [("kernel of", op) for op in ops]
        assert keep.kept_for(ops[0], "x", lambda: [1]) is keep.kept_for(ops[0], "x", lambda: [2])
    assert made == ops                                       # once each
    for op in ops:
        lowering.lower(op)
    assert len(made) == 80                                   # the block's kernels went with it; the LRU's 32 ...
    lowering.lower(ops[-1])
    assert len(made) == 80                                   # ... still answer
    assert keep.kept_for(ops[0], "x", lambda: [1]) is not keep.kept_for(ops[0], "x", lambda: [1])


def test_a_render_keeps_the_c_sources_apart_per_op_and_label(ops):
    """The C sources rendered once per op and source label inside a render: a caller changing the dict it got
    changes nothing for the next one, and another label is another rendering."""
    from codegen.backends.c.emit import op_sources
    from codegen.keep import kept
    op = ops["softshrink_backward"]
    with kept():
        first = op_sources(op, "specs/softshrink_backward.py")
        first.clear()
        again = op_sources(op, "specs/softshrink_backward.py")
        other = op_sources(op, "elsewhere/softshrink_backward.py")
    assert again == op_sources(op, "specs/softshrink_backward.py") and len(again) == 2
    assert all("elsewhere/softshrink_backward.py" in text for text in other.values())
    assert other != again


def test_check_reports_changed_missing_and_extra_files(tmp_path, rendered):
    out = tmp_path / "generated"
    shutil.copytree(REPO / "generated", out)
    victim = out / "numpy" / "softmax_backward.py"
    victim.write_text(victim.read_text().replace("np.sum", "np.prod"))
    (out / "numpy" / "stray.py").write_text("# not generated\n")
    (out / "numpy" / "elu_backward.py").unlink()
    problems = "\n".join(gen.check(rendered, out))
    assert "-            r0 = np.prod" in problems and "+            r0 = np.sum" in problems
    assert "extra file generated/numpy/stray.py" in problems
    assert "missing file generated/numpy/elu_backward.py" in problems


def test_generate_check_exits_1_on_a_stale_tree(tmp_path):
    """The command's exit status (on a folder of one spec: what it checks is the test above)."""
    specs, out = tmp_path / "specs", tmp_path / "generated"
    specs.mkdir()
    shutil.copy(REPO / "specs" / "softshrink_backward.py", specs)
    assert opgen("--specs", str(specs), "generate", "--out", str(out)).returncode == 0
    assert opgen("--specs", str(specs), "generate", "--check", "--out", str(out)).returncode == 0
    victim = out / "numpy" / "softshrink_backward.py"
    victim.write_text(victim.read_text() + "# edited by hand\n")
    run = opgen("--specs", str(specs), "generate", "--check", "--out", str(out))
    assert run.returncode == 1 and "softshrink_backward.py" in run.stdout + run.stderr


def test_a_new_operator_from_the_readme_alone(tmp_path):
    """The README's SiLU tutorial, pasted into an empty spec folder, verifies, generates and runs."""
    readme = (REPO / "README.md").read_text()
    block = re.search(r'```python\n("""aclnnSiluBackward.*?)```', readme, re.S).group(1)
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "silu_backward.py").write_text(block)
    run = opgen("--specs", str(specs), "verify", "silu_backward")
    assert run.returncode == 0, run.stdout + run.stderr
    out = tmp_path / "generated"
    run = opgen("--specs", str(specs), "generate", "--out", str(out))
    assert run.returncode == 0, run.stderr
    assert (out / "numpy" / "silu_backward.py").is_file()
    fn = codegen.kernel("silu_backward", specs_dir=specs)
    x = np.linspace(-30, 30, 61, dtype=np.float32)
    got = fn(grad_output=np.ones_like(x), self=x)
    # independent reference: central differences of the forward x*sigmoid(x) in float64
    f = lambda t: t / (1 + np.exp(-t))
    x64, h = x.astype(np.float64), 1e-6
    want = (f(x64 + h) - f(x64 - h)) / (2 * h)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    # every kernel backend runs it too, and its docs page carries a call example that ran
    assert (out / "c" / "src" / "aclnn_silu_backward.c").is_file()
    np.testing.assert_allclose(codegen.kernel("silu_backward", backend="c", specs_dir=specs)(
        grad_output=np.ones_like(x), self=x), want, rtol=1e-5, atol=1e-7)
    assert "result[0] is:" in (out / "docs" / "en" / "aclnnSiluBackward.md").read_text()


def test_a_new_operator_with_an_order_precondition_a_string_and_a_float_attribute():
    """tests/feature_specs/clamp_mode_backward.py combines what no catalog operator does: `Requires("high",
    low <= high)` (the proof takes only the orders it admits, both checkers refuse the others), a string
    attribute choosing the form (a null is 161001, another string 161002) and a float attribute."""
    op = codegen.load_specs(TESTS / "feature_specs")["clamp_mode_backward"]
    results = verify_op(op, numeric=True)
    assert results and all(r.ok for r in results), [r for r in results if not r.ok]
    assert {r.formula for r in results} == {f"mode={m}, low {o} high" for m in ("plain", "scaled") for o in "<="}
    g = np.array([1, 2, 3, 4, 5], np.float32)
    x = np.array([-2, -1, 0.5, 2, 3], np.float32)
    inside = (x > -1) & (x < 2)                               # the open interval between the bounds
    from codegen.backends import get
    for backend in ("numpy", "c"):
        k = get(backend).make_kernel(op)
        call = dict(grad_output=g, self=x, low=-1.0, high=2.0, mode="plain", factor=0.25)
        np.testing.assert_array_equal(k(**call), np.where(inside, g, 0))
        np.testing.assert_array_equal(k(**dict(call, mode="scaled")), np.where(inside, g * np.float32(0.25), 0))
        for bad, status, param in [({"high": -2.0}, 161002, "high"), ({"mode": "tanh"}, 161002, "mode"),
                                   ({"mode": None}, 161001, "mode")]:
            with pytest.raises(codegen.AclnnError) as info:
                k(**dict(call, **bad))
            assert (info.value.status, info.value.param) == (status, param), (backend, bad)


def test_aclnn_promotion_and_casting_are_pytorchs_where_cann_defines_them():
    """codegen.spec.dtypes holds CANN's deduction table and conversion rules (docs/zh/context): PyTorch's
    promote_types and can_cast, an independent implementation of the same lattice, agree on every pair, but
    that CANN refuses to promote UINT16, UINT32 and UINT64 with any other dtype."""
    torch = pytest.importorskip("torch")
    from codegen.spec.dtypes import PROMOTE, can_cast
    t = {"FLOAT": torch.float32, "FLOAT16": torch.float16, "DOUBLE": torch.float64, "BFLOAT16": torch.bfloat16,
         "INT8": torch.int8, "UINT8": torch.uint8, "INT16": torch.int16, "INT32": torch.int32, "INT64": torch.int64,
         "BOOL": torch.bool, "COMPLEX64": torch.complex64, "COMPLEX128": torch.complex128, "UINT16": torch.uint16,
         "UINT32": torch.uint32, "UINT64": torch.uint64}
    name = {v: k for k, v in t.items()}
    for (a, b), c in PROMOTE.items():
        if c is None:
            assert a != b and {"UINT16", "UINT32", "UINT64"} & {a, b}, (a, b)
        else:
            assert name[torch.promote_types(t[a], t[b])] == c, (a, b, c)
    for a in t:
        for b in t:
            assert can_cast(a, b) == torch.can_cast(t[a], t[b]), (a, b)


def test_verify_stores_the_symbolic_verdicts_generate_reads(tmp_path, monkeypatch):
    """`opgen verify` (proofs and mpmath) also caches the symbolic verdicts alone, so that pytest after it in .ci/run
    proves nothing again: the stored lines are those a symbolic run computes, and a failing op stores none."""
    from codegen.verify import cache, verify_op
    monkeypatch.setenv("OPGEN_CACHE", str(tmp_path))
    op = codegen.load_specs()["softshrink_backward"]
    full = verify_op(op, numeric=True, use_cache=True)
    assert any(r.check.startswith("mpmath") for r in full)
    assert cache.lookup(op, False) == verify_op(op, numeric=False)
    wrong = codegen.load_specs(TESTS / "bad_specs" / "wrong_formula")["log_sigmoid_backward"]
    assert not all(r.ok for r in verify_op(wrong, numeric=True, use_cache=True))
    assert cache.lookup(wrong, False) is None
