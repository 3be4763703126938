/* opgen_runtime.c — the host side of AscendCL and aclnn on the CPU: init and devices, streams, memory,
 * tensors and scalars, the last error, the product, and the executors that join the two phases. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opgen_half.h"
#include "opgen_pool.h"
#include "opgen_runtime.h"

#if defined(OPGEN_COUNT_STREAMS)
int64_t opgen_streamed_bytes;   /* tests only: bytes written by non-temporal stores (opgen_chunks.h) */
int64_t opgen_elementwise_calls;   /* tests only: calls of the elementwise kernels' 2-D entry (opgen_chunks.h) */
#endif

/* ---- the last error, per thread -------------------------------------------------------------------------- */
static _Thread_local struct {
    aclnnStatus status;
    char param[64];
    char message[1024];
} last_error;

aclnnStatus opgen_fail(aclnnStatus status, const char *param, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error.message, sizeof last_error.message, fmt, ap);
    va_end(ap);
    snprintf(last_error.param, sizeof last_error.param, "%s", param ? param : "");
    last_error.status = status;
    return status;
}

void opgen_clear_error(void)
{
    last_error.status = ACLNN_SUCCESS;
    last_error.param[0] = '\0';
    last_error.message[0] = '\0';
}

const char *aclGetRecentErrMsg(void) { return last_error.message; }
aclnnStatus opgenGetRecentErrStatus(void) { return last_error.status; }
const char *opgenGetRecentErrParam(void) { return last_error.param; }

/* ---- process state: initialised?, the device, the product ----------------------------------------------- */
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static bool initialised;
static bool device_set;
static char soc_name[32];   /* "" until chosen: opgen_soc() then takes OPGEN_SOC_VERSION or the default */
static bool soc_chosen;   /* by aclrtSetDevice or opgenSetSocName; else OPGEN_SOC_VERSION is read lazily */

static aclError choose_soc(const char *soc)
{
    if (!opgen_soc_known(soc))
        return opgen_fail(ACL_ERROR_INVALID_PARAM, NULL, "unknown SoC '%s' (known: %s)", soc, opgen_known_socs);
    /* (a copy, not snprintf: the compiled entry point chooses the product at every call, and snprintf's format
     * parsing showed in a small call's profile) */
    const size_t len = strnlen(soc, sizeof soc_name - 1);
    memcpy(soc_name, soc, len);
    soc_name[len] = '\0';
    soc_chosen = true;
    return ACL_SUCCESS;
}

static const char *env_soc(void)
{
    const char *env = getenv("OPGEN_SOC_VERSION");
    return (env && *env) ? env : opgen_default_soc;
}

const char *opgen_soc(void)
{
    pthread_mutex_lock(&state_lock);
    if (!soc_chosen)
        choose_soc(opgen_soc_known(env_soc()) ? env_soc() : opgen_default_soc);
    pthread_mutex_unlock(&state_lock);
    return soc_name;
}

const char *aclrtGetSocName(void) { return opgen_soc(); }

aclnnStatus opgenSetSocName(const char *soc)
{
    if (!soc)
        return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, NULL, "soc must not be null");
    pthread_mutex_lock(&state_lock);
    aclError ret = choose_soc(soc);
    pthread_mutex_unlock(&state_lock);
    return ret == ACL_SUCCESS ? ACLNN_SUCCESS : ACLNN_ERR_PARAM_INVALID;
}

static void free_all_executors(void);

aclError aclInit(const char *configPath)
{
    (void)configPath;   /* no configuration file is read */
    pthread_mutex_lock(&state_lock);
    aclError ret = ACL_SUCCESS;
    if (initialised)
        ret = opgen_fail(ACL_ERROR_REPEAT_INITIALIZE, NULL, "aclInit was already called");
    initialised = true;
    pthread_mutex_unlock(&state_lock);
    return ret;
}

aclError aclFinalize(void)
{
    pthread_mutex_lock(&state_lock);
    aclError ret = ACL_SUCCESS;
    if (!initialised)
        ret = opgen_fail(ACL_ERROR_UNINITIALIZE, NULL, "aclFinalize without aclInit");
    initialised = false;
    device_set = false;
    pthread_mutex_unlock(&state_lock);
    free_all_executors();
    return ret;
}

/* aclnn's part of aclInit/aclFinalize: nothing to read or load on the CPU; finalizing frees the executors never
 * run, as aclFinalize does.  Neither fails because the other pair was called (as in CANN). */
aclnnStatus aclnnInit(const char *configPath)
{
    (void)configPath;
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnFinalize(void)
{
    free_all_executors();
    return ACLNN_SUCCESS;
}

aclError aclrtSetDevice(int32_t deviceId)
{
    if (deviceId != 0)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, NULL, "device %d does not exist (the CPU runtime has device 0)",
                          (int)deviceId);
    pthread_mutex_lock(&state_lock);
    aclError ret = choose_soc(env_soc());
    if (ret == ACL_SUCCESS)
        device_set = true;
    pthread_mutex_unlock(&state_lock);
    return ret;
}

aclError aclrtResetDevice(int32_t deviceId)
{
    if (deviceId != 0)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, NULL, "device %d does not exist", (int)deviceId);
    pthread_mutex_lock(&state_lock);
    device_set = false;
    pthread_mutex_unlock(&state_lock);
    return ACL_SUCCESS;
}

aclError aclrtGetDevice(int32_t *deviceId)
{
    if (!deviceId)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, "deviceId", "deviceId must not be null");
    pthread_mutex_lock(&state_lock);
    const bool set = device_set;
    pthread_mutex_unlock(&state_lock);
    if (!set)
        return opgen_fail(ACL_ERROR_INVALID_DEVICE, NULL, "no device is set (call aclrtSetDevice first)");
    *deviceId = 0;
    return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t *count)
{
    if (!count)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, "count", "count must not be null");
    *count = 1;
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeDevice(void) { return ACL_SUCCESS; }

/* ---- contexts: a context of device 0 holds nothing here; the current one is per thread ------------------ */
struct opgen_context { int32_t device; };
static _Thread_local aclrtContext current_context;

aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
    if (!context)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, "context", "context must not be null");
    if (deviceId != 0)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, NULL, "device %d does not exist (the CPU runtime has device 0)",
                          (int)deviceId);
    struct opgen_context *c = malloc(sizeof *c);
    if (!c)
        return opgen_fail(ACL_ERROR_BAD_ALLOC, NULL, "out of memory creating a context");
    c->device = deviceId;
    *context = current_context = c;   /* as in CANN, the new context becomes the thread's current one */
    return ACL_SUCCESS;
}

aclError aclrtDestroyContext(aclrtContext context)
{
    if (!context)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, "context", "context must not be null");
    if (current_context == context)
        current_context = NULL;
    free(context);
    return ACL_SUCCESS;
}

aclError aclrtSetCurrentContext(aclrtContext context)
{
    if (!context)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, "context", "context must not be null");
    current_context = context;
    return ACL_SUCCESS;
}

aclError aclrtGetCurrentContext(aclrtContext *context)
{
    if (!context)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, "context", "context must not be null");
    *context = current_context;
    return ACL_SUCCESS;
}

/* ---- streams: work runs when it is issued, so a stream only needs to exist ------------------------------- */
struct opgen_stream { int id; };

aclError aclrtCreateStream(aclrtStream *stream)
{
    if (!stream)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, "stream", "stream must not be null");
    struct opgen_stream *s = malloc(sizeof *s);
    if (!s)
        return opgen_fail(ACL_ERROR_BAD_ALLOC, NULL, "out of memory creating a stream");
    s->id = 0;
    *stream = s;
    return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream)
{
    if (!stream)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, "stream", "stream must not be null");
    free(stream);
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream)
{
    if (!stream)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, "stream", "stream must not be null");
    return ACL_SUCCESS;
}

/* ---- memory ----------------------------------------------------------------------------------------------- */
aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    (void)policy;
    if (!devPtr)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, "devPtr", "devPtr must not be null");
    if (size == 0)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, "size", "aclrtMalloc of 0 bytes");
    void *p = NULL;
    if (posix_memalign(&p, 64, size) != 0)
        return opgen_fail(ACL_ERROR_BAD_ALLOC, NULL, "out of memory allocating %zu bytes", size);
    *devPtr = p;
    return ACL_SUCCESS;
}

aclError aclrtFree(void *devPtr)
{
    if (!devPtr)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, "devPtr", "devPtr must not be null");
    free(devPtr);
    return ACL_SUCCESS;
}

aclError aclrtMallocHost(void **hostPtr, size_t size) { return aclrtMalloc(hostPtr, size, ACL_MEM_MALLOC_HUGE_FIRST); }
aclError aclrtFreeHost(void *hostPtr) { return aclrtFree(hostPtr); }

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
    if (!dst || !src)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, dst ? "src" : "dst", "aclrtMemcpy with a null pointer");
    if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_DEVICE_TO_DEVICE)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, "kind", "unknown aclrtMemcpyKind %d", (int)kind);
    if (count > destMax)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, "count", "aclrtMemcpy of %zu bytes into %zu", count, destMax);
    memmove(dst, src, count);
    return ACL_SUCCESS;
}

aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream)
{
    if (!stream)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, "stream", "stream must not be null");
    return aclrtMemcpy(dst, destMax, src, count, kind);
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    if (!devPtr)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, "devPtr", "aclrtMemset with a null pointer");
    if (count > maxCount)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, "count", "aclrtMemset of %zu bytes into %zu", count, maxCount);
    memset(devPtr, (unsigned char)value, count);
    return ACL_SUCCESS;
}

aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream)
{
    if (!stream)
        return opgen_fail(ACL_ERROR_INVALID_PARAM, "stream", "stream must not be null");
    return aclrtMemset(devPtr, maxCount, value, count);
}

/* ---- tensors and scalars ------------------------------------------------------------------------------------ */
int64_t opgen_numel(const aclTensor *t)
{
    int64_t n = 1;
    for (uint64_t i = 0; i < t->ndim; ++i)
        n *= t->dims[i];
    return n;
}

/* Fill `t` from an aclCreateTensor description after checking it (ACLNN_SUCCESS), or leave it alone. */
static aclnnStatus describe(aclTensor *t, const char *fn, const int64_t *viewDims, uint64_t viewDimsNum,
                            aclDataType dataType, const int64_t *stride, int64_t offset, aclFormat format,
                            const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData)
{
    if (viewDimsNum > OPGEN_MAX_DIMS || storageDimsNum > OPGEN_MAX_DIMS)
        return opgen_fail(ACLNN_ERR_PARAM_INVALID, NULL, "%s: rank %llu is more than %d", fn,
                          (unsigned long long)(viewDimsNum > storageDimsNum ? viewDimsNum : storageDimsNum),
                          OPGEN_MAX_DIMS);
    if ((viewDimsNum && !viewDims) || (storageDimsNum && !storageDims))
        return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, NULL, "%s: null viewDims or storageDims", fn);
    int64_t numel = 1, storage = 1, lo = offset, hi = offset;
    for (uint64_t i = 0; i < viewDimsNum; ++i) {
        if (viewDims[i] < 0)
            return opgen_fail(ACLNN_ERR_PARAM_INVALID, NULL, "%s: negative dimension %lld", fn, (long long)viewDims[i]);
        if (numel != 0 && viewDims[i] > INT64_MAX / numel)
            return opgen_fail(ACLNN_ERR_PARAM_INVALID, NULL, "%s: more than 2^63 elements", fn);
        numel *= viewDims[i];
    }
    for (uint64_t i = 0; i < storageDimsNum; ++i) {
        if (storageDims[i] < 0)
            return opgen_fail(ACLNN_ERR_PARAM_INVALID, NULL, "%s: negative storage dimension", fn);
        if (storage != 0 && storageDims[i] > INT64_MAX / storage)
            return opgen_fail(ACLNN_ERR_PARAM_INVALID, NULL, "%s: more than 2^63 storage elements", fn);
        storage *= storageDims[i];
    }
    /* a null stride is the contiguous layout of viewDims (CANN's own example programs pass nullptr:
       log_softmax_grad's test_aclnn_log_softmax_grad.cpp); saturated where an empty view's product overflows */
    int64_t contiguous[OPGEN_MAX_DIMS];
    if (!stride && viewDimsNum) {
        int64_t step = 1;
        for (uint64_t i = viewDimsNum; i-- > 0;) {
            contiguous[i] = step;
            if (viewDims[i] > 1)
                step = step > INT64_MAX / viewDims[i] ? INT64_MAX : step * viewDims[i];
        }
        stride = contiguous;
    }
    if (numel > 0) {
        for (uint64_t i = 0; i < viewDimsNum; ++i) {
            /* |stride| * (dim - 1) must stay within int64 before it is added up */
            const int64_t span = viewDims[i] - 1;
            if (span > 0 && (stride[i] > INT64_MAX / span || stride[i] < -(INT64_MAX / span)))
                return opgen_fail(ACLNN_ERR_PARAM_INVALID, NULL, "%s: stride %lld reaches beyond int64", fn,
                                  (long long)stride[i]);
            const int64_t reach = span * stride[i];
            if (reach < 0 ? lo < INT64_MIN - reach : hi > INT64_MAX - reach) {
                lo = -1;   /* beyond int64: outside any storage */
                break;
            }
            if (reach < 0) lo += reach; else hi += reach;
        }
        if (lo < 0 || hi >= storage)
            return opgen_fail(ACLNN_ERR_PARAM_INVALID, NULL,
                              "%s: the view reaches storage elements %lld..%lld, outside the storage's %lld", fn,
                              (long long)lo, (long long)hi, (long long)storage);
        if (!tensorData)
            return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, NULL, "%s: tensorData is null for a non-empty tensor", fn);
    }
    t->dtype = dataType;
    t->format = format;
    t->ndim = viewDimsNum;
    for (uint64_t i = 0; i < viewDimsNum; ++i) {
        t->dims[i] = viewDims[i];
        t->strides[i] = stride[i];
    }
    t->offset = offset;
    t->storage_ndim = storageDimsNum;
    for (uint64_t i = 0; i < storageDimsNum; ++i)
        t->storage_dims[i] = storageDims[i];
    t->data = tensorData;
    return ACLNN_SUCCESS;
}

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t *stride, int64_t offset, aclFormat format, const int64_t *storageDims,
                           uint64_t storageDimsNum, void *tensorData)
{
    aclTensor *t = calloc(1, sizeof *t);
    if (!t) {
        opgen_fail(ACLNN_ERR_INNER, NULL, "aclCreateTensor: out of memory");
        return NULL;
    }
    if (describe(t, "aclCreateTensor", viewDims, viewDimsNum, dataType, stride, offset, format, storageDims,
                 storageDimsNum, tensorData) != ACLNN_SUCCESS) {
        free(t);
        return NULL;
    }
    return t;
}

aclnnStatus aclInitTensor(aclTensor *tensor, const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                          const int64_t *stride, int64_t offset, aclFormat format, const int64_t *storageDims,
                          uint64_t storageDimsNum, void *tensorDataAddr)
{
    if (!tensor)
        return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, "tensor", "aclInitTensor: tensor is null");
    return describe(tensor, "aclInitTensor", viewDims, viewDimsNum, dataType, stride, offset, format, storageDims,
                    storageDimsNum, tensorDataAddr);
}

aclnnStatus aclDestroyTensor(const aclTensor *tensor)
{
    free((void *)tensor);   /* destroying NULL is allowed, as free(NULL) */
    return ACLNN_SUCCESS;
}

aclScalar *aclCreateScalar(void *value, aclDataType dataType)
{
    if (!value) {
        opgen_fail(ACLNN_ERR_PARAM_NULLPTR, NULL, "aclCreateScalar: value is null");
        return NULL;
    }
    aclScalar *s = calloc(1, sizeof *s);
    if (!s) {
        opgen_fail(ACLNN_ERR_INNER, NULL, "aclCreateScalar: out of memory");
        return NULL;
    }
    s->dtype = dataType;
    switch (dataType) {
    case ACL_FLOAT: { float v; memcpy(&v, value, sizeof v); s->value = v; break; }
    case ACL_DOUBLE: { double v; memcpy(&v, value, sizeof v); s->value = v; break; }
    case ACL_FLOAT16: { uint16_t v; memcpy(&v, value, sizeof v); s->value = opgen_f16_to_f32(v); break; }
    case ACL_BF16: { uint16_t v; memcpy(&v, value, sizeof v); s->value = opgen_bf16_to_f32(v); break; }
    case ACL_INT8: { int8_t v; memcpy(&v, value, sizeof v); s->ivalue = v; s->value = v; break; }
    case ACL_UINT8: { uint8_t v; memcpy(&v, value, sizeof v); s->ivalue = v; s->value = v; break; }
    case ACL_INT16: { int16_t v; memcpy(&v, value, sizeof v); s->ivalue = v; s->value = v; break; }
    case ACL_UINT16: { uint16_t v; memcpy(&v, value, sizeof v); s->ivalue = v; s->value = v; break; }
    case ACL_INT32: { int32_t v; memcpy(&v, value, sizeof v); s->ivalue = v; s->value = v; break; }
    case ACL_UINT32: { uint32_t v; memcpy(&v, value, sizeof v); s->ivalue = v; s->value = v; break; }
    case ACL_INT64: { int64_t v; memcpy(&v, value, sizeof v); s->ivalue = v; s->value = (double)v; break; }
    case ACL_UINT64: { uint64_t v; memcpy(&v, value, sizeof v); s->ivalue = (int64_t)v; s->value = (double)v; break; }
    case ACL_BOOL: { bool v; memcpy(&v, value, sizeof v); s->ivalue = v; s->value = v; break; }
    default:
        free(s);
        opgen_fail(ACLNN_ERR_PARAM_INVALID, NULL, "aclCreateScalar: unsupported dtype %s", opgen_dtype_name(dataType));
        return NULL;
    }
    return s;
}

aclnnStatus aclDestroyScalar(const aclScalar *scalar)
{
    free((void *)scalar);
    return ACLNN_SUCCESS;
}

/* ---- opgen extension: every argument of a call in one buffer (see aclnn_base.h) ---------------------------- */
/* The number of words of the record at `w`, or 0 for an unknown kind. */
static uint64_t arg_words(const int64_t *w)
{
    switch (w[0]) {
    case OPGEN_ARG_NULL: return 1;
    case OPGEN_ARG_SCALAR: return 2;
    case OPGEN_ARG_TENSOR: return (w[2] >= 0 && w[2] <= OPGEN_MAX_DIMS) ? 6 + 2 * (uint64_t)w[2] : 0;
    case OPGEN_ARG_TENSOR_FORMAT: return (w[2] >= 0 && w[2] <= OPGEN_MAX_DIMS) ? 7 + 2 * (uint64_t)w[2] : 0;
    default: return 0;
    }
}

void opgenDestroyArgs(const int64_t *words, uint64_t count, void **handles)
{
    for (uint64_t i = 0; i < count; words += arg_words(words), ++i) {
        if (words[0] == OPGEN_ARG_TENSOR || words[0] == OPGEN_ARG_TENSOR_FORMAT)
            aclDestroyTensor(handles[i]);
        else if (words[0] == OPGEN_ARG_SCALAR)
            aclDestroyScalar(handles[i]);
        handles[i] = NULL;
    }
}

aclnnStatus opgenCreateArgs(const int64_t *words, uint64_t count, void **handles)
{
    if (!words || !handles)
        return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, NULL, "opgenCreateArgs: null words or handles");
    const int64_t *w = words;
    for (uint64_t i = 0; i < count; w += arg_words(w), ++i) {
        handles[i] = NULL;
        if (!arg_words(w)) {
            opgenDestroyArgs(words, i, handles);
            return opgen_fail(ACLNN_ERR_PARAM_INVALID, NULL, "opgenCreateArgs: argument %llu: bad record",
                              (unsigned long long)i);
        }
        if (w[0] == OPGEN_ARG_TENSOR || w[0] == OPGEN_ARG_TENSOR_FORMAT) {
            const int64_t ndim = w[2];
            const aclFormat format = w[0] == OPGEN_ARG_TENSOR ? ACL_FORMAT_ND : (aclFormat)w[6 + 2 * ndim];
            handles[i] = aclCreateTensor(w + 4, (uint64_t)ndim, (aclDataType)w[1], w + 4 + ndim, w[3], format,
                                         w + 4 + 2 * ndim, 1, (void *)(intptr_t)w[5 + 2 * ndim]);
        } else if (w[0] == OPGEN_ARG_SCALAR) {
            double value;
            memcpy(&value, w + 1, sizeof value);
            handles[i] = aclCreateScalar(&value, ACL_DOUBLE);
        } else {
            continue;
        }
        if (!handles[i]) {
            opgenDestroyArgs(words, i, handles);
            return opgenGetRecentErrStatus();
        }
    }
    return ACLNN_SUCCESS;
}

/* ---- executors ---------------------------------------------------------------------------------------------
 * Every live executor is on one list.  Phase 2 looks a pointer up by value before touching it, so a null,
 * already-run, destroyed or foreign pointer is refused without being dereferenced. */
struct aclOpExecutor {
    const char *op;
    int ncalls;                         /* run one after the other: 1, or a split op's 2 (one per half) */
    void *params[OPGEN_MAX_CALLS];
    uint64_t staged;                    /* nonzero: the calls write a copy of `whole` at this workspace offset - 1 */
    uint64_t staged_call[OPGEN_MAX_CALLS];   /* opgen_phase1_calls: nonzero, call k writes a contiguous copy of
                                                its output dest[k] at this workspace offset - 1, copied last */
    uint64_t workspace;
    bool repeatable;
    float *classes[OPGEN_MAX_CALLS];    /* each call's class coordinate (opgen_call_classes), or NULL */
    opgen_rows *rows;                   /* a split op read as rows (opgen_phase1_rows), or NULL */
    uint64_t rows_base;                 /* the byte offset of its staged inputs in the workspace */
    bool masked;                        /* a sequence mask (opgen_phase1_masked): after the call, out[t, b, ...] */
    int64_t *lengths;                   /* is written 0 for t >= lengths[b] (t along mask_time, b along */
    int64_t mask_time, mask_batch;      /* mask_batch): a copy of the caller's aclIntArray */
    struct aclOpExecutor *next;
    /* The large members last, and not zeroed (executor_new): call[k] is written for k < ncalls, and whole and
     * dest[k] are read only where staged, rows and staged_call[k] say they were written.  Zeroing all 19 KB per
     * call was the call's largest cost outside the kernel at 2^10 elements (calloc's memset, perf). */
    opgen_call call[OPGEN_MAX_CALLS];
    aclTensor whole;                    /* a split op's output, which its calls fill between them */
    aclTensor dest[OPGEN_MAX_CALLS];
};

static pthread_mutex_t executors_lock = PTHREAD_MUTEX_INITIALIZER;
static aclOpExecutor *executors;

static bool executor_live(const aclOpExecutor *e)
{
    for (const aclOpExecutor *x = executors; x; x = x->next)
        if (x == e)
            return true;
    return false;
}

static void executor_unlink(aclOpExecutor *e)
{
    for (aclOpExecutor **p = &executors; *p; p = &(*p)->next) {
        if (*p == e) {
            *p = e->next;
            return;
        }
    }
}

static void executor_free(aclOpExecutor *e)
{
    for (int k = 0; k < e->ncalls; ++k) {
        free(e->params[k]);
        free(e->classes[k]);
    }
    free(e->rows);
    free(e->lengths);
    free(e);
}

static void free_all_executors(void)
{
    pthread_mutex_lock(&executors_lock);
    while (executors) {
        aclOpExecutor *e = executors;
        executors = e->next;
        executor_free(e);
    }
    pthread_mutex_unlock(&executors_lock);
}

/* Threads for phase 2: $OPGEN_NUM_THREADS when it is a positive number, else every CPU the process may run on
 * (as PyTorch's default); read by each phase 1.  The plan (opgen_loops.c) gives a call fewer when its work is
 * too small to pay for them. */
static int cpus;
static void count_cpus(void) { cpus = opgen_cpu_count(); }

static int threads_from_env(void)
{
    const char *env = getenv("OPGEN_NUM_THREADS");
    if (env && *env) {
        char *end = NULL;
        const long n = strtol(env, &end, 10);
        if (*end == '\0' && n > 0)
            return n > 1024 ? 1024 : (int)n;
    }
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, count_cpus);
    return cpus;
}

/* A core's L2 cache in bytes, 0 when the C library cannot tell (glibc asks the CPU: CPUID, which a virtual
 * machine may trap, so once per process). */
static int64_t l2_size;
static void read_l2_size(void)
{
#if defined(_SC_LEVEL2_CACHE_SIZE)
    const long n = sysconf(_SC_LEVEL2_CACHE_SIZE);
    l2_size = n > 0 ? (int64_t)n : 0;
#endif
}

static int64_t l2_bytes(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, read_l2_size);
    return l2_size;
}

void opgen_call_input(opgen_call *c, const aclTensor *t) { c->in[c->nin++] = *t; }
void opgen_call_output(opgen_call *c, const aclTensor *t) { c->out = *t; }

void opgen_call_broadcast(opgen_call *c, int n, const aclTensor *const *tensors)
{
    c->bndim = 0;
    for (int k = 0; k < n; ++k) {
        const aclTensor *t = tensors[k];
        if (!t)
            continue;
        const uint64_t nd = c->bndim > t->ndim ? c->bndim : t->ndim;
        int64_t dims[OPGEN_MAX_DIMS];
        for (uint64_t i = 0; i < nd; ++i) {
            const int64_t a = i < nd - c->bndim ? 1 : c->bdims[i - (nd - c->bndim)];
            const int64_t b = i < nd - t->ndim ? 1 : t->dims[i - (nd - t->ndim)];
            dims[i] = a == 1 ? b : a;
        }
        memcpy(c->bdims, dims, sizeof(int64_t) * nd);
        c->bndim = nd;
    }
}

bool opgen_broadcast_differs(const opgen_call *c, const aclTensor *t)
{
    if (c->bndim != t->ndim)
        return true;
    for (uint64_t i = 0; i < c->bndim; ++i)
        if (c->bdims[i] != t->dims[i])
            return true;
    return false;
}

int64_t opgen_count(uint64_t ndim, const int64_t *dims, int axis)
{
    if (axis >= 0)
        return (uint64_t)axis < ndim ? dims[axis] : 1;
    int64_t n = 1;
    for (uint64_t i = 0; i < ndim; ++i)
        n *= dims[i];
    return n;
}

aclnnStatus opgen_phase1_empty(const char *op, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    opgen_call call;
    memset(&call, 0, sizeof call);
    call.out.dtype = ACL_FLOAT;
    call.out.ndim = 1;          /* an output of no elements: phase 2 runs nothing */
    static const char no_params = 0;
    return opgen_phase1_done(op, &call, &no_params, 0, workspaceSize, executor);
}

static aclnnStatus kernel_dtypes(const char *op, const opgen_call *c)
{
    for (int k = 0; k <= c->nin; ++k) {
        const aclTensor *t = k < c->nin ? &c->in[k] : &c->out;
        if (!opgen_dtype_is_real(t->dtype) && !(c->is_complex && (t->dtype == ACL_COMPLEX64 || t->dtype == ACL_COMPLEX128)))
            return opgen_fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, NULL, "%s has no kernel reading or writing %s",
                              op, opgen_dtype_name(t->dtype));
    }
    return ACLNN_SUCCESS;
}

/* An executor of `n` calls (their params copied), on the list of live executors; its workspace still 0. */
static aclnnStatus executor_new(const char *op, int n, const opgen_call *calls, const void *const *params,
                                const size_t *params_size, aclOpExecutor **made)
{
    for (int k = 0; k < n; ++k)
        OPGEN_TRY(kernel_dtypes(op, &calls[k]));
    aclOpExecutor *e = malloc(sizeof *e);
    bool ok = e != NULL;
    if (ok)
        memset(e, 0, offsetof(aclOpExecutor, call));   /* (the large members: see aclOpExecutor) */
    for (int k = 0; ok && k < n; ++k) {
        e->params[k] = malloc(params_size[k] ? params_size[k] : 1);
        ok = e->params[k] != NULL;
        if (ok)
            memcpy(e->params[k], params[k], params_size[k]);
    }
    if (!ok) {
        for (int k = 0; e && k < n; ++k)
            free(e->params[k]);
        free(e);
        return opgen_fail(ACLNN_ERR_INNER_CREATE_EXECUTOR, NULL, "%s: out of memory creating the executor", op);
    }
    e->op = op;
    e->ncalls = n;
    /* the class coordinate: 0 .. C-1, C the view's size along its axis, in FLOAT (the kernels compare classes in
     * FLOAT: the same bits as an INT64 coordinate rounded once), so that it goes to the kernels in place.  As INT64
     * every block of it was converted element by element: 40% of CrossEntropyLossGrad's time (perf, 2^16). */
    for (int k = 0; ok && k < n; ++k) {
        if (!calls[k].classes)
            continue;
        const aclTensor *t = &calls[k].in[calls[k].classes - 1];
        const int64_t c = opgen_numel(t);
        e->classes[k] = malloc(sizeof(float) * (size_t)(c ? c : 1));
        ok = e->classes[k] != NULL;
        for (int64_t i = 0; ok && i < c; ++i)
            e->classes[k][i] = (float)i;
    }
    if (!ok) {
        executor_free(e);
        return opgen_fail(ACLNN_ERR_INNER_CREATE_EXECUTOR, NULL, "%s: out of memory creating the executor", op);
    }
    for (int k = 0; k < n; ++k) {
        e->call[k] = calls[k];
        if (calls[k].classes)
            e->call[k].in[calls[k].classes - 1].data = e->classes[k];
        e->call[k].threads = threads_from_env();
        e->call[k].l2_bytes = l2_bytes();
    }
    *made = e;
    return ACLNN_SUCCESS;
}

static uint64_t call_workspace(const opgen_call *c)
{
    return opgen_numel(&c->out) == 0 || c->wide ? 0 : opgen_workspace_bytes(c);
}

static aclnnStatus executor_publish(aclOpExecutor *e, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    pthread_mutex_lock(&executors_lock);
    e->next = executors;
    executors = e;
    pthread_mutex_unlock(&executors_lock);
    *workspaceSize = e->workspace;
    *executor = e;
    return ACLNN_SUCCESS;
}

aclnnStatus opgen_phase1_done(const char *op, const opgen_call *c, const void *params, size_t params_size,
                              uint64_t *workspaceSize, aclOpExecutor **executor)
{
    aclOpExecutor *e = NULL;
    OPGEN_TRY(executor_new(op, 1, c, &params, &params_size, &e));
    e->workspace = call_workspace(&e->call[0]);
    return executor_publish(e, workspaceSize, executor);
}

aclnnStatus opgen_phase1_masked(const char *op, const opgen_call *c, const void *params, size_t params_size,
                                const aclIntArray *lengths, int64_t time, int64_t batch, uint64_t *workspaceSize,
                                aclOpExecutor **executor)
{
    aclOpExecutor *e = NULL;
    OPGEN_TRY(executor_new(op, 1, c, &params, &params_size, &e));
    uint64_t n = 0;
    aclGetIntArraySize(lengths, &n);
    e->lengths = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    if (!e->lengths) {
        executor_free(e);
        return opgen_fail(ACLNN_ERR_INNER_CREATE_EXECUTOR, NULL, "%s: out of memory creating the executor", op);
    }
    if (n)
        memcpy(e->lengths, opgen_int_array_values(lengths), sizeof(int64_t) * (size_t)n);
    e->masked = true;
    e->mask_time = time;
    e->mask_batch = batch;
    e->workspace = call_workspace(&e->call[0]);
    return executor_publish(e, workspaceSize, executor);
}

/* The class axis of a grid of `ndim` dimensions: 1, or 0 for a single sample (codegen/spec/classes.py). */
static uint64_t class_axis(uint64_t ndim) { return ndim >= 2 ? 1 : 0; }

/* Whether t's elements, in C order, are equally spaced in memory (any rank: 1-D, (1, C), contiguous, a strided row);
 * `stride` is then the spacing. */
static bool equally_spaced(const aclTensor *t, int64_t *stride)
{
    int64_t span = 0;
    *stride = 0;
    for (uint64_t j = t->ndim; j-- > 0;) {
        if (t->dims[j] == 1)
            continue;
        if (span && t->strides[j] != *stride * span)
            return false;
        if (!span)
            *stride = t->strides[j];
        span = span ? span * t->dims[j] : t->dims[j];
    }
    return true;
}

bool opgen_class_view(const aclTensor *t, const aclTensor *grid, int kind, aclTensor *view)
{
    aclTensor v = *t;
    const uint64_t nd = grid->ndim ? grid->ndim : 1, axis = class_axis(grid->ndim);
    v.ndim = nd;
    for (uint64_t i = 0; i < nd; ++i) {
        v.dims[i] = 1;
        v.strides[i] = 0;
    }
    if (kind == OPGEN_SAMPLE && opgen_numel(t) != 1) {
        /* target's shape (a check said so: the grid's without the class axis), a class axis of 1 inserted */
        for (uint64_t i = 0, j = 0; i < nd; ++i) {
            if (i == axis)
                continue;
            v.dims[i] = t->dims[j];
            v.strides[i] = t->strides[j++];
        }
    } else if (kind == OPGEN_CLASS) {
        /* C elements along the class axis: equally spaced in C order (any rank: 1-D, or (1, C), or contiguous) */
        int64_t stride = 0;
        if (!equally_spaced(t, &stride))
            return false;
        v.dims[axis] = opgen_numel(t);
        v.strides[axis] = stride;
    }
    /* OPGEN_SCALAR, or a sample of one element: every dimension 1, the element at t's offset */
    *view = v;
    return true;
}

void opgen_call_classes(opgen_call *c, const aclTensor *grid)
{
    aclTensor v;
    memset(&v, 0, sizeof v);
    v.dtype = ACL_FLOAT;
    v.format = ACL_FORMAT_ND;
    v.ndim = grid->ndim ? grid->ndim : 1;
    for (uint64_t i = 0; i < v.ndim; ++i)
        v.dims[i] = 1;
    const uint64_t axis = class_axis(grid->ndim);
    v.dims[axis] = grid->ndim ? grid->dims[axis] : 1;
    v.strides[axis] = 1;
    v.storage_ndim = 1;
    v.storage_dims[0] = v.dims[axis];
    c->in[c->nin++] = v;          /* its data: the executor's arange (executor_new) */
    c->classes = c->nin;
}

aclTensor opgen_half(const aclTensor *t, int64_t dim, int h)
{
    aclTensor v = *t;
    v.dims[dim] = t->dims[dim] / 2;
    v.offset += h * v.dims[dim] * t->strides[dim];
    return v;
}

/* `t`'s shape laid out contiguously from element `offset` of a buffer given in phase 2 (the workspace's
 * staging area): where a call computes into, or reads, a copy of a tensor that is no view it can use */
aclTensor opgen_contiguous_at(const aclTensor *t, int64_t offset)
{
    aclTensor c = *t;
    c.data = NULL;
    c.offset = offset;
    int64_t s = 1;
    for (int d = (int)c.ndim - 1; d >= 0; --d) {
        c.strides[d] = s;
        s *= c.dims[d];
    }
    c.storage_ndim = 1;
    c.storage_dims[0] = offset + s;
    return c;
}

static bool tensors_overlap(const aclTensor *a, const aclTensor *b)
{
    if (opgen_numel(a) == 0 || opgen_numel(b) == 0)
        return false;
    const size_t ea = opgen_dtype_size(a->dtype), eb = opgen_dtype_size(b->dtype);
    int64_t alo = a->offset, ahi = a->offset, blo = b->offset, bhi = b->offset;
    for (uint64_t i = 0; i < a->ndim; ++i) {
        const int64_t r = (a->dims[i] - 1) * a->strides[i];
        if (r < 0) alo += r; else ahi += r;
    }
    for (uint64_t i = 0; i < b->ndim; ++i) {
        const int64_t r = (b->dims[i] - 1) * b->strides[i];
        if (r < 0) blo += r; else bhi += r;
    }
    const uintptr_t a0 = (uintptr_t)a->data + (uintptr_t)(alo * (int64_t)ea);
    const uintptr_t a1 = (uintptr_t)a->data + (uintptr_t)((ahi + 1) * (int64_t)ea);
    const uintptr_t b0 = (uintptr_t)b->data + (uintptr_t)(blo * (int64_t)eb);
    const uintptr_t b1 = (uintptr_t)b->data + (uintptr_t)((bhi + 1) * (int64_t)eb);
    return a0 < b1 && b0 < a1;
}

aclnnStatus opgen_phase1_split(const char *op, const opgen_call *calls, const void *const *params,
                               const size_t *params_size, const aclTensor *whole, int64_t dim,
                               uint64_t *workspaceSize, aclOpExecutor **executor)
{
    aclOpExecutor *e = NULL;
    OPGEN_TRY(executor_new(op, 2, calls, params, params_size, &e));
    e->whole = *whole;
    /* the first call writes its half before the second reads the inputs: an output overlapping an input is
     * computed into a contiguous copy in the workspace (after the calls' own), copied into `whole` last */
    bool overlap = false;
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < calls[k].nin; ++i)
            overlap = overlap || tensors_overlap(whole, &calls[k].in[i]);
    uint64_t ws = 0;
    if (overlap) {
        aclTensor copy = opgen_contiguous_at(whole, 0);   /* the workspace's, in phase 2 */
        for (int k = 0; k < 2; ++k)
            e->call[k].out = opgen_half(&copy, dim, k);
    }
    for (int k = 0; k < 2; ++k) {
        const uint64_t w = call_workspace(&e->call[k]);
        ws = w > ws ? w : ws;
    }
    if (overlap) {
        ws = (ws + 63) / 64 * 64;
        e->staged = ws + 1;
        ws += (uint64_t)opgen_numel(whole) * opgen_dtype_size(whole->dtype);
    }
    e->workspace = ws;
    return executor_publish(e, workspaceSize, executor);
}

/* ---- a split op read as rows ------------------------------------------------------------------------------ */
void opgen_rows_init(opgen_rows *rows, int64_t dim, bool interleaved, const aclTensor *counts)
{
    memset(rows, 0, sizeof *rows);
    rows->dim = dim;
    rows->interleaved = interleaved;
    rows->counted = counts != NULL;
    if (counts)
        rows->counts = *counts;
}

/* The stride of one element of the block of `t`'s axes from `dim` on read as one axis (C order), or 0 when they
 * do not merge into one stride (axes of size 1 aside).  An empty block merges (stride 1). */
static int64_t block_stride(const aclTensor *t, int64_t dim)
{
    int64_t stride = 0, span = 1;   /* the merged stride so far, and the elements it spans */
    for (int64_t d = (int64_t)t->ndim - 1; d >= dim; --d) {
        if (t->dims[d] == 0)
            return 1;
        if (t->dims[d] == 1)
            continue;
        if (stride == 0)
            stride = t->strides[d];
        else if (t->strides[d] != stride * span)
            return 0;
        span *= t->dims[d];
    }
    return stride ? stride : 1;
}

/* `t`'s axes before `dim`, then its block from `dim` on as one axis of stride `stride`. */
static aclTensor merged(const aclTensor *t, int64_t dim, int64_t stride)
{
    aclTensor v = *t;
    int64_t n = 1;
    for (uint64_t d = (uint64_t)dim; d < t->ndim; ++d)
        n *= t->dims[d];
    v.ndim = (uint64_t)dim + 1;
    v.dims[dim] = n;
    v.strides[dim] = stride;
    return v;
}

/* `t` merged from `dim` on: a view when its strides allow, else a contiguous copy staged in the workspace. */
static aclTensor rows_merged(opgen_rows *rows, const aclTensor *t)
{
    const int64_t stride = block_stride(t, rows->dim);
    if (stride)
        return merged(t, rows->dim, stride);
    int k = 0;
    while (k < rows->nstaged && memcmp(&rows->staged[k], t, sizeof *t) != 0)
        ++k;
    if (k >= OPGEN_MAX_INPUTS - 1) {   /* more than a call reads: refused by opgen_phase1_rows */
        rows->nstaged = OPGEN_MAX_INPUTS;
        return merged(t, rows->dim, 1);
    }
    if (k == rows->nstaged) {
        rows->staged[k] = *t;
        rows->staged_at[k] = rows->staged_bytes;
        rows->staged_bytes += ((uint64_t)opgen_numel(t) * opgen_dtype_size(t->dtype) + 63) / 64 * 64;
        rows->nstaged = k + 1;
    }
    aclTensor c = opgen_contiguous_at(t, (int64_t)(rows->staged_at[k] / opgen_dtype_size(t->dtype)));   /* staged */
    return merged(&c, rows->dim, 1);
}

static aclTensor rows_half(opgen_rows *rows, const aclTensor *t, int h, bool input)
{
    if (!rows->interleaved)
        return opgen_half(t, rows->dim, h);
    /* (an output that does not merge is computed into a staged copy instead: opgen_phase1_rows) */
    const int64_t stride = input ? 0 : block_stride(t, rows->dim);
    aclTensor v = input ? rows_merged(rows, t) : merged(t, rows->dim, stride ? stride : 1);
    const int64_t d = rows->dim;
    v.offset += h * v.strides[d];
    v.dims[d] /= 2;
    v.strides[d] *= 2;
    return v;
}

aclTensor opgen_rows_half(opgen_rows *rows, const aclTensor *t, int h)
{
    return rows_half(rows, t, h, true);
}

aclTensor opgen_rows_out_half(opgen_rows *rows, const aclTensor *t, int h)
{
    return rows_half(rows, t, h, false);
}

aclTensor opgen_rows_of(opgen_rows *rows, const aclTensor *t)
{
    return rows->interleaved ? rows_merged(rows, t) : *t;
}

/* A walk over t's elements in C order, for the element-at-a-time helpers below (short or rare work: the kernels
 * have loops of their own): `idx` is the current index, `off` its offset in elements (t->offset included), which
 * follows the index one stride a step (a dimension that wraps gives back what it covered). */
typedef struct {
    const aclTensor *t;
    int64_t idx[OPGEN_MAX_DIMS];
    int64_t off;
} elem_walk;

/* The walk at C-order index `from` (0 <= from < numel: no dimension is 0). */
static void walk_at(elem_walk *w, const aclTensor *t, int64_t from)
{
    w->t = t;
    w->off = t->offset;
    for (int d = (int)t->ndim - 1; d >= 0; --d) {
        w->idx[d] = from % t->dims[d];
        from /= t->dims[d];
        w->off += w->idx[d] * t->strides[d];
    }
}

static void walk_next(elem_walk *w)
{
    const aclTensor *t = w->t;
    for (int d = (int)t->ndim - 1; d >= 0; --d) {
        w->off += t->strides[d];
        if (++w->idx[d] < t->dims[d])
            return;
        w->off -= t->dims[d] * t->strides[d];
        w->idx[d] = 0;
    }
}

/* `t`'s elements from C-order index `from` on set to 0 (the rows past the count). */
static void zero_from(const aclTensor *t, int64_t from)
{
    const size_t es = opgen_dtype_size(t->dtype);
    const int64_t n = opgen_numel(t);
    char *base = (char *)t->data;
    elem_walk w;
    if (from >= n)
        return;
    for (walk_at(&w, t, from); from < n; ++from, walk_next(&w))
        memset(base + w.off * (int64_t)es, 0, es);   /* +0.0 in every floating dtype */
}

/* 0 in t's elements at (.., t_i, .., b_j, ..) with i >= lengths[j], i along `time` and j along `batch`
 * (codegen/spec/sequence.py; a check gave lengths one value per b). */
static void zero_past_length(const aclTensor *t, const int64_t *lengths, int64_t time, int64_t batch)
{
    const size_t es = opgen_dtype_size(t->dtype);
    const int64_t n = opgen_numel(t);
    char *base = (char *)t->data;
    elem_walk w;
    if (n == 0)
        return;
    walk_at(&w, t, 0);
    for (int64_t i = 0; i < n; ++i, walk_next(&w))
        if (w.idx[time] >= lengths[w.idx[batch]])
            memset(base + w.off * (int64_t)es, 0, es);
}

/* min(sum(counts), pre), at least 0, the sum exact (128 bits, as Python's integers in codegen/runtime/rows.py);
 * with `uint32_sum` each count cast to uint32 and the sum taken modulo 2^32 (SwigluGroupQuantGrad's kernel). */
static int64_t row_count(const aclTensor *counts, int64_t pre, bool uint32_sum)
{
    __extension__ __int128 sum = 0;   /* (-Wpedantic: a GCC and Clang extension) */
    const int64_t n = opgen_numel(counts);
    const int64_t *base = (const int64_t *)counts->data;
    elem_walk w;
    if (n > 0)
        walk_at(&w, counts, 0);
    for (int64_t i = 0; i < n; ++i, walk_next(&w))
        sum += base[w.off];
    if (uint32_sum) {
        const uint32_t wrapped = (uint32_t)sum;   /* (Σ (uint32)c) mod 2^32 = (Σ c) mod 2^32 */
        return (int64_t)wrapped > pre ? pre : (int64_t)wrapped;
    }
    return sum < 0 ? 0 : sum > pre ? pre : (int64_t)sum;
}

/* A contiguous copy of `t` (any layout) at `dst`, element by element in its own dtype. */
static void copy_in(const aclTensor *t, char *dst)
{
    const size_t es = opgen_dtype_size(t->dtype);
    const int64_t n = opgen_numel(t);
    const char *base = (const char *)t->data;
    elem_walk w;
    if (n > 0)
        walk_at(&w, t, 0);
    for (int64_t i = 0; i < n; ++i, walk_next(&w))
        memcpy(dst + i * (int64_t)es, base + w.off * (int64_t)es, es);
}

aclnnStatus opgen_phase1_rows(const char *op, const opgen_call *calls, const void *const *params,
                              const size_t *params_size, const aclTensor *whole, const opgen_rows *rows,
                              uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return opgen_phase1_rows_n(op, 2, calls, params, params_size, whole, rows, workspaceSize, executor);
}

aclnnStatus opgen_phase1_rows_n(const char *op, int n, const opgen_call *calls, const void *const *params,
                                const size_t *params_size, const aclTensor *whole, const opgen_rows *rows,
                                uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (rows->nstaged == OPGEN_MAX_INPUTS)
        return opgen_fail(ACLNN_ERR_INNER, NULL, "%s: more than %d tensors to stage", op, OPGEN_MAX_INPUTS - 1);
    if (n < 2 || n > OPGEN_MAX_CALLS)
        return opgen_fail(ACLNN_ERR_INNER, NULL, "%s: %d calls, 2 to %d", op, n, OPGEN_MAX_CALLS);
    aclOpExecutor *e = NULL;
    OPGEN_TRY(executor_new(op, n, calls, params, params_size, &e));
    e->whole = *whole;
    e->rows = malloc(sizeof *e->rows);
    if (!e->rows) {
        executor_free(e);
        return opgen_fail(ACLNN_ERR_INNER_CREATE_EXECUTOR, NULL, "%s: out of memory creating the executor", op);
    }
    *e->rows = *rows;
    /* the output is computed into a contiguous copy when it overlaps an input (the first call writes before the
     * second reads) or when interleaved halves of it are no view */
    bool stage = rows->interleaved && !block_stride(whole, rows->dim);
    for (int k = 0; k < n; ++k)   /* (an extra output's call reads the inputs after the halves wrote `whole`) */
        for (int i = 0; i < calls[k].nin; ++i)
            stage = stage || tensors_overlap(whole, &calls[k].in[i]);
    if (stage) {
        aclTensor copy = opgen_contiguous_at(whole, 0);   /* the workspace's, in phase 2 */
        opgen_rows plain;
        opgen_rows_init(&plain, rows->dim, rows->interleaved, NULL);
        for (int k = 0; k < 2; ++k)
            e->call[k].out = opgen_rows_out_half(&plain, &copy, k);
    }
    uint64_t ws = 0;
    for (int k = 0; k < n; ++k) {
        const uint64_t w = call_workspace(&e->call[k]);
        ws = w > ws ? w : ws;
    }
    ws = (ws + 63) / 64 * 64;
    e->rows_base = ws;
    ws += rows->staged_bytes;
    if (stage) {
        e->staged = ws + 1;
        ws += (uint64_t)opgen_numel(whole) * opgen_dtype_size(whole->dtype);
    }
    e->workspace = ws;
    return executor_publish(e, workspaceSize, executor);
}

aclnnStatus opgen_phase1_calls(const char *op, int n, const opgen_call *calls, const void *const *params,
                               const size_t *params_size, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    /* an order where each call's output overlaps no input of the calls after it: take next a call whose output
     * no other call still to run reads (the kernels handle an output overlapping their own inputs).  When there
     * is none (gradInput over gradOutput and gradWeight over weight: each output is read by the other's call), one
     * call computes into a contiguous copy of its output in the workspace, copied into the output after the last
     * call, and the order goes on. */
    opgen_call ordered[OPGEN_MAX_CALLS];
    const void *ordered_params[OPGEN_MAX_CALLS] = {NULL};
    size_t ordered_sizes[OPGEN_MAX_CALLS] = {0};
    bool done[OPGEN_MAX_CALLS] = {false}, staged[OPGEN_MAX_CALLS] = {false};   /* (staged: in the order's place) */
    memset(ordered, 0, sizeof ordered);
    if (n < 1 || n > OPGEN_MAX_CALLS)
        return opgen_fail(ACLNN_ERR_INNER, NULL, "%s: %d calls, at most %d", op, n, OPGEN_MAX_CALLS);
    for (int m = 0; m < n; ++m) {
        int pick = -1;
        for (int k = 0; k < n && pick < 0; ++k) {
            bool read_later = false;
            for (int j = 0; !done[k] && j < n && !read_later; ++j)
                for (int i = 0; j != k && !done[j] && i < calls[j].nin && !read_later; ++i)
                    read_later = tensors_overlap(&calls[k].out, &calls[j].in[i]);
            if (!done[k] && !read_later)
                pick = k;
        }
        for (int k = 0; k < n && pick < 0; ++k)   /* every output still to write is read later: stage one */
            if (!done[k]) {
                pick = k;
                staged[m] = true;
            }
        done[pick] = true;
        ordered[m] = calls[pick];
        ordered_params[m] = params[pick];
        ordered_sizes[m] = params_size[pick];
    }
    aclOpExecutor *e = NULL;
    OPGEN_TRY(executor_new(op, n, ordered, ordered_params, ordered_sizes, &e));
    uint64_t ws = 0;
    for (int m = 0; m < n; ++m) {
        if (staged[m]) {
            e->dest[m] = e->call[m].out;
            e->call[m].out = opgen_contiguous_at(&e->dest[m], 0);   /* the workspace's, in phase 2 */
            e->staged_call[m] = 1;
        }
        const uint64_t w = call_workspace(&e->call[m]);
        ws = w > ws ? w : ws;
    }
    for (int m = 0; m < n; ++m)
        if (e->staged_call[m]) {
            ws = (ws + 63) / 64 * 64;
            e->staged_call[m] = ws + 1;
            ws += (uint64_t)opgen_numel(&e->dest[m]) * opgen_dtype_size(e->dest[m].dtype);
        }
    e->workspace = ws;
    return executor_publish(e, workspaceSize, executor);
}

bool opgen_row_view(const aclTensor *t, const aclTensor *ref, aclTensor *view)
{
    /* as many elements as ref has rows (a check said so), equally spaced in C order, laid along ref's axes but
     * the last with C-order strides of that spacing; the last axis 1, stride 0 */
    int64_t stride = 0;
    if (!equally_spaced(t, &stride))
        return false;
    aclTensor v = *t;
    v.ndim = ref->ndim ? ref->ndim : 1;
    int64_t step = stride;
    v.dims[v.ndim - 1] = 1;
    v.strides[v.ndim - 1] = 0;
    for (uint64_t i = v.ndim - 1; i-- > 0;) {
        v.dims[i] = ref->dims[i];
        v.strides[i] = step;
        step *= ref->dims[i];
    }
    *view = v;
    return true;
}

bool opgen_channel_view(const aclTensor *t, const aclTensor *ref, int64_t dim, aclTensor *view)
{
    aclTensor v = *t;
    v.ndim = ref->ndim;
    for (uint64_t i = 0; i < v.ndim; ++i) {
        v.dims[i] = 1;
        v.strides[i] = 0;
    }
    if (opgen_numel(t) != 1) {
        /* C elements (a check said ref has dimension dim and C = its extent) equally spaced in C order */
        int64_t stride = 0;
        if (!equally_spaced(t, &stride))
            return false;
        v.dims[dim] = opgen_numel(t);
        v.strides[dim] = stride;
    }
    *view = v;
    return true;
}

/* `whole` (any layout) from a contiguous copy of it, element by element in its own dtype. */
static void copy_out(const aclTensor *whole, const char *src)
{
    const size_t es = opgen_dtype_size(whole->dtype);
    const int64_t n = opgen_numel(whole);
    char *base = (char *)whole->data;
    elem_walk w;
    if (n > 0)
        walk_at(&w, whole, 0);
    for (int64_t i = 0; i < n; ++i, walk_next(&w))
        memcpy(base + w.off * (int64_t)es, src + i * (int64_t)es, es);
}

aclnnStatus opgen_phase2(const char *op, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                         aclrtStream stream)
{
    (void)stream;   /* work runs now; every stream is in order with the host */
    if (!executor)
        return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, "executor", "executor must not be null");
    pthread_mutex_lock(&executors_lock);
    const bool live = executor_live(executor);
    pthread_mutex_unlock(&executors_lock);
    if (!live)
        return opgen_fail(ACLNN_ERR_PARAM_INVALID, "executor",
                          "executor was already run or destroyed, or was not made by %sGetWorkspaceSize", op);
    if (strcmp(executor->op, op) != 0)
        return opgen_fail(ACLNN_ERR_PARAM_INVALID, "executor", "executor was made by %sGetWorkspaceSize, not %s",
                          executor->op, op);
    if (workspaceSize < executor->workspace)
        return opgen_fail(ACLNN_ERR_PARAM_INVALID, "workspaceSize",
                          "workspaceSize %llu is less than the %llu bytes phase 1 asked for",
                          (unsigned long long)workspaceSize, (unsigned long long)executor->workspace);
    if (executor->workspace > 0 && !workspace)
        return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, "workspace", "workspace must not be null (%llu bytes needed)",
                          (unsigned long long)executor->workspace);
    aclnnStatus ret = ACLNN_SUCCESS;
    const opgen_rows *rows = executor->rows;
    char *staging = rows ? (char *)workspace + executor->rows_base : NULL;
    for (int k = 0; rows && k < rows->nstaged; ++k)   /* the inputs read from contiguous copies */
        copy_in(&rows->staged[k], staging + rows->staged_at[k]);
    for (int k = 0; k < executor->ncalls && ret == ACLNN_SUCCESS; ++k) {
        opgen_call c = executor->call[k];
        if (executor->staged && k < 2)   /* the half of the copy of the output in the workspace */
            c.out.data = (char *)workspace + (executor->staged - 1);
        if (executor->staged_call[k])   /* a copy of this call's output in the workspace (opgen_phase1_calls) */
            c.out.data = (char *)workspace + (executor->staged_call[k] - 1);
        for (int i = 0; rows && rows->nstaged && i < c.nin; ++i)
            if (!c.in[i].data)   /* a staged copy's view (an empty tensor's null data is never read) */
                c.in[i].data = staging;
        if (opgen_numel(&c.out) > 0)
            ret = c.wide ? opgen_run_wide(&c, executor->params[k]) : opgen_run_call(&c, executor->params[k], workspace);
    }
    if (ret == ACLNN_SUCCESS && executor->staged)
        copy_out(&executor->whole, (const char *)workspace + (executor->staged - 1));
    for (int k = 0; k < executor->ncalls && ret == ACLNN_SUCCESS; ++k)
        if (executor->staged_call[k] && opgen_numel(&executor->dest[k]) > 0)
            copy_out(&executor->dest[k], (const char *)workspace + (executor->staged_call[k] - 1));
    if (ret == ACLNN_SUCCESS && executor->masked)   /* the positions past their sequence's length hold 0 */
        zero_past_length(&executor->call[0].out, executor->lengths, executor->mask_time, executor->mask_batch);
    if (ret == ACLNN_SUCCESS && rows && rows->counted) {   /* the rows past the count hold 0 */
        const aclTensor *w = &executor->whole;
        int64_t pre = 1;
        for (int64_t d = 0; d < rows->dim; ++d)
            pre *= w->dims[d];
        const int64_t cut = pre ? opgen_numel(w) / pre : 0;
        const int64_t valid = row_count(&rows->counts, pre, rows->uint32_sum);
        zero_from(w, valid * cut);
        for (int k = 2; k < executor->ncalls; ++k)   /* the extra outputs masked too: one value per row */
            if (rows->masked >> k & 1u)
                zero_from(&executor->call[k].out, valid);
    }
    if (!executor->repeatable) {
        pthread_mutex_lock(&executors_lock);
        executor_unlink(executor);
        pthread_mutex_unlock(&executors_lock);
        executor_free(executor);
    }
    return ret;
}

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor)
{
    if (!executor)
        return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, "executor", "executor must not be null");
    pthread_mutex_lock(&executors_lock);
    const bool live = executor_live(executor);
    if (live)
        executor->repeatable = true;
    pthread_mutex_unlock(&executors_lock);
    return live ? ACLNN_SUCCESS
                : opgen_fail(ACLNN_ERR_PARAM_INVALID, "executor", "executor was already run or destroyed");
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor)
{
    if (!executor)
        return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, "executor", "executor must not be null");
    pthread_mutex_lock(&executors_lock);
    const bool live = executor_live(executor);
    if (live)
        executor_unlink(executor);
    pthread_mutex_unlock(&executors_lock);
    if (!live)
        return opgen_fail(ACLNN_ERR_PARAM_INVALID, "executor", "executor was already run or destroyed");
    executor_free(executor);
    return ACLNN_SUCCESS;
}
