"""Argument rules: what phase 1 (GetWorkspaceSize) checks, in order, and the status each failure returns.

Every rule names the parameters it reads; the first parameter that breaks it is the one reported.  Null pointers
come first (161001, derived from the parameter list, never written in a spec); then the rules run in the order
the spec lists them — the library's order, which usually goes dtypes, shapes and ranks, attribute and scalar
values (all 161002), but not always (HardshrinkBackward checks ranks before the promotion of its dtypes, and
returns for an empty tensor before its broadcast check: `EmptyReturns`).  Optional tensors that are null skip
every rule but their own null check (there is none).
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy

ACLNN_SUCCESS = 0
ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002
ACLNN_ERR_RUNTIME_ERROR = 361001
ACLNN_ERR_INNER = 561000
ACLNN_ERR_INNER_FIND_KERNEL_ERROR = 561003
ACLNN_ERR_INNER_CREATE_EXECUTOR = 561101
ACLNN_ERR_INNER_NULLPTR = 561103

STATUS_NAMES = {
    ACLNN_SUCCESS: "ACLNN_SUCCESS",
    ACLNN_ERR_PARAM_NULLPTR: "ACLNN_ERR_PARAM_NULLPTR",
    ACLNN_ERR_PARAM_INVALID: "ACLNN_ERR_PARAM_INVALID",
    ACLNN_ERR_RUNTIME_ERROR: "ACLNN_ERR_RUNTIME_ERROR",
    ACLNN_ERR_INNER: "ACLNN_ERR_INNER",
    ACLNN_ERR_INNER_FIND_KERNEL_ERROR: "ACLNN_ERR_INNER_FIND_KERNEL_ERROR",
    ACLNN_ERR_INNER_CREATE_EXECUTOR: "ACLNN_ERR_INNER_CREATE_EXECUTOR",
    ACLNN_ERR_INNER_NULLPTR: "ACLNN_ERR_INNER_NULLPTR",
}

CATEGORIES = ("null", "dtype", "shape", "value", "empty")


def _names(names) -> str:
    return "、".join(names)


@dataclass(frozen=True, init=False)
class Rule:
    params: tuple[str, ...]        # the parameters read, in check order

    category = "value"
    status = ACLNN_ERR_PARAM_INVALID

    def __init__(self, *params: str):
        object.__setattr__(self, "params", tuple(params))

    def describe(self, lang: str, op=None) -> str:  # pragma: no cover - every rule overrides it
        raise NotImplementedError


@dataclass(frozen=True, init=False)
class NotNull(Rule):
    """A required tensor or scalar pointer is null.  Derived from the parameter list."""
    category = "null"
    status = ACLNN_ERR_PARAM_NULLPTR

    def describe(self, lang, op=None):
        return {"zh": f"传入的{_names(self.params)}是空指针。",
                "en": f"{', '.join(self.params)} is a null pointer."}[lang]


@dataclass(frozen=True, init=False)
class DtypeSupported(Rule):
    """Each tensor's dtype is in the dtype × product table for the running product."""
    category = "dtype"

    def describe(self, lang, op=None):
        return {"zh": f"{_names(self.params)}的数据类型不在当前产品支持的范围之内。",
                "en": f"the dtype of {', '.join(self.params)} is not supported on the running product."}[lang]


@dataclass(frozen=True, init=False)
class DtypeSame(Rule):
    """Every later tensor has the first tensor's dtype."""
    category = "dtype"

    def describe(self, lang, op=None):
        ref, rest = self.params[0], self.params[1:]
        return {"zh": f"{_names(rest)}的数据类型与{ref}不一致。",
                "en": f"the dtype of {', '.join(rest)} differs from {ref}'s."}[lang]


@dataclass(frozen=True, init=False)
class DtypeCastable(Rule):
    """The second tensor's dtype can be cast to from the first's (aclnn CanCast: `codegen.spec.dtypes.can_cast`)."""
    category = "dtype"

    def describe(self, lang, op=None):
        src, dst = self.params
        return {"zh": f"{src}的数据类型不能转换为{dst}的数据类型。",
                "en": f"{src}'s dtype cannot be cast to {dst}'s dtype."}[lang]


@dataclass(frozen=True, init=False)
class PromotedSupported(Rule):
    """The inputs' dtypes promote (aclnn PromoteType, `codegen.spec.dtypes.promote_types`) to a dtype in the
    table for the running product.  Mixed input dtypes are then accepted; the kernels compute in the promoted one."""
    category = "dtype"

    def describe(self, lang, op=None):
        return {"zh": f"{_names(self.params)}的数据类型推导失败,或推导后的数据类型不在当前产品支持的范围之内。",
                "en": f"the dtypes of {', '.join(self.params)} do not promote to a dtype supported on the running "
                      f"product."}[lang]


@dataclass(frozen=True, init=False)
class PromotedCastable(Rule):
    """The first tensor's (an output's) dtype can be cast to from the promoted dtype of the others (aclnn
    CanCast: `codegen.spec.dtypes.can_cast`)."""
    category = "dtype"

    def describe(self, lang, op=None):
        out, srcs = self.params[0], self.params[1:]
        return {"zh": f"{_names(srcs)}推导后的数据类型不能转换为{out}的数据类型。",
                "en": f"the promoted dtype of {', '.join(srcs)} cannot be cast to {out}'s dtype."}[lang]


@dataclass(frozen=True, init=False)
class PromotedSame(Rule):
    """The first tensor (an output) has exactly the promoted dtype of the others."""
    category = "dtype"

    def describe(self, lang, op=None):
        out, srcs = self.params[0], self.params[1:]
        return {"zh": f"{out}的数据类型与{_names(srcs)}推导后的数据类型不一致。",
                "en": f"{out}'s dtype differs from the promoted dtype of {', '.join(srcs)}."}[lang]


@dataclass(frozen=True, init=False)
class FormatSame(Rule):
    """Every later tensor has the first tensor's format (aclFormat, the label aclCreateTensor was given: ND, NCHW,
    ...).  Checked with the dtypes (CANN's BCE-with-logits checks formats between dtypes and shapes)."""
    category = "dtype"

    def describe(self, lang, op=None):
        ref, rest = self.params[0], self.params[1:]
        return {"zh": f"{_names(rest)}的数据格式与{ref}不一致。",
                "en": f"the format of {', '.join(rest)} differs from {ref}'s."}[lang]


@dataclass(frozen=True, init=False)
class FormatNotPrivate(Rule):
    """No tensor has a private format (`codegen.spec.formats.PRIVATE_FORMATS`: NC1HWC0, FRACTAL_Z, FRACTAL_NZ, ...),
    as CANN's op::IsPrivateFormat decides: KlDivTargetBackward refuses them after its shape checks."""
    category = "dtype"

    def describe(self, lang, op=None):
        return {"zh": f"{_names(self.params)}的数据格式为私有格式(NC1HWC0、FRACTAL_Z、FRACTAL_NZ等)。",
                "en": f"{', '.join(self.params)} has a private format (NC1HWC0, FRACTAL_Z, FRACTAL_NZ, ...)."}[lang]


@dataclass(frozen=True, init=False)
class MaxRank(Rule):
    """Each tensor has at most `n` dimensions."""
    category = "shape"
    n: int = 8

    def __init__(self, *params: str, n: int = 8):
        super().__init__(*params)
        object.__setattr__(self, "n", n)

    def describe(self, lang, op=None):
        return {"zh": f"{_names(self.params)}的维度大于{self.n}。",
                "en": f"{', '.join(self.params)} has more than {self.n} dimensions."}[lang]


@dataclass(frozen=True, init=False)
class MinRank(Rule):
    """Each tensor has at least `n` dimensions."""
    category = "shape"
    n: int = 1

    def __init__(self, *params: str, n: int = 1):
        super().__init__(*params)
        object.__setattr__(self, "n", n)

    def describe(self, lang, op=None):
        return {"zh": f"{_names(self.params)}的维度小于{self.n}。",
                "en": f"{', '.join(self.params)} has fewer than {self.n} dimensions."}[lang]


@dataclass(frozen=True, init=False)
class _DimBound(Rule):
    """A bound `n` on dimension `dim` of each tensor (negative counts from the end); a tensor of lower rank has no
    such dimension and passes (a rank rule says what it must have)."""
    category = "shape"
    dim: int = -1
    n: int = 0

    def __init__(self, *params: str, dim: int = -1, n: int):
        super().__init__(*params)
        object.__setattr__(self, "dim", dim)
        object.__setattr__(self, "n", n)


@dataclass(frozen=True, init=False)
class DimAtMost(_DimBound):
    """Dimension `dim` is at most `n`: ScaledMaskedSoftmaxBackward's last axis S2 <= 4096."""

    def describe(self, lang, op=None):
        return {"zh": f"{_names(self.params)}的第{self.dim}维大于{self.n}。",
                "en": f"dimension {self.dim} of {', '.join(self.params)} is larger than {self.n}."}[lang]


@dataclass(frozen=True, init=False)
class DimAtLeast(_DimBound):
    """Dimension `dim` is at least `n`: SwigluGroupGrad's H > 0 (an empty [0, H] gradY is accepted, [4, 0] not)."""

    def describe(self, lang, op=None):
        return {"zh": f"{_names(self.params)}的第{self.dim}维小于{self.n}。",
                "en": f"dimension {self.dim} of {', '.join(self.params)} is smaller than {self.n}."}[lang]


@dataclass(frozen=True, init=False)
class ShapeSame(Rule):
    """Every later tensor has the first tensor's shape."""
    category = "shape"

    def describe(self, lang, op=None):
        ref, rest = self.params[0], self.params[1:]
        return {"zh": f"{_names(rest)}的shape与{ref}不一致。",
                "en": f"the shape of {', '.join(rest)} differs from {ref}'s."}[lang]


@dataclass(frozen=True, init=False)
class BroadcastTo(Rule):
    """Every tensor but the last broadcasts to exactly the last tensor's shape.  With `axes` (axes of the target,
    negative from the end) it may broadcast along those axes only and has the target's size along every other
    (ScaledMaskedSoftmaxBackward's mask [B|1, N|1, S1, S2]: `axes=(0, 1)`)."""
    category = "shape"
    axes: tuple[int, ...] | None = None

    def __init__(self, *params: str, axes=None):
        super().__init__(*params)
        object.__setattr__(self, "axes", None if axes is None else tuple(int(a) for a in axes))

    def describe(self, lang, op=None):
        srcs, dst = self.params[:-1], self.params[-1]
        if self.axes is not None:
            ax = ", ".join(str(a) for a in self.axes)
            return {"zh": f"{_names(srcs)}的shape不能broadcast到{dst}的shape,或在第{ax}维以外的维度上与{dst}不一致。",
                    "en": f"the shape of {', '.join(srcs)} does not broadcast to {dst}'s shape, or differs from it "
                          f"along an axis other than {ax}."}[lang]
        return {"zh": f"{_names(srcs)}的shape不能broadcast到{dst}的shape。",
                "en": f"the shape of {', '.join(srcs)} does not broadcast to {dst}'s shape."}[lang]


@dataclass(frozen=True, init=False)
class ShapeSameOrOneElement(BroadcastTo):
    """Every tensor but the last has exactly the last tensor's shape, or exactly one element of any rank
    (ReluGradV3's gradient y: x's shape or a single value).  A BroadcastTo restricted to those two shapes: the
    kernels, InferShape and the inputs broadcast it as one; only the checkers refuse the other broadcasts."""
    category = "shape"

    def __init__(self, *params: str):
        super().__init__(*params)

    def describe(self, lang, op=None):
        srcs, dst = self.params[:-1], self.params[-1]
        return {"zh": f"{_names(srcs)}的shape与{dst}不一致且元素个数不为1。",
                "en": f"the shape of {', '.join(srcs)} differs from {dst}'s and it has other than one "
                      f"element."}[lang]


@dataclass(frozen=True, init=False)
class Broadcastable(Rule):
    """The tensors broadcast together (NumPy rules): the second with the first, each later one with the broadcast
    shape of all before it (L1LossBackward: target with the broadcast of gradOutput and self)."""
    category = "shape"

    def describe(self, lang, op=None):
        return {"zh": f"{_names(self.params)}的shape不满足broadcast规则。",
                "en": f"the shapes of {', '.join(self.params)} do not broadcast together."}[lang]


@dataclass(frozen=True, init=False)
class ShapeIsBroadcast(Rule):
    """The first tensor (an output) has exactly the broadcast shape of the others."""
    category = "shape"

    def describe(self, lang, op=None):
        out, srcs = self.params[0], self.params[1:]
        return {"zh": f"{out}的shape与{_names(srcs)} broadcast后的shape不一致。",
                "en": f"{out}'s shape differs from the broadcast shape of {', '.join(srcs)}."}[lang]


@dataclass(frozen=True, init=False)
class BroadcastsInto(Rule):
    """The first tensor broadcasts to exactly the broadcast shape of the others, without enlarging it
    (KlDivBackward: gradOutput into broadcast(self, target))."""
    category = "shape"

    def describe(self, lang, op=None):
        src, others = self.params[0], self.params[1:]
        return {"zh": f"{src}的shape不能broadcast到{_names(others)} broadcast后的shape。",
                "en": f"{src}'s shape does not broadcast to the broadcast shape of {', '.join(others)}."}[lang]


@dataclass(frozen=True, init=False)
class EmptyReturns(Rule):
    """When one of these tensors is empty, phase 1 succeeds here (workspace 0, nothing computed) without running
    the checks that follow.  Without this rule an empty tensor succeeds after every check."""
    category = "empty"
    status = ACLNN_SUCCESS

    def describe(self, lang, op=None):
        return {"zh": f"{_names(self.params)}为空Tensor时,后续检查不再进行,直接返回成功。",
                "en": f"when {', '.join(self.params)} is empty, the checks after this one are skipped and the call "
                      f"succeeds."}[lang]


@dataclass(frozen=True, init=False)
class DimInRange(Rule):
    """The int64 attribute `params[0]` lies in [-n, n-1], n the rank of tensor `params[1]` (rank 0 counts as 1)."""

    def describe(self, lang, op=None):
        dim, t = self.params
        return {"zh": f"{dim}超出{t}的维度范围[-n, n-1](n为{t}的维数,0维按1维计)。",
                "en": f"{dim} is outside [-n, n-1], n being {t}'s rank (a rank-0 tensor counts as rank 1)."}[lang]


@dataclass(frozen=True, init=False)
class DimEven(Rule):
    """Tensor `params[0]` has an even size along the int64 attribute `params[1]` (an input split in halves along it;
    the attribute is range-checked by a DimInRange before)."""

    def describe(self, lang, op=None):
        t, dim = self.params
        return {"zh": f"{t}在{dim}维上的大小不是偶数。",
                "en": f"{t}'s size along {dim} is not even."}[lang]


@dataclass(frozen=True, init=False)
class ShapeHalved(Rule):
    """Tensor `params[0]` has the shape of `params[1]` with the dimension the int64 attribute `params[2]` names
    halved (the forward output of an input split in halves along it: GLU's gradOut); or, with `axis=` (a fixed
    axis, `Split(dim=-1)`) and two tensors, `params[1]`'s shape with that axis exactly twice `params[0]`'s
    (an odd size fails: SwigluGroupGrad's x of [4, 33] for a gradY of [4, 16])."""
    axis: int | None = None

    def __init__(self, *params: str, axis: int | None = None):
        super().__init__(*params)
        object.__setattr__(self, "axis", axis)

    def describe(self, lang, op=None):
        if self.axis is not None:
            t, ref = self.params
            where = {"zh": "最后一维" if self.axis == -1 else f"第{self.axis}维",
                     "en": "the last dimension" if self.axis == -1 else f"dimension {self.axis}"}[lang]
            return {"zh": f"{t}的shape与{ref}在{where}上减半后的shape不一致({ref}在该维的大小须为{t}的2倍)。",
                    "en": f"{t}'s shape differs from {ref}'s with {where} halved ({ref}'s size there must be twice "
                          f"{t}'s)."}[lang]
        t, ref, dim = self.params
        return {"zh": f"{t}的shape与{ref}在{dim}维上减半后的shape不一致。",
                "en": f"{t}'s shape differs from {ref}'s with dimension {dim} halved."}[lang]


@dataclass(frozen=True, init=False)
class ClassTarget(Rule):
    """Tensor `params[0]` holds one class index per sample of `params[1]` (codegen.spec.classes): `params[1]`'s
    shape without its class axis (1; a 1-D tensor is a single sample, whose target has one element and rank 0
    or 1)."""
    category = "shape"

    def describe(self, lang, op=None):
        t, ref = self.params
        return {"zh": f"{t}的shape不是{ref}去掉类别维(第1维;{ref}为1维时为单个样本)后的shape。",
                "en": f"{t}'s shape is not {ref}'s without its class axis (dimension 1; a 1-D {ref} is a single "
                      f"sample)."}[lang]


@dataclass(frozen=True, init=False)
class ClassCount(Rule):
    """Tensor `params[0]` has C elements, C being `params[1]`'s extent along its class axis (1, or 0 at rank 1):
    a per-class weight."""
    category = "shape"

    def describe(self, lang, op=None):
        t, ref = self.params
        return {"zh": f"{t}的元素个数不等于{ref}的类别数(第1维的大小;{ref}为1维时为第0维)。",
                "en": f"{t}'s element count is not {ref}'s class count (its size along dimension 1, or 0 for a "
                      f"1-D {ref})."}[lang]


@dataclass(frozen=True, init=False)
class PerChannel(Rule):
    """Tensor `params[0]` holds one value per channel of `params[1]`: a single element (every channel's), or C
    elements in any shape, C being `params[1]`'s extent along `dim` (which it must have).  The kernels read it laid
    along that axis, as a [1, C, 1, ...] view of its elements in order (PReLU's weight: CANN flattens it)."""
    category = "shape"
    dim: int = 1

    def __init__(self, param: str, of: str, dim: int = 1):
        super().__init__(param, of)
        object.__setattr__(self, "dim", int(dim))

    def describe(self, lang, op=None):
        t, ref = self.params
        return {"zh": f"{t}的元素个数既不为1,也不等于{ref}第{self.dim}维的大小(通道数)。",
                "en": f"{t} has neither 1 element nor as many as {ref} has channels (its size along dimension "
                      f"{self.dim})."}[lang]


@dataclass(frozen=True, init=False)
class ChannelGrad(Rule):
    """The gradient `params[0]` of a per-channel tensor `params[1]` (PerChannel) of `params[2]`: of shape [C]
    when `params[1]` has C != 1 elements, whatever its shape; of `params[1]`'s own shape when it has one."""
    category = "shape"
    dim: int = 1

    def __init__(self, param: str, channel: str, of: str, dim: int = 1):
        super().__init__(param, channel, of)
        object.__setattr__(self, "dim", int(dim))

    def describe(self, lang, op=None):
        g, t, ref = self.params
        return {"zh": f"{t}的元素个数不为1时,{g}的shape不是[C](C为{ref}第{self.dim}维的大小);{t}只有1个元素时,"
                      f"{g}的shape与{t}不一致。",
                "en": f"{g}'s shape is not [C] (C: {ref}'s size along dimension {self.dim}) while {t} has other "
                      f"than one element, or not {t}'s shape while {t} has one."}[lang]


@dataclass(frozen=True, init=False)
class PerRow(Rule):
    """Tensor `params[0]` holds one value per row of `params[1]` (a row: its last axis; the rows: the product of
    its other axes), in any shape with that many elements (SwigluGroupGrad's weight, [T], [T, 1] or [B, S] for a
    gradY of [T, H] or [B, S, H]).  The kernels read it laid along those axes, as a [..., 1] view of its elements
    in order, broadcast along the row."""
    category = "shape"

    def describe(self, lang, op=None):
        t, ref = self.params
        return {"zh": f"{t}的元素个数不等于{ref}除最后一维外各维大小之积(行数)。",
                "en": f"{t} does not have as many elements as {ref} has rows (the product of its sizes but the "
                      f"last)."}[lang]


@dataclass(frozen=True, init=False)
class NotEmpty(Rule):
    """Each tensor has at least one element (SwigluGroupGrad's groupIndexOptional, "1-D and not empty")."""
    category = "shape"

    def describe(self, lang, op=None):
        return {"zh": f"{_names(self.params)}是空Tensor(没有元素)。",
                "en": f"{', '.join(self.params)} is empty (has no element)."}[lang]


@dataclass(frozen=True, init=False)
class NotNullWhen(Rule):
    """The optional `params[0]` (an output) must not be null when the optional `params[1]` is given
    (SwigluGroupGrad's gradWeightOutOptional when weightOptional is): 161001, checked right after the null checks
    derived from the parameters (list it first)."""
    category = "null"
    status = ACLNN_ERR_PARAM_NULLPTR

    def describe(self, lang, op=None):
        t, given = self.params
        return {"zh": f"{given}不为空时,{t}是空指针。",
                "en": f"{t} is a null pointer while {given} is given."}[lang]


@dataclass(frozen=True, init=False)
class PresentWith(Rule):
    """The optional `params[1]` must be given when the optional `params[0]` is (161002).  Both ways, twice:
    `PresentWith(w, y), PresentWith(y, w)` (SwigluGroupGrad's weight and yOrigin, "provided together")."""
    category = "value"

    def describe(self, lang, op=None):
        given, t = self.params
        return {"zh": f"{given}不为空时,{t}为空。",
                "en": f"{given} is given and {t} is not."}[lang]


@dataclass(frozen=True, init=False)
class OneElement(Rule):
    """Each tensor has exactly one element, of any rank (NLLLoss's totalWeight)."""
    category = "shape"

    def describe(self, lang, op=None):
        return {"zh": f"{_names(self.params)}的元素个数不为1。",
                "en": f"{', '.join(self.params)} does not have exactly one element."}[lang]


@dataclass(frozen=True, init=False)
class SampleShaped(Rule):
    """The gradient `params[0]` of a loss over the samples of `params[1]` (codegen.spec.classes), by the loss
    reduction attribute `params[2]`: for none (and `params[1]` of rank 2 or more) one element per sample,
    `params[1]`'s shape without its class axis; otherwise rank 0 or 1 and one element."""

    def describe(self, lang, op=None):
        g, ref, red = self.params
        return {"zh": f"{red}为none且{ref}至少2维时,{g}的shape不是{ref}去掉类别维(第1维)后的shape;否则{g}不是"
                      f"0维或1维的单个元素。",
                "en": f"For {red} none with a {ref} of rank 2 or more, {g}'s shape is not {ref}'s without its "
                      f"class axis (dimension 1); otherwise {g} is not a single element of rank 0 or 1."}[lang]


@dataclass(frozen=True, init=False)
class OneOf(Rule):
    """The int64 or string attribute takes one of the listed values (strings compared case-sensitively)."""
    values: tuple = ()

    def __init__(self, param: str, values):
        super().__init__(param)
        object.__setattr__(self, "values", tuple(values))

    def describe(self, lang, op=None):
        vals = ", ".join(str(v) for v in self.values)
        return {"zh": f"{self.params[0]}的取值不在{{{vals}}}之内。",
                "en": f"{self.params[0]} is not one of {{{vals}}}."}[lang]


@dataclass(frozen=True, init=False)
class Requires(Rule):
    """A scalar/attribute value condition, e.g. `lam >= 0`, optionally only `when` another condition holds.

    `condition` and `when` are SymPy booleans over the symbols of scalars and attributes.  The first parameter
    named is the one reported.  The verifier also takes `condition` as an assumption of its proofs (under
    `when`), so a rule like λ ≥ 0 is what makes the Softshrink proof go through.
    """
    condition: sympy.Basic = sympy.true
    when: sympy.Basic = sympy.true

    def __init__(self, param: str, condition, when=sympy.true):
        super().__init__(param)
        object.__setattr__(self, "condition", sympy.sympify(condition))
        object.__setattr__(self, "when", sympy.sympify(when))

    def describe(self, lang, op=None):
        from codegen.text import condition_text  # the words for a SymPy condition, with aclnn names
        cond = condition_text(self.condition, lang, op)
        if self.when == sympy.true:
            return {"zh": f"{self.params[0]}的值不满足{cond}。",
                    "en": f"the value of {self.params[0]} does not satisfy {cond}."}[lang]
        when = condition_text(self.when, lang, op)
        return {"zh": f"当{when}时,{self.params[0]}的值不满足{cond}。",
                "en": f"the value of {self.params[0]} does not satisfy {cond} while {when}."}[lang]


@dataclass(frozen=True, init=False)
class ArrayLength(Rule):
    """The IntArray `params[0]` has as many values as tensor `params[1]` has elements along `dim` (which it must
    have): CtcLossBackward's inputLengths, one length per batch element of logProbs [T, N, C] (dim=1)."""
    category = "shape"
    dim: int = 0

    def __init__(self, array: str, tensor: str, dim: int = 0):
        super().__init__(array, tensor)
        object.__setattr__(self, "dim", int(dim))

    def describe(self, lang, op=None):
        a, t = self.params
        return {"zh": f"{a}的长度不等于{t}第{self.dim}维的大小(或{t}的维数不大于{self.dim})。",
                "en": f"{a}'s length is not {t}'s size along dimension {self.dim} (or {t} has no dimension "
                      f"{self.dim})."}[lang]


def _bound_text(b, lang) -> str:
    """A bound of ArrayInRange in words: an integer, or a tensor's size along an axis (a dim_size symbol)."""
    if isinstance(b, int):
        return str(b)
    from .functions import count_parts, numel_param
    t, axis = count_parts(numel_param(b))
    return {"zh": f"{t}第{axis}维的大小", "en": f"{t}'s size along dimension {axis}"}[lang]


@dataclass(frozen=True, init=False)
class ArrayInRange(Rule):
    """Every value of the IntArray `params[0]` lies in [low, high]; each bound is an int or a tensor's size along
    an axis, `dim_size("self", 0)` (CtcLossBackward's inputLengths: 0 <= inputLengths[b] <= T).  The tensor a
    bound reads is listed after the array in `params` (the rules before must give it that axis)."""
    low: object = 0
    high: object = None

    def __init__(self, array: str, low=0, high=None):
        from .functions import count_parts, numel_param
        bounds = [b for b in (low, high) if b is not None and not isinstance(b, int)]
        tensors = [count_parts(numel_param(b))[0] for b in bounds if isinstance(b, sympy.Symbol) and numel_param(b)]
        super().__init__(array, *dict.fromkeys(tensors))
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)

    def bound(self, which: str):
        """('int', value), ('dim', tensor, axis) or None for the bound `which` ('low' or 'high')."""
        from .functions import count_parts, numel_param
        b = getattr(self, which)
        if b is None:
            return None
        if isinstance(b, int) and not isinstance(b, bool):
            return ("int", b)
        name = numel_param(b) if isinstance(b, sympy.Symbol) else None
        t, axis = count_parts(name) if name else (None, None)
        if axis is None:
            raise ValueError(f"ArrayInRange({self.params[0]}): {which}={b!r} must be an int or dim_size(tensor, "
                             "axis)")
        return ("dim", t, axis)

    def describe(self, lang, op=None):
        a = self.params[0]
        lo = _bound_text(self.low, lang) if self.low is not None else None
        hi = _bound_text(self.high, lang) if self.high is not None else None
        if lo is not None and hi is not None:
            return {"zh": f"{a}的取值不在[{lo}, {hi}]之内。",
                    "en": f"a value of {a} is outside [{lo}, {hi}]."}[lang]
        if lo is not None:
            return {"zh": f"{a}的取值小于{lo}。", "en": f"a value of {a} is less than {lo}."}[lang]
        return {"zh": f"{a}的取值大于{hi}。", "en": f"a value of {a} is greater than {hi}."}[lang]


def rank_bounds(op, tensors) -> tuple[int, int]:
    """The least rank a call's `tensors` can have (the largest MinRank naming one of them, 0 without one) and the
    most (the smallest MaxRank naming one, 8 without one)."""
    low = max([r.n for r in op.rules if isinstance(r, MinRank) and set(r.params) & set(tensors)] + [0])
    high = min([r.n for r in op.rules if isinstance(r, MaxRank) and set(r.params) & set(tensors)] + [8])
    return low, high
