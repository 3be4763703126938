"""The closed vocabulary of backward formulas: the SymPy constructs every kernel backend can emit, as data.

A spec's backward (and the conditions of its `Requires` rules, which the checkers print) may use only these
constructs; anything else is refused when the spec loads (`check_op`, called by codegen.validate), naming the spec
file, the construct and the backends that cannot emit it, never a NameError or a compiler error at build time.

`VOCABULARY` lists each construct with how each backend emits it; `accepted(backend)` is the set one backend
accepts (today all three accept the same set: a construct enters the vocabulary only when every backend emits
it).  The expression fuzzer builds random formulas from `VOCABULARY` (`Construct.build`, `arity`), and
docs/vocabulary.md is its user-facing table.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import sympy
from sympy.codegen.cfunctions import expm1, log1p
from sympy.functions.elementary.piecewise import ExprCondPair

from .rewrite import Sigmoid
from .spec.classes import GridSum
from .spec.functions import DimSum

BACKENDS = ("numpy", "c", "ascendc")
MAX_FLOAT = sympy.Float(3.4028234663852886e38)


@dataclass(frozen=True)
class Construct:
    name: str                    # as the docs and error messages say it
    kind: str                    # operator | power | function | constant | condition | logic | branch | reduction
    classes: tuple               # the SymPy classes it matches
    arity: int                   # operands (-1: any number >= 2)
    build: Callable | None       # build(*operands) -> SymPy expression (for the fuzzer); None for atoms
    emit: dict = field(default_factory=dict)   # backend -> how that backend emits it (docs/vocabulary.md)
    note: str = ""               # domain, special values, accuracy

    def backends(self) -> tuple[str, ...]:
        return tuple(b for b in BACKENDS if b in self.emit)


def _all(numpy: str, c: str, ascendc: str) -> dict:
    return {"numpy": numpy, "c": c, "ascendc": ascendc}


VOCABULARY: tuple[Construct, ...] = (
    Construct("a + b", "operator", (sympy.Add,), -1, lambda *a: sympy.Add(*a),
              _all("+", "+", "Add / Sub / Adds")),
    Construct("a * b, a / b, -a", "operator", (sympy.Mul,), -1, lambda *a: sympy.Mul(*a),
              _all("* and /", "* and /", "Mul / Div / Muls"),
              "the incoming gradient multiplies last in every backend, and factors bounded by 1 (sigmoid, tanh, erf) "
              "join the first operand (codegen.lower)"),
    Construct("a**n, n an integer", "power", (sympy.Pow,), 2, lambda b, n: b ** n,
              _all("b**n (1/b**n for n < 0)", "b*b*… up to n = ±4, else powf", "Mul chain, Reciprocal"),
              "n must be an integer constant"),
    Construct("sqrt(a), a**(-1/2)", "power", (sympy.Pow,), 1, sympy.sqrt,
              _all("np.sqrt", "sqrtf", "Sqrt (Reciprocal)")),
    Construct("a**r, r a non-integer constant", "power", (sympy.Pow,), 2, lambda b, r: b ** r,
              _all("float64 power, rounded once", "powf", "Exp(r*Ln(a))"),
              "nan for a < 0 (a real power); Ascend C's error grows with |r ln a|"),
    Construct("exp", "function", (sympy.exp,), 1, sympy.exp,
              _all("float64 exp, rounded once", "opgen_expf (≤ 1 ulp)", "Exp")),
    Construct("expm1", "function", (expm1,), 1, expm1,
              _all("float64 expm1, rounded once", "opgen_expm1f (≤ 2 ulp)", "expansion (codegen.expansions)")),
    Construct("log", "function", (sympy.log,), 1, sympy.log,
              _all("float64 log, rounded once", "logf", "Ln"), "nan for a < 0, -inf at 0"),
    Construct("log1p", "function", (log1p,), 1, log1p,
              _all("float64 log1p, rounded once", "opgen_log1pf (≤ 3 ulp)", "expansion (codegen.expansions)"),
              "nan for a < -1"),
    Construct("tanh", "function", (sympy.tanh,), 1, sympy.tanh,
              _all("float64 tanh, rounded once", "opgen_tanhf (≤ 2 ulp)", "expansion (codegen.expansions)")),
    Construct("erf", "function", (sympy.erf,), 1, sympy.erf,
              _all("float64 erf (codegen.runtime.mathf), rounded once", "opgen_erff (≤ 3 ulp)",
                   "expansion (codegen.expansions)")),
    Construct("erfc", "function", (sympy.erfc,), 1, sympy.erfc,
              _all("float64 erfc (codegen.runtime.mathf), rounded once", "opgen_erfcf (≤ 6 ulp)",
                   "expansion (codegen.expansions)")),
    Construct("cosh, sinh", "function", (sympy.cosh, sympy.sinh), 1, sympy.cosh,
              _all("float64 cosh / sinh, rounded once", "opgen_coshf / opgen_sinhf (≤ 3 ulp)",
                   "expansion (codegen.expansions)"),
              "finite wherever the result is a FLOAT (up to |a| = 89.4): never e^|a| formed first"),
    Construct("sin, cos", "function", (sympy.sin, sympy.cos), 1, sympy.sin,
              _all("float64 sin / cos, rounded once", "libm sinf / cosf (≤ 1 ulp)",
                   "expansion (codegen.expansions)"),
              "Every backend right for every FLOAT (argument reduction over the whole range: sin(3e38) too); Ascend C "
              "reduces by pi in FLOAT pieces (Cody and Waite) for |a| <= 65536 (measured within 3.5 ulp there), "
              "and beyond by a Payne-Hanek reduction from exact FLOAT products (within 2.7 ulp)"),
    Construct("Abs", "function", (sympy.Abs,), 1, sympy.Abs, _all("np.abs", "fabsf", "Abs")),
    Construct("sign", "function", (sympy.sign,), 1, sympy.sign,
              _all("np.sign", "opgen_signf", "Compare and Select"), "sign(±0) = 0, sign(nan) = nan"),
    Construct("Max, Min", "function", (sympy.Max, sympy.Min), -1, lambda *a: sympy.Max(*a),
              _all("np.maximum / np.minimum", "opgen_maximumf / opgen_minimumf",
                   "Max/Min (Maxs/Mins), then a Select of each nan operand"),
              "a nan operand gives nan, as NumPy's maximum (C's fmaxf would drop it)"),
    Construct("1/(1 + exp(-a)) (sigmoid)", "function", (Sigmoid,), 1, lambda a: 1 / (1 + sympy.exp(-a)),
              _all("_sigmoid (stable form)", "opgen_sigmoidf (stable form)", "the stable form's instructions"),
              "recognised by codegen.rewrite and evaluated without overflow; spec name `sigmoid(a)`"),
    Construct("Piecewise((a, cond), ..., (b, True))", "branch", (sympy.Piecewise, ExprCondPair), -1,
              lambda *pairs: sympy.Piecewise(*pairs),
              _all("nested _where (a bitwise np.where)", "nested ?:", "Compare/CompareScalar masks, Select"),
              "branches tried in order; the last condition must be True; every branch is evaluated"),
    Construct("a < b, a <= b, a > b, a >= b, Eq(a, b), Ne(a, b)", "condition",
              (sympy.StrictLessThan, sympy.LessThan, sympy.StrictGreaterThan, sympy.GreaterThan, sympy.Equality,
               sympy.Unequality), 2, None, _all("comparison", "comparison", "Compare / CompareScalar"),
              "false for a nan operand (but Ne)"),
    Construct("And, Or, Not", "logic", (sympy.And, sympy.Or, sympy.Not, sympy.logic.boolalg.BooleanTrue,
                                        sympy.logic.boolalg.BooleanFalse), -1, None,
              _all("& | ~", "&& || !", "And / Or / Not on masks")),
    Construct("constants: integers, Rational, pi, E, sqrt(2), log(2), ...", "constant",
              (sympy.Number, sympy.NumberSymbol), 0, None,
              _all("the FLOAT value, as a Python float", "the FLOAT nearest, as a float literal (1.4142135F)",
                   "the FLOAT nearest, as a float literal"),
              "every constant subexpression is one literal, its exact value rounded once; must be finite and real"),
    Construct("nan", "constant", (sympy.core.numbers.NaN,), 0, None,
              _all("np.nan", "NAN", "NAN"),
              "the value of a branch where the result is not a real number (LogitGrad outside its domain)"),
    Construct("parameters: tensors, scalars, attributes, numel(name)", "symbol", (sympy.Symbol,), 0, None,
              _all("arrays and Python scalars", "loaded elements and FLOAT constants",
                   "tiles and scalar operands")),
    Construct("DimSum(a)", "reduction", (DimSum,), 1, DimSum,
              _all("np.sum along dim", "row sums", "ReduceSum"), "needs reduce_dim"),
    Construct("GridSum(a)", "reduction", (GridSum,), 1, GridSum,
              _all("np.sum over the grid, before the rows", "a pass over the grid before the kernel",
                   "a pass variant of the kernel, then ReduceSum"),
              "class-index ops only: a mean's divisor, of the operands (codegen.spec.classes)"),
)


def accepted(backend: str) -> tuple[Construct, ...]:
    """The constructs `backend` can emit."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r} (have: {', '.join(BACKENDS)})")
    return tuple(c for c in VOCABULARY if backend in c.emit)


def _classify(node) -> Construct | str:
    """The construct of one node of an expression, or the text of why it is not in the vocabulary."""
    if isinstance(node, sympy.Pow):
        e = node.exp
        if not e.is_number or e.has(sympy.Symbol):
            return (f"a power with a non-constant exponent ({node}; for a base that is never negative write "
                    f"exp(e*log(a)) in the forward and the backward, and 1 where e = 0: 0**0 is 1)")
        if not (e.is_real and e.is_finite):
            return f"the power {node} (its exponent is not a finite real number)"
        if e.is_Integer:
            return _by_name("a**n, n an integer")
        if e in (sympy.S.Half, -sympy.S.Half):
            return _by_name("sqrt(a), a**(-1/2)")
        return _by_name("a**r, r a non-integer constant")
    if node is sympy.nan:
        return _by_name("nan")
    # a constant: a number once evaluated.  (SymPy calls DimSum(1), a row's length, a number too, having no free
    # symbol; it does not evaluate to one and is classified as a row sum below.)
    value = sympy.N(node, 30) if isinstance(node, sympy.Expr) and node.is_number and not node.has(sympy.Symbol) \
        and not isinstance(node, sympy.Piecewise) else None
    if value is not None and (value.is_Number or value.is_infinite or value.has(sympy.I, sympy.zoo, sympy.nan)):
        if not (value.is_real and value.is_finite):
            return f"the constant {node} (not a finite real number)"
        if abs(value) > MAX_FLOAT:
            return f"the constant {node} (beyond the largest FLOAT, {float(MAX_FLOAT):.7g})"
        return _by_name("constants: integers, Rational, pi, E, sqrt(2), log(2), ...")
    for c in VOCABULARY:
        if c.classes and isinstance(node, c.classes):
            if isinstance(node, sympy.Symbol) and (node.is_real is False or isinstance(node, sympy.Dummy)):
                break
            return c
    return f"{type(node).__name__} ({node})"


def _by_name(name: str) -> Construct:
    return next(c for c in VOCABULARY if c.name == name)


def problems(expr, backends=BACKENDS) -> list[str]:
    """What in `expr` some backend cannot emit: '<construct>: not accepted by <backends>' or '<construct>: not
    in the vocabulary'; [] when every node is accepted by every backend in `backends`."""
    out = []
    seen = set()
    walk = sympy.preorder_traversal(sympy.sympify(expr))
    for node in walk:
        if isinstance(node, sympy.Piecewise):
            if not node.args or node.args[-1].cond != sympy.true:
                out.append(f"Piecewise without a final (value, True) branch: {node}")
        if isinstance(node, DimSum) and node.args and node.args[0].has(DimSum) and "nested" not in seen:
            seen.add("nested")
            out.append(f"a DimSum inside a DimSum ({node}): every backend sums a row in one pass, before the "
                       f"element it reads; take the inner sum out of the outer one (it is the same for the whole "
                       f"row): DimSum(g*a)/sqrt(DimSum(a**2)), not DimSum(g*a/sqrt(DimSum(a**2)))")
        c = _classify(node)
        if isinstance(c, str):
            key = c
            msg = f"{c}: not in the expression vocabulary, no backend emits it"
        else:
            missing = [b for b in backends if b not in c.emit]
            key = (c.name, tuple(missing))
            msg = f"{c.name}: not accepted by {', '.join(missing)}" if missing else None
        if msg and key not in seen:
            seen.add(key)
            out.append(msg)
        if not isinstance(c, str) and c.kind == "constant":
            walk.skip()   # one literal: what it is made of does not matter
    return out


def check_op(op, fail) -> None:
    """Refuse, through `fail(message)`, a backward formula or Requires condition using a construct outside the
    vocabulary (codegen.validate calls it when the spec loads)."""
    from .spec.rules import Requires
    for i, f in enumerate(op.formulas):
        label = f"backward formula {i + 1}" if len(op.formulas) > 1 else "the backward"
        found = problems(f.expr)
        if found:
            fail(f"{label} uses {found[0]} (docs/vocabulary.md lists what the backends emit)")
        if f.rewrites:   # the form the kernels compute (codegen.spec.rewrites)
            from .spec.rewrites import kernel_form
            found = problems(kernel_form(f.expr, f.rewrites))
            if found:
                fail(f"{label}'s kernel form (its rewrites) uses {found[0]} (docs/vocabulary.md lists what the "
                     "backends emit)")
    for r in op.rules:
        if isinstance(r, Requires):
            for cond in (r.condition, r.when):
                found = problems(cond)
                if found:
                    fail(f"Requires({r.params[0]}) uses {found[0]} (docs/vocabulary.md lists what the backends "
                         "emit)")


def table() -> list[dict]:
    """One row per construct: name, note and how each backend emits it (for docs/vocabulary.md)."""
    return [{"construct": c.name, "kind": c.kind, "note": c.note, **{b: c.emit.get(b, "—") for b in BACKENDS}}
            for c in VOCABULARY]
