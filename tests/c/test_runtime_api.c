/* The C runtime's API contract, run by tests/test_c_api.py under AddressSanitizer and UndefinedBehaviorSanitizer:
 * init and devices, the product from OPGEN_SOC_VERSION, memory, tensor and scalar creation, phase-1 null
 * checks, every misuse of phase 2 (null, re-run, foreign executor, short workspace), which must be errors,
 * never crashes, and opgenCreateArgs (the Python binding's way to create a call's arguments).  Uses two seed
 * operators, LogSigmoidBackward and SoftmaxBackward. */
#define _POSIX_C_SOURCE 200809L  /* setenv */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_logsigmoid_backward.h"
#include "aclnnop/aclnn_softmax_backward.h"

static int failures;

#define EXPECT(cond)                                                                    \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            printf("FAILED line %d: %s (last error: %s)\n", __LINE__, #cond, aclGetRecentErrMsg()); \
            ++failures;                                                                 \
        }                                                                               \
    } while (0)

static aclTensor *tensor(float *data, int64_t rows, int64_t cols)
{
    int64_t dims[2] = {rows, cols}, strides[2] = {cols, 1}, storage[1] = {rows * cols};
    return aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage, 1, data);
}

static aclnnStatus logsigmoid_phase1(aclTensor *g, aclTensor *x, aclTensor *out, uint64_t *ws, aclOpExecutor **ex)
{
    return aclnnLogSigmoidBackwardGetWorkspaceSize(g, x, x, out, ws, ex);
}

int main(void)
{
    /* init, device, product */
    EXPECT(aclFinalize() == ACL_ERROR_UNINITIALIZE);
    EXPECT(aclInit(NULL) == ACL_SUCCESS);
    EXPECT(aclInit(NULL) == ACL_ERROR_REPEAT_INITIALIZE);
    EXPECT(aclrtSetDevice(1) == ACL_ERROR_INVALID_PARAM);
    setenv("OPGEN_SOC_VERSION", "ascend910_95", 1);
    EXPECT(aclrtSetDevice(0) == ACL_ERROR_INVALID_PARAM);
    EXPECT(strstr(aclGetRecentErrMsg(), "unknown SoC 'ascend910_95'") != NULL);
    setenv("OPGEN_SOC_VERSION", "ascend310p", 1);
    EXPECT(aclrtSetDevice(0) == ACL_SUCCESS);
    EXPECT(strcmp(aclrtGetSocName(), "ascend310p") == 0);
    aclrtStream stream = NULL;
    EXPECT(aclrtCreateStream(&stream) == ACL_SUCCESS);
    EXPECT(aclrtCreateStream(NULL) == ACL_ERROR_INVALID_PARAM);

    /* memory */
    void *dev = NULL;
    EXPECT(aclrtMalloc(&dev, 0, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS && ((uintptr_t)dev % 64) == 0);
    char host[128] = {0};
    EXPECT(aclrtMemcpy(dev, 64, host, 128, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpy(dev, 64, host, 64, (aclrtMemcpyKind)9) == ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpy(NULL, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpy(dev, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    EXPECT(aclrtFree(dev) == ACL_SUCCESS);

    /* tensors and scalars */
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 1, 1, 1, 1, 1}, out[6] = {0};
    int64_t dims[2] = {2, 3}, strides[2] = {3, 1}, small[1] = {5}, neg[2] = {-1, 3}, big[17] = {0};
    EXPECT(aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, small, 1, a) == NULL);
    EXPECT(strstr(aclGetRecentErrMsg(), "outside the storage") != NULL);
    EXPECT(aclCreateTensor(neg, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, small, 1, a) == NULL);
    EXPECT(aclCreateTensor(big, 17, ACL_FLOAT, big, 0, ACL_FORMAT_ND, small, 1, a) == NULL);
    EXPECT(aclCreateTensor(dims, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, small, 1, a) == NULL);
    int64_t rev[2] = {-3, -1}, storage6[1] = {6};
    aclTensor *reversed = aclCreateTensor(dims, 2, ACL_FLOAT, rev, 5, ACL_FORMAT_ND, storage6, 1, a);
    EXPECT(reversed != NULL);
    double v = 1.5;
    aclScalar *s = aclCreateScalar(&v, ACL_DOUBLE);
    EXPECT(s != NULL);
    EXPECT(aclCreateScalar(NULL, ACL_FLOAT) == NULL);
    aclDestroyScalar(s);

    /* phase 1 on a product without the op's dtype... and the right one */
    aclTensor *g = tensor(b, 2, 3), *x = tensor(a, 2, 3), *o = tensor(out, 2, 3);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    EXPECT(logsigmoid_phase1(g, x, o, NULL, &ex) == ACLNN_ERR_PARAM_NULLPTR);
    EXPECT(strcmp(opgenGetRecentErrParam(), "workspaceSize") == 0);
    EXPECT(logsigmoid_phase1(g, x, o, &ws, NULL) == ACLNN_ERR_PARAM_NULLPTR);
    EXPECT(logsigmoid_phase1(NULL, x, o, &ws, &ex) == ACLNN_ERR_PARAM_NULLPTR);
    EXPECT(strcmp(aclGetRecentErrMsg(), "gradOutput must not be null") == 0);
    EXPECT(opgenGetRecentErrStatus() == ACLNN_ERR_PARAM_NULLPTR);
    EXPECT(aclnnLogSigmoidBackwardGetWorkspaceSize(g, reversed, x, o, &ws, &ex) == ACLNN_SUCCESS);

    /* phase 2 misuse */
    EXPECT(aclnnLogSigmoidBackward(NULL, ws, NULL, stream) == ACLNN_ERR_PARAM_NULLPTR);
    aclDestroyTensor(reversed);   /* the executor keeps its own copy of the descriptors */
    EXPECT(aclnnSoftmaxBackward(NULL, ws, ex, stream) == ACLNN_ERR_PARAM_INVALID);
    EXPECT(strstr(aclGetRecentErrMsg(), "made by aclnnLogSigmoidBackwardGetWorkspaceSize") != NULL);
    EXPECT(ws > 0);   /* a reversed view is staged: the staging buffers are workspace */
    EXPECT(aclnnLogSigmoidBackward(NULL, ws, ex, stream) == ACLNN_ERR_PARAM_NULLPTR);
    void *staging = NULL;
    EXPECT(aclrtMalloc(&staging, ws, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    EXPECT(aclnnLogSigmoidBackward(staging, ws, ex, stream) == ACLNN_SUCCESS);
    EXPECT(out[0] > 0.0024f && out[0] < 0.0025f);  /* 1/(1+e^6): self was read reversed */
    EXPECT(aclnnLogSigmoidBackward(staging, ws, ex, stream) == ACLNN_ERR_PARAM_INVALID);   /* already run */
    aclrtFree(staging);
    EXPECT(strstr(aclGetRecentErrMsg(), "already run") != NULL);
    EXPECT(aclDestroyAclOpExecutor(ex) == ACLNN_ERR_PARAM_INVALID);

    /* a repeatable executor runs twice and is destroyed by the caller; contiguous FLOAT needs no workspace */
    EXPECT(logsigmoid_phase1(g, x, o, &ws, &ex) == ACLNN_SUCCESS && ws == 0);
    EXPECT(aclSetAclOpExecutorRepeatable(ex) == ACLNN_SUCCESS);
    EXPECT(aclnnLogSigmoidBackward(NULL, ws, ex, stream) == ACLNN_SUCCESS);
    EXPECT(aclnnLogSigmoidBackward(NULL, ws, ex, stream) == ACLNN_SUCCESS);
    EXPECT(aclDestroyAclOpExecutor(ex) == ACLNN_SUCCESS);

    /* a workspace smaller than phase 1 asked for: softmax along dim 0 needs one */
    EXPECT(aclnnSoftmaxBackwardGetWorkspaceSize(g, x, 0, o, &ws, &ex) == ACLNN_SUCCESS);
    EXPECT(ws > 0);
    EXPECT(aclnnSoftmaxBackward(NULL, ws, ex, stream) == ACLNN_ERR_PARAM_NULLPTR);
    EXPECT(strcmp(opgenGetRecentErrParam(), "workspace") == 0);
    void *work = NULL;
    EXPECT(aclrtMalloc(&work, ws, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    EXPECT(aclnnSoftmaxBackward(work, ws - 1, ex, stream) == ACLNN_ERR_PARAM_INVALID);
    EXPECT(aclnnSoftmaxBackward(work, ws, ex, stream) == ACLNN_SUCCESS);
    EXPECT(out[0] == 1.0f * (1.0f - (1.0f * 1.0f + 4.0f * 1.0f)));   /* y*(g - sum(g*y)) along dim 0 */
    aclrtFree(work);

    /* dim out of range; an empty tensor needs no workspace */
    EXPECT(aclnnSoftmaxBackwardGetWorkspaceSize(g, x, 2, o, &ws, &ex) == ACLNN_ERR_PARAM_INVALID);
    EXPECT(strcmp(aclGetRecentErrMsg(), "dim must be in [-2, 1] for gradOutput of rank 2, got 2") == 0);
    int64_t zero[2] = {0, 3}, none[1] = {0};
    aclTensor *e = aclCreateTensor(zero, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, none, 1, NULL);
    EXPECT(e != NULL);
    EXPECT(logsigmoid_phase1(e, e, e, &ws, &ex) == ACLNN_SUCCESS && ws == 0);
    EXPECT(aclnnLogSigmoidBackward(NULL, 0, ex, stream) == ACLNN_SUCCESS);

    /* the product: Softshrink-like refusals are per op; a dtype this product lacks is refused by name */
    uint16_t h[6] = {0};
    aclTensor *bf = aclCreateTensor(dims, 2, ACL_BF16, strides, 0, ACL_FORMAT_ND, storage6, 1, h);
    EXPECT(logsigmoid_phase1(bf, bf, bf, &ws, &ex) == ACLNN_ERR_PARAM_INVALID);
    EXPECT(strstr(aclGetRecentErrMsg(), "gradOutput has dtype BFLOAT16, not supported by aclnnLogSigmoidBackward "
                                        "on ascend310p (supported: FLOAT16, FLOAT); BFLOAT16 is supported on") != NULL);
    EXPECT(opgenSetSocName("ascend910b") == ACLNN_SUCCESS);
    EXPECT(logsigmoid_phase1(bf, bf, bf, &ws, &ex) == ACLNN_SUCCESS);
    /* never run: aclFinalize frees it (LeakSanitizer would report it otherwise) */

    /* opgenCreateArgs: a tensor, a null and a scalar in one call, as aclCreateTensor/aclCreateScalar make them;
     * a failing record leaves nothing created (LeakSanitizer checks the first two), a bad one is refused */
    float args_data[6] = {0};
    double half = 0.5;
    int64_t words[13] = {OPGEN_ARG_TENSOR, ACL_FLOAT, 2, 0, 2, 3, 3, 1, 6, (int64_t)(intptr_t)args_data,
                         OPGEN_ARG_NULL, OPGEN_ARG_SCALAR, 0};
    memcpy(&words[12], &half, sizeof half);
    void *handles[3] = {NULL, NULL, NULL};
    EXPECT(opgenCreateArgs(words, 3, handles) == ACLNN_SUCCESS);
    EXPECT(handles[0] && !handles[1] && handles[2]);
    EXPECT(aclnnLogSigmoidBackwardGetWorkspaceSize(handles[0], handles[0], handles[0], handles[0], &ws, &ex)
           == ACLNN_SUCCESS);
    void *args_ws = malloc(ws);   /* (in place: phase 1 asks for a workspace to keep the inputs apart) */
    EXPECT(aclnnLogSigmoidBackward(args_ws, ws, ex, stream) == ACLNN_SUCCESS);
    free(args_ws);
    opgenDestroyArgs(words, 3, handles);
    EXPECT(!handles[0] && !handles[2]);
    int64_t bad_tensor[23] = {OPGEN_ARG_SCALAR, 0, OPGEN_ARG_TENSOR, ACL_FLOAT, 2, 0, 2, 3, 3, 1, 6,
                              (int64_t)(intptr_t)args_data, OPGEN_ARG_TENSOR, ACL_FLOAT, 2, 0, 2, -3, 3, 1, 6,
                              (int64_t)(intptr_t)args_data, OPGEN_ARG_NULL};
    EXPECT(opgenCreateArgs(bad_tensor, 4, handles) == ACLNN_ERR_PARAM_INVALID);
    EXPECT(strcmp(aclGetRecentErrMsg(), "aclCreateTensor: negative dimension -3") == 0);
    EXPECT(!handles[0] && !handles[1]);
    int64_t bad_kind[3] = {OPGEN_ARG_NULL, 7, 0};
    EXPECT(opgenCreateArgs(bad_kind, 2, handles) == ACLNN_ERR_PARAM_INVALID);
    EXPECT(strcmp(aclGetRecentErrMsg(), "opgenCreateArgs: argument 1: bad record") == 0);
    int64_t rank17[3] = {OPGEN_ARG_TENSOR, ACL_FLOAT, 17};
    EXPECT(opgenCreateArgs(rank17, 1, handles) == ACLNN_ERR_PARAM_INVALID);
    EXPECT(opgenCreateArgs(NULL, 1, handles) == ACLNN_ERR_PARAM_NULLPTR);

    aclDestroyTensor(bf);
    aclDestroyTensor(e);
    aclDestroyTensor(g);
    aclDestroyTensor(x);
    aclDestroyTensor(o);
    EXPECT(aclrtDestroyStream(stream) == ACL_SUCCESS);
    EXPECT(aclrtResetDevice(0) == ACL_SUCCESS);
    EXPECT(aclFinalize() == ACL_SUCCESS);
    if (failures) {
        printf("%d failures\n", failures);
        return 1;
    }
    printf("all passed\n");
    return 0;
}
