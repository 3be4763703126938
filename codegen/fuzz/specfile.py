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

X, G = sympy.symbols("x gradOutput", real=True)
ALPHA, BETA = sympy.symbols("alpha beta", real=True)
T = sympy.Symbol("target", real=True)
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

COMMON = '''    dtypes={{"{product}": {dtypes}}},
    rules=[
        DtypeSupported("gradOutput", "self", "gradInput"),
        DtypeSame("gradOutput", "self", {target}"gradInput"),
        ShapeSame("gradOutput", "self", {target}"gradInput"),
        Requires("alpha", alpha > 0),
    ],
    description=Text("随机生成的公式(codegen.fuzz)。", "A formula drawn by codegen.fuzz."),
)
'''

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


def _operand(exprs) -> dict:
    """The texts that declare `target` where some of `exprs` reads it (else empty: the spec has no such tensor)."""
    on = any(T in sympy.sympify(e).free_symbols for e in exprs)
    return {"operand": OPERAND_SYMBOL if on else "", "param": OPERAND_PARAM if on else "",
            "target": '"target", ' if on else ""}


def op_name(stem: str) -> str:
    """'fuzz_s3_b1_backward' -> 'aclnnFuzzS3B1Backward'."""
    return "aclnn" + "".join(p[:1].upper() + p[1:] for p in stem.split("_"))


def single_source(stem: str, forward, backward, at: dict, origin: str, note: str = "") -> str:
    """A spec with one formula: forward, backward = its derivative times gradOutput, declared values."""
    o = _operand([forward, backward])
    text = HEADER.format(name=op_name(stem), what="one fuzzed formula", origin=origin,
                         note=f"\n\n{note}" if note else "", functions=", ".join(FUNCTIONS), operand=o["operand"])
    text += f'\nSPEC = Op(\n    name="{op_name(stem)}",\n    forward_name="F",\n'
    text += PARAMS.format(attrs="", operand=o["param"])
    text += f"    wrt=x,\n    forward={show(forward)},\n    backward={show(backward)},\n"
    if at:
        text += f"    at={_at(at)},\n"
    return text + COMMON.format(product=PRODUCT, dtypes=DTYPES, target=o["target"])


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
    text += PARAMS.format(attrs=attrs, operand=o["param"])
    text += "    wrt=x,\n    forward=Piecewise(\n"
    sets = settings(k)
    for i, ((fwd, _, _), s) in enumerate(zip(forms, sets)):
        cond = "True" if i == len(forms) - 1 else _condition(s)
        text += f"        ({show(fwd)}, {cond}),\n"
    text += "    ),\n    backward=[\n"
    for (_, bwd, at), s in zip(forms, sets):
        extra = f", at={_at(at)}" if at else ""
        text += f"        Formula({show(bwd)}, when={s!r}{extra}),\n"
    text += "    ],\n"
    return text + COMMON.format(product=PRODUCT, dtypes=DTYPES, target=o["target"])


def write(folder: Path, stem: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}.py"
    path.write_text(text)
    return path
