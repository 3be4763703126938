"""Tensor data types as aclnn knows them (ascend.md §2: the aclDataType enum values).

Only FLOAT, FLOAT16 and BFLOAT16 are ever *supported* by an operator here, but every aclDataType a caller could
pass is listed, so that a checker can name the dtype it refuses instead of crashing on it.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DType:
    name: str        # aclnn / doc spelling: "FLOAT", "FLOAT16", "BFLOAT16"
    acl: int         # aclDataType enum value (ACL_FLOAT = 0, ...)
    numpy: str       # NumPy / ml_dtypes dtype name
    bits: int        # storage width
    is_float: bool   # floating point (castable among each other, aclnn CanCast)

    @property
    def acl_name(self) -> str:
        """The C enumerator, e.g. ACL_FLOAT16 (BFLOAT16 is spelled ACL_BF16)."""
        return "ACL_BF16" if self.name == "BFLOAT16" else "ACL_" + self.name


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
    DType("BFLOAT16", 27, "bfloat16", 16, True),
]

DTYPES: dict[str, DType] = {d.name: d for d in _ALL}
BY_ACL: dict[int, DType] = {d.acl: d for d in _ALL}
BY_NUMPY: dict[str, DType] = {d.numpy: d for d in _ALL}

# The dtypes an operator may claim in its table; compute happens in FLOAT (ascend.md §5).
KERNEL_DTYPES = ("FLOAT", "FLOAT16", "BFLOAT16")


def promote(names: list[str]) -> str:
    """aclnn's promotion among the kernel float dtypes: equal types stay, any mix goes to FLOAT."""
    uniq = set(names)
    return names[0] if len(uniq) == 1 else "FLOAT"
