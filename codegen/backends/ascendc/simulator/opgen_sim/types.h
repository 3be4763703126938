// opgen Ascend C simulator: the 16-bit float types `half` and `bfloat16_t`, and float <-> 16-bit conversion
// with every Ascend C RoundMode.  Storage is the IEEE bit pattern, so GM and UB bytes are what the NPU holds.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace AscendC {

enum class RoundMode { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };

namespace sim {

inline uint32_t FloatBits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float BitsFloat(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// A 16-bit binary float format: `MANT` stored mantissa bits, `EXP` exponent bits.
template <int EXP, int MANT>
struct Format16 {
    static constexpr int BIAS = (1 << (EXP - 1)) - 1;
    static constexpr uint16_t INF = uint16_t(((1u << EXP) - 1) << MANT);

    static float ToFloat(uint16_t h) {
        const uint32_t sign = (h >> 15) & 1u, e = (h >> MANT) & ((1u << EXP) - 1), m = h & ((1u << MANT) - 1);
        float v;
        if (e == (1u << EXP) - 1) v = m ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
        else if (e == 0) v = std::ldexp(float(m), 1 - BIAS - MANT);          // subnormal (exact in float)
        else v = std::ldexp(float(m | (1u << MANT)), int(e) - BIAS - MANT);  // normal (exact in float)
        return sign ? -v : v;
    }

    // Round to nearest, ties to even (CAST_RINT), with overflow to infinity and gradual underflow.
    static uint16_t FromFloatRint(float f) {
        const uint16_t sign = uint16_t((FloatBits(f) >> 16) & 0x8000u);
        if (std::isnan(f)) return uint16_t(sign | INF | (1u << (MANT - 1)));
        double a = std::fabs(double(f));
        if (std::isinf(f)) return uint16_t(sign | INF);
        if (a == 0) return sign;
        int e2;
        std::frexp(a, &e2);                       // a = frac * 2^e2, frac in [0.5, 1)
        int exp = e2 - 1;                         // a = 1.xxx * 2^exp
        if (exp < 1 - BIAS) exp = 1 - BIAS;       // subnormal range: fixed quantum
        const double quantum = std::ldexp(1.0, exp - MANT);
        double q = std::nearbyint(a / quantum);   // the FPU's default mode is round-half-even
        double r = q * quantum;                   // exact
        if (r >= std::ldexp(1.0, BIAS + 1)) return uint16_t(sign | INF);
        // re-encode r
        if (r < std::ldexp(1.0, 1 - BIAS)) return uint16_t(sign | uint16_t(r / std::ldexp(1.0, 1 - BIAS - MANT)));
        int re2;
        std::frexp(r, &re2);
        const int rexp = re2 - 1;
        const uint32_t mant = uint32_t(r / std::ldexp(1.0, rexp - MANT)) & ((1u << MANT) - 1);
        return uint16_t(sign | uint16_t(uint32_t(rexp + BIAS) << MANT) | mant);
    }

    static uint16_t Next(uint16_t h, bool up) {  // the neighbouring value towards +inf (up) or -inf
        const bool neg = h & 0x8000u;
        const uint16_t mag = h & 0x7fffu;
        if (mag == 0) return up ? uint16_t(1) : uint16_t(0x8001u);
        return (up != neg) ? uint16_t(h + 1) : uint16_t(h - 1);
    }

    static uint16_t FromFloat(float f, RoundMode mode) {
        uint16_t n = FromFloatRint(f);
        if (mode == RoundMode::CAST_NONE || mode == RoundMode::CAST_RINT || std::isnan(f) || std::isinf(f)) return n;
        const double x = f, c = ToFloat(n);
        if (c == x) return n;
        uint16_t lo, hi;  // the two neighbours around x
        if (c < x) { lo = n; hi = Next(n, true); } else { hi = n; lo = Next(n, false); }
        const double dlo = ToFloat(lo), dhi = ToFloat(hi);
        switch (mode) {
            case RoundMode::CAST_FLOOR: return lo;
            case RoundMode::CAST_CEIL: return hi;
            case RoundMode::CAST_TRUNC: return x > 0 ? lo : hi;
            case RoundMode::CAST_ROUND: {  // nearest, ties away from zero
                const double a = x - dlo, b = dhi - x;
                if (a != b) return a < b ? lo : hi;
                return x > 0 ? hi : lo;
            }
            case RoundMode::CAST_ODD: return (lo & 1u) ? lo : hi;  // von Neumann rounding: the odd neighbour
            default: return n;
        }
    }
};

using HalfFormat = Format16<5, 10>;
using Bf16Format = Format16<8, 7>;

}  // namespace sim

// IEEE binary16, as Ascend C's `half`.  Only conversions are provided: kernels compute in float.
struct half {
    uint16_t bits = 0;
    half() = default;
    half(float f) : bits(sim::HalfFormat::FromFloatRint(f)) {}
    operator float() const { return sim::HalfFormat::ToFloat(bits); }
};

#if defined(__CCE_AICORE__) && __CCE_AICORE__ == 220
// bfloat16 exists only on the A2/A3 architecture (dav-c220); elsewhere using it does not compile.
struct bfloat16_t {
    uint16_t bits = 0;
    bfloat16_t() = default;
    bfloat16_t(float f) : bits(sim::Bf16Format::FromFloatRint(f)) {}
    operator float() const { return sim::Bf16Format::ToFloat(bits); }
};
#endif

namespace sim {
template <typename T> struct Num {  // float view of a stored element
    static float Get(T v) { return float(v); }
    static T Put(float f, RoundMode) { return T(f); }
};
template <> struct Num<half> {
    static float Get(half v) { return HalfFormat::ToFloat(v.bits); }
    static half Put(float f, RoundMode m) { half h; h.bits = HalfFormat::FromFloat(f, m); return h; }
};
#if defined(__CCE_AICORE__) && __CCE_AICORE__ == 220
template <> struct Num<bfloat16_t> {
    static float Get(bfloat16_t v) { return Bf16Format::ToFloat(v.bits); }
    static bfloat16_t Put(float f, RoundMode m) { bfloat16_t h; h.bits = Bf16Format::FromFloat(f, m); return h; }
};
#endif
}  // namespace sim
}  // namespace AscendC

namespace AscendC {
// Ascend C's compile-time type test.
template <typename T, typename U> struct IsSameType { static constexpr bool value = false; };
template <typename T> struct IsSameType<T, T> { static constexpr bool value = true; };
}  // namespace AscendC
