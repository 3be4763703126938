"""Page structure against the seed pages (the damaged Huawei aclnn pages this project started from).

The seeds live outside the repository (/work/shared/seeds/); their heading sequences are transcribed below, with
each seed's damage named, and `test_transcription_matches_the_seed_files` re-reads the files when they are
there, so the transcription cannot drift from them.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import codegen
from codegen.backends.docs.page import headings, sections

from .conftest import REPO

SEEDS_DIR = Path("/work/shared/seeds")
DOCS = REPO / "generated" / "docs"

# seed file → (op, its headings in order: the title, then the sections)
SEED_HEADINGS = {
    "000_dc67955ddf6f8110.txt": ("log_sigmoid_backward", [
        "aclnnLogSigmoidBackward", "支持的产品型号", "接口原型", "功能描述", "aclnnLogSigmoidBackwardGetWorkspaceSize",
        "aclnnLogSigmoidBackward", "约束与限制", "调用示例"]),
    "001_072abbceb8bef0fb.txt": ("softmax_backward", [
        "aclnnSoftmaxBackward", "支持的产品型号", "接口原型", "功能描述", "aclnnSoftmaxBackwardGetWorkspaceSize",
        "aclnnSoftmaxBackward", "约束与限制", "调用示例"]),
    "002_6383dba93bae6d60.txt": ("softshrink_backward", [
        "aclnnSoftshrinkBackward", "支持的产品型号", "接口原型", "功能描述", "aclnnSoftshrinkBackwardGetWorkspaceSize",
        "aclnnSoftshrinkBackwardBackward", "约束与限制", "调用示例"]),
    "003_0ee96399123e0ddb.txt": ("elu_backward", [
        "aclnnEluBackward", "支持的产品型号", "接口原型", "功能描述", "aclnnEluBackwardGetWorkspaceSize",
        "aclnnEluBackward", "约束与限制"]),
    "004_40a37db4416ff80c.txt": ("binary_cross_entropy_with_logits_backward", [
        "aclnnBinaryCrossEntropyWithLogitsBackward", "产品支持情况", "功能说明", "函数原型",
        "aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize", "aclnnBinaryCrossEntropyWithLogitsBackward",
        "约束说明", "调用示例"]),
}
# The seeds' damage, undone before comparing (the issue names the first; the others are visible in the files).
SLIPS = {"aclnnSoftshrinkBackwardBackward": "aclnnSoftshrinkBackward"}      # copy-paste slip in 002
TRUNCATED = {"003_0ee96399123e0ddb.txt": ["调用示例"]}                        # 003 ends after 约束与限制
# 004 is the newer page layout: other names for the same sections, and 功能说明 before 函数原型.
NEWER_NAMES = {"产品支持情况": "支持的产品型号", "功能说明": "功能描述", "函数原型": "接口原型", "约束说明": "约束与限制"}
VOCAB = {"支持的产品型号", "接口原型", "功能描述", "约束与限制", "调用示例"} | set(NEWER_NAMES)
EXAMPLE = "调用示例"


def seed_headings(text: str) -> list[str]:
    """The heading lines of a seed (plain text: headings are lines of their own)."""
    return [line.strip() for line in text.splitlines()
            if line.strip() in VOCAB or re.fullmatch(r"aclnn\w+", line.strip())]


@pytest.mark.skipif(not SEEDS_DIR.is_dir(), reason="the seed pages are not on this machine")
def test_transcription_matches_the_seed_files():
    for name, (_, hs) in SEED_HEADINGS.items():
        assert seed_headings((SEEDS_DIR / name).read_text()) == hs, name


def page_headings(op):
    text = (DOCS / "zh" / f"{op.name}.md").read_text()
    return [title for level, title in headings(text) if level <= 2], text


def expected_from_seed(name):
    _, hs = SEED_HEADINGS[name]
    return [SLIPS.get(NEWER_NAMES.get(h, h), NEWER_NAMES.get(h, h)) for h in hs] + TRUNCATED.get(name, [])


@pytest.mark.parametrize("name", [n for n in SEED_HEADINGS if not n.startswith("004")])
def test_headings_follow_the_seed_pages(ops, name):
    op = ops[SEED_HEADINGS[name][0]]
    ours, _ = page_headings(op)
    assert ours == expected_from_seed(name)


def test_headings_cover_the_newer_layout_seed(ops):
    """004 (BCE) uses the newer page layout: the same sections under other names, description first."""
    name = "004_40a37db4416ff80c.txt"
    op = ops[SEED_HEADINGS[name][0]]
    ours, _ = page_headings(op)
    want = expected_from_seed(name)
    assert sorted(ours) == sorted(want)
    swap = {"功能描述": "接口原型", "接口原型": "功能描述"}
    assert [swap.get(h, h) for h in ours] == want


@pytest.mark.parametrize("lang, items", [("zh", ["参数说明", "返回值"]), ("en", ["Parameters", "Return value"])])
@pytest.mark.parametrize("op_name", sorted(codegen.load_specs()))
def test_both_phase_sections_have_parameters_then_return_value(ops, op_name, lang, items):
    op = ops[op_name]
    text = (DOCS / lang / f"{op.name}.md").read_text()
    body = dict(sections(text))
    for phase in (f"{op.name}GetWorkspaceSize", op.name):
        assert re.findall(r"^- ([^:\n]+):$", body[phase], re.M) == items, phase


def test_english_pages_have_the_same_sections_in_the_same_order(ops):
    zh_to_en = {"支持的产品型号": "Supported products", "接口原型": "Prototypes", "功能描述": "Description",
                "约束与限制": "Constraints", "调用示例": "Call example"}
    for op in ops.values():
        zh = [t for lvl, t in headings((DOCS / "zh" / f"{op.name}.md").read_text()) if lvl <= 2]
        en = [t for lvl, t in headings((DOCS / "en" / f"{op.name}.md").read_text()) if lvl <= 2]
        assert [zh_to_en.get(h, h) for h in zh] == en


def test_call_example_section_exists(ops):
    for op in ops.values():
        ours, _ = page_headings(op)
        assert ours[-1] == EXAMPLE
