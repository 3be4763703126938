// opgen Ascend C simulator: errors, the products it models, and the state of the running AI core.
//
// Every broken hardware rule is an `AscendC::sim::Error` exception carrying the rule's short name; the launcher
// turns it into a message and an exit code, so a kernel bug never crashes the caller.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "types.h"

namespace AscendC {
namespace sim {

struct Error : std::runtime_error {
    std::string rule;  // short name of the rule broken, e.g. "ub-overflow", "queue", "compare-256"
    Error(const std::string& r, const std::string& msg) : std::runtime_error(msg), rule(r) {}
};

[[noreturn]] inline void Fail(const std::string& rule, const std::string& msg) { throw Error(rule, msg); }

inline std::string Str(uint64_t v) { return std::to_string(v); }

// ascend.md §3.  `aicore` is the __CCE_AICORE__ value of the architecture the kernel is compiled for.
// The API rules per architecture are those of codegen/backends/ascendc/socs.py (a test checks they agree).
struct ProductInfo {
    const char* soc;
    uint32_t ubBytes;      // unified buffer per AI core (TOTAL_UB_SIZE)
    uint32_t tmpUbOffset;  // TMP_UB_OFFSET: the API's own scratch (Select modes 1/2, ...) is [this, ubBytes)
    uint32_t cores;        // vector cores
    bool dataCopyPad;      // DataCopyPad exists
    bool bf16;             // bfloat16 exists
    int aicore;            // __CCE_AICORE__ of its architecture
    bool compareScalar;    // CompareScalar / Compares exist
    bool selectModes12;    // Select modes 1 and 2 exist (else mode 0 only)
    bool rintToHalf;       // Cast float -> half takes CAST_RINT (else only CAST_NONE, itself round-to-nearest)
    bool scalarMinMax;     // Maxs / Mins exist
};

inline const ProductInfo kProducts[] = {
    {"ascend910", 256 * 1024, 248 * 1024, 32, false, false, 100, false, false, false, false},
    {"ascend310p", 256 * 1024, 248 * 1024, 8, false, false, 200, true, true, false, true},
    {"ascend910b", 192 * 1024, 184 * 1024, 40, true, true, 220, true, true, true, true},
    {"ascend910_93", 192 * 1024, 184 * 1024, 48, true, true, 220, true, true, true, true},
};

inline const ProductInfo* FindProduct(const std::string& soc) {
    for (const auto& p : kProducts)
        if (soc == p.soc) return &p;
    return nullptr;
}

// One device allocation.  Like aclrtMalloc, the usable size is the request rounded up to 32 bytes plus 32
// bytes; anything outside is out of bounds.  Fresh memory holds 0xFF bytes (NaN in every float format), so a
// kernel that reads what it never wrote, or leaves an output element unwritten, shows NaN.
struct GmRegion {
    uint8_t* base;
    uint64_t bytes;     // usable bytes
    uint64_t request;   // bytes asked for
};

struct BufferRec;  // a queue or TBuf buffer in UB (memory.h)

struct State {
    const ProductInfo* product = nullptr;
    std::vector<uint8_t> ub;           // the unified buffer of the running core
    uint32_t ubTop = 0;                // next free UB byte (TPipe::InitBuffer allocates upwards)
    uint32_t ubPeak = 0;               // the most UB any core of the launch used
    int64_t blockIdx = -1;
    int64_t blockNum = 0;
    uint64_t tilingKey = 0;
    int pipes = 0;                     // TPipe objects alive on this core
    std::vector<std::string> leaks;    // queue-protocol faults found when queues are destroyed
    std::vector<int64_t> blocksRun;    // block indices that ran to completion
    std::set<uintptr_t> dirtyLines;    // 64-byte GM lines this core wrote by scalar stores, not yet flushed
    std::map<uintptr_t, std::set<int64_t>> lineWriters;  // GM line -> blocks that wrote it (any way)
    std::set<uintptr_t> scalarLines;   // GM lines written by a scalar store (through a core's data cache)
    std::map<uint8_t*, GmRegion> gm;   // device allocations by base address
    std::vector<std::unique_ptr<uint8_t[]>> gmOwned;
};

inline State& S() {
    static State s;
    return s;
}

inline const ProductInfo& Product() {
    if (!S().product) Fail("launch", "no product selected: call AscendC::sim::SetProduct before launching");
    return *S().product;
}

// A construct the product's API refuses (what CANN's CPU-debug build reports as "not supported"): the error
// names the instruction, the product and the rule.
[[noreturn]] inline void NotSupported(const std::string& what, const std::string& rule) {
    Fail("not-supported", what + " is not supported on " + Product().soc + " (__CCE_AICORE__=" +
                              std::to_string(Product().aicore) + "): " + rule);
}

inline void SetProduct(const std::string& soc) {
    const ProductInfo* p = FindProduct(soc);
    if (!p) Fail("launch", "unknown product " + soc);
#ifdef __CCE_AICORE__
    if (p->aicore != __CCE_AICORE__)
        Fail("launch", "this binary is compiled for __CCE_AICORE__=" + Str(__CCE_AICORE__) + ", but " + soc +
                           " is __CCE_AICORE__=" + Str(p->aicore));
#endif
    S().product = p;
}

// The region holding [p, p + bytes); fails with the rule "gm-bounds" when there is none.
inline const GmRegion& GmCheck(const void* p, uint64_t bytes, const char* what) {
    auto* a = (uint8_t*)p;
    auto it = S().gm.upper_bound(a);
    if (it != S().gm.begin()) {
        --it;
        const GmRegion& r = it->second;
        if (a >= r.base && a + bytes <= r.base + r.bytes) return r;
        if (a >= r.base && a < r.base + r.bytes)
            Fail("gm-bounds", std::string(what) + ": " + Str(bytes) + " bytes at offset " + Str(a - r.base) +
                                  " run past the end of a " + Str(r.request) + "-byte device allocation (usable " +
                                  Str(r.bytes) + " bytes)");
    }
    Fail("gm-bounds", std::string(what) + ": address is not inside any device allocation");
}

}  // namespace sim

// The CPU-twin allocator of device memory (CANN's AscendC::GmAlloc / GmFree).
inline uint8_t* GmAlloc(uint64_t bytes) {
    const uint64_t usable = (bytes + 31) / 32 * 32 + 32;
    auto mem = std::unique_ptr<uint8_t[]>(new uint8_t[usable + 64]);
    uint8_t* base = (uint8_t*)(((uintptr_t)mem.get() + 63) & ~uintptr_t(63));
    std::memset(base, 0xFF, usable);
    sim::S().gm[base] = sim::GmRegion{base, usable, bytes};
    sim::S().gmOwned.push_back(std::move(mem));
    return base;
}

inline void GmFree(void* p) { sim::S().gm.erase((uint8_t*)p); }

inline int64_t GetBlockIdx() { return sim::S().blockIdx; }
inline int64_t GetBlockNum() { return sim::S().blockNum; }

}  // namespace AscendC
