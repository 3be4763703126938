/* Reads little-endian floats from stdin, writes opgen_expf of each (tests/test_c_math.py). */
#include <stdint.h>
#include <stdio.h>

#include "opgen_math.h"

int main(void)
{
    float x;
    while (fread(&x, sizeof x, 1, stdin) == 1) {
        const float e = opgen_expf(x);
        fwrite(&e, sizeof e, 1, stdout);
    }
    return 0;
}
