"""The generated CANN projects as msOpGen lays them out: the files, the CMake presets and op prototype JSON
agreeing with the OpDef, names in the vendor namespace, the op_api layer's checks in the checkers' order, the
docs' map of every file (templates without logic: tests/test_templates.py)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import codegen
from codegen.backends.ascendc import names
from codegen.backends.ascendc.plan import all_combos
from codegen.backends.ascendc.socs import kernel_socs
from codegen.checkplan import steps

from .conftest import REPO
from .samples import ascendc_plan as plan   # (once per op: planning again costs CPU on every case)

OPS = codegen.load_specs()
# (an Ascend 950 only op has no Ascend C project: SwigluGroupGrad)
OPS = {n: op for n, op in OPS.items() if kernel_socs(op)}
GENERATED = REPO / "generated" / "ascendc"


@pytest.mark.parametrize("name", sorted(OPS))
def test_each_project_has_the_msopgen_layout(name):
    want = set(names.files(OPS[name]).values())
    have = {p.relative_to(GENERATED / name).as_posix() for p in (GENERATED / name).rglob("*") if p.is_file()}
    assert have == want
    for top in ("CMakeLists.txt", "CMakePresets.json", "build.sh", "framework/CMakeLists.txt",
                "op_host/CMakeLists.txt", "op_kernel/CMakeLists.txt"):
        assert top in have


@pytest.mark.parametrize("name", sorted(OPS))
def test_presets_and_prototype_agree_with_the_opdef(name):
    op, p = OPS[name], plan(OPS[name])
    folder = GENERATED / name
    cache = json.loads((folder / "CMakePresets.json").read_text())["configurePresets"][0]["cacheVariables"]
    assert cache["ASCEND_COMPUTE_UNIT"]["value"].split(";") == kernel_socs(op)   # the SoCs with an architecture
    assert cache["vendor_name"]["value"] == names.VENDOR
    host = (folder / names.files(op)["host"]).read_text()
    (proto,) = json.loads((folder / names.files(op)["prototype"]).read_text())
    assert proto["op"] == names.op_type(op) and f"OP_ADD({proto['op']});" in host
    assert [d["name"] for d in proto["input_desc"]] == p.operands == re.findall(r'this->Input\("(\w+)"\)', host)
    assert [a["name"] for a in proto["attr"]] == re.findall(r'this->Attr\("(\w+)"\)', host)
    spelled = {"FLOAT": "float", "FLOAT16": "float16", "BFLOAT16": "bfloat16"}
    # the kernel op's dtype pairs (a class-index op's kernel reads and writes FLOAT: codegen.spec.classes)
    for d in proto["input_desc"]:
        assert d["type"] == [spelled[i] for i, _ in all_combos(p.op)] and d["format"] == ["ND"] * len(d["type"])
    assert proto["output_desc"][0]["type"] == [spelled[o] for _, o in all_combos(p.op)]


@pytest.mark.parametrize("name", sorted(OPS))
def test_every_name_is_in_the_vendor_namespace(name):
    """CANN's own library exports aclnn<Op> (op.name) and registers its kernels' OpTypes; the project's names
    carry the vendor prefix, so installing it beside CANN's defines no symbol twice."""
    op = OPS[name]
    folder = GENERATED / name
    api = "".join((folder / names.files(op)[r]).read_text() for r in ("aclnn_header", "aclnn_source"))
    defined = set(re.findall(r"aclnnStatus (aclnn\w+)\(", api))
    assert defined == {names.aclnn_name(op) + "GetWorkspaceSize", names.aclnn_name(op)}
    assert all(d.startswith("aclnn" + names.PREFIX) for d in defined) and op.name not in defined
    kernel = (folder / names.files(op)["kernel"]).read_text()
    assert f"__aicore__ void {names.kernel_name(op)}(" in kernel
    # CANN's mapping, an acronym one word (NLLLossGrad's kernel is nll_loss_grad)
    assert names.kernel_name(op) == re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_",
                                           names.op_type(op)).lower()


@pytest.mark.parametrize("name", sorted(OPS))
def test_the_op_api_checks_run_in_the_checkers_order(name):
    """One opgen_l2 check per step of codegen.checkplan (a conversion of an attribute needs none in C++), on
    the same parameter, in the same order as the Python and C checkers."""
    op = OPS[name]
    source = (GENERATED / name / names.files(op)["aclnn_source"]).read_text()
    body = source[source.index("aclnnStatus CheckParams("):source.index("}  // namespace")]
    called = []
    for fn, args in re.findall(r"opgen_l2::(\w+)\((.*)\), ACLNN", body):
        quoted = re.findall(r'"(\w+)"', args)
        if fn == "KernelDtypes":   # the last step names no parameter
            called.append("")
            continue
        # (ref, "ref", param, "param") for the comparisons; (param, "param", ...) for the others
        called.append(quoted[1] if fn in ("DtypeSame", "DtypeCastable", "FormatSame", "ShapeSame", "Broadcastable") else quoted[0])
    expected = [s.param for s in steps(op) if not (s.kind == "convert" and op.param(s.param).kind == "attr")]
    assert called == expected


def test_the_docs_map_every_generated_file():
    doc = (REPO / "docs" / "ascendc.md").read_text()
    op = OPS["elu_backward"]
    for role, path in names.files(op).items():
        generic = path.replace(op.snake_name, "<op>")
        assert f"`{generic}`" in doc, f"docs/ascendc.md does not map {generic} ({role})"
