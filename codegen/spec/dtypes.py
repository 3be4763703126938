"""Tensor data types as aclnn knows them (ascend.md §2: the aclDataType enum values, all of CANN's).

Only FLOAT, FLOAT16 and BFLOAT16 are ever *supported* by an operator here, but every aclDataType a caller could
pass is listed, so that a checker can name the dtype it refuses instead of crashing on it, and the C header
declares each of them.  `numpy` names the NumPy (or ml_dtypes) dtype of the same bits, None where there is none
(STRING, COMPLEX32, HIFLOAT8, FLOAT4_E1M2: C callers only).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DType:
    name: str        # aclnn / doc spelling: "FLOAT", "FLOAT16", "BFLOAT16"
    acl: int         # aclDataType enum value (ACL_FLOAT = 0, ...)
    numpy: str | None  # NumPy / ml_dtypes dtype name (None: no NumPy dtype has these bits)
    bits: int        # storage width (0: not fixed, STRING)
    is_float: bool   # real floating point the kernels can cast among (aclnn CanCast between float types)

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
    DType("FLOAT", 0, "float32", 32, True),
    DType("FLOAT16", 1, "float16", 16, True),
    DType("INT8", 2, "int8", 8, False),
    DType("INT32", 3, "int32", 32, False),
    DType("UINT8", 4, "uint8", 8, False),
    DType("INT16", 6, "int16", 16, False),
    DType("UINT16", 7, "uint16", 16, False),
    DType("UINT32", 8, "uint32", 32, False),
    DType("INT64", 9, "int64", 64, False),
    DType("UINT64", 10, "uint64", 64, False),
    DType("DOUBLE", 11, "float64", 64, True),
    DType("BOOL", 12, "bool", 8, False),
    DType("STRING", 13, None, 0, False),
    DType("COMPLEX64", 16, "complex64", 64, False),
    DType("COMPLEX128", 17, "complex128", 128, False),
    DType("BFLOAT16", 27, "bfloat16", 16, True),
    DType("INT4", 29, "int4", 4, False),
    DType("UINT1", 30, "uint1", 1, False),
    DType("COMPLEX32", 33, None, 32, False),
    DType("HIFLOAT8", 34, None, 8, False),
    DType("FLOAT8_E5M2", 35, "float8_e5m2", 8, False),
    DType("FLOAT8_E4M3FN", 36, "float8_e4m3fn", 8, False),
    DType("FLOAT8_E8M0", 37, "float8_e8m0fnu", 8, False),
    DType("FLOAT6_E3M2", 38, "float6_e3m2fn", 6, False),
    DType("FLOAT6_E2M3", 39, "float6_e2m3fn", 6, False),
    DType("FLOAT4_E2M1", 40, "float4_e2m1fn", 4, False),
    DType("FLOAT4_E1M2", 41, None, 4, False),
]

DTYPES: dict[str, DType] = {d.name: d for d in _ALL}
BY_ACL: dict[int, DType] = {d.acl: d for d in _ALL}
BY_NUMPY: dict[str, DType] = {d.numpy: d for d in _ALL if d.numpy is not None}

# The dtypes an operator may claim in its table; compute happens in FLOAT (ascend.md §5).
KERNEL_DTYPES = ("FLOAT", "FLOAT16", "BFLOAT16")


def promote(names: list[str]) -> str:
    """aclnn's promotion among the kernel float dtypes: equal types stay, any mix goes to FLOAT."""
    uniq = set(names)
    return names[0] if len(uniq) == 1 else "FLOAT"
