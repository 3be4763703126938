/* Reads little-endian floats from stdin, writes opgen_expf_nonpos_2p100_f16 and _bf16 of each, as pairs
 * (tests/test_c_math.py: the exps of the sigmoid tuned to a half output). */
#include <stdint.h>
#include <stdio.h>

#include "opgen_math.h"

int main(void)
{
    float x;
    while (fread(&x, sizeof x, 1, stdin) == 1) {
        const float e[2] = {opgen_expf_nonpos_2p100_f16(x), opgen_expf_nonpos_2p100_bf16(x)};
        fwrite(e, sizeof e, 1, stdout);
    }
    return 0;
}
