/* acl/acl_rt.h — the AscendCL runtime: devices, contexts, streams, memory.  On the CPU, "device" memory is host
 * memory and a stream runs its work at once, in order, so synchronising has nothing to wait for. */
#ifndef OPGEN_ACL_ACL_RT_H_
#define OPGEN_ACL_ACL_RT_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
    ACL_MEM_MALLOC_HUGE_ONLY = 1,
    ACL_MEM_MALLOC_NORMAL_ONLY = 2,
} aclrtMemMallocPolicy;

typedef enum {
    ACL_MEMCPY_HOST_TO_HOST = 0,
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
    ACL_MEMCPY_DEVICE_TO_HOST = 2,
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
} aclrtMemcpyKind;

/* Select the device.  This is where the runtime learns its chip, as CANN does: the SoC is read from the
 * environment variable OPGEN_SOC_VERSION (a SoC string of the spec's products: ascend910, ascend310p, ascend910b,
 * ascend910_93, ascend310b, ascend950), default ascend910b.  An unknown SoC is ACL_ERROR_INVALID_PARAM.  Only device 0
 * exists (aclrtGetDeviceCount reports 1). */
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void);

/* The SoC string of the running product, e.g. "ascend910b". */
ACL_FUNC_VISIBILITY const char *aclrtGetSocName(void);

/* Contexts: one per aclrtCreateContext, current per thread.  They hold nothing on the CPU; they exist so that
 * programs written for the NPU run unchanged (a context of device 0 only). */
ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context);
ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context);
ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext *context);

ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream);
ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);

/* Device memory, 64-byte aligned.  size 0 is ACL_ERROR_INVALID_PARAM, as in CANN. */
ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr);
ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size);
ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr);

/* Copy count bytes; count > destMax, a null pointer or an unknown kind is ACL_ERROR_INVALID_PARAM.  The Async
 * forms run at once (the stream is checked, not waited on). */
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                         aclrtMemcpyKind kind);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                              aclrtMemcpyKind kind, aclrtStream stream);

/* Set count bytes to (unsigned char)value; count > maxCount or a null pointer is ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count);
ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                              aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif /* OPGEN_ACL_ACL_RT_H_ */
