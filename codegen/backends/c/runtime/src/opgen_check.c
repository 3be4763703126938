/* opgen_check.c — the phase-1 checks, the C twins of codegen/runtime/checks.py.  Conditions and messages are
 * the same word for word (tests/test_c_checker_parity.py compares them on random calls), so a caller sees the
 * same AclnnError from every backend. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opgen_runtime.h"

#define INVALID ACLNN_ERR_PARAM_INVALID

/* "[2, 3]", as Python's shape_str. */
static const char *shape_str(char *buf, size_t cap, const int64_t *dims, uint64_t n)
{
    size_t len = (size_t)snprintf(buf, cap, "[");
    for (uint64_t i = 0; i < n && len < cap; ++i)
        len += (size_t)snprintf(buf + len, cap - len, "%s%" PRId64, i ? ", " : "", dims[i]);
    if (len < cap)
        snprintf(buf + len, cap - len, "]");
    return buf;
}

/* NumPy broadcasting of two shapes into out (rank max(na, nb)); false when they do not broadcast. */
static bool broadcast2(const int64_t *a, uint64_t na, const int64_t *b, uint64_t nb, int64_t *out, uint64_t *nout)
{
    const uint64_t n = na > nb ? na : nb;
    for (uint64_t i = 0; i < n; ++i) {
        const int64_t da = i < n - na ? 1 : a[i - (n - na)];
        const int64_t db = i < n - nb ? 1 : b[i - (n - nb)];
        if (da != db && da != 1 && db != 1)
            return false;
        out[i] = da == 1 ? db : da;
    }
    *nout = n;
    return true;
}

static bool same_shape(const int64_t *a, uint64_t na, const int64_t *b, uint64_t nb)
{
    if (na != nb)
        return false;
    for (uint64_t i = 0; i < na; ++i)
        if (a[i] != b[i])
            return false;
    return true;
}

/* Python's repr() of a float: the shortest digits that read back as the same double, in fixed notation for
 * exponents -4..15 and scientific otherwise ("1e-05", "0.0001", "123.0", "-0.0", "inf", "nan"). */
static const char *py_float(char *out, size_t cap, double v)
{
    if (isnan(v)) { snprintf(out, cap, "nan"); return out; }
    if (isinf(v)) { snprintf(out, cap, v < 0 ? "-inf" : "inf"); return out; }
    char sci[40];
    for (int p = 1; p <= 17; ++p) {
        snprintf(sci, sizeof sci, "%.*e", p - 1, v);
        if (strtod(sci, NULL) == v)
            break;
    }
    const char *s = sci;
    const bool neg = *s == '-';
    if (neg)
        ++s;
    char digits[24];
    int nd = 0;
    for (; *s && *s != 'e'; ++s)
        if (*s != '.')
            digits[nd++] = *s;
    const int e10 = atoi(s + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        --nd;
    char body[64];
    size_t len = 0;
    if (e10 >= -4 && e10 < 16) {
        if (e10 < 0) {
            len += (size_t)snprintf(body + len, sizeof body - len, "0.");
            for (int i = 0; i < -e10 - 1; ++i)
                body[len++] = '0';
            for (int i = 0; i < nd; ++i)
                body[len++] = digits[i];
        } else {
            for (int i = 0; i <= e10; ++i)
                body[len++] = i < nd ? digits[i] : '0';
            body[len++] = '.';
            if (nd > e10 + 1)
                for (int i = e10 + 1; i < nd; ++i)
                    body[len++] = digits[i];
            else
                body[len++] = '0';
        }
        body[len] = '\0';
    } else {
        body[len++] = digits[0];
        if (nd > 1) {
            body[len++] = '.';
            for (int i = 1; i < nd; ++i)
                body[len++] = digits[i];
        }
        snprintf(body + len, sizeof body - len, "e%c%02d", e10 < 0 ? '-' : '+', e10 < 0 ? -e10 : e10);
    }
    snprintf(out, cap, "%s%s", neg ? "-" : "", body);
    return out;
}

/* ---- null ------------------------------------------------------------------------------------------------------ */
aclnnStatus opgen_check_not_null(const char *name, const void *p)
{
    if (!p)
        return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, name, "%s must not be null", name);
    return ACLNN_SUCCESS;
}

/* ---- dtype ----------------------------------------------------------------------------------------------------- */
static bool in_list(aclDataType dt, const opgen_soc_dtypes *s)
{
    for (int i = 0; i < s->n; ++i)
        if (s->dtypes[i] == dt)
            return true;
    return false;
}

aclnnStatus opgen_check_dtype_supported(const char *op, const char *name, const aclTensor *t,
                                        const opgen_dtype_table *table)
{
    if (!t)
        return ACLNN_SUCCESS;
    const char *product = opgen_soc();
    const opgen_soc_dtypes *allowed = NULL;
    for (int i = 0; i < table->n; ++i)
        if (strcmp(table->socs[i].soc, product) == 0)
            allowed = &table->socs[i];
    if (allowed && in_list(t->dtype, allowed))
        return ACLNN_SUCCESS;
    char list[512];
    size_t len = 0;
    list[0] = '\0';
    if (!allowed || allowed->n == 0) {
        for (int i = 0; i < table->n; ++i)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", table->socs[i].soc);
        return opgen_fail(INVALID, name, "%s does not run on %s: %s cannot be checked there (it runs on %s)", op,
                          product, name, table->n ? list : "no product");
    }
    const char *got = opgen_dtype_name(t->dtype);
    for (int i = 0; i < allowed->n; ++i)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                opgen_dtype_name(allowed->dtypes[i]));
    char hint[512];
    size_t hl = 0;
    hint[0] = '\0';
    int found = 0;
    for (int i = 0; i < table->n; ++i) {
        if (in_list(t->dtype, &table->socs[i])) {
            if (found++ == 0)
                hl += (size_t)snprintf(hint + hl, sizeof hint - hl, "; %s is supported on ", got);
            else
                hl += (size_t)snprintf(hint + hl, sizeof hint - hl, ", ");
            hl += (size_t)snprintf(hint + hl, sizeof hint - hl, "%s", table->socs[i].soc);
        }
    }
    return opgen_fail(INVALID, name, "%s has dtype %s, not supported by %s on %s (supported: %s)%s", name, got, op,
                      product, list, hint);
}

aclnnStatus opgen_check_dtype_same(const char *ref_name, const aclTensor *ref, const char *name, const aclTensor *t)
{
    if (!ref || !t || ref->dtype == t->dtype)
        return ACLNN_SUCCESS;
    return opgen_fail(INVALID, name, "%s must have the same dtype as %s: got %s, %s is %s", name, ref_name,
                      opgen_dtype_name(t->dtype), ref_name, opgen_dtype_name(ref->dtype));
}

/* The format's name, or its number when it is not a value of aclFormat (C callers may pass any int). */
static const char *format_text(aclFormat format, char *buf, size_t n)
{
    const char *name = opgen_format_name(format);
    if (name)
        return name;
    snprintf(buf, n, "format %d", (int)format);
    return buf;
}

aclnnStatus opgen_check_format_same(const char *ref_name, const aclTensor *ref, const char *name, const aclTensor *t)
{
    if (!ref || !t || ref->format == t->format)
        return ACLNN_SUCCESS;
    char a[32], b[32];
    return opgen_fail(INVALID, name, "%s must have the format of %s: got %s, %s is %s", name, ref_name,
                      format_text(t->format, b, sizeof b), ref_name, format_text(ref->format, a, sizeof a));
}

/* CANN's op::IsPrivateFormat: the cube units' blocked layouts (opgen_format_is_private, from formats.py). */
aclnnStatus opgen_check_format_not_private(const char *name, const aclTensor *t)
{
    if (!t || !opgen_format_is_private(t->format))
        return ACLNN_SUCCESS;
    char b[32];
    return opgen_fail(INVALID, name, "%s must not have a private format: got %s", name,
                      format_text(t->format, b, sizeof b));
}

aclnnStatus opgen_check_dtype_castable(const char *src_name, const aclTensor *src, const char *name,
                                       const aclTensor *t)
{
    if (!src || !t || opgen_can_cast(src->dtype, t->dtype))
        return ACLNN_SUCCESS;
    return opgen_fail(INVALID, name, "%s's dtype %s cannot be cast to from %s's dtype %s", name,
                      opgen_dtype_name(t->dtype), src_name, opgen_dtype_name(src->dtype));
}

/* The promoted dtype of the non-null operands (-1 when two do not promote), their names joined with " and " into
 * `joined`, and the index of the operand that failed to promote (-1 if none). */
static int promoted(int n, const char *const *names, const aclTensor *const *operands, char *joined, size_t cap,
                    int *count)
{
    int dt = -1;
    size_t len = 0;
    joined[0] = '\0';
    *count = 0;
    for (int i = 0; i < n; ++i) {
        if (!operands[i])
            continue;
        len += (size_t)snprintf(joined + len, cap - len, "%s%s", *count ? " and " : "", names[i]);
        dt = *count ? (dt < 0 ? -1 : opgen_promote((aclDataType)dt, operands[i]->dtype)) : (int)operands[i]->dtype;
        ++*count;
    }
    return dt;
}

aclnnStatus opgen_check_promoted_supported(const char *op, const char *name, const opgen_dtype_table *table, int n,
                                           const char *const *names, const aclTensor *const *operands)
{
    char joined[256], got[256];
    int count;
    const int dt = promoted(n, names, operands, joined, sizeof joined, &count);
    if (count == 0)
        return ACLNN_SUCCESS;
    if (dt < 0) {
        size_t len = 0;
        got[0] = '\0';
        for (int i = 0, k = 0; i < n; ++i)
            if (operands[i])
                len += (size_t)snprintf(got + len, sizeof got - len, "%s%s", k++ ? ", " : "",
                                        opgen_dtype_name(operands[i]->dtype));
        return opgen_fail(INVALID, name, "the dtypes of %s (%s) do not promote to a common dtype", joined, got);
    }
    const char *product = opgen_soc();
    const opgen_soc_dtypes *allowed = NULL;
    for (int i = 0; i < table->n; ++i)
        if (strcmp(table->socs[i].soc, product) == 0)
            allowed = &table->socs[i];
    if (allowed && in_list((aclDataType)dt, allowed))
        return ACLNN_SUCCESS;
    char list[512];
    size_t len = 0;
    list[0] = '\0';
    for (int i = 0; allowed && i < allowed->n; ++i)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                opgen_dtype_name(allowed->dtypes[i]));
    return opgen_fail(INVALID, name, "the dtypes of %s promote to %s, not supported by %s on %s (supported: %s)",
                      joined, opgen_dtype_name((aclDataType)dt), op, product, len ? list : "none");
}

aclnnStatus opgen_check_promoted_castable(const char *name, const aclTensor *t, int n, const char *const *names,
                                          const aclTensor *const *operands)
{
    char joined[256];
    int count;
    const int dt = promoted(n, names, operands, joined, sizeof joined, &count);
    if (!t || dt < 0 || opgen_can_cast((aclDataType)dt, t->dtype))
        return ACLNN_SUCCESS;
    return opgen_fail(INVALID, name, "%s's dtype %s cannot be cast to from %s, the promoted dtype of %s", name,
                      opgen_dtype_name(t->dtype), opgen_dtype_name((aclDataType)dt), joined);
}

aclnnStatus opgen_check_promoted_same(const char *name, const aclTensor *t, int n, const char *const *names,
                                      const aclTensor *const *operands)
{
    char joined[256];
    int count;
    const int dt = promoted(n, names, operands, joined, sizeof joined, &count);
    if (!t || dt < 0 || t->dtype == (aclDataType)dt)
        return ACLNN_SUCCESS;
    return opgen_fail(INVALID, name, "%s must have %s, the promoted dtype of %s: got %s", name,
                      opgen_dtype_name((aclDataType)dt), joined, opgen_dtype_name(t->dtype));
}

/* ---- shape ----------------------------------------------------------------------------------------------------- */
aclnnStatus opgen_check_max_rank(const char *name, const aclTensor *t, int64_t n)
{
    if (t && (int64_t)t->ndim > n)
        return opgen_fail(INVALID, name, "%s has %" PRIu64 " dimensions, more than %" PRId64, name, t->ndim, n);
    return ACLNN_SUCCESS;
}

aclnnStatus opgen_check_dim_at_most(const char *name, const aclTensor *t, int64_t dim, int64_t n)
{
    const int64_t rank = t ? (int64_t)t->ndim : 0;
    if (t && -rank <= dim && dim < rank) {
        const int64_t size = t->dims[dim < 0 ? dim + rank : dim];
        if (size > n)
            return opgen_fail(INVALID, name, "dimension %" PRId64 " of %s is %" PRId64 ", more than %" PRId64, dim,
                              name, size, n);
    }
    return ACLNN_SUCCESS;
}

aclnnStatus opgen_check_dim_at_least(const char *name, const aclTensor *t, int64_t dim, int64_t n)
{
    const int64_t rank = t ? (int64_t)t->ndim : 0;
    if (t && -rank <= dim && dim < rank) {
        const int64_t size = t->dims[dim < 0 ? dim + rank : dim];
        if (size < n)
            return opgen_fail(INVALID, name, "dimension %" PRId64 " of %s is %" PRId64 ", less than %" PRId64, dim,
                              name, size, n);
    }
    return ACLNN_SUCCESS;
}

aclnnStatus opgen_check_min_rank(const char *name, const aclTensor *t, int64_t n)
{
    if (t && (int64_t)t->ndim < n)
        return opgen_fail(INVALID, name, "%s has %" PRIu64 " dimensions, fewer than %" PRId64, name, t->ndim, n);
    return ACLNN_SUCCESS;
}

aclnnStatus opgen_check_shape_same(const char *ref_name, const aclTensor *ref, const char *name, const aclTensor *t)
{
    if (!ref || !t || same_shape(ref->dims, ref->ndim, t->dims, t->ndim))
        return ACLNN_SUCCESS;
    char a[256], b[256];
    return opgen_fail(INVALID, name, "%s must have the shape of %s %s, got %s", name, ref_name,
                      shape_str(a, sizeof a, ref->dims, ref->ndim), shape_str(b, sizeof b, t->dims, t->ndim));
}

aclnnStatus opgen_check_broadcast_to(const char *name, const aclTensor *t, const char *target_name,
                                     const aclTensor *target)
{
    if (!t || !target)
        return ACLNN_SUCCESS;
    int64_t shape[2 * OPGEN_MAX_DIMS];
    uint64_t n;
    if (broadcast2(t->dims, t->ndim, target->dims, target->ndim, shape, &n)
        && same_shape(shape, n, target->dims, target->ndim))
        return ACLNN_SUCCESS;
    char a[256], b[256];
    return opgen_fail(INVALID, name, "%s of shape %s does not broadcast to %s's shape %s", name,
                      shape_str(a, sizeof a, t->dims, t->ndim), target_name,
                      shape_str(b, sizeof b, target->dims, target->ndim));
}

aclnnStatus opgen_check_broadcast_on(const char *name, const aclTensor *t, const char *target_name,
                                     const aclTensor *target, int n, const int64_t *axes)
{
    aclnnStatus st = opgen_check_broadcast_to(name, t, target_name, target);
    if (st != ACLNN_SUCCESS || !t || !target)
        return st;
    const int64_t nt = (int64_t)target->ndim, lead = nt - (int64_t)t->ndim;
    for (int64_t i = 0; i < nt; i++) {
        bool free = false;
        for (int k = 0; k < n; k++)
            free = free || (-nt <= axes[k] && axes[k] < nt && (axes[k] < 0 ? axes[k] + nt : axes[k]) == i);
        if (!free && (i < lead || t->dims[i - lead] != target->dims[i])) {
            char a[256], b[256], c[256];
            return opgen_fail(INVALID, name, "%s of shape %s may broadcast to %s's shape %s only along axes %s", name,
                              shape_str(a, sizeof a, t->dims, t->ndim), target_name,
                              shape_str(b, sizeof b, target->dims, target->ndim), shape_str(c, sizeof c, axes, (uint64_t)n));
        }
    }
    return ACLNN_SUCCESS;
}

aclnnStatus opgen_check_broadcastable(const char *a_name, const aclTensor *a, const char *name, const aclTensor *t)
{
    if (!a || !t)
        return ACLNN_SUCCESS;
    int64_t shape[2 * OPGEN_MAX_DIMS];
    uint64_t n;
    if (broadcast2(a->dims, a->ndim, t->dims, t->ndim, shape, &n))
        return ACLNN_SUCCESS;
    char sa[256], sb[256];
    return opgen_fail(INVALID, name, "%s of shape %s does not broadcast with %s of shape %s", name,
                      shape_str(sb, sizeof sb, t->dims, t->ndim), a_name, shape_str(sa, sizeof sa, a->dims, a->ndim));
}

/* t broadcasts with the broadcast shape of the operands (which broadcast together: an earlier rule says so) */
aclnnStatus opgen_check_broadcastable_with(const char *name, const aclTensor *t, int n, const char *const *names,
                                           const aclTensor *const *operands)
{
    if (!t)
        return ACLNN_SUCCESS;
    int64_t want[OPGEN_MAX_DIMS] = {0}, next[OPGEN_MAX_DIMS] = {0};
    uint64_t nw = 0, nn;
    for (int i = 0; i < n; ++i) {
        if (!operands[i])
            return ACLNN_SUCCESS;
        if (!broadcast2(want, nw, operands[i]->dims, operands[i]->ndim, next, &nn))
            return ACLNN_SUCCESS;   /* operands that do not broadcast are another rule's business */
        memcpy(want, next, sizeof(int64_t) * nn);
        nw = nn;
    }
    if (broadcast2(want, nw, t->dims, t->ndim, next, &nn))
        return ACLNN_SUCCESS;
    char joined[256], a[256], b[256];
    size_t len = 0;
    joined[0] = '\0';
    for (int i = 0; i < n; ++i)
        len += (size_t)snprintf(joined + len, sizeof joined - len, "%s%s", i ? " and " : "", names[i]);
    return opgen_fail(INVALID, name, "%s of shape %s does not broadcast with the broadcast shape %s of %s", name,
                      shape_str(b, sizeof b, t->dims, t->ndim), shape_str(a, sizeof a, want, nw), joined);
}

aclnnStatus opgen_check_shape_is_broadcast(const char *name, const aclTensor *t, int n, const char *const *names,
                                           const aclTensor *const *operands)
{
    if (!t)
        return ACLNN_SUCCESS;
    int64_t want[OPGEN_MAX_DIMS] = {0}, next[OPGEN_MAX_DIMS];   /* (zeroed: GCC 12 -O1 warned it may be read unset) */
    uint64_t nw = 0, nn;
    for (int i = 0; i < n; ++i) {
        if (!operands[i])
            return ACLNN_SUCCESS;
        if (!broadcast2(want, nw, operands[i]->dims, operands[i]->ndim, next, &nn))
            return ACLNN_SUCCESS;   /* operands that do not broadcast are another rule's business */
        memcpy(want, next, sizeof(int64_t) * nn);
        nw = nn;
    }
    if (same_shape(want, nw, t->dims, t->ndim))
        return ACLNN_SUCCESS;
    char joined[256], a[256], b[256];
    size_t len = 0;
    joined[0] = '\0';
    for (int i = 0; i < n; ++i)
        len += (size_t)snprintf(joined + len, sizeof joined - len, "%s%s", i ? " and " : "", names[i]);
    return opgen_fail(INVALID, name, "%s must have the broadcast shape %s of %s, got %s", name,
                      shape_str(a, sizeof a, want, nw), joined, shape_str(b, sizeof b, t->dims, t->ndim));
}

aclnnStatus opgen_check_broadcasts_into(const char *name, const aclTensor *t, int n, const char *const *names,
                                        const aclTensor *const *operands)
{
    if (!t)
        return ACLNN_SUCCESS;
    int64_t want[OPGEN_MAX_DIMS] = {0}, next[OPGEN_MAX_DIMS] = {0};
    uint64_t nw = 0, nn;
    for (int i = 0; i < n; ++i) {
        if (!operands[i])
            return ACLNN_SUCCESS;
        if (!broadcast2(want, nw, operands[i]->dims, operands[i]->ndim, next, &nn))
            return ACLNN_SUCCESS;   /* operands that do not broadcast are another rule's business */
        memcpy(want, next, sizeof(int64_t) * nn);
        nw = nn;
    }
    if (broadcast2(want, nw, t->dims, t->ndim, next, &nn) && same_shape(want, nw, next, nn))
        return ACLNN_SUCCESS;
    char joined[256], a[256], b[256];
    size_t len = 0;
    joined[0] = '\0';
    for (int i = 0; i < n; ++i)
        len += (size_t)snprintf(joined + len, sizeof joined - len, "%s%s", i ? " and " : "", names[i]);
    return opgen_fail(INVALID, name, "%s of shape %s does not broadcast to the broadcast shape %s of %s", name,
                      shape_str(b, sizeof b, t->dims, t->ndim), shape_str(a, sizeof a, want, nw), joined);
}

/* ---- values ---------------------------------------------------------------------------------------------------- */
aclnnStatus opgen_check_scalar_value(const char *name, const aclScalar *s, double *value)
{
    if (s->dtype == ACL_BOOL)
        return opgen_fail(INVALID, name, "%s must be a real number, got BOOL", name);
    *value = s->value;
    return ACLNN_SUCCESS;
}

aclnnStatus opgen_check_optional_scalar_value(const char *name, const aclScalar *s, double fallback,
                                             double *value)
{
    if (!s) {   /* an optional aclScalar left null: its documented default */
        *value = fallback;
        return ACLNN_SUCCESS;
    }
    return opgen_check_scalar_value(name, s, value);
}

aclnnStatus opgen_check_dim_in_range(const char *name, int64_t dim, const char *tensor_name, const aclTensor *t)
{
    if (!t)
        return ACLNN_SUCCESS;
    const int64_t n = t->ndim > 1 ? (int64_t)t->ndim : 1;
    if (-n <= dim && dim <= n - 1)
        return ACLNN_SUCCESS;
    return opgen_fail(INVALID, name,
                      "%s must be in [%" PRId64 ", %" PRId64 "] for %s of rank %" PRIu64 ", got %" PRId64, name,
                      -n, n - 1, tensor_name, t->ndim, dim);
}

/* dim wrapped into [0, n) for a tensor of rank n (rank 0 counts as 1), as Python's dim % n. */
static int64_t wrap_dim(int64_t dim, uint64_t ndim)
{
    const int64_t n = ndim > 1 ? (int64_t)ndim : 1;
    return ((dim % n) + n) % n;
}

aclnnStatus opgen_check_dim_even(const char *name, const aclTensor *t, const char *dim_name, int64_t dim)
{
    if (!t)
        return ACLNN_SUCCESS;
    const int64_t size = t->ndim ? t->dims[wrap_dim(dim, t->ndim)] : 1;
    if (size % 2 == 0)
        return ACLNN_SUCCESS;
    char a[256];
    return opgen_fail(INVALID, name, "%s is split in halves along %s=%" PRId64 ": its size there must be even, got %"
                      PRId64 " in %s", name, dim_name, dim, size, shape_str(a, sizeof a, t->dims, t->ndim));
}

aclnnStatus opgen_check_shape_halved(const char *name, const aclTensor *t, const char *ref_name, const aclTensor *ref,
                                     const char *dim_name, int64_t dim)
{
    if (!t || !ref)
        return ACLNN_SUCCESS;
    int64_t want[OPGEN_MAX_DIMS];
    for (uint64_t i = 0; i < ref->ndim; ++i)
        want[i] = ref->dims[i];
    if (ref->ndim)
        want[wrap_dim(dim, ref->ndim)] /= 2;
    if (same_shape(want, ref->ndim, t->dims, t->ndim))
        return ACLNN_SUCCESS;
    char a[256], b[256], c[256];
    return opgen_fail(INVALID, name, "%s must have the shape of %s %s with %s=%" PRId64 " halved, %s, got %s", name,
                      ref_name, shape_str(a, sizeof a, ref->dims, ref->ndim), dim_name, dim,
                      shape_str(b, sizeof b, want, ref->ndim), shape_str(c, sizeof c, t->dims, t->ndim));
}

aclnnStatus opgen_check_shape_halved_at(const char *name, const aclTensor *t, const char *ref_name,
                                        const aclTensor *ref, int64_t axis)
{
    if (!t || !ref)
        return ACLNN_SUCCESS;
    bool ok = t->ndim == ref->ndim && t->ndim > 0;
    if (ok) {
        const uint64_t d = (uint64_t)wrap_dim(axis, t->ndim);
        for (uint64_t i = 0; i < t->ndim && ok; ++i)
            ok = i == d ? 2 * t->dims[i] == ref->dims[i] : t->dims[i] == ref->dims[i];
    }
    if (ok)
        return ACLNN_SUCCESS;
    char a[256], b[256];
    return opgen_fail(INVALID, name, "%s must have the shape of %s %s with axis %" PRId64 " halved (an even size "
                      "there), got %s", name, ref_name, shape_str(a, sizeof a, ref->dims, ref->ndim), axis,
                      shape_str(b, sizeof b, t->dims, t->ndim));
}

/* ref's shape without its class axis (1; a 1-D ref is one sample: rank 0), into want; its rank. */
static uint64_t without_class(const aclTensor *ref, int64_t *want)
{
    if (ref->ndim <= 1)
        return 0;
    uint64_t n = 0;
    for (uint64_t i = 0; i < ref->ndim; ++i)
        if (i != 1)
            want[n++] = ref->dims[i];
    return n;
}

aclnnStatus opgen_check_class_target(const char *name, const aclTensor *t, const char *ref_name, const aclTensor *ref)
{
    if (!t || !ref)
        return ACLNN_SUCCESS;
    if (ref->ndim <= 1 && t->ndim <= 1 && opgen_numel(t) == 1)
        return ACLNN_SUCCESS;
    int64_t want[OPGEN_MAX_DIMS];
    const uint64_t nw = without_class(ref, want);
    if (ref->ndim > 1 && same_shape(want, nw, t->dims, t->ndim))
        return ACLNN_SUCCESS;
    char a[256], b[256], c[256];
    return opgen_fail(INVALID, name, "%s must hold one class index per sample of %s %s: shape %s%s, got %s", name,
                      ref_name, shape_str(a, sizeof a, ref->dims, ref->ndim), shape_str(b, sizeof b, want, nw),
                      ref->ndim <= 1 ? " (or (1))" : "", shape_str(c, sizeof c, t->dims, t->ndim));
}

aclnnStatus opgen_check_class_count(const char *name, const aclTensor *t, const char *ref_name, const aclTensor *ref)
{
    if (!t || !ref)
        return ACLNN_SUCCESS;
    const int64_t classes = ref->ndim >= 2 ? ref->dims[1] : (ref->ndim ? ref->dims[0] : 1);
    if (opgen_numel(t) == classes)
        return ACLNN_SUCCESS;
    char a[256], b[256];
    return opgen_fail(INVALID, name, "%s must have one element per class of %s %s, %" PRId64 ", got %" PRId64 " in %s",
                      name, ref_name, shape_str(a, sizeof a, ref->dims, ref->ndim), classes, opgen_numel(t),
                      shape_str(b, sizeof b, t->dims, t->ndim));
}

/* PerChannel (codegen/spec/rules.py): 1 element, or as many as ref has along dim, in any shape. */
aclnnStatus opgen_check_per_channel(const char *name, const aclTensor *t, const char *ref_name, const aclTensor *ref,
                                    int64_t dim)
{
    if (!t || !ref || opgen_numel(t) == 1)
        return ACLNN_SUCCESS;
    const bool has = ref->ndim > (uint64_t)dim;
    if (has && opgen_numel(t) == ref->dims[dim])
        return ACLNN_SUCCESS;
    char a[256], b[256], want[320];
    if (has)
        snprintf(want, sizeof want, "1 or %" PRId64, ref->dims[dim]);
    else
        snprintf(want, sizeof want, "1 (%s has no dimension %" PRId64 ")", ref_name, dim);
    return opgen_fail(INVALID, name, "%s must have one element per channel of %s %s (dimension %" PRId64 ") or a "
                      "single one: %s elements, got %" PRId64 " in %s", name, ref_name,
                      shape_str(a, sizeof a, ref->dims, ref->ndim), dim, want, opgen_numel(t),
                      shape_str(b, sizeof b, t->dims, t->ndim));
}

/* ChannelGrad: the gradient of a per-channel w has shape [C] when w has C != 1 elements, else w's shape. */
aclnnStatus opgen_check_channel_grad(const char *name, const aclTensor *t, const char *w_name, const aclTensor *w,
                                     const char *ref_name, const aclTensor *ref, int64_t dim)
{
    if (!t || !w || !ref)
        return ACLNN_SUCCESS;
    const bool one = opgen_numel(w) == 1;
    int64_t want[OPGEN_MAX_DIMS];
    uint64_t nw = 1;
    if (one) {
        nw = w->ndim;
        memcpy(want, w->dims, sizeof(int64_t) * nw);
    } else {
        want[0] = ref->ndim > (uint64_t)dim ? ref->dims[dim] : -1;   /* (PerChannel refused a missing dimension) */
    }
    if (same_shape(want, nw, t->dims, t->ndim))
        return ACLNN_SUCCESS;
    char a[256], b[256], why[320];
    if (one)
        snprintf(why, sizeof why, "%s's shape, as %s has one element", w_name, w_name);
    else
        snprintf(why, sizeof why, "[C], C = %s's size along dimension %" PRId64, ref_name, dim);
    return opgen_fail(INVALID, name, "%s must have shape %s (%s), got %s", name, shape_str(a, sizeof a, want, nw), why,
                      shape_str(b, sizeof b, t->dims, t->ndim));
}

aclnnStatus opgen_check_not_empty(const char *name, const aclTensor *t)
{
    if (!t || opgen_numel(t) > 0)
        return ACLNN_SUCCESS;
    char a[256];
    return opgen_fail(INVALID, name, "%s must not be empty, got %s", name, shape_str(a, sizeof a, t->dims, t->ndim));
}

aclnnStatus opgen_check_per_row(const char *name, const aclTensor *t, const char *ref_name, const aclTensor *ref)
{
    if (!t || !ref)
        return ACLNN_SUCCESS;
    int64_t rows = 1;
    for (uint64_t d = 0; d + 1 < ref->ndim; ++d)
        rows *= ref->dims[d];
    if (opgen_numel(t) == rows)
        return ACLNN_SUCCESS;
    char a[256], b[256];
    return opgen_fail(INVALID, name, "%s must have one element per row of %s %s: %" PRId64 " elements, got %s",
                      name, ref_name, shape_str(a, sizeof a, ref->dims, ref->ndim), rows,
                      shape_str(b, sizeof b, t->dims, t->ndim));
}

aclnnStatus opgen_check_not_null_when(const char *name, const void *p, const char *given_name, const void *given)
{
    if (p || !given)
        return ACLNN_SUCCESS;
    return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, name, "%s must not be null when %s is given", name, given_name);
}

aclnnStatus opgen_check_present_with(const char *name, const void *p, const char *given_name, const void *given)
{
    if (p || !given)
        return ACLNN_SUCCESS;
    return opgen_fail(INVALID, name, "%s must be given with %s", name, given_name);
}

aclnnStatus opgen_check_one_element(const char *name, const aclTensor *t)
{
    if (!t || opgen_numel(t) == 1)
        return ACLNN_SUCCESS;
    char a[256];
    return opgen_fail(INVALID, name, "%s must have exactly one element, got %s", name,
                      shape_str(a, sizeof a, t->dims, t->ndim));
}

aclnnStatus opgen_check_same_or_one(const char *name, const aclTensor *t, const char *target_name,
                                    const aclTensor *target)
{
    if (!t || !target || same_shape(t->dims, t->ndim, target->dims, target->ndim) || opgen_numel(t) == 1)
        return ACLNN_SUCCESS;
    char a[256], b[256];
    return opgen_fail(INVALID, name, "%s must have the shape of %s %s or exactly one element, got %s", name,
                      target_name, shape_str(a, sizeof a, target->dims, target->ndim),
                      shape_str(b, sizeof b, t->dims, t->ndim));
}

aclnnStatus opgen_check_sample_shaped(const char *name, const aclTensor *t, const char *ref_name, const aclTensor *ref,
                                      bool none)
{
    if (!t || !ref)
        return ACLNN_SUCCESS;
    char a[256], b[256], c[256];
    if (none && ref->ndim >= 2) {
        int64_t want[OPGEN_MAX_DIMS];
        const uint64_t nw = without_class(ref, want);
        if (same_shape(want, nw, t->dims, t->ndim))
            return ACLNN_SUCCESS;
        return opgen_fail(INVALID, name, "%s must have one element per sample of %s %s for reduction none, %s, got %s",
                          name, ref_name, shape_str(a, sizeof a, ref->dims, ref->ndim),
                          shape_str(b, sizeof b, want, nw), shape_str(c, sizeof c, t->dims, t->ndim));
    }
    if (t->ndim <= 1 && opgen_numel(t) == 1)
        return ACLNN_SUCCESS;
    return opgen_fail(INVALID, name, "%s must be one element of rank 0 or 1 (a reduced loss's gradient, or a single "
                      "sample's), got %s", name, shape_str(a, sizeof a, t->dims, t->ndim));
}

aclnnStatus opgen_check_one_of(const char *name, int64_t value, int n, const int64_t *values)
{
    char list[256];
    size_t len = 0;
    list[0] = '\0';
    for (int i = 0; i < n; ++i) {
        if (values[i] == value)
            return ACLNN_SUCCESS;
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%" PRId64, i ? ", " : "", values[i]);
    }
    return opgen_fail(INVALID, name, "%s must be one of %s, got %" PRId64, name, list, value);
}

aclnnStatus opgen_check_one_of_s(const char *name, const char *value, int n, const char *const *values)
{
    char list[256];
    size_t len = 0;
    list[0] = '\0';
    for (int i = 0; i < n; ++i) {
        if (strcmp(values[i], value) == 0)
            return ACLNN_SUCCESS;
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", values[i]);
    }
    return opgen_fail(INVALID, name, "%s must be one of %s, got %s", name, list, value);
}

aclnnStatus opgen_check_kernel_dtypes(const char *op, int n, const aclTensor *const *tensors, bool complex_ok)
{
    for (int i = 0; i < n; ++i)
        if (tensors[i] && !opgen_dtype_is_real(tensors[i]->dtype)
            && !(complex_ok && (tensors[i]->dtype == ACL_COMPLEX64 || tensors[i]->dtype == ACL_COMPLEX128)))
            return opgen_fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, NULL, "%s has no kernel reading or writing %s", op,
                              opgen_dtype_name(tensors[i]->dtype));
    return ACLNN_SUCCESS;
}

bool opgen_any_empty(int n, const aclTensor *const *tensors)
{
    for (int i = 0; i < n; ++i)
        if (tensors[i] && opgen_numel(tensors[i]) == 0)
            return true;
    return false;
}

aclnnStatus opgen_check_requires_f(const char *name, bool ok, const char *condition, double value)
{
    char v[80];
    return ok ? ACLNN_SUCCESS
              : opgen_fail(INVALID, name, "%s must satisfy %s, got %s", name, condition, py_float(v, sizeof v, value));
}

aclnnStatus opgen_check_requires_i(const char *name, bool ok, const char *condition, int64_t value)
{
    return ok ? ACLNN_SUCCESS : opgen_fail(INVALID, name, "%s must satisfy %s, got %" PRId64, name, condition, value);
}

aclnnStatus opgen_check_requires_b(const char *name, bool ok, const char *condition, bool value)
{
    return ok ? ACLNN_SUCCESS
              : opgen_fail(INVALID, name, "%s must satisfy %s, got %s", name, condition, value ? "True" : "False");
}

/* ---- aclIntArray (codegen/spec/rules.py ArrayLength, ArrayInRange) ------------------------------------------- */
aclnnStatus opgen_check_array_length(const char *name, const aclIntArray *a, const char *ref_name,
                                     const aclTensor *ref, int64_t dim)
{
    if (!a || !ref)
        return ACLNN_SUCCESS;
    uint64_t n = 0;
    aclGetIntArraySize(a, &n);
    char s[256];
    if ((int64_t)ref->ndim <= dim)
        return opgen_fail(INVALID, name, "%s's length must be %s's size along dimension %lld, but %s %s has no "
                          "dimension %lld", name, ref_name, (long long)dim, ref_name,
                          shape_str(s, sizeof s, ref->dims, ref->ndim), (long long)dim);
    if ((int64_t)n != ref->dims[dim])
        return opgen_fail(INVALID, name, "%s must have %lld values (%s's size along dimension %lld), got %llu", name,
                          (long long)ref->dims[dim], ref_name, (long long)dim, (unsigned long long)n);
    return ACLNN_SUCCESS;
}

int64_t opgen_array_bound(const aclTensor *ref, int64_t axis)
{
    if (!ref || ref->ndim == 0)
        return 1;
    return axis < (int64_t)ref->ndim ? ref->dims[axis] : 1;
}

aclnnStatus opgen_check_array_in_range(const char *name, const aclIntArray *a, bool has_low, int64_t low,
                                       bool has_high, int64_t high)
{
    if (!a)
        return ACLNN_SUCCESS;
    uint64_t n = 0;
    aclGetIntArraySize(a, &n);
    const int64_t *v = opgen_int_array_values(a);
    for (uint64_t i = 0; i < n; ++i) {
        if ((has_low && v[i] < low) || (has_high && v[i] > high)) {
            char lo[32], hi[32];
            snprintf(lo, sizeof lo, "%lld", (long long)low);
            snprintf(hi, sizeof hi, "%lld", (long long)high);
            return opgen_fail(INVALID, name, "%s[%llu] = %lld is outside [%s, %s]", name, (unsigned long long)i,
                              (long long)v[i], has_low ? lo : "-inf", has_high ? hi : "inf");
        }
    }
    return ACLNN_SUCCESS;
}
