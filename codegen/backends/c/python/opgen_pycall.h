/* opgen_pycall.h — the compiled Python entry point of an op's C library (see codegen/backends/c/pyext.py).
 *
 * Each op's library is also a CPython extension module: a generated file (pyext.py) lists the op's parameters
 * and calls its phase 1 with them typed; everything else — reading the keywords, describing the arrays as
 * aclTensors, the product, both phases, the error — is here, the same for every op.  The entry takes the
 * keyword dict of a `codegen.kernel(op, backend="c")` call and either runs it or returns NotImplemented,
 * without having created or checked anything, for whatever the ctypes path must handle (binding.py): with
 * several outputs, an `out=` other than a tuple of one array per output, none sharing bytes; an unknown keyword,
 * an array subclass (a format label), another byte order, strides that are not whole elements, an argument C
 * cannot carry.  Verdicts are the C checker's own (phase 1 runs the same function as from C), so the fast and
 * the ctypes paths agree by construction.
 *
 * Without `out=` (or `out=None`) the entry point allocates the outputs itself: the shape from the op's shape rule,
 * the dtype the Python path would give them, 64-byte aligned as memory.empty's.  Only if phase 1 refuses them does
 * it return NotImplemented (the arrays dropped), and the Python path gives its verdict, checking in Python first
 * as it always did; a call with an empty tensor, inputs of different dtypes or `out_dtype=` is the Python path's
 * from the start. */
#ifndef OPGEN_PYCALL_H_
#define OPGEN_PYCALL_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include "aclnn/aclnn_base.h"

/* OPGEN_PY_OUTS: output `index` of an op with several outputs, element `index` of the tuple `out=` */
typedef enum {
    OPGEN_PY_TENSOR, OPGEN_PY_OUT, OPGEN_PY_SCALAR, OPGEN_PY_BOOL, OPGEN_PY_INT64, OPGEN_PY_DOUBLE, OPGEN_PY_STRING,
    OPGEN_PY_OUTS, OPGEN_PY_INT_ARRAY
} opgen_py_kind;

typedef struct {
    const char *name;        /* the Python keyword ("out" for the output, and for each of several) */
    opgen_py_kind kind;
    int index;               /* OPGEN_PY_OUTS: the output's place in `out=` */
} opgen_py_param;

/* One parameter's C value, as phase 1 takes it. */
typedef union {
    const aclTensor *tensor;
    aclTensor *out;
    const aclScalar *scalar;
    bool b;
    int64_t i64;
    double f64;              /* a double or float attribute (the call converts it to the parameter's type) */
    const char *str;         /* a string attribute: the Python str's UTF-8, alive while the keywords are */
    const aclIntArray *int_array;   /* an aclIntArray of a list or tuple of ints, destroyed after the call */
} opgen_py_value;

typedef aclnnStatus (*opgen_py_phase1)(const opgen_py_value *v, uint64_t *workspaceSize, aclOpExecutor **executor);
typedef aclnnStatus (*opgen_py_phase2)(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);

#define OPGEN_PY_MAX_PARAMS 32
#define OPGEN_PY_MAX_SOURCES 8

/* How the entry point sizes an output that `out=` does not give (the op's shape rule, as calls.output_shape and
 * calls.shape_of_output read it): OPGEN_PY_SHAPE_NONE, not here (the Python path allocates it). */
typedef enum { OPGEN_PY_SHAPE_NONE, OPGEN_PY_SHAPE_SAME, OPGEN_PY_SHAPE_BROADCAST, OPGEN_PY_SHAPE_CHANNEL } opgen_py_shape;

typedef struct {
    opgen_py_shape kind;
    int nsources;
    int sources[OPGEN_PY_MAX_SOURCES];   /* parameter indices: SAME the one, BROADCAST each, CHANNEL weight then ref */
    int dim;                             /* CHANNEL: the channel dimension of ref */
    bool zeros;                          /* allocated as zeros (several outputs: one summed back to an input) */
} opgen_py_output;

typedef struct {
    const char *name;                /* aclnnXxx */
    const opgen_py_param *params;    /* in aclnn order */
    int nparams;
    opgen_py_phase1 phase1;
    opgen_py_phase2 phase2;
    int nouts;                       /* the OPGEN_PY_OUTS parameters (several outputs), else 0 */
    /* Without `out=`: each output's shape (in the outputs' order; NULL, every call without `out=` is the Python
     * path's), and the tensors whose common dtype the outputs take (calls.default_dtype: the first non-null one's
     * when all agree, FLOAT when all are null; tensors of different dtypes are left to the Python path). */
    const opgen_py_output *outputs;
    int ndtype_sources;
    const int *dtype_sources;
} opgen_py_op;

/* The module's functions: setup(lock, error_type, {numpy type number: aclDataType}, products, default product)
 * once, then call(kw) per call. */
PyObject *opgen_py_setup(const opgen_py_op *op, PyObject *args);
PyObject *opgen_py_call(const opgen_py_op *op, PyObject *kw);
/* kernel(fallback): the op's kernel callable, calling the entry point and `fallback(*args, **kw)` for what it
 * declines. */
PyObject *opgen_py_kernel(const opgen_py_op *op, PyObject *fallback);
/* NumPy's C API, imported once per module (import_array); -1 with a Python error on failure. */
int opgen_py_import_numpy(void);

#endif /* OPGEN_PYCALL_H_ */
