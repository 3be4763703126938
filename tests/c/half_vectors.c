/* Reads little-endian uint32 words (a multiple of 16 of them) from stdin; for each group of 16 floats writes 48
 * uint16 words: their BFLOAT16 by opgen_f32x16_to_bf16 (in order), by opgen_f32x16_unpacked_to_bf16 (given the
 * floats in unpack order, which it puts back in order) and their FLOAT16 by opgen_f32x8_to_f16 — the vector
 * narrowings the kernels' chunks use, for tests/test_c_conversions.py to compare with the scalar functions.
 * Built with -march=native; without AVX2/F16C it falls back to the scalar functions (and says so on stderr). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "opgen_half.h"

int main(void)
{
    float f[16], unpack[16];
    uint16_t out[48];
#if !defined(__AVX2__) || !defined(__F16C__)
    fputs("no AVX2/F16C: scalar functions\n", stderr);
#endif
    while (fread(f, sizeof f, 1, stdin) == 1) {
        for (int h = 0; h < 2; ++h)                      /* (v0..v3, v8..v11) then (v4..v7, v12..v15) */
            for (int j = 0; j < 4; ++j) {
                unpack[8 * h + j] = f[4 * h + j];
                unpack[8 * h + 4 + j] = f[8 + 4 * h + j];
            }
#if defined(__AVX2__) && defined(__F16C__)
        _mm256_storeu_si256((__m256i *)(void *)out, opgen_f32x16_to_bf16(f));
        _mm256_storeu_si256((__m256i *)(void *)(out + 16), opgen_f32x16_unpacked_to_bf16(unpack));
        _mm_storeu_si128((__m128i *)(void *)(out + 32), opgen_f32x8_to_f16(f));
        _mm_storeu_si128((__m128i *)(void *)(out + 40), opgen_f32x8_to_f16(f + 8));
#else
        (void)unpack;
        for (int i = 0; i < 16; ++i) {
            out[i] = out[16 + i] = opgen_f32_to_bf16(f[i]);
            out[32 + i] = opgen_f32_to_f16(f[i]);
        }
#endif
        fwrite(out, sizeof out, 1, stdout);
    }
    return 0;
}
