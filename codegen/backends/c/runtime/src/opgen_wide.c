/* opgen_wide.c — what the kernels need beyond FLOAT: any real dtype read as double and written from double, and
 * the loop of the kernels that compute in DOUBLE (an op's `compute`: DOUBLE, or the integers it declares so).
 *
 * The DOUBLE loop is simple rather than fast: the elements in C order, each input read through its broadcast
 * strides and converted to double, OPGEN_BLOCK at a time through the op's double kernel, into a double buffer of
 * the whole result; then the result rounded once into the output's dtype and layout (so that an output that
 * overlaps an input is written after every input was read).  The library runs these dtypes on its AI CPU. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opgen_half.h"
#include "opgen_runtime.h"

double opgen_load_f64(const void *p, aclDataType dt)
{
    switch (dt) {
    case ACL_FLOAT: { float v; memcpy(&v, p, 4); return v; }
    case ACL_DOUBLE: { double v; memcpy(&v, p, 8); return v; }
    case ACL_FLOAT16: { uint16_t v; memcpy(&v, p, 2); return opgen_f16_to_f32(v); }
    case ACL_BF16: { uint16_t v; memcpy(&v, p, 2); return opgen_bf16_to_f32(v); }
    case ACL_INT8: { int8_t v; memcpy(&v, p, 1); return v; }
    case ACL_UINT8: { uint8_t v; memcpy(&v, p, 1); return v; }
    case ACL_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
    case ACL_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    case ACL_INT64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case ACL_BOOL: { uint8_t v; memcpy(&v, p, 1); return v != 0; }
    default: return NAN;   /* phase 1 admits no other dtype */
    }
}

/* x rounded to FLOAT "to odd": towards zero, the last bit set when inexact; rounding that to FLOAT16 or BFLOAT16
 * (fewer than 22 bits) gives the correctly rounded x, with no double rounding. */
static float round_to_odd(double x)
{
    float f = (float)x;
    if (isfinite(f) && (double)f != x) {
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        if (fabs((double)f) > fabs(x))
            u -= 1;
        u |= 1;
        memcpy(&f, &u, sizeof f);
    }
    return f;
}

/* The nearest integer, ties to even, saturated to [lo, hi]; nan gives 0: the library's CAST_RINT into integers. */
static double rint_saturate(double v, double lo, double hi)
{
    if (v != v)
        return 0.0;
    v = nearbyint(v);
    return v < lo ? lo : v > hi ? hi : v;
}

void opgen_store_f64(void *p, aclDataType dt, double v)
{
    switch (dt) {
    case ACL_FLOAT: { float f = (float)v; memcpy(p, &f, 4); break; }
    case ACL_DOUBLE: memcpy(p, &v, 8); break;
    case ACL_FLOAT16: { uint16_t h = opgen_f32_to_f16(round_to_odd(v)); memcpy(p, &h, 2); break; }
    case ACL_BF16: { uint16_t h = opgen_f32_to_bf16(round_to_odd(v)); memcpy(p, &h, 2); break; }
    case ACL_INT8: { int8_t i = (int8_t)rint_saturate(v, INT8_MIN, INT8_MAX); memcpy(p, &i, 1); break; }
    case ACL_UINT8: { uint8_t i = (uint8_t)rint_saturate(v, 0, UINT8_MAX); memcpy(p, &i, 1); break; }
    case ACL_INT16: { int16_t i = (int16_t)rint_saturate(v, INT16_MIN, INT16_MAX); memcpy(p, &i, 2); break; }
    case ACL_INT32: { int32_t i = (int32_t)rint_saturate(v, INT32_MIN, INT32_MAX); memcpy(p, &i, 4); break; }
    case ACL_INT64: {   /* 2^63 is the first double beyond INT64_MAX */
        const double r = rint_saturate(v, -9223372036854775808.0, 9223372036854775808.0);
        const int64_t i = r >= 9223372036854775808.0 ? INT64_MAX : (int64_t)r;
        memcpy(p, &i, 8);
        break;
    }
    default: { uint8_t b = v != 0.0; memcpy(p, &b, 1); break; }   /* BOOL (no output takes it) */
    }
}

bool opgen_computes_wide(int n, const aclTensor *const *inputs, int nwide, const aclDataType *wide)
{
    int dt = -1;
    for (int k = 0; k < n; ++k) {
        if (!inputs[k])
            continue;
        dt = dt < 0 ? (int)inputs[k]->dtype : opgen_promote((aclDataType)dt, inputs[k]->dtype);
        if (dt < 0)
            return false;
    }
    for (int i = 0; i < nwide; ++i)
        if (dt == (int)wide[i])
            return true;
    return false;
}

/* The next index of a C-order walk over `dims`. */
static void next_index(int64_t *idx, const int64_t *dims, uint64_t nd)
{
    for (int64_t d = (int64_t)nd - 1; d >= 0; --d) {
        if (++idx[d] < dims[d])
            return;
        idx[d] = 0;
    }
}

/* One element as a (real, imaginary) pair: the complex dtypes' two parts, any real dtype's value and 0. */
static void load_pair(const void *p, aclDataType dt, double *pair)
{
    if (dt == ACL_COMPLEX64) {
        float v[2];
        memcpy(v, p, sizeof v);
        pair[0] = v[0];
        pair[1] = v[1];
    } else if (dt == ACL_COMPLEX128) {
        memcpy(pair, p, 2 * sizeof(double));
    } else {
        pair[0] = opgen_load_f64(p, dt);
        pair[1] = 0.0;
    }
}

static void store_pair(void *p, aclDataType dt, const double *pair)
{
    if (dt == ACL_COMPLEX64) {
        const float v[2] = {(float)pair[0], (float)pair[1]};
        memcpy(p, v, sizeof v);
    } else if (dt == ACL_COMPLEX128) {
        memcpy(p, pair, 2 * sizeof(double));
    } else {
        opgen_store_f64(p, dt, pair[0]);
    }
}

aclnnStatus opgen_run_wide(const opgen_call *c, const void *params)
{
    const aclTensor *out = &c->out;
    const uint64_t nd = out->ndim;
    const int64_t n = opgen_numel(out);
    int64_t strides[OPGEN_MAX_INPUTS][OPGEN_MAX_DIMS];   /* each input's strides along out's axes, 0 broadcast */
    for (int k = 0; k < c->nin; ++k) {
        const aclTensor *t = &c->in[k];
        for (uint64_t d = 0; d < nd; ++d) {
            const int64_t td = (int64_t)d - (int64_t)(nd - t->ndim);
            strides[k][d] = (td < 0 || t->dims[td] == 1) ? 0 : t->strides[td];
        }
    }
    const int64_t w = c->is_complex ? 2 : 1;   /* doubles per element */
    double *result = malloc((size_t)(n * w) * sizeof(double));
    double *staging = malloc((size_t)(c->nin > 0 ? c->nin : 1) * OPGEN_BLOCK * (size_t)w * sizeof(double));
    if (!result || !staging) {
        free(result);
        free(staging);
        return opgen_fail(ACLNN_ERR_INNER, NULL, "out of memory for a DOUBLE kernel of %lld elements", (long long)n);
    }
    int64_t idx[OPGEN_MAX_DIMS] = {0};
    for (int64_t start = 0; start < n; start += OPGEN_BLOCK) {
        const int64_t m = n - start < OPGEN_BLOCK ? n - start : OPGEN_BLOCK;
        for (int64_t i = 0; i < m; ++i) {
            for (int k = 0; k < c->nin; ++k) {
                const aclTensor *t = &c->in[k];
                int64_t at = t->offset;
                for (uint64_t d = 0; d < nd; ++d)
                    at += idx[d] * strides[k][d];
                const char *p = (const char *)t->data + at * (int64_t)opgen_dtype_size(t->dtype);
                if (c->is_complex)
                    load_pair(p, t->dtype, staging + (k * OPGEN_BLOCK + i) * 2);
                else
                    staging[k * OPGEN_BLOCK + i] = opgen_load_f64(p, t->dtype);
            }
            next_index(idx, out->dims, nd);
        }
        const double *in[OPGEN_MAX_INPUTS];
        for (int k = 0; k < c->nin; ++k)
            in[k] = staging + k * OPGEN_BLOCK * w;
        c->wide(m, in, result + start * w, params);
    }
    memset(idx, 0, sizeof idx);
    const int64_t size = (int64_t)opgen_dtype_size(out->dtype);
    for (int64_t i = 0; i < n; ++i) {
        int64_t at = out->offset;
        for (uint64_t d = 0; d < nd; ++d)
            at += idx[d] * out->strides[d];
        if (c->is_complex)
            store_pair((char *)out->data + at * size, out->dtype, result + 2 * i);
        else
            opgen_store_f64((char *)out->data + at * size, out->dtype, result[i]);
        next_index(idx, out->dims, nd);
    }
    free(result);
    free(staging);
    return ACLNN_SUCCESS;
}
