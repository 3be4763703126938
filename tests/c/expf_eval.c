/* Reads little-endian floats from stdin, writes opgen_expf and opgen_expf_nonpos of each, as pairs
 * (tests/test_c_math.py). */
#include <stdint.h>
#include <stdio.h>

#include "opgen_math.h"

int main(void)
{
    float x;
    while (fread(&x, sizeof x, 1, stdin) == 1) {
        const float e[2] = {opgen_expf(x), opgen_expf_nonpos(x)};
        fwrite(e, sizeof e, 1, stdout);
    }
    return 0;
}
