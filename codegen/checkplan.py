"""The phase-1 checks of an op as one ordered list of steps, printed by every backend's checker.

The Python checker (NumPy backend) and the C checker (C backend) are both printed from `steps(op)`, so they
run the same checks in the same order and report the same parameter: parity is by construction, and the
property tests (tests/test_c_checker_parity.py) confirm it on random calls.

A step is one call of a runtime check function (`codegen/runtime/checks.py` in Python, `opgen_check.c` in
C) on one parameter:

    Step("not_null", "gradOutput")                       null pointer (161001), one per required pointer
    Step("dtype_supported", "self")                      the dtype × product table
    Step("dtype_same", "self", ref="gradOutput")         same dtype as ref
    Step("dtype_castable", "gradInput", ref="gradOutput")
    Step("promoted_supported", "gradOutput", others=(gradOutput, self))   the inputs promote to a supported dtype
    Step("promoted_castable", "out", others=(gradOutput, self))           out's dtype castable from the promoted
    Step("promoted_same", "gradInput", others=(gradOutput, self))         gradInput's dtype is the promoted one
    Step("format_same", "out", ref="self")               same format (aclFormat label) as ref
    Step("format_not_private", "self")                   not a private format (NC1HWC0, FRACTAL_Z, ...)
    Step("max_rank", "self", n=8) / ("min_rank", ...)
    Step("dim_at_most", "gradOutput", n=4096, values=(-1,))   dimension -1 at most 4096
    Step("dim_at_least", "gradY", n=1, values=(-1,))     dimension -1 at least 1
    Step("shape_same", "self", ref="gradOutput")
    Step("broadcast_to", "weight", ref="self")            broadcasts to exactly ref's shape
    Step("same_or_one", "y", ref="x")                     ref's shape, or exactly one element
    Step("broadcast_to", "mask", ref="gradOutput", n=2, values=(0, 1))   ... along those n axes only
    Step("broadcastable", "self", ref="gradOutput")
    Step("broadcastable_with", "target", others=(gradOutput, self))  broadcasts with the broadcast of the others
    Step("shape_is_broadcast", "out", others=(a, b))
    Step("broadcasts_into", "gradOutput", others=(self, target))   broadcasts to exactly their broadcast shape
    Step("convert", "alpha")                             read a scalar/attribute (type checked) when the
                                                         value checks begin
    Step("dim_in_range", "dim", ref="self")
    Step("dim_even", "self", ref="dim")                  self's size along dim is even (a split in halves)
    Step("shape_halved", "gradOut", ref="self", others=("dim",))   self's shape with dim halved
    Step("shape_halved_at", "gradY", ref="x", n=-1)      x's shape with axis -1 exactly twice gradY's there
    Step("class_target", "target", ref="self")           self's shape without its class axis (codegen.spec.classes)
    Step("class_count", "weight", ref="self")            as many elements as self has classes
    Step("per_channel", "weight", ref="self", n=1)       1 element, or as many as self has along dimension n
    Step("channel_grad", "gradWeight", ref="weight", others=("self",), n=1)   [C] for C != 1 weights, else weight's
    Step("one_element", "totalWeight")                   exactly one element
    Step("not_empty", "groupIndex")                      at least one element
    Step("per_row", "weight", ref="gradY")               as many elements as gradY has rows (all but its last axis)
    Step("not_null_when", "gradWeight", ref="weight")    not null when weight is given (161001)
    Step("present_with", "yOrigin", ref="weight")        given when weight is given
    Step("sample_shaped", "gradOutput", ref="self", others=("reduction",))   per sample for none, else one element
    Step("one_of", "reduction", values=(0, 1, 2))
    Step("requires", "alpha", rule=<Requires>)           a SymPy condition, under `rule.when`
    Step("empty_returns", "gradOutput", others=(gradOutput, self))   one of them empty: success, nothing more
    Step("convert", "inputLengths")                      an aclIntArray is read after the null checks
    Step("array_length", "inputLengths", ref="self", n=1)   as many values as self's size along dimension 1
    Step("array_in_range", "inputLengths", rule=<ArrayInRange>)   every value in [low, high] (ints or dim sizes)
    Step("kernel_dtypes", "", others=(every tensor))     last: a dtype no kernel reads or writes (a complex
                                                         output the rules let through) is 561003
"""
from __future__ import annotations

from dataclasses import dataclass

from .spec import Op
from .spec import rules as R
from .spec.params import Attr, IntArray, Scalar


@dataclass(frozen=True)
class Step:
    kind: str
    param: str                  # the parameter checked (and reported on failure)
    ref: str | None = None      # the parameter it is compared with
    n: int | None = None        # rank bound
    values: tuple = ()          # allowed values (one_of)
    others: tuple = ()          # the operands (shape_is_broadcast)
    rule: R.Rule | None = None  # the rule the step comes from (None for conversions)


def _rule_steps(r: R.Rule) -> list[Step]:
    P = r.params
    if isinstance(r, R.DtypeSupported):
        return [Step("dtype_supported", n, rule=r) for n in P]
    if isinstance(r, R.DtypeSame):
        return [Step("dtype_same", n, ref=P[0], rule=r) for n in P[1:]]
    if isinstance(r, R.DtypeCastable):
        return [Step("dtype_castable", P[1], ref=P[0], rule=r)]
    if isinstance(r, R.PromotedSupported):
        return [Step("promoted_supported", P[0], others=tuple(P), rule=r)]
    if isinstance(r, (R.PromotedCastable, R.PromotedSame)):
        kind = "promoted_castable" if isinstance(r, R.PromotedCastable) else "promoted_same"
        return [Step(kind, P[0], others=tuple(P[1:]), rule=r)]
    if isinstance(r, R.FormatSame):
        return [Step("format_same", n, ref=P[0], rule=r) for n in P[1:]]
    if isinstance(r, R.FormatNotPrivate):
        return [Step("format_not_private", n, rule=r) for n in P]
    if isinstance(r, R.MaxRank):
        return [Step("max_rank", n, n=r.n, rule=r) for n in P]
    if isinstance(r, R.MinRank):
        return [Step("min_rank", n, n=r.n, rule=r) for n in P]
    if isinstance(r, R.DimAtMost):
        return [Step("dim_at_most", n, n=r.n, values=(r.dim,), rule=r) for n in P]
    if isinstance(r, R.DimAtLeast):
        return [Step("dim_at_least", n, n=r.n, values=(r.dim,), rule=r) for n in P]
    if isinstance(r, R.ShapeSame):
        return [Step("shape_same", n, ref=P[0], rule=r) for n in P[1:]]
    if isinstance(r, R.ShapeSameOrOneElement):   # (before BroadcastTo: it is one, restricted)
        return [Step("same_or_one", n, ref=P[-1], rule=r) for n in P[:-1]]
    if isinstance(r, R.BroadcastTo):
        return [Step("broadcast_to", n, ref=P[-1], values=r.axes or (), n=None if r.axes is None else len(r.axes),
                     rule=r) for n in P[:-1]]
    if isinstance(r, R.Broadcastable):
        # the second with the first; each later one with the broadcast of all before it
        return [Step("broadcastable", P[1], ref=P[0], rule=r)] + \
            [Step("broadcastable_with", n, others=tuple(P[:i]), rule=r) for i, n in enumerate(P) if i >= 2]
    if isinstance(r, R.ShapeIsBroadcast):
        return [Step("shape_is_broadcast", P[0], others=tuple(P[1:]), rule=r)]
    if isinstance(r, R.BroadcastsInto):
        return [Step("broadcasts_into", P[0], others=tuple(P[1:]), rule=r)]
    if isinstance(r, R.DimInRange):
        return [Step("dim_in_range", P[0], ref=P[1], rule=r)]
    if isinstance(r, R.DimEven):
        return [Step("dim_even", P[0], ref=P[1], rule=r)]
    if isinstance(r, R.ShapeHalved):
        if r.axis is not None:   # a fixed axis: ref's size there twice the tensor's
            return [Step("shape_halved_at", P[0], ref=P[1], n=r.axis, rule=r)]
        return [Step("shape_halved", P[0], ref=P[1], others=(P[2],), rule=r)]
    if isinstance(r, R.ClassTarget):
        return [Step("class_target", P[0], ref=P[1], rule=r)]
    if isinstance(r, R.ClassCount):
        return [Step("class_count", P[0], ref=P[1], rule=r)]
    if isinstance(r, R.PerChannel):
        return [Step("per_channel", P[0], ref=P[1], n=r.dim, rule=r)]
    if isinstance(r, R.ChannelGrad):
        return [Step("channel_grad", P[0], ref=P[1], n=r.dim, others=(P[2],), rule=r)]
    if isinstance(r, R.OneElement):
        return [Step("one_element", n, rule=r) for n in P]
    if isinstance(r, R.NotEmpty):
        return [Step("not_empty", n, rule=r) for n in P]
    if isinstance(r, R.PerRow):
        return [Step("per_row", P[0], ref=P[1], rule=r)]
    if isinstance(r, R.NotNullWhen):
        return [Step("not_null_when", P[0], ref=P[1], rule=r)]
    if isinstance(r, R.PresentWith):
        return [Step("present_with", P[1], ref=P[0], rule=r)]
    if isinstance(r, R.SampleShaped):   # values: the reduction's values that mean none
        return [Step("sample_shaped", P[0], ref=P[1], others=(P[2],), rule=r)]
    if isinstance(r, R.OneOf):
        return [Step("one_of", P[0], values=tuple(r.values), rule=r)]
    if isinstance(r, R.Requires):
        return [Step("requires", P[0], rule=r)]
    if isinstance(r, R.EmptyReturns):
        return [Step("empty_returns", P[0], others=tuple(P), rule=r)]
    if isinstance(r, R.ArrayLength):
        return [Step("array_length", P[0], ref=P[1], n=r.dim, rule=r)]
    if isinstance(r, R.ArrayInRange):
        return [Step("array_in_range", P[0], rule=r)]
    raise TypeError(f"no check step for rule {type(r).__name__}")


def none_test(op: Op, s: Step) -> str:
    """A sample_shaped step's condition in C and C++: the reduction attribute takes a value that means none."""
    red = s.others[0]
    if op.param(red).type == "string":   # a C string (CrossEntropyLossGrad's reductionOptional)
        return " || ".join(f'strcmp({red}, "{k}") == 0' for k, m in op.param(red).values.items() if m == "none") \
            or "false"
    return " || ".join(f"{red} == {k}" for k, m in op.param(red).values.items() if m == "none") or "false"


def conversions(op: Op) -> list[Step]:
    """Scalars and attributes are read (and their type checked) when the value checks begin."""
    return [Step("convert", p.name) for p in op.params if isinstance(p, (Scalar, Attr))]


def steps(op: Op) -> list[Step]:
    """Every phase-1 check of `op`, in the order it runs: nulls, then the rules in the spec's order, the
    conversions of scalars and attributes just before the first value rule (or at the end)."""
    out = [Step("not_null", r.params[0], rule=r) for r in op.null_rules]
    # an aclIntArray is read right after the null checks: its shape rule (ArrayLength) runs with the shapes
    out += [Step("convert", p.name) for p in op.params if isinstance(p, IntArray)]
    converted = False
    for r in op.rules:
        if r.category == "value" and not converted:
            out += conversions(op)
            converted = True
        out += _rule_steps(r)
    if not converted:
        out += conversions(op)
    out.append(Step("kernel_dtypes", "", others=tuple(p.name for p in op.params if p.kind in ("tensor", "output"))))
    return out
