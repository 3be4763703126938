"""Layouts through the NumPy kernels: empty, rank 0 and 8, non-contiguous, broadcast, `out=` in place.

The expected values are the same kernel on plain contiguous copies (whose values test_numpy_values checks
against the forward's derivative): a layout must never change a result.
"""
from __future__ import annotations

import numpy as np
import pytest

import codegen

from .error_inputs import valid_call
from .kernels import kernel   # (each op's kernel made once per process)
from tests.samples import along, channel_shapes, max_rank, ranked, results, skip_split

OPS = sorted(codegen.load_specs())


def _tensors(op, kw):
    return [t.py_name for t in op.tensors if kw.get(t.py_name) is not None]


def _reshape_all(op, kw, shape):
    """Every tensor in `shape` (with leading axes of 1 up to the op's minimum rank: ranked); a per-channel tensor
    with one element per channel of `shape`."""
    kw = dict(kw)
    shape = ranked(op, shape)
    channel = channel_shapes(op, shape)
    for n in _tensors(op, kw):
        kw[n] = np.resize(kw[n], channel.get(n, shape)).astype(kw[n].dtype)
    return kw


def _out_arg(op, arrays):
    """`out=` for one array per output: a tuple for an op with several, else the array."""
    return tuple(arrays) if op.per_output else arrays[0]


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("shape", [(0,), (3, 0, 2), (), (2, 1, 2, 1, 2, 1, 2, 1)], ids=str)
def test_empty_rank0_rank8(ops, name, shape):
    skip_split(ops[name])
    op = ops[name]
    if shape == () and any(type(r).__name__ == "MinRank" for r in op.rules):
        pytest.skip("self needs rank >= 1")
    if len(shape) > max_rank(op):
        pytest.skip(f"{name}'s tensors have at most {max_rank(op)} dimensions")
    kw = _reshape_all(op, valid_call(op, np.random.default_rng(0)), shape)
    along(op, kw, -1)
    outs = results(op, kernel(name)(**kw))
    assert outs[0].shape == ranked(op, shape)   # (several outputs: the first; a channel gradient has its own shape)
    if outs[0].size:
        flat = _reshape_all(op, kw, (max(1, int(np.prod(shape))),))
        if op.reduce_dim is not None:  # rows along dim: compare with the same rows laid out 2-D
            return
        # (a per-channel tensor: these shapes have one channel at most, as the flat call)
        for out, want in zip(outs, results(op, kernel(name)(**flat))):
            np.testing.assert_array_equal(out.reshape(-1), want.reshape(-1))


@pytest.mark.parametrize("name", OPS)
def test_non_contiguous_and_out_in_place(ops, name):
    skip_split(ops[name])
    op = ops[name]
    fn = kernel(name)
    kw = _reshape_all(op, valid_call(op, np.random.default_rng(4)), (6, 8))
    wants = results(op, fn(**kw))
    strided = dict(kw)
    for n in _tensors(op, kw):
        big = np.zeros(tuple(2 * d for d in kw[n].shape), kw[n].dtype)   # (a per-channel tensor: 1-D)
        every_other = tuple(slice(None, None, 2) for _ in kw[n].shape)
        big[every_other] = kw[n]
        strided[n] = big[every_other]
        assert not strided[n].flags.c_contiguous
    holders = [np.full(w.shape[:-1] + (2 * w.shape[-1],), np.nan, w.dtype) for w in wants]
    outs = [h[..., ::2] for h in holders]
    got = results(op, fn(**strided, out=_out_arg(op, outs)))
    for g, out, want, holder in zip(got, outs, wants, holders):
        assert g is out
        np.testing.assert_array_equal(g, want)
        assert np.isnan(holder[..., 1::2]).all(), "wrote outside the output view"


def test_broadcast_operands():
    fn = kernel("softshrink_backward")
    g = np.linspace(-2, 2, 5, dtype=np.float32)[:, None]
    x = np.linspace(-3, 3, 7, dtype=np.float32)[None, :]
    got = fn(grad_output=g, self=x, lambd=0.5)
    want = fn(grad_output=np.broadcast_to(g, (5, 7)).copy(), self=np.broadcast_to(x, (5, 7)).copy(), lambd=0.5)
    np.testing.assert_array_equal(got, want)
    bce = kernel("binary_cross_entropy_with_logits_backward")
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
    fn = kernel("softmax_backward")
    rng = np.random.default_rng(5)
    g = rng.standard_normal((3, 4, 5)).astype(np.float32)
    y = rng.uniform(0, 1, (3, 4, 5)).astype(np.float32)
    for dim in range(-3, 3):
        got = fn(grad_output=g, output=y, dim=dim)
        moved = lambda a: np.moveaxis(a, dim, -1).reshape(-1, a.shape[dim])
        rows = fn(grad_output=np.ascontiguousarray(moved(g)), output=np.ascontiguousarray(moved(y)), dim=1)
        np.testing.assert_array_equal(moved(got), rows)


def test_out_dtype_and_out_checks():
    fn = kernel("softmax_backward")
    g = np.ones((2, 3), np.float32)
    assert fn(grad_output=g, output=g, dim=1, out_dtype="FLOAT16").dtype == np.float16
    with pytest.raises(codegen.AclnnError) as info:
        fn(grad_output=g, output=g, dim=1, out=np.zeros((3, 2), np.float32))
    assert (info.value.status, info.value.param) == (161002, "out")


def _whole(monkeypatch, fn, kw):
    """The call evaluated on whole arrays at once: BLOCK raised past any size."""
    from codegen.runtime import blocks
    with monkeypatch.context() as m:
        m.setattr(blocks, "BLOCK", 1 << 62)
        return fn(**kw)


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_blocks_give_the_whole_array_result(monkeypatch, ops, name, dtype, layout):
    """Calls over BLOCK elements run block by block (codegen.runtime.blocks), contiguous or strided, into an
    `out=` of either kind; softmax along each dim in blocks cut from the axes before it.  The same expression
    on the same values as the whole arrays at once: equal bit for bit."""
    skip_split(ops[name])
    from codegen.runtime.blocks import BLOCK
    op = ops[name]
    fn = kernel(name)
    shape = ranked(op, (3, 7, BLOCK // 5))         # blocks cut along axis 1, the last one shorter
    kw = _reshape_all(op, valid_call(op, np.random.default_rng(9)), shape)
    channel = channel_shapes(op, shape)            # (a per-channel tensor: 7 elements, in the dtype too)
    kw = {k: (v.astype(dtype) if isinstance(v, np.ndarray) and (v.shape == shape or k in channel)
              and v.dtype != np.bool_ else v)   # (a mask stays BOOL)
          for k, v in kw.items()}
    if layout == "strided":
        kw = {k: (np.repeat(v, 2, axis=-1)[..., ::2] if isinstance(v, np.ndarray) and v.shape == shape else v)
              for k, v in kw.items()}
    for dim in ([-1, 1, 0] if op.reduce_dim is not None else [None]):
        if dim is not None and not along(op, kw, dim):
            continue
        wholes = results(op, _whole(monkeypatch, fn, kw))   # (several outputs: each its own shape)
        holders = [np.full(w.shape[:-1] + (2 * w.shape[-1],), np.nan, dtype) for w in wholes]
        outs = [h[..., ::2] if layout == "strided" else np.full(w.shape, np.nan, dtype)
                for h, w in zip(holders, wholes)]
        got = results(op, fn(**kw, out=_out_arg(op, outs)))
        for g, whole, holder in zip(got, wholes, holders):
            bits = f"u{whole.itemsize}"
            np.testing.assert_array_equal(g.view(bits), whole.view(bits), err_msg=f"dim={dim}")
            assert np.isnan(holder[..., 1::2]).all(), "wrote outside the output view"


def test_broadcast_operands_run_in_blocks(monkeypatch):
    """Broadcast operands over BLOCK elements run block by block too, read in place (a (1, n) gradOutput, a
    one-element gradOutput, weights along the last dim): the bits of the whole arrays at once."""
    from codegen.runtime import blocks
    cut, block_index = [], blocks._block_index

    def counted(*args):
        index = list(block_index(*args))
        cut.append(len(index))
        return index
    monkeypatch.setattr(blocks, "_block_index", counted)
    rng = np.random.default_rng(12)
    shape = (6, blocks.BLOCK // 2 - 3)
    x = rng.standard_normal(shape).astype(np.float32) * 3
    fn = kernel("softshrink_backward")
    kw = dict(grad_output=rng.standard_normal((1, shape[1])).astype(np.float32), self=x, lambd=0.5)
    np.testing.assert_array_equal(fn(**kw), _whole(monkeypatch, fn, kw))
    assert cut == [3]             # three blocks of two rows
    bce = kernel("binary_cross_entropy_with_logits_backward")
    for red in (0, 1, 2):
        kw = dict(grad_output=np.array(0.7, np.float32), self=x, target=rng.uniform(0, 1, shape).astype(np.float32),
                  weight_optional=rng.uniform(0, 2, shape[1]).astype(np.float16),
                  pos_weight_optional=rng.uniform(0, 2, shape[1]).astype(np.float32), reduction=red)
        np.testing.assert_array_equal(bce(**kw), _whole(monkeypatch, bce, kw), err_msg=f"reduction={red}")
    assert cut == [3] * 4


@pytest.mark.parametrize("name", OPS)
def test_out_overlapping_an_input_over_many_blocks(ops, name):
    """An `out=` that overlaps an input one row further on — at a size of many blocks, where computing block by
    block would read inputs an earlier block had overwritten — gives what separate buffers give; `out=` the very
    input (in place) too."""
    skip_split(ops[name])
    from codegen.runtime.blocks import BLOCK
    op = ops[name]
    fn = kernel(name)
    shape = ranked(op, (8, BLOCK // 4))   # (rows of 4096: ScaledMaskedSoftmaxBackward's longest)
    rng = np.random.default_rng(13)
    kw = _reshape_all(op, valid_call(op, rng), shape)
    kw.update({t: (3 * rng.standard_normal(kw[t].shape)).astype(kw[t].dtype) for t in _tensors(op, kw)})
    wants = results(op, fn(**kw))   # (several outputs: the first over an input, every output compared)
    rest = [None] * (len(wants) - 1)
    for t in _tensors(op, kw):
        if kw[t].shape != shape or kw[t].dtype != wants[0].dtype:
            continue
        buf = np.concatenate([kw[t], np.zeros(shape[:-2] + (1, shape[-1]), wants[0].dtype)], axis=-2)
        shifted = dict(kw, **{t: buf[..., :-1, :]})
        for got, want in zip(results(op, fn(**shifted, out=_out_arg(op, [buf[..., 1:, :]] + rest))), wants):
            np.testing.assert_array_equal(got, want, err_msg=f"out overlaps {t}")
        same = dict(kw, **{t: kw[t].copy()})
        for got, want in zip(results(op, fn(**same, out=_out_arg(op, [same[t]] + rest))), wants):
            np.testing.assert_array_equal(got, want, err_msg=f"out is {t}")


def test_block_index_covers_every_element_once_in_order():
    """codegen.runtime.blocks._block_index: every element once, in C order, blocks of at most BLOCK elements
    unless the axes kept whole are longer, and the axes from `whole` on never cut."""
    from codegen.runtime.blocks import BLOCK, _block_index
    for shape, whole in [((BLOCK * 3 + 5,), 1), ((2, 3, BLOCK // 4 + 1), 3), ((4, 5, 6000), 2), ((5, 3 * BLOCK), 1),
                         ((3, 2 * BLOCK), 0), ((7, 9, 11, 13, 17), 5), ((7, 9, 11, 13, 17), 2)]:
        seen = np.zeros(shape, np.int64)
        flat = np.arange(seen.size).reshape(shape)
        last = -1
        for index in _block_index(shape, whole):
            block = flat[index]
            assert block.ndim == len(shape)
            assert block.shape[whole:] == shape[whole:], (shape, whole, index)
            assert block.size <= max(BLOCK, int(np.prod(shape[whole:]))), (shape, index)
            assert block.reshape(-1)[0] == last + 1, (shape, index)   # C order, no gap
            last = block.reshape(-1)[-1]
            seen[index] += 1
        assert (seen == 1).all(), (shape, whole)


@pytest.mark.parametrize("length", [7, 1000, 16389], ids=lambda n: f"rows of {n}")
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_row_blocks_give_the_whole_array_result(monkeypatch, length, dtype):
    """Softmax along a contiguous last dim runs in blocks of whole rows (codegen.runtime.blocks.row_blocks): the
    same bits as the whole arrays at once (BLOCK raised past the size), for rows that split blocks unevenly,
    and for rows longer than a block."""
    from codegen.runtime import blocks
    fn = kernel("softmax_backward")
    rng = np.random.default_rng(11)
    shape = (2, (3 * blocks.BLOCK) // (2 * length) + 3, length)
    g = rng.standard_normal(shape).astype(dtype)
    y = rng.uniform(0, 1, shape).astype(dtype)
    blocked = fn(grad_output=g, output=y, dim=-1)
    monkeypatch.setattr(blocks, "BLOCK", 1 << 62)
    whole = fn(grad_output=g, output=y, dim=2)
    np.testing.assert_array_equal(blocked.view(np.uint8), whole.view(np.uint8))
