"""SymPy functions the spec language adds to plain SymPy.

`DimSum(e)`   the sum of the elementwise expression `e` along the operator's reduction dimension, kept as a
              dimension of size one (keepdim) so it broadcasts back over the row: softmax's `sum_dim(g*y)`.
`numel(name)` the element count of a tensor parameter, a positive integer symbol (BCE's mean uses it).
`sigmoid(u)`  1/(1 + exp(-u)), plain SymPy: every backend evaluates it without overflow (codegen.rewrite).
"""
from __future__ import annotations

import sympy


class DimSum(sympy.Function):
    """Sum along the operator's `reduce_dim` attribute, keepdim=True.

    One argument: the elementwise summand.  It is not evaluated by SymPy; the verifier expands it over explicit
    rows and the kernel backends lower it to a row reduction.
    """

    nargs = 1
    is_real = True

    def _latex(self, printer):
        return r"\sum_{\mathrm{dim}} \left(%s\right)" % printer._print(self.args[0])


def numel(param_name: str) -> sympy.Symbol:
    """The element count of tensor `param_name` (a positive integer, 0 only for empty tensors which skip compute)."""
    return sympy.Symbol(f"numel_{param_name}", integer=True, positive=True)


def numel_param(sym: sympy.Symbol) -> str | None:
    """Inverse of `numel`: the tensor name behind a numel symbol, or None."""
    return sym.name[len("numel_"):] if sym.name.startswith("numel_") else None


def sigmoid(u) -> sympy.Expr:
    """The logistic function 1/(1 + exp(-u)), as a plain SymPy expression (the backends' stable form comes from
    codegen.rewrite, which recognises this shape)."""
    return 1 / (1 + sympy.exp(-u))
