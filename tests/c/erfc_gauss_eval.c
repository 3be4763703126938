/* Reads little-endian floats from stdin, writes opgen_erfc_gaussf of each and its e^(-x^2/2), as pairs
 * (tests/test_c_math.py). */
#include <stdint.h>
#include <stdio.h>

#include "opgen_math.h"

int main(void)
{
    float x;
    while (fread(&x, sizeof x, 1, stdin) == 1) {
        float e[2];
        e[0] = opgen_erfc_gaussf(x, &e[1]);
        fwrite(e, sizeof e, 1, stdout);
    }
    return 0;
}
