"""The op_api unit-test cases of CANN's operator library (`hicann/ops-nn`, `<op folder>/tests/ut/op_api/
test_aclnn_*.cpp`), re-expressed as data: one module per operator, named after the op's snake_case name
(`softshrink_backward.py`), binding

    OP = "aclnnSoftshrinkBackward"          # the aclnn name
    SOURCE = "activation/soft_shrink_grad/tests/ut/op_api/test_aclnn_softshrink_backward.cpp"
    COMMIT = "e5c3fa9327ea95ba26d06227e746923580d10921"
    CASES = [case("grad_nullptr", gradOutput=NULL, self=T([2, 3], "FLOAT"), **{"lambda": S(0.0)},
                  gradInput=T([2, 3], "FLOAT"), expect="ACLNN_ERR_PARAM_NULLPTR"), ...]

Every argument of the aclnn call is given by its name in CANN's header (`op_api/aclnn_*.h`), in any order; the
runner (`tests/test_op_api_cases.py`) maps them to the generated API.  These are facts read from CANN's tests
(shapes, dtypes, formats, scalar values, expected status), written in our own words: no CANN code is copied.
"""
from __future__ import annotations

from dataclasses import dataclass, field

# The SoC every case runs on unless it names one: CANN's op_api test harness stubs the platform
# (tests/ut/op_api/stub/opdev/platform.cpp: g_socVersion = ASCEND910B, g_npuArch = DAV_2201, i.e. Atlas A2), and a
# test changes it only through op::SocVersionManager / NpuArchManager or by setting those globals itself.
HARNESS_PRODUCT = "ascend910b"

STATUS = {
    "ACLNN_SUCCESS": 0,
    "ACLNN_ERR_PARAM_NULLPTR": 161001,
    "ACLNN_ERR_PARAM_INVALID": 161002,
    "ACLNN_ERR_RUNTIME_ERROR": 361001,
    "ACLNN_ERR_INNER": 561000,
    "ACLNN_ERR_INNER_FIND_KERNEL_ERROR": 561003,
    "ACLNN_ERR_INNER_NULLPTR": 561103,
}


@dataclass(frozen=True)
class T:
    """A tensor description: shape, ACL dtype name without the prefix ("FLOAT", "FLOAT16", "BF16", "INT32",
    "COMPLEX64", "BOOL", "INT64", ...), ACL format name without the prefix ("ND", "NCHW", "NHWC", "NCDHW", ...),
    optional strides in elements (None: contiguous), optional value range or explicit values (row-major),
    optional storage offset and storage shape in elements (a view into a larger or permuted buffer; None: the
    view's own shape)."""
    shape: tuple
    dtype: str = "FLOAT"
    format: str = "ND"
    strides: tuple | None = None
    value_range: tuple | None = None
    values: tuple | None = None
    offset: int = 0
    storage_shape: tuple | None = None

    def __post_init__(self):
        object.__setattr__(self, "shape", tuple(self.shape))
        if self.strides is not None:
            object.__setattr__(self, "strides", tuple(self.strides))
        if self.storage_shape is not None:
            object.__setattr__(self, "storage_shape", tuple(self.storage_shape))


@dataclass(frozen=True)
class S:
    """An aclScalar: its value and ACL dtype name."""
    value: float | int | bool
    dtype: str = "FLOAT"


@dataclass(frozen=True)
class IntArray:
    """An aclIntArray."""
    values: tuple


class _Null:
    def __repr__(self):
        return "NULL"


NULL = _Null()   # a null pointer argument (tensor, scalar, array, or char*)


@dataclass(frozen=True)
class Case:
    name: str                 # the TEST_F name in CANN's file
    args: dict                # {CANN parameter name: T | S | IntArray | NULL | int | float | bool | str}
    expect: str               # "ACLNN_SUCCESS" or an error status name
    product: str | None = None   # SoC string when the case sets one ("ascend910b", ...); None: the file's default
    note: str = ""            # what the case checks, when its name does not say it

    @property
    def status(self) -> int:
        return STATUS[self.expect]


def case(name, *, expect, product=None, note="", **args) -> Case:
    if expect not in STATUS:
        raise ValueError(f"case {name}: unknown status {expect!r}")
    return Case(name, dict(args), expect, product, note)
