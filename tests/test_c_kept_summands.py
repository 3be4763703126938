"""A row op whose finish reads its sum's summand (softmax's g*y in g*y - y*S) keeps that summand, per element, from
the next row's sum to that row's finish in its skewed FLOAT16 rows (codegen/backends/c/opsource.py: _stash_context,
templates/src/kernel_stash.c.jinja, opgen_loops.c: run_rows_skewed).  The finish then reads the FLOAT product the sum
computed instead of computing it again: the same value, so the same bits as the paths that compute it twice."""
from __future__ import annotations

import numpy as np
import pytest

import codegen
from codegen.backends.c import opsource
from codegen.backends.c.opsource import _reads_as_unit

from .kernels import kernel

OPS = codegen.load_specs()


def _kept(name: str) -> list[dict]:
    return [s for v in opsource.context(OPS[name])["variants"] for s in v["stash"]]


@pytest.mark.parametrize("name, kept", [("softmax_backward", True), ("scaled_masked_softmax_backward", True),
                                        ("log_softmax_backward", False), ("cross_entropy_loss_grad", False)])
def test_a_summand_is_kept_where_the_finish_reads_it(name, kept):
    """Softmax's and ScaledMaskedSoftmax's finishes read g*y, their sum's summand; LogSoftmax's sum is of g alone
    (an operand: nothing to keep) and CrossEntropyLossGrad's results are computed in double (no FLOAT summand)."""
    found = _kept(name)
    assert bool(found) == kept
    for s in found:
        finish = "\n".join(s["compute_stash"])
        assert "const float kept = stash[i];" in finish
        # (read after its load: in the result, or in a temporary the result reads — ScaledMaskedSoftmax's
        # t0 = kept - r0*y, which codegen.scaled's form for a sum beyond FLOAT reads twice)
        assert any("kept" in line for line in s["compute_stash"] if not line.startswith("const float kept ="))
        assert any("call.finish_rowsum_stash = finish_rowsum_stash" in line for v in
                   opsource.context(OPS[name])["variants"] for line in v["phase1"])


def test_softmax_finish_reads_the_product_and_not_grad_output():
    (s,) = _kept("softmax_backward")
    assert s["compute_stash"][-1] == "res[i] = kept - output_i*r0;"
    assert not any("grad_output" in line for line in s["compute_stash"] + s["declare_finish_stash"])
    assert any("stash[i] = t[lane];" in line for line in s["stash_pairs"])


@pytest.mark.parametrize("after, summand, same", [
    ("kept - output_i*r0", "g*y", True),        # (g*y) - y*r0
    ("kept*z", "g*y", True),                    # g*y*z is (g*y)*z
    ("z*kept", "g*y", False),                   # z*g*y is (z*g)*y
    ("z/kept", "g*y", False),
    ("kept/z", "g*y", True),
    ("-kept", "g*y", True),                     # -g*y: (-g)*y, the same value
    ("z + kept", "a + b", False),               # z + a + b is (z + a) + b
    ("kept + z", "a + b", True),                # a + b + z is (a + b) + z
    ("z - kept", "a + b", False),
    ("f(kept, z)", "a + b", True),
    ("c ? kept : z", "a - b", True),
    ("kept*z", "a - b", False),
])
def test_the_kept_summand_must_read_as_one_operand(after, summand, same):
    before = after.replace("kept", summand)
    assert _reads_as_unit(after, before, summand) is same
    assert not _reads_as_unit(after, before + " ", summand)


def _bits_or_nan(a: np.ndarray) -> np.ndarray:
    """The bits of each element, every nan as one value (a nan's sign is not kept: opgen_chunks.h' conversions and
    x86's first-operand rule when two nans meet, whose order GCC may swap between builds)."""
    f = a.astype(np.float32)
    return np.where(np.isnan(f), np.uint16(0x7e00), a.view(np.uint16))


@pytest.mark.parametrize("threads", ["1", "2"])
def test_kept_summands_give_the_block_wise_bits(threads, monkeypatch):
    """FLOAT16 rows of 513 to 2048 elements (OPGEN_STASH_ROW), several to a walk, take the kept summands from the
    second row on, and packed rows of at most 512 (several to a block) every row; 2049 and 3000 do not; the
    misaligned copies are staged into FLOAT and take the block functions, which compute g*y in the finish.  Special
    values (inf, nan, +-0, subnormals, +-65504) in some rows."""
    monkeypatch.setenv("OPGEN_NUM_THREADS", threads)
    c = kernel("softmax_backward", backend="c")
    rng = np.random.default_rng(21)
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 6e-8, -6e-8, 1e-5, 65504, -65504], np.float32)
    for rows, n in [(40, 64), (33, 100), (9, 512), (9, 513), (7, 1024), (5, 1025), (6, 1500), (5, 2048), (4, 2049),
                    (3, 3000)]:
        for inject in (False, True):
            g = rng.standard_normal((rows, n)).astype(np.float32)
            y = rng.uniform(0, 2 / n, (rows, n)).astype(np.float32)
            if inject:
                for a in (g, y):
                    at = rng.integers(0, a.size, 12)
                    a.reshape(-1)[at] = rng.choice(specials, 12)
            g, y = g.astype(np.float16), y.astype(np.float16)
            got = c(grad_output=g, output=y, dim=-1, out=np.zeros_like(g))
            # (one byte past an element boundary: staged element by element into FLOAT)
            mis = [np.frombuffer(np.zeros(a.nbytes + 2, np.uint8), np.float16, a.size, 1).reshape(a.shape)
                   for a in (g, y, g)]
            mis[0][...], mis[1][...] = g, y
            staged = c(grad_output=mis[0], output=mis[1], dim=-1, out=mis[2])
            np.testing.assert_array_equal(_bits_or_nan(got), _bits_or_nan(np.ascontiguousarray(staged)),
                                          err_msg=f"rows of {n}, specials {inject}")
