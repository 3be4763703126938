"""Operator parameters, in aclnn order: tensors, aclScalars and int64/bool attributes."""
from __future__ import annotations

import functools
import keyword
import re
from dataclasses import dataclass, field

import sympy

# Roles a tensor plays in the mathematics (see the header of codegen.spec).
GRAD = "grad"              # gradient of the loss w.r.t. the forward output ("gradOutput")
FORWARD_INPUT = "x"        # holds the forward input x, the variable differentiated
FORWARD_OUTPUT = "y"       # holds the forward output y = f(x)
OPERAND = "operand"        # another forward operand, a constant for the derivative (target, weight)
UNUSED = "unused"          # accepted and checked, never read (LogSigmoid's buffer)
RESULT = "result"          # the computed output
ROLES = (GRAD, FORWARD_INPUT, FORWARD_OUTPUT, OPERAND, UNUSED, RESULT)


def snake(name: str) -> str:
    """aclnn camelCase → Python snake_case: gradOutput → grad_output, posWeightOptional → pos_weight_optional."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


# Python keywords an aclnn parameter may be called: the keyword the Python API takes instead.  `lambda`
# (Softshrink's, Hardshrink's λ) is `lambd`, as PyTorch spells it; any other keyword gets a trailing underscore.
KEYWORD_NAMES = {"lambda": "lambd"}


def py_keyword(name: str) -> str:
    """The Python API's keyword for an aclnn parameter name: snake_case, never a reserved word."""
    s = snake(name)
    return KEYWORD_NAMES.get(s, s + "_") if keyword.iskeyword(s) else s


@dataclass(frozen=True)
class Text:
    """A short text in both doc languages."""
    zh: str
    en: str

    def __getitem__(self, lang: str) -> str:
        return getattr(self, lang)


@dataclass(eq=False)
class Param:
    name: str                              # aclnn spelling, e.g. "gradOutput"
    symbol: sympy.Symbol | None = None     # the symbol that stands for it in formulas
    doc: Text = Text("", "")               # what it is, one sentence per language

    kind = "param"

    @functools.cached_property
    def py_name(self) -> str:
        """The snake_case keyword of the Python API (cached: kernel callables read it on every call); a Python
        keyword is renamed (py_keyword: `lambda` → `lambd`)."""
        return py_keyword(self.name)


@dataclass(eq=False)
class Tensor(Param):
    """An input aclTensor (`const aclTensor *`)."""
    role: str = OPERAND
    optional: bool = False                 # may be null (Python None)
    default: int | float | None = None     # value of every element when an optional tensor is null
    dtypes: dict | None = None             # per-product dtype override; None: the operator's table

    kind = "tensor"


@dataclass(eq=False)
class Output(Param):
    """The output aclTensor (`aclTensor *`)."""
    role: str = RESULT
    dtypes: dict | None = None
    dtype_from: str | None = None          # default dtype: that input's dtype (None: the first tensor's)

    kind = "output"


@dataclass(eq=False)
class Scalar(Param):
    """A host aclScalar (`const aclScalar *`), read as FLOAT by the kernels."""
    dtype: str = "FLOAT"

    kind = "scalar"


@dataclass(eq=False)
class Attr(Param):
    """A plain int64_t or bool attribute passed by value."""
    type: str = "int64"                    # "int64" or "bool"
    values: dict = field(default_factory=dict)  # named values, e.g. {0: "none", 1: "mean", 2: "sum"}

    kind = "attr"
