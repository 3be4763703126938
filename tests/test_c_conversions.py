"""FLOAT16 and BFLOAT16 conversions of the C runtime (opgen_half.h) against NumPy and ml_dtypes.

Widening is checked on every one of the 65536 bit patterns; narrowing on every float that decides a rounding —
each representable half/bfloat16 value, the midpoints between neighbours and the floats just either side of
them (ties go to even), the overflow threshold, subnormals — plus random floats, ±0, ±inf and nans (which must
stay nan, with their sign).
"""
from __future__ import annotations

import subprocess

import ml_dtypes
import numpy as np
import pytest

import codegen
from codegen.backends.c.examples import write_tree

from .conftest import TESTS, native_defines


@pytest.fixture(scope="module")
def convert(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("half")
    write_tree(tmp, next(iter(codegen.load_specs().values())))
    exe = tmp / "half_convert"
    build = subprocess.run(["cc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-I",
                            str(tmp / "generated" / "c" / "src"), str(TESTS / "c" / "half_convert.c"), "-o", str(exe)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr

    def run(words: np.ndarray) -> np.ndarray:
        out = subprocess.run([str(exe)], input=words.astype("<u4").tobytes(), capture_output=True, check=True).stdout
        return np.frombuffer(out, "<u4").reshape(-1, 4)
    run.source = tmp / "generated" / "c" / "src"
    return run


def _boundaries(dtype) -> np.ndarray:
    """Every finite value of a 16-bit float type as float32, midpoints to the next value, and their neighbours."""
    vals = np.arange(0, 0x7c00 if dtype == np.float16 else 0x7f80, dtype=np.uint16).view(dtype).astype(np.float64)
    mids = (vals[:-1] + vals[1:]) / 2
    mids = np.concatenate([mids, [vals[-1] + (vals[-1] - vals[-2]) / 2]])   # halfway to the overflow
    pts = np.concatenate([vals, mids]).astype(np.float32)
    bits = pts.view(np.uint32)
    near = np.concatenate([bits, bits + 1, bits - 1])
    near = near.view(np.float32)
    return np.concatenate([near, -near])


def test_widening_every_bit_pattern(convert):
    words = np.arange(1 << 16, dtype=np.uint32)
    out = convert(words)
    want16 = words.astype(np.uint16).view(np.float16).astype(np.float32)
    wantbf = words.astype(np.uint16).view(ml_dtypes.bfloat16).astype(np.float32)
    for got, want in ((out[:, 2], want16), (out[:, 3], wantbf)):
        got = got.view(np.float32)
        nan = np.isnan(want)
        assert (np.isnan(got) == nan).all()
        np.testing.assert_array_equal(got.view(np.uint32)[~nan], want.view(np.uint32)[~nan])
        assert (np.signbit(got[nan]) == np.signbit(want[nan])).all()


@pytest.mark.parametrize("name, dtype, col", [("FLOAT16", np.float16, 0), ("BFLOAT16", ml_dtypes.bfloat16, 1)])
def test_narrowing_rounds_to_nearest_even(convert, name, dtype, col):
    rng = np.random.default_rng(0)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, 65504.0, 65520.0, 65519.996, 1e-8, -1e-8, 2.0 ** -25,
                         2.0 ** -24, 3 * 2.0 ** -26, 1e38, -3.4e38], np.float32)
    randoms = rng.integers(0, 2 ** 32, 200_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    floats = np.concatenate([_boundaries(dtype), specials, randoms])
    got = convert(floats.view(np.uint32))[:, col].astype(np.uint16).view(dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        want = floats.astype(dtype)
    nan = np.isnan(floats)
    assert np.isnan(got.astype(np.float32)[nan]).all(), f"{name}: a nan did not stay nan"
    assert (np.signbit(got.astype(np.float32)[nan]) == np.signbit(floats[nan])).all()
    bad = np.flatnonzero(got.view(np.uint16)[~nan] != want.view(np.uint16)[~nan])
    assert not bad.size, (f"{name}: {bad.size} roundings differ, e.g. {floats[~nan][bad[0]]!r}: "
                          f"{got[~nan][bad[0]]} vs {want[~nan][bad[0]]}")


@pytest.mark.parametrize("flags", [[], ["-mno-avx512dq"], ["-mno-avx512bf16"], ["-mno-avx512f"]],
                         ids=["native", "native without AVX512DQ", "native without AVX512_BF16",
                              "native without AVX-512"])
def test_vector_conversions_give_the_scalar_bits(convert, tmp_path, flags):
    """The vector conversions of the kernels' chunks (opgen_half.h: AVX-512, or AVX2/F16C) — the narrowings 16
    values at a time, in order and in AVX2's unpack order, AVX-512's even/odd order both ways, and the block
    functions both ways — give the bits of the scalar functions checked above, on every float of the narrowing
    test (nans, subnormals) and every half.
    Built natively, then without each ISA extension the native build has, so that every vector path runs."""
    # (__AVX512F__: opgen_half.h converts 16 values per register; __AVX512BF16__: it narrows BFLOAT16 with
    # vcvtneps2bf16; __AVX512DQ__: it finds the subnormals, which that instruction flushes, with vfpclassps)
    if flags and not native_defines(flags[0].replace("-mno-", "__").upper() + "__"):
        pytest.skip(f"the native build here is already the build with {flags[0]}")
    exe = tmp_path / "half_vectors"
    build = subprocess.run(["cc", "-std=c11", "-O2", "-march=native", *flags, "-Wall", "-Wextra", "-Werror", "-I",
                            str(convert.source), str(TESTS / "c" / "half_vectors.c"), "-o", str(exe)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    rng = np.random.default_rng(1)
    nans = np.array([0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fbfffff, 0x7fffffff], np.uint32)
    floats = np.concatenate([_boundaries(np.float16), _boundaries(ml_dtypes.bfloat16), nans.view(np.float32),
                             np.arange(1 << 16, dtype=np.uint32).view(np.float32),     # (every half, widened)
                             rng.integers(0, 2 ** 32, 100_000, dtype=np.uint64).astype(np.uint32).view(np.float32)])
    floats = np.concatenate([floats, np.zeros(-floats.size % 32, np.float32)])
    run = subprocess.run([str(exe)], input=floats.astype("<f4").tobytes(), capture_output=True, check=True)
    if run.stderr:
        pytest.skip(run.stderr.decode().strip())
    got = np.frombuffer(run.stdout, "<u4").reshape(9, -1)
    scalar = convert(floats.view(np.uint32))
    rows = (("BFLOAT16 in order", 1), ("BFLOAT16 unpack order", 1), ("FLOAT16", 0), ("BFLOAT16 blocks", 1),
            ("FLOAT16 blocks", 0), ("FLOAT16 widened in blocks", 2), ("BFLOAT16 widened in blocks", 3),
            ("BFLOAT16 even/odd order", 1), ("BFLOAT16 widened in even/odd order", 3))
    for row, (name, col) in enumerate(rows):
        want = scalar[:, col]
        ok = got[row] == want
        if col >= 2:   # a widened nan: vcvtph2ps quiets a signalling one, which the scalar function leaves as is
            nan = np.isnan(want.view(np.float32))
            ok[nan] = np.isnan(got[row][nan].view(np.float32)) & ((got[row][nan] ^ want[nan]) >> 31 == 0)
        bad = np.flatnonzero(~ok)
        assert not bad.size, f"{name}: {bad.size} differ, e.g. {floats[bad[0]]!r}: {got[row][bad[0]]:#x} vs {want[bad[0]]:#x}"
