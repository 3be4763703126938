"""Structural checks of a spec, so a bad spec fails early with the op's name and what is wrong."""
from __future__ import annotations

import itertools
import math
import re

import sympy

from .errors import SpecError
from .spec import ABSENT, PRESENT, DTYPES, KERNEL_DTYPES, PRODUCTS, Op
from .spec.dtypes import COMPUTED
from .spec.example import problems as example_problems
from .spec.functions import BROADCAST, DIVIDING_MODES, REDUCTION_MODES, DimSum, count_parts, numel_param
from .spec.classes import GridSum
from .spec.params import ATTR_TYPES, FORWARD_OUTPUT, GRAD, ROLES, Attr, IntArray, Output, Param, Scalar, Tensor, Text
from .spec.rules import (CATEGORIES, ArrayInRange, ArrayLength, ChannelGrad, DimEven, DimInRange, NotNullWhen, OneOf, PerChannel, PerRow, PresentWith, Requires, Rule, SampleShaped,
                         ShapeHalved, _DimBound, rank_bounds,
                         ShapeSame)
from .spec.sequence import IN_SEQUENCE
from .spec.split import extra_params
from .vocabulary import check_op as _check_vocabulary


def validate(op: Op) -> None:
    def fail(msg):
        raise SpecError(op.source, getattr(op, "name", None), msg)

    if not re.fullmatch(r"aclnn[A-Z][A-Za-z0-9]*", str(op.name)):
        fail(f"name {op.name!r} must be 'aclnn' followed by CamelCase")
    if len(op.name) > 96:   # (its files' names, the proof cache's too, passed the 255 bytes of a file name)
        fail(f"name {op.name[:30]}...: an op name is at most 96 characters, this one has {len(op.name)}")
    _check_field_types(op, fail)
    _check_params(op, fail)
    _check_names(op, fail)
    _check_library_names(op, fail)
    _check_dtypes(op, fail)
    _check_rules(op, fail)
    _check_when(op, fail)
    _check_floats(op, fail)
    _check_scalar_divisors(op, fail)
    if op.split is not None:   # the mathematics is the two half ops' (codegen.spec.split), each checked as an op
        from .spec.split import check as check_split
        check_split(op, fail)
        for h in op.halves:
            half_fail = lambda msg, s=h.wrt: fail(f"the half {s}: {msg}")
            _check_math(h, half_fail)
            _check_at(h, half_fail)
            _check_vocabulary(h, half_fail)
        for sub in op.per_output[1:]:   # the extra outputs' own elementwise ops (codegen.spec.split)
            out_fail = lambda msg, name=sub.output.name: fail(f"output {name}: {msg}")
            _check_math(sub, out_fail)
            _check_at(sub, out_fail)
            _check_vocabulary(sub, out_fail)
    elif len(op.outputs) > 1:   # each output's mathematics is its own op's (codegen.spec.outputs)
        from .spec.outputs import check as check_outputs
        check_outputs(op, fail)
        for sub in op.per_output:
            out_fail = lambda msg, name=sub.output.name: fail(f"output {name}: {msg}")
            _check_math(sub, out_fail)
            _check_at(sub, out_fail)
            _check_vocabulary(sub, out_fail)
    else:
        if op.classes is not None:   # the grid's coordinate and the target's integers (codegen.spec.classes)
            from .spec.classes import check as check_classes
            check_classes(op, fail)
        if op.sequence is not None:   # IN_SEQUENCE false: nothing depends on x, every form 0 (codegen.spec.sequence)
            from .spec.sequence import check as check_sequence, unmasked_op
            check_sequence(op, fail)
        elif any(sympy.sympify(e).has(IN_SEQUENCE) for e in [op.forward] + [f.expr for f in op.formulas]):
            fail("IN_SEQUENCE is read but the op has no sequence=SequenceMask(...)")
        # a class-index op's mathematics is its grid op's (CLASS a tensor there); a masked op's, where IN_SEQUENCE
        # is true
        kernel = op.grid or (unmasked_op(op) if op.sequence is not None else op)
        _check_math(kernel, fail)
        _check_at(kernel, fail)
        _check_vocabulary(kernel, fail)   # what no backend can emit is refused here, not at build time
    for problem in example_problems(op):
        fail(problem)
    _check_torch(op, fail)
    for label, text in [("description", op.description)] + [("notes", n) for n in op.notes]:
        if not isinstance(text, Text) or not text.zh.strip() or not text.en.strip():
            fail(f"{label} must be a Text with both zh and en")
    # (after the checks above, whose messages a spec with several faults gets first)
    _check_symbol_names(op, fail)
    _check_numbers(op, fail)
    _check_output_shape(op, fail)
    _check_comment_texts(op, fail)


def _is_expr(e) -> bool:
    """A number or a SymPy expression (not a relation, a truth value, a container or a callable)."""
    if isinstance(e, bool):
        return False
    if isinstance(e, (int, float)):
        return True
    return isinstance(e, sympy.Expr)


def _check_field_types(op, fail):
    """Each field of the right kind before anything reads it: a newcomer's `backward=[expr, expr]`, `backward=None`,
    `params=(...)` or `dtypes={"ascend910b": "FLOAT"}` broke the validator with an AttributeError (session 23)."""
    from .spec.op import Formula
    if not isinstance(op.params, list):
        fail(f"params must be a list of Tensor/Scalar/Attr/IntArray/Output, got {type(op.params).__name__}")
    if not isinstance(op.rules, list):
        fail(f"rules must be a list of rules, got {type(op.rules).__name__}")
    if not isinstance(op.dtypes, dict) or not all(isinstance(k, str) and isinstance(v, (list, tuple))
                                                  for k, v in op.dtypes.items()):
        fail('dtypes must be a dict {product: [dtype, ...]}, e.g. {"ascend910b": ["FLOAT16", "FLOAT"]}')
    for soc, names in op.dtypes.items():
        if not names:
            fail(f"dtypes[{soc!r}] is empty: leave out a product the operator does not support")
        if len(set(names)) != len(names):
            fail(f"dtypes[{soc!r}] names a dtype twice: {list(names)}")
    if not isinstance(op.forward, sympy.Basic) or not _is_expr(op.forward):
        fail(f"the forward must be a SymPy expression of wrt, got {type(op.forward).__name__} {op.forward!r:.80}")
    forms = op.backward if isinstance(op.backward, (list, tuple)) else [op.backward]
    if not forms:
        fail("backward has no formula")
    for i, f in enumerate(forms):
        label = f"backward formula {i + 1}" if len(forms) > 1 else "the backward"
        if isinstance(op.backward, (list, tuple)) and not isinstance(f, Formula):
            fail(f"{label}: a list of backward forms holds Formula(expr, when=...), got "
                 f"{type(f).__name__} {f!r:.80} (one form needs no list)")
        expr = f.expr if isinstance(f, Formula) else f
        if not _is_expr(expr):
            fail(f"{label} must be a SymPy expression (one element of the gradient), got {type(expr).__name__} "
                 f"{expr!r:.80}")


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
        # (a split op's row count is read by the call, not the kernels: codegen.spec.split)
        rows = op.split is not None and p.name == op.split.rows
        # (nor a tensor only a split op's extra outputs read: such an output is computed when it is given)
        extra = op.split is not None and p.name in {q.name for q in extra_params(op)}
        if isinstance(p, Tensor) and p.optional and p.default is None and not rows and not extra:
            fail(f"optional tensor {p.name} needs a default value"
                 + (f" (or, as a row count, Split(rows={p.name!r}))" if op.split is not None else ""))
        if isinstance(p, Scalar) and p.optional and (isinstance(p.default, bool)
                                                     or not isinstance(p.default, (int, float))):
            fail(f"optional scalar {p.name} needs a numeric default (the value a null means)")
        if isinstance(p, Scalar) and not p.optional and p.default is not None:
            fail(f"scalar {p.name} has a default but is not optional")
        if isinstance(p, Output) and p.c_type not in (None, "aclTensor *", "const aclTensor *"):
            fail(f"output {p.name}: c_type must be 'aclTensor *' or 'const aclTensor *', got {p.c_type!r}")
        if isinstance(p, Attr):
            _check_attr(p, fail)
        if isinstance(p, IntArray) and (p.symbol is not None or p.c_type not in ("const aclIntArray *",
                                                                                 "aclIntArray *")):
            fail(f"IntArray {p.name}: no symbol (formulas read it through a SequenceMask), and c_type "
                 "'const aclIntArray *' or 'aclIntArray *'")
        elif isinstance(p, Scalar) and p.symbol is None:
            fail(f"parameter {p.name} needs a symbol")
        if isinstance(p, Tensor) and p.role not in ("unused",) and p.symbol is None \
                and not (op.split is not None and op.split.tensor == p.name) and not rows:
            fail(f"tensor {p.name} with role {p.role} needs a symbol")
        if isinstance(p, Tensor) and p.holds is not None and op.split is None and not (
                op.classes is not None and p.role == FORWARD_OUTPUT):
            fail(f"tensor {p.name}: holds= is only implemented for a split op (a function of a half) and for the "
                 f"FORWARD_OUTPUT tensor of a class-index op (CrossEntropyLossGrad's logProb)")
    if not op.outputs:
        fail("an operator has at least one Output")
    if len(op.outputs) == 1 and (op.output.wrt is not None or any(f.output not in (None, op.output.name)
                                                                  for f in op.formulas)):
        fail("Output(wrt=...) and Formula(output=...) are for an operator with several outputs")
    if sum(isinstance(p, Tensor) and p.role == GRAD for p in op.params) != 1:
        fail("exactly one tensor must have role GRAD")
    if op.null_order is not None:
        want = sorted(p.name for p in op.pointers())
        if sorted(op.null_order) != want:
            fail(f"null_order must list every required pointer parameter once: {', '.join(want)}")
    for n in op.output_dtype_sources:
        if n not in names or not isinstance(op.param(n), Tensor):
            fail(f"Output dtype_from names a missing input tensor {n!r}")
    if isinstance(op.reduce_dim, int) and not isinstance(op.reduce_dim, bool):
        pass   # a fixed axis (ScaledMaskedSoftmaxBackward's last): negative counts from the end
    elif op.reduce_dim is not None and not isinstance(op.reduce_dim, str):
        fail(f"reduce_dim must name an int64 Attr or be a fixed axis (an int), got {op.reduce_dim!r}")
    _check_sum_to(op, fail)
    for attr_name in (op.dim_attr and op.reduce_dim, op.loss_reduction):
        if attr_name is not None and (not isinstance(attr_name, str) or attr_name not in names
                                      or not isinstance(op.param(attr_name), Attr)):
            fail(f"{attr_name!r} must name an int64 Attr")
    if op.loss_reduction is not None:
        _check_reduction(op, fail)


# Names a parameter cannot take: the generated sources declare them beside the parameters' own names (the C and
# Ascend C kernels' locals and the aclnn signature's fixed parameters, the NumPy kernels' arguments), or the
# languages reserve them.  Found by building an op with a tensor of each name (session 17): `call`, `i`, `n`,
# `params`, `prm`, `res`, `executor`, `int`, `double` broke the C build, `in` and a second `out` the NumPy kernel.
_C_WORDS = frozenset("""
    auto bool break case catch char class const constexpr continue default delete do double else enum explicit
    extern false float for friend goto if inline int long mutable namespace new noexcept nullptr operator private
    protected public register restrict return short signed sizeof static struct switch template this throw true
    try typedef typename union unsigned using virtual void volatile while NULL""".split())
_GENERATED_NAMES = frozenset({"call", "executor", "workspace", "workspaceSize", "workspace_size", "stream", "i", "i0",
                              "n", "k", "in", "params", "prm", "res", "acc", "sums", "lanes", "lane", "whole",
                              "out_of_range"})
# the C kernels' CSE temporaries, prelude constants, row sums, lane and column-sum pointers, grid sums, hoisted exps
_TEMPORARY = re.compile(r"(?:t|c|r|s|a|g|ex)\d+")


def _check_names(op, fail):
    """Every parameter name is an identifier the generated code can use as it is (and its snake_case form)."""
    py_names = {}
    for p in op.params:
        if not isinstance(p.name, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", p.name):
            fail(f"parameter {p.name!r}: a name is a letter followed by letters, digits and underscores")
        for name in dict.fromkeys((p.name, p.py_name)):   # (in order: the same message every run)
            if name in _C_WORDS:
                fail(f"parameter {p.name}: {name!r} is a C/C++ reserved word; rename the parameter")
            if name == "out" and not isinstance(p, Output):
                fail(f"parameter {p.name}: 'out' is the kernels' out= keyword, a name only an Output can take; "
                     f"rename the parameter")
            if name in _GENERATED_NAMES or _TEMPORARY.fullmatch(name):
                fail(f"parameter {p.name}: {name!r} is a name the generated kernels use for their own locals; "
                     f"rename the parameter")
        if p.py_name in py_names:
            fail(f"parameters {py_names[p.py_name]} and {p.name} have the same snake_case name {p.py_name!r}")
        py_names[p.py_name] = p.name
    for py, name in py_names.items():
        if py.endswith("_i") and py[:-2] in py_names:
            fail(f"parameter {name}: {py!r} is the name the C kernels give element i of {py_names[py[:-2]]}; "
                 f"rename the parameter")


# Names the generated sources bind or call beside the parameters, found by generating and building an op with a
# parameter of each name (session 23): the NumPy module's globals and its entry function's keywords and locals
# (`np`, `check`, `values` made the call fail; `product` a second keyword: a SyntaxError) ...
_PY_NAMES = frozenset({"np", "ml_dtypes", "OP", "DTYPES", "COMPUTE", "check", "product", "out_dtype", "values",
                       "out_arg", "requested", "bshape", "shape"})
# ... the C sources' (C11's headers the kernels and the call example include: a local `fabsf`, `INFINITY`,
# `int64_t` hides what the kernel calls or declares next), the call example's locals (`ret`, `deviceId`) and the
# Python literals (a page that shows None is refused)
_C_LIBRARY = frozenset("""
    abs acos acosf acosh acoshf asin asinf asinh asinhf atan atan2 atan2f atanf atanh atanhf cbrt cbrtf ceil ceilf
    copysign copysignf cos cosf cosh coshf erf erfc erfcf erff exp exp2 exp2f expf expm1 expm1f fabs fabsf fdim
    fdimf floor floorf fma fmaf fmax fmaxf fmin fminf fmod fmodf frexp frexpf hypot hypotf ilogb ldexp ldexpf
    lgamma lgammaf llrint lrint log log10 log10f log1p log1pf log2 log2f logb logf lround modf nan nanf nearbyint
    nextafter nextafterf pow powf remainder rint round roundf scalbn sin sinf sinh sinhf sqrt sqrtf tan tanf tanh
    tanhf tgamma trunc truncf isnan isinf isfinite signbit fpclassify
    INFINITY NAN HUGE_VAL HUGE_VALF FLT_MAX FLT_MIN FLT_EPSILON DBL_MAX DBL_MIN DBL_EPSILON INT8_MAX INT16_MAX
    INT32_MAX INT32_MIN INT64_MAX INT64_MIN UINT8_MAX UINT16_MAX UINT32_MAX UINT64_MAX SIZE_MAX EOF errno
    stdin stdout stderr M_PI M_E
    size_t ptrdiff_t intptr_t uintptr_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t
    float_t double_t max_align_t wchar_t FILE
    printf fprintf snprintf puts malloc calloc realloc free memcpy memset memmove memcmp abort exit
    strlen strcmp
    ret deviceId stream shapeSize elementSize hostData deviceAddr workspaceAddr resultData strides
    None True False""".split())


def _check_library_names(op, fail):
    """No parameter takes a name the generated NumPy module, C sources or call example already use, nor one in
    the generated library's own namespaces (opgen_*, OPGEN_*, acl*, ACL_*)."""
    for p in op.params:
        if not isinstance(p.name, str):
            continue   # (_check_names refuses it)
        if len(p.name) > 63:   # (a 5000-letter name overflowed the C sources' message strings: -Werror)
            fail(f"parameter {p.name[:20]}...: a name is at most 63 characters (C's significant length of an "
                 f"identifier), this one has {len(p.name)}")
        if p.name in _C_LIBRARY or re.match(r"opgen_|OPGEN_|acl[A-Z]|ACL_", p.name):
            fail(f"parameter {p.name}: {p.name!r} is a name of the C library or of the generated C sources (which "
                 f"call or declare it beside the parameters); rename the parameter")
        if p.py_name in _PY_NAMES:
            fail(f"parameter {p.name}: {p.py_name!r} is a name the generated NumPy module binds (a global, a "
                 f"keyword or a local of its entry function); rename the parameter")


def _check_symbol_names(op, fail):
    """The proof's mpmath check and the accuracy reference evaluate the formulas as Python (sympy.lambdify), where a
    symbol is its name: two parameters' symbols of one name (`Symbol("x", real=True)` and `Symbol("x")`) became one
    argument twice (a SyntaxError), and a symbol named like a function or constant the formulas print (`exp`,
    `pi`) hid it ("'mpf' object is not callable"); `opgen verify` failed on a right spec (session 23)."""
    from sympy.printing.numpy import NumPyPrinter
    from sympy.printing.pycode import MpmathPrinter
    named = {}
    for p in op.params:
        if isinstance(p.symbol, sympy.Symbol):
            if p.symbol.name in named and named[p.symbol.name][1] is not p.symbol:
                fail(f"parameters {named[p.symbol.name][0]} and {p.name} have two symbols both named "
                     f"{p.symbol.name!r}: give each its own name")
            named[p.symbol.name] = (p.name, p.symbol)
    places = [op.forward] + [e for f in op.formulas for e in (f.expr, f.forward) if e is not None]
    settings = dict(fully_qualified_modules=False, inline=True, allow_unknown_functions=True)
    # every symbol printed as `_s`, so what is left named like a symbol is a function or constant; printed, not
    # substituted: xreplace by plain stand-ins rebuilt each node, and SymPy re-evaluating sin, Mod and gcd of
    # symbols without `real=True` took minutes on the fuzzer's formulas (its CI slice 22 → 91 s)
    masked = [type(f"Masked{P.__name__}", (P,), {"_print_Symbol": lambda self, s: "_s"})
              for P in (MpmathPrinter, NumPyPrinter)]
    for e in places:
        try:
            printed = " ".join(P(settings).doprint(sympy.sympify(e)) for P in masked)
        except Exception:   # (what does not print is reported by the checks that read it)
            continue
        clash = sorted(set(re.findall(r"[A-Za-z_]\w*", printed)) & set(named))
        if clash:
            fail(f"parameter {named[clash[0]][0]}: its symbol is named {clash[0]!r}, as a function or constant the "
                 f"formulas use: give the symbol another name")


def _check_numbers(op, fail):
    """The numbers a rule or a default is written with are integers (ranks, dimensions) or finite doubles (the
    value a null scalar or tensor means), as the C sources print them: `MaxRank(n=10**30)` overflowed an int64
    literal, `n="8"` printed a string, `default=float("nan")` or `10**400` a value no double holds (session 23)."""
    from .runtime.checks import MAX_DIMS
    for r in op.rules:
        for field, low, high in (("n", 0, 2 ** 63 - 1), ("dim", -MAX_DIMS, MAX_DIMS - 1)):
            v = getattr(r, field, None)
            if field not in getattr(type(r), "__dataclass_fields__", {}) or v is None:
                continue
            if type(r).__name__ in ("MaxRank", "MinRank") and field == "n":
                high = MAX_DIMS
            if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
                fail(f"rule {type(r).__name__}({', '.join(map(str, r.params))}): {field}={v!r} must be an integer "
                     f"in [{low}, {high}]")
    for p in op.params:
        d = getattr(p, "default", None)
        if d is None or isinstance(p, Attr):
            continue
        try:
            finite = not isinstance(d, bool) and isinstance(d, (int, float)) and math.isfinite(float(d))
        except OverflowError:
            finite = False
        if not finite:
            fail(f"parameter {p.name}: default={d!r} must be a finite number (the value a null {p.name} means)")


def _check_output_shape(op, fail):
    """An operator's one output has its shape from a rule, as the kernels allocate it: a spec with no ShapeSame
    (or ShapeIsBroadcast) for it verified, then `codegen.kernel` failed with the NumPy emitter's ValueError."""
    from .spec.rules import ShapeIsBroadcast
    # every tensor a kernel reads has its shape tied to another's (or to one element) by a rule: with SiLU's
    # ShapeSame("gradOutput", "gradInput") alone, the C kernel read self[3] of a 3-element self (past its end)
    # while NumPy and Ascend C raised a bare ValueError
    tying = ("ShapeSame", "BroadcastTo", "Broadcastable", "ShapeIsBroadcast", "BroadcastsInto", "ShapeHalved",
             "ClassTarget", "ClassCount", "PerChannel", "ChannelGrad", "OneElement", "SampleShaped")
    tied = {n for r in op.rules if any(c.__name__ in tying for c in type(r).__mro__)
            and (len(set(r.params)) > 1 or type(r).__name__ == "OneElement") for n in r.params}
    for t in op.tensors:
        if t.role != "unused" and t.name not in tied and not (op.split is not None and t.name == op.split.rows) \
                and not (t.role == GRAD and op.loss_reduction is not None):   # (its shape: the reduction's)
            fail(f"no rule ties the shape of {t.name} to the other tensors': add it to a ShapeSame (or Broadcastable, "
                 f"BroadcastTo, OneElement, ...) rule, or the kernels read it at the output's shape")
    if len(op.outputs) != 1 or op.output.sum_to is not None:
        return   # (several outputs: codegen.spec.outputs; sum_to: _check_sum_to)
    out = op.output.name
    if not any(isinstance(r, ShapeSame) and out in r.params and len(set(r.params)) > 1
               or isinstance(r, ShapeIsBroadcast) and r.params[0] == out for r in op.rules):
        fail(f"no rule gives the output {out} its shape: add ShapeSame({out!r}, <an input>, ...) or "
             f"ShapeIsBroadcast({out!r}, <the inputs>)")


def _check_comment_texts(op, fail):
    """The docs' texts are also printed in the generated C sources' comments: a `*/` in one ended the comment
    (a description "... */ #error ... /*" verified, then failed the build; other text after it would compile)."""
    texts = [("description", op.description), ("forward_name", op.forward_name)]
    texts += [(f"notes[{i}]", n) for i, n in enumerate(op.notes)]
    texts += [(f"parameter {p.name}: doc", p.doc) for p in op.params if getattr(p, "doc", None) is not None]
    for label, t in texts:
        for part in ((t.zh, t.en) if isinstance(t, Text) else (t,)):
            if isinstance(part, str) and ("*/" in part or "/*" in part):
                fail(f"{label}: the text {part!r:.60} holds a C comment mark (/* or */), which the generated C "
                     f"sources' comments cannot carry")


def _kind(op, name):
    from .spec.classes import kind_of
    return kind_of(op, name)


def _check_sum_to(op, fail):
    """`Output(sum_to=t)`: t is an input tensor, the output's shape is t's (a ShapeSame rule says so), and the
    kernels are elementwise (a row reduction on the broadcast shape is not implemented)."""
    for out in op.outputs:
        t = out.sum_to
        if t is None:
            continue
        if t not in {p.name for p in op.tensors}:
            fail(f"Output sum_to names {t!r}, not an input tensor")
        if op.reduce_dim is not None:
            fail("Output sum_to: a DimSum operator cannot sum its output back to an input's shape")
        if not any(isinstance(r, ShapeSame) and {t, out.name} <= set(r.params)
                   or isinstance(r, ChannelGrad) and r.params[:2] == (out.name, t) for r in op.rules):
            fail(f"Output sum_to={t!r}: a ShapeSame rule (or ChannelGrad for a PerChannel {t}) must fix "
                 f"{out.name}'s shape to {t}'s")


def _check_reduction(op, fail):
    """`loss_reduction`: the attribute's values name the modes, and every dividing mode has a divisor."""
    r = op.reduction
    attr = op.param(r.attr)
    if attr.type not in ("int64", "string"):
        fail(f"loss_reduction {attr.name} must be an int64 or string Attr")
    modes = [attr.values[k] if attr.type == "int64" else k for k in attr.values]
    if not modes or any(m not in REDUCTION_MODES for m in modes):
        fail(f"loss_reduction {attr.name}: its `values` must name the modes, each one of "
             f"{', '.join(REDUCTION_MODES)} (e.g. {{0: 'none', 1: 'mean', 2: 'sum'}})")
    known = {p.name for p in op.params if isinstance(p, (Tensor, Output))}
    # a class-index op's scalar inputs (one element each, its rules say so) may divide: their value on the grid
    one_element = {t.symbol for t in op.tensors if op.classes is not None and t.symbol is not None
                   and _kind(op, t.name) == "scalar"}
    for m, d in r.divisors.items():
        if m not in DIVIDING_MODES:
            fail(f"loss_reduction: only {' and '.join(DIVIDING_MODES)} divide; {m}= has no divisor")
        if op.classes is not None and d.has(GridSum):
            # a sum over the grid the operator computes itself (CrossEntropyLossGrad's total weight): of the
            # operands, never of the variable differentiated
            if op.wrt in d.free_symbols or d.has(DimSum):
                fail(f"loss_reduction: the {m} divisor {d} may not read {op.wrt} or a DimSum")
            d = d.replace(lambda e: isinstance(e, GridSum), lambda e: sympy.Integer(1))
        for s in d.free_symbols:
            if s in one_element:
                continue   # the value of a one-element input (NLLLoss's totalWeight)
            t = numel_param(s)
            if t is not None:
                t = count_parts(t)[0]
            if t is None or (t not in known and t != BROADCAST):
                fail(f"loss_reduction: the {m} divisor {d} uses {s}, not numel(tensor) of a tensor parameter")
    for m in modes:
        if m in DIVIDING_MODES and m not in r.divisors:
            fail(f"loss_reduction: the {m} mode needs its divisor, Reduction({attr.name!r}, {m}=numel(...))")
    if attr.type == "int64" and not r.unchecked and not any(
            isinstance(rule, OneOf) and rule.params[0] == attr.name for rule in op.rules):
        # (a string attribute's OneOf is required for every string attribute, below)
        fail(f"loss_reduction {attr.name}: add the rule OneOf({attr.name!r}, {sorted(attr.values)}): without it "
             f"any other value is computed as none, silently; Reduction({attr.name!r}, unchecked=True, ...) if the "
             f"library accepts every value that way (say so in the notes)")


def _check_attr(p: Attr, fail):
    if p.type not in ATTR_TYPES:
        fail(f"attribute {p.name}: type must be one of {', '.join(ATTR_TYPES)}, got {p.type!r}")
    spelled = ATTR_TYPES[p.type].c_types
    if p.c_type is not None and p.c_type not in spelled:
        fail(f"attribute {p.name}: a {p.type} is spelled {' or '.join(repr(c) for c in spelled)} in C, "
             f"not {p.c_type!r}")
    if p.type == "string":
        if not p.values or not all(isinstance(v, str) and v for v in p.values):
            fail(f"string attribute {p.name} needs `values`: the strings it accepts")
        if p.symbol is not None:
            fail(f"string attribute {p.name} takes no symbol: formulas cannot read a string (choose a form "
                 f"with `when` instead)")
    elif p.symbol is None:
        fail(f"parameter {p.name} needs a symbol")


def _check_torch(op, fail):
    from .spec.torch import Torch, TorchGrad, names
    if op.torch is None:
        return
    if not isinstance(op.torch, (Torch, TorchGrad)):
        fail("torch must be Torch(...) or TorchGrad(...) (codegen.spec.torch)")
    params = {p.name for p in op.params}
    for n in names(op.torch):
        if n not in params:
            fail(f"torch names a missing parameter {n!r} (a literal string is Const({n!r}))")
    if isinstance(op.torch, Torch) and not (isinstance(op.torch.op, str) and op.torch.op.isidentifier()):
        fail(f"torch: {op.torch.op!r} is not the name of an aten op")
    if isinstance(op.torch, TorchGrad) and not callable(op.torch.fn):
        fail("TorchGrad needs the forward as a function fn(torch, *args)")


def _check_dtypes(op, fail):
    for p in op.params:   # before anything reads a table (a bare list would crash op.bool_tensors)
        if getattr(p, "dtypes", None) is not None and not isinstance(p.dtypes, dict):
            fail(f"{p.name}: dtypes= must be a {{product: [dtypes]}} dict like the operator's, not {p.dtypes!r}")
    bools = {t.name for t in op.bool_tensors}   # truth values: nothing computes in BOOL
    # (nor in a split op's row count, which the call sums: codegen.spec.split checks its dtype)
    counts = {op.split.rows} if op.split is not None else set()
    tables = [("the operator", op.dtypes)] + [(p.name, p.dtypes) for p in op.params if getattr(p, "dtypes", None)
                                              and p.name not in bools | counts]
    for owner, table in tables:
        if not isinstance(table, dict) or not table:
            fail(f"dtypes of {owner} must be a non-empty {{product: [dtypes]}} dict")
        for soc, dts in table.items():
            if soc not in PRODUCTS:
                fail(f"dtypes of {owner}: unknown product {soc!r} (known: {', '.join(PRODUCTS)})")
            for d in dts:
                if d not in COMPUTED:
                    known = "unknown dtype" if d not in DTYPES else "dtype the kernels cannot compute"
                    fail(f"dtypes of {owner} on {soc}: {known} {d!r} (use {', '.join(COMPUTED)})")
                if d not in KERNEL_DTYPES and d not in op.compute:
                    fail(f"dtypes of {owner} on {soc}: {d} is not FLOAT16, BFLOAT16 or FLOAT: say what it computes "
                         f"in, compute={{{d!r}: 'FLOAT' | 'DOUBLE'}} (the library's choice, stated in the docs)")
            if "BFLOAT16" in dts and not PRODUCTS[soc].bf16:
                fail(f"dtypes of {owner}: {soc} has no BFLOAT16")
    if op.compute_dtype != "FLOAT":
        fail("compute_dtype must be FLOAT (the only compute type the backends implement)")
    if not isinstance(op.compute, dict):
        fail("compute must be a {dtype: 'FLOAT' | 'DOUBLE'} dict")
    for d, c in op.compute.items():
        if d not in COMPUTED or d in KERNEL_DTYPES:
            fail(f"compute: {d!r} is not a dtype outside FLOAT16/BFLOAT16/FLOAT that the kernels compute")
        if c not in ("FLOAT", "DOUBLE", "COMPLEX"):
            fail(f"compute: {d} must compute in 'FLOAT', 'DOUBLE' or 'COMPLEX', got {c!r}")
        if DTYPES[d].is_complex != (c == "COMPLEX"):
            fail(f"compute: {d}: complex dtypes compute in 'COMPLEX', and only they")
    if "COMPLEX" in op.compute.values():
        # the complex kernels compute gradOutput * conj(d), d the backward with gradOutput taken out; that is d with
        # every other tensor conjugated only when d is a branch-free function with real coefficients
        if op.reduce_dim or op.loss_reduction or any(sympy.sympify(f.expr).has(sympy.Piecewise, sympy.I)
                                                     for f in op.formulas):
            fail("COMPLEX compute needs an elementwise backward without branches or complex constants")


def _check_presence_rule(op, r, fail):
    """NotNullWhen(o, t): o an optional pointer, t an optional tensor, before every rule but another
    NotNullWhen (a null check); PresentWith(t, u): two optional tensors; PerRow(t, ref): t an input tensor, ref a
    tensor."""
    a, b = (op.param(n) for n in r.params)
    name = type(r).__name__
    if isinstance(r, PerRow):
        if not isinstance(a, Tensor) or not isinstance(b, (Tensor, Output)):
            fail(f"PerRow({a.name}, {b.name}): an input tensor per row of a tensor")
        return
    want_a = (Tensor, Output) if isinstance(r, NotNullWhen) else (Tensor,)
    if not isinstance(a, want_a) or not getattr(a, "optional", False) or not isinstance(b, Tensor) or not b.optional:
        fail(f"{name}({a.name}, {b.name}): both must be optional "
             f"{'pointers (an output or an input tensor)' if isinstance(r, NotNullWhen) else 'input tensors'}")
    if isinstance(r, NotNullWhen):
        i = next(k for k, q in enumerate(op.rules) if q is r)   # (its position: equal rules compare equal)
        if any(not isinstance(q, NotNullWhen) for q in op.rules[:i]):
            fail(f"NotNullWhen({a.name}, {b.name}) is a null check (161001): list it before every other rule")


def _check_channel_rule(op, r, fail):
    """PerChannel(w, x, dim): w an input tensor read per channel of x (elementwise ops only: its view is laid
    along dim before broadcasting); ChannelGrad(gw, w, x, dim): gw an output, w's PerChannel rule with the same x
    and dim listed."""
    if r.dim < 0:
        fail(f"{type(r).__name__}: dim must be a non-negative axis, got {r.dim}")
    if op.reduce_dim is not None or op.split is not None or op.classes is not None:
        fail(f"{type(r).__name__}: a per-channel tensor is only implemented for an elementwise operator")
    if isinstance(r, PerChannel) and not isinstance(op.param(r.params[0]), Tensor):
        fail(f"PerChannel: {r.params[0]} must be an input tensor")
    if isinstance(r, ChannelGrad):
        if not isinstance(op.param(r.params[0]), Output):
            fail(f"ChannelGrad: {r.params[0]} must be an output")
        if not any(isinstance(q, PerChannel) and q.params == r.params[1:] and q.dim == r.dim for q in op.rules):
            fail(f"ChannelGrad({', '.join(r.params)}): no PerChannel({r.params[1]}, {r.params[2]}, dim={r.dim}) rule")


def _check_rules(op, fail):
    names = {p.name for p in op.params}
    for r in op.rules:
        if not isinstance(r, Rule):
            fail(f"rules must be Rule objects, got {r!r}")
        for n in r.params:
            if n not in names:
                fail(f"rule {type(r).__name__} names a missing parameter {n!r}")
        if r.category == "null" and not isinstance(r, NotNullWhen):
            fail("null checks are derived from the parameters; do not list NotNull")
        if isinstance(r, (NotNullWhen, PresentWith, PerRow)):
            _check_presence_rule(op, r, fail)
        if isinstance(r, (DimInRange, OneOf)) and not isinstance(op.param(r.params[0]), Attr):
            fail(f"{type(r).__name__} needs an Attr first, got {r.params[0]}")
        arrays = [n for n in r.params if isinstance(op.param(n), IntArray)]
        if isinstance(r, (ArrayLength, ArrayInRange)):
            if arrays != [r.params[0]] or not all(isinstance(op.param(n), (Tensor, Output)) for n in r.params[1:]):
                fail(f"{type(r).__name__} needs an IntArray first, then tensors, got {', '.join(r.params)}")
            try:
                bounds = [r.bound(w) for w in ("low", "high")] if isinstance(r, ArrayInRange) else []
            except ValueError as e:
                fail(str(e))
            if isinstance(r, ArrayInRange) and bounds == [None, None]:
                fail(f"ArrayInRange({r.params[0]}) needs a low or a high bound")
            continue
        if arrays:
            fail(f"{type(r).__name__} does not apply to the IntArray {arrays[0]} (ArrayLength, ArrayInRange do)")
        if isinstance(r, Requires):
            allowed = {p.symbol for p in op.params if isinstance(p, (Scalar, Attr)) and p.symbol is not None}
            extra = (r.condition.free_symbols | r.when.free_symbols) - allowed
            if extra:
                fail(f"Requires({r.params[0]}) uses {', '.join(sorted(map(str, extra)))}, not a scalar or attribute")
        elif type(r).__name__ not in ("DimInRange", "OneOf"):  # (every other rule reads tensors)
            attr_last = isinstance(r, (DimEven, SampleShaped)) or isinstance(r, ShapeHalved) and r.axis is None
            if isinstance(r, ShapeHalved) and r.axis is not None and (
                    len(r.params) != 2 or not isinstance(r.axis, int) or isinstance(r.axis, bool)):
                fail(f"ShapeHalved({', '.join(r.params)}, axis={r.axis!r}): a fixed axis (an int) halves the second "
                     f"tensor's shape into the first's: two tensors")
            if attr_last:   # ... and these an int64 attribute last
                kinds = ("int64", "string") if isinstance(r, SampleShaped) else ("int64",)   # (a reduction string)
                if not isinstance(op.param(r.params[-1]), Attr) or op.param(r.params[-1]).type not in kinds:
                    fail(f"{type(r).__name__} needs an {' or '.join(kinds)} Attr last, got {r.params[-1]}")
            if isinstance(r, SampleShaped) and r.params[-1] != op.loss_reduction:
                fail(f"SampleShaped needs the loss reduction attribute last, got {r.params[-1]}")
            for n in r.params[:-1] if attr_last else r.params:
                if not isinstance(op.param(n), (Tensor, Output)):
                    fail(f"{type(r).__name__} applies to tensors; {n} is not one")
        if isinstance(r, (PerChannel, ChannelGrad)):
            _check_channel_rule(op, r, fail)
        if isinstance(r, _DimBound) or isinstance(r, ShapeHalved) and r.axis is not None:
            _check_fixed_axis(op, r, fail)
        if isinstance(r, OneOf):
            a = op.param(r.params[0])
            want = str if a.type == "string" else int
            if not r.values or not all(isinstance(v, want) and not isinstance(v, bool) for v in r.values):
                fail(f"OneOf({a.name}) must list {'strings' if want is str else 'integers'}")
    for a in op.attrs:
        if a.type == "string" and not any(isinstance(r, OneOf) and r.params[0] == a.name
                                          and sorted(r.values) == sorted(a.values) for r in op.rules):
            fail(f"string attribute {a.name} needs a OneOf({a.name!r}, {sorted(a.values)}) rule: the strings "
                 f"it accepts are checked, with the status the library returns for any other")


def _check_fixed_axis(op, r, fail):
    """A rule on a fixed axis (DimAtMost, DimAtLeast, ShapeHalved's axis=) names one every call's tensors can have:
    a tensor without it passes a dimension bound (so dim=7 under MaxRank 3 checked nothing), and a halved axis is
    wrapped by the rank (axis=5 on a rank-3 tensor halved axis 2); a dimension bound's n is a size (>= 0; a
    DimAtLeast of 0 or less holds for every tensor)."""
    label = f"{type(r).__name__}({', '.join(r.params)})"
    axis = r.axis if isinstance(r, ShapeHalved) else r.dim
    if not isinstance(axis, int) or isinstance(axis, bool):
        fail(f"{label}: the axis must be an int, got {axis!r}")
    if isinstance(r, _DimBound):
        least = 1 if type(r).__name__ == "DimAtLeast" else 0
        if not isinstance(r.n, int) or isinstance(r.n, bool) or r.n < least:
            fail(f"{label}: n must be an int of at least {least}, got {r.n!r}")
    low, high = rank_bounds(op, r.params)
    ranks = max(low, 1) if isinstance(r, ShapeHalved) else high
    if not -ranks <= axis < ranks:
        fail(f"{label}: axis {axis} is not an axis of every call's tensors (rank {low} to {high}: a MinRank/MaxRank "
             f"rule on them says which; from {-ranks} to {ranks - 1})")


def _check_at(op, fail):
    """`at` (declared values where the forward is not differentiable): points of wrt, values over known symbols."""
    from .spec.op import points_of
    known = {p.symbol for p in op.params if p.symbol is not None} | {op.wrt}
    for owner, table in [("at", op.at)] + [(f"backward formula {i + 1}: at", f.at) for i, f in enumerate(op.formulas)]:
        if not isinstance(table, dict):
            fail(f"{owner} must be a dict {{Eq({op.wrt}, point): value}}")
        for rel, value in table.items():
            try:
                points = points_of(rel, op.wrt)
                value = sympy.sympify(value)
            except (ValueError, sympy.SympifyError) as e:
                fail(f"{owner}: {e}")
            extra = (value.free_symbols | {s for p in points for s in p.free_symbols}) - known
            if any(numel_param(s) is None for s in extra):
                fail(f"{owner}: {rel}: undefined symbol(s) {', '.join(sorted(map(str, extra)))}")


def _check_when(op, fail):
    """Each form's `when`: a bool attribute's truth, a string or int64 attribute's listed value, an optional
    tensor's ABSENT/PRESENT (checked on the op's own forms: a split op's halves re-key theirs)."""
    for i, f in enumerate(op.formulas):
        label = f"backward formula {i + 1}" if len(op.formulas) > 1 else "the backward"
        for k, v in f.when.items():
            if k not in {p.name for p in op.params}:
                fail(f"{label}: `when` names a missing parameter {k!r}")
            p = op.param(k)
            ok = (isinstance(p, Attr) and p.type == "bool" and v in (True, False)) or \
                 (isinstance(p, Attr) and p.type in ("string", "int64") and v in p.values
                  and isinstance(v, str if p.type == "string" else int) and not isinstance(v, bool)) or \
                 (isinstance(p, Tensor) and p.optional and v in (ABSENT, PRESENT))
            if not ok:
                fail(f"{label}: `when` {k}={v!r} needs a bool Attr with True/False, a string or int64 Attr with "
                     "one of its values, or an optional tensor with ABSENT/PRESENT")


def _check_floats(op, fail):
    """A Python float in a formula (`exp(0.1*x)`) is a 53-bit binary number, not the decimal the author meant,
    and the proof compares exact expressions: exp(0.1*x) is not exp(x/10), and the mpmath check then reports two
    values printed the same.  Such a float is refused, naming where it is; an integer-valued one (6.0) is exact
    and left alone, as are Floats given more precision on purpose (SELU's 40-digit constants)."""
    places = [("the forward", op.forward)]
    for i, f in enumerate(op.formulas):
        label = f"backward formula {i + 1}" if len(op.formulas) > 1 else "the backward"
        places += [(label, f.expr), (f"{label}: its forward", f.forward)]
        places += [(f"{label}: at", v) for v in f.at.values()] + [(f"{label}: at", k) for k in f.at]
    places += [("at", v) for v in op.at.values()] + [("at", k) for k in op.at]
    places += [(f"rule Requires({r.params[0]!r})", r.condition) for r in op.rules if hasattr(r, "condition")]
    for label, e in places:
        if e is None or isinstance(e, (bool, int, str)):
            continue
        try:
            e = sympy.sympify(e)
        except sympy.SympifyError:
            continue
        inexact = sorted({f for f in e.atoms(sympy.Float) if f._prec <= 53 and not float(f).is_integer()},
                         key=float)
        if inexact:
            exact = sympy.nsimplify(float(inexact[0]), rational=True)
            fail(f"{label} has the Python float {float(inexact[0])!r}: write it exactly, Rational({exact.p}, "
                 f"{exact.q}) (the proof compares exact expressions; a float is a binary approximation of the "
                 f"decimal written)")


def _check_scalar_divisors(op, fail):
    """A formula dividing by a scalar or attribute (CELU's x/alpha) is undefined where the divisor is 0: unless a
    rule refuses that value (`Requires("alpha", Ne(alpha, 0))`, checked at every call), a form's `assume=` states
    the library's value is taken elsewhere (Softplus, whose backward is finite at beta = 0), the symbol's own
    assumptions exclude it, or the division sits in a Piecewise branch whose condition is false there (SmoothL1's
    d/beta where |d| < beta), the proof would hold for every other value and the kernels divide by 0.  Each real
    root of a divisor polynomial in one scalar is tried against those conditions."""
    scalars = {p.symbol for p in op.params if isinstance(p, (Scalar, Attr)) and p.symbol is not None}
    conditions = [r.condition for r in op.rules if isinstance(r, Requires)]
    conditions += [a for f in op.formulas for a in f.assume]

    def divisors(e, guards):
        """(divisor, the branch conditions around it) for every negative power in e."""
        if isinstance(e, sympy.Piecewise):
            before = []
            for value, cond in e.args:
                yield from divisors(value, guards + [cond] + [sympy.Not(c) for c in before])
                before.append(cond)
            return
        if isinstance(e, sympy.Pow) and e.exp.is_negative:
            yield e.base, guards
        for a in e.args:
            if isinstance(a, sympy.Basic) and not isinstance(a, sympy.logic.boolalg.Boolean):
                yield from divisors(a, guards)

    places = [("the forward", op.forward)] + [
        (f"backward formula {i + 1}" if len(op.formulas) > 1 else "the backward", f.expr) for i, f in
        enumerate(op.formulas)] + [(f"backward formula {i + 1}: its forward", f.forward)
                                   for i, f in enumerate(op.formulas) if f.forward is not None]
    for label, e in places:
        for base, guards in divisors(sympy.sympify(e), []):
            free = base.free_symbols
            if len(free) != 1 or not free <= scalars:
                continue
            (s,) = free
            if not base.is_polynomial(s):   # (solve on transcendental divisors may not finish: left to the proof)
                continue
            try:
                roots = [r for r in sympy.solve(base, s) if r.is_real is not False]
            except (NotImplementedError, TypeError, ValueError):
                continue
            for r in roots:
                if any(sympy.sympify(c).subs(s, r) == sympy.false for c in conditions + guards):
                    continue
                if s.is_positive and not r.is_positive or s.is_negative and not r.is_negative or \
                        s.is_nonzero and r == 0:
                    continue
                rule = f"Ne({s}, {r})" if base != s else f"Ne({s}, 0)"
                fail(f"{label} divides by {base}, which is 0 at {s} = {r}, and nothing rules that value out: add "
                     f"the rule Requires({s.name!r}, {rule}) (phase 1 then refuses it with 161002); if the library "
                     f"accepts it, give that value a Piecewise branch of its own, or assume=({rule},) on the form "
                     f"(the pages then state it)")


def _check_math(op, fail):
    if not isinstance(op.wrt, sympy.Symbol):
        fail("wrt must be a SymPy Symbol")
    fwd = sympy.sympify(op.forward)
    if op.wrt not in fwd.free_symbols:
        fail(f"the forward does not depend on wrt={op.wrt}")
    scalar_syms = {p.symbol for p in op.params if isinstance(p, (Scalar, Attr)) and p.symbol is not None}
    operand_syms = {t.symbol for t in op.tensors if t.role == "operand"}
    extra = fwd.free_symbols - {op.wrt} - scalar_syms - operand_syms
    if getattr(op, "grid_of", op).classes is not None and op.reduce_dim is not None:   # a class row's length
        extra = {s for s in extra if numel_param(s) is None}
    # a count of a tensor parameter (MultiLabelSoftMargin's mean over the classes, dim_size("self", 1)), as the
    # backward may read one
    counted_in = {t.name for t in op.tensors} | {op.output.name, BROADCAST}
    extra = {s for s in extra if numel_param(s) is None or count_parts(numel_param(s))[0] not in counted_in}
    if extra:
        fail(f"the forward uses undefined symbol(s) {', '.join(sorted(map(str, extra)))}")
    if fwd.has(DimSum) and op.reduce_dim is None:
        fail("the forward uses DimSum but reduce_dim is not set")
    for label, e in [("the forward", fwd)] + [(f"backward formula {i + 1}", sympy.sympify(f.expr))
                                             for i, f in enumerate(op.formulas)]:
        for t in op.bool_tensors:
            if t.symbol in _arithmetic_symbols(e):
                fail(f"{label} reads the BOOL tensor {t.name} as a number: use it as a Piecewise condition "
                     f"(Piecewise((0, {t.symbol}), (..., True)))")

    tensors = {t.name for t in op.tensors}
    counted = tensors | {op.output.name, BROADCAST}   # numel()/dim_size() count an input, the output or B
    param_syms = {p.symbol for p in op.params if p.symbol is not None}
    for i, f in enumerate(op.formulas):
        label = f"backward formula {i + 1}" if len(op.formulas) > 1 else "the backward"
        expr = sympy.sympify(f.expr)
        for s in expr.free_symbols - param_syms:
            t = numel_param(s) if isinstance(s, sympy.Symbol) else None
            if t is None or count_parts(t)[0] not in counted:
                fail(f"{label} uses undefined symbol {s}")
        if expr.has(DimSum) and op.reduce_dim is None:
            fail(f"{label} uses DimSum but reduce_dim is not set")
        for k, role in f.roles.items():
            if k not in tensors or role not in ROLES:
                fail(f"{label}: roles {k}={role!r} needs an input tensor and a known role")
        if f.forward is not None:
            ff = sympy.sympify(f.forward)
            if op.wrt not in ff.free_symbols or ff.free_symbols - {op.wrt} - scalar_syms - operand_syms:
                fail(f"{label}: its forward must be in wrt={op.wrt}, operands and scalars")
        for a in f.assume:
            if not isinstance(a, sympy.core.relational.Relational) or not a.free_symbols <= scalar_syms:
                fail(f"{label}: assume {a} must be a relation on scalars")
        if op.x_symbol(f) is None and op.y_symbol(f) is None and op.wrt in _derivative_symbols(op, f):
            # a linear forward (dropout's x*mask/(1 - p)) has a derivative free of x: no tensor need hold it
            fail(f"{label}: no tensor holds the forward input or output, and the forward's derivative reads "
                 f"{op.wrt}: give a tensor the role FORWARD_INPUT or FORWARD_OUTPUT")
    keys = op.variant_keys()
    choices = [op.variant_choices(k) for k in keys]
    for values in itertools.product(*choices):
        key = dict(zip(keys, values))
        if op.formula_for(key) is None:
            fail(f"no backward formula covers {key}")


def _derivative_symbols(op, f) -> set:
    """The symbols of the derivative of the form's forward w.r.t. the op's variable.  A row sum DimSum(e) is read
    as e plus e at another element of the row (whose x the derivative reads through it, softmax's exp(x_k)): the
    centring x - DimSum(x)/DimSum(1) has the derivative 1 - 1/n, free of x (its SymPy derivative kept an
    unevaluated d/dx DimSum(x), so it was refused for reading x)."""
    other = sympy.Dummy("x_other")
    forward = sympy.sympify(f.forward if f.forward is not None else op.forward).replace(
        lambda e: isinstance(e, DimSum), lambda e: e.args[0] + e.args[0].subs(op.wrt, other))
    out = sympy.diff(forward, op.wrt).free_symbols
    return out - {other} | ({op.wrt} if other in out else set())


def _arithmetic_symbols(expr) -> set:
    """The symbols `expr` reads as numbers, i.e. outside the conditions of its Piecewise nodes."""
    if isinstance(expr, sympy.Symbol):
        return {expr}
    if isinstance(expr, sympy.Piecewise):
        return set().union(*[_arithmetic_symbols(e) for e, _ in expr.args])
    if isinstance(expr, (sympy.logic.boolalg.Boolean, sympy.core.relational.Relational)) and not expr.is_Symbol:
        return {s for a in expr.args for s in _arithmetic_symbols(a)} if isinstance(
            expr, sympy.core.relational.Relational) else set()
    return set().union(set(), *[_arithmetic_symbols(a) for a in expr.args])
