"""The generated doc pages (generated/docs/): every fact on them against the spec, the checkers and the kernels.

Pages are read back from disk and parsed as Markdown; expected values come from the spec objects, the NumPy
checker (run on rule-breaking inputs) and the lowering the kernels are printed from — never from the page
builders under test.
"""
from __future__ import annotations

import copy
import re
import subprocess
import sys

import numpy as np
import pytest
import sympy

import codegen
from codegen.backends import docs
from codegen.backends.docs import formulas as F
from codegen.backends.docs.latex import latex
from codegen.backends.docs.page import PageError, check_page, headings, sections
from codegen.lower import lower
from codegen.spec import PRODUCTS, Formula, Text
from codegen.spec.params import Output, Tensor
from codegen.spec.rules import STATUS_NAMES

from .conftest import REPO, ci_kinds
from .error_inputs import error_inputs, valid_call
from .samples import channel_rules

OPS = sorted(codegen.load_specs())
LANGS = ("zh", "en")
DOCS = REPO / "generated" / "docs"
WORDS = {  # the words of the page skeleton, per language (the templates' fixed text)
    "zh": {"products": "支持的产品型号", "dtype": "数据类型", "supported": "√", "unsupported": "×"},
    "en": {"products": "Supported products", "dtype": "dtype", "supported": "√", "unsupported": "×"},
}


def page(op, lang):
    return (DOCS / lang / f"{op.name}.md").read_text()


def section(text, title):
    found = [body for t, body in sections(text) if t == title]
    assert len(found) == 1, f"section {title!r}: found {len(found)}"
    return found[0]


def table_rows(body):
    """Rows of the first Markdown table in `body`, without the header and the |---| line."""
    rows = [line.strip() for line in body.splitlines() if line.strip().startswith("|")]
    cells = [[re.sub(r"\\([|\[\]])", r"\1", c.strip()) for c in re.split(r"(?<!\\)\|", r)[1:-1]] for r in rows]
    return cells[2:]


def math_blocks(text):
    return [m.strip() for m in re.findall(r"\$\$\n(.*?)\n\s*\$\$", text, re.S)]


def code_blocks(text, lang):
    return re.findall(rf"```{lang}\n(.*?)\n```", text, re.S)


# ---- files ---------------------------------------------------------------------------------------------------
def test_every_op_has_a_page_per_language_and_an_index(ops):
    want = {f"{lang}/{op.name}.md" for op in ops.values() for lang in LANGS} | {f"{lang}/index.md" for lang in LANGS}
    have = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert have == want


# (that the pages on disk are what the backend renders now is test_specs_and_cli's
# test_generated_is_up_to_date_and_deterministic: its render of every file, docs/ among them, against generated/)


# ---- 支持的产品型号 and dtype tables ---------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", OPS)
def test_product_table_equals_the_spec(ops, name, lang):
    op = ops[name]
    rows = table_rows(section(page(op, lang), WORDS[lang]["products"]))
    w = WORDS[lang]
    want = [[getattr(p, lang), w["supported"] if soc in op.dtypes else w["unsupported"]] for soc, p in PRODUCTS.items()]
    assert rows == want


def _dtype_tables(op, text, lang):
    """{parameter: {SoC: [dtypes]}} read from the phase-1 parameter list."""
    by_words = {getattr(p, lang): soc for soc, p in PRODUCTS.items()}
    body = section(text, f"{op.name}GetWorkspaceSize")
    tables, current, in_dtype = {}, None, False
    for line in body.splitlines():
        m = re.match(r"  - (\w+)[( ]", line)
        if m:
            current, in_dtype = m.group(1), False
            continue
        if re.match(rf"    - {WORDS[lang]['dtype']}:\s*$", line):
            in_dtype = True
            continue
        inline = re.match(rf"    - {WORDS[lang]['dtype']}: ?(.+)$", line)
        if inline:   # one group of products, on the item's own line
            line, in_dtype = "      - " + inline.group(1), True
        elif line.startswith("    - "):
            in_dtype = False
        m = re.match(r"      - (.+?): ?(.+?)[。.]$", line)
        if in_dtype and m and any(w in m.group(1) for w in by_words):
            products = re.split("、|, (?=Atlas|Ascend)", m.group(1))
            dtypes = re.split("、|, ", m.group(2))
            for pr in products:
                tables.setdefault(current, {})[by_words[pr]] = dtypes
    return tables


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", OPS)
def test_parameter_dtype_tables_equal_the_spec(ops, name, lang):
    op = ops[name]
    tables = _dtype_tables(op, page(op, lang), lang)
    checked = [p.name for p in op.params if isinstance(p, (Tensor, Output))]
    assert sorted(tables) == sorted(checked)
    for n in checked:
        assert tables[n] == op.dtypes_of(n), n


@pytest.mark.parametrize("lang", LANGS)
def test_index_matrix_equals_the_spec(ops, lang):
    rows = table_rows((DOCS / lang / "index.md").read_text())
    sep = "、" if lang == "zh" else ", "
    assert [r[0] for r in rows] == [f"[{op.name}]({op.name}.md)" for op in ops.values()]
    for row, op in zip(rows, ops.values()):
        want = [sep.join(op.dtypes[soc]) if soc in op.dtypes else "×" for soc in PRODUCTS]
        assert row[1:] == want, op.name


# ---- 接口原型 ----------------------------------------------------------------------------------------------
C_TYPES = {"Tensor": "const aclTensor *", "Output": "aclTensor *", "Scalar": "const aclScalar *"}


@pytest.mark.parametrize("name", OPS)
def test_prototypes_list_every_parameter_with_its_c_type(ops, name):
    op = ops[name]
    proto1, proto2 = code_blocks(section(page(op, "zh"), "接口原型"), "c")
    flat = " ".join(proto1.split())
    assert flat.startswith(f"aclnnStatus {op.name}GetWorkspaceSize(")
    norm = lambda decl: re.sub(r"\s*\*\s*", "*", " ".join(decl.split()))  # noqa: E731
    params = [norm(p) for p in flat[flat.index("(") + 1:-1].split(",")]
    plain = {'int64': 'int64_t', 'bool': 'bool', 'double': 'double', 'float': 'float', 'string': 'const char *'}
    # a spelling the spec states (GeluBackwardV2's `char *`, LogitGrad's `const aclTensor *out`) or the default
    want = [norm(f"{getattr(p, 'c_type', None) or C_TYPES.get(type(p).__name__) or plain[p.type]} {p.name}")
            for p in op.params]
    assert params == want + ["uint64_t*workspaceSize", "aclOpExecutor**executor"]
    # CANN's header says `const aclrtStream` for some ops, and calls the size `workspace_size` for a few
    from codegen.aclnn.cann import const_stream, workspace_size_name
    stream = "const aclrtStream" if const_stream(op.name) else "aclrtStream"
    assert " ".join(proto2.split()) == (f"aclnnStatus {op.name}( void *workspace, uint64_t "
                                        f"{workspace_size_name(op.name)}, aclOpExecutor *executor, {stream} stream)")


# ---- 功能描述: formulas ------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", OPS)
def test_formulas_are_the_spec_objects_printed(ops, name, lang):
    """Every $$ block is the print of op.forward, the loss reduction, or one op.formulas[i].expr (after its own
    forward, if any) — and those Formula objects are the ones the kernels are lowered from."""
    op = ops[name]
    blocks = math_blocks(section(page(op, lang), {"zh": "功能描述", "en": "Description"}[lang]))
    want = [f"{F.forward_lhs(op)} = {latex(op.forward, op)}"]
    if op.loss_reduction:
        want.append(F.reduction_item(op).tex)
    # several outputs: each form prints its own output's name, a summed-back one (gradWeight) as a sum
    lhs = lambda f: latex(sympy.Symbol(f.output or op.output.name), op)
    summed = {o.name for o in op.outputs if o.sum_to and op.per_output}
    for f in op.formulas:   # a form with its own forward (GeluBackwardV2's tanh) prints that forward first
        if f.forward is not None:
            want.append(f"{F.forward_lhs(op)} = {latex(f.forward, op)}")
        sigma = "\\sum " if (f.output or op.output.name) in summed else ""
        want.append(f"{lhs(f)} = {sigma}{latex(f.expr, op)}")
    # the values declared where the forward has no derivative (op.at: the first output's)
    declared = [(op.output.name, op.at)] + [(f.output or op.output.name, f.at) for f in op.formulas]
    want += [f"{latex(sympy.Symbol(o), op)} = {latex(sympy.sympify(v), op)}" for o, t in declared for v in t.values()]
    assert blocks == want
    # the very objects, not equal copies (several outputs: each output's op is lowered on its own)
    lowered = {id(kv.variant.formula.expr) for o in op.per_output or [op] for kv in lower(o).variants}
    assert lowered == {id(f.expr) for f in op.formulas}, "a documented form no kernel is lowered from, or vice versa"


def test_a_changed_backward_changes_the_page_and_the_kernel_alike(ops):
    """Docs and kernels read the same SymPy object: replace it, and both follow."""
    op = copy.copy(ops["log_sigmoid_backward"])
    x, g = op.wrt, op.grad.symbol
    op.backward = g * sympy.exp(-x) / (1 + sympy.exp(-x)) ** 2  # a different (wrong) formula, on purpose
    text = docs.render_page(op, "en", "specs/log_sigmoid_backward.py")
    assert latex(op.backward, op) in text
    assert latex(ops["log_sigmoid_backward"].backward, ops["log_sigmoid_backward"]) not in text
    assert lower(op).variants[0].variant.expr == op.backward


@pytest.mark.parametrize("name", ["elu_backward", "binary_cross_entropy_with_logits_backward"])
def test_every_documented_form_is_on_the_page_with_its_condition(ops, name):
    op = ops[name]
    text = page(op, "en")
    for f in op.formulas:
        cond = F.when_words(op, f.when, "en")
        assert f"{op.name} {cond}:" in text
        for k, v in f.when.items():
            assert k in cond and (str(v).lower() if isinstance(v, bool) else "") in cond


def test_latex_printer_customizations():
    x, lam, g = sympy.Symbol("x", real=True), sympy.Symbol("lambda", real=True), sympy.Symbol("gradOutput")
    from codegen.backends.docs.latex import DocLatexPrinter
    pr = DocLatexPrinter({x, g})
    assert pr.doprint(x > lam) == r"x > \lambda"              # SymPy stores lam < x
    assert pr.doprint(x < -lam) == r"x < - \lambda"           # SymPy stores lam < -x
    assert pr.doprint(g) == r"\mathit{gradOutput}"
    assert pr.doprint(codegen.spec.numel("self")) == r"\operatorname{numel}(\mathit{self})"
    pw = sympy.Piecewise((g, x > lam), (0, True))
    assert pr.doprint(pw) == r"\begin{cases} \mathit{gradOutput}, & \text{if } x > \lambda \\ 0, & \text{otherwise} \end{cases}"


# ---- 返回值: the error table -----------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", OPS)
def test_error_table_lists_every_checker_rule_and_nothing_else(ops, name, lang):
    op = ops[name]
    rows = table_rows(section(page(op, lang), f"{op.name}GetWorkspaceSize").split("- 返回值" if lang == "zh"
                                                                                   else "- Return value")[1])
    want = [[STATUS_NAMES[r.status], str(r.status), r.describe(lang, op)] for r in op.all_rules]
    assert rows == want


@pytest.mark.parametrize("name", OPS)
def test_error_table_matches_what_the_checker_reports(ops, name):
    """Independent of the page builder: break each rule in a real call; the NumPy checker's (status, parameter)
    must be a row of the table naming that parameter, and every row must be reachable that way (DtypeCastable
    cannot be broken with float inputs; the output's null check is C-only; an EmptyReturns row, a success, is
    reached by a call with empty tensors)."""
    op = ops[name]
    rows = table_rows(section(page(op, "en"), f"{op.name}GetWorkspaceSize").split("- Return value")[1])
    fn = codegen.kernel(name)
    base = valid_call(op, np.random.default_rng(1))
    base = dict(base, out=fn(**base, product=op.default_product))
    hit = set()
    for case in error_inputs(op, base, op.default_product):
        with pytest.raises(codegen.AclnnError) as info:
            fn(**case.kw, product=op.default_product)
        status, param = info.value.status, info.value.param
        matching = [i for i, (s, code, words) in enumerate(rows)
                    if int(code) == status and s == STATUS_NAMES[status] and re.search(rf"\b{param}\b", words)]
        assert matching, f"{name}: the checker reports [{status}] {param}; no row of the table says so"
        hit.update(matching)
    # An EmptyReturns row is a success, not a broken rule: reach it with a real call whose tensors are all empty
    # (the same dtypes), which must succeed.
    for i, r in enumerate(op.all_rules):
        if type(r).__name__ == "EmptyReturns":
            # (a per-channel tensor keeps one element, what a rank-1 self of no channel axis takes; several
            # outputs: allocated)
            channel = channel_rules(op).values()
            empty = {k: (v.reshape(-1)[:1] if k in channel else np.empty((0,), v.dtype)
                         if isinstance(v, np.ndarray) else None if k == "out" and op.per_output else v)
                     for k, v in base.items()}
            fn(**empty, product=op.default_product)
            assert rows[i][:2] == ["ACLNN_SUCCESS", "0"], f"{name}: the EmptyReturns row is {rows[i]}"
            hit.add(i)
    unreachable = {i for i, r in enumerate(op.all_rules)
                   if type(r).__name__ == "DtypeCastable"
                   or (type(r).__name__ in ("NotNull", "NotNullWhen") and isinstance(op.param(r.params[0]), Output))
                   or r.category == "empty"}   # a success row (EmptyReturns): no rule-breaking call produces it
    assert set(range(len(rows))) - hit <= unreachable, \
        f"{name}: rows no rule-breaking call produces: {[rows[i] for i in set(range(len(rows))) - hit - unreachable]}"


# ---- pages never break -----------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", OPS + ["index"])
def test_no_broken_text_and_no_empty_section(ops, name, lang):
    text = (DOCS / lang / f"{ops[name].name if name != 'index' else 'index'}.md").read_text()
    text = text.replace(r"\text{NaN}", "")   # a formula's value where the forward is not real (LogitGrad)
    for bad in ("[object Object]", "undefined", "None", "NaN"):
        assert bad not in text
    for title, body in sections(text):
        assert body.strip(), f"empty section {title}"
    assert headings(text)[0][0] == 1, "the page starts with its title"


def test_the_page_check_refuses_broken_pages(ops):
    with pytest.raises(PageError, match="empty"):
        check_page("# t\n\n## a\n\n## b\ntext\n", "x.md")
    with pytest.raises(PageError, match="object Object"):
        check_page("# t\n\n## a\n[object Object]\n", "x.md")
    op = copy.copy(ops["softmax_backward"])
    op.description = Text("undefined", "undefined")
    with pytest.raises(PageError, match="undefined"):
        docs.render_page(op, "zh", "specs/softmax_backward.py")


# ---- 约束与限制 ----------------------------------------------------------------------------------------------
def test_constraints_carry_the_proofs_branch_point_conventions(ops):
    from codegen.verify import verify_op
    for name in ("softshrink_backward", "elu_backward"):
        op = ops[name]
        body = section(page(op, "en"), "Constraints")
        conventions = [r for r in verify_op(op, numeric=False, use_cache=True) if r.verdict == "convention"]
        assert conventions
        at_lines = re.findall(r"at \$(.+?)\$ the backward gives", body)
        assert len(at_lines) == len(conventions)
    body = section(page(ops["softshrink_backward"], "en"), "Constraints")
    assert r"at $x = \lambda$ the backward gives $0$, the left derivative" in body
    assert r"at $x = - \lambda$ the backward gives $0$, the right derivative" in body
    elu = section(page(ops["elu_backward"], "en"), "Constraints")
    assert r"$\mathit{scale} > 0$, $\mathit{inputScale} > 0$" in elu  # Formula.assume of the isResult form


@pytest.mark.parametrize("name", OPS)
def test_constraints_state_compute_dtype_and_determinism(ops, name):
    op = ops[name]
    body = section(page(op, "en"), "Constraints")
    assert f"computed in {op.compute_dtype}" in body
    summed = [o.name for o in op.outputs if o.sum_to]
    if op.per_output and summed:   # several outputs: each rounded when written, a summed one's terms added first
        assert f"rounded when written to {', '.join(o.name for o in op.outputs)}" in body
        assert f"the terms of {', '.join(summed)} are added in double" in body
    else:
        assert "rounded once" in body
    assert "Deterministic" in body
    reduces = any(kv.reductions for kv in lower(op).variants)
    assert ("sums along" in body) == reduces


# ---- opgen docs ---------------------------------------------------------------------------------------------
def test_opgen_docs_writes_only_the_pages(tmp_path):
    run = subprocess.run([sys.executable, "-m", "codegen", "docs", "--out", str(tmp_path)], cwd=REPO,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    written = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()}
    assert written == {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*") if p.is_file()}
    for path in written:
        assert (tmp_path / path).read_text() == (DOCS / path).read_text()


def test_a_new_spec_gets_its_pages_with_no_other_change(tmp_path):
    """The README's SiLU backward, alone in a spec folder: `opgen docs` writes both pages and the index."""
    readme = (REPO / "README.md").read_text()
    block = re.search(r'```python\n("""aclnnSiluBackward.*?)```', readme, re.S).group(1)
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "silu_backward.py").write_text(block)
    out = tmp_path / "docs"
    run = subprocess.run([sys.executable, "-m", "codegen", "--specs", str(specs), "docs", "--out", str(out)],
                         cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert {p.relative_to(out).as_posix() for p in out.rglob("*.md")} == {
        "zh/aclnnSiluBackward.md", "en/aclnnSiluBackward.md", "zh/index.md", "en/index.md"}
    op = codegen.load_specs(specs)["silu_backward"]
    zh = (out / "zh" / "aclnnSiluBackward.md").read_text()
    titles = [t for lvl, t in headings(zh) if lvl <= 2]
    assert titles[:7] == ["aclnnSiluBackward", "支持的产品型号", "接口原型", "功能描述",
                          "aclnnSiluBackwardGetWorkspaceSize", "aclnnSiluBackward", "约束与限制"]
    assert rf"\operatorname{{SiLU}}(x) = {latex(op.forward, op)}" in zh
    rows = table_rows(section(zh, "支持的产品型号"))
    assert [r[1] for r in rows] == ["√" if soc in op.dtypes else "×" for soc in PRODUCTS]
    assert "[aclnnSiluBackward](aclnnSiluBackward.md)" in (out / "en" / "index.md").read_text()


# ---- call examples ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ci_kinds(codegen.load_specs()))
def test_every_example_compiles_and_prints_what_the_page_says(ops, name, tmp_path):
    """The page's program, built with the page's command in a tree as `opgen generate` writes it, prints the
    page's output byte for byte (both languages carry the same program and output)."""
    from codegen.backends.c import examples
    op = ops[name]
    texts = [page(op, lang) for lang in LANGS]
    programs = [code_blocks(t, "c") for t in texts]
    commands = [code_blocks(t, "sh") for t in texts]
    outputs = [code_blocks(t, "text") for t in texts]
    assert programs[0] == programs[1] and commands[0] == commands[1] and outputs[0] == outputs[1]
    (program,), (command,), (printed,) = programs[0][-1:], commands[0][-1:], outputs[0][-1:]
    examples.write_tree(tmp_path, op)
    (tmp_path / "generated" / "c" / examples.example_path(op)).write_text(program + "\n")
    run = subprocess.run(command, shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == printed.strip()
    assert "-Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror" in command
