/* opgen_pycall.c — the op-independent part of the compiled Python entry point (see opgen_pycall.h).
 *
 * A call through ctypes (binding.py) cost 15-20 us at 2^10 elements where PyTorch's aten call costs 2-5 us:
 * records marshalled in Python, four foreign calls, a NumPy workspace.  Here the keywords are read from the
 * dict in C, the arrays described straight from their NumPy headers into aclTensors on the stack
 * (aclInitTensor: the checks of aclCreateTensor, no allocation), and both phases run back to back; the GIL is
 * released around phase 2 only, the kernel. */
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include "opgen_pycall.h"

#include <numpy/arrayobject.h>
#include <stdlib.h>
#include <string.h>

#include "opgen_runtime.h"

/* Set once by setup(): one op per library, so one set of these per module. */
static PyObject *lock;            /* binding.Library.lock: the product is process state, set with phase 1 */
static PyObject *error_type;      /* codegen.errors.AclnnError */
static PyObject *products;        /* {product name: None} */
static PyObject *default_product;
static PyObject *key_out, *key_product, *name_acquire, *name_release;
static PyObject *keys[OPGEN_PY_MAX_PARAMS];   /* the parameters' keywords, interned */
static const char *op_name = "opgen";
#define MAX_DTYPES 64
static int ndtypes;
static int dtype_num[MAX_DTYPES];             /* NumPy type numbers ... */
static aclDataType dtype_acl[MAX_DTYPES];     /* ... and the aclDataType each is described as */

int opgen_py_import_numpy(void)
{
    import_array1(-1);
    return 0;
}

PyObject *opgen_py_setup(const opgen_py_op *op, PyObject *args)
{
    PyObject *l, *e, *d, *p, *dp;
    if (!PyArg_ParseTuple(args, "OOO!O!U", &l, &e, &PyDict_Type, &d, &PyDict_Type, &p, &dp))
        return NULL;
    if (op->nparams > OPGEN_PY_MAX_PARAMS || PyDict_GET_SIZE(d) > MAX_DTYPES) {
        PyErr_Format(PyExc_ValueError, "%s: more parameters or dtypes than the entry point holds", op->name);
        return NULL;
    }
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    int n = 0;
    while (PyDict_Next(d, &pos, &k, &v)) {
        const long num = PyLong_AsLong(k), acl = PyLong_AsLong(v);
        if (PyErr_Occurred())
            return NULL;
        dtype_num[n] = (int)num;
        dtype_acl[n++] = (aclDataType)acl;
    }
    ndtypes = n;
    op_name = op->name;
    Py_XSETREF(lock, Py_NewRef(l));
    Py_XSETREF(error_type, Py_NewRef(e));
    Py_XSETREF(products, Py_NewRef(p));
    Py_XSETREF(default_product, Py_NewRef(dp));
    if (!key_out) {
        if (!(key_out = PyUnicode_InternFromString("out")) || !(key_product = PyUnicode_InternFromString("product"))
            || !(name_acquire = PyUnicode_InternFromString("acquire"))
            || !(name_release = PyUnicode_InternFromString("release")))
            return NULL;
        for (int i = 0; i < op->nparams; ++i)
            if (!(keys[i] = PyUnicode_InternFromString(op->params[i].name)))
                return NULL;
    }
    Py_RETURN_NONE;
}

/* What reading an argument found: described, to be left to the ctypes path, or a Python error. */
typedef enum { DONE, FALLBACK, FAILED } outcome;

/* Whether no two elements of `a` share memory, provably at a glance: the dimensions longer than 1, ordered by
 * stride, nest (each stride spans the ones below it), as for every slice, transpose and reversal of a
 * contiguous array.  Otherwise the ctypes path decides (checks.writeable_out, which tries harder). */
static bool nests(PyArrayObject *a)
{
    const int n = PyArray_NDIM(a);
    npy_intp s[OPGEN_MAX_DIMS], d[OPGEN_MAX_DIMS];
    int k = 0;
    for (int i = 0; i < n; ++i) {
        if (PyArray_DIM(a, i) == 0)
            return false;               /* (empty: nothing to write, left to the ctypes path) */
        if (PyArray_DIM(a, i) > 1) {
            const npy_intp st = PyArray_STRIDE(a, i);
            s[k] = st < 0 ? -st : st;
            d[k++] = PyArray_DIM(a, i);
        }
    }
    for (int i = 1; i < k; ++i)         /* insertion sort by stride: at most 16 dims */
        for (int j = i; j > 0 && s[j] < s[j - 1]; --j) {
            npy_intp t = s[j]; s[j] = s[j - 1]; s[j - 1] = t;
            t = d[j]; d[j] = d[j - 1]; d[j - 1] = t;
        }
    npy_intp span = PyArray_ITEMSIZE(a);
    for (int i = 0; i < k; ++i) {
        if (s[i] < span)
            return false;
        span = s[i] * d[i];
    }
    return true;
}

/* The aclTensor viewing ndarray `o`'s memory, as binding.py's _record describes it: strides in elements (0 for
 * a dimension of size 1, every one 0 for an empty array), the lowest element addressed as the storage's start,
 * the first element `offset` elements past it.  NULL for None (phase 1 says whether that is allowed). */
static outcome tensor_of(PyObject *o, bool is_out, aclTensor *t, const aclTensor **handle)
{
    *handle = NULL;
    if (o == Py_None && !is_out)
        return DONE;
    if (!PyArray_CheckExact(o))
        return FALLBACK;
    PyArrayObject *a = (PyArrayObject *)o;
    const int ndim = PyArray_NDIM(a);
    if (!PyArray_ISNOTSWAPPED(a) || ndim > OPGEN_MAX_DIMS)
        return FALLBACK;
    if (is_out && (!PyArray_ISWRITEABLE(a) || !nests(a)))
        return FALLBACK;
    const int num = PyArray_TYPE(a);
    int k = 0;
    while (k < ndtypes && dtype_num[k] != num)
        ++k;
    if (k == ndtypes)
        return FALLBACK;
    const npy_intp item = PyArray_ITEMSIZE(a);
    int64_t dims[OPGEN_MAX_DIMS], strides[OPGEN_MAX_DIMS];
    bool empty = false;
    for (int i = 0; i < ndim; ++i)
        empty |= PyArray_DIM(a, i) == 0;
    int64_t lo = 0, hi = 0;
    for (int i = 0; i < ndim; ++i) {
        dims[i] = PyArray_DIM(a, i);
        const npy_intp b = (empty || dims[i] == 1) ? 0 : PyArray_STRIDE(a, i);
        if (item == 0 || b % item != 0)
            return FALLBACK;            /* not whole elements: the ctypes path hands C an aligned copy */
        strides[i] = b / item;
        if (!empty)
            *(strides[i] < 0 ? &lo : &hi) += (dims[i] - 1) * strides[i];
    }
    const int64_t storage = empty ? 0 : hi - lo + 1;
    if (aclInitTensor(t, dims, (uint64_t)ndim, dtype_acl[k], strides, -lo, ACL_FORMAT_ND, &storage, 1,
                      (char *)PyArray_DATA(a) + lo * item) != ACLNN_SUCCESS) {
        PyErr_Format(PyExc_RuntimeError, "%s: creating the arguments failed: %s", op_name,
                     aclGetRecentErrMsg());
        return FAILED;
    }
    *handle = t;
    return DONE;
}

/* An aclScalar of a Python float or int (not a bool, nor a NumPy scalar: those take the ctypes path), as
 * aclCreateScalar(&(double)v, ACL_DOUBLE); NULL for None. */
static outcome scalar_of(PyObject *o, aclScalar *s, const aclScalar **handle)
{
    *handle = NULL;
    if (o == Py_None)
        return DONE;
    double v;
    if (PyFloat_CheckExact(o)) {
        v = PyFloat_AS_DOUBLE(o);
    } else if (PyLong_CheckExact(o)) {
        v = PyLong_AsDouble(o);          /* float(o), rounded the same way */
        if (v == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();               /* beyond a double: the ctypes path refuses it */
            return FALLBACK;
        }
    } else {
        return FALLBACK;
    }
    memset(s, 0, sizeof *s);
    s->dtype = ACL_DOUBLE;
    s->value = v;
    *handle = s;
    return DONE;
}

/* The byte range [lo, hi) ndarray `o` spans. */
static void span_of(PyArrayObject *a, char **lo, char **hi)
{
    char *l = PyArray_DATA(a), *h = l + PyArray_ITEMSIZE(a);
    for (int i = 0; i < PyArray_NDIM(a); ++i) {
        const npy_intp ext = (PyArray_DIM(a, i) - 1) * PyArray_STRIDE(a, i);
        *(ext < 0 ? &l : &h) += ext;
    }
    *lo = l;
    *hi = h;
}

/* Several outputs: `out=` a tuple of nouts arrays whose byte ranges are apart.  Arrays that might share memory
 * (or an array subclass, None, a list) go to the ctypes path, whose Python check (calls.several_outs) decides
 * exactly and raises its own error. */
static bool outs_apart(PyObject *out, int nouts)
{
    if (!PyTuple_CheckExact(out) || PyTuple_GET_SIZE(out) != nouts)
        return false;
    char *lo[OPGEN_PY_MAX_PARAMS], *hi[OPGEN_PY_MAX_PARAMS];
    for (int j = 0; j < nouts; ++j) {
        PyObject *o = PyTuple_GET_ITEM(out, j);
        if (!PyArray_CheckExact(o) || PyArray_SIZE((PyArrayObject *)o) == 0)
            return false;
        span_of((PyArrayObject *)o, &lo[j], &hi[j]);
        for (int k = 0; k < j; ++k)
            if (lo[j] < hi[k] && lo[k] < hi[j])
                return false;
    }
    return true;
}

/* An aclIntArray of a list or tuple of Python ints (not bools, each an int64), as the ctypes path creates it;
 * NULL for None (phase 1 says whether that is allowed).  Anything else (an ndarray, a bool, a value past int64)
 * takes the ctypes path, which gives the checker's verdict on it. */
static outcome int_array_of(PyObject *o, aclIntArray **made)
{
    *made = NULL;
    if (o == Py_None)
        return DONE;
    if (!PyList_CheckExact(o) && !PyTuple_CheckExact(o))
        return FALLBACK;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    int64_t *values = PyMem_Malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    if (!values) {
        PyErr_NoMemory();
        return FAILED;
    }
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject *item = PySequence_Fast_GET_ITEM(o, i);
        int overflow = 0;
        const long long x = PyLong_CheckExact(item) ? PyLong_AsLongLongAndOverflow(item, &overflow) : 0;
        if (!PyLong_CheckExact(item) || overflow || (x == -1 && PyErr_Occurred())) {
            PyMem_Free(values);
            return PyErr_Occurred() ? FAILED : FALLBACK;
        }
        values[i] = (int64_t)x;
    }
    *made = aclCreateIntArray(values, (uint64_t)n);
    PyMem_Free(values);
    if (!*made) {
        PyErr_Format(PyExc_RuntimeError, "%s: creating the arguments failed: %s", op_name, aclGetRecentErrMsg());
        return FAILED;
    }
    return DONE;
}

/* ---- without out=: the outputs allocated here ------------------------------------------------------------ */
#define LINE 64    /* memory.LINE: outputs start on a cache line, where the kernels stream large ones best */

/* An uninitialized (or zeroed) C-contiguous array of NumPy type `num` whose first element starts on a cache line,
 * as memory.empty makes it: a view into a uint8 buffer a line longer, which is its base. */
static PyObject *aligned_array(int num, int nd, npy_intp *dims, bool zeros)
{
    PyArray_Descr *descr = PyArray_DescrFromType(num);
    if (!descr)
        return NULL;
    npy_intp count = 1;
    for (int i = 0; i < nd; ++i)
        count *= dims[i];
    const npy_intp nbytes = count * PyDataType_ELSIZE(descr);
    npy_intp raw_bytes = nbytes + LINE;
    PyObject *raw = PyArray_SimpleNew(1, &raw_bytes, NPY_UINT8);
    if (!raw) {
        Py_DECREF(descr);
        return NULL;
    }
    char *data = PyArray_DATA((PyArrayObject *)raw);
    data += (LINE - (uintptr_t)data % LINE) % LINE;
    if (zeros)
        memset(data, 0, (size_t)nbytes);
    PyObject *a = PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims, NULL, data, NPY_ARRAY_CARRAY, NULL);
    if (!a || PyArray_SetBaseObject((PyArrayObject *)a, raw) < 0) {   /* (steals descr; SetBaseObject, raw) */
        if (!a)
            Py_DECREF(raw);
        Py_XDECREF(a);
        return NULL;
    }
    return a;
}

/* (a loop, not memcpy: a 0-d array's dimensions are a null pointer) */
static void copy_shape(PyArrayObject *a, npy_intp *dims, int *nd)
{
    *nd = PyArray_NDIM(a);
    for (int i = 0; i < *nd; ++i)
        dims[i] = PyArray_DIM(a, i);
}

/* The shape output `o` takes (calls.output_shape, calls.shape_of_output) from the arguments `argv` (by parameter
 * index); FALLBACK where the Python path must decide (a null or odd argument, shapes that do not broadcast: its
 * checker refuses them). */
static outcome output_shape(const opgen_py_output *o, PyObject *const *argv, npy_intp *dims, int *nd)
{
    PyArrayObject *a[OPGEN_PY_MAX_SOURCES];
    for (int j = 0; j < o->nsources; ++j) {
        if (!argv[o->sources[j]] || !PyArray_CheckExact(argv[o->sources[j]]))
            return FALLBACK;
        a[j] = (PyArrayObject *)argv[o->sources[j]];
    }
    switch (o->kind) {
    case OPGEN_PY_SHAPE_SAME:
        copy_shape(a[0], dims, nd);
        return DONE;
    case OPGEN_PY_SHAPE_BROADCAST:   /* NumPy's broadcasting: aligned on the right, 1 stretches */
        *nd = 0;
        for (int j = 0; j < o->nsources; ++j)
            *nd = PyArray_NDIM(a[j]) > *nd ? PyArray_NDIM(a[j]) : *nd;
        for (int i = 0; i < *nd; ++i) {
            npy_intp n = 1;
            for (int j = 0; j < o->nsources; ++j) {
                const int k = i - (*nd - PyArray_NDIM(a[j]));
                const npy_intp m = k < 0 ? 1 : PyArray_DIM(a[j], k);
                if (m != 1 && n != 1 && m != n)
                    return FALLBACK;
                n = m != 1 ? m : n;
            }
            dims[i] = n;
        }
        return DONE;
    case OPGEN_PY_SHAPE_CHANNEL:     /* checks.channel_grad_shape: the weight's shape if it has one element, else [C] */
        if (PyArray_SIZE(a[0]) == 1) {
            copy_shape(a[0], dims, nd);
            return DONE;
        }
        if (PyArray_NDIM(a[1]) <= o->dim)
            return FALLBACK;
        *nd = 1;
        dims[0] = PyArray_DIM(a[1], o->dim);
        return DONE;
    case OPGEN_PY_SHAPE_NONE:
        break;
    }
    return FALLBACK;
}

/* The NumPy type number the outputs take (calls.default_dtype): the dtype sources' when all non-null ones agree,
 * FLOAT when all are null; FALLBACK for sources of different dtypes (promotion is the Python path's). */
static outcome output_dtype(const opgen_py_op *op, PyObject *const *argv, int *num)
{
    *num = -1;
    for (int j = 0; j < op->ndtype_sources; ++j) {
        PyObject *s = argv[op->dtype_sources[j]];
        if (!s || s == Py_None)
            continue;
        if (!PyArray_CheckExact(s) || (*num >= 0 && PyArray_TYPE((PyArrayObject *)s) != *num))
            return FALLBACK;
        *num = PyArray_TYPE((PyArrayObject *)s);
    }
    for (int k = 0; k < ndtypes && *num < 0; ++k)
        if (dtype_acl[k] == ACL_FLOAT)
            *num = dtype_num[k];
    return *num >= 0 ? DONE : FALLBACK;
}

/* Every output allocated into made[] (by output), described in tensors[]/v[] at its parameter's index. */
static outcome allocate_outputs(const opgen_py_op *op, PyObject *const *argv, PyObject **made,
                                aclTensor *tensors, opgen_py_value *v)
{
    if (!op->outputs)
        return FALLBACK;
    for (int i = 0; i < op->nparams; ++i)   /* an empty tensor ends the checks early: the Python path's call */
        if (op->params[i].kind == OPGEN_PY_TENSOR && argv[i] && PyArray_CheckExact(argv[i])
            && PyArray_SIZE((PyArrayObject *)argv[i]) == 0)
            return FALLBACK;
    int num;
    if (output_dtype(op, argv, &num) != DONE)
        return FALLBACK;
    for (int i = 0; i < op->nparams; ++i) {
        const opgen_py_kind kind = op->params[i].kind;
        if (kind != OPGEN_PY_OUT && kind != OPGEN_PY_OUTS)
            continue;
        const int j = kind == OPGEN_PY_OUT ? 0 : op->params[i].index;
        npy_intp dims[OPGEN_MAX_DIMS];
        int nd;
        if (output_shape(&op->outputs[j], argv, dims, &nd) != DONE)
            return FALLBACK;
        if (!(made[j] = aligned_array(num, nd, dims, op->outputs[j].zeros))) {
            PyErr_Clear();               /* (NumPy's "array is too big", a MemoryError): the Python path's verdict, */
            return FALLBACK;             /* its checker's first, or its own error as it always gave */
        }
        const outcome r = tensor_of(made[j], true, &tensors[i], &v[i].tensor);
        if (r != DONE)
            return r;
    }
    return DONE;
}

static PyObject *raise_status(aclnnStatus status)
{
    const char *param = opgenGetRecentErrParam();
    PyObject *e = PyObject_CallFunction(error_type, "izs", (int)status, *param ? param : NULL,
                                        aclGetRecentErrMsg());
    if (e) {
        PyErr_SetObject(error_type, e);
        Py_DECREF(e);
    }
    return NULL;
}

/* Phase 1 with the product set, under the library's lock (the ctypes path holds it too). */
static aclnnStatus checked_phase1(const opgen_py_op *op, const char *product, const opgen_py_value *v,
                                  uint64_t *ws, aclOpExecutor **ex, bool *failed)
{
    *failed = false;
    PyObject *r = PyObject_CallMethodNoArgs(lock, name_acquire);
    if (!r) {
        *failed = true;
        return ACLNN_SUCCESS;
    }
    Py_DECREF(r);
    aclnnStatus status = opgenSetSocName(product);
    if (status == ACLNN_SUCCESS)
        status = op->phase1(v, ws, ex);
    r = PyObject_CallMethodNoArgs(lock, name_release);
    if (!r)
        *failed = true;
    Py_XDECREF(r);
    return status;
}

/* The call, its aclIntArrays kept in `arrays` and the outputs it allocates in `made` (opgen_py_call destroys and
 * drops them, whatever path the call ends by). */
static PyObject *call_with(const opgen_py_op *op, PyObject *kw, aclIntArray **arrays, PyObject **made)
{
    if (!lock) {
        PyErr_SetString(PyExc_RuntimeError, "opgen: the entry point was called before setup()");
        return NULL;
    }
    if (!PyDict_CheckExact(kw))
        Py_RETURN_NOTIMPLEMENTED;
    aclTensor tensors[OPGEN_PY_MAX_PARAMS];
    aclScalar scalars[OPGEN_PY_MAX_PARAMS];
    opgen_py_value v[OPGEN_PY_MAX_PARAMS];
    PyObject *argv[OPGEN_PY_MAX_PARAMS] = {NULL};   /* the arguments by parameter (outputs: not read) */
    Py_ssize_t found = 0;
    PyObject *out = NULL;
    bool allocate = false;                           /* no out= (or out=None): the outputs are made here */

    PyObject *product = PyDict_GetItemWithError(kw, key_product);
    if (product) {
        ++found;
        if (!PyUnicode_CheckExact(product) || PyDict_GetItemWithError(products, product) == NULL)
            goto fallback;               /* (an unknown product: known_product's message, from the ctypes path) */
    } else {
        product = default_product;
    }
    if (PyErr_Occurred())
        return NULL;
    const char *soc = PyUnicode_AsUTF8(product);
    if (!soc)
        return NULL;

    for (int i = 0; i < op->nparams; ++i) {
        const opgen_py_kind kind = op->params[i].kind;
        PyObject *arg = PyDict_GetItemWithError(kw, keys[i]);
        const bool is_out = kind == OPGEN_PY_OUT || kind == OPGEN_PY_OUTS;
        if (!arg && PyErr_Occurred())
            return NULL;
        if (is_out && (!arg || arg == Py_None)) {
            if (arg && (kind == OPGEN_PY_OUT || op->params[i].index == 0))
                ++found;
            allocate = true;             /* sized and described below, once the inputs are read */
            continue;
        }
        if (!arg)
            goto fallback;               /* missing: the Python path reports it */
        argv[i] = arg;
        if (kind != OPGEN_PY_OUTS || op->params[i].index == 0)
            ++found;                     /* (several outputs: one keyword) */
        outcome r = DONE;
        switch (kind) {
        case OPGEN_PY_TENSOR:
            r = tensor_of(arg, false, &tensors[i], &v[i].tensor);
            break;
        case OPGEN_PY_OUT:
            r = tensor_of(arg, true, &tensors[i], &v[i].tensor);
            out = arg;
            break;
        case OPGEN_PY_OUTS:
            if (op->params[i].index == 0 && !outs_apart(arg, op->nouts))
                goto fallback;
            r = tensor_of(PyTuple_GET_ITEM(arg, op->params[i].index), true, &tensors[i], &v[i].tensor);
            out = arg;
            break;
        case OPGEN_PY_SCALAR:
            r = scalar_of(arg, &scalars[i], &v[i].scalar);
            break;
        case OPGEN_PY_BOOL:
            if (!PyBool_Check(arg))
                goto fallback;
            v[i].b = arg == Py_True;
            break;
        case OPGEN_PY_INT64: {
            if (!PyLong_CheckExact(arg))
                goto fallback;
            int overflow = 0;
            const long long x = PyLong_AsLongLongAndOverflow(arg, &overflow);
            if (overflow)
                goto fallback;
            if (x == -1 && PyErr_Occurred())
                return NULL;
            v[i].i64 = (int64_t)x;
            break;
        }
        case OPGEN_PY_DOUBLE:
            if (PyFloat_CheckExact(arg)) {
                v[i].f64 = PyFloat_AS_DOUBLE(arg);
            } else if (PyLong_CheckExact(arg)) {
                /* float(arg), as the ctypes path converts it (`label_smoothing=0`: CrossEntropyLossGrad's calls
                 * all took the ctypes path for it, 46 us a call) */
                v[i].f64 = PyLong_AsDouble(arg);
                if (v[i].f64 == -1.0 && PyErr_Occurred()) {
                    PyErr_Clear();       /* beyond a double: the ctypes path gives the checker's verdict */
                    goto fallback;
                }
            } else {
                goto fallback;           /* a bool or a NumPy scalar: the ctypes path converts it as it always did */
            }
            break;
        case OPGEN_PY_INT_ARRAY:
            r = int_array_of(arg, &arrays[i]);
            v[i].int_array = arrays[i];
            break;
        case OPGEN_PY_STRING:
            if (!PyUnicode_CheckExact(arg))
                goto fallback;           /* None or bytes: the ctypes path gives the checker's verdict */
            v[i].str = PyUnicode_AsUTF8(arg);
            if (!v[i].str)
                return NULL;
            break;
        }
        if (r == FAILED)
            return NULL;
        if (r == FALLBACK)
            goto fallback;
    }
    if (found != PyDict_GET_SIZE(kw))
        goto fallback;                   /* another keyword (out_dtype=, a misspelt one) */
    if (allocate) {
        const outcome r = allocate_outputs(op, argv, made, tensors, v);
        if (r == FAILED)
            return NULL;
        if (r == FALLBACK)
            goto fallback;
    }

    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    bool failed;
    aclnnStatus status = checked_phase1(op, soc, v, &ws, &ex, &failed);
    if (failed) {
        if (status == ACLNN_SUCCESS && ex)
            aclDestroyAclOpExecutor(ex);
        return NULL;
    }
    if (status != ACLNN_SUCCESS && allocate)
        goto fallback;                   /* the Python path gives the verdict, its checker's first, as it always did */
    if (status != ACLNN_SUCCESS)
        return raise_status(status);
    /* The workspace: staging blocks and accumulators, a few KiB per thread.  From Python's raw allocator (malloc's
     * alignment, as NumPy's buffers), so that tracemalloc counts it as it counts the ctypes path's NumPy
     * workspace (`opgen bench` reports the peak extra memory of a call). */
    void *workspace = ws ? PyMem_RawMalloc(ws) : NULL;
    if (ws && !workspace) {
        aclDestroyAclOpExecutor(ex);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    status = op->phase2(workspace, ws, ex, NULL);
    Py_END_ALLOW_THREADS
    PyMem_RawFree(workspace);
    if (status != ACLNN_SUCCESS)
        return raise_status(status);
    if (!allocate)
        return Py_NewRef(out);
    if (!op->nouts)
        return Py_NewRef(made[0]);
    PyObject *outs = PyTuple_New(op->nouts);
    for (int j = 0; outs && j < op->nouts; ++j)
        PyTuple_SET_ITEM(outs, j, Py_NewRef(made[j]));
    return outs;

fallback:
    if (PyErr_Occurred())
        return NULL;
    Py_RETURN_NOTIMPLEMENTED;
}

PyObject *opgen_py_call(const opgen_py_op *op, PyObject *kw)
{
    aclIntArray *arrays[OPGEN_PY_MAX_PARAMS] = {NULL};
    PyObject *made[OPGEN_PY_MAX_PARAMS] = {NULL};
    PyObject *result = call_with(op, kw, arrays, made);
    for (int i = 0; i < op->nparams && i < OPGEN_PY_MAX_PARAMS; ++i) {
        if (arrays[i])
            aclDestroyIntArray(arrays[i]);
        Py_XDECREF(made[i]);
    }
    return result;
}

/* ---- the kernel callable: the entry point without a Python frame around it -------------------------------- */
/* `codegen.kernel(op, backend="c")` is an object of this type: its call hands the keyword dict Python built for
 * it straight to opgen_py_call, and only what that declines (or positional arguments) to `fallback`, binding.py's
 * Python path.  A Python function around the entry point cost 0.7 us of a 3.3 us call (its frame and the copy of
 * its `**kw`).  Attributes (`library`, `__name__`, `__doc__`) live in the instance's __dict__, as a function's. */
typedef struct {
    PyObject_HEAD
    const opgen_py_op *op;
    PyObject *fallback;
    PyObject *dict;
} kernel_object;

static PyObject *kernel_call(PyObject *self, PyObject *args, PyObject *kw)
{
    kernel_object *k = (kernel_object *)self;
    if (kw && PyTuple_GET_SIZE(args) == 0) {
        PyObject *r = opgen_py_call(k->op, kw);
        if (r != Py_NotImplemented)
            return r;
        Py_DECREF(r);
    }
    return PyObject_Call(k->fallback, args, kw);
}

static int kernel_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(((kernel_object *)self)->fallback);
    Py_VISIT(((kernel_object *)self)->dict);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

static int kernel_clear(PyObject *self)
{
    Py_CLEAR(((kernel_object *)self)->fallback);
    Py_CLEAR(((kernel_object *)self)->dict);
    return 0;
}

static void kernel_dealloc(PyObject *self)
{
    PyTypeObject *type = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    kernel_clear(self);
    type->tp_free(self);
    Py_DECREF(type);
}

static PyMemberDef kernel_members[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(kernel_object, dict), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot kernel_slots[] = {
    {Py_tp_call, kernel_call},
    {Py_tp_traverse, kernel_traverse},
    {Py_tp_clear, kernel_clear},
    {Py_tp_dealloc, kernel_dealloc},
    {Py_tp_members, kernel_members},
    {Py_tp_doc, "an op's kernel: kernel(**keywords), computed by the compiled entry point or its Python fallback"},
    {0, NULL},
};

static PyType_Spec kernel_spec = {"opgen.Kernel", sizeof(kernel_object), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
                                  kernel_slots};

PyObject *opgen_py_kernel(const opgen_py_op *op, PyObject *fallback)
{
    static PyObject *type;
    if (!PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_TypeError, "kernel(fallback): the fallback must be callable");
        return NULL;
    }
    if (!type && !(type = PyType_FromSpec(&kernel_spec)))
        return NULL;
    kernel_object *k = PyObject_GC_New(kernel_object, (PyTypeObject *)type);
    if (!k)
        return NULL;
    Py_INCREF(type);            /* (each instance holds its heap type) */
    k->op = op;
    k->fallback = Py_NewRef(fallback);
    k->dict = NULL;
    PyObject_GC_Track((PyObject *)k);
    return (PyObject *)k;
}
