"""`codegen.kernel(op, backend="ascendc")`: the generated kernel, run on the simulator, behind the NumPy API.

A call does what the generated project's op_api layer (opapi.py, op_api/aclnn_opgen_<op>.cpp) does around the
AI Core kernel, with the same functions choosing dtypes:
  1. phase 1 — the generated argument checker (the NumPy module's `check()`, so refusals are identical);
  2. level 2 — the kernel's dtypes (`opapi.kernel_in_dtype`, `opapi.kernel_out_dtype`), then every operand
     contiguous, cast, broadcast to the output's shape and, for a row op, its reduced axis moved last
     (`opapi.OPERAND_STEPS`, here in NumPy);
  3. the kernel — the launcher runs the generated tiling and kernel on every block index of the simulated
     product, in a process of its own (forked by a `--serve` launcher): a broken hardware rule comes back as
     `SimulatorError`, never a crash;
  4. the result back (`opapi.RESULT_STEPS`): the axis moved back, cast to the output's dtype, copied into `out`;
     for a sequence-masked op (codegen.spec.sequence), 0 at and past each length first (level 2's KeepSequence).
"""
from __future__ import annotations

import atexit
import math
import os
import select
import signal
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np

from codegen.runtime import checks as _chk
from codegen.runtime.blocks import halves as _halves, store
from codegen.runtime.calls import KernelCall, class_views, compute_shape, past_length, sum_to
from codegen.spec.functions import BROADCAST, count_parts, count_value
from codegen.spec.classes import GRID_PASS, GRID_SCALED, GRID_SUM
from codegen.spec.split import SECOND_HALF
from codegen.spec import Op
from codegen.spec.params import Attr, Scalar

from . import build as B
from .doublefloat import STEP
from .emit import project_files
from .opapi import kernel_in_dtype, kernel_out_dtype, soc_in_dtypes
from .plan import ARCH, Plan, lo_field, lo_params, plan
from .socs import kernel_socs

NP = {"FLOAT": np.float32, "FLOAT16": np.float16, "BFLOAT16": ml_dtypes.bfloat16}


class SimulatorError(RuntimeError):
    """The kernel broke a hardware rule on the simulator (`rule`: ub-overflow, ub-align, queue, compare-256,
    datacopypad, gm-bounds, ...), or the simulator could not run."""

    def __init__(self, rule: str, message: str):
        super().__init__(f"[{rule}] {message}")
        self.rule, self.message = rule, message


@dataclass
class Run:
    output: np.ndarray     # flat, in the kernel's output dtype
    report: dict           # the launcher's report: tiling fields, tilingKey, ubPeak, blocksRun


def project(op: Op, forget_tail: bool = False) -> dict[str, str]:
    """The op's generated project files (rendered once per Op object)."""
    memo = op.__dict__.setdefault("_ascendc_projects", {})
    if forget_tail not in memo:
        from codegen.generate import source_label
        memo[forget_tail] = project_files(op, source_label(op), forget_tail)
    return memo[forget_tail]


def build_job(op: Op, product: str, forget_tail: bool = False) -> tuple:
    """(name, files, main file, __CCE_AICORE__): what build.build compiles for `op` on `product`."""
    name = op.snake_name + ("-forget-tail" if forget_tail else "")
    if product not in ARCH:
        raise SimulatorError("soc", f"{op.name}: no Ascend C architecture is known for {product} here (its AI Core "
                                    f"configs: {', '.join(s for s in op.dtypes if s in ARCH)})")
    return name, project(op, forget_tail), f"sim/{op.snake_name}_launcher.cpp", ARCH[product]


def executable(op: Op, product: str, forget_tail: bool = False) -> Path:
    """The simulator launcher of `op` for `product`'s architecture (compiled once, cached by content)."""
    return B.build(*build_job(op, product, forget_tail))


def launch(exe: Path, request: dict, inputs: dict, out_dtype: str, total: int) -> Run:
    """Run a launcher: `request` {key: value}, `inputs` {tensor name: contiguous array}."""
    with tempfile.TemporaryDirectory(prefix="opgen-sim-") as tmp:
        lines = [f"{k} {v}" for k, v in request.items()]
        for name, arr in inputs.items():
            path = Path(tmp) / f"in-{name}.bin"
            np.ascontiguousarray(arr).tofile(path)
            lines.append(f"input {name} {path}")
        out_path = Path(tmp) / "out.bin"
        lines.append(f"output {out_path}")
        (Path(tmp) / "request.txt").write_text("\n".join(lines) + "\n")
        run = server(exe).run(Path(tmp) / "request.txt")
        raise_for(run)
        report = {}
        for line in run.stdout.splitlines():
            k, v = line.split(" ", 1)
            report[k] = int(v)
        out = np.fromfile(out_path, dtype=NP[out_dtype], count=total)
        return Run(out, report)


class Server:
    """One launcher in `--serve` mode (opgen_sim/launcher_util.h): each request runs in a child it forks, from
    the same pristine state as a launcher process of its own, without the cost of starting one (~20-40 ms a
    call from a large Python process, most of a small kernel's time on the simulator)."""

    TIMEOUT = 600

    def __init__(self, exe: Path):
        self.exe, self.proc, self.lock = exe, None, threading.Lock()

    def _start(self):
        # a process group of its own: stopping the server stops a request's child with it (a kernel that hangs)
        self.proc = subprocess.Popen([str(self.exe), "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1, start_new_session=True)

    def run(self, request: Path) -> subprocess.CompletedProcess:
        """The request's run, as the process of its own would have ended: exit code, stdout, stderr."""
        with self.lock:
            if self.proc is None or self.proc.poll() is not None:
                self._start()
            try:
                self.proc.stdin.write(f"{request}\n")
                self.proc.stdin.flush()
                answer = self._answer()
            except (BrokenPipeError, OSError) as e:
                self.close()
                raise SimulatorError("crash", f"the simulator server stopped: {e}") from e
        if not answer.startswith("done "):
            self.close()
            raise SimulatorError("crash", f"the simulator server stopped (it answered {answer!r})")
        out, err = (Path(f"{request}.{s}") for s in ("out", "err"))
        return subprocess.CompletedProcess([str(self.exe), str(request)], int(answer.split()[1]),
                                           out.read_text() if out.exists() else "",
                                           err.read_text() if err.exists() else "")

    def _answer(self) -> str:
        ready, _, _ = select.select([self.proc.stdout], [], [], self.TIMEOUT)
        if not ready:
            self.close()
            raise SimulatorError("timeout", f"the simulator ran for more than {self.TIMEOUT} s")
        return self.proc.stdout.readline().strip()

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        self.proc = None


_SERVERS: dict = {}
_SERVERS_LOCK = threading.Lock()


def server(exe: Path) -> Server:
    """The running server of a launcher (started on first use, stopped when Python exits)."""
    with _SERVERS_LOCK:
        if exe not in _SERVERS:
            _SERVERS[exe] = Server(exe)
        return _SERVERS[exe]


@atexit.register
def _stop_servers():
    for s in list(_SERVERS.values()):
        s.close()


def raise_for(run: subprocess.CompletedProcess):
    """Turn a failed simulator process into SimulatorError (its rule and message, or how it died)."""
    if run.returncode == 0:
        return
    err = run.stderr.strip().splitlines()
    last = err[-1] if err else ""
    if last.startswith("opgen-sim error ["):
        rule, msg = last[len("opgen-sim error ["):].split("]: ", 1)
        raise SimulatorError(rule, msg)
    what = f"signal {-run.returncode}" if run.returncode < 0 else f"exit code {run.returncode}"
    raise SimulatorError("crash", f"the simulator stopped with {what}: {run.stderr.strip()[-2000:]}")


# ---- the callable ---------------------------------------------------------------------------------------
def _no_kernel(op: Op):
    """The kernel of an op no product of whose table has an architecture here (an Ascend 950 only op): it refuses
    every call naming why, and runs on no product (`products(op)` is empty), so the accuracy and oracle runs skip
    it on this backend as they skip HardtanhBackward's ascend310b."""
    from codegen.errors import SpecError

    def kernel(**kw):
        raise SpecError(op.source, op.name, f"no Ascend C kernel: none of its products ({', '.join(op.dtypes)}) "
                                            f"has an Ascend C architecture here (codegen/backends/ascendc/socs.py); "
                                            f"the NumPy and C backends run it")
    return kernel


def make_kernel(op: Op):
    if not kernel_socs(op):
        return _no_kernel(op)
    from codegen.backends.numpy import load_module
    checker = load_module(op).check
    the_plan = plan(op)
    if op.per_output:   # several outputs: the kernel once per output (several_call.py)
        from .several_call import several_kernel
        return several_kernel(op, the_plan, checker)
    name = op.snake_name
    wide = bool(set(op.computes) - {"FLOAT"})

    def kernel(**kw):
        call = KernelCall(op, kw)
        _chk.writeable_out(name, call.out)
        values = call.check(checker)
        out = call.out
        if values is None:
            return out  # an empty tensor ended the checks early: nothing to compute, nothing launched
        if wide and op.compute_of(_chk.default_dtype(*[call.args[t.py_name] for t in op.tensors])) != "FLOAT":
            # no AI Core computes in DOUBLE or complex: the library runs these dtypes on its AI CPU kernel, a CPU;
            # here the C backend's DOUBLE or complex kernel (codegen/backends/c/wide.py) stands for it
            from codegen.backends.c.binding import library
            if out.size:
                library(op).call(call.args, out, call.product)
            return out
        call.args.update(values)
        if out.size == 0:
            return out  # an empty tensor: nothing to compute, nothing launched
        if op.output.sum_to:   # the kernel on the broadcast shape B, its result summed back to out's shape
            shape = compute_shape(op, call.args)
            result = np.zeros(shape, np.float32) if 0 in shape else \
                run_kernel(op, the_plan, call.args, shape, "FLOAT", call.product)
            store(out, sum_to(result.astype(np.float32, copy=False), out.shape))
            return out
        if op.split is not None:
            result = run_split(op, the_plan, call.args, _chk.dtype_name(out), call.product)
        elif op.classes is not None:
            result = run_classes(op, the_plan, call.args, _chk.dtype_name(out), call.product)
        else:
            result = run_kernel(op, the_plan, call.args, out.shape, _chk.dtype_name(out), call.product)
        if op.sequence is not None:   # level 2's KeepSequence (opapi.body_lines): 0 at and past each length
            sq = op.sequence
            result[past_length(out.shape, call.args[op.param(sq.lengths).py_name], sq.time, sq.batch)] = 0
        store(out, result)   # (an integer output: to nearest, saturated, as the library's final Cast)
        return out

    kernel.__name__ = name
    kernel.__doc__ = f"{op.name} on the Ascend C simulator (see codegen.backends.ascendc.binding)."
    return kernel


def run_split(op: Op, p: Plan, kw: dict, out_dtype: str, product: str) -> np.ndarray:
    """A split op's level 2 (opapi.split_body_lines): the input cut in halves along dim (SplitV), the kernel op's
    kernel launched once per half (`secondHalf` false, then true), the results concatenated (ConcatD)."""
    kop = p.op
    src = np.asarray(kw[op.param(op.split.tensor).py_name])
    d = int(kw[op.param(op.split.dim).py_name]) % src.ndim
    if op.split.merged:
        return _run_rows(op, p, kw, src, d, out_dtype, product)
    args = dict(kw)
    halves = _halves(src, d)
    for s, half in zip(op.wrt, halves):
        args[kop.param(str(s)).py_name] = half
    parts = []
    for second in (False, True):
        args[kop.param(SECOND_HALF).py_name] = second
        parts.append(run_kernel(kop, p, args, halves[0].shape, out_dtype, product))
    return np.concatenate(parts, axis=d)


def _run_rows(op: Op, p: Plan, kw: dict, src, d: int, out_dtype: str, product: str) -> np.ndarray:
    """A split op read as rows (opapi.split_body_lines, opgen_l2::RowHalves, RowConcat, KeepRows): x as [pre, cut]
    cut into its rows' even and odd elements or halves, the other tensors as [pre, cut/2], the kernel once per
    half, the halves put back and the rows from sum(counts) on set to 0."""
    from codegen.runtime.rows import row_count
    kop, split = p.op, op.split
    pre, cut = math.prod(src.shape[:d]), math.prod(src.shape[d:])
    interleaved = bool(kw[op.param(split.interleaved).py_name]) if split.interleaved else False
    rows = src.reshape(pre, cut)
    paired = rows.reshape(pre, cut // 2, 2) if interleaved else rows.reshape(pre, 2, cut // 2)
    halves = (paired[:, :, 0], paired[:, :, 1]) if interleaved else (paired[:, 0], paired[:, 1])
    args = dict(kw)
    for t in op.tensors:
        if t.name not in (split.tensor, split.rows):
            args[t.py_name] = np.reshape(kw[t.py_name], (pre, cut // 2))
    for s, half in zip(op.wrt, halves):
        args[kop.param(str(s)).py_name] = half
    parts = []
    for second in (False, True):
        args[kop.param(SECOND_HALF).py_name] = second
        parts.append(run_kernel(kop, p, args, (pre, cut // 2), out_dtype, product))
    result = np.stack(parts, axis=2 if interleaved else 1).reshape(pre, cut)
    counts = kw.get(op.param(split.rows).py_name) if split.rows else None
    result[row_count(counts, pre, split.rows_sum == "uint32"):] = 0
    return result.reshape(src.shape)


def run_classes(op: Op, p: Plan, kw: dict, out_dtype: str, product: str) -> np.ndarray:
    """A class-index op's level 2 (opapi.classes_body_lines): every input as a view on the (sample, class) grid
    (Reshape), the class coordinate (an arange of the classes), the grid op's kernel in FLOAT on the grid."""
    from codegen.spec.classes import CLASS_TENSOR, kind_of
    kop, args = p.op, dict(kw)
    grid = np.shape(kw[op.param(op.classes.tensor).py_name])
    moved = [t for t in op.tensors if kind_of(op, t.name) != "grid"]
    views = class_views(grid, [(kind_of(op, t.name), kw[t.py_name]) for t in moved])
    for t, v in zip(moved + [kop.param(CLASS_TENSOR)], views):
        args[t.py_name] = v
    if any(q.name == GRID_PASS for q in kop.params):
        args[kop.param(GRID_PASS).py_name] = False
        sums = (kop.param(GRID_SUM).py_name, kop.param(GRID_SCALED).py_name)
        args.update(dict.fromkeys(sums))   # (the pass reads none)
        args.update(zip(sums, grid_sum(kop, p, args, grid, product)))
    return run_kernel(kop, p, args, grid, out_dtype, product)


def grid_sum(kop: Op, p: Plan, args: dict, grid: tuple, product: str) -> tuple:
    """The sum over the whole grid a form divides by (codegen.spec.classes.GRID_SUM), as level 2 computes it: the
    kernel's GRID_PASS variant (each row's sum at class 0, 0 elsewhere) summed by ReduceSum (in float64, rounded
    once to FLOAT, as ReduceSum in its compute dtype), and the same sum of the rows scaled by 2^-66 (GRID_SCALED,
    finite where the first is inf); (None, None) where the form reads none."""
    if GRID_SUM not in p.variants[p.variant_index(variant_key(kop, args))].tensors:
        return None, None
    rows = run_kernel(kop, p, {**args, kop.param(GRID_PASS).py_name: True}, grid, "FLOAT", product)
    total = np.sum(rows, dtype=np.float64)
    with np.errstate(over="ignore"):   # beyond FLOAT's range: inf, as ReduceSum gives it
        return tuple(np.float32(t).reshape((1,) * len(grid)) for t in (total, total * 2.0 ** -STEP))


def variant_key(op: Op, kw: dict) -> dict:
    return op.variant_key(kw)


def kernel_operand(a, din: str, shape: tuple, dim: int | None) -> np.ndarray:
    """One kernel operand: opapi.OPERAND_STEPS in NumPy — Contiguous and Cast (one copy where needed),
    BroadcastTo the output's shape, Transpose (the reduced axis last) — flat, as the launcher reads it."""
    a = np.asarray(a).astype(NP[din], copy=False)
    if a.size == 1 and a.ndim > len(shape):   # one element of a higher rank (ShapeSameOrOneElement): rank 0 first
        a = a.reshape(())
    a = np.broadcast_to(a, shape)
    if dim is not None and a.ndim:
        a = np.moveaxis(a, dim, -1)
    return np.ascontiguousarray(a).reshape(-1)


def prepare(op: Op, p: Plan, kw: dict, shape: tuple, out_dtype: str, product: str):
    """The op_api layer: (variant index, request, kernel inputs, kernel output dtype, shape of the kernel's view)."""
    v = p.variants[p.variant_index(variant_key(op, kw))]
    present = [kw[op.param(t).py_name] for t in p.operands if kw[op.param(t).py_name] is not None]
    din = kernel_in_dtype([_chk.dtype_name(a) for a in present], soc_in_dtypes(op, product))
    dout = kernel_out_dtype(op, product, din, out_dtype)
    dim = None
    if op.reduce_dim is not None:
        dim = op.reduce_axis(kw) % max(len(shape), 1)
    arrays = {t: kernel_operand(kw[op.param(t).py_name], din, shape, dim) for t in v.tensors}
    view = (1,) if len(shape) == 0 else (np.moveaxis(np.empty(shape, np.int8), dim, -1).shape if dim is not None
                                         else shape)
    total = int(np.prod(view))
    row = view[-1] if dim is not None else total
    request = {"product": product, "variant": v.index, "in_dtype": din, "out_dtype": dout, "total": total,
               "row": row}
    for q in op.params:
        if isinstance(q, Scalar) or (isinstance(q, Attr) and q.is_real):
            request[q.name] = float(np.float32(kw[q.py_name])).hex()
        elif isinstance(q, Attr) and q.type != "string":
            request[q.name] = int(kw[q.py_name])
    for q in lo_params(p.op):   # (opgen_l2::LoPart: the double less its FLOAT value)
        x = float(kw[q.py_name])
        with np.errstate(over="ignore"):   # (beyond FLOAT: inf, its lo part 0)
            hi = float(np.float32(x))
        rest = x - hi if math.isfinite(x) and math.isfinite(hi) else 0.0
        request[lo_field(q.name)] = float(np.float32(rest)).hex()
    for n in p.numels:   # the output's count and BROADCAST's are the call's shape (the broadcast shape)
        t = count_parts(n)[0]
        counted = shape if t in (op.output.name, BROADCAST) else np.shape(kw[op.param(t).py_name])
        request[f"numel_{n}"] = count_value(n, {t: counted}, op.reduce_axis(kw))
    return v.index, request, arrays, dout, view, dim


def run_kernel(op: Op, p: Plan, kw: dict, shape: tuple, out_dtype: str, product: str,
               forget_tail: bool = False, report: dict | None = None) -> np.ndarray:
    """The result (in the kernel's output dtype, laid out as `shape`) of one launch on the simulator."""
    _, request, arrays, dout, view, dim = prepare(op, p, kw, shape, out_dtype, product)
    run = launch(executable(op, product, forget_tail), request, arrays, dout, request["total"])
    if report is not None:
        report.update(run.report)
    res = run.output.reshape(view)
    if len(shape) == 0:
        return res.reshape(())
    return np.moveaxis(res, -1, dim) if dim is not None else res
