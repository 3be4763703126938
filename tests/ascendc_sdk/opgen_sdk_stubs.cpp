// Definitions the SDK gate links in place of CANN's closed CPU-debug library (tikicpulib), written for opgen:
// the 16-bit float conversions of stub_def.h, the tiling key global, and the closed argument checkers the open
// headers call in CPU-debug mode (AscendC::check::*Impl), which here accept everything: the checks the gate
// relies on are the open ones (ASCENDC_ASSERT, "not supported", value ranges).
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernel_operator.h"

uint64_t g_tilingKey = 0;

namespace {
// Round a float to a 16-bit binary format (EXP exponent bits, MANT mantissa bits), to nearest even.
uint16_t To16(float f, int EXP, int MANT) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    const uint16_t sign = (u >> 16) & 0x8000u;
    const int bias = (1 << (EXP - 1)) - 1;
    const uint16_t inf = uint16_t(((1u << EXP) - 1) << MANT);
    if (std::isnan(f)) return uint16_t(sign | inf | (1u << (MANT - 1)));
    if (std::isinf(f)) return uint16_t(sign | inf);
    const double a = std::fabs(double(f));
    if (a == 0) return sign;
    int e2;
    std::frexp(a, &e2);
    const int exp = std::max(e2 - 1, 1 - bias);
    const double quantum = std::ldexp(1.0, exp - MANT);
    const double r = std::nearbyint(a / quantum) * quantum;
    if (r >= std::ldexp(1.0, bias + 1)) return uint16_t(sign | inf);
    if (r < std::ldexp(1.0, 1 - bias)) return uint16_t(sign | uint16_t(r / std::ldexp(1.0, 1 - bias - MANT)));
    std::frexp(r, &e2);
    const uint32_t mant = uint32_t(r / std::ldexp(1.0, e2 - 1 - MANT)) & ((1u << MANT) - 1);
    return uint16_t(sign | uint16_t(uint32_t(e2 - 1 + bias) << MANT) | mant);
}

float From16(uint16_t h, int EXP, int MANT) {
    const int bias = (1 << (EXP - 1)) - 1;
    const uint32_t e = (h >> MANT) & ((1u << EXP) - 1), m = h & ((1u << MANT) - 1);
    float v = e == (1u << EXP) - 1 ? (m ? NAN : INFINITY)
              : e == 0            ? std::ldexp(float(m), 1 - bias - MANT)
                                  : std::ldexp(float(m | (1u << MANT)), int(e) - bias - MANT);
    return (h >> 15) ? -v : v;
}
}  // namespace

half::half(float f) : bits(To16(f, 5, 10)) {}
half::operator float() const { return From16(bits, 5, 10); }
bfloat16_t::bfloat16_t(float f) : bits(To16(f, 8, 7)) {}
bfloat16_t::operator float() const { return From16(bits, 8, 7); }

// The closed checkers, accepting everything: generated beside this file from the headers' declarations
// (tests/ascendc_sdk/closed_checkers.py).
namespace AscendC {
namespace check {
#include "opgen_checks.inc"
}  // namespace check
}  // namespace AscendC

// The CPU-debug runtime's process lock (its launcher runs one process per core; this gate runs the blocks in
// turn in one process, so there is nothing to lock) and its atomic-store state.
namespace AscendC {
ProcessLock* ProcessLock::processLock = nullptr;
ProcessLock::ProcessLock() {}
ProcessLock::~ProcessLock() {}
ProcessLock* ProcessLock::CreateLock() {
    static ProcessLock lock;
    return &lock;
}
int ProcessLock::Read() { return 0; }
int ProcessLock::Write() { return 0; }
int ProcessLock::Unlock() { return 0; }
bool g_isAtomic = false;
AtomicType g_atomicType{};
}  // namespace AscendC
