// opgen Ascend C simulator: the vector instructions (tensor "first count elements" forms).
//
// Operands are checked like the hardware constrains them: 32-byte aligned UB addresses, enough room for
// `count` elements, and Compare/CompareScalar on whole 256-byte blocks ("compare-256").  What a product's API
// does not have is refused as the CPU-debug build of CANN refuses it ("not-supported", socs.py): CompareScalar
// on dav-c100, Select modes 1/2 on dav-c100, Cast float -> half with CAST_RINT on dav-c100/dav-m200 and
// float -> bfloat16 with CAST_NONE.  Select modes 1/2 use the API's UB scratch at TMP_UB_OFFSET: a kernel
// buffer there is overwritten on the device, so it is an error here ("ub-reserved").  Arithmetic is IEEE
// float (half is computed in float and rounded to nearest even); bfloat16 takes part only in Cast, as on A2/A3.
// Where the API documentation leaves a result open, the simulator picks the answer a kernel must not rely on:
// Max/Min/Maxs/Mins with a nan operand return the other operand (IEEE maxNum/minNum, as fmaxf does), so a kernel
// that needs NumPy's nan-propagating maximum must select the nan itself (codegen.backends.ascendc.lowering does).
#pragma once
#include <cmath>
#include <type_traits>

#include "memory.h"

enum pipe_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL };

namespace AscendC {

enum class CMPMODE { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

// The simulator runs each instruction to completion in order, so barriers have nothing to wait for.
template <pipe_t pipe>
inline void PipeBarrier() {}

namespace sim {
template <typename T>
constexpr bool kArith = std::is_same<T, float>::value || std::is_same<T, half>::value;

template <typename T, typename F>
void Unary(const char* op, const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count, F f) {
    static_assert(kArith<T>, "this vector instruction takes float or half operands");
    T* d = dst.Use(op, uint64_t(count) * sizeof(T));
    const T* s = src.Use(op, uint64_t(count) * sizeof(T));
    for (uint32_t i = 0; i < count; ++i) d[i] = Num<T>::Put(f(Num<T>::Get(s[i])), RoundMode::CAST_RINT);
}

template <typename T, typename F>
void Binary(const char* op, const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, uint32_t count, F f) {
    static_assert(kArith<T>, "this vector instruction takes float or half operands");
    T* d = dst.Use(op, uint64_t(count) * sizeof(T));
    const T* x = a.Use(op, uint64_t(count) * sizeof(T));
    const T* y = b.Use(op, uint64_t(count) * sizeof(T));
    for (uint32_t i = 0; i < count; ++i) d[i] = Num<T>::Put(f(Num<T>::Get(x[i]), Num<T>::Get(y[i])), RoundMode::CAST_RINT);
}

inline bool Cmp(float a, float b, CMPMODE m) {
    switch (m) {
        case CMPMODE::LT: return a < b;
        case CMPMODE::GT: return a > b;
        case CMPMODE::EQ: return a == b;
        case CMPMODE::LE: return a <= b;
        case CMPMODE::GE: return a >= b;
        case CMPMODE::NE: return a != b;
    }
    return false;
}

template <typename T>
void Check256(const char* op, uint32_t count) {
    if ((uint64_t(count) * sizeof(T)) % 256 != 0)
        Fail("compare-256", std::string(op) + ": count " + Str(count) + " x " + Str(sizeof(T)) +
                                " bytes is not a whole number of 256-byte blocks");
}

inline bool Bit(const uint8_t* m, uint32_t i) { return (m[i / 8] >> (i % 8)) & 1u; }
}  // namespace sim

#define OPGEN_SIM_UNARY(NAME, EXPR)                                                        \
    template <typename T>                                                                  \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {      \
        sim::Unary(#NAME, dst, src, count, [](float x) { return EXPR; });                  \
    }
OPGEN_SIM_UNARY(Exp, std::exp(x))
OPGEN_SIM_UNARY(Ln, std::log(x))
OPGEN_SIM_UNARY(Abs, std::fabs(x))
OPGEN_SIM_UNARY(Reciprocal, 1.0f / x)
OPGEN_SIM_UNARY(Sqrt, std::sqrt(x))
OPGEN_SIM_UNARY(Relu, x > 0.0f ? x : 0.0f)
#undef OPGEN_SIM_UNARY

#define OPGEN_SIM_BINARY(NAME, EXPR)                                                                              \
    template <typename T>                                                                                         \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, uint32_t count) {      \
        sim::Binary(#NAME, dst, a, b, count, [](float x, float y) { return EXPR; });                              \
    }
OPGEN_SIM_BINARY(Add, x + y)
OPGEN_SIM_BINARY(Sub, x - y)
OPGEN_SIM_BINARY(Mul, x * y)
OPGEN_SIM_BINARY(Div, x / y)
OPGEN_SIM_BINARY(Max, std::fmax(x, y))
OPGEN_SIM_BINARY(Min, std::fmin(x, y))
#undef OPGEN_SIM_BINARY

#define OPGEN_SIM_SCALAR(NAME, EXPR)                                                                   \
    template <typename T>                                                                              \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T scalar, uint32_t count) {  \
        const float y = sim::Num<T>::Get(scalar);                                                      \
        sim::Unary(#NAME, dst, src, count, [y](float x) { return EXPR; });                             \
    }
OPGEN_SIM_SCALAR(Adds, x + y)
OPGEN_SIM_SCALAR(Muls, x * y)
#undef OPGEN_SIM_SCALAR
// Maxs/Mins: not on dav-c100 (asc-devkit's impl/basic_api/dav_c100 reports them not supported)
#define OPGEN_SIM_MINMAX_SCALAR(NAME, EXPR)                                                            \
    template <typename T>                                                                              \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T scalar, uint32_t count) {  \
        if (!sim::Product().scalarMinMax)                                                              \
            sim::NotSupported(#NAME, "Duplicate the scalar into a tile and use the tile form");        \
        const float y = sim::Num<T>::Get(scalar);                                                      \
        sim::Unary(#NAME, dst, src, count, [y](float x) { return EXPR; });                             \
    }
OPGEN_SIM_MINMAX_SCALAR(Maxs, std::fmax(x, y))
OPGEN_SIM_MINMAX_SCALAR(Mins, std::fmin(x, y))
#undef OPGEN_SIM_MINMAX_SCALAR

template <typename T>
void Duplicate(const LocalTensor<T>& dst, const T scalar, uint32_t count) {
    T* d = dst.Use("Duplicate", uint64_t(count) * sizeof(T));
    for (uint32_t i = 0; i < count; ++i) d[i] = scalar;
}

// Conversions: half/bfloat16 -> float with CAST_NONE (exact), float -> half/bfloat16 with any rounding mode
// (CAST_NONE then means CAST_RINT, as the documentation says for a conversion that loses precision).
template <typename TD, typename TS>
void Cast(const LocalTensor<TD>& dst, const LocalTensor<TS>& src, RoundMode mode, uint32_t count) {
    static_assert(!std::is_same<TD, TS>::value, "Cast between equal types");
    constexpr bool widening = sizeof(TD) > sizeof(TS);
    if (widening && mode != RoundMode::CAST_NONE)
        sim::Fail("cast", "Cast to a wider float type takes RoundMode::CAST_NONE (it is exact)");
    if (!widening && std::is_same<TD, half>::value && mode == RoundMode::CAST_RINT && !sim::Product().rintToHalf)
        sim::NotSupported("Cast float -> half with RoundMode::CAST_RINT", "use CAST_NONE, which rounds to nearest even");
#if defined(__CCE_AICORE__) && __CCE_AICORE__ == 220
    if (!widening && std::is_same<TD, bfloat16_t>::value && mode == RoundMode::CAST_NONE)
        sim::NotSupported("Cast float -> bfloat16 with RoundMode::CAST_NONE", "it needs a rounding mode (CAST_RINT)");
#endif
    TD* d = dst.Use("Cast", uint64_t(count) * sizeof(TD));
    const TS* s = src.Use("Cast", uint64_t(count) * sizeof(TS));
    for (uint32_t i = 0; i < count; ++i) d[i] = sim::Num<TD>::Put(sim::Num<TS>::Get(s[i]), mode);
}

// Bit masks: bit i of dst (little-endian within each byte) is the comparison of element i.
template <typename T, typename U>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, CMPMODE mode, uint32_t count) {
    static_assert(sim::kArith<T>, "Compare takes float or half operands");
    sim::Check256<T>("Compare", count);
    uint8_t* m = (uint8_t*)dst.Use("Compare", (count + 7) / 8);
    const T* x = a.Use("Compare", uint64_t(count) * sizeof(T));
    const T* y = b.Use("Compare", uint64_t(count) * sizeof(T));
    std::memset(m, 0, (count + 7) / 8);
    for (uint32_t i = 0; i < count; ++i)
        if (sim::Cmp(sim::Num<T>::Get(x[i]), sim::Num<T>::Get(y[i]), mode)) m[i / 8] |= uint8_t(1u << (i % 8));
}

template <typename T, typename U>
void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& a, const T scalar, CMPMODE mode, uint32_t count) {
    static_assert(sim::kArith<T>, "CompareScalar takes float or half operands");
    if (!sim::Product().compareScalar)
        sim::NotSupported("CompareScalar", "Duplicate the scalar into a tile and use Compare");
    sim::Check256<T>("CompareScalar", count);
    uint8_t* m = (uint8_t*)dst.Use("CompareScalar", (count + 7) / 8);
    const T* x = a.Use("CompareScalar", uint64_t(count) * sizeof(T));
    const float y = sim::Num<T>::Get(scalar);
    std::memset(m, 0, (count + 7) / 8);
    for (uint32_t i = 0; i < count; ++i)
        if (sim::Cmp(sim::Num<T>::Get(x[i]), y, mode)) m[i / 8] |= uint8_t(1u << (i % 8));
}

namespace sim {
// Select modes 1 and 2 exist only where the product has them, and use [TMP_UB_OFFSET, UB end) as scratch.
inline void SelectMode12(SELMODE mode) {
    const ProductInfo& p = Product();
    const char* name = mode == SELMODE::VSEL_TENSOR_SCALAR_MODE ? "Select mode 1 (VSEL_TENSOR_SCALAR_MODE)"
                                                                  : "Select mode 2 (VSEL_TENSOR_TENSOR_MODE)";
    if (!p.selectModes12) NotSupported(name, "only mode 0 (VSEL_CMPMASK_SPR) exists");
    for (const BufferRec& r : Buffers())
        if (r.addr + r.bytes > p.tmpUbOffset)
            Fail("ub-reserved", std::string(name) + " on " + p.soc + " uses UB [" + Str(p.tmpUbOffset) + ", " +
                                    Str(p.ubBytes) + ") (TMP_UB_OFFSET) as scratch, but the " + r.owner +
                                    " buffer at [" + Str(r.addr) + ", " + Str(r.addr + r.bytes) +
                                    ") reaches into it and would be overwritten");
}
}  // namespace sim

// dst[i] = bit i of mask ? a[i] : b[i].  Mode 0 (VSEL_CMPMASK_SPR) loads one repeat's mask (256 bytes of data)
// into a register and applies it to every repeat of the call, as the hardware does.
template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& mask, const LocalTensor<T>& a, const LocalTensor<T>& b,
            SELMODE mode, uint32_t count) {
    if (mode == SELMODE::VSEL_TENSOR_SCALAR_MODE) sim::Fail("select", "Select with two tensors takes mode 0 or 2");
    const bool perRepeat = mode == SELMODE::VSEL_CMPMASK_SPR;
    if (!perRepeat) sim::SelectMode12(mode);
    constexpr uint32_t repeat = 256 / sizeof(T);
    T* d = dst.Use("Select", uint64_t(count) * sizeof(T));
    const uint8_t* m = (const uint8_t*)mask.Use("Select", perRepeat ? repeat / 8 : (count + 7) / 8);
    const T* x = a.Use("Select", uint64_t(count) * sizeof(T));
    const T* y = b.Use("Select", uint64_t(count) * sizeof(T));
    for (uint32_t i = 0; i < count; ++i) d[i] = sim::Bit(m, perRepeat ? i % repeat : i) ? x[i] : y[i];
}

// dst[i] = bit i of mask ? a[i] : scalar (mode 1)
template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& mask, const LocalTensor<T>& a, const T scalar,
            SELMODE mode, uint32_t count) {
    if (mode != SELMODE::VSEL_TENSOR_SCALAR_MODE) sim::Fail("select", "Select with a scalar takes VSEL_TENSOR_SCALAR_MODE");
    sim::SelectMode12(mode);
    T* d = dst.Use("Select", uint64_t(count) * sizeof(T));
    const uint8_t* m = (const uint8_t*)mask.Use("Select", (count + 7) / 8);
    const T* x = a.Use("Select", uint64_t(count) * sizeof(T));
    for (uint32_t i = 0; i < count; ++i) d[i] = sim::Bit(m, i) ? x[i] : scalar;
}

// Bitwise logic on 16-bit integers (how masks are combined).
#define OPGEN_SIM_LOGIC(NAME, EXPR)                                                                            \
    template <typename T>                                                                                      \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, uint32_t count) {   \
        static_assert(std::is_same<T, uint16_t>::value || std::is_same<T, int16_t>::value,                     \
                      #NAME " takes int16_t or uint16_t operands");                                            \
        T* d = dst.Use(#NAME, uint64_t(count) * sizeof(T));                                                    \
        const T* x = a.Use(#NAME, uint64_t(count) * sizeof(T));                                                \
        const T* y = b.Use(#NAME, uint64_t(count) * sizeof(T));                                                \
        for (uint32_t i = 0; i < count; ++i) d[i] = T(EXPR);                                                   \
    }
OPGEN_SIM_LOGIC(And, x[i] & y[i])
OPGEN_SIM_LOGIC(Or, x[i] | y[i])
#undef OPGEN_SIM_LOGIC

template <typename T>
void Not(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
    static_assert(std::is_same<T, uint16_t>::value || std::is_same<T, int16_t>::value, "Not takes int16_t or uint16_t operands");
    T* d = dst.Use("Not", uint64_t(count) * sizeof(T));
    const T* s = src.Use("Not", uint64_t(count) * sizeof(T));
    for (uint32_t i = 0; i < count; ++i) d[i] = T(~s[i]);
}

// Sum of the first `count` elements into dst[0].  A repeat is 256 bytes, summed as a binary tree; the repeat
// results are then summed as a tree (training/inference series) or in order (A2/A3), as documented.
// sharedTmpBuffer must hold one element per repeat.
template <typename T>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer, const int32_t count) {
    static_assert(sim::kArith<T>, "ReduceSum takes float or half operands");
    constexpr uint32_t perRepeat = 256 / sizeof(T);
    const uint32_t n = uint32_t(count < 0 ? 0 : count), repeats = (n + perRepeat - 1) / perRepeat;
    T* d = dst.Use("ReduceSum", sizeof(T));
    const T* s = src.Use("ReduceSum", uint64_t(n) * sizeof(T));
    T* w = sharedTmpBuffer.Use("ReduceSum", uint64_t(repeats) * sizeof(T));
    auto tree = [](std::vector<float> v) {
        if (v.empty()) return 0.0f;
        size_t width = 1;
        while (width < v.size()) width *= 2;
        v.resize(width, 0.0f);
        for (; width > 1; width /= 2)
            for (size_t i = 0; i < width / 2; ++i) v[i] = v[2 * i] + v[2 * i + 1];
        return v[0];
    };
    std::vector<float> partial;
    for (uint32_t r = 0; r < repeats; ++r) {
        std::vector<float> v;
        for (uint32_t i = r * perRepeat; i < n && i < (r + 1) * perRepeat; ++i) v.push_back(sim::Num<T>::Get(s[i]));
        v.resize(perRepeat, 0.0f);
        const float p = tree(v);
        w[r] = sim::Num<T>::Put(p, RoundMode::CAST_RINT);
        partial.push_back(sim::Num<T>::Get(w[r]));
    }
    float total = 0.0f;
    if (sim::Product().aicore == 220) {
        for (float p : partial) total += p;
    } else {
        total = tree(partial);
    }
    d[0] = sim::Num<T>::Put(total, RoundMode::CAST_RINT);
}

}  // namespace AscendC
