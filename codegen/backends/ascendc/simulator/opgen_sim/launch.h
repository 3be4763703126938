// opgen Ascend C simulator: launching a kernel on every block index, tiling data and tiling keys.
//
// ICPU_RUN_KF(kernel, blockDim, args...) — the name CANN's CPU twin debug mode uses — runs the kernel once per
// block index 0..blockDim-1, each on a fresh AI core: an empty UB filled with 0xFF bytes (NaN), no buffers, no
// pipe.  A block whose queues still hold tensors when the kernel returns is an error, and so is one that leaves
// scalar GM stores in its data cache ("dcache"), or a 64-byte GM line written by a scalar store of one core and
// by another core ("cache-line": flushing one core's line overwrites the other's bytes).
#pragma once
#include <cstring>

#include "memory.h"

namespace AscendC {
namespace sim {

template <typename F>
void RunKernel(const char* name, uint32_t blockDim, F&& body) {
    const ProductInfo& p = Product();
    if (blockDim == 0) Fail("launch", std::string(name) + ": blockDim 0");
    State& s = S();
    s.blocksRun.clear();
    s.ubPeak = 0;
    s.lineWriters.clear();
    s.scalarLines.clear();
    for (uint32_t i = 0; i < blockDim; ++i) {
        s.ub.assign(p.ubBytes, 0xFF);
        s.ubTop = 0;
        s.pipes = 0;
        s.leaks.clear();
        Buffers().clear();
        s.blockIdx = i;
        s.blockNum = blockDim;
        body();
        s.blockIdx = -1;
        if (!s.leaks.empty()) Fail("queue", std::string(name) + " block " + Str(i) + ": " + s.leaks.front());
        if (!s.dirtyLines.empty())
            Fail("dcache", std::string(name) + " block " + Str(i) + ": GlobalTensor::SetValue left " +
                               Str(s.dirtyLines.size()) + " GM line(s) in the data cache (DataCacheCleanAndInvalid)");
        s.blocksRun.push_back(i);
    }
    for (uintptr_t line : s.scalarLines)
        if (s.lineWriters[line].size() > 1)
            Fail("cache-line", std::string(name) + ": cores " + Str(*s.lineWriters[line].begin()) + " and " +
                                   Str(*s.lineWriters[line].rbegin()) + " both write one 64-byte GM line, one of "
                                   "them by scalar stores: give each core whole cache lines");
}

inline void SetTilingKey(uint64_t key) { S().tilingKey = key; }

template <typename T>
void LoadTiling(T& t, const uint8_t* p) {
    GmCheck(p, sizeof(T), "GET_TILING_DATA");
    std::memcpy(&t, p, sizeof(T));
}

}  // namespace sim
}  // namespace AscendC

#define ICPU_RUN_KF(func, blockDim, ...) ::AscendC::sim::RunKernel(#func, (blockDim), [&]() { func(__VA_ARGS__); })

// The kernel side of tiling (CANN's build generates these): REGISTER_TILING_DEFAULT names the kernel's tiling
// struct (op_kernel/<op>_tiling.h), GET_TILING_DATA copies it from GM.
#define REGISTER_TILING_DEFAULT(type) using OpgenSimTilingType = type
#define GET_TILING_DATA(var, tiling) \
    OpgenSimTilingType var;          \
    ::AscendC::sim::LoadTiling(var, (const uint8_t*)(tiling))
#define TILING_KEY_IS(key) (::AscendC::sim::S().tilingKey == uint64_t(key))
