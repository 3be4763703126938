
// A row sum that a pair sum reads (codegen.lower.wide_reductions), summed as a pair, as the double kernels sum it in
// double: PairFold folds src[0, len) onto the first 64 lanes, each chunk of 64 added lane by lane with TwoSum and
// its rounding error accumulated in lo (hi + lo of a lane: its elements' sum within about 2^-48 of them);
// PairRowSum then adds the lanes to the row's pair (hi, lo) on the scalar unit, TwoSum again, and renormalizes
// (FastTwoSum: hi is the pair rounded to FLOAT).  A row whose sum is not finite keeps lo = 0, as a FLOAT
// ReduceSum's inf or nan.  (Add/Sub/Muls with the destination the same tile as an operand: complete overlap.)
__aicore__ inline void PairFold(const LocalTensor<float>& hi, const LocalTensor<float>& lo, const LocalTensor<float>& s,
                                const LocalTensor<float>& bb, const LocalTensor<float>& e,
                                const LocalTensor<float>& src, uint32_t len)
{
    const uint32_t first = len < REPEAT_ELEMS ? len : REPEAT_ELEMS;
    Muls(hi, src, 1.0F, first);
    Duplicate(lo, 0.0F, first);
    for (uint32_t k = REPEAT_ELEMS; k < len; k += REPEAT_ELEMS) {
        const uint32_t n = len - k < REPEAT_ELEMS ? len - k : REPEAT_ELEMS;
        const LocalTensor<float> x = src[k];
        Add(s, hi, x, n);    // TwoSum(hi, x): s + e = hi + x exactly
        Sub(bb, s, hi, n);
        Sub(e, s, bb, n);
        Sub(e, hi, e, n);
        Sub(bb, x, bb, n);
        Add(e, e, bb, n);
        Add(lo, lo, e, n);
        Muls(hi, s, 1.0F, n);
    }
}

__aicore__ inline void PairRowSum(float& hi, float& lo, const LocalTensor<float>& laneHi,
                                  const LocalTensor<float>& laneLo, uint32_t len)
{
    const uint32_t lanes = len < REPEAT_ELEMS ? len : REPEAT_ELEMS;
    for (uint32_t i = 0; i < lanes; ++i) {
        const float a = hi, b = laneHi.GetValue(i);
        const float s = a + b, bb = s - a;
        lo += ((a - (s - bb)) + (b - bb)) + laneLo.GetValue(i);
        hi = s;
    }
    if (hi - hi == 0.0F) {
        const float s = hi + lo;
        lo = lo - (s - hi);
        hi = s;
    } else {
        lo = 0.0F;
    }
}

// The row's pair sum when it may leave FLOAT's range (a row of gradients near 3.4e38, whose sum the double kernels
// hold up to 1e308): while the row's pair (hi, lo) is finite it is summed as above; from the tile where it stops
// being finite, the row is summed again scaled by 2^-66 into (sHi, sLo), c = 1 (the scaled sum starts from the
// tiles before, which were finite, scaled the same way), and hi, lo become that sum stepped back up: ±inf beyond
// FLOAT's range, or the finite pair where the tiles after brought it back.  The overflow path of a pair sum
// (doublefloat.ScaledPairs) reads (sHi, sLo)·2^(66c) where c is 1.  A tile with an element ±inf or nan is not
// finite scaled either: the row's hi stays what FLOAT gives.
__aicore__ inline void PairRowSumWide(float& hi, float& lo, float& sHi, float& sLo, float& c,
                                      const LocalTensor<float>& laneHi, const LocalTensor<float>& laneLo,
                                      const LocalTensor<float>& s, const LocalTensor<float>& bb,
                                      const LocalTensor<float>& e, const LocalTensor<float>& scaled,
                                      const LocalTensor<float>& src, uint32_t len)
{
    constexpr float DOWN = 1.3552527156068805e-20F;   // 2^-66
    constexpr float UP = 7.378697629483821e+19F;      // 2^66
    if (c == 0.0F) {
        const float h0 = hi, l0 = lo;
        PairFold(laneHi, laneLo, s, bb, e, src, len);
        PipeBarrier<PIPE_ALL>();
        PairRowSum(hi, lo, laneHi, laneLo, len);
        if (hi - hi == 0.0F) {
            return;
        }
        c = 1.0F;
        sHi = h0 * DOWN;
        sLo = l0 * DOWN;
    }
    Muls(scaled, src, DOWN, len);
    PairFold(laneHi, laneLo, s, bb, e, scaled, len);
    PipeBarrier<PIPE_ALL>();
    PairRowSum(sHi, sLo, laneHi, laneLo, len);
    hi = sHi * UP;
    lo = (hi - hi == 0.0F) ? ((sHi - hi * DOWN) + sLo) * UP : 0.0F;
}
