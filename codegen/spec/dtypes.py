"""Tensor data types as aclnn knows them (ascend.md §2: the aclDataType enum values, all of CANN's), with aclnn's
rules between them: type promotion of two inputs (`promote`, the deduction table of CANN's docs) and which dtype a
result may be cast to (`can_cast`, the conversion rules).

Every aclDataType a caller could pass is listed, so that a checker can name the dtype it refuses instead of
crashing on it, and the C header declares each of them.  `numpy` names the NumPy (or ml_dtypes) dtype of the same
bits, None where there is none (STRING, COMPLEX32, HIFLOAT8, FLOAT4_E1M2: C callers only).  An operator's table
may claim any dtype some backend computes (`COMPUTED`).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DType:
    name: str        # aclnn / doc spelling: "FLOAT", "FLOAT16", "BFLOAT16"
    acl: int         # aclDataType enum value (ACL_FLOAT = 0, ...)
    numpy: str | None  # NumPy / ml_dtypes dtype name (None: no NumPy dtype has these bits)
    bits: int        # storage width (0: not fixed, STRING)
    category: str    # "bool", "int", "float", "complex", or "other" (no promotion or cast but to itself)
    short: str = ""  # the name in CANN's deduction table (f32, s8, ...)

    @property
    def is_float(self) -> bool:
        """A real floating-point dtype (castable among each other, aclnn CanCast)."""
        return self.category == "float"

    @property
    def is_int(self) -> bool:
        return self.category == "int"

    @property
    def is_complex(self) -> bool:
        return self.category == "complex"

    @property
    def acl_name(self) -> str:
        """The C enumerator, e.g. ACL_FLOAT16 (BFLOAT16 is spelled ACL_BF16)."""
        return "ACL_BF16" if self.name == "BFLOAT16" else "ACL_" + self.name

    @property
    def size(self) -> int:
        """Bytes per element as the C runtime addresses them: a sub-byte dtype (INT4, UINT1, FLOAT4, FLOAT6) counts
        one byte (no operator supports one; the runtime only checks and names them)."""
        return max(1, self.bits // 8)

    def numpy_dtype(self):
        """The NumPy dtype object, or None.  Built from ml_dtypes' type where it has one: `np.dtype("int4")` would
        be NumPy's int32."""
        if self.numpy is None:
            return None
        import ml_dtypes
        import numpy as np
        return np.dtype(getattr(ml_dtypes, self.numpy, None) or self.numpy)


_ALL = [
    DType("FLOAT", 0, "float32", 32, "float", "f32"),
    DType("FLOAT16", 1, "float16", 16, "float", "f16"),
    DType("INT8", 2, "int8", 8, "int", "s8"),
    DType("INT32", 3, "int32", 32, "int", "s32"),
    DType("UINT8", 4, "uint8", 8, "int", "u8"),
    DType("INT16", 6, "int16", 16, "int", "s16"),
    DType("UINT16", 7, "uint16", 16, "int", "u16"),
    DType("UINT32", 8, "uint32", 32, "int", "u32"),
    DType("INT64", 9, "int64", 64, "int", "s64"),
    DType("UINT64", 10, "uint64", 64, "int", "u64"),
    DType("DOUBLE", 11, "float64", 64, "float", "f64"),
    DType("BOOL", 12, "bool", 8, "bool", "bool"),
    DType("STRING", 13, None, 0, "other"),
    DType("COMPLEX64", 16, "complex64", 64, "complex", "c64"),
    DType("COMPLEX128", 17, "complex128", 128, "complex", "c128"),
    DType("BFLOAT16", 27, "bfloat16", 16, "float", "bf16"),
    DType("INT4", 29, "int4", 4, "other"),
    DType("UINT1", 30, "uint1", 1, "other"),
    DType("COMPLEX32", 33, None, 32, "other"),
    DType("HIFLOAT8", 34, None, 8, "other"),
    DType("FLOAT8_E5M2", 35, "float8_e5m2", 8, "other"),
    DType("FLOAT8_E4M3FN", 36, "float8_e4m3fn", 8, "other"),
    DType("FLOAT8_E8M0", 37, "float8_e8m0fnu", 8, "other"),
    DType("FLOAT6_E3M2", 38, "float6_e3m2fn", 6, "other"),
    DType("FLOAT6_E2M3", 39, "float6_e2m3fn", 6, "other"),
    DType("FLOAT4_E2M1", 40, "float4_e2m1fn", 4, "other"),
    DType("FLOAT4_E1M2", 41, None, 4, "other"),
]

DTYPES: dict[str, DType] = {d.name: d for d in _ALL}
BY_ACL: dict[int, DType] = {d.acl: d for d in _ALL}
BY_NUMPY: dict[str, DType] = {d.numpy: d for d in _ALL if d.numpy is not None}

# The dtypes the FLOAT kernels of every backend read and write: loaded as FLOAT, computed in FLOAT, rounded once.
KERNEL_DTYPES = ("FLOAT", "FLOAT16", "BFLOAT16")
# What an operator's table may claim: the FLOAT family, DOUBLE and the integers (computed in DOUBLE and rounded
# back: codegen.spec.compute), and the complex dtypes (computed in complex double).
COMPUTED = KERNEL_DTYPES + ("DOUBLE", "INT8", "INT16", "INT32", "INT64", "UINT8", "BOOL", "COMPLEX64", "COMPLEX128")

# CANN's deduction table (docs/zh/context/deduction_relationship.md, 表1), the dtypes of this module's list: row
# and column in the order of _SHORT; "x" where two dtypes do not promote.
_SHORT = ["f32", "f16", "f64", "bf16", "s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64", "bool", "c64", "c128"]
_TABLE = """
f32  f32  f32  f64  f32  f32  f32  f32  x    f32  x    f32  x    f32  c64  c128
f16  f32  f16  f64  f32  f16  f16  f16  x    f16  x    f16  x    f16  c64  c128
f64  f64  f64  f64  f64  f64  f64  f64  x    f64  x    f64  x    f64  c128 c128
bf16 f32  f32  f64  bf16 bf16 bf16 bf16 x    bf16 x    bf16 x    bf16 c64  c128
s8   f32  f16  f64  bf16 s8   s16  s16  x    s32  x    s64  x    s8   c64  c128
u8   f32  f16  f64  bf16 s16  u8   s16  x    s32  x    s64  x    u8   c64  c128
s16  f32  f16  f64  bf16 s16  s16  s16  x    s32  x    s64  x    s16  c64  c128
u16  x    x    x    x    x    x    x    u16  x    x    x    x    x    x    x
s32  f32  f16  f64  bf16 s32  s32  s32  x    s32  x    s64  x    s32  c64  c128
u32  x    x    x    x    x    x    x    x    x    u32  x    x    x    x    x
s64  f32  f16  f64  bf16 s64  s64  s64  x    s64  x    s64  x    s64  c64  c128
u64  x    x    x    x    x    x    x    x    x    x    x    u64  x    x    x
bool f32  f16  f64  bf16 s8   u8   s16  x    s32  x    s64  x    bool c64  c128
c64  c64  c64  c128 c64  c64  c64  c64  x    c64  x    c64  x    c64  c64  c128
c128 c128 c128 c128 c128 c128 c128 c128 x    c128 x    c128 x    c128 c128 c128
"""
_BY_SHORT = {d.short: d.name for d in _ALL if d.short}
PROMOTE: dict[tuple[str, str], str | None] = {}
for _line in _TABLE.strip().splitlines():
    _row, *_cells = _line.split()
    for _col, _cell in zip(_SHORT, _cells):
        PROMOTE[_BY_SHORT[_row], _BY_SHORT[_col]] = None if _cell == "x" else _BY_SHORT[_cell]


def promote_types(names) -> str | None:
    """aclnn's PromoteType of the inputs' dtypes (the deduction table, pair by pair); None when they do not
    promote (UINT16 with anything else, ...)."""
    names = list(names)
    out = names[0]
    for n in names[1:]:
        out = PROMOTE.get((out, n))
        if out is None:
            return None
    return out


def can_cast(src: str, dst: str) -> bool:
    """aclnn's CanCast (docs/zh/context/conversion_relationship.md): integers cast to integers, floats and complex;
    floats to floats and complex; complex to complex; BOOL to anything but BOOL... and every dtype to itself."""
    a, b = DTYPES.get(src), DTYPES.get(dst)
    if a is None or b is None:
        return False
    if a.name == b.name:
        return True
    order = {"bool": 0, "int": 1, "float": 2, "complex": 3}
    return b.category in order and a.category in order and b.category != "bool" and \
        order[a.category] <= order[b.category]


def promote(names: list[str]) -> str:
    """The FLOAT kernels' promotion among the kernel float dtypes: equal types stay, any mix goes to FLOAT."""
    uniq = set(names)
    return names[0] if len(uniq) == 1 else "FLOAT"
