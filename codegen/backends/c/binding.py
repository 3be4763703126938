"""`codegen.kernel(op, backend="c")`: the generated C library behind the NumPy API.

The callable is the library's own (python/opgen_pycall.c's Kernel type: the library is also a CPython extension
module, pyext.py), whose call hands its keywords to the compiled entry point.  That runs the common calls — every
tensor a plain native-order NumPy array, Python floats, ints and bools for scalars and attributes, `out=` given
or not (then it allocates the outputs from the shape rules) — entirely in C; it declines, before creating or
checking anything, whatever else (and a call without `out=` its phase 1 refuses), and the call then goes the
Python path below, through ctypes (a call without `out=` is given to the entry point again once the Python
checker has allocated its output).  Both paths run the same C phase 1, so their verdicts are the C checker's.

Through ctypes, a call does what a C program does with aclnn:
  1. the keywords are read like the NumPy function's (`KernelCall`); without `out=`, the Python checker runs
     first to size the output, exactly as the NumPy backend does, and the output is allocated;
  2. every argument becomes an aclTensor / aclScalar: tensors are views of the caller's arrays (strides in
     elements, any offset, negative strides), nothing is copied, and the kernel writes straight into `out` —
     but for arrays C cannot address (strides that are not whole elements, the other byte order), which go as
     native copies, an `out=` among them computed aside and copied back.  They are all created in one foreign
     call (the runtime's opgenCreateArgs, from one buffer of words) and destroyed in another: a call through
     ctypes costs about a microsecond, and one per argument and per destruction made up a third of a small call;
  3. phase 1 runs the generated C checker: a failure is `AclnnError(status, param, message)` with the
     runtime's own status, parameter and text;
  4. phase 2 runs with a NumPy workspace of the size phase 1 asked for.

An argument no C call could carry — a list for a tensor, a complex array, a bool for an aclScalar, an int
beyond int64 — is refused by the Python checker, which reports it in check order with the same status,
parameter and message as the NumPy backend.
"""
from __future__ import annotations

import array
import ctypes
import functools
import importlib.machinery
import importlib.util
import os
import struct
import threading
from contextlib import contextmanager
from ctypes import POINTER, byref, c_bool, c_char_p, c_double, c_float, c_int32, c_int64, c_uint64, c_void_p

import ml_dtypes  # noqa: F401  (registers bfloat16 with NumPy)
import numpy as np

from codegen.errors import AclnnError
from codegen.spec import PRODUCTS, Op
from codegen.spec.dtypes import DTYPES
from codegen.spec.params import Attr, IntArray, Output, Scalar, Tensor

from . import build, pyext
from codegen.runtime.formats import format_of
from codegen.spec.formats import FORMATS

from .emit import ARG_KINDS, MAX_DIMS

ACL_DOUBLE = DTYPES["DOUBLE"].acl
ARG_NULL, ARG_TENSOR, ARG_SCALAR, ARG_TENSOR_FORMAT = (ARG_KINDS[f"OPGEN_ARG_{k}"] for k in
                                                       ("NULL", "TENSOR", "SCALAR", "TENSOR_FORMAT"))
ND = FORMATS["ND"]
_DOUBLE, _INT64 = struct.Struct("=d"), struct.Struct("=q")
_TENSOR, _OUT, _SCALAR, _ATTR, _ARRAY = "tensor", "out", "scalar", "attr", "int_array"
ACL_OF_NUMPY = {d.numpy_dtype(): d.acl for d in DTYPES.values() if d.numpy}   # dtype objects: faster than .name


@functools.lru_cache(maxsize=1024)
def _record(shape: tuple, byte_strides: tuple, item: int, acl: int):
    """(words, lo) of an array's OPGEN_ARG_TENSOR record for opgenCreateArgs (aclnn_base.h), all but the data
    address, or None when a stride is not a whole number of elements.  The address is the array's plus `lo`
    bytes (its lowest element: negative strides reach below the first one), and the record's offset is the
    first element's distance from there.  Cached by layout: working it out took most of a tensor's cost per call.

    The stride of a dimension of size 1, and every stride of an empty array, addresses nothing: it is written as
    0, whatever its bytes (NumPy calls such an array contiguous even when those strides are not whole elements,
    so no aligned copy would fix them)."""
    if 0 in shape:
        byte_strides = (0,) * len(shape)
    else:
        byte_strides = tuple(0 if d == 1 else b for d, b in zip(shape, byte_strides))
    strides = [s // item for s in byte_strides]
    if any(s * item != b for s, b in zip(strides, byte_strides)):
        return None
    if 0 in shape:
        lo, storage = 0, 0
    else:
        lo = sum((d - 1) * s for d, s in zip(shape, strides) if s < 0)
        hi = sum((d - 1) * s for d, s in zip(shape, strides) if s > 0)
        storage = hi - lo + 1
    return (ARG_TENSOR, acl, len(shape), -lo, *shape, *strides, storage), lo * item


def _record_words(words, at: int) -> int:
    """The length of the record at words[at]: 6 + 2 * ndim words for a tensor (one more with a format), 2 for a
    scalar, 1 for a null."""
    kind = words[at]
    if kind in (ARG_TENSOR, ARG_TENSOR_FORMAT):
        return 6 + 2 * words[at + 2] + (kind == ARG_TENSOR_FORMAT)
    return 2 if kind == ARG_SCALAR else 1


def _double_bits(x: float) -> int:
    """The 8 bytes of a double as the int64 word of an OPGEN_ARG_SCALAR record."""
    return _INT64.unpack(_DOUBLE.pack(x))[0]


class Unmarshallable(Exception):
    """An argument a C call cannot carry; the Python checker reports it."""


class _Args:
    """Creates a call's tensors and scalars from their records in one foreign call (opgenCreateArgs), and
    destroys them in another."""

    def __init__(self, dll):
        self.c_create, self.c_destroy = dll.opgenCreateArgs, dll.opgenDestroyArgs
        self.c_create.restype, self.c_destroy.restype = c_int32, None
        self.c_create.argtypes = self.c_destroy.argtypes = [c_void_p, c_uint64, c_void_p]

    def create(self, words: array.array, handles) -> int:
        return self.c_create(words.buffer_info()[0], len(handles), handles)

    def destroy(self, words: array.array, handles) -> None:
        self.c_destroy(words.buffer_info()[0], len(handles), handles)


class _ArgsOneByOne:
    """The same for a library built before opgenCreateArgs existed (`opgen bench --baseline` of an older
    revision, whose kernels are timed through today's binding): one aclCreateTensor / aclCreateScalar call per
    record."""

    def __init__(self, dll):
        self.dll = dll
        dll.aclCreateTensor.restype = c_void_p
        dll.aclCreateTensor.argtypes = [c_void_p, c_uint64, c_int32, c_void_p, c_int64, c_int32, c_void_p, c_uint64,
                                        c_void_p]
        dll.aclCreateScalar.restype = c_void_p
        dll.aclCreateScalar.argtypes = [c_void_p, c_int32]
        dll.aclDestroyTensor.argtypes = dll.aclDestroyScalar.argtypes = [c_void_p]
        dll.opgenGetRecentErrStatus.restype = c_int32

    def create(self, words: array.array, handles) -> int:
        at = 0
        for i in range(len(handles)):
            kind = words[at]
            if kind in (ARG_TENSOR, ARG_TENSOR_FORMAT):
                n = words[at + 2]
                desc = (c_int64 * (2 * n + 1))(*words[at + 4:at + 5 + 2 * n])   # dims, strides, storage
                fmt = words[at + 6 + 2 * n] if kind == ARG_TENSOR_FORMAT else ND
                handles[i] = self.dll.aclCreateTensor(desc, n, words[at + 1], byref(desc, 8 * n), words[at + 3], fmt,
                                                      byref(desc, 16 * n), 1, words[at + 5 + 2 * n])
            elif kind == ARG_SCALAR:
                value = ctypes.c_double(_DOUBLE.unpack(_INT64.pack(words[at + 1]))[0])
                handles[i] = self.dll.aclCreateScalar(byref(value), ACL_DOUBLE)
            at += _record_words(words, at)
            if kind != ARG_NULL and not handles[i]:
                self.destroy(words, handles)
                return self.dll.opgenGetRecentErrStatus()
        return 0

    def destroy(self, words: array.array, handles) -> None:
        at = 0
        for i in range(len(handles)):
            kind = words[at]
            if handles[i]:
                (self.dll.aclDestroyScalar if kind == ARG_SCALAR else self.dll.aclDestroyTensor)(handles[i])
                handles[i] = None
            at += _record_words(words, at)


class Library:
    """One op's loaded library with its C prototypes declared."""

    def __init__(self, op: Op, path):
        self.op = op
        self.path = path
        dll = self.dll = ctypes.CDLL(str(path))
        self.args = _Args(dll) if hasattr(dll, "opgenCreateArgs") else _ArgsOneByOne(dll)
        dll.aclGetRecentErrMsg.restype = c_char_p
        dll.opgenGetRecentErrParam.restype = c_char_p
        dll.opgenSetSocName.restype = c_int32
        dll.opgenSetSocName.argtypes = [c_char_p]
        dll.aclDestroyAclOpExecutor.restype = c_int32
        dll.aclDestroyAclOpExecutor.argtypes = [c_void_p]
        dll.aclSetAclOpExecutorRepeatable.restype = c_int32
        dll.aclSetAclOpExecutorRepeatable.argtypes = [c_void_p]
        self.phase1_fn = getattr(dll, f"{op.name}GetWorkspaceSize")
        self.phase1_fn.restype = c_int32
        types = []
        for p in op.params:
            if isinstance(p, Attr):
                types.append({"bool": c_bool, "int64": c_int64, "double": c_double, "float": c_float,
                              "string": c_char_p}[p.type])
            else:
                types.append(c_void_p)
        self.phase1_fn.argtypes = types + [POINTER(c_uint64), POINTER(c_void_p)]
        # each parameter's kind, worked out once (a call is short: isinstance per parameter showed in its cost)
        self.plan = [(_OUT if isinstance(p, Output) else _TENSOR if isinstance(p, Tensor) else
                      _SCALAR if isinstance(p, Scalar) else _ARRAY if isinstance(p, IntArray) else _ATTR, p)
                     for p in op.params]
        self.handle_at = [i for i, (kind, _) in enumerate(self.plan) if kind not in (_ATTR, _ARRAY)]
        if op.int_arrays:
            dll.aclCreateIntArray.restype = c_void_p
            dll.aclCreateIntArray.argtypes = [POINTER(c_int64), c_uint64]
            dll.aclDestroyIntArray.restype = c_int32
            dll.aclDestroyIntArray.argtypes = [c_void_p]
        self.phase2 = getattr(dll, op.name)
        self.phase2.restype = c_int32
        self.phase2.argtypes = [c_void_p, c_uint64, c_void_p, c_void_p]
        self.lock = threading.Lock()   # the product is process state: set it and run phase 1 together
        module = self._entry()
        self.entry = module.call if module else None
        # the kernel callable of opgen_pycall.c (the entry point, then a Python fallback), None for a library of a
        # revision before it
        self.callable = getattr(module, "kernel", None)

    def _entry(self):
        """The library's compiled entry point module (`call(kw)`: the output, or NotImplemented), None for a library
        built without it (another revision's, the fuzzer's -O0 builds).  Imported from the same file ctypes
        loaded: the dynamic loader hands both the same copy, so they share the product, the executors and the
        last error, and the entry point takes self.lock around phase 1 as the ctypes path does."""
        name = pyext.module_name(self.op)
        if not hasattr(self.dll, f"PyInit_{name}"):
            return None
        loader = importlib.machinery.ExtensionFileLoader(name, str(self.path))
        module = importlib.util.module_from_spec(importlib.util.spec_from_file_location(name, self.path,
                                                                                        loader=loader))
        loader.exec_module(module)
        module.setup(self.lock, AclnnError, {d.num: acl for d, acl in ACL_OF_NUMPY.items()},
                     dict.fromkeys(PRODUCTS), self.op.default_product)
        return module

    def error(self, status: int) -> AclnnError:
        param = self.dll.opgenGetRecentErrParam().decode()
        return AclnnError(status, param or None, self.dll.aclGetRecentErrMsg().decode())

    # ---- marshalling -------------------------------------------------------------------------------------
    @staticmethod
    def tensor(a, keep: list) -> tuple:
        """The OPGEN_ARG_TENSOR record of a view of array `a` (OPGEN_ARG_TENSOR_FORMAT with a format other than ND,
        (ARG_NULL,) for None); `keep` holds what must outlive the call."""
        if a is None:
            return (ARG_NULL,)
        fmt = format_of(a)                     # (before any copy below, which would drop the label)
        if isinstance(a, np.ndarray) and not a.dtype.isnative:   # big-endian on x86: hand C a native copy
            a = a.astype(a.dtype.newbyteorder("="))
        acl = ACL_OF_NUMPY.get(a.dtype) if isinstance(a, np.ndarray) else None
        if acl is None or a.ndim > MAX_DIMS:
            raise Unmarshallable
        record = _record(a.shape, a.strides, a.itemsize, acl)
        if record is None:                     # byte-strided: hand C an aligned copy
            a = np.ascontiguousarray(a)
            record = _record(a.shape, a.strides, a.itemsize, acl)
        keep.append(a)
        words, lo = record
        if fmt == "ND":
            return words + (a.ctypes.data + lo,)
        return (ARG_TENSOR_FORMAT,) + words[1:] + (a.ctypes.data + lo, FORMATS[fmt])

    @staticmethod
    def scalar(v) -> tuple:
        if v is None:
            return (ARG_NULL,)
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise Unmarshallable
        try:
            return ARG_SCALAR, _double_bits(float(v))
        except OverflowError as e:
            raise Unmarshallable from e

    @staticmethod
    def attr(p: Attr, v):
        if p.type == "bool":
            if not isinstance(v, (bool, np.bool_)):
                raise Unmarshallable
            return bool(v)
        if p.type == "string":
            if v is None:
                return None                    # a null char *: the C checker reports it
            if not isinstance(v, str) or "\0" in v:
                raise Unmarshallable
            return v.encode()
        if p.type in ("double", "float"):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
                raise Unmarshallable
            try:
                return float(v)                # (ctypes rounds it to a C float for a float parameter)
            except OverflowError as e:
                raise Unmarshallable from e
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or not -2**63 <= int(v) < 2**63:
            raise Unmarshallable
        return int(v)

    @staticmethod
    def int_values(v):
        """An aclIntArray's values as a ctypes int64 array (None for a null pointer); Unmarshallable unless a
        list, tuple or 1-D integer ndarray of int64 values (the Python checker words the refusal)."""
        if v is None:
            return None
        if isinstance(v, np.ndarray):
            if v.ndim != 1 or not np.issubdtype(v.dtype, np.integer):
                raise Unmarshallable
            v = v.tolist()
        if not isinstance(v, (list, tuple)) or any(isinstance(x, (bool, np.bool_)) or not isinstance(
                x, (int, np.integer)) or not -2**63 <= int(x) < 2**63 for x in v):
            raise Unmarshallable
        return (c_int64 * max(len(v), 1))(*(int(x) for x in v)), len(v)

    # ---- the two phases --------------------------------------------------------------------------------
    def create(self, args: dict, out):
        """(arguments for phase 1, release()): every tensor and scalar created in one C call (opgenCreateArgs),
        the attributes converted; release() destroys them in another.  Raises Unmarshallable before creating
        anything for an argument C cannot carry."""
        keep, words, cargs, handle_at = [], [], [], self.handle_at
        for kind, p in self.plan:
            v = (out[p.name] if isinstance(out, dict) else out) if kind is _OUT else args[p.py_name]
            if kind is _SCALAR:
                words += self.scalar(v)
            elif kind is _ATTR:
                cargs.append(self.attr(p, v))
                continue
            elif kind is _ARRAY:   # created below, once nothing else can raise Unmarshallable
                cargs.append(self.int_values(v))
                continue
            else:
                words += self.tensor(v, keep)
            cargs.append(None)
        buffer = array.array("q", words)
        handles = (c_void_p * len(handle_at))()
        if self.args.create(buffer, handles) != 0:
            raise RuntimeError(f"{self.op.name}: creating the arguments failed: "
                               f"{self.dll.aclGetRecentErrMsg().decode()}")
        for i, h in zip(handle_at, handles):
            cargs[i] = h
        arrays = []
        for i, (kind, _) in enumerate(self.plan):
            if kind is _ARRAY and cargs[i] is not None:
                values, n = cargs[i]
                cargs[i] = self.dll.aclCreateIntArray(values, n)
                arrays.append(cargs[i])

        def release(keep=keep):   # (the arrays C reads, copies among them, live as long as the handles)
            self.args.destroy(buffer, handles)
            for a in arrays:
                self.dll.aclDestroyIntArray(a)
        return cargs, release

    def phase1(self, cargs: list, product: str):
        """Phase 1 of created arguments for `product`: (workspace bytes, executor), or raises AclnnError."""
        ws, ex = c_uint64(0), c_void_p()
        with self.lock:
            status = self.dll.opgenSetSocName(product.encode())
            if status != 0:
                raise self.error(status)
            status = self.phase1_fn(*cargs, byref(ws), byref(ex))
            if status != 0:
                raise self.error(status)
        return ws.value, ex

    def check(self, args: dict, out, product: str) -> None:
        """Phase 1 alone (the checker): raises AclnnError, or Unmarshallable for arguments C cannot carry."""
        cargs, release = self.create(args, out)
        try:
            _, ex = self.phase1(cargs, product)
            self.dll.aclDestroyAclOpExecutor(ex)
        finally:
            release()

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
        cargs, release = self.create(args, out)
        try:
            self.phase2_runner(*self.phase1(cargs, product))()
        finally:
            release()

    @contextmanager
    def prepared(self, args: dict, out: np.ndarray, product: str):
        """Phase 1 once, on a repeatable executor (aclSetAclOpExecutorRepeatable); yields `run()`, which runs
        phase 2 again each time it is called (`opgen bench` times the kernel alone with it).  The executor, the
        tensors and the workspace are released on exit."""
        cargs, release = self.create(args, out)
        try:
            ws, ex = self.phase1(cargs, product)
            try:
                status = self.dll.aclSetAclOpExecutorRepeatable(ex)
                if status != 0:
                    raise self.error(status)
                yield self.phase2_runner(ws, ex)
            finally:
                self.dll.aclDestroyAclOpExecutor(ex)      # before the tensors it refers to
        finally:
            release()


_LIBRARIES: dict = {}


def library(op: Op, sanitize: bool = False) -> Library:
    """The op's library, built and loaded once per content."""
    path = build.library(op, sanitize)
    if path not in _LIBRARIES:
        _LIBRARIES[path] = Library(op, path)
    return _LIBRARIES[path]


def with_entry(lib: Library, entry, python_path, name: str):
    """The kernel callable named `name`: the library's (opgen_pycall.c: the entry point with no Python frame around
    it, then `python_path` for what it declines), or for a library without one a Python function doing the same."""
    python_path.__name__ = python_path.__qualname__ = name   # (what a positional argument's TypeError names)
    if entry is None:
        return python_path
    if lib.callable is not None:
        kernel = lib.callable(python_path)
    else:
        def kernel(**kw):
            got = entry(kw)
            return got if got is not NotImplemented else python_path(**kw)
    kernel.__name__ = name
    return kernel


def make_kernel(op: Op, sanitize: bool | None = None, path=None, entry: bool = True):
    """The callable; `sanitize` (default: $OPGEN_C_SANITIZE == "1") uses the ASan/UBSan build of the library,
    which needs the ASan runtime preloaded into Python (tests/test_c_api.py does that); `path`, a library built
    elsewhere with the same C API (`opgen bench --baseline`: another revision's); `entry=False`, every call
    through ctypes (`opgen bench` times both paths)."""
    from codegen.backends.numpy import load_module
    from codegen.runtime.calls import KernelCall
    checker = load_module(op).check
    if sanitize is None:
        sanitize = os.environ.get("OPGEN_C_SANITIZE") == "1"
    lib = Library(op, path) if path is not None else library(op, sanitize)
    entry = lib.entry if entry else None
    if op.per_output:   # several outputs: the entry point given a tuple out=, else ctypes (several_call.py)
        from .several_call import several_kernel
        return several_kernel(op, lib, checker, entry)
    name = op.snake_name               # (once: a regex, which would cost a tenth of a small call)

    def python_path(**kw):             # what the entry point declines (all of a call, without one)
        call = KernelCall(op, kw)
        if call.out is None:
            call.check(checker)            # sizes and allocates the output, as the NumPy backend
            if entry is not None:          # (out= is there now: the entry point can take the rest of the call)
                got = entry(dict(call.args, out=call.out, product=call.product))
                if got is not NotImplemented:
                    return got
        out = call.out
        target = out
        if isinstance(out, np.ndarray) and (not out.dtype.isnative or
                                            _record(out.shape, out.strides, out.itemsize, 0) is None):
            # C cannot address a byte-strided view, nor write another byte order: compute aside, copy back
            target = np.empty(out.shape, out.dtype.newbyteorder("="))
        try:
            lib.call(call.args, target, call.product)
        except Unmarshallable:
            # the Python checker's verdict: its AclnnError, or success with nothing to compute when an empty tensor
            # ends the checks before the argument C cannot carry is read (EmptyReturns first), as on NumPy
            if checker(*[call.args[n] for n in call.names], out, call.product) is None:
                return out
            raise TypeError(f"{name}: an argument cannot be passed to C") from None
        if target is not out:
            np.copyto(out, target)
        return out

    kernel = with_entry(lib, entry, python_path, name)
    kernel.__doc__ = f"{op.name} computed by the generated C library (see codegen.backends.c.binding)."
    kernel.library = lib               # (`opgen bench` times the kernel alone through it: Library.prepared)
    return kernel
