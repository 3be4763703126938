"""Tensor formats from Python: `with_format(array, "NCHW")` is a view of `array` (no copy) that carries an aclFormat
label, as `aclCreateTensor(..., ACL_FORMAT_NCHW, ...)` gives one in C; a plain array is ND.

Formats only matter to the checks (`FormatSame`): the kernels read elements through the view's shape and
strides, whatever the label.  The label survives NumPy views and slices of the array, as NumPy subclasses do.
"""
from __future__ import annotations

import numpy as np

from codegen.spec.formats import DEFAULT_FORMAT, FORMATS


class FormattedArray(np.ndarray):
    """An ndarray with an aclFormat label (`.acl_format`, a name of codegen.spec.formats.FORMATS)."""

    acl_format: str = DEFAULT_FORMAT

    def __array_finalize__(self, obj):
        self.acl_format = getattr(obj, "acl_format", DEFAULT_FORMAT)


def with_format(array, fmt: str) -> FormattedArray:
    """A view of `array` labelled with format `fmt` ("NCHW", "NC1HWC0", ...; any name of aclFormat)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    if not isinstance(array, np.ndarray):
        raise TypeError(f"with_format takes a NumPy array, got {type(array).__name__}")
    view = array.view(FormattedArray)
    view.acl_format = fmt
    return view


def format_of(value) -> str:
    """A tensor's format name: its label, ND for a plain array."""
    return getattr(value, "acl_format", DEFAULT_FORMAT)
