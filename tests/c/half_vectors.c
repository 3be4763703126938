/* Reads little-endian uint32 words w (a multiple of 32 of them) from stdin and converts them with the vector code
 * of opgen_half.h, which the kernels' chunks use; writes nine rows of uint32 words, one per input word:
 *   0  the BFLOAT16 of w as a float by opgen_f32x16_to_bf16 (16 at a time, in order)
 *   1  the same by opgen_f32x16_unpacked_to_bf16 (given the floats in unpack order, which it puts back in order)
 *   2  the FLOAT16 by opgen_f32x8_to_f16
 *   3  the BFLOAT16 by opgen_f32_block_to_bf16, 4  the FLOAT16 by opgen_f32_block_to_f16,
 *   5  the FLOAT of the FLOAT16 bits w & 0xffff by opgen_f16_block_to_f32,
 *   6  the FLOAT of the BFLOAT16 bits w & 0xffff by opgen_bf16_block_to_f32,
 * the block functions called on runs of BLOCK elements (an odd count: their 16-, 8- and 1-element loops all run),
 *   7  the BFLOAT16 of w as a float by opgen_f32x32_evenodd_to_bf16 (given 32 floats in even/odd order),
 *   8  the FLOAT of the BFLOAT16 bits w & 0xffff by opgen_bf16x32_to_f32_evenodd (put back in order).
 * tests/test_c_conversions.py compares every row with the scalar functions.  Built with -march=native (and
 * again without each AVX-512 extension the machine has); without AVX2/F16C rows 0-2 are the scalar functions (and
 * it says so on stderr), without AVX-512 rows 7-8 (AVX2 builds: rows 0-6 test them). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opgen_half.h"

#define BLOCK 61

/* n uint16 words out as uint32 words (row: scratch of n words) */
static void write_halves(const uint16_t *h, uint32_t *row, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        row[i] = h[i];
    fwrite(row, sizeof *row, n, stdout);
}

int main(void)
{
    size_t cap = 1 << 16, n = 0;
    uint32_t *w = malloc(cap * sizeof *w);
    for (size_t got; w && (got = fread(w + n, sizeof *w, cap - n, stdin)) > 0;) {
        n += got;
        if (n == cap)
            w = realloc(w, (cap *= 2) * sizeof *w);
    }
    uint32_t *row = malloc(n * sizeof *row);
    uint16_t *half = malloc(n * sizeof *half);
    float *f = malloc(n * sizeof *f);
    if (!w || !row || !half || !f || n % 32)
        return 1;
    memcpy(f, w, n * sizeof *f);
#if !defined(__AVX2__) || !defined(__F16C__)
    fputs("no AVX2/F16C: scalar functions\n", stderr);
#endif
    for (int r = 0; r < 3; ++r) {
        for (size_t i = 0; i < n; i += 16) {
            uint16_t out[16];
#if defined(__AVX2__) && defined(__F16C__)
            float unpack[16];
            for (int h = 0; h < 2; ++h)                  /* (v0..v3, v8..v11) then (v4..v7, v12..v15) */
                for (int j = 0; j < 4; ++j) {
                    unpack[8 * h + j] = f[i + 4 * h + j];
                    unpack[8 * h + 4 + j] = f[i + 8 + 4 * h + j];
                }
            if (r == 0)
                _mm256_storeu_si256((__m256i *)(void *)out, opgen_f32x16_to_bf16(f + i));
            else if (r == 1)
                _mm256_storeu_si256((__m256i *)(void *)out, opgen_f32x16_unpacked_to_bf16(unpack));
            else {
                _mm_storeu_si128((__m128i *)(void *)out, opgen_f32x8_to_f16(f + i));
                _mm_storeu_si128((__m128i *)(void *)(out + 8), opgen_f32x8_to_f16(f + i + 8));
            }
#else
            for (int j = 0; j < 16; ++j)
                out[j] = r < 2 ? opgen_f32_to_bf16(f[i + j]) : opgen_f32_to_f16(f[i + j]);
#endif
            for (int j = 0; j < 16; ++j)
                row[i + j] = out[j];
        }
        fwrite(row, sizeof *row, n, stdout);
    }
    /* rows 3-6: the block functions, each run of BLOCK elements through all four */
    uint16_t *bf = calloc(n, sizeof *bf), *h = calloc(n, sizeof *h);   /* (calloc: GCC 12 sees "maybe uninitialized") */
    float *from_h = malloc(n * sizeof *from_h), *from_bf = malloc(n * sizeof *from_bf);
    if (!bf || !h || !from_h || !from_bf)
        return 1;
    for (size_t i = 0; i < n; ++i)
        half[i] = (uint16_t)w[i];
    for (size_t i = 0; i < n; i += BLOCK) {
        const int64_t m = n - i < BLOCK ? (int64_t)(n - i) : BLOCK;
        opgen_f32_block_to_bf16(bf + i, f + i, m);
        opgen_f32_block_to_f16(h + i, f + i, m);
        opgen_f16_block_to_f32(from_h + i, half + i, m);
        opgen_bf16_block_to_f32(from_bf + i, half + i, m);
    }
    write_halves(bf, row, n);
    write_halves(h, row, n);
    fwrite(from_h, sizeof *from_h, n, stdout);      /* (FLOAT bits: uint32 words) */
    fwrite(from_bf, sizeof *from_bf, n, stdout);
    /* rows 7-8: AVX-512's even/odd order of elementwise BFLOAT16 chunks, both ways */
    for (size_t i = 0; i < n; i += 32) {
        uint16_t out[32];
        float widened[32];
#if defined(__AVX512F__)
        float evenodd[32];
        for (int j = 0; j < 16; ++j) {
            evenodd[j] = f[i + 2 * j];
            evenodd[16 + j] = f[i + 2 * j + 1];
        }
        _mm512_storeu_si512((void *)out, opgen_f32x32_evenodd_to_bf16(evenodd));
        opgen_bf16x32_to_f32_evenodd(evenodd, half + i);
        for (int j = 0; j < 16; ++j) {
            widened[2 * j] = evenodd[j];
            widened[2 * j + 1] = evenodd[16 + j];
        }
#else
        for (int j = 0; j < 32; ++j) {
            out[j] = opgen_f32_to_bf16(f[i + j]);
            widened[j] = opgen_bf16_to_f32(half[i + j]);
        }
#endif
        for (int j = 0; j < 32; ++j) {
            bf[i + j] = out[j];
            from_bf[i + j] = widened[j];
        }
    }
    write_halves(bf, row, n);
    fwrite(from_bf, sizeof *from_bf, n, stdout);
    free(bf);
    free(h);
    free(from_h);
    free(from_bf);
    free(w);
    free(row);
    free(half);
    free(f);
    return 0;
}
