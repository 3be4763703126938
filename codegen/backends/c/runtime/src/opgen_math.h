/* opgen_math.h — the FLOAT functions generated kernels call, written so that a compiler vectorizes the loops
 * that call them: inline, branch-free (every `?:` selects between values already computed), no errno.
 *
 * libm's expf is a scalar call a compiler cannot vectorize (without -ffast-math, whose other effects we do not
 * want: nan and inf must keep their meaning).  opgen_expf is a vectorizable expf within 1 ulp of the correctly
 * rounded result for every float (tests/test_c_math.py measures it against double-precision exp);
 * opgen_expf_nonpos gives its bits, cheaper, for arguments known to be nonpositive.
 * The spec's own arithmetic is never fused (the library is built with -ffp-contract=off); only inside
 * opgen_expf, where the FMA form is both faster and more accurate. */
#ifndef OPGEN_MATH_H_
#define OPGEN_MATH_H_

#include <math.h>
#include <stdint.h>
#include <string.h>

/* NumPy's maximum/minimum: nan if either argument is nan (fmaxf would drop it). */
static inline float opgen_maximumf(float a, float b) { return (a > b || a != a) ? a : b; }
static inline float opgen_minimumf(float a, float b) { return (a < b || a != a) ? a : b; }

static inline uint32_t opgen_bits(float f) { uint32_t u; memcpy(&u, &f, sizeof u); return u; }
static inline float opgen_from_bits(uint32_t u) { float f; memcpy(&f, &u, sizeof f); return f; }

/* The reduction and the polynomial of both exps below: x = k ln2 + r with k = round(x / ln2) and |r| <= ln2/2
 * (ln2 in two parts, so k ln2 is exact), and p = e^r is returned.  k need not be converted: after
 * y = x/ln2 + 1.5*2^23 (stored in *y) the low bits of y's significand are k, and y << 23 is k << 23 modulo 2^32.
 * With hardware FMA (x86 __FMA__, AArch64): a degree-6 polynomial 1 + r + c2 r^2 + ... + c6 r^6 in six fused
 * multiply-adds, at most 0.88 ulp from the exact e^x (99.53% correctly rounded); without it: Cephes' expf
 * polynomial in multiplies and adds, at most 0.98 ulp (both measured on every 7th float of [-104, 89] against
 * double-precision exp, with tests/test_c_math.py's driver; the suite checks a million).  c2..c6 minimise the
 * largest relative error on [-ln2/2, ln2/2] with c0 = c1 = 1 kept exact (Lawson's iteration of weighted least
 * squares on 4001 Chebyshev nodes, in double, then rounded to float): 3.8e-9 (0.06 ulp) in exact arithmetic,
 * where the degree-7 Taylor polynomial it replaced left 5.2e-9 in one fused multiply-add more (0.92 ulp,
 * 99.54% measured the same way): exp alone 1.1-1.4x faster in L1, the exp-heavy kernels (LogSigmoid, ELU
 * isResult=false, BCE) 1.03-1.08x (one thread, 16M elements, side by side). */
static inline float opgen_exp_poly(float x, float *y)
{
    const float shifter = 12582912.0f;                         /* 1.5 * 2^23: adding it rounds to an integer */
#if defined(__FMA__) || defined(__aarch64__)
    *y = __builtin_fmaf(x, 1.44269504088896341f, shifter);
    const float kf = *y - shifter;
    const float r = __builtin_fmaf(kf, -1.428606820309417232e-6f, __builtin_fmaf(kf, -0.693145751953125f, x));
    float p = 0.001381461275741458f;
    p = __builtin_fmaf(p, r, 0.008368710055947304f);
    p = __builtin_fmaf(p, r, 0.04166838899254799f);
    p = __builtin_fmaf(p, r, 0.1666652113199234f);
    p = __builtin_fmaf(p, r, 0.4999999403953552f);
    p = __builtin_fmaf(p, r, 1.0f);
    p = __builtin_fmaf(p, r, 1.0f);
#else
    *y = x * 1.44269504088896341f + shifter;
    const float kf = *y - shifter;
    const float r = (x - kf * 0.693145751953125f) - kf * 1.428606820309417232e-6f;
    const float r2 = r * r;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r2 + r + 1.0f;
#endif
    return p;
}

/* e^x: 2^k is added to p's exponent field.
 * - Results below the normal range (x <= -86) are scaled in two steps, p*2^(k+64) exactly then *2^-64 with
 *   one rounding, so subnormals come out right; below -104 (e^-104 rounds to 0) the result is 0.
 * - x above 0x1.62e42ep+6 = 88.7228317 (the largest float whose e^x is finite) and nan return x + inf: inf
 *   and nan.
 * Out-of-range x are selected away at the end, never clamped first: GCC 12 fuses chained clamps into nine
 * vector instructions, and it merges a clamp's condition with the caller's (`v > 0 ? … : exp(v)`), so lanes
 * the caller discards would get the clamp value -104 and make the 2^-64 product subnormal: a microcode assist
 * per vector, which made ELU 2.5x slower.  (opgen_expf_nonpos, below, may clamp: the printer calls it only
 * where every lane's argument is nonpositive.) */
static inline float opgen_expf(float x)
{
    float y;
    const float p = opgen_exp_poly(x, &y);
    const uint32_t scaled = opgen_bits(p) + (opgen_bits(y) << 23);             /* p * 2^k, for k >= -124 */
    const float tiny = opgen_from_bits(scaled + (64u << 23)) * 5.42101086242752217e-20f;   /* 2^-64 */
    const float e = x > -86.0f ? opgen_from_bits(scaled) : (x < -104.0f ? 0.0f : tiny);
    return x <= 0x1.62e42ep+6f ? e : x + (float)INFINITY;
}

/* e^x for x <= 0 (and nan), the same bits as opgen_expf there in fewer instructions; meaningless for x > 0
 * (the printer calls it only where SymPy proves the argument nonpositive: the sigmoid's e^-|u|).  One clamp,
 * then 2^k as 2^(k+100) * 2^-100: after the clamp -216 <= k <= 0, so 2^(k+100) is a normal float whose exponent
 * field (k + 227) is a shift and an add of y's bits, p * 2^(k+100) is exact and normal, and the product by
 * 2^-100 rounds once, to a normal, a subnormal or 0, as opgen_expf's selected cases do; a nan x gives a nan p,
 * and the products keep it.  (LogSigmoid FLOAT measured 1.2x faster in the cache than with opgen_expf, whose
 * range selects are most of its cost; splitting 2^k in two halves k1 + k2 instead of the fixed 2^-100 took
 * five more integer instructions.) */
static inline float opgen_expf_nonpos(float x)
{
    x = x < -150.0f ? -150.0f : x;                       /* e^-150 rounds to 0, like all below it; nan stays */
    float y;
    const float p = opgen_exp_poly(x, &y);
    const uint32_t k = opgen_bits(y) - opgen_bits(12582912.0f);     /* k modulo 2^32, -216 <= k <= 0 */
    return p * opgen_from_bits((k + 227u) << 23) * 7.88860905221011805e-31f;                      /* 2^-100 */
}

#endif /* OPGEN_MATH_H_ */
