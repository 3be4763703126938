"""Several outputs (codegen.spec.outputs): an op returning more than one gradient, each output proven on its own.

tests/several_outputs/prelu_backward.py states PreluBackward's mathematics: gradInput, the gradient w.r.t. self
(the op's `wrt`), and gradWeight = Output(wrt=weight, sum_to="weight"), whose branch is decided by self, not by the
weight it differentiates.  The kernel backends do not emit several outputs yet: they refuse such an op by name.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import codegen
from codegen.errors import SpecError
from codegen.spec import Formula, Output, Piecewise
from codegen.validate import validate
from codegen.verify import verify_op

SPECS = Path(__file__).parent / "several_outputs"


@pytest.fixture(scope="module")
def prelu():
    return codegen.load_specs(SPECS)["prelu_backward"]


def _syms(op):
    return op.param("self").symbol, op.param("weight").symbol, op.param("gradOutput").symbol


def test_each_output_is_proven_against_the_one_forward(prelu):
    results = verify_op(prelu, numeric=True)
    assert results and all(r.ok for r in results), [r for r in results if not r.ok]
    by_output = {r.formula.split(":")[0] for r in results}
    assert by_output == {"gradInput", "gradWeight"}
    weight_lines = [r for r in results if r.formula.startswith("gradWeight:")]
    # gradWeight's branch is decided by self, an operand there: proven branch by branch, and checked in mpmath
    assert any("the branch conditions are free of weight" in r.detail for r in weight_lines)
    assert any(r.check.startswith("mpmath") and r.verdict == "agrees" for r in weight_lines)
    # the declared value at self = 0 is gradInput's only (the library's negative branch)
    assert any(r.verdict == "convention" and r.formula.startswith("gradInput:") for r in results)


def test_a_wrong_output_fails_with_its_name_and_the_other_still_proves(prelu):
    x, w, g = _syms(prelu)
    wrong = dataclasses.replace(prelu, backward=[prelu.formulas[0], Formula(Piecewise((0, x > 0), (g * w, True)),
                                                                             output="gradWeight")])
    results = verify_op(wrong, numeric=True)
    failed = [r for r in results if not r.ok]
    assert failed and all(r.formula.startswith("gradWeight:") for r in failed)
    assert any("residual" in r.detail for r in failed)          # the symbolic proof
    assert any(r.check.startswith("mpmath") for r in failed)    # and the mpmath check, each on its own
    assert all(r.ok for r in results if r.formula.startswith("gradInput:"))


def test_the_backends_refuse_several_outputs_rather_than_emit_the_first(prelu):
    from codegen.generate import render_all
    with pytest.raises(SpecError, match="several outputs \\(gradInput, gradWeight\\): the numpy backend"):
        render_all({"prelu_backward": prelu})
    with pytest.raises(SpecError, match="several outputs"):
        codegen.kernel("prelu_backward", backend="c", specs_dir=SPECS)


@pytest.mark.parametrize("change, message", [
    ("form_for_unknown_output", "output='gradBias' is not one of the outputs"),
    ("output_without_form", "output gradWeight: no backward form computes it"),
    ("two_outputs_same_input", "another output is already the gradient w.r.t. self"),
    ("wrt_not_a_tensor", "is not the symbol of an input tensor"),
    ("wrt_on_a_single_output", "Output(wrt=...) and Formula(output=...) are for an operator with several outputs"),
])
def test_a_bad_several_output_spec_is_refused_with_what_is_wrong(prelu, change, message):
    x, w, g = _syms(prelu)
    first, second = prelu.formulas
    params = list(prelu.params)
    backward = [first, second]
    i = next(k for k, p in enumerate(params) if p.name == "gradWeight")
    if change == "form_for_unknown_output":
        backward = [first, second, dataclasses.replace(second, output="gradBias")]
    elif change == "output_without_form":
        backward = [first]
    elif change == "two_outputs_same_input":
        params[i] = dataclasses.replace(params[i], wrt=x)
    elif change == "wrt_not_a_tensor":
        params[i] = dataclasses.replace(params[i], wrt=codegen.spec.Symbol("bias", real=True))
    elif change == "wrt_on_a_single_output":
        params = [p for p in params if p.name != "gradInput"]
    bad = dataclasses.replace(prelu, params=params, backward=backward)
    with pytest.raises(SpecError, match=message.replace("(", "\\(").replace(")", "\\)").replace(".", "\\.")):
        validate(bad)


def test_a_single_output_op_is_its_own_and_has_no_per_output_ops():
    from codegen.loader import REPO_ROOT, load_spec_file
    op = load_spec_file(REPO_ROOT / "specs" / "kl_div_target_backward.py")
    assert [o.name for o in op.outputs] == ["gradTarget"] and op.per_output == []
    assert isinstance(op.output, Output)
