/* opgen_objects.c — the aclnn objects besides tensors and scalars (host arrays, tensor and scalar lists), the
 * getters of a tensor's description, and the acl_base.h helpers (aclFloat16, aclDataTypeSize).  None of the
 * generated operators takes a list; the aclIntArray is an IntArray parameter's (codegen/spec/params.py: one length
 * per batch element, as aclnnCtcLossBackward's inputLengths); the rest exist so that programs written for CANN build
 * and run unchanged. */
#include <stdlib.h>
#include <string.h>

#include "opgen_half.h"
#include "opgen_runtime.h"

/* ---- host arrays: a copy of the caller's values ------------------------------------------------------------ */
struct aclIntArray { uint64_t size; int64_t *value; };
struct aclFloatArray { uint64_t size; float *value; };
struct aclBoolArray { uint64_t size; bool *value; };

/* A copy of n elements of `bytes` each (NULL with the error recorded when it cannot be made). */
static void *copy_values(const char *fn, const void *value, uint64_t n, size_t bytes)
{
    if (n == 0)
        return NULL;
    if (!value) {
        opgen_fail(ACLNN_ERR_PARAM_NULLPTR, "value", "%s: value is null for %llu elements", fn, (unsigned long long)n);
        return NULL;
    }
    if (n > SIZE_MAX / bytes) {
        opgen_fail(ACLNN_ERR_PARAM_INVALID, "size", "%s: %llu elements do not fit in memory", fn,
                   (unsigned long long)n);
        return NULL;
    }
    void *copy = malloc(n * bytes);
    if (!copy) {
        opgen_fail(ACLNN_ERR_INNER, NULL, "%s: out of memory", fn);
        return NULL;
    }
    memcpy(copy, value, n * bytes);
    return copy;
}

#define OPGEN_ARRAY(Type, Elem, create, destroy, get_size)                                                          \
    Type *create(const Elem *value, uint64_t size)                                                                 \
    {                                                                                                              \
        Type *a = calloc(1, sizeof *a);                                                                            \
        if (!a) {                                                                                                  \
            opgen_fail(ACLNN_ERR_INNER, NULL, #create ": out of memory");                                          \
            return NULL;                                                                                           \
        }                                                                                                          \
        a->size = size;                                                                                            \
        a->value = copy_values(#create, value, size, sizeof(Elem));                                                \
        if (size && !a->value) {                                                                                   \
            free(a);                                                                                               \
            return NULL;                                                                                           \
        }                                                                                                          \
        return a;                                                                                                  \
    }                                                                                                              \
    aclnnStatus destroy(const Type *array)                                                                         \
    {                                                                                                              \
        if (array) {                                                                                               \
            free(array->value);                                                                                    \
            free((void *)array);                                                                                   \
        }                                                                                                          \
        return ACLNN_SUCCESS;                                                                                      \
    }                                                                                                              \
    aclnnStatus get_size(const Type *array, uint64_t *size)                                                        \
    {                                                                                                              \
        if (!array || !size)                                                                                       \
            return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, array ? "size" : "array", #get_size ": null argument");     \
        *size = array->size;                                                                                       \
        return ACLNN_SUCCESS;                                                                                      \
    }

OPGEN_ARRAY(aclIntArray, int64_t, aclCreateIntArray, aclDestroyIntArray, aclGetIntArraySize)

const int64_t *opgen_int_array_values(const aclIntArray *array) { return array->value; }
OPGEN_ARRAY(aclFloatArray, float, aclCreateFloatArray, aclDestroyFloatArray, aclGetFloatArraySize)
OPGEN_ARRAY(aclBoolArray, bool, aclCreateBoolArray, aclDestroyBoolArray, aclGetBoolArraySize)

/* ---- lists: they own the tensors (scalars) they were given, as in CANN --------------------------------------- */
struct aclTensorList { uint64_t size; const aclTensor **value; };
struct aclScalarList { uint64_t size; const aclScalar **value; };

aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size)
{
    aclTensorList *l = calloc(1, sizeof *l);
    if (!l) {
        opgen_fail(ACLNN_ERR_INNER, NULL, "aclCreateTensorList: out of memory");
        return NULL;
    }
    l->size = size;
    l->value = copy_values("aclCreateTensorList", value, size, sizeof *value);
    if (size && !l->value) {
        free(l);
        return NULL;
    }
    return l;
}

aclnnStatus aclDestroyTensorList(const aclTensorList *array)
{
    if (array) {
        for (uint64_t i = 0; i < array->size; ++i)
            aclDestroyTensor(array->value[i]);
        free(array->value);
        free((void *)array);
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetTensorListSize(const aclTensorList *tensorList, uint64_t *size)
{
    if (!tensorList || !size)
        return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, tensorList ? "size" : "tensorList",
                          "aclGetTensorListSize: null argument");
    *size = tensorList->size;
    return ACLNN_SUCCESS;
}

aclScalarList *aclCreateScalarList(const aclScalar *const *value, uint64_t size)
{
    aclScalarList *l = calloc(1, sizeof *l);
    if (!l) {
        opgen_fail(ACLNN_ERR_INNER, NULL, "aclCreateScalarList: out of memory");
        return NULL;
    }
    l->size = size;
    l->value = copy_values("aclCreateScalarList", value, size, sizeof *value);
    if (size && !l->value) {
        free(l);
        return NULL;
    }
    return l;
}

aclnnStatus aclDestroyScalarList(const aclScalarList *array)
{
    if (array) {
        for (uint64_t i = 0; i < array->size; ++i)
            aclDestroyScalar(array->value[i]);
        free(array->value);
        free((void *)array);
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetScalarListSize(const aclScalarList *scalarList, uint64_t *size)
{
    if (!scalarList || !size)
        return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, scalarList ? "size" : "scalarList",
                          "aclGetScalarListSize: null argument");
    *size = scalarList->size;
    return ACLNN_SUCCESS;
}

/* ---- a tensor's description ------------------------------------------------------------------------------------ */
/* n int64 values copied into a new malloc'd array for the caller (*out NULL for none). */
static aclnnStatus give_array(const char *fn, const int64_t *values, uint64_t n, int64_t **out, uint64_t *count)
{
    if (!out || !count)
        return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, NULL, "%s: null output pointer", fn);
    *out = NULL;
    *count = n;
    if (n == 0)
        return ACLNN_SUCCESS;
    *out = malloc(n * sizeof **out);
    if (!*out)
        return opgen_fail(ACLNN_ERR_INNER, NULL, "%s: out of memory", fn);
    memcpy(*out, values, n * sizeof **out);
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum)
{
    if (!tensor)
        return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, "tensor", "aclGetViewShape: tensor is null");
    return give_array("aclGetViewShape", tensor->dims, tensor->ndim, viewDims, viewDimsNum);
}

aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims, uint64_t *storageDimsNum)
{
    if (!tensor)
        return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, "tensor", "aclGetStorageShape: tensor is null");
    return give_array("aclGetStorageShape", tensor->storage_dims, tensor->storage_ndim, storageDims, storageDimsNum);
}

aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue, uint64_t *stridesNum)
{
    if (!tensor)
        return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, "tensor", "aclGetViewStrides: tensor is null");
    return give_array("aclGetViewStrides", tensor->strides, tensor->ndim, stridesValue, stridesNum);
}

aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset)
{
    if (!tensor || !offset)
        return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, tensor ? "offset" : "tensor", "aclGetViewOffset: null argument");
    *offset = tensor->offset;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format)
{
    if (!tensor || !format)
        return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, tensor ? "format" : "tensor", "aclGetFormat: null argument");
    *format = tensor->format;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType)
{
    if (!tensor || !dataType)
        return opgen_fail(ACLNN_ERR_PARAM_NULLPTR, tensor ? "dataType" : "tensor", "aclGetDataType: null argument");
    *dataType = tensor->dtype;
    return ACLNN_SUCCESS;
}

/* ---- acl_base.h helpers --------------------------------------------------------------------------------------- */
float aclFloat16ToFloat(aclFloat16 value) { return opgen_f16_to_f32(value); }
aclFloat16 aclFloatToFloat16(float value) { return opgen_f32_to_f16(value); }
size_t aclDataTypeSize(aclDataType dataType) { return opgen_dtype_size(dataType); }
