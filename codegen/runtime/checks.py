"""Phase-1 argument checks for the Python kernels.  Each function raises AclnnError on failure.

Arguments are NumPy arrays (tensors), Python numbers (scalars and attributes) or None (null).  The output
may also be `ALLOCATE`: the caller passed no `out=` and the kernel allocates one after the checks, with the
shape the rules require, so the shape rules pass for it and only its requested dtype is checked.
"""
from __future__ import annotations

import ml_dtypes  # noqa: F401  (registers bfloat16 with NumPy)
import numpy as np

from codegen.errors import AclnnError
from codegen.spec.formats import PRIVATE_FORMATS
from codegen.spec.dtypes import BY_NUMPY, COMPUTED, DTYPES, DType, can_cast, promote_types
from codegen.spec.products import PRODUCTS
from codegen.spec.rules import ACLNN_ERR_PARAM_INVALID as INVALID
from codegen.spec.rules import ACLNN_ERR_PARAM_NULLPTR as NULLPTR
from codegen.spec.rules import ACLNN_ERR_INNER_FIND_KERNEL_ERROR as FIND_KERNEL

from .formats import format_of


_BY_DTYPE = {d.numpy_dtype(): d for d in DTYPES.values() if d.numpy is not None}
# every aclnn dtype NumPy has as a NumPy dtype: what outputs are allocated in
NUMPY_DTYPES = {d.name: d.numpy_dtype().type for d in DTYPES.values() if d.numpy is not None}


class Allocate:
    """Stands for an output the kernel will allocate; `dtype` is the requested dtype name."""

    def __init__(self, dtype: str | None):
        self.dtype = dtype

    def __repr__(self):
        return f"Allocate({self.dtype})"


def requested_dtype(out_dtype) -> str | None:
    """`out_dtype=` as an aclnn dtype name ("FLOAT16"), from such a name or anything np.dtype takes ("half",
    np.float16); what is neither (3, an object) stays as its repr, which the checker refuses as an output dtype
    (161002) like any unsupported one."""
    if out_dtype is None or isinstance(out_dtype, str) and out_dtype in DTYPES:
        return out_dtype
    try:
        requested = np.dtype(out_dtype).name
    except (TypeError, ValueError):
        return out_dtype if isinstance(out_dtype, str) else repr(out_dtype)
    d = BY_NUMPY.get(requested)          # float64 -> DOUBLE, int32 -> INT32, ...
    return d.name if d is not None else requested


def numpy_dtype(out_arg):
    """The NumPy dtype to allocate an output in.  An `out_dtype=` that names no dtype (3, an object) is refused
    here, 161002 naming out_dtype, where no rule read it first (an empty tensor ended the checks early, or the
    output's rules accept what they cannot compare)."""
    dt = NUMPY_DTYPES.get(out_arg.dtype)
    if dt is None:
        raise AclnnError(INVALID, "out_dtype", f"out_dtype must name a dtype, got {out_arg.dtype}")
    return dt


def writeable_out(op_name: str, out) -> None:
    """An `out=` the kernel cannot write (a read-only array, such as np.broadcast_to's views) or whose elements
    share memory (a zero stride on a dimension longer than 1: each backend wrote every result to the same place
    and the last one won) is refused before any check, with the op's name: a Python ValueError, as aclnn itself
    has neither read-only tensors nor this check."""
    if isinstance(out, np.ndarray):
        if not out.flags.writeable:
            raise ValueError(f"{op_name}: out is read-only")
        if _self_overlapping(out):
            raise ValueError(f"{op_name}: out has elements that share memory (strides {out.strides} over shape "
                             f"{out.shape}): each result needs a place of its own")


def _self_overlapping(a: np.ndarray) -> bool:
    """Whether two elements of `a` overlap in memory.  Quick when the dimensions nest (each longer stride spans
    the shorter ones, as every slice, transpose and reversal of a contiguous array does); otherwise every
    element's byte offset is compared, which only an odd hand-made view needs."""
    dims = sorted((abs(s), n) for n, s in zip(a.shape, a.strides) if n > 1)
    if a.size <= 1 or not dims:
        return False
    reach = a.itemsize
    for stride, n in dims:
        if stride < reach:
            break
        reach = stride * (n - 1) + reach
    else:
        return False
    offsets = np.zeros(1, np.int64)
    for n, s in zip(a.shape, a.strides):
        offsets = (offsets[:, None] + np.arange(n, dtype=np.int64) * s).ravel()
    offsets.sort()
    return bool((np.diff(offsets) < a.itemsize).any())


def dtype_of(value) -> DType | None:
    """The aclnn dtype of an array (None for anything that is not an array of a known dtype)."""
    if isinstance(value, Allocate):
        return None
    if not isinstance(value, np.ndarray):
        return None
    found = _BY_DTYPE.get(value.dtype)
    # (by name otherwise: the other byte order, a dtype with metadata; `.name` costs some 2 us a call)
    return found if found is not None else BY_NUMPY.get(value.dtype.name)


def dtype_name(value) -> str:
    if isinstance(value, Allocate):
        return value.dtype
    d = dtype_of(value)
    if d is not None:
        return d.name
    return f"numpy {value.dtype}" if isinstance(value, np.ndarray) else f"non-array {type(value).__name__}"


def default_dtype(*arrays) -> str:
    """The dtype an output gets when the caller names none: the promoted dtype of the (non-null) arrays, or the
    first one's when they do not promote (the checks then refuse the call)."""
    names = [dtype_name(a) for a in arrays if a is not None]
    if not names:
        return "FLOAT"
    p = promote_types(names) if all(n in DTYPES for n in names) else None
    return p or names[0]


def shape_str(shape) -> str:
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def broadcast_shapes(*shapes):
    """NumPy broadcasting of shapes; None when they do not broadcast."""
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        return None


# ---- null --------------------------------------------------------------------------------------------------
def not_null(name, value):
    if value is None:
        raise AclnnError(NULLPTR, name, f"{name} must not be null")


# ---- dtype -------------------------------------------------------------------------------------------------
def dtype_supported(op, name, value, product, table):
    """`table` is {soc: [dtype names]} for this parameter."""
    if value is None:
        return
    allowed = table.get(product, [])
    if isinstance(value, Allocate):
        got = value.dtype
    else:
        if not isinstance(value, np.ndarray):
            raise AclnnError(INVALID, name, f"{name} must be a tensor (NumPy array), got {type(value).__name__}")
        got = dtype_name(value)
    if got in allowed:
        return
    if not allowed:
        where = ", ".join(table) or "no product"
        raise AclnnError(INVALID, name, f"{op} does not run on {product}: {name} cannot be checked there "
                                        f"(it runs on {where})")
    elsewhere = [p for p, dts in table.items() if got in dts]
    hint = f"; {got} is supported on {', '.join(elsewhere)}" if elsewhere else ""
    raise AclnnError(INVALID, name, f"{name} has dtype {got}, not supported by {op} on {product} "
                                    f"(supported: {', '.join(allowed)}){hint}")


def dtype_same(ref_name, ref, name, value):
    if ref is None or value is None:
        return
    a, b = dtype_name(ref), dtype_name(value)
    if a != b:
        raise AclnnError(INVALID, name, f"{name} must have the same dtype as {ref_name}: got {b}, {ref_name} is {a}")


def dtype_castable(src_name, src, name, value):
    if src is None or value is None:
        return
    if not can_cast(dtype_name(src), dtype_name(value)):
        raise AclnnError(INVALID, name, f"{name}'s dtype {dtype_name(value)} cannot be cast to from {src_name}'s "
                                        f"dtype {dtype_name(src)}")


def _promoted(named):
    """(names, promoted dtype name or None, the name of the tensor that failed to promote) of the given tensors
    (`named` alternates names and values; null tensors are left out)."""
    pairs = [(n, v) for n, v in zip(named[0::2], named[1::2]) if v is not None]
    if not pairs:
        return [], None, None
    out = dtype_name(pairs[0][1])
    for n, v in pairs[1:]:
        nxt = promote_types([out, dtype_name(v)]) if out in DTYPES and dtype_name(v) in DTYPES else None
        if nxt is None:
            return [n for n, _ in pairs], None, n
        out = nxt
    return [n for n, _ in pairs], out, None


def promoted_supported(op, name, product, table, *named):
    """The tensors' dtypes promote to a dtype of `table` (this parameter's {soc: [dtypes]}) on `product`."""
    names, p, bad = _promoted(named)
    if not names:
        return
    for n, v in zip(named[0::2], named[1::2]):
        if v is not None and not isinstance(v, np.ndarray):
            raise AclnnError(INVALID, n, f"{n} must be a tensor (NumPy array), got {type(v).__name__}")
    if p is None:
        got = ", ".join(dtype_name(v) for v in named[1::2] if v is not None)
        raise AclnnError(INVALID, name, f"the dtypes of {' and '.join(names)} ({got}) do not promote to a "
                                        f"common dtype")
    allowed = table.get(product, [])
    if p not in allowed:
        raise AclnnError(INVALID, name, f"the dtypes of {' and '.join(names)} promote to {p}, not supported by "
                                        f"{op} on {product} (supported: {', '.join(allowed) or 'none'})")


def promoted_castable(name, value, *named):
    names, p, _ = _promoted(named)
    if value is None or p is None:
        return
    if not can_cast(p, dtype_name(value)):
        raise AclnnError(INVALID, name, f"{name}'s dtype {dtype_name(value)} cannot be cast to from {p}, the "
                                        f"promoted dtype of {' and '.join(names)}")


def promoted_same(name, value, *named):
    names, p, _ = _promoted(named)
    if value is None or p is None:
        return
    if dtype_name(value) != p:
        raise AclnnError(INVALID, name, f"{name} must have {p}, the promoted dtype of {' and '.join(names)}: "
                                        f"got {dtype_name(value)}")
# ---- format ------------------------------------------------------------------------------------------------
def format_same(ref_name, ref, name, value):
    """Formats are labels (codegen.runtime.formats); an output the kernel allocates takes the one required."""
    if not _concrete(ref) or not _concrete(value):
        return
    a, b = format_of(ref), format_of(value)
    if a != b:
        raise AclnnError(INVALID, name, f"{name} must have the format of {ref_name}: got {b}, {ref_name} is {a}")


def format_not_private(name, value):
    """CANN's op::IsPrivateFormat: the cube units' blocked layouts (codegen.spec.formats.PRIVATE_FORMATS)."""
    if _concrete(value) and format_of(value) in PRIVATE_FORMATS:
        raise AclnnError(INVALID, name, f"{name} must not have a private format: got {format_of(value)}")


# ---- shape -------------------------------------------------------------------------------------------------
def _concrete(value):
    return value is not None and not isinstance(value, Allocate)


def _is_tensor(name, value):
    """A rank check may be the first to read a tensor (BCE's): anything but an array is refused as the dtype
    checks refuse it."""
    if value is not None and not isinstance(value, (np.ndarray, Allocate)):
        raise AclnnError(INVALID, name, f"{name} must be a tensor (NumPy array), got {type(value).__name__}")


def max_rank(name, value, n):
    _is_tensor(name, value)
    if _concrete(value) and value.ndim > n:
        raise AclnnError(INVALID, name, f"{name} has {value.ndim} dimensions, more than {n}")


def min_rank(name, value, n):
    _is_tensor(name, value)
    if _concrete(value) and value.ndim < n:
        raise AclnnError(INVALID, name, f"{name} has {value.ndim} dimensions, fewer than {n}")


def dim_at_most(name, value, dim, n):
    """Dimension `dim` (negative from the end) is at most n; a tensor without that dimension passes."""
    if _concrete(value) and -value.ndim <= dim < value.ndim and value.shape[dim] > n:
        raise AclnnError(INVALID, name, f"dimension {dim} of {name} is {value.shape[dim]}, more than {n}")


def dim_at_least(name, value, dim, n):
    """Dimension `dim` (negative from the end) is at least n; a tensor without that dimension passes."""
    if _concrete(value) and -value.ndim <= dim < value.ndim and value.shape[dim] < n:
        raise AclnnError(INVALID, name, f"dimension {dim} of {name} is {value.shape[dim]}, less than {n}")


def shape_same(ref_name, ref, name, value):
    if _concrete(ref) and _concrete(value) and ref.shape != value.shape:
        raise AclnnError(INVALID, name, f"{name} must have the shape of {ref_name} {shape_str(ref.shape)}, "
                                        f"got {shape_str(value.shape)}")


def broadcast_to(name, value, target_name, target, axes=None):
    """`value` broadcasts to exactly `target`'s shape; with `axes` (the target's, negative from the end) along those
    only: along every other axis it has the target's size (a missing leading axis counts as 1)."""
    if _concrete(value) and _concrete(target):
        if broadcast_shapes(value.shape, target.shape) != tuple(target.shape):
            raise AclnnError(INVALID, name, f"{name} of shape {shape_str(value.shape)} does not broadcast to "
                                            f"{target_name}'s shape {shape_str(target.shape)}")
        if axes is not None:
            nt, lead = len(target.shape), len(target.shape) - len(value.shape)
            free = {a % nt for a in axes if -nt <= a < nt}
            for i in range(nt):
                if i not in free and (i < lead or value.shape[i - lead] != target.shape[i]):
                    raise AclnnError(INVALID, name, f"{name} of shape {shape_str(value.shape)} may broadcast to "
                                                    f"{target_name}'s shape {shape_str(target.shape)} only along "
                                                    f"axes {shape_str(axes)}")


def same_or_one(name, value, target_name, target):
    """`value` has exactly `target`'s shape, or exactly one element (of any rank)."""
    if _concrete(value) and _concrete(target) and tuple(value.shape) != tuple(target.shape) and value.size != 1:
        raise AclnnError(INVALID, name, f"{name} must have the shape of {target_name} {shape_str(target.shape)} "
                                        f"or exactly one element, got {shape_str(value.shape)}")


def broadcastable(a_name, a, name, value):
    if _concrete(a) and _concrete(value) and broadcast_shapes(a.shape, value.shape) is None:
        raise AclnnError(INVALID, name, f"{name} of shape {shape_str(value.shape)} does not broadcast with "
                                        f"{a_name} of shape {shape_str(a.shape)}")


def broadcastable_with(name, value, *named):
    """`value` broadcasts with the broadcast shape of the operands (`named` alternates names and arrays)."""
    arrays = named[1::2]
    if not _concrete(value) or not all(_concrete(a) for a in arrays):
        return
    want = broadcast_shapes(*[a.shape for a in arrays])
    if want is not None and broadcast_shapes(want, value.shape) is None:
        names = " and ".join(named[0::2])
        raise AclnnError(INVALID, name, f"{name} of shape {shape_str(value.shape)} does not broadcast with the "
                                        f"broadcast shape {shape_str(want)} of {names}")


def shape_is_broadcast(name, value, *named):
    """`named` alternates names and arrays of the operands."""
    arrays = named[1::2]
    if not _concrete(value) or not all(_concrete(a) for a in arrays):
        return
    want = broadcast_shapes(*[a.shape for a in arrays])
    if want is not None and tuple(value.shape) != tuple(want):
        names = " and ".join(named[0::2])
        raise AclnnError(INVALID, name, f"{name} must have the broadcast shape {shape_str(want)} of {names}, "
                                        f"got {shape_str(value.shape)}")


def broadcasts_into(name, value, *named):
    """`value` broadcasts to exactly the broadcast shape of the operands (`named` alternates names and arrays)."""
    arrays = named[1::2]
    if not _concrete(value) or not all(_concrete(a) for a in arrays):
        return
    want = broadcast_shapes(*[a.shape for a in arrays])
    if want is not None and broadcast_shapes(want, value.shape) != tuple(want):
        names = " and ".join(named[0::2])
        raise AclnnError(INVALID, name, f"{name} of shape {shape_str(value.shape)} does not broadcast to the "
                                        f"broadcast shape {shape_str(want)} of {names}")


# ---- values ------------------------------------------------------------------------------------------------
def scalar_value(name, value) -> float:
    """An aclScalar read as a Python float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise AclnnError(INVALID, name, f"{name} must be a real number, got {type(value).__name__}")
    try:
        return float(value)
    except OverflowError:  # an int beyond the double range: no aclScalar can hold it
        raise AclnnError(INVALID, name, f"{name} must be a real number within the double range, got {value}") \
            from None


def optional_scalar_value(name, value, default) -> float:
    """An optional aclScalar: null means the documented default."""
    return float(default) if value is None else scalar_value(name, value)


def double_attr(name, value) -> float:
    """A C `double` passed by value."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise AclnnError(INVALID, name, f"{name} must be a double, got {type(value).__name__}")
    try:
        return float(value)
    except OverflowError:
        raise AclnnError(INVALID, name, f"{name} must be a double within the double range, got {value}") from None


def float_attr(name, value) -> float:
    """A C `float` passed by value: the double rounded to FLOAT (to nearest; beyond FLOAT's range, ±inf), as a
    C caller's conversion does."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise AclnnError(INVALID, name, f"{name} must be a float, got {type(value).__name__}")
    try:
        with np.errstate(over="ignore"):
            return float(np.float32(float(value)))
    except OverflowError:
        raise AclnnError(INVALID, name, f"{name} must be a float within the double range, got {value}") from None


def string_attr(name, value) -> str:
    """A C string (`const char *`): a Python str without NUL characters (C would end it at the first)."""
    if not isinstance(value, str):
        raise AclnnError(INVALID, name, f"{name} must be a string, got {type(value).__name__}")
    if "\0" in value:
        raise AclnnError(INVALID, name, f"{name} must be a C string without NUL characters")
    return value


def int_attr(name, value) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise AclnnError(INVALID, name, f"{name} must be an int64, got {type(value).__name__}")
    if not -2**63 <= int(value) < 2**63:
        raise AclnnError(INVALID, name, f"{name} must fit in an int64, got {value}")
    return int(value)


def bool_attr(name, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise AclnnError(INVALID, name, f"{name} must be a bool, got {type(value).__name__}")
    return bool(value)


def dim_in_range(name, dim, tensor_name, tensor):
    if not _concrete(tensor):
        return
    n = max(tensor.ndim, 1)
    if not -n <= dim <= n - 1:
        raise AclnnError(INVALID, name, f"{name} must be in [{-n}, {n - 1}] for {tensor_name} of rank "
                                        f"{tensor.ndim}, got {dim}")


def dim_even(name, value, dim_name, dim):
    """`value`'s size along `dim` (in range: a DimInRange ran before) is even: it is split in halves there."""
    if not _concrete(value):
        return
    d = dim % max(value.ndim, 1)
    size = value.shape[d] if value.ndim else 1
    if size % 2:
        raise AclnnError(INVALID, name, f"{name} is split in halves along {dim_name}={dim}: its size there must "
                                        f"be even, got {size} in {shape_str(value.shape)}")


def halved_shape(shape, dim) -> tuple:
    """`shape` with dimension `dim` (negative from the end) halved."""
    shape = list(shape)
    d = dim % max(len(shape), 1)
    if shape:
        shape[d] //= 2
    return tuple(shape)


def shape_halved(name, value, ref_name, ref, dim_name, dim):
    """`value` has `ref`'s shape with dimension `dim` halved (`ref` split in halves along it)."""
    if not (_concrete(value) and _concrete(ref)):
        return
    want = halved_shape(ref.shape, dim)
    if tuple(value.shape) != want:
        raise AclnnError(INVALID, name, f"{name} must have the shape of {ref_name} {shape_str(ref.shape)} with "
                                        f"{dim_name}={dim} halved, {shape_str(want)}, got {shape_str(value.shape)}")


def shape_halved_at(name, value, ref_name, ref, axis):
    """`ref` has `value`'s shape but along the fixed `axis`, where its size is exactly twice `value`'s."""
    if not (_concrete(value) and _concrete(ref)):
        return
    ok = value.ndim == ref.ndim and value.ndim > 0
    if ok:
        d = axis % value.ndim
        ok = all(value.shape[i] == ref.shape[i] for i in range(value.ndim) if i != d) \
            and 2 * value.shape[d] == ref.shape[d]
    if not ok:
        raise AclnnError(INVALID, name, f"{name} must have the shape of {ref_name} {shape_str(ref.shape)} with "
                                        f"axis {axis} halved (an even size there), got {shape_str(value.shape)}")


def _without_class(shape) -> tuple:
    """A class-index tensor's shape without its class axis (1; a 1-D tensor is one sample: ())."""
    shape = tuple(shape)
    return () if len(shape) <= 1 else shape[:1] + shape[2:]


def class_target(name, value, ref_name, ref):
    """`value` holds one class index per sample of `ref`: `ref`'s shape without its class axis (a 1-D `ref`, one
    sample: a target of one element, rank 0 or 1)."""
    if not (_concrete(value) and _concrete(ref)):
        return
    if ref.ndim <= 1 and value.ndim <= 1 and value.size == 1:
        return
    want = _without_class(ref.shape)
    if ref.ndim <= 1 or tuple(value.shape) != want:
        raise AclnnError(INVALID, name, f"{name} must hold one class index per sample of {ref_name} "
                                        f"{shape_str(ref.shape)}: shape {shape_str(want)}"
                                        + (" (or (1))" if ref.ndim <= 1 else "") + f", got {shape_str(value.shape)}")


def class_count(name, value, ref_name, ref):
    """`value` has as many elements as `ref` has classes (its size along dimension 1, or 0 at rank 1)."""
    if not (_concrete(value) and _concrete(ref)):
        return
    classes = ref.shape[1] if ref.ndim >= 2 else (ref.shape[0] if ref.ndim else 1)
    if value.size != classes:
        raise AclnnError(INVALID, name, f"{name} must have one element per class of {ref_name} "
                                        f"{shape_str(ref.shape)}, {classes}, got {value.size} in "
                                        f"{shape_str(value.shape)}")


def channels(ref, dim) -> int | None:
    """The channel count C of `ref` along `dim` (PerChannel), None when `ref` has no such dimension."""
    return ref.shape[dim] if ref.ndim > dim else None


def per_channel(name, value, ref_name, ref, dim):
    """`value` has 1 element, or as many as `ref` has along `dim` (the channels), in any shape."""
    if not (_concrete(value) and _concrete(ref)) or value.size == 1:
        return
    c = channels(ref, dim)
    if value.size != c:
        want = f"1 or {c}" if c is not None else f"1 ({ref_name} has no dimension {dim})"
        raise AclnnError(INVALID, name, f"{name} must have one element per channel of {ref_name} "
                                        f"{shape_str(ref.shape)} (dimension {dim}) or a single one: {want} elements, "
                                        f"got {value.size} in {shape_str(value.shape)}")


def channel_grad_shape(w, ref, dim) -> tuple:
    """The shape of the gradient of a per-channel `w` of `ref` (ChannelGrad): w's when it has one element, else
    [C]."""
    return tuple(w.shape) if w.size == 1 else (channels(ref, dim),)


def channel_grad(name, value, w_name, w, ref_name, ref, dim):
    """`value`, the gradient of the per-channel `w`, has shape [C] when `w` has C != 1 elements, else w's shape."""
    if not (_concrete(value) and _concrete(w) and _concrete(ref)):
        return
    want = channel_grad_shape(w, ref, dim)
    if tuple(value.shape) != want:
        why = f"{w_name}'s shape, as {w_name} has one element" if w.size == 1 else \
            f"[C], C = {ref_name}'s size along dimension {dim}"
        raise AclnnError(INVALID, name, f"{name} must have shape {shape_str(want)} ({why}), got "
                                        f"{shape_str(value.shape)}")


def not_empty(name, value):
    """`value` has at least one element."""
    if _concrete(value) and value.size == 0:
        raise AclnnError(INVALID, name, f"{name} must not be empty, got {shape_str(value.shape)}")


def per_row(name, value, ref_name, ref):
    """`value` has one element per row of `ref` (the product of its sizes but the last), in any shape."""
    if not (_concrete(value) and _concrete(ref)):
        return
    rows = int(np.prod(ref.shape[:-1], dtype=np.int64))
    if value.size != rows:
        raise AclnnError(INVALID, name, f"{name} must have one element per row of {ref_name} "
                                        f"{shape_str(ref.shape)}: {rows} elements, got {shape_str(value.shape)}")


def not_null_when(name, value, given_name, given):
    """`value` (an optional pointer) must not be null when `given` is not."""
    if value is None and given is not None:
        raise AclnnError(NULLPTR, name, f"{name} must not be null when {given_name} is given")


def present_with(name, value, given_name, given):
    """`value` (an optional tensor) must be given when `given` is."""
    if value is None and given is not None:
        raise AclnnError(INVALID, name, f"{name} must be given with {given_name}")


def one_element(name, value):
    """`value` has exactly one element, of any rank."""
    if _concrete(value) and value.size != 1:
        raise AclnnError(INVALID, name, f"{name} must have exactly one element, got {shape_str(value.shape)}")


def sample_shaped(name, value, ref_name, ref, none):
    """A loss gradient over `ref`'s samples: for reduction none (`none`) and a `ref` of rank 2 or more, `ref`'s
    shape without its class axis; otherwise one element of rank 0 or 1."""
    if not (_concrete(value) and _concrete(ref)):
        return
    if none and ref.ndim >= 2:
        want = _without_class(ref.shape)
        if tuple(value.shape) != want:
            raise AclnnError(INVALID, name, f"{name} must have one element per sample of {ref_name} "
                                            f"{shape_str(ref.shape)} for reduction none, {shape_str(want)}, got "
                                            f"{shape_str(value.shape)}")
    elif value.ndim > 1 or value.size != 1:
        raise AclnnError(INVALID, name, f"{name} must be one element of rank 0 or 1 (a reduced loss's gradient, or "
                                        f"a single sample's), got {shape_str(value.shape)}")


def one_of(name, value, values):
    if value not in values:
        raise AclnnError(INVALID, name, f"{name} must be one of {', '.join(map(str, values))}, got {value}")


def requires(name, ok: bool, condition: str, value):
    if not ok:
        raise AclnnError(INVALID, name, f"{name} must satisfy {condition}, got {value}")


def kernel_dtypes(op, *named, complex_ok=False):
    """The last check: every tensor has a dtype the kernels read or write (not a complex one that a cast rule let
    through, unless the op computes complex dtypes).  ACLNN_ERR_INNER_FIND_KERNEL_ERROR, no parameter, as the
    library's l0 layer."""
    for name, value in zip(named[0::2], named[1::2]):
        d = dtype_of(value) if not isinstance(value, Allocate) else DTYPES.get(value.dtype)
        if d is not None and ((d.is_complex and not complex_ok) or d.name not in COMPUTED):
            raise AclnnError(FIND_KERNEL, None, f"{op} has no kernel reading or writing {d.name}")


def any_empty(*named) -> bool:
    """Whether a given (non-null) tensor of `named` (name, value, name, value, ...) has no elements: EmptyReturns
    then ends phase 1 with success.  It may be the first check to read them (LogSoftmaxBackward's comes first):
    anything but an array is refused as the dtype checks refuse it, before an empty one ends the checks."""
    empty = False
    for name, value in zip(named[0::2], named[1::2]):
        _is_tensor(name, value)
        empty = empty or (isinstance(value, np.ndarray) and value.size == 0)
    return empty


def empty_shape(shape_of, *arrays) -> tuple:
    """The shape of an output allocated for a call that returned early on an empty tensor: the shape rules' when
    they apply, else the first empty tensor's (its inputs need not broadcast: the checks did not run)."""
    try:
        return tuple(shape_of())
    except (ValueError, TypeError, AttributeError):   # (a tensor the checks never read may be anything)
        return next(a.shape for a in arrays if isinstance(a, np.ndarray) and a.size == 0)


# The most dimensions an aclTensor has: the C runtime's OPGEN_MAX_DIMS (codegen/backends/c/emit.py writes it).
MAX_DIMS = 16


def describable(**tensors) -> None:
    """Each tensor argument (keyword: its aclnn name) as aclCreateTensor can describe it: at most MAX_DIMS
    dimensions.  A C program never reaches the op with such a tensor (aclCreateTensor refuses it with 161002 and
    returns NULL); the Python API gives that verdict with the tensor's name, before the op's own checks, on every
    backend, where the NumPy and Ascend C kernels could compute it and the C backend could not."""
    for name, a in tensors.items():
        if isinstance(a, np.ndarray) and a.ndim > MAX_DIMS:
            raise AclnnError(INVALID, name, f"{name} has rank {a.ndim}, more than the {MAX_DIMS} dimensions "
                                            f"aclCreateTensor describes")


def known_product(product):
    """A product is a SoC string of codegen.spec.products; anything else (None, a list, bytes) is refused alike."""
    if not isinstance(product, str) or product not in PRODUCTS:
        raise AclnnError(INVALID, None, f"unknown product {product!r} (known: {', '.join(PRODUCTS)})")


# ---- aclIntArray (codegen.spec.params.IntArray) ------------------------------------------------------------------
def int_array(name, value) -> tuple:
    """A `const aclIntArray *`: a list, tuple or 1-D integer ndarray of int64 values (not bools), as a tuple."""
    if isinstance(value, np.ndarray):
        if value.ndim != 1 or not np.issubdtype(value.dtype, np.integer):
            raise AclnnError(INVALID, name, f"{name} must be a 1-D array of integers, got {value.ndim}-D "
                                            f"{value.dtype}")
        value = value.tolist()
    if not isinstance(value, (list, tuple)):
        raise AclnnError(INVALID, name, f"{name} must be a sequence of int64 values, got {type(value).__name__}")
    for v in value:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise AclnnError(INVALID, name, f"{name} must hold int64 values, got {type(v).__name__}")
        if not -2**63 <= int(v) < 2**63:
            raise AclnnError(INVALID, name, f"{name} must hold int64 values, got {v}")
    return tuple(int(v) for v in value)


def array_length(name, value, ref_name, ref, dim):
    """The array has as many values as `ref` has elements along `dim` (which it must have)."""
    if not _concrete(ref) or value is None:
        return
    if ref.ndim <= dim:
        raise AclnnError(INVALID, name, f"{name}'s length must be {ref_name}'s size along dimension {dim}, but "
                                        f"{ref_name} {shape_str(ref.shape)} has no dimension {dim}")
    if len(value) != ref.shape[dim]:
        raise AclnnError(INVALID, name, f"{name} must have {ref.shape[dim]} values ({ref_name}'s size along "
                                        f"dimension {dim}), got {len(value)}")


def array_bound(ref, axis) -> int | None:
    """A bound `dim_size(ref, axis)`: ref's extent along axis (a rank-0 shape counts as (1,), an axis past the rank
    as 1, as codegen.spec.functions.count_value), None when ref is not given."""
    if not _concrete(ref):
        return None
    shape = ref.shape or (1,)
    return int(shape[axis]) if axis < len(shape) else 1


def array_in_range(name, value, low, high):
    """Every value lies in [low, high] (a None bound is not checked)."""
    if value is None:
        return
    for i, v in enumerate(value):
        if (low is not None and v < low) or (high is not None and v > high):
            lo = "-inf" if low is None else low
            hi = "inf" if high is None else high
            raise AclnnError(INVALID, name, f"{name}[{i}] = {v} is outside [{lo}, {hi}]")
