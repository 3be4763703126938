// opgen Ascend C simulator: moving data between device memory (GM) and the unified buffer (UB).
//
//  - DataCopy moves count*sizeof(T) bytes rounded DOWN to a multiple of 32: an unpadded tail is silently lost,
//    as on the hardware.  UB operands must be 32-byte aligned.
//  - DataCopyPad moves exact byte lengths; it exists only on products with DataCopyPad (A2/A3); elsewhere it is
//    an error ("datacopypad").
//  - GM accesses must stay inside a device allocation ("gm-bounds").
#pragma once
#include "memory.h"

namespace AscendC {

struct DataCopyExtParams {
    uint16_t blockCount = 1;  // number of contiguous blocks
    uint32_t blockLen = 0;    // bytes per block
    uint32_t srcStride = 0;   // gap after each source block: bytes in GM, 32-byte blocks in UB
    uint32_t dstStride = 0;   // gap after each destination block: bytes in GM, 32-byte blocks in UB
    uint32_t rsv = 0;
    DataCopyExtParams() = default;
    DataCopyExtParams(uint16_t count, uint32_t len, uint32_t src, uint32_t dst, uint32_t r)
        : blockCount(count), blockLen(len), srcStride(src), dstStride(dst), rsv(r) {}
};

template <typename T>
struct DataCopyPadExtParams {
    bool isPad = false;        // fill the left/right padding with paddingValue
    uint8_t leftPadding = 0;   // elements before each block in UB
    uint8_t rightPadding = 0;  // elements after each block in UB
    T paddingValue{};
    DataCopyPadExtParams() = default;
    DataCopyPadExtParams(bool pad, uint8_t left, uint8_t right, T value)
        : isPad(pad), leftPadding(left), rightPadding(right), paddingValue(value) {}
};

enum class CacheLine : uint64_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint64_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };

// Flush the data-cache line holding dst[0] to GM (dav-m200 and dav-c220; dav-c100 has no such instruction).
template <typename T, CacheLine entireType>
void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst) {
    if (sim::Product().aicore == 100)
        sim::NotSupported("DataCacheCleanAndInvalid", "dav-c100 has no data-cache maintenance instruction");
    if (entireType == CacheLine::ENTIRE_DATA_CACHE) sim::S().dirtyLines.clear();
    else sim::S().dirtyLines.erase(reinterpret_cast<uintptr_t>(dst.GetPhyAddr()) / 64);
}

namespace sim {
// Every GM line [p, p + bytes) touches was written by the running block.
inline void WroteGm(const void* p, uint64_t bytes) {
    if (bytes == 0) return;
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    for (uintptr_t line = a / 64; line <= (a + bytes - 1) / 64; ++line) S().lineWriters[line].insert(S().blockIdx);
}

inline uint64_t RoundDown32(uint64_t bytes) { return bytes / 32 * 32; }

inline void NeedDataCopyPad() {
    if (!Product().dataCopyPad)
        Fail("datacopypad", std::string("DataCopyPad does not exist on ") + Product().soc +
                                " (only A2/A3 have it): pad the tail with an aligned DataCopy instead");
}
}  // namespace sim

// GM -> UB
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count) {
    const uint64_t bytes = sim::RoundDown32(uint64_t(count) * sizeof(T));
    uint8_t* d = (uint8_t*)dst.Use("DataCopy(GM->UB)", bytes);
    if (bytes == 0) return;
    sim::GmCheck(src.ptr_, bytes, "DataCopy(GM->UB)");
    std::memcpy(d, src.ptr_, bytes);
}

// UB -> GM
template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
    const uint64_t bytes = sim::RoundDown32(uint64_t(count) * sizeof(T));
    const uint8_t* s = (const uint8_t*)src.Use("DataCopy(UB->GM)", bytes);
    if (bytes == 0) return;
    sim::GmCheck(dst.ptr_, bytes, "DataCopy(UB->GM)");
    std::memcpy(dst.ptr_, s, bytes);
    sim::WroteGm(dst.ptr_, bytes);
}

// UB -> UB
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
    const uint64_t bytes = sim::RoundDown32(uint64_t(count) * sizeof(T));
    uint8_t* d = (uint8_t*)dst.Use("DataCopy(UB->UB)", bytes);
    const uint8_t* s = (const uint8_t*)src.Use("DataCopy(UB->UB)", bytes);
    std::memmove(d, s, bytes);
}

// GM -> UB, exact lengths; each block lands on a 32-byte boundary in UB.
template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                 const DataCopyPadExtParams<T>& pad) {
    sim::NeedDataCopyPad();
    if (p.blockLen % sizeof(T) != 0) sim::Fail("datacopypad", "DataCopyPad: blockLen is not a whole number of elements");
    const uint64_t padded = uint64_t(pad.leftPadding + pad.rightPadding) * sizeof(T) + p.blockLen;
    const uint64_t row = (padded + 31) / 32 * 32 + uint64_t(p.dstStride) * 32;
    const uint64_t total = p.blockCount ? row * (p.blockCount - 1) + padded : 0;
    uint8_t* d = (uint8_t*)dst.Use("DataCopyPad(GM->UB)", total);
    const uint8_t* s = (const uint8_t*)src.ptr_;
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        const uint8_t* from = s + uint64_t(i) * (p.blockLen + p.srcStride);
        sim::GmCheck(from, p.blockLen, "DataCopyPad(GM->UB)");
        uint8_t* to = d + i * row;
        if (pad.isPad)
            for (uint32_t k = 0; k < pad.leftPadding; ++k) std::memcpy(to + k * sizeof(T), &pad.paddingValue, sizeof(T));
        std::memcpy(to + pad.leftPadding * sizeof(T), from, p.blockLen);
        if (pad.isPad)
            for (uint32_t k = 0; k < pad.rightPadding; ++k)
                std::memcpy(to + pad.leftPadding * sizeof(T) + p.blockLen + k * sizeof(T), &pad.paddingValue, sizeof(T));
    }
}

// UB -> GM, exact lengths.
template <typename T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p) {
    sim::NeedDataCopyPad();
    const uint64_t row = (uint64_t(p.blockLen) + 31) / 32 * 32 + uint64_t(p.srcStride) * 32;
    const uint64_t total = p.blockCount ? row * (p.blockCount - 1) + p.blockLen : 0;
    const uint8_t* s = (const uint8_t*)src.Use("DataCopyPad(UB->GM)", total);
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        uint8_t* to = (uint8_t*)dst.ptr_ + uint64_t(i) * (p.blockLen + p.dstStride);
        sim::GmCheck(to, p.blockLen, "DataCopyPad(UB->GM)");
        std::memcpy(to, s + i * row, p.blockLen);
        sim::WroteGm(to, p.blockLen);
    }
}

}  // namespace AscendC
