/* Reads little-endian floats from stdin, writes opgen_expf_nonpos_2p100_half of each (tests/test_c_math.py: the
 * exp of the sigmoid tuned to a half output). */
#include <stdint.h>
#include <stdio.h>

#include "opgen_math.h"

int main(void)
{
    float x;
    while (fread(&x, sizeof x, 1, stdin) == 1) {
        const float e = opgen_expf_nonpos_2p100_half(x);
        fwrite(&e, sizeof e, 1, stdout);
    }
    return 0;
}
