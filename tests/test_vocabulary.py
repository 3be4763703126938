"""The closed vocabulary (codegen.vocabulary) and the Ascend C slot allocator's own check.

A backward using a construct no backend emits is refused when the spec loads, naming the spec file, the construct
and the backends; the vocabulary is data the fuzzer and the docs read.  The allocator's result is replayed by
`check_allocation`, which refuses an instruction reading a slot that a later value overwrote.
"""
from __future__ import annotations

import pytest
import sympy

import codegen
from codegen import vocabulary as V
from codegen.backends.ascendc.lowering import AllocationError, Instr, In, Reg, Lowering, allocate, check_allocation

from .conftest import TESTS

# a valid spec; each case replaces its backward with one outside the vocabulary
LOSS = (TESTS / "bad_specs" / "vocabulary_base" / "mean_loss_backward.py").read_text()
BACKWARD = 'backward=g * t * Piecewise((1 / numel("self"), Eq(reduction, 1)), (1, True)),'

REFUSED = [
    ("tan", "backward=g * tan(x),", "from sympy import tan", "tan (tan(x)): not in the expression vocabulary"),
    ("Heaviside", "backward=g * Heaviside(x),", "from sympy import Heaviside", "Heaviside"),
    ("symbolic exponent", "backward=g * x**t,", "", "a power with a non-constant exponent"),
    ("complex constant", "backward=g * x * I,", "from sympy import I", "not a finite real number"),
    ("infinite constant", "backward=g * Piecewise((oo, x > 0), (x, True)),", "from sympy import oo", "not a finite real number"),
    ("Piecewise without True", "backward=g * Piecewise((x, x > 0)),", "",
     "Piecewise without a final (value, True) branch"),
    ("floor", "backward=g * floor(x),", "from sympy import floor", "floor"),
]


@pytest.mark.parametrize("what, backward, imports, message", REFUSED, ids=[r[0] for r in REFUSED])
def test_a_construct_outside_the_vocabulary_is_refused_when_the_spec_loads(tmp_path, what, backward, imports,
                                                                          message):
    assert BACKWARD in LOSS
    text = LOSS.replace(BACKWARD, backward).replace("from codegen.spec import *",
                                                    f"from codegen.spec import *\n{imports}")
    (tmp_path / "mean_loss_backward.py").write_text(text)
    with pytest.raises(codegen.SpecError) as info:
        codegen.load_specs(tmp_path)
    text = str(info.value)
    assert "mean_loss_backward.py" in text and "aclnnMeanLossBackward" in text, text
    assert message in text and "backward" in text, text


def test_a_rows_length_is_a_row_sum_not_a_constant():
    """DimSum(1) (a row's length, RMSNorm's mean) has no free symbol, so SymPy calls it a number: the constant
    check compared it with FLOAT's largest and crashed the spec's load (TypeError: cannot determine truth value)."""
    from codegen.spec import DimSum
    x = sympy.Symbol("x", real=True)
    assert V.problems(x * DimSum(x**2) / DimSum(1)) == []
    assert any("beyond the largest FLOAT" in p for p in V.problems(x * sympy.Integer(10) ** 39))
    assert any("not a finite real number" in p for p in V.problems(x * sympy.sqrt(-2)))


def test_the_accepted_vocabulary_is_the_same_data_for_every_backend():
    for backend in V.BACKENDS:
        names = {c.name for c in V.accepted(backend)}
        assert {"exp", "erf", "erfc", "tanh", "sign", "Abs", "Max, Min", "expm1", "log1p"} <= names
    assert all(set(c.emit) == set(V.BACKENDS) for c in V.VOCABULARY)
    rows = V.table()
    assert len(rows) == len(V.VOCABULARY) and all(r["c"] and r["ascendc"] and r["numpy"] for r in rows)
    with pytest.raises(ValueError):
        V.accepted("cuda")


def test_every_construct_the_fuzzer_builds_is_accepted():
    """`Construct.build` gives an expression the check accepts (what the fuzzer generates, the loader takes)."""
    x, y = sympy.symbols("x y", real=True)
    operands = {1: (x,), 2: (x, y), -1: (x, y, sympy.Integer(2))}
    for c in V.VOCABULARY:
        if c.build is None:
            continue
        if c.kind == "power":
            args = {"a**n, n an integer": (x, -3), "a**r, r a non-integer constant": (x, sympy.Rational(3, 2))}
            expr = c.build(*args.get(c.name, (x,)))
        elif c.kind == "branch":
            expr = c.build((x, x > y), (y, True))
        else:
            expr = c.build(*operands[c.arity])
        assert V.problems(expr) == [], (c.name, expr, V.problems(expr))


def test_check_allocation_refuses_an_overwritten_live_value():
    """Two live values given the same slot: the replay names the reader."""
    a, b, c = Reg("f", 0), Reg("f", 1), Reg("f", 2)
    instrs = [Instr("Exp({dst}, {0}, calc);", a, [In("x")]),
              Instr("Ln({dst}, {0}, calc);", b, [In("x")]),
              Instr("Mul({dst}, {0}, {1}, calc);", c, [a, b])]
    check_allocation(instrs, {a: "f0", b: "f1", c: "f2"})
    with pytest.raises(AllocationError, match="instruction 2 .* reads .* slot f0"):
        check_allocation(instrs, {a: "f0", b: "f0", c: "f1"})
    with pytest.raises(AllocationError, match="writes slot f0, which it also reads"):
        check_allocation(instrs, {a: "f0", b: "f1", c: "f0"})


def test_a_value_read_twice_by_one_instruction_keeps_its_slot_until_its_last_reader():
    """The issue's lowering: `Mul(f1, f0, f0)` freed f0 twice, and two live values shared it (the kernel gave 1)."""
    x, g = sympy.symbols("self gradOutput", real=True)
    low = Lowering({x: "self", g: "gradOutput"}, {}, last=frozenset({g}))
    low.result(g * sympy.exp(x) * (x - 1) ** 2 / (1 + x ** 2) ** 2, "res")
    lowered = low.finish()
    div, last = lowered.lines[-2:]   # the incoming gradient multiplies last, after the division
    assert div.startswith("Div(") and div.split(", ")[1] != div.split(", ")[2], lowered.lines
    assert last.startswith("Mul(res, ") and "gradOutput" in last, lowered.lines
    assert len(lowered.lines) == len(set(lowered.lines))
    # the same shape by hand: x+1 squared (its last read, twice), then two values live at once
    r = [Reg("f", i) for i in range(6)]
    instrs = [Instr("Adds({dst}, {0}, 1.0F, calc);", r[0], [In("x")]),
              Instr("Mul({dst}, {0}, {1}, calc);", r[1], [r[0], r[0]]),
              Instr("Exp({dst}, {0}, calc);", r[2], [In("x")]),
              Instr("Ln({dst}, {0}, calc);", r[3], [In("x")]),
              Instr("Add({dst}, {0}, {1}, calc);", r[4], [r[2], r[3]]),
              Instr("Div({dst}, {0}, {1}, calc);", r[5], [r[4], r[1]])]
    assert allocate(instrs).lines == ["Adds(f0, x, 1.0F, calc);", "Mul(f1, f0, f0, calc);", "Exp(f0, x, calc);",
                                      "Ln(f2, x, calc);", "Add(f3, f0, f2, calc);", "Div(f0, f3, f1, calc);"]


def test_the_docs_list_every_construct():
    """docs/vocabulary.md's table has one row per construct of codegen.vocabulary."""
    text = (TESTS.parent / "docs" / "vocabulary.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| construct")]
    assert len(rows) == len(V.VOCABULARY)
