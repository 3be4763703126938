/* Reads little-endian floats from stdin, writes opgen_expm1f, opgen_tanhf, opgen_erff, opgen_erfcf,
 * opgen_log1pf, opgen_logf, opgen_signf, opgen_coshf and opgen_sinhf of each (tests/test_c_math_functions.py). */
#include <stdint.h>
#include <stdio.h>

#include "opgen_math.h"

int main(void)
{
    float x;
    while (fread(&x, sizeof x, 1, stdin) == 1) {
        const float y[9] = {opgen_expm1f(x), opgen_tanhf(x), opgen_erff(x), opgen_erfcf(x), opgen_log1pf(x),
                            opgen_logf(x), opgen_signf(x), opgen_coshf(x), opgen_sinhf(x)};
        fwrite(y, sizeof y, 1, stdout);
    }
    return 0;
}
