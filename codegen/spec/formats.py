"""Tensor formats as aclnn knows them (CANN's aclFormat enum, all of it).

A format is a label on a tensor (`aclCreateTensor(..., format, ...)`): the view's shape and strides say where
every element is, whatever the label.  Operators that check formats compare the labels (FormatSame) or refuse
the private ones (FormatNotPrivate); the kernels never read them.  From Python a tensor carries a format through
`codegen.with_format(array, "NCHW")`; a plain array is ND.
"""
from __future__ import annotations

FORMATS: dict[str, int] = {
    "UNDEFINED": -1, "NCHW": 0, "NHWC": 1, "ND": 2, "NC1HWC0": 3, "FRACTAL_Z": 4, "NC1HWC0_C04": 12, "HWCN": 16,
    "NDHWC": 27, "FRACTAL_NZ": 29, "NCDHW": 30, "NDC1HWC0": 32, "FRACTAL_Z_3D": 33, "NC": 35, "NCL": 47,
    "FRACTAL_NZ_C0_16": 50, "FRACTAL_NZ_C0_32": 51, "FRACTAL_NZ_C0_2": 52, "FRACTAL_NZ_C0_4": 53,
    "FRACTAL_NZ_C0_8": 54,
}
BY_VALUE: dict[int, str] = {v: k for k, v in FORMATS.items()}
DEFAULT_FORMAT = "ND"

# The formats CANN's op::IsPrivateFormat calls private (opbase, src/nnopbase/common/utils/format_utils.cpp): the
# fractal and C0-blocked layouts of the NPU's cube units.  Every other value of aclFormat is public.
PRIVATE_FORMATS: tuple[str, ...] = (
    "NC1HWC0", "FRACTAL_Z", "NDC1HWC0", "FRACTAL_Z_3D", "FRACTAL_NZ", "NC1HWC0_C04", "FRACTAL_NZ_C0_16",
    "FRACTAL_NZ_C0_32", "FRACTAL_NZ_C0_2", "FRACTAL_NZ_C0_4", "FRACTAL_NZ_C0_8",
)


def acl_name(fmt: str) -> str:
    """The C enumerator: ACL_FORMAT_NCHW, ... (CANN spells FRACTAL_Z_3D without FORMAT_: ACL_FRACTAL_Z_3D)."""
    return "ACL_FRACTAL_Z_3D" if fmt == "FRACTAL_Z_3D" else "ACL_FORMAT_" + fmt
