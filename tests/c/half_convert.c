/* Reads little-endian uint32 words from stdin and writes, per word w, four uint32 words:
 *   f32 -> f16 bits of w as a float,  f32 -> bf16 bits,  f16 bits (w & 0xffff) -> f32 bits,  bf16 -> f32 bits
 * so that tests/test_c_conversions.py can compare opgen_half.h with NumPy and ml_dtypes. */
#include <stdint.h>
#include <stdio.h>

#include "opgen_half.h"

int main(void)
{
    uint32_t w;
    while (fread(&w, sizeof w, 1, stdin) == 1) {
        const float f = opgen_bits_f32(w);
        const uint32_t out[4] = {opgen_f32_to_f16(f), opgen_f32_to_bf16(f),
                                 opgen_f32_bits(opgen_f16_to_f32((uint16_t)w)),
                                 opgen_f32_bits(opgen_bf16_to_f32((uint16_t)w))};
        fwrite(out, sizeof out, 1, stdout);
    }
    return 0;
}
