"""Layouts through the NumPy kernels: empty, rank 0 and 8, non-contiguous, broadcast, `out=` in place.

The expected values are the same kernel on plain contiguous copies (whose values test_numpy_values checks
against the forward's derivative): a layout must never change a result.
"""
from __future__ import annotations

import numpy as np
import pytest

import codegen

from .error_inputs import valid_call

OPS = sorted(codegen.load_specs())


def _tensors(op, kw):
    return [t.py_name for t in op.tensors if kw.get(t.py_name) is not None]


def _reshape_all(op, kw, shape):
    kw = dict(kw)
    for n in _tensors(op, kw):
        kw[n] = np.resize(kw[n], shape).astype(kw[n].dtype)
    return kw


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("shape", [(0,), (3, 0, 2), (), (2, 1, 2, 1, 2, 1, 2, 1)], ids=str)
def test_empty_rank0_rank8(ops, name, shape):
    op = ops[name]
    if shape == () and any(type(r).__name__ == "MinRank" for r in op.rules):
        pytest.skip("self needs rank >= 1")
    kw = _reshape_all(op, valid_call(op, np.random.default_rng(0)), shape)
    if op.reduce_dim:
        kw[op.param(op.reduce_dim).py_name] = -1
    out = codegen.kernel(name)(**kw)
    assert out.shape == shape
    if out.size:
        flat = _reshape_all(op, kw, (max(1, int(np.prod(shape))),))
        if op.reduce_dim:  # rows along dim: compare with the same rows laid out 2-D
            return
        np.testing.assert_array_equal(out.reshape(-1), codegen.kernel(name)(**flat).reshape(-1))


@pytest.mark.parametrize("name", OPS)
def test_non_contiguous_and_out_in_place(ops, name):
    op = ops[name]
    fn = codegen.kernel(name)
    kw = _reshape_all(op, valid_call(op, np.random.default_rng(4)), (6, 8))
    want = fn(**kw)
    strided = dict(kw)
    for n in _tensors(op, kw):
        big = np.zeros((12, 16), kw[n].dtype)
        big[::2, ::2] = kw[n]
        strided[n] = big[::2, ::2]
        assert not strided[n].flags.c_contiguous
    holder = np.full((6, 16), np.nan, want.dtype)
    out = holder[:, ::2]
    got = fn(**strided, out=out)
    assert got is out
    np.testing.assert_array_equal(got, want)
    assert np.isnan(holder[:, 1::2]).all(), "wrote outside the output view"


def test_broadcast_operands():
    fn = codegen.kernel("softshrink_backward")
    g = np.linspace(-2, 2, 5, dtype=np.float32)[:, None]
    x = np.linspace(-3, 3, 7, dtype=np.float32)[None, :]
    got = fn(grad_output=g, self=x, lambd=0.5)
    want = fn(grad_output=np.broadcast_to(g, (5, 7)).copy(), self=np.broadcast_to(x, (5, 7)).copy(), lambd=0.5)
    np.testing.assert_array_equal(got, want)
    bce = codegen.kernel("binary_cross_entropy_with_logits_backward")
    x = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
    t = np.full((3, 4), 0.3, np.float32)
    w = np.array([0.5, 1, 1.5, 2], np.float32)
    for red in (0, 1, 2):
        got = bce(grad_output=np.array(2, np.float32), self=x, target=t, weight_optional=w,
                  pos_weight_optional=w[::-1].copy(), reduction=red)
        full = bce(grad_output=np.full((3, 4), 2, np.float32), self=x, target=t,
                   weight_optional=np.broadcast_to(w, (3, 4)).copy(),
                   pos_weight_optional=np.broadcast_to(w[::-1], (3, 4)).copy(), reduction=red)
        np.testing.assert_array_equal(got, full)


def test_softmax_rows_along_every_dim():
    """Along any dim, the result equals the 2-D kernel on the rows moved to the last axis."""
    fn = codegen.kernel("softmax_backward")
    rng = np.random.default_rng(5)
    g = rng.standard_normal((3, 4, 5)).astype(np.float32)
    y = rng.uniform(0, 1, (3, 4, 5)).astype(np.float32)
    for dim in range(-3, 3):
        got = fn(grad_output=g, output=y, dim=dim)
        moved = lambda a: np.moveaxis(a, dim, -1).reshape(-1, a.shape[dim])
        rows = fn(grad_output=np.ascontiguousarray(moved(g)), output=np.ascontiguousarray(moved(y)), dim=1)
        np.testing.assert_array_equal(moved(got), rows)


def test_out_dtype_and_out_checks():
    fn = codegen.kernel("softmax_backward")
    g = np.ones((2, 3), np.float32)
    assert fn(grad_output=g, output=g, dim=1, out_dtype="FLOAT16").dtype == np.float16
    with pytest.raises(codegen.AclnnError) as info:
        fn(grad_output=g, output=g, dim=1, out=np.zeros((3, 2), np.float32))
    assert (info.value.status, info.value.param) == (161002, "out")


@pytest.mark.parametrize("name", [n for n in OPS if not codegen.load_specs()[n].reduce_dim])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_blocks_give_the_whole_array_result(ops, name, dtype):
    """Contiguous calls run block by block (codegen.runtime.blocks); a strided view of the same values runs
    whole.  Both are the same expression on the same values: equal bit for bit."""
    from codegen.runtime.blocks import BLOCK
    op = ops[name]
    fn = codegen.kernel(name)
    n = 2 * BLOCK + 123
    kw = _reshape_all(op, valid_call(op, np.random.default_rng(9)), (n,))
    kw = {k: (v.astype(dtype) if isinstance(v, np.ndarray) and v.dtype != dtype and v.size == n else v)
          for k, v in kw.items()}
    blocked = fn(**kw)
    strided = {k: (np.repeat(v, 2)[::2] if isinstance(v, np.ndarray) and v.size == n else v) for k, v in kw.items()}
    whole = fn(**strided)
    np.testing.assert_array_equal(blocked.view(np.uint8), whole.view(np.uint8))


@pytest.mark.parametrize("length", [7, 1000, 16389], ids=lambda n: f"rows of {n}")
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_row_blocks_give_the_whole_array_result(monkeypatch, length, dtype):
    """Softmax along a contiguous last dim runs in blocks of whole rows (codegen.runtime.blocks.row_blocks): the
    same bits as the whole arrays at once (BLOCK raised past the size), for rows that split blocks unevenly,
    and for rows longer than a block."""
    from codegen.runtime import blocks
    fn = codegen.kernel("softmax_backward")
    rng = np.random.default_rng(11)
    shape = (2, (3 * blocks.BLOCK) // (2 * length) + 3, length)
    g = rng.standard_normal(shape).astype(dtype)
    y = rng.uniform(0, 1, shape).astype(dtype)
    blocked = fn(grad_output=g, output=y, dim=-1)
    monkeypatch.setattr(blocks, "BLOCK", 1 << 62)
    whole = fn(grad_output=g, output=y, dim=2)
    np.testing.assert_array_equal(blocked.view(np.uint8), whole.view(np.uint8))
