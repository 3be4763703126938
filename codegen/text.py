"""Words for SymPy conditions, with aclnn parameter names: used by rule descriptions, messages and docs."""
from __future__ import annotations

import sympy
from sympy.printing.str import StrPrinter


class _NamePrinter(StrPrinter):
    def __init__(self, names):
        super().__init__()
        self.names = names

    def _print_Symbol(self, expr):
        return self.names.get(expr, expr.name)

    def _print_Relational(self, expr):
        op = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}[expr.rel_op]
        return f"{self._print(expr.lhs)} {op} {self._print(expr.rhs)}"


def condition_code(cond, op=None) -> str:
    """`lambd >= 0`, `isResult` — the condition with aclnn names, as in messages."""
    names = op.symbol_names() if op is not None else {}
    if isinstance(cond, sympy.Symbol):
        return names.get(cond, cond.name)
    return _NamePrinter(names).doprint(cond)


def condition_text(cond, lang, op=None) -> str:
    """The condition for docs: bool attributes read as '… is true'."""
    code = condition_code(cond, op)
    if isinstance(cond, sympy.Symbol):
        return {"zh": f"{code}为true", "en": f"{code} is true"}[lang]
    return code
