"""A row reduction with a BOOL mask (ScaledMaskedSoftmaxBackward's shape, tests/coupled_masks/): the proof reads
the mask as a 0/1 number and its complement as a 0/1 symbol of its own (codegen.verify.proof._select_arithmetic).
Written 1 - m, the row sums split in two and the general-length proof did not finish in 15 minutes."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import codegen
from codegen.verify import cases, prove

SPECS = Path(__file__).parent / "coupled_masks"


@pytest.fixture(scope="module")
def masked():
    return codegen.load_specs(SPECS)["masked_softmax_backward"]


def test_a_masked_scaled_softmax_is_proven_for_a_general_row_length(masked):
    from codegen.verify.proof import CaseProof
    lines = CaseProof(cases(masked)[0]).coupled_general()
    assert [(r.check, r.verdict) for r in lines] == [("VJP, general row length n", "proven")], lines


@pytest.mark.deep
def test_a_masked_scaled_softmax_is_proven_on_every_check(masked):
    from codegen.verify import verify_op
    results = verify_op(masked, numeric=True)
    assert [r.verdict for r in results] == ["proven", "proven", "agrees"], results


@pytest.mark.deep   # a failing general-length proof runs simplify on the residual: ~15 s of CPU
def test_a_backward_without_the_scale_fails_on_both_proofs(masked):
    scale = masked.param("scale").symbol
    bad = dataclasses.replace(masked, backward=masked.backward.xreplace({scale: 1}))
    assert bad.backward != masked.backward
    lines = prove(cases(bad)[0])
    assert [r.verdict for r in lines] == ["FAILED", "FAILED"], lines
