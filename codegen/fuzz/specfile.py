"""Fuzzed formulas as real spec files: one formula per spec (a reproducer), or a batch of 2^k formulas in one spec.

A batch is one operator whose bool attributes f0 … f{k-1} select one of its formulas, in the forward
(`Piecewise((F_0, ~f0 & ~f1), (F_1, f0 & ~f1), …)`) as in the backward (one `Formula` per setting, with its
own declared values `at=`): every kernel backend turns each setting into a kernel variant of the same build,
so one C library and one Ascend C executable serve 2^k formulas, and the proof, the reference and the oracle
treat each setting as its own case.

Every spec reads `x` (self, the forward input), `gradOutput`, and the scalars `alpha` (> 0, a Requires rule)
and `beta` (any real); a spec whose formulas read `target` (T, a second forward operand, constant for the
derivative: MseLoss's target) has that tensor too, of self's shape and dtype.  Expressions are printed by SymPy's str printer with rationals as `Rational(p, q)`, so
the file evaluates back to an equal expression (not always the same tree: 4*(a + 1) evaluates to 4*a + 4; the
fuzzer works from the loaded spec).
"""
from __future__ import annotations

from pathlib import Path

import sympy
from sympy.printing.str import StrPrinter

from codegen.spec import DimSum, numel

X, G = sympy.symbols("x gradOutput", real=True)
ALPHA, BETA = sympy.symbols("alpha beta", real=True)
T = sympy.Symbol("target", real=True)
# a loss (`loss_reduction`): the drawn forward is LOSS * F or LOSS * W * F, LOSS a marker the spec never prints;
# its backward carries the mean's factor MEAN (1/numel(self) where reduction = 1, the mean)
LOSS = sympy.Symbol("loss_reduced", positive=True)
W = sympy.Symbol("weightOptional", real=True)
REDUCTION = sympy.Symbol("reduction", integer=True)
N = numel("self")
MEAN = sympy.Piecewise((1 / N, sympy.Eq(REDUCTION, 1)), (1, True))
FUNCTIONS = ("erf", "erfc", "sign", "tanh")   # names beyond `from codegen.spec import *`
DTYPES = ["FLOAT", "FLOAT16", "BFLOAT16"]
PRODUCT = "ascend910b"   # the one product the fuzzer runs on (every dtype, one Ascend C architecture)


class _Printer(StrPrinter):
    def _print_Rational(self, expr):
        return f"Rational({expr.p}, {expr.q})"

    def _print_Half(self, expr):
        return "Rational(1, 2)"


def show(expr) -> str:
    return _Printer({"order": "none"}).doprint(sympy.sympify(expr))


def selectors(k: int) -> list:
    return [sympy.Symbol(f"f{i}") for i in range(k)]


def settings(k: int) -> list[dict]:
    """The 2^k settings of f0 … f{k-1}, formula i getting the bits of i (f0 the lowest)."""
    return [{f"f{b}": bool(i >> b & 1) for b in range(k)} for i in range(2 ** k)]


def _condition(setting: dict) -> str:
    return " & ".join(name if on else f"~{name}" for name, on in setting.items())


def _at(at: dict) -> str:
    return "{" + ", ".join(f"Eq(x, {show(p)}): {show(v)}" for p, v in at.items()) + "}"


HEADER = '''"""{name}: {what}

Written by codegen.fuzz ({origin}).{note}
"""
from sympy import {functions}
from sympy.codegen.cfunctions import expm1, log1p

from codegen.spec import *

x, gradOutput = symbols("x gradOutput", real=True)
alpha, beta = symbols("alpha beta", real=True)
{operand}'''
OPERAND_SYMBOL = 'target = Symbol("target", real=True)\n'
LOSS_SYMBOLS = ('weightOptional = Symbol("weightOptional", real=True)\nreduction = Symbol("reduction", integer=True)\n'
                'numel_self = numel("self")\n')

COMMON = '''{fields}    dtypes={{"{product}": {dtypes}}},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", {target}{weight}"gradInput"),
{shapes}        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
'''
SHAPES = '        ShapeSame("gradOutput", "self", {target}"gradInput"),\n'
LOSS_SHAPES = ('        ShapeSame("self", {target}"gradInput"),\n'
               '        BroadcastTo("gradOutput", {weight}"self"),\n'
               '        OneOf("reduction", [0, 1, 2]),\n')
LOSS_FIELDS = '    loss_reduction=Reduction("reduction", mean=numel_self),\n'
ROW_FIELDS = '    reduce_dim=-1,\n'

PARAMS = '''    params=[
        Tensor("gradOutput", gradOutput, role=GRAD, doc=Text("输出的梯度。", "the gradient w.r.t. the output.")),
        Tensor("self", x, role=FORWARD_INPUT, doc=Text("正向输入x。", "x, the forward input.")),
{operand}        Scalar("alpha", alpha, doc=Text("大于0的系数。", "a coefficient, greater than 0.")),
        Scalar("beta", beta, doc=Text("系数。", "a coefficient.")),
{attrs}        Output("gradInput", doc=Text("对x的梯度。", "the gradient w.r.t. x.")),
    ],
'''


OPERAND_PARAM = ('        Tensor("target", target, role=OPERAND, doc=Text("正向的另一个输入。", '
                 '"another forward operand, constant for the derivative.")),\n')
WEIGHT_PARAM = ('        Tensor("weightOptional", weightOptional, role=OPERAND, optional=True, default=1, '
                'doc=Text("每个元素的权重,可为空(全1)。", "a weight per element; may be null (all 1).")),\n')
REDUCTION_ATTR = ('        Attr("reduction", reduction, type="int64", values={0: "none", 1: "mean", 2: "sum"}, '
                  'doc=Text("规约方式:0 none,1 mean,2 sum。", "the reduction: 0 none, 1 mean, 2 sum.")),\n')


def kind(exprs) -> str:
    """"row" (a forward reads a row sum, DimSum along the last axis), "loss" (a reduced loss: the LOSS marker) or
    "elementwise"."""
    exprs = [sympy.sympify(e) for e in exprs]
    if any(e.has(DimSum) for e in exprs):
        return "row"
    return "loss" if any(LOSS in e.free_symbols for e in exprs) else "elementwise"


def plain(forward):
    """The forward as the spec states it (the LOSS marker dropped: `loss_reduction` states the reduction)."""
    return sympy.sympify(forward).subs(LOSS, 1)


def _operand(exprs) -> dict:
    """The texts that declare `target` (and a loss's weight and reduction) where some of `exprs` reads them (else
    empty: the spec has no such tensor), and the op's fields and shape rules of its kind."""
    exprs = [sympy.sympify(e) for e in exprs]
    on = any(T in e.free_symbols for e in exprs)
    weighted = any(W in e.free_symbols for e in exprs)
    what = kind(exprs)
    loss = what == "loss"
    target = '"target", ' if on else ""
    weight = '"weightOptional", ' if weighted else ""
    return {"operand": (OPERAND_SYMBOL if on else "") + (LOSS_SYMBOLS if loss else ""),
            "param": (OPERAND_PARAM if on else "") + (WEIGHT_PARAM if weighted else ""),
            "attrs": REDUCTION_ATTR if loss else "",
            "fields": {"loss": LOSS_FIELDS, "row": ROW_FIELDS}.get(what, ""),
            "shapes": (LOSS_SHAPES if loss else SHAPES).format(target=target, weight=weight),
            "target": target, "weight": weight}


def _common(o: dict) -> str:
    return COMMON.format(product=PRODUCT, dtypes=DTYPES, **{k: o[k] for k in ("fields", "target", "weight", "shapes")})


def op_name(stem: str) -> str:
    """'fuzz_s3_b1_backward' -> 'aclnnFuzzS3B1Backward'."""
    return "aclnn" + "".join(p[:1].upper() + p[1:] for p in stem.split("_"))


def single_source(stem: str, forward, backward, at: dict, origin: str, note: str = "") -> str:
    """A spec with one formula: forward, backward = its derivative times gradOutput, declared values."""
    o = _operand([forward, backward])
    text = HEADER.format(name=op_name(stem), what="one fuzzed formula", origin=origin,
                         note=f"\n\n{note}" if note else "", functions=", ".join(FUNCTIONS), operand=o["operand"])
    text += f'\nSPEC = Op(\n    name="{op_name(stem)}",\n    forward_name="F",\n'
    text += PARAMS.format(attrs=o["attrs"], operand=o["param"])
    text += f"    wrt=x,\n    forward={show(plain(forward))},\n    backward={show(backward)},\n"
    if at:
        text += f"    at={_at(at)},\n"
    return text + _common(o)


def batch_source(stem: str, forms: list, origin: str) -> str:
    """A spec with 2^k formulas [(forward, backward, at)], selected by the bool attributes f0 … f{k-1}."""
    k = (len(forms) - 1).bit_length()
    if len(forms) != 2 ** k or k == 0:
        raise ValueError(f"a batch has 2^k > 1 formulas, got {len(forms)}")
    names = ", ".join(f"f{i}" for i in range(k))
    o = _operand([e for fwd, bwd, _ in forms for e in (fwd, bwd)])
    text = HEADER.format(name=op_name(stem), what=f"{len(forms)} fuzzed formulas, one per setting of {names}",
                         origin=origin, note="", functions=", ".join(FUNCTIONS), operand=o["operand"])
    text += 'f0 = Symbol("f0")\n' if k == 1 else f'{names} = symbols("{" ".join(f"f{i}" for i in range(k))}")\n'
    text += f'\nSPEC = Op(\n    name="{op_name(stem)}",\n    forward_name="F",\n'
    attrs = "".join(f'        Attr("f{i}", f{i}, type="bool", doc=Text("选择公式。", "selects the formula.")),\n'
                    for i in range(k))
    text += PARAMS.format(attrs=o["attrs"] + attrs, operand=o["param"])
    text += "    wrt=x,\n    forward=Piecewise(\n"
    sets = settings(k)
    for i, ((fwd, _, _), s) in enumerate(zip(forms, sets)):
        cond = "True" if i == len(forms) - 1 else _condition(s)
        text += f"        ({show(plain(fwd))}, {cond}),\n"
    text += "    ),\n    backward=[\n"
    for (_, bwd, at), s in zip(forms, sets):
        extra = f", at={_at(at)}" if at else ""
        text += f"        Formula({show(bwd)}, when={s!r}{extra}),\n"
    text += "    ],\n"
    return text + _common(o)


def write(folder: Path, stem: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}.py"
    path.write_text(text)
    return path
