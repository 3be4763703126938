"""SymPy → LaTeX for the doc pages: the spec's own expressions, printed the way the aclnn pages write them."""
from __future__ import annotations

import sympy
from sympy.printing.latex import LatexPrinter

from codegen.spec.functions import numel_param


def _letter(name: str) -> bool:
    """Whether SymPy prints this name as one letter (alpha → \\alpha, lambda → \\lambda, ell → \\ell)."""
    from sympy.printing.latex import greek_letters_set, other_symbols
    return name.lower() in greek_letters_set or name in other_symbols or name == "lambda"


class DocLatexPrinter(LatexPrinter):
    """LatexPrinter for formulas on doc pages.

    `element_symbols` are the symbols that stand for one tensor element (x, gradOutput, …); comparisons are
    turned so that such a symbol reads first (`x > \\lambda`, not SymPy's canonical `\\lambda < x`).
    """

    def __init__(self, element_symbols=(), settings=None):
        super().__init__({"mul_symbol": "dot", **(settings or {})})
        self.element_symbols = frozenset(element_symbols)

    def _print_Symbol(self, expr, style="plain"):
        """Customizations: a parameter name such as `gradOutput` prints upright-italic as one word
        (`\\mathit{gradOutput}`); SymPy would set it as nine juxtaposed variables, or split `numel_self` into a
        subscript.  `numel("self")` prints as `\\operatorname{numel}(\\mathit{self})`.  Single letters and Greek
        names (x, alpha, lambda) keep SymPy's rendering (x, \\alpha, \\lambda)."""
        tensor = numel_param(expr)
        if tensor is not None:
            return r"\operatorname{numel}(\mathit{%s})" % tensor
        if len(expr.name) > 1 and not _letter(expr.name):
            return r"\mathit{%s}" % expr.name
        return super()._print_Symbol(expr, style=style)

    def _print_Piecewise(self, expr):
        """Customizations: branches read `value, & \\text{if } cond` and `\\text{otherwise}`, the wording of the
        aclnn pages (SymPy writes `\\text{for}\\:`); the branches stay in the order Piecewise tries them."""
        rows = []
        for e, c in expr.args:
            if c == sympy.true:
                rows.append(r"%s, & \text{otherwise}" % self._print(e))
            else:
                rows.append(r"%s, & \text{if } %s" % (self._print(e), self._print(c)))
        return r"\begin{cases} %s \end{cases}" % r" \\ ".join(rows)

    def _print_Relational(self, expr):
        """Customizations: an element symbol is moved to the left when it stands alone on the right, or as
        its negation (`\\lambda < -x` prints `x < -\\lambda`), so conditions read as in the docs.  SymPy stores
        `x > lam` as `lam < x`; this only changes how the same relation is written."""
        lhs, rhs, op = expr.lhs, expr.rhs, expr.rel_op
        flip = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}
        on_right = lhs.free_symbols.isdisjoint(self.element_symbols) and \
            not rhs.free_symbols.isdisjoint(self.element_symbols)
        if on_right:
            if isinstance(rhs, sympy.Symbol):
                lhs, rhs, op = rhs, lhs, flip[op]
            elif isinstance(-rhs, sympy.Symbol):      # lam < -x  ⇔  x < -lam
                lhs, rhs = -rhs, -lhs
        return super()._print_Relational(sympy.Rel(lhs, rhs, op, evaluate=False))

    def _print_Or(self, expr):
        """Customizations: the operands keep a stable, readable order (greater-than first) joined by `\\vee`;
        SymPy sorts them by their internal form."""
        parts = sorted((self._print(a) for a in expr.args), key=lambda s: ("<" in s, s))
        return r" \vee ".join(parts)


def printer_for(op) -> DocLatexPrinter:
    """The printer for one op: its tensor symbols and the forward variable are element symbols."""
    elements = {t.symbol for t in op.tensors if t.symbol is not None} | {op.wrt}
    return DocLatexPrinter(elements)


def latex(expr, op) -> str:
    """The LaTeX of one spec expression of `op`."""
    return printer_for(op).doprint(sympy.sympify(expr))
