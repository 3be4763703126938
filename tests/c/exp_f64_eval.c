/* Reads little-endian floats from stdin, writes opgen_exp_f64 and opgen_sigmoid_ext of each (widened to double),
 * as pairs of doubles (tests/test_c_math.py). */
#include <stdint.h>
#include <stdio.h>

#include "opgen_math.h"

int main(void)
{
    float x;
    while (fread(&x, sizeof x, 1, stdin) == 1) {
        const double e[2] = {opgen_exp_f64((double)x), opgen_sigmoid_ext((double)x)};
        fwrite(e, sizeof e, 1, stdout);
    }
    return 0;
}
