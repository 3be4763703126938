"""Simulator self-tests: every hardware rule the simulator claims to model raises, from Python, as
SimulatorError — never a crash — and a generated kernel that forgets its tail is caught.

Small hand-written kernels (below, one C++ file, one per test selected by name) are compiled with the simulator
for each architecture once per session.
"""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

import codegen
from codegen.backends.ascendc import SimulatorError, build
from codegen.backends.ascendc.binding import raise_for, run_kernel
from codegen.backends.ascendc.plan import ARCH, plan

KERNELS = r'''
#include <iostream>
#include <string>
#include "kernel_operator.h"
using namespace AscendC;

// Copy `n` floats in and out through a VECIN and a VECOUT queue; `mode` breaks one rule.
extern "C" __global__ __aicore__ void probe(GM_ADDR x, GM_ADDR y, GM_ADDR modePtr, uint32_t n, uint32_t ubBytes)
{
    const std::string mode(reinterpret_cast<const char*>(modePtr));
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> in;
    TQue<QuePosition::VECOUT, 1> out;
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, n);
    yGm.SetGlobalBuffer((__gm__ float*)y, n);
    pipe.InitBuffer(in, 1, ubBytes);
    pipe.InitBuffer(out, 1, ubBytes);
    if (mode == "blocks") {  // every block writes its index into its own 32-byte slot
        LocalTensor<float> t = out.AllocTensor<float>();
        Duplicate(t, static_cast<float>(GetBlockIdx()), 8);
        out.EnQue(t);
        LocalTensor<float> u = out.DeQue<float>();
        DataCopy(yGm[GetBlockIdx() * 8], u, 8);
        out.FreeTensor(u);
        return;
    }
    if (mode == "deque-empty") { LocalTensor<float> t = in.DeQue<float>(); in.FreeTensor(t); return; }
    if (mode == "scalar-store" || mode == "scalar-store-flushed" || mode == "shared-line") {
        // each block writes one element by a scalar store: its own 64-byte line, or (shared-line) a neighbour's
        GlobalTensor<float> mine = yGm[GetBlockIdx() * (mode == "shared-line" ? 1 : 16)];
        mine.SetValue(0, 1.0F);
        if (mode != "scalar-store") DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE>(mine);
        return;
    }
    LocalTensor<float> a = in.AllocTensor<float>();
    if (mode == "pad") {
        DataCopyPad(a, xGm, DataCopyExtParams{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0},
                    DataCopyPadExtParams<float>{false, 0, 0, 0.0F});
    } else {
        DataCopy(a, xGm, n);  // rounds n*4 bytes down to 32
    }
    if (mode == "gm-bounds") DataCopy(a, xGm[n], 64);
    in.EnQue(a);
    LocalTensor<float> b = in.DeQue<float>();
    LocalTensor<float> c = out.AllocTensor<float>();
    if (mode == "misaligned") Adds(c, b[3], 1.0F, 8);
    if (mode == "compare") {
        LocalTensor<uint8_t> m = c.ReinterpretCast<uint8_t>();
        CompareScalar(m, b, 0.0F, CMPMODE::GT, 48);  // 192 bytes: not a whole 256-byte block
    }
    if (mode == "compare-scalar") CompareScalar(c.ReinterpretCast<uint8_t>(), b, 0.0F, CMPMODE::GT, 64);
    if (mode == "select-2") Select(c, b.ReinterpretCast<uint8_t>(), b, b, SELMODE::VSEL_TENSOR_TENSOR_MODE, 64);
    if (mode == "select-1") Select(c, b.ReinterpretCast<uint8_t>(), b, 0.0F, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64);
    if (mode == "cast-rint") {
        LocalTensor<half> h = c.ReinterpretCast<half>();
        Cast(h, b, RoundMode::CAST_RINT, 64);
    }
#if __CCE_AICORE__ == 220  // bfloat16_t exists on dav-c220 only
    if (mode == "cast-bf16-none") {
        LocalTensor<bfloat16_t> h = c.ReinterpretCast<bfloat16_t>();
        Cast(h, b, RoundMode::CAST_NONE, 64);
    }
#endif
    Muls(c, b, 1.0F, n);
    out.EnQue(c);
    if (mode == "use-after-enque") Muls(c, b, 2.0F, n);
    if (mode != "never-freed") in.FreeTensor(b);
    if (mode == "double-free") in.FreeTensor(b);
    LocalTensor<float> d = out.DeQue<float>();
    if (mode == "pad") DataCopyPad(yGm, d, DataCopyExtParams{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0});
    else DataCopy(yGm, d, n);
    out.FreeTensor(d);
}

int main(int argc, char** argv)
{
    // argv: product mode n ubBytes blockDim
    try {
        sim::SetProduct(argv[1]);
        const uint32_t n = std::stoul(argv[3]), ub = std::stoul(argv[4]), blocks = std::stoul(argv[5]);
        GM_ADDR x = GmAlloc(n * 4), y = GmAlloc(blocks * 32 > n * 4 ? blocks * 32 : n * 4);
        GM_ADDR mode = GmAlloc(64);
        std::snprintf(reinterpret_cast<char*>(mode), 64, "%s", argv[2]);
        for (uint32_t i = 0; i < n; ++i) reinterpret_cast<float*>(x)[i] = float(i + 1);
        ICPU_RUN_KF(probe, blocks, x, y, mode, n, ub);
        const uint32_t m = std::string(argv[2]) == "blocks" ? blocks * 8 : n;
        for (uint32_t i = 0; i < m; ++i) std::cout << reinterpret_cast<float*>(y)[i] << "\n";
        return 0;
    } catch (const sim::Error& e) {
        std::cerr << "opgen-sim error [" << e.rule << "]: " << e.what() << "\n";
        return 3;
    }
}
'''


@pytest.fixture(scope="session")
def probe():
    exes = dict(zip((100, 200, 220), build.build_many([("selftest", {"probe.cpp": KERNELS}, "probe.cpp", a)
                                                   for a in (100, 200, 220)])))

    def run(product, mode, n=16, ub=1024, blocks=1, arch=None):
        r = subprocess.run([str(exes[arch or ARCH[product]]), product, mode, str(n), str(ub), str(blocks)],
                           capture_output=True, text=True, timeout=60)
        raise_for(r)
        return np.array([float(v) for v in r.stdout.split()], np.float32)
    return run


def test_a_correct_kernel_runs(probe):
    np.testing.assert_array_equal(probe("ascend910", "ok", n=16), np.arange(1, 17))
    np.testing.assert_array_equal(probe("ascend910b", "pad", n=13), np.arange(1, 14))


def test_every_block_index_of_a_launch_runs(probe):
    got = probe("ascend910b", "blocks", blocks=40)
    np.testing.assert_array_equal(got.reshape(40, 8)[:, 0], np.arange(40))


def test_datacopy_rounds_down_to_32_bytes_silently(probe):
    got = probe("ascend910", "ok", n=13)   # 52 bytes: only the first 32 (8 floats) move each way
    np.testing.assert_array_equal(got[:8], np.arange(1, 9))
    assert np.isnan(got[8:]).all(), "the last 5 elements must never have been written (device memory is NaN)"


@pytest.mark.parametrize("product, mode, n, ub, rule", [
    ("ascend910b", "ok", 16, 100 * 1024, "ub-overflow"),      # 2 x 100 KiB > 192 KiB
    ("ascend910", "ok", 16, 129 * 1024, "ub-overflow"),       # 2 x 129 KiB > 256 KiB
    ("ascend910", "misaligned", 16, 1024, "ub-align"),        # b[3] is 12 bytes into a buffer
    ("ascend910", "pad", 16, 1024, "datacopypad"),            # no DataCopyPad on the training series
    ("ascend310p", "pad", 16, 1024, "datacopypad"),           # nor on the inference series
    ("ascend910b", "compare", 64, 1024, "compare-256"),
    ("ascend910", "deque-empty", 16, 1024, "queue"),
    ("ascend910", "never-freed", 16, 1024, "queue"),
    ("ascend910b", "double-free", 16, 1024, "queue"),
    ("ascend910b", "use-after-enque", 16, 1024, "queue"),
    ("ascend910", "gm-bounds", 16, 1024, "gm-bounds"),
    # what the product's API does not have (socs.py), refused as CANN's CPU-debug build refuses it
    ("ascend910", "compare-scalar", 64, 1024, "not-supported"),
    ("ascend910", "select-2", 64, 1024, "not-supported"),
    ("ascend910", "select-1", 64, 1024, "not-supported"),
    ("ascend910", "cast-rint", 64, 1024, "not-supported"),
    ("ascend310p", "cast-rint", 64, 1024, "not-supported"),
    ("ascend910b", "cast-bf16-none", 64, 1024, "not-supported"),   # float -> bfloat16 needs a rounding mode
    # Select modes 1/2 use the API's scratch at TMP_UB_OFFSET (184 KB on A2, 248 KB on the inference series)
    ("ascend910b", "select-2", 64, 93 * 1024, "ub-reserved"),
    ("ascend310p", "select-1", 64, 125 * 1024, "ub-reserved"),
    # scalar stores to GM go through the data cache: flushed before the core ends, never a line of another core
    ("ascend310p", "scalar-store", 16, 1024, "dcache"),
    ("ascend910b", "scalar-store", 16, 1024, "dcache"),
])
def test_each_hardware_rule_raises(probe, product, mode, n, ub, rule):
    with pytest.raises(SimulatorError) as info:
        probe(product, mode, n=n, ub=ub)
    assert info.value.rule == rule, info.value
    assert info.value.message


@pytest.mark.parametrize("product, mode", [("ascend910b", "select-2"), ("ascend310p", "select-1"),
                                           ("ascend910b", "compare-scalar"), ("ascend910b", "cast-rint")])
def test_what_a_product_has_runs(probe, product, mode):
    probe(product, mode, n=64, ub=92 * 1024)   # two 92 KB buffers end below TMP_UB_OFFSET (184 KB)


def test_scalar_stores_of_two_cores_in_one_cache_line_are_caught(probe):
    probe("ascend310p", "scalar-store-flushed", n=64, blocks=4)   # each core its own 64-byte line: fine
    with pytest.raises(SimulatorError) as info:
        probe("ascend310p", "shared-line", n=64, blocks=4)         # neighbours 4 bytes apart
    assert info.value.rule == "cache-line"


def test_the_simulator_models_the_socs_rules():
    """The simulator's product table (opgen_sim/state.h) says what codegen/backends/ascendc/socs.py says."""
    import re
    from codegen.backends.ascendc import socs
    text = (build.SIMULATOR / "opgen_sim" / "state.h").read_text()
    rows = re.findall(r'\{"(\w+)", (\d+) \* 1024, (\d+) \* 1024, \d+, (\w+), (\w+), (\d+), (\w+), (\w+), (\w+), '
                      r'(\w+)\}', text)
    assert {r[0] for r in rows} == set(socs.SOC_ARCH)
    for soc, ub, tmp, pad, bf16, aicore, cmps, sel12, rint, minmax in rows:
        assert minmax == str(socs.arch_of(soc).scalar_minmax).lower(), soc
        a = socs.arch_of(soc)
        assert (int(ub) * 1024, int(tmp) * 1024, int(aicore)) == (a.ub_bytes, a.tmp_ub_offset, a.aicore), soc
        assert (pad, bf16, cmps, sel12) == tuple(str(x).lower() for x in (a.data_copy_pad, a.bf16, a.compare_scalar,
                                                                         2 in a.select_modes)), soc
        assert rint == str(a.cast_round["FLOAT16"] == "CAST_RINT").lower(), soc


def test_elu_is_right_where_select_scratch_would_overlap_the_tiles():
    """ELU on ascend910b: tiles of more than 184 KB reached into Select's scratch at TMP_UB_OFFSET for
    n > 225,280 elements (the mask was overwritten).  The tiling now stops below it; values must match NumPy."""
    from codegen.backends.ascendc.socs import tiling_ub
    name = "elu_backward"
    rng = np.random.default_rng(3)
    n = 300_001
    x = rng.uniform(-3, 3, n).astype(np.float32)
    g = rng.uniform(-1, 1, n).astype(np.float32)
    kw = dict(grad_output=g, alpha=1.0, scale=1.0, input_scale=1.0, is_result=False, self_or_result=x)
    report = {}
    op = codegen.load_specs()[name]
    from codegen.backends.numpy import load_module
    from codegen.runtime.checks import Allocate
    call = {**kw, **load_module(op).check(g, 1.0, 1.0, 1.0, False, x, Allocate("FLOAT"), "ascend910b")}
    got = run_kernel(op, plan(op), call, (n,), "FLOAT", "ascend910b", report=report)
    assert report["ubPeak"] <= tiling_ub("ascend910b") == 184 * 1024
    want = codegen.kernel(name)(**kw, product="ascend910b")
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-30)


def test_a_binary_refuses_a_product_of_another_architecture(probe):
    with pytest.raises(SimulatorError, match="__CCE_AICORE__"):
        probe("ascend310p", "ok", arch=100)


@pytest.mark.ci_share(2)   # each case compiles a broken kernel for the simulator (20-25 s)
@pytest.mark.parametrize("product", ["ascend910", "ascend910b"])
@pytest.mark.parametrize("name", ["log_sigmoid_backward", "softmax_backward"])
def test_a_kernel_that_forgets_the_tail_is_caught(product, name):
    """The generated kernel with plain DataCopy of `len` elements (no DataCopyPad, no padding): lengths that are
    not whole 32-byte blocks lose their tail, so the result is wrong — never equal to the NumPy backend's."""
    op = codegen.load_specs()[name]
    rng = np.random.default_rng(1)
    shape = (3, 17) if op.reduce_dim else (17,)
    kw = {t.py_name: rng.uniform(0.1, 1, shape).astype(np.float32) for t in op.tensors}
    kw.update({a.py_name: -1 for a in op.attrs})
    want = codegen.kernel(name)(**kw, product=product)
    good = run_kernel(op, plan(op), kw, want.shape, "FLOAT", product)
    np.testing.assert_allclose(good, want, rtol=1e-6, atol=1e-7)
    try:
        broken = run_kernel(op, plan(op), kw, want.shape, "FLOAT", product, forget_tail=True)
    except SimulatorError:
        return  # refusing is also a catch
    assert not np.allclose(broken, want, equal_nan=False), "a kernel that loses its tail passed"


def test_softmax_rows_on_ascend910_use_many_cores_without_sharing_a_line():
    """64 rows of 1000 on ascend910 (no DataCopyPad: each core stores its unaligned tail by scalar writes): 32
    cores, two rows each (2000 floats, whole 64-byte lines), no `cache-line` error, NumPy's values."""
    name = "softmax_backward"
    op = codegen.load_specs()[name]
    rng = np.random.default_rng(5)
    g, y = (rng.uniform(0.1, 1, (64, 1000)).astype(np.float32) for _ in range(2))
    from codegen.backends.numpy import load_module
    from codegen.runtime.checks import Allocate
    call = {"grad_output": g, "output": y, "dim": 1}
    call.update(load_module(op).check(g, y, 1, Allocate("FLOAT"), "ascend910"))
    report = {}
    got = run_kernel(op, plan(op), call, (64, 1000), "FLOAT", "ascend910", report=report)
    assert report["blocksRun"] == 32 and report["rowsPerCore"] == 2
    want = codegen.kernel(name)(grad_output=g, output=y, dim=1, product="ascend910")
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("qualifier, compiles", [("const ", False), ("", True)])
def test_a_scalar_store_through_a_const_global_tensor_does_not_compile(tmp_path, qualifier, compiles):
    """The real GlobalTensor::SetValue is not const (asc-devkit's kernel_tensor.h), so a kernel that stores
    through a `const GlobalTensor&` compiles on neither; the simulator once declared it const and accepted it."""
    src = tmp_path / "store.cpp"
    src.write_text('#include "kernel_operator.h"\nusing namespace AscendC;\n'
                   f"void Store({qualifier}GlobalTensor<float>& dst) {{ dst.SetValue(0, 1.0F); }}\n")
    run = subprocess.run([build.CXX, *build.FLAGS, "-D__CCE_AICORE__=100", "-fsyntax-only", "-I",
                          str(build.SIMULATOR), str(src)], capture_output=True, text=True)
    assert (run.returncode == 0) == compiles, run.stderr[-2000:]
    if not compiles:
        assert "SetValue" in run.stderr
