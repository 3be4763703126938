/* opgen_half.h — FLOAT16 and BFLOAT16 to and from FLOAT, branch-free bit arithmetic, exact (widening) and
 * correctly rounded (narrowing: round to nearest, ties to even; overflow to inf; subnormals kept; nan stays
 * a quiet nan with its sign).  Checked against NumPy and ml_dtypes on every half value and on every rounding
 * boundary by tests/test_c_conversions.py. */
#ifndef OPGEN_HALF_H_
#define OPGEN_HALF_H_

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t opgen_f32_bits(float f) { uint32_t u; memcpy(&u, &f, sizeof u); return u; }
static inline float opgen_bits_f32(uint32_t u) { float f; memcpy(&f, &u, sizeof f); return f; }

/* FLOAT16 -> FLOAT.  Shift exponent and mantissa into place and rebias; inf/nan get the all-ones exponent;
 * zeros and subnormals are renormalised by one float subtraction (exact). */
static inline float opgen_f16_to_f32(uint16_t h)
{
    const uint32_t shifted_exp = 0x7c00u << 13;
    uint32_t o = ((uint32_t)h & 0x7fffu) << 13;
    const uint32_t exp = o & shifted_exp;
    o += (uint32_t)(127 - 15) << 23;
    if (exp == shifted_exp) {
        o += (uint32_t)(128 - 16) << 23;                        /* inf / nan */
    } else if (exp == 0) {
        o += 1u << 23;                                          /* zero / subnormal */
        o = opgen_f32_bits(opgen_bits_f32(o) - opgen_bits_f32(113u << 23));
    }
    return opgen_bits_f32(o | (((uint32_t)h & 0x8000u) << 16));
}

/* FLOAT -> FLOAT16, round to nearest even. */
static inline uint16_t opgen_f32_to_f16(float f)
{
    uint32_t x = opgen_f32_bits(f);
    const uint32_t sign = (x >> 16) & 0x8000u;
    x &= 0x7fffffffu;
    if (x > 0x7f800000u)                                        /* nan: quiet, top payload bits kept */
        return (uint16_t)(sign | 0x7e00u | ((x >> 13) & 0x3ffu));
    if (x >= 0x477ff000u)                                       /* >= 65520 rounds to inf (and inf) */
        return (uint16_t)(sign | 0x7c00u);
    if (x < 0x38800000u) {                                      /* below 2^-14: a subnormal half or zero */
        /* Adding 0.5 puts the half's subnormal step (2^-24) at the float's last bit: the FPU rounds to
         * nearest even, and the low bits are the result. */
        const float t = opgen_bits_f32(x) + 0.5f;
        return (uint16_t)(sign | (opgen_f32_bits(t) - 0x3f000000u));
    }
    const uint32_t odd = (x >> 13) & 1u;                        /* ties to even */
    x += ((uint32_t)(15 - 127) << 23) + 0xfffu + odd;
    return (uint16_t)(sign | (x >> 13));
}

/* BFLOAT16 -> FLOAT: the upper half of a float. */
static inline float opgen_bf16_to_f32(uint16_t b) { return opgen_bits_f32((uint32_t)b << 16); }

/* FLOAT -> BFLOAT16, round to nearest even; nan stays a quiet nan. */
static inline uint16_t opgen_f32_to_bf16(float f)
{
    const uint32_t x = opgen_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x0040u);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/* Whole blocks, contiguous: what the kernels' loads and stores use.  FLOAT16 with the F16C instructions when the
 * build targets a CPU that has them (vcvtph2ps / vcvtps2ph, round to nearest even, nan kept), else the
 * functions above; BFLOAT16 by the functions above, which the compiler vectorizes (shifts, adds, selects), or
 * narrowed by vcvtneps2bf16 where the build targets AVX512_BF16 (16 values at a time, when none is subnormal:
 * the BFLOAT16 kernels 1.0-1.09x faster in the cache, up to 1.14x at 16M elements, one thread).
 *
 * Where the build targets AVX-512, the conversions work on whole 512-bit registers, 16 values at a time, as
 * the compiler's vectorized kernels then do: a kernel that reads 64 bytes of a chunk which the widening stored
 * as two 32-byte halves cannot take them from the store buffer (no store forwarding from two stores to one
 * load) and waits for both stores to reach the cache; with 32-byte conversions the FLOAT16/BFLOAT16 kernels ran
 * 1.2-2.5x slower in the cache (Intel Xeon with AVX-512, one thread, side by side).  A load within one wider
 * store forwards, so 64-byte conversions are safe for kernels the compiler vectorizes with 32 bytes too. */
#if defined(__F16C__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#if defined(__F16C__)
/* 8 FLOAT -> 8 FLOAT16 in one register (round to nearest even, nan kept): for non-temporal stores. */
static inline __m128i opgen_f32x8_to_f16(const float *src)
{
    return _mm256_cvtps_ph(_mm256_loadu_ps(src), _MM_FROUND_TO_NEAREST_INT);
}
#endif

#if defined(__AVX512F__)
/* 16 FLOAT bit patterns -> their BFLOAT16 in the low half of each 32-bit lane: opgen_f32_to_bf16, lane-wise. */
static inline __m512i opgen_bf16_round16(__m512i x)
{
    const __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(x, _mm512_set1_epi32(0x7fffffff)),
                                                  _mm512_set1_epi32(0x7f800000));
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
    const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(x, _mm512_set1_epi32(0x7fff)), lsb),
                                              16);
    const __m512i quiet = _mm512_or_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(0x0040));
    return _mm512_mask_blend_epi32(nan, rounded, quiet);
}
#endif

#if defined(__AVX512BF16__)
/* Whether any of 16 FLOAT bit patterns is a subnormal float.  vfpclassps (AVX512DQ) says it in one instruction,
 * where the integer test (|x| - 1 below 2^-126 - 1, unsigned: 0 wraps around) takes two and a compare: with it
 * the BFLOAT16 kernels ran 1.04-1.11x faster in the cache (ELU, LogSigmoid; Intel Xeon, side by side). */
static inline bool opgen_any_subnormal(__m512i x)
{
#if defined(__AVX512DQ__)
    return _mm512_fpclass_ps_mask(_mm512_castsi512_ps(x), 0x20) != 0;   /* (class bit 5: denormal) */
#else
    const __m512i mag_less_1 = _mm512_sub_epi32(_mm512_and_si512(x, _mm512_set1_epi32(0x7fffffff)),
                                                _mm512_set1_epi32(1));
    return _mm512_cmplt_epu32_mask(mag_less_1, _mm512_set1_epi32(0x007fffff)) != 0;
#endif
}
#endif

#if defined(__AVX2__)
/* 8 FLOAT bit patterns -> their BFLOAT16 in the low half of each 32-bit lane: opgen_f32_to_bf16, lane-wise. */
static inline __m256i opgen_bf16_round8(__m256i x)
{
    const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x7fffffff)),
                                           _mm256_set1_epi32(0x7f800000));
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
    const __m256i biased = _mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7fff)), lsb);
    const __m256i rounded = _mm256_srli_epi32(biased, 16);
    const __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(0x0040));
    return _mm256_blendv_epi8(rounded, quiet, nan);
}

/* 16 FLOAT -> 16 BFLOAT16 in one register, in order (packus works per 128-bit lane; the permute restores the
 * order): for non-temporal stores, which need a whole register.  Every value fits 16 bits: no saturation. */
static inline __m256i opgen_f32x16_to_bf16(const float *src)
{
#if defined(__AVX512F__)
    const __m512i x = _mm512_loadu_si512((const void *)src);
#if defined(__AVX512BF16__)
    /* vcvtneps2bf16 rounds as opgen_f32_to_bf16 does (to nearest even; a nan keeps its sign and top payload bits
     * and becomes quiet) except that it flushes subnormal floats to zero: 16 values without a subnormal take it,
     * the rare others the integer rounding below */
    if (!opgen_any_subnormal(x))
        return (__m256i)_mm512_cvtneps_pbh(_mm512_castsi512_ps(x));
#endif
    /* (with AVX-512, one rounding of 16 lanes and vpmovdw, which narrows in order) */
    return _mm512_cvtepi32_epi16(opgen_bf16_round16(x));
#else
    const __m256i lo = opgen_bf16_round8(_mm256_loadu_si256((const __m256i *)(const void *)src));
    const __m256i hi = opgen_bf16_round8(_mm256_loadu_si256((const __m256i *)(const void *)(src + 8)));
    return _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xD8);
#endif
}

/* 16 BFLOAT16 v0..v15 -> 16 FLOAT in the order of AVX2's unpack instructions, (v0..v3, v8..v11) then
 * (v4..v7, v12..v15): one load and two unpacks, where widening in order takes a widening load and a shift per
 * 8 values.  opgen_f32x16_unpacked_to_bf16 puts 16 results in that order back in place, without the permute
 * (packus interleaves the 128-bit lanes the same way): for elementwise kernels, which do not care where an
 * element sits in the buffer as long as every operand and the result agree.  With it (and the in-order widening
 * below written with intrinsics) the BFLOAT16 kernels measured 1.05-1.36x faster: softmax along the last dim
 * 1.3x, ELU isResult=true 1.2x (one thread, 16M elements, side by side with the previous kernels). */
static inline void opgen_bf16x16_to_f32_unpacked(float *dst, const uint16_t *src)
{
    const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)src), zero = _mm256_setzero_si256();
    _mm256_storeu_si256((__m256i *)(void *)dst, _mm256_unpacklo_epi16(zero, v));
    _mm256_storeu_si256((__m256i *)(void *)(dst + 8), _mm256_unpackhi_epi16(zero, v));
}

static inline __m256i opgen_f32x16_unpacked_to_bf16(const float *src)
{
    const __m256i lo = opgen_bf16_round8(_mm256_loadu_si256((const __m256i *)(const void *)src));
    const __m256i hi = opgen_bf16_round8(_mm256_loadu_si256((const __m256i *)(const void *)(src + 8)));
    return _mm256_packus_epi32(lo, hi);
}
#endif

#if defined(__AVX512F__)
/* With AVX-512, the unpack order of elementwise BFLOAT16 chunks is even/odd, which costs no shuffle at all: 32
 * BFLOAT16 v0..v31, loaded as 16 32-bit lanes (v[2i] low, v[2i+1] high), become the FLOAT v0, v2, ..., v30 by
 * a shift (dst[0..15]) and v1, v3, ..., v31 by a mask (dst[16..31]); in order, each 16 values take a widening
 * shuffle (vpmovzxwd, on the one port that shuffles 512-bit registers) and a shift.  Narrowed back, the two
 * halves' BFLOAT16 interleave again into the low and high halves of 32-bit lanes: one vpermw after
 * vcvtne2ps2bf16, or a shift and an or after the integer rounding.  The elementwise BFLOAT16 kernels measured
 * 1.14-1.23x faster in the cache and 1.06-1.20x at 16M elements (one thread, Intel Xeon, side by side with
 * in-order chunks). */
static inline void opgen_bf16x32_to_f32_evenodd(float *dst, const uint16_t *src)
{
    const __m512i v = _mm512_loadu_si512((const void *)src);
    _mm512_storeu_si512((void *)dst, _mm512_slli_epi32(v, 16));
    _mm512_storeu_si512((void *)(dst + 16), _mm512_and_si512(v, _mm512_set1_epi32((int)0xffff0000u)));
}

static inline __m512i opgen_f32x32_evenodd_to_bf16(const float *src)
{
    const __m512i even = _mm512_loadu_si512((const void *)src), odd = _mm512_loadu_si512((const void *)(src + 16));
#if defined(__AVX512BF16__) && defined(__AVX512BW__)
    /* (vcvtne2ps2bf16 puts even's 16 BFLOAT16 in the low 32 bytes, odd's in the high ones; vpermw interleaves
     * them) */
    if (!opgen_any_subnormal(even) && !opgen_any_subnormal(odd)) {
        const __m512i halves = (__m512i)_mm512_cvtne2ps_pbh(_mm512_castsi512_ps(odd), _mm512_castsi512_ps(even));
        const __m512i interleave = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8,
                                                    23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
        return _mm512_permutexvar_epi16(interleave, halves);
    }
#endif
    return _mm512_or_si512(opgen_bf16_round16(even), _mm512_slli_epi32(opgen_bf16_round16(odd), 16));
}
#endif

/* FLOAT16 blocks 8 values at a time (F16C), for code vectorized with 256-bit registers also where the CPU has
 * AVX-512 (opgen_chunks.h: OPGEN_F16_ROWS) */
static inline __attribute__((always_inline)) void opgen_f16_block_to_f32_256(float *dst, const uint16_t *src, int64_t n)
{
    int64_t i = 0;
#if defined(__F16C__)
    /* (the bound first, as in opgen_f32_block_to_bf16: GCC 12 warned that the tail below might run 2^62 times) */
    const int64_t whole = n - n % 8;
    for (; i < whole; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(src + i))));
#endif
    for (; i < n; ++i)
        dst[i] = opgen_f16_to_f32(src[i]);
}

static inline __attribute__((always_inline)) void opgen_f32_block_to_f16_256(uint16_t *dst, const float *src, int64_t n)
{
    int64_t i = 0;
#if defined(__F16C__)
    const int64_t whole = n - n % 8;   /* (the bound first: see above) */
    for (; i < whole; i += 8)
        _mm_storeu_si128((__m128i *)(void *)(dst + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
#endif
    for (; i < n; ++i)
        dst[i] = opgen_f32_to_f16(src[i]);
}

static inline void opgen_f16_block_to_f32(float *dst, const uint16_t *src, int64_t n)
{
    int64_t i = 0;
#if defined(__AVX512F__)
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(src + i))));
#endif
    opgen_f16_block_to_f32_256(dst + i, src + i, n - i);
}

static inline void opgen_f32_block_to_f16(uint16_t *dst, const float *src, int64_t n)
{
    int64_t i = 0;
#if defined(__AVX512F__)
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i *)(void *)(dst + i),
                            _mm512_cvtps_ph(_mm512_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
#endif
    opgen_f32_block_to_f16_256(dst + i, src + i, n - i);
}

static inline void opgen_bf16_block_to_f32(float *restrict dst, const uint16_t *restrict src, int64_t n)
{
    int64_t i = 0;
#if defined(__AVX512F__)
    for (; i + 16 <= n; i += 16) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(src + i));
        _mm512_storeu_si512((void *)(dst + i), _mm512_slli_epi32(_mm512_cvtepu16_epi32(v), 16));
    }
#endif
#if defined(__AVX2__)
    /* (GCC vectorizes the plain loop with a whole-register load, an extract and a widening per 8 values; the
     * bound first: see opgen_f32_block_to_bf16) */
    const int64_t whole = n - n % 8;
    for (; i < whole; i += 8) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), _mm256_slli_epi32(_mm256_cvtepu16_epi32(v), 16));
    }
#endif
    for (; i < n; ++i)
        dst[i] = opgen_bf16_to_f32(src[i]);
}

static inline void opgen_f32_block_to_bf16(uint16_t *restrict dst, const float *restrict src, int64_t n)
{
    int64_t i = 0;
#if defined(__AVX512F__)
    /* (the bound first: with `i + 16 <= n`, which GCC 12 takes to wrap, it warned that the tail below might run
     * 2^62 times, -Waggressive-loop-optimizations, wherever a chunk loop inlines this with -march=native) */
    const int64_t whole = n - n % 16;
    for (; i < whole; i += 16)
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), opgen_f32x16_to_bf16(src + i));
#endif
    for (; i < n; ++i)
        dst[i] = opgen_f32_to_bf16(src[i]);
}

#endif /* OPGEN_HALF_H_ */
