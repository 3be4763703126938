"""Operator parameters, in aclnn order: tensors, aclScalars and attributes passed by value."""
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
    c_type: str | None = None              # "aclTensor *" where the header declares an input non-const
                                           # (NLLLoss2dBackward's totalWeight)
    holds: sympy.Expr | None = None        # a split op's tensor that holds this function of a half (GeGlu's gelu =
                                           # GELU(b), a forward intermediate the forward passed on): read as
                                           # given where the other half is differentiated, substituted where its
                                           # own half is (codegen.spec.split)

    kind = "tensor"


@dataclass(eq=False)
class Output(Param):
    """The output aclTensor (`aclTensor *`)."""
    role: str = RESULT
    dtypes: dict | None = None
    c_type: str | None = None              # "const aclTensor *" where the header declares it so (GeluBackward)
    dtype_from: str | tuple | None = None  # default dtype: that input's dtype, or the promoted dtype of a tuple of
                                           # inputs (None: the first tensor's)
    sum_to: str | None = None              # the gradient of an input that was broadcast: the kernels compute on
                                           # the broadcast shape of every input tensor and sum the result over the
                                           # broadcast axes to this input's own shape (the output's shape)
    wrt: sympy.Symbol | None = None        # an op with several outputs: the forward input this one is the
                                           # gradient of (None: the op's `wrt`), codegen.spec.outputs
    optional: bool = False                 # a second output that may be null: then it is not computed
                                           # (SwigluGroupGrad's gradWeightOutOptional; NotNullWhen says when not)

    kind = "output"


@dataclass(eq=False)
class Scalar(Param):
    """A host aclScalar (`const aclScalar *`), read as a double by the checkers and in the compute dtype by the
    kernels.  An optional one (`optional=True`) may be null, which means `default` (SwishBackward's
    betaOptional: null is 1.0)."""
    dtype: str = "FLOAT"
    optional: bool = False
    default: float | None = None

    kind = "scalar"


@dataclass(frozen=True)
class AttrType:
    """One C kind of attribute passed by value, and what every backend makes of it."""
    name: str              # the spec's spelling: Attr(type=...)
    c_types: tuple         # the C spellings a header may use for it, the default first
    number: bool           # a number the formulas may read (double, float and int64 are; bool and string not)
    opdef: str             # the Ascend C OpDef attribute kind (`this->Attr(...).<opdef>()`)
    zh: str                # how the docs name it
    en: str


ATTR_TYPES = {t.name: t for t in [
    AttrType("int64", ("int64_t",), True, "Int", "整型值(INT64)", "integer (INT64)"),
    AttrType("bool", ("bool",), False, "Bool", "布尔值(BOOL)", "bool (BOOL)"),
    AttrType("double", ("double",), True, "Float", "双精度浮点值(DOUBLE)", "double (DOUBLE)"),
    AttrType("float", ("float",), True, "Float", "单精度浮点值(FLOAT)", "float (FLOAT)"),
    # a C string: a pointer, so a null is possible (and checked first, as a tensor's)
    AttrType("string", ("const char *", "char *"), False, "String", "字符串(char*)", "string (char*)"),
]}


@dataclass(eq=False)
class Attr(Param):
    """An attribute passed by value: int64_t, bool, double, float, or a C string (`const char *` / `char *`).

    `values` names enumerated values for the docs ({0: "none", 1: "mean"}); for a string attribute it lists the
    strings the operator accepts ({"none": "erf form", "tanh": "tanh approximation"}), and a backward form may
    be chosen by one (`Formula(..., when={"approximate": "tanh"})`): the kernels are then specialised per string.
    `c_type` is the header's spelling when it differs from the type's default (`char *` for GeluBackwardV2)."""
    type: str = "int64"                    # a key of ATTR_TYPES
    values: dict = field(default_factory=dict)
    c_type: str | None = None

    kind = "attr"

    @property
    def spec_type(self) -> AttrType:
        return ATTR_TYPES[self.type]

    @property
    def ctype(self) -> str:
        """The C type as the header spells it."""
        return self.c_type or ATTR_TYPES[self.type].c_types[0]

    @property
    def is_number(self) -> bool:
        """A number the formulas may read (int64, double, float)."""
        return ATTR_TYPES[self.type].number

    @property
    def is_real(self) -> bool:
        """A floating-point attribute (double, float): the formulas read it like an aclScalar."""
        return self.type in ("double", "float")

    @property
    def typical(self):
        """A value every call may pass (tests and tools that need one): the first listed value, else false or 0."""
        if self.values:
            return next(iter(self.values))
        return False if self.type == "bool" else 0


@dataclass(eq=False)
class IntArray(Param):
    """A host array of int64 values (`const aclIntArray *`): CtcLossBackward's inputLengths, one length per batch
    element.  A pointer, so null is checked first (161001) unless `optional`; its length and values are stated by
    rules (`ArrayLength`, `ArrayInRange`); formulas read it through a `SequenceMask` (codegen.spec.sequence).  In
    Python it is a sequence of ints (a list, a tuple or a 1-D integer ndarray)."""
    c_type: str = "const aclIntArray *"
    optional: bool = False

    kind = "int_array"

    @property
    def ctype(self) -> str:
        return self.c_type

    @property
    def typical(self):
        """A value a tool may pass when it has no tensor to size it by: the empty array."""
        return []
