"""Structural checks of a spec, so a bad spec fails early with the op's name and what is wrong."""
from __future__ import annotations

import itertools
import re

import sympy

from .errors import SpecError
from .spec import ABSENT, PRESENT, DTYPES, KERNEL_DTYPES, PRODUCTS, Op
from .spec.example import problems as example_problems
from .spec.functions import DimSum, numel_param
from .spec.params import GRAD, ROLES, Attr, Output, Param, Scalar, Tensor, Text
from .spec.rules import CATEGORIES, DimInRange, OneOf, Requires, Rule
from .vocabulary import check_op as _check_vocabulary


def validate(op: Op) -> None:
    def fail(msg):
        raise SpecError(op.source, getattr(op, "name", None), msg)

    if not re.fullmatch(r"aclnn[A-Z][A-Za-z0-9]*", str(op.name)):
        fail(f"name {op.name!r} must be 'aclnn' followed by CamelCase")
    _check_params(op, fail)
    _check_dtypes(op, fail)
    _check_rules(op, fail)
    _check_math(op, fail)
    _check_vocabulary(op, fail)   # what no backend can emit is refused here, not at build time
    for problem in example_problems(op):
        fail(problem)
    for label, text in [("description", op.description)] + [("notes", n) for n in op.notes]:
        if not isinstance(text, Text) or not text.zh.strip() or not text.en.strip():
            fail(f"{label} must be a Text with both zh and en")


def _check_params(op, fail):
    names, syms = set(), set()
    for p in op.params:
        if not isinstance(p, Param):
            fail(f"params must be Tensor/Scalar/Attr/Output, got {p!r}")
        if p.name in names:
            fail(f"parameter {p.name} is declared twice")
        names.add(p.name)
        if p.symbol is not None:
            if not isinstance(p.symbol, sympy.Symbol):
                fail(f"parameter {p.name}: symbol must be a SymPy Symbol")
            if p.symbol in syms:
                fail(f"parameter {p.name}: symbol {p.symbol} is used by two parameters")
            syms.add(p.symbol)
        if isinstance(p, (Tensor, Output)) and p.role not in ROLES:
            fail(f"parameter {p.name}: unknown role {p.role!r}")
        if isinstance(p, Tensor) and p.optional and p.default is None:
            fail(f"optional tensor {p.name} needs a default value")
        if isinstance(p, (Scalar, Attr)) and p.symbol is None:
            fail(f"parameter {p.name} needs a symbol")
        if isinstance(p, Attr) and p.type not in ("int64", "bool"):
            fail(f"attribute {p.name}: type must be 'int64' or 'bool', got {p.type!r}")
        if isinstance(p, Tensor) and p.role not in ("unused",) and p.symbol is None:
            fail(f"tensor {p.name} with role {p.role} needs a symbol")
    if sum(isinstance(p, Output) for p in op.params) != 1:
        fail("an operator has exactly one Output")
    if sum(isinstance(p, Tensor) and p.role == GRAD for p in op.params) != 1:
        fail("exactly one tensor must have role GRAD")
    if op.output.dtype_from is not None and op.output.dtype_from not in names:
        fail(f"Output dtype_from names a missing parameter {op.output.dtype_from!r}")
    for attr_name in (op.reduce_dim, op.loss_reduction):
        if attr_name is not None and (attr_name not in names or not isinstance(op.param(attr_name), Attr)):
            fail(f"{attr_name!r} must name an int64 Attr")


def _check_dtypes(op, fail):
    tables = [("the operator", op.dtypes)] + [(p.name, p.dtypes) for p in op.params if getattr(p, "dtypes", None)]
    for owner, table in tables:
        if not isinstance(table, dict) or not table:
            fail(f"dtypes of {owner} must be a non-empty {{product: [dtypes]}} dict")
        for soc, dts in table.items():
            if soc not in PRODUCTS:
                fail(f"dtypes of {owner}: unknown product {soc!r} (known: {', '.join(PRODUCTS)})")
            for d in dts:
                if d not in KERNEL_DTYPES:
                    known = "unknown dtype" if d not in DTYPES else "dtype the kernels cannot compute"
                    fail(f"dtypes of {owner} on {soc}: {known} {d!r} (use {', '.join(KERNEL_DTYPES)})")
            if "BFLOAT16" in dts and not PRODUCTS[soc].bf16:
                fail(f"dtypes of {owner}: {soc} has no BFLOAT16")
    if op.compute_dtype != "FLOAT":
        fail("compute_dtype must be FLOAT (the only compute type the backends implement)")


def _check_rules(op, fail):
    last = 0
    names = {p.name for p in op.params}
    for r in op.rules:
        if not isinstance(r, Rule):
            fail(f"rules must be Rule objects, got {r!r}")
        for n in r.params:
            if n not in names:
                fail(f"rule {type(r).__name__} names a missing parameter {n!r}")
        cat = CATEGORIES.index(r.category)
        if cat == 0:
            fail("null checks are derived from the parameters; do not list NotNull")
        if cat < last:
            fail(f"rule {type(r).__name__}({', '.join(r.params)}) is a {r.category} check after a "
                 f"{CATEGORIES[last]} check: order dtype, shape, value")
        last = cat
        if isinstance(r, (DimInRange, OneOf)) and not isinstance(op.param(r.params[0]), Attr):
            fail(f"{type(r).__name__} needs an Attr first, got {r.params[0]}")
        if isinstance(r, Requires):
            allowed = {p.symbol for p in op.params if isinstance(p, (Scalar, Attr))}
            extra = (r.condition.free_symbols | r.when.free_symbols) - allowed
            if extra:
                fail(f"Requires({r.params[0]}) uses {', '.join(sorted(map(str, extra)))}, not a scalar or attribute")
        elif type(r).__name__ not in ("DimInRange", "OneOf"):
            for n in r.params:
                if not isinstance(op.param(n), (Tensor, Output)):
                    fail(f"{type(r).__name__} applies to tensors; {n} is not one")


def _check_math(op, fail):
    if not isinstance(op.wrt, sympy.Symbol):
        fail("wrt must be a SymPy Symbol")
    fwd = sympy.sympify(op.forward)
    if op.wrt not in fwd.free_symbols:
        fail(f"the forward does not depend on wrt={op.wrt}")
    scalar_syms = {p.symbol for p in op.params if isinstance(p, (Scalar, Attr))}
    operand_syms = {t.symbol for t in op.tensors if t.role == "operand"}
    extra = fwd.free_symbols - {op.wrt} - scalar_syms - operand_syms
    if extra:
        fail(f"the forward uses undefined symbol(s) {', '.join(sorted(map(str, extra)))}")
    if fwd.has(DimSum) and op.reduce_dim is None:
        fail("the forward uses DimSum but reduce_dim is not set")

    tensors = {t.name for t in op.tensors}
    param_syms = {p.symbol for p in op.params if p.symbol is not None}
    for i, f in enumerate(op.formulas):
        label = f"backward formula {i + 1}" if len(op.formulas) > 1 else "the backward"
        expr = sympy.sympify(f.expr)
        for s in expr.free_symbols - param_syms:
            t = numel_param(s) if isinstance(s, sympy.Symbol) else None
            if t is None or t not in tensors:
                fail(f"{label} uses undefined symbol {s}")
        if expr.has(DimSum) and op.reduce_dim is None:
            fail(f"{label} uses DimSum but reduce_dim is not set")
        for k, v in f.when.items():
            if k not in {p.name for p in op.params}:
                fail(f"{label}: `when` names a missing parameter {k!r}")
            p = op.param(k)
            ok = (isinstance(p, Attr) and p.type == "bool" and v in (True, False)) or \
                 (isinstance(p, Tensor) and p.optional and v in (ABSENT, PRESENT))
            if not ok:
                fail(f"{label}: `when` {k}={v!r} needs a bool Attr with True/False or an optional tensor with "
                     "ABSENT/PRESENT")
        for k, role in f.roles.items():
            if k not in tensors or role not in ROLES:
                fail(f"{label}: roles {k}={role!r} needs an input tensor and a known role")
        for a in f.assume:
            if not isinstance(a, sympy.core.relational.Relational) or not a.free_symbols <= scalar_syms:
                fail(f"{label}: assume {a} must be a relation on scalars")
        if op.x_symbol(f) is None and op.y_symbol(f) is None:
            fail(f"{label}: no tensor holds the forward input or output")
    keys = op.variant_keys()
    choices = [[False, True] if op.param(k).kind == "attr" else [ABSENT, PRESENT] for k in keys]
    for values in itertools.product(*choices):
        key = dict(zip(keys, values))
        if op.formula_for(key) is None:
            fail(f"no backward formula covers {key}")
