"""`codegen.kernel(op, backend="c")`: the generated C library, called through ctypes behind the NumPy API.

A call does what a C program does with aclnn:
  1. the keywords are read like the NumPy function's (`KernelCall`); without `out=`, the Python checker runs
     first to size the output, exactly as the NumPy backend does, and the output is allocated;
  2. every argument becomes an aclTensor / aclScalar: tensors are views of the caller's arrays (strides in
     elements, any offset, negative strides), nothing is copied, and the kernel writes straight into `out` —
     but for arrays C cannot address (strides that are not whole elements, the other byte order), which go as
     native copies, an `out=` among them computed aside and copied back;
  3. phase 1 runs the generated C checker: a failure is `AclnnError(status, param, message)` with the
     runtime's own status, parameter and text;
  4. phase 2 runs with a NumPy workspace of the size phase 1 asked for.

An argument no C call could carry — a list for a tensor, a complex array, a bool for an aclScalar, an int
beyond int64 — is refused by the Python checker, which reports it in check order with the same status,
parameter and message as the NumPy backend.
"""
from __future__ import annotations

import ctypes
import functools
import os
import threading
from contextlib import contextmanager
from ctypes import POINTER, byref, c_bool, c_char_p, c_double, c_int, c_int32, c_int64, c_uint64, c_void_p

import ml_dtypes  # noqa: F401  (registers bfloat16 with NumPy)
import numpy as np

from codegen.errors import AclnnError
from codegen.spec import Op
from codegen.spec.dtypes import DTYPES
from codegen.spec.params import Attr, Output, Scalar, Tensor

from . import build
from .emit import MAX_DIMS

ACL_FORMAT_ND = 2
ACL_DOUBLE = DTYPES["DOUBLE"].acl
ACL_OF_NUMPY = {np.dtype(d.numpy): d.acl for d in DTYPES.values()}   # dtype objects: faster than .name


@functools.lru_cache(maxsize=1024)
def _layout(shape: tuple, byte_strides: tuple, item: int):
    """(descriptor, lo, offset) of an array's view for aclCreateTensor, or None when a stride is not a whole
    number of elements.  The descriptor holds dims, element strides and the one storage dim; the data pointer
    passed is the array's plus `lo` elements (its lowest element: negative strides reach below the first one),
    and `offset` is the first element's distance from there.  Cached by layout (aclCreateTensor copies the
    arrays): working it out in Python took ~10 of the ~16 us a tensor cost per call (the C calls ~3 us);
    with the cache a four-tensor call costs 34-47 us instead of 69-70 (interleaved runs, 1024 elements)."""
    strides = [s // item for s in byte_strides]
    if any(s * item != b for s, b in zip(strides, byte_strides)):
        return None
    n = len(shape)
    if 0 in shape:
        lo, storage = 0, 0
    else:
        lo = sum((d - 1) * s for d, s in zip(shape, strides) if s < 0)
        hi = sum((d - 1) * s for d, s in zip(shape, strides) if s > 0)
        storage = hi - lo + 1
    return (c_int64 * (2 * n + 1))(*shape, *strides, storage), lo, -lo


class Unmarshallable(Exception):
    """An argument a C call cannot carry; the Python checker reports it."""


class Library:
    """One op's loaded library with its C prototypes declared."""

    def __init__(self, op: Op, path):
        self.op = op
        self.path = path
        dll = self.dll = ctypes.CDLL(str(path))
        dll.aclCreateTensor.restype = c_void_p
        dll.aclCreateTensor.argtypes = [c_void_p, c_uint64, c_int, c_void_p, c_int64, c_int, c_void_p, c_uint64,
                                        c_void_p]
        dll.aclDestroyTensor.argtypes = [c_void_p]
        dll.aclCreateScalar.restype = c_void_p
        dll.aclCreateScalar.argtypes = [c_void_p, c_int]
        dll.aclDestroyScalar.argtypes = [c_void_p]
        dll.aclGetRecentErrMsg.restype = c_char_p
        dll.opgenGetRecentErrParam.restype = c_char_p
        dll.opgenSetSocName.restype = c_int32
        dll.opgenSetSocName.argtypes = [c_char_p]
        dll.aclDestroyAclOpExecutor.restype = c_int32
        dll.aclDestroyAclOpExecutor.argtypes = [c_void_p]
        dll.aclSetAclOpExecutorRepeatable.restype = c_int32
        dll.aclSetAclOpExecutorRepeatable.argtypes = [c_void_p]
        self.phase1 = getattr(dll, f"{op.name}GetWorkspaceSize")
        self.phase1.restype = c_int32
        types = []
        for p in op.params:
            if isinstance(p, Attr):
                types.append(c_bool if p.type == "bool" else c_int64)
            else:
                types.append(c_void_p)
        self.phase1.argtypes = types + [POINTER(c_uint64), POINTER(c_void_p)]
        self.phase2 = getattr(dll, op.name)
        self.phase2.restype = c_int32
        self.phase2.argtypes = [c_void_p, c_uint64, c_void_p, c_void_p]
        self.lock = threading.Lock()   # the product is process state: set it and run phase 1 together

    def error(self, status: int) -> AclnnError:
        param = self.dll.opgenGetRecentErrParam().decode()
        return AclnnError(status, param or None, self.dll.aclGetRecentErrMsg().decode())

    # ---- marshalling -------------------------------------------------------------------------------------
    def tensor(self, a, keep: list):
        """An aclTensor viewing array `a` (None for None); `keep` holds what must outlive the call."""
        if a is None:
            return None
        if isinstance(a, np.ndarray) and not a.dtype.isnative:   # big-endian on x86: hand C a native copy
            a = a.astype(a.dtype.newbyteorder("="))
        acl = ACL_OF_NUMPY.get(a.dtype) if isinstance(a, np.ndarray) else None
        if acl is None or a.ndim > MAX_DIMS:
            raise Unmarshallable
        layout = _layout(a.shape, a.strides, a.itemsize)
        if layout is None:                     # byte-strided: hand C an aligned copy
            a = np.ascontiguousarray(a)
            layout = _layout(a.shape, a.strides, a.itemsize)
        desc, lo, offset = layout
        keep += (a, desc)                      # (the cache may drop desc while C reads it)
        t = self.dll.aclCreateTensor(desc, a.ndim, acl, byref(desc, 8 * a.ndim), offset, ACL_FORMAT_ND,
                                     byref(desc, 16 * a.ndim), 1, a.ctypes.data + lo * a.itemsize)
        if not t:
            raise RuntimeError(f"aclCreateTensor refused an array of shape {a.shape}: "
                               f"{self.dll.aclGetRecentErrMsg().decode()}")
        return t

    def scalar(self, v):
        if v is None:
            return None
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise Unmarshallable
        try:
            value = c_double(float(v))
        except OverflowError as e:
            raise Unmarshallable from e
        s = self.dll.aclCreateScalar(byref(value), ACL_DOUBLE)
        if not s:
            raise RuntimeError(self.dll.aclGetRecentErrMsg().decode())
        return s

    @staticmethod
    def attr(p: Attr, v):
        if p.type == "bool":
            if not isinstance(v, (bool, np.bool_)):
                raise Unmarshallable
            return bool(v)
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or not -2**63 <= int(v) < 2**63:
            raise Unmarshallable
        return int(v)

    # ---- the two phases --------------------------------------------------------------------------------
    def run_phase1(self, args: dict, out, product: str, keep: list, created: list):
        """Phase 1 on the arguments; returns (workspace bytes, executor) or raises AclnnError/Unmarshallable.
        `created` collects the tensors and scalars to destroy."""
        cargs = []
        for p in self.op.params:
            v = out if isinstance(p, Output) else args[p.py_name]
            if isinstance(p, (Tensor, Output)):
                h = self.tensor(v, keep)
                created.append((self.dll.aclDestroyTensor, h))
                cargs.append(h)
            elif isinstance(p, Scalar):
                h = self.scalar(v)
                created.append((self.dll.aclDestroyScalar, h))
                cargs.append(h)
            else:
                cargs.append(self.attr(p, v))
        ws, ex = c_uint64(0), c_void_p()
        with self.lock:
            status = self.dll.opgenSetSocName(product.encode())
            if status != 0:
                raise self.error(status)
            status = self.phase1(*cargs, byref(ws), byref(ex))
            if status != 0:
                raise self.error(status)
        return ws.value, ex

    def release(self, created: list):
        for destroy, h in created:
            if h:
                destroy(h)

    def check(self, args: dict, out, product: str) -> None:
        """Phase 1 alone (the checker): raises AclnnError, or Unmarshallable for arguments C cannot carry."""
        keep, created = [], []
        try:
            _, ex = self.run_phase1(args, out, product, keep, created)
            self.dll.aclDestroyAclOpExecutor(ex)
        finally:
            self.release(created)

    def phase2_runner(self, ws: int, ex):
        """run(): phase 2 of executor `ex` on a workspace of `ws` bytes allocated here, which the closure keeps
        alive (it reads the array, not just its address); raises AclnnError on a failed status."""
        workspace = np.empty(ws, dtype=np.uint8) if ws else None

        def run():
            status = self.phase2(workspace.ctypes.data if ws else None, ws, ex, None)
            if status != 0:
                raise self.error(status)
        return run

    def call(self, args: dict, out: np.ndarray, product: str) -> None:
        """Both phases, writing into `out`."""
        keep, created = [], []
        try:
            ws, ex = self.run_phase1(args, out, product, keep, created)
            self.phase2_runner(ws, ex)()
        finally:
            self.release(created)

    @contextmanager
    def prepared(self, args: dict, out: np.ndarray, product: str):
        """Phase 1 once, on a repeatable executor (aclSetAclOpExecutorRepeatable); yields `run()`, which runs
        phase 2 again each time it is called (`opgen bench` times the kernel alone with it).  The executor, the
        tensors and the workspace are released on exit."""
        keep, created = [], []
        try:
            ws, ex = self.run_phase1(args, out, product, keep, created)
            created.insert(0, (self.dll.aclDestroyAclOpExecutor, ex))      # before the tensors it refers to
            status = self.dll.aclSetAclOpExecutorRepeatable(ex)
            if status != 0:
                raise self.error(status)
            yield self.phase2_runner(ws, ex)
        finally:
            self.release(created)


_LIBRARIES: dict = {}


def library(op: Op, sanitize: bool = False) -> Library:
    """The op's library, built and loaded once per content."""
    path = build.library(op, sanitize)
    if path not in _LIBRARIES:
        _LIBRARIES[path] = Library(op, path)
    return _LIBRARIES[path]


def make_kernel(op: Op, sanitize: bool | None = None, path=None):
    """The callable; `sanitize` (default: $OPGEN_C_SANITIZE == "1") uses the ASan/UBSan build of the library,
    which needs the ASan runtime preloaded into Python (tests/test_c_api.py does that); `path`, a library built
    elsewhere with the same C API (`opgen bench --baseline`: another revision's)."""
    from codegen.backends.numpy import load_module
    from codegen.runtime.calls import KernelCall
    from codegen.runtime.checks import writeable_out
    checker = load_module(op).check
    if sanitize is None:
        sanitize = os.environ.get("OPGEN_C_SANITIZE") == "1"
    lib = Library(op, path) if path is not None else library(op, sanitize)
    name = op.snake_name               # (once: a regex, which would cost a tenth of a small call)

    def kernel(**kw):
        call = KernelCall(op, kw)
        if call.out is None:
            call.check(checker)            # sizes and allocates the output, as the NumPy backend
        out = call.out
        writeable_out(name, out)
        target = out
        if isinstance(out, np.ndarray) and (any(s % out.itemsize for s in out.strides) or not out.dtype.isnative):
            # C cannot address a byte-strided view, nor write another byte order: compute aside, copy back
            target = np.empty(out.shape, out.dtype.newbyteorder("="))
        try:
            lib.call(call.args, target, call.product)
        except Unmarshallable:
            checker(*[call.args[n] for n in call.names], out, call.product)   # raises the right AclnnError
            raise TypeError(f"{name}: an argument cannot be passed to C") from None
        if target is not out:
            np.copyto(out, target)
        return out

    kernel.__name__ = name
    kernel.__doc__ = f"{op.name} computed by the generated C library (see codegen.backends.c.binding)."
    kernel.library = lib               # (`opgen bench` times the kernel alone through it: Library.prepared)
    return kernel
