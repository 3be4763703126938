"""The README stays short and true: its example is a real spec whose outputs it shows, its links resolve, its
command table names every command.  (test_specs_and_cli.py runs the README's spec end to end.)"""
from __future__ import annotations

import re

import numpy as np
import pytest

import codegen
from codegen.aclnn import prototypes
from codegen.backends.docs.page import headings

from .conftest import REPO

README = (REPO / "README.md").read_text()


def blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, re.S)


@pytest.fixture(scope="module")
def silu(tmp_path_factory):
    specs = tmp_path_factory.mktemp("readme") / "specs"
    specs.mkdir()
    spec = next(b for b in blocks("python") if b.startswith('"""aclnnSiluBackward'))
    (specs / "silu_backward.py").write_text(spec)
    return specs, codegen.load_specs(specs)["silu_backward"]


def test_at_most_250_lines():
    assert len(README.splitlines()) <= 250


def test_the_header_shown_is_the_one_the_c_backend_prints(silu):
    _, op = silu
    shown = next(b for b in blocks("c") if "GetWorkspaceSize" in b)
    printed = prototypes.phase1_prototype(op) + ";\n\n" + prototypes.phase2_prototype(op) + ";\n"
    assert shown == printed


def test_the_call_shown_prints_what_the_readme_says(silu):
    specs, _ = silu
    call = next(b for b in blocks("python") if "codegen.kernel(" in b)
    shown = re.search(r"# array\((\[.*?\])", call, re.S).group(1)
    want = np.array([float(v) for v in re.findall(r"-?\d+\.\d*(?:e-?\d+)?", shown)], dtype=np.float32)
    fn = codegen.kernel("silu_backward", specs_dir=specs)
    x = np.linspace(-4, 4, 5, dtype=np.float32)
    np.testing.assert_allclose(fn(grad_output=np.ones_like(x), self=x), want, rtol=1e-7)
    with pytest.raises(codegen.AclnnError) as e:
        fn(grad_output=np.ones(3, np.float32), self=x)
    assert e.value.status == 161002 and str(e.value).startswith("[161002] self must have the shape")
    assert "[161002] self must have the shape" in call


def test_the_verify_output_shown_is_what_verify_prints(silu):
    from codegen.verify import verify_op
    _, op = silu
    shown = next(b for b in blocks("text") if "opgen verify silu_backward" in b)
    for r in verify_op(op, numeric=True, use_cache=False):
        assert re.search(rf"{re.escape(r.check)}\s+{r.verdict}\b", shown), (r.check, r.verdict)


def test_every_link_resolves():
    for target in re.findall(r"\]\(([^)#:]+\.md)(?:#([^)]+))?\)", README):
        path, anchor = target
        assert (REPO / path).is_file(), path
        if anchor:
            slugs = {re.sub(r"[^\w\- ]", "", t).strip().lower().replace(" ", "-")
                     for _, t in headings((REPO / path).read_text())}
            assert anchor in slugs, (path, anchor)


def test_the_command_table_names_every_command():
    from codegen.cli import main
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        main(["--help"])
    commands = re.search(r"\{([a-z,]+)\}", out.getvalue()).group(1).split(",")
    table = README.split("## The command line", 1)[1].split("\n## ", 1)[0]
    for c in commands:
        assert f"`opgen {c}" in table, c
