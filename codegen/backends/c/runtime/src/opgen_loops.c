/* opgen_loops.c — running a generated kernel over tensors of any layout.
 *
 * Elementwise: the output's shape is walked with every input broadcast to it (stride 0 where it is
 * stretched); dimensions that are contiguous with each other in every tensor are merged first, so a
 * contiguous call is one long inner loop.  The inner dimension goes to the kernel in blocks of OPGEN_BLOCK:
 * an aligned FLOAT, FLOAT16 or BFLOAT16 operand with unit stride is handed to the kernel's chunked entry as it
 * is (FLOAT read and written in place, halves converted a chunk at a time next to the kernel, opgen_chunks.h);
 * any other input (strided, broadcast, misaligned, DOUBLE) is converted into a FLOAT staging buffer first, and
 * such an output's results are rounded once from a staging buffer into its dtype and layout.
 *
 * Row sums along dim: when dim is the output's contiguous dimension each row is summed block by block and
 * then finished block by block (the row is read twice, the second time mostly from cache); otherwise
 * OPGEN_BLOCK rows of the inner dimensions are processed side by side, dim being walked twice with one
 * accumulator per row — no transposition, every access along the contiguous dimension; short rows are packed
 * several to a block.  With FLOAT16/BFLOAT16 operands every shape takes the chunked entries; with FLOAT ones,
 * the block functions on staged or in-place blocks.  Whole rows of FLOAT inputs in place, or of FLOAT16 or
 * BFLOAT16 operands as they are, are skewed: a row is finished while the next one is summed (finish_rowsum,
 * finish_rowsum_chunked), so that reads and writes overlap; packed rows are
 * too, a row at a time (the op's rows and rows_chunked: row r + 1 summed, then row r finished).
 *
 * An output that overlaps an input in memory is computed into the workspace first and copied out last, so
 * in-place calls give the same result as separate buffers.
 *
 * Workspace: the staging buffers when some tensor needs them, the accumulators of side-by-side rows, and the
 * whole result when the output overlaps an input.  opgen_workspace_bytes and opgen_run_call lay it out the
 * same way (plan()). */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "opgen_chunks.h"
#include "opgen_half.h"
#include "opgen_pool.h"
#include "opgen_runtime.h"

#if defined(__AVX__)
#include <immintrin.h>
#endif

#define MAXOPS (OPGEN_MAX_INPUTS + 1)

/* ---- conversions between a tensor's dtype and FLOAT ------------------------------------------------------------- */
static bool aligned_for(const void *p, aclDataType dt)
{
    return ((uintptr_t)p % opgen_dtype_size(dt)) == 0;
}

/* Load n elements of dtype dt, `stride` elements apart (0: one element repeated), as FLOAT into dst. */
static void load_f32(float *dst, const char *src, int64_t n, int64_t stride, aclDataType dt)
{
    if (stride == 0 && n > 1) {   /* one element repeated (a broadcast operand): converted once, then filled */
        float v;
        load_f32(&v, src, 1, 0, dt);
        for (int64_t i = 0; i < n; ++i)
            dst[i] = v;
        return;
    }
    const size_t es = opgen_dtype_size(dt);
    if (!aligned_for(src, dt)) {
        /* misaligned storage: element by element through memcpy (never seen from NumPy, allowed by the API) */
        for (int64_t i = 0; i < n; ++i) {
            const char *p = src + i * stride * (int64_t)es;
            switch (dt) {
            case ACL_FLOAT: { float v; memcpy(&v, p, 4); dst[i] = v; break; }
            case ACL_DOUBLE: { double v; memcpy(&v, p, 8); dst[i] = (float)v; break; }
            case ACL_FLOAT16: { uint16_t v; memcpy(&v, p, 2); dst[i] = opgen_f16_to_f32(v); break; }
            case ACL_BF16: { uint16_t v; memcpy(&v, p, 2); dst[i] = opgen_bf16_to_f32(v); break; }
            default: dst[i] = (float)opgen_load_f64(p, dt); break;   /* the integers, BOOL */
            }
        }
        return;
    }
    switch (dt) {
    /* The integers and BOOL (class targets, masks) each in a loop of its own, which vectorizes: through
     * opgen_load_f64 each element was a call and a switch, 40% of CrossEntropyLossGrad's and ScaledMaskedSoftmax's
     * time (perf, 2^16 elements).  Exact in double, rounded once; BOOL is 0 or 1. */
#define OPGEN_LOAD_INT(type, value)                                                                                  \
    {                                                                                                               \
        const type *s = (const type *)src;                                                                          \
        for (int64_t i = 0; i < n; ++i)                                                                             \
            dst[i] = (float)(double)(value);                                                                        \
        break;                                                                                                      \
    }
    case ACL_INT64: OPGEN_LOAD_INT(int64_t, s[i * stride])
    case ACL_INT32: OPGEN_LOAD_INT(int32_t, s[i * stride])
    case ACL_INT16: OPGEN_LOAD_INT(int16_t, s[i * stride])
    case ACL_INT8: OPGEN_LOAD_INT(int8_t, s[i * stride])
    case ACL_UINT8: OPGEN_LOAD_INT(uint8_t, s[i * stride])
    case ACL_BOOL: OPGEN_LOAD_INT(uint8_t, s[i * stride] != 0)
#undef OPGEN_LOAD_INT
    case ACL_FLOAT: {
        const float *s = (const float *)src;
        if (stride == 1)
            memcpy(dst, s, (size_t)n * sizeof(float));
        else
            for (int64_t i = 0; i < n; ++i)
                dst[i] = s[i * stride];
        break;
    }
    case ACL_DOUBLE: {
        const double *s = (const double *)src;
        for (int64_t i = 0; i < n; ++i)
            dst[i] = (float)s[i * stride];
        break;
    }
    case ACL_FLOAT16: {
        const uint16_t *s = (const uint16_t *)src;
        if (stride == 1)
            opgen_f16_block_to_f32(dst, s, n);
        else
            for (int64_t i = 0; i < n; ++i)
                dst[i] = opgen_f16_to_f32(s[i * stride]);
        break;
    }
    default: { /* ACL_BF16: phase 1 admits no other dtype (opgen_phase1_done) */
        const uint16_t *s = (const uint16_t *)src;
        if (stride == 1)
            opgen_bf16_block_to_f32(dst, s, n);
        else
            for (int64_t i = 0; i < n; ++i)
                dst[i] = opgen_bf16_to_f32(s[i * stride]);
        break;
    }
    }
}

/* Store n FLOAT values into dtype dt, `stride` elements apart, rounding to nearest even. */
static void store_f32(char *dst, int64_t stride, const float *src, int64_t n, aclDataType dt)
{
    const size_t es = opgen_dtype_size(dt);
    if (!aligned_for(dst, dt)) {
        for (int64_t i = 0; i < n; ++i) {
            char *p = dst + i * stride * (int64_t)es;
            switch (dt) {
            case ACL_FLOAT: memcpy(p, &src[i], 4); break;
            case ACL_DOUBLE: { double v = src[i]; memcpy(p, &v, 8); break; }
            case ACL_FLOAT16: { uint16_t v = opgen_f32_to_f16(src[i]); memcpy(p, &v, 2); break; }
            case ACL_BF16: { uint16_t v = opgen_f32_to_bf16(src[i]); memcpy(p, &v, 2); break; }
            default: opgen_store_f64(p, dt, src[i]); break;   /* the integers: rounded and saturated */
            }
        }
        return;
    }
    switch (dt) {
    case ACL_INT8: case ACL_UINT8: case ACL_INT16: case ACL_INT32: case ACL_INT64: case ACL_BOOL: {
        const size_t size = opgen_dtype_size(dt);
        for (int64_t i = 0; i < n; ++i)
            opgen_store_f64(dst + i * stride * (int64_t)size, dt, src[i]);
        break;
    }
    case ACL_FLOAT: {
        float *d = (float *)dst;
        if (stride == 1)
            memcpy(d, src, (size_t)n * sizeof(float));
        else
            for (int64_t i = 0; i < n; ++i)
                d[i * stride] = src[i];
        break;
    }
    case ACL_DOUBLE: {
        double *d = (double *)dst;
        for (int64_t i = 0; i < n; ++i)
            d[i * stride] = src[i];
        break;
    }
    case ACL_FLOAT16: {
        uint16_t *d = (uint16_t *)dst;
        if (stride == 1)
            opgen_f32_block_to_f16(d, src, n);
        else
            for (int64_t i = 0; i < n; ++i)
                d[i * stride] = opgen_f32_to_f16(src[i]);
        break;
    }
    default: {
        uint16_t *d = (uint16_t *)dst;
        if (stride == 1)
            opgen_f32_block_to_bf16(d, src, n);
        else
            for (int64_t i = 0; i < n; ++i)
                d[i * stride] = opgen_f32_to_bf16(src[i]);
        break;
    }
    }
}

/* Outputs of these dtypes can be written with non-temporal stores (opgen_stream_contiguous). */
static bool can_stream(aclDataType dt)
{
#if defined(__AVX__)
    return dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_BF16;
#else
    (void)dt;
    return false;
#endif
}

/* ---- layouts ---------------------------------------------------------------------------------------------------- */
/* What each staging slot holds (an input's n elements, `stride` apart, from `from`), so that a walk that comes back
 * to the same elements (an input broadcast along an outer dimension: NLLLoss2dBackward's INT64 target, the same
 * for each of the C classes) stages them once, not once per visit.  Inputs are not written during a call. */
typedef struct {
    const char *from[MAXOPS];
    int64_t n[MAXOPS], stride[MAXOPS];
    bool raw[MAXOPS];             /* FLOAT16/BFLOAT16 kept as they are (chunk_operands), else converted to FLOAT */
} staged_memo;

/* Operands 0..nin-1 are the inputs, nin the output.  shape/stride hold the walked dimensions, outermost
 * first; `dim` (row sums) is kept apart in dlen/dstride. */
typedef struct {
    int nops;
    int ndim;
    int64_t shape[OPGEN_MAX_DIMS];
    int64_t stride[MAXOPS][OPGEN_MAX_DIMS];
    char *base[MAXOPS];           /* the element at offset */
    aclDataType dtype[MAXOPS];
    size_t esize[MAXOPS];
    int64_t dlen;
    int64_t dstride[MAXOPS];
    bool stream;                  /* write the output with non-temporal stores (set from the plan) */
    opgen_lines *lines;           /* ... through this line writer (runs off the lines), else NULL */
    bool fa[MAXOPS];              /* FLOAT at a 4-byte aligned address: may go to a kernel in place */
    bool chunkable[MAXOPS];       /* FLOAT, FLOAT16 or BFLOAT16, aligned: a chunked entry may take it as it is */
    staged_memo *memo;            /* the staging slots' contents, where a walk keeps track of them (else NULL) */
} layout;

static const aclTensor *operand(const opgen_call *c, const aclTensor *out, int k)
{
    return k < c->nin ? &c->in[k] : out;
}

/* The strides of t broadcast to the output's shape (right-aligned; stretched and missing dims get 0). */
static void broadcast_strides(const aclTensor *t, const int64_t *shape, int ndim, int64_t *strides)
{
    for (int i = 0; i < ndim; ++i) {
        const int j = i - (ndim - (int)t->ndim);
        strides[i] = (j < 0 || (t->dims[j] == 1 && shape[i] != 1)) ? 0 : t->strides[j];
    }
}

/* Build the walk over `out`'s shape, leaving out `skip` (the row dim, or -1), merging what can be merged. */
static void make_layout(const opgen_call *c, const aclTensor *out, int skip, layout *L)
{
    int64_t shape[OPGEN_MAX_DIMS], strides[MAXOPS][OPGEN_MAX_DIMS];
    int ndim = (int)out->ndim;
    if (ndim == 0) {   /* rank 0: one element, a row of one along dim 0 */
        ndim = 1;
        shape[0] = 1;
    } else {
        memcpy(shape, out->dims, sizeof(int64_t) * (size_t)ndim);
    }
    L->nops = c->nin + 1;
    L->lines = NULL;
    L->memo = NULL;
    for (int k = 0; k < L->nops; ++k) {
        const aclTensor *t = operand(c, out, k);
        if (t->ndim == 0)
            for (int i = 0; i < ndim; ++i)
                strides[k][i] = 0;
        else
            broadcast_strides(t, shape, ndim, strides[k]);
        L->dtype[k] = t->dtype;
        L->esize[k] = opgen_dtype_size(t->dtype);
        L->base[k] = (char *)t->data + t->offset * (int64_t)L->esize[k];
        L->fa[k] = t->dtype == ACL_FLOAT && aligned_for(L->base[k], ACL_FLOAT);
        L->chunkable[k] = (t->dtype == ACL_FLOAT || t->dtype == ACL_FLOAT16 || t->dtype == ACL_BF16)
                          && aligned_for(L->base[k], t->dtype);
        L->dstride[k] = skip >= 0 ? strides[k][skip] : 0;
    }
    L->dlen = skip >= 0 ? shape[skip] : 1;
    int nd = 0;
    for (int i = 0; i < ndim; ++i) {
        if (i == skip || shape[i] == 1)
            continue;
        bool merge = nd > 0;
        for (int k = 0; merge && k < L->nops; ++k)
            merge = L->stride[k][nd - 1] == strides[k][i] * shape[i];
        if (merge) {
            L->shape[nd - 1] *= shape[i];
            for (int k = 0; k < L->nops; ++k)
                L->stride[k][nd - 1] = strides[k][i];
        } else {
            L->shape[nd] = shape[i];
            for (int k = 0; k < L->nops; ++k)
                L->stride[k][nd] = strides[k][i];
            ++nd;
        }
    }
    if (nd == 0) {
        L->shape[0] = 1;
        for (int k = 0; k < L->nops; ++k)
            L->stride[k][0] = 0;
        nd = 1;
    }
    L->ndim = nd;
}

/* An operand goes to the kernel in place when it is FLOAT, aligned, and unit-stride along the walked axis. */
static bool direct(const layout *L, int k, int64_t axis_stride)
{
    return L->fa[k] && axis_stride == 1;
}

/* Byte ranges: does the output share memory with any input? */
static void byte_range(const aclTensor *t, uintptr_t *lo, uintptr_t *hi)
{
    const size_t es = opgen_dtype_size(t->dtype);
    int64_t a = t->offset, b = t->offset;
    for (uint64_t i = 0; i < t->ndim; ++i) {
        const int64_t reach = (t->dims[i] - 1) * t->strides[i];
        if (reach < 0) a += reach; else b += reach;
    }
    *lo = (uintptr_t)t->data + (uintptr_t)(a * (int64_t)es);
    *hi = (uintptr_t)t->data + (uintptr_t)((b + 1) * (int64_t)es);
}

static bool output_overlaps(const opgen_call *c)
{
    uintptr_t olo, ohi;
    byte_range(&c->out, &olo, &ohi);
    for (int k = 0; k < c->nin; ++k) {
        if (opgen_numel(&c->in[k]) == 0)
            continue;
        uintptr_t lo, hi;
        byte_range(&c->in[k], &lo, &hi);
        if (lo < ohi && olo < hi)
            return true;
    }
    return false;
}

/* ---- the plan: mode, tiles, threads and workspace layout, the same in both phases --------------------------- */
/* Side by side rows: a tile of T columns (positions of the inner dims) is walked twice along dim, summing, then
 * finishing.  T is as long as the accumulators allow (MAX_TILE: 16384 doubles per sum, 128 KiB, stay in L2), cut
 * so that every thread gets a tile, but never below MIN_TILE (4 KiB of FLOAT read contiguously per step along
 * dim).  Long runs per step count for more than finding the tile in the cache on the second walk: tiles sized
 * for their inputs to stay in 8 MiB of L3 between the walks (1024 columns for rows of 1024) measured 1.3x slower
 * in FLOAT and 1.4x in FLOAT16/BFLOAT16 than 8192-16384 columns read twice from memory (`opgen bench`, one
 * thread, 16M elements, AMD EPYC).  Except when dim is so short that MIN_TILE columns or more fit a quarter of
 * the core's L2 (opgen_call.l2_bytes): then the tile is cut to fit, and the second walk reads L2.  Rows of 64
 * along dim 0 with a 2 MiB L2 (Intel Xeon): 1024 FLOAT columns or 2048 FLOAT16, 1.10-1.25x faster than 16384;
 * half of L2 gained less (1.05-1.18x), all of it 0.91-1.08x.  With 512 KiB of L2 no tile fits.  With 1 MiB (AMD
 * EPYC Zen 4) half of L2 (1024 FLOAT columns of rows of 64, where a quarter holds 512) was no better than 16384
 * columns: FLOAT (64, 16384), one thread, softmax 0.90-1.27x, LogSoftmaxBackward 0.75-1.00x.  When the threads
 * split the columns of one outer position, tiles go down to SPLIT_TILE: with MIN_TILE, (1024, 1024) and
 * (64, 1024) along dim 0 were one tile, run by one thread however many were asked for (two threads: softmax
 * FLOAT16 (1024, 1024) 1.44-1.47x, LogSoftmaxBackward 1.83x faster so split).  Tiles below
 * MIN_TILE, so that the second walk of rows of 64 finds its inputs nearer: FLOAT (64, 1024) along dim 0, one
 * thread, 512 columns 0.97-1.07x, 256 0.81-0.95x, 128 0.62-0.80x (AMD EPYC Zen 4, 1 MiB L2). */
#define MIN_TILE OPGEN_BLOCK
#define MAX_TILE (16 * OPGEN_BLOCK)
#define SPLIT_TILE (OPGEN_BLOCK / 4)
/* A call gets one thread per this many elements (up to the threads asked for): below it, waking a worker and
 * sharing the work cost more than they save.  LogSigmoid through the Python entry point, FLOAT and FLOAT16, 2
 * threads against 1 on a 2-vCPU AMD EPYC with the workers kept (opgen_pool.c), other jobs light: 2^12 elements
 * 1.08x, 2^13 1.27-1.46x, 2^14 1.5-1.67x, 2^15 1.67-1.7x, 2^16 1.8x; with every core busy elsewhere the second
 * thread gains nothing below 2^17.  PyTorch's grain is 2^15 elements as well (at::internal::GRAIN_SIZE). */
#define MIN_ELEMENTS_PER_THREAD (1 << 14)
#define MAX_THREADS OPGEN_POOL_MAX
/* Outputs at least this large are written with non-temporal stores (twice the 8 MiB of L3 a core can count on). */
#define STREAM_MIN_BYTES (16u * 1024 * 1024)

typedef struct {
    bool rows;          /* row sums, one whole row at a time (else side by side) */
    bool staging;       /* some operand needs a staging buffer */
    bool overlap;       /* the output is computed in the workspace, then copied */
    bool stream;        /* non-temporal stores for the output */
    bool lines;         /* the same for runs off the cache lines, through a line writer (opgen_lines) */
    int64_t tile;       /* side by side: rows per tile */
    int threads;
    uint64_t scratch_bytes;   /* per thread: staging buffers, then accumulators */
    uint64_t staging_bytes, acc_bytes, result_bytes;
} plan_t;

static int64_t blocks_of(int64_t len, int64_t block) { return (len + block - 1) / block; }

/* Positions of every walked dimension but the innermost (side by side: each has its own run of columns). */
static int64_t outer_count(const layout *L)
{
    int64_t outer = 1;
    for (int d = 0; d < L->ndim - 1; ++d)
        outer *= L->shape[d];
    return outer;
}

static int row_dim(const opgen_call *c)
{
    return c->out.ndim == 0 ? 0 : (int)c->dim;
}

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

/* Whether every contiguous run operand k is written in starts on a 64-byte cache line and is a whole number of
 * lines long: with `rows`, the rows along the walked dim; else (side by side) the runs along the innermost
 * dimension, one per position of dim and of the outer dims.  Then so are the blocks of OPGEN_BLOCK elements the
 * loops cut them into (tiles are whole blocks), each written on its own. */
_Static_assert(OPGEN_BLOCK % 32 == 0, "a block of 2-byte elements is a whole number of 64-byte lines");
static bool runs_on_lines(const layout *L, int k, bool rows)
{
    const int64_t es = L->esize[k], inner = L->ndim - 1;
    const int64_t run = rows ? L->dlen : L->shape[inner];
    if ((uintptr_t)L->base[k] % 64 != 0 || run * es % 64 != 0)
        return false;
    if (!rows && L->dlen > 1 && L->dstride[k] * es % 64 != 0)
        return false;
    for (int d = 0; d < (rows ? L->ndim : inner); ++d)
        if (L->shape[d] > 1 && L->stride[k][d] * es % 64 != 0)
            return false;
    return true;
}

/* Side by side, each step along dim handles a run of the inner dimension; with runs this short the steps' cost
 * dominates, and whole rows read with a stride (staged) are faster.  Softmax along dim 0, one thread, 2^16
 * elements, loaded 2-vCPU AMD EPYC: (16384, 4) FLOAT 486 -> 90 us, FLOAT16 1992 -> 126 us (PyTorch 130 and
 * 158); (8192, 8) FLOAT 228 -> 129, FLOAT16 425 -> 128 us; but (1024, 16) FLOAT 34 -> 55 us.  Unless the steps
 * follow each other (steps_follow): then side by side walks many steps at once (step_pack), faster still. */
#define SHORT_RUN 8

/* Whether every operand's steps along dim follow each other: dim's stride is the inner run's length times the
 * inner stride (a contiguous (dlen, len) slab, or broadcast along both), so k steps are one run of k*len. */
static bool steps_follow(const layout *L)
{
    const int inner = L->ndim - 1;
    for (int k = 0; k < L->nops; ++k)
        if (L->dstride[k] != L->shape[inner] * L->stride[k][inner])
            return false;
    return true;
}

static int64_t grouped_runs(const layout *L, int64_t lead);

static void plan(const opgen_call *c, plan_t *p)
{
    memset(p, 0, sizeof *p);
    layout L;
    const int skip = c->nred ? row_dim(c) : -1;
    make_layout(c, &c->out, skip, &L);
    const int out = L.nops - 1;
    if (c->nred) {
        /* whole rows when dim is the output's contiguous dimension, or closer to it than the others */
        const int64_t ds = abs64(L.dstride[out]), is = abs64(L.stride[out][L.ndim - 1]);
        p->rows = L.dlen <= 1 || (L.ndim == 1 && L.shape[0] == 1) || ds == 1 || (ds != 0 && ds < is)
                  || (ds != 0 && L.shape[L.ndim - 1] <= SHORT_RUN && !steps_follow(&L));
    }
    for (int k = 0; k < L.nops; ++k)
        if (!direct(&L, k, (c->nred && p->rows) ? L.dstride[k] : L.stride[k][L.ndim - 1]))
            p->staging = true;
    if (!c->nred && grouped_runs(&L, 0))
        p->staging = true;   /* inputs gathered run by run (run_elementwise) */
    p->overlap = !c->sum_to && output_overlaps(c);   /* a sum_to call's kernel writes the workspace */
    if (c->sum_to)
        p->staging = true;   /* where in the workspace its output lies is not known in phase 1 */
    if (p->overlap)
        p->staging = true;   /* the final copy may need it */
    const int64_t numel = opgen_numel(&c->out);
    const int64_t out_axis = (c->nred && p->rows) ? L.dstride[out] : L.stride[out][L.ndim - 1];
    /* non-temporal stores: for outputs this large, written in place and in order */
    const bool streamable = !p->overlap && out_axis == 1 && can_stream(c->out.dtype)
                            && (uint64_t)numel * L.esize[out] >= STREAM_MIN_BYTES;
    if (!c->nred) {
        /* Several rows: each row's first and last cache lines are written by plain stores (block_shift aligns the
         * first row only), and a line mixing plain and non-temporal stores costs more than streaming saves; so
         * stream several rows only when every row starts on a cache line. */
        p->stream = streamable && aligned_for(L.base[out], c->out.dtype)
                    && (L.ndim == 1 || ((uintptr_t)L.base[out] % 64 == 0
                                        && (uint64_t)L.shape[L.ndim - 1] * L.esize[out] % 64 == 0));
    } else {
        /* Reductions stream straight from their loops when every run of their output starts on a cache line
         * (PyTorch's allocator aligns tensors to 64 bytes; NumPy's large arrays may start 16 bytes past one):
         * FLOAT16/BFLOAT16 from the chunk loops (opgen_chunks.h: opgen_stream_span for row sums), FLOAT rows
         * through the staging buffer and FLOAT columns through the chunk loop (run_columns).  Row sums (softmax
         * along the last dim) and side-by-side sums (along dim 0) alike: their output is written on the second
         * walk only, after the sums, and a plain store would first read the line from memory, on top of the
         * inputs that walk reads. */
        p->stream = streamable && runs_on_lines(&L, out, p->rows);
        /* Outputs whose runs do not all start on lines (rows of 1000; NumPy's arrays, 16 bytes past a line)
         * stream through a line writer, which holds the line one run shares with the next until it is whole
         * (opgen_chunks.h: opgen_lines).  Each block's results go into the writer's buffer: FLOAT from the
         * staging path (out_target), FLOAT16/BFLOAT16 from the chunk loops with plain stores (lines_target).
         * Softmax at 16M elements, one thread, against plain stores, 16 bytes past a line: FLOAT rows of 64, 1024
         * and 32768 1.23-1.43x faster (rows of 1000 on a line 1.21-1.26x), FLOAT16/BFLOAT16 rows 1.00-1.17x; along
         * dim 0, where each run of a tile's columns starts over (the next run is in the next row), 1.04-1.20x
         * for rows of 1024 and 32768 in every dtype, 0.97-1.04x for rows of 64.  (A store mode of the chunk loops
         * that fed the writer chunk by chunk gained less in the halves, 0.91-1.13x, and made FLOAT16 rows of
         * 32768 0.77x as fast in the cache.) */
        p->lines = streamable && !p->stream && aligned_for(L.base[out], c->out.dtype);
    }
    if (p->stream || p->lines)
        p->staging = true;   /* results go through the staging buffer to the non-temporal stores */
    int64_t threads = c->threads < 1 ? 1 : (c->threads > MAX_THREADS ? MAX_THREADS : c->threads);
    if (threads > numel / MIN_ELEMENTS_PER_THREAD)
        threads = numel / MIN_ELEMENTS_PER_THREAD > 1 ? numel / MIN_ELEMENTS_PER_THREAD : 1;
    p->threads = (int)threads;
    if (c->nred && !p->rows) {
        const int64_t outer = outer_count(&L), len = L.shape[L.ndim - 1];
        const int64_t split = threads > outer ? (threads + outer - 1) / outer : 1;   /* tiles per outer position */
        /* (len / split, rounded up to a block; when the threads split the columns, to SPLIT_TILE, down to it) */
        const int64_t grain = split > 1 ? SPLIT_TILE : OPGEN_BLOCK, least = split > 1 ? SPLIT_TILE : MIN_TILE;
        int64_t t = blocks_of(blocks_of(len, split), grain) * grain;
        t = t < least ? least : (t > MAX_TILE ? MAX_TILE : t);
        /* a short dim: the tile whose inputs fit a quarter of L2, if it is no shorter than MIN_TILE */
        int64_t in_bytes = 0;
        for (int k = 0; k < c->nin; ++k)
            in_bytes += L.esize[k];
        const int64_t fit = c->l2_bytes / 4 / (L.dlen * in_bytes) / OPGEN_BLOCK * OPGEN_BLOCK;
        if (fit >= MIN_TILE && fit < t)
            t = fit;
        p->tile = len < t ? len : t;
    }
    p->staging_bytes = p->staging ? (uint64_t)L.nops * OPGEN_BLOCK * sizeof(float) : 0;
    /* (at least a block per sum: runs this short are walked several steps at a time, see step_pack; each sum in
     * double, then rounded to FLOAT for the finishing walk, see run_columns) */
    p->acc_bytes = (c->nred && !p->rows)
                   ? (uint64_t)c->nred * (uint64_t)(p->tile > OPGEN_BLOCK ? p->tile : OPGEN_BLOCK)
                     * (sizeof(double) + sizeof(float))
                   : 0;
    p->scratch_bytes = p->staging_bytes + p->acc_bytes;
    p->result_bytes = p->overlap ? (uint64_t)numel * sizeof(float) : 0;
}

/* ---- an output summed back to one input's shape (sum_to) -------------------------------------------------------
 * The kernel runs on the broadcast shape B, a slab at a time (folded below), into a contiguous FLOAT buffer in the
 * workspace; each output element is the double sum of the B elements broadcasting maps onto it (the adjoint of
 * broadcasting), rounded to FLOAT, and copied into out (rounded once more to its dtype, as the library's ReduceSum
 * and Cast).  Workspace: the kernel's scratch, one slab in FLOAT, the sums in double (out's size), the copy's
 * scratch. */
static aclTensor contiguous_float(uint64_t ndim, const int64_t *dims, void *data)
{
    aclTensor t;
    memset(&t, 0, sizeof t);
    t.dtype = ACL_FLOAT;
    t.ndim = ndim;
    int64_t s = 1;
    for (int i = (int)ndim - 1; i >= 0; --i) {
        t.dims[i] = dims[i];
        t.strides[i] = s;
        s *= dims[i];
    }
    t.storage_ndim = 1;
    t.storage_dims[0] = s;
    t.data = data;
    return t;
}

/* ---- an elementwise kernel's results folded in order, a slab at a time ------------------------------------------
 * sum_to and GridSum sum every result of an elementwise kernel in double, in the row-major order of its (contiguous
 * FLOAT) output.  Staging that whole output held 4 bytes per element (4 MiB for PReLU's gradWeight at 2^20
 * elements, the same for a mean loss's total weight); instead the kernel runs on a slab at a time into a buffer of
 * that size, its threads sharing the slab, and the slab is folded into the sums before the next one.  The fold
 * reads the same values in the same order as it read the whole output: the same bits, whatever the threads and the
 * slab.  A slab is SLAB elements (64 KiB of FLOAT) per thread of the kernel's plan, counting at most 2 threads: 64
 * or 128 KiB, which stay in L2 between the kernel's writes and the fold's reads.  With two threads sharing 64 KiB,
 * waking the worker once per slab cost more: PReLU at 2^20 elements ran 0.84-1.98x as fast as with the whole output
 * staged, against 1.28-3.42x sharing 128 KiB (2 vCPUs under load 5-6, noisy); at most 2, so that a slab is a
 * constant, not a share of the machine (and a call of 2^16 elements, up to 4 threads, holds well under the bench's
 * 256 KiB). */
#define SLAB (16 * OPGEN_BLOCK)

/* The plan of a folded kernel: its output is the slab buffer, which overlaps no input (planned as sum_to, which
 * says so, and with staging, as the buffer's place is not known in phase 1), and is read back at once: no
 * non-temporal stores. */
static void plan_folded(const opgen_call *c, plan_t *p)
{
    opgen_call k = *c;
    k.sum_to = true;
    plan(&k, p);
    p->stream = p->lines = false;
}

static int64_t slab_of(const plan_t *p)
{
    return SLAB * (p->threads < 2 ? 1 : 2);
}

static uint64_t slab_bytes(const opgen_call *c, const plan_t *p)
{
    const int64_t n = opgen_numel(&c->out), slab = slab_of(p);
    return ((uint64_t)(n < slab ? n : slab) * sizeof(float) + 63) / 64 * 64;
}

typedef void (*fold_fn)(const float *values, int64_t n, void *state);

static void run_items(const opgen_call *c, const aclTensor *out, const void *params, const plan_t *p, char *ws,
                      int64_t first, int64_t last, int64_t elements);

/* Run elementwise kernel c (out: contiguous FLOAT, its data ignored) slab by slab into `buf` (slab_bytes), each
 * slab's values handed to fold in order.  A slab is a run of the walk's items (a block of the inner dimension at
 * one outer position), which covers a contiguous range of out's row-major positions; out's view is shifted so
 * that the range's first element lands on buf[0]. */
static void run_folded(const opgen_call *c, const void *params, const plan_t *p, char *ws, float *buf, fold_fn fold,
                       void *state)
{
    if (opgen_numel(&c->out) == 0)
        return;
    layout L;
    make_layout(c, &c->out, -1, &L);
    const int64_t len = L.shape[L.ndim - 1], nblk = blocks_of(len, OPGEN_BLOCK);
    const int64_t items = outer_count(&L) * nblk;
    const int64_t per = len >= OPGEN_BLOCK ? slab_of(p) / OPGEN_BLOCK : slab_of(p) / len;
    for (int64_t i0 = 0; i0 < items; i0 += per) {
        const int64_t i1 = items - i0 < per ? items : i0 + per;
        const int64_t start = (i0 / nblk) * len + (i0 % nblk) * OPGEN_BLOCK;
        const int64_t stop = i1 == items ? opgen_numel(&c->out) : (i1 / nblk) * len + (i1 % nblk) * OPGEN_BLOCK;
        aclTensor slab = c->out;
        slab.data = buf;
        slab.offset = -start;   /* element `start` of the walk at buf[0] */
        run_items(c, &slab, params, p, ws, i0, i1, stop - start);
        fold(buf, stop - start, state);
    }
}

typedef struct {
    opgen_call kernel, copy;   /* the kernel on B; the copy of the sums (FLOAT, out's shape) into out */
    plan_t kp, cp;
    uint64_t kernel_bytes, slab_bytes, sums_bytes, copy_bytes;
} sum_to_plan;

static void plan_sum_to(const opgen_call *c, char *ws, sum_to_plan *s)
{
    const int64_t no = opgen_numel(&c->out);
    s->kernel = *c;
    s->kernel.sum_to = false;
    s->kernel.out = contiguous_float(c->bndim, c->bdims, NULL);
    plan_folded(&s->kernel, &s->kp);
    s->kernel_bytes = s->kp.scratch_bytes * (uint64_t)s->kp.threads;
    s->slab_bytes = slab_bytes(&s->kernel, &s->kp);
    s->sums_bytes = ((uint64_t)no * sizeof(double) + 63) / 64 * 64;
    memset(&s->copy, 0, sizeof s->copy);
    s->copy.nin = 1;
    s->copy.in[0] = contiguous_float(c->out.ndim, c->out.dims, NULL);
    s->copy.out = c->out;
    s->copy.threads = c->threads;
    s->copy.sum_to = true;   /* plan it with staging, like the kernel: the sums' place is not known in phase 1 */
    plan(&s->copy, &s->cp);
    s->copy.sum_to = false;
    s->copy_bytes = s->cp.scratch_bytes * (uint64_t)s->cp.threads;
    if (ws)
        s->copy.in[0].data = ws + s->kernel_bytes + s->slab_bytes;
}

static uint64_t grid_bytes(const opgen_call *c);

uint64_t opgen_workspace_bytes(const opgen_call *c)
{
    if (c->ngrid > 0) {   /* the grid sums run first, in the same workspace as the kernel after them */
        opgen_call kernel = *c;
        kernel.ngrid = 0;
        const uint64_t k = opgen_workspace_bytes(&kernel), g = grid_bytes(c);
        return k > g ? k : g;
    }
    plan_t p;
    if (c->sum_to) {
        sum_to_plan s;
        plan_sum_to(c, NULL, &s);
        return s.kernel_bytes + s.slab_bytes + s.sums_bytes + s.copy_bytes;
    }
    plan(c, &p);
    return p.scratch_bytes * (uint64_t)p.threads + p.result_bytes;
}

/* ---- walking ----------------------------------------------------------------------------------------------------- */
/* Pointers of every operand to the first element along the walked axis, at position `along` of it. */
/* Whether staging slot k holds these elements already, in this form (L->memo); else they are noted as what it is
 * about to hold */
static bool staged_already(const layout *L, int k, const char *from, int64_t n, int64_t stride, bool raw)
{
    staged_memo *m = L->memo;
    if (!m)
        return false;
    if (m->from[k] == from && m->n[k] == n && m->stride[k] == stride && m->raw[k] == raw)
        return true;
    m->from[k] = from;
    m->n[k] = n;
    m->stride[k] = stride;
    m->raw[k] = raw;
    return false;
}

static void stage_inputs(const layout *L, int nin, const int64_t *off, int64_t along, const int64_t *axis_stride,
                         int64_t n, float *staging, const float **in)
{
    for (int k = 0; k < nin; ++k) {
        const char *p = L->base[k] + (off[k] + along * axis_stride[k]) * (int64_t)L->esize[k];
        if (L->fa[k] && (axis_stride[k] == 1 || n == 1)) {   /* (offsets are whole elements: p is aligned too) */
            in[k] = (const float *)p;
        } else {
            float *buf = staging + (size_t)k * OPGEN_BLOCK;
            if (!staged_already(L, k, p, n, axis_stride[k], false))
                load_f32(buf, p, n, axis_stride[k], L->dtype[k]);
            in[k] = buf;
        }
    }
}

static float *out_target(const layout *L, const int64_t *off, int64_t along, const int64_t *axis_stride, int64_t n,
                         float *staging, char **dst)
{
    const int o = L->nops - 1;
    *dst = L->base[o] + (off[o] + along * axis_stride[o]) * (int64_t)L->esize[o];
    if (L->lines)   /* (FLOAT here: FLOAT16/BFLOAT16 outputs take the chunked entries, see lines_target) */
        return (float *)(void *)opgen_lines_at(L->lines, *dst, n * (int64_t)sizeof(float));
    if (!L->stream && L->fa[o] && (axis_stride[o] == 1 || n == 1))
        return (float *)*dst;
    return staging + (size_t)o * OPGEN_BLOCK;
}

static void out_flush(const layout *L, float *res, char *dst, const int64_t *axis_stride, int64_t n)
{
    const int o = L->nops - 1;
    if (res == (float *)dst)
        return;
    if (L->lines)
        opgen_lines_wrote(L->lines, n * (int64_t)sizeof(float));
    else if (L->stream && axis_stride[o] == 1)
        opgen_stream_contiguous(dst, res, n, L->dtype[o]);
    else
        store_f32(dst, axis_stride[o], res, n, L->dtype[o]);
}

/* Position the odometer idx[0..ndims) on its linear position `pos` (row-major); off[k] follows. */
static void seek(const layout *L, int ndims, int64_t pos, int64_t *idx, int64_t *off)
{
    for (int k = 0; k < L->nops; ++k)
        off[k] = 0;
    for (int d = ndims - 1; d >= 0; --d) {
        idx[d] = pos % L->shape[d];
        pos /= L->shape[d];
        for (int k = 0; k < L->nops; ++k)
            off[k] += idx[d] * L->stride[k][d];
    }
}

/* Advance the odometer over dims 0..last; off[k] follows. */
static void next_index(const layout *L, int64_t *idx, int64_t *off, int last)
{
    for (int d = last; d >= 0; --d) {
        idx[d] += 1;
        for (int k = 0; k < L->nops; ++k)
            off[k] += L->stride[k][d];
        if (idx[d] < L->shape[d])
            return;
        for (int k = 0; k < L->nops; ++k)
            off[k] -= L->stride[k][d] * L->shape[d];
        idx[d] = 0;
    }
}

/* next_index `count` times, count <= shape[last] - idx[last]: a group of packed rows moves on in one step (one
 * call per row of 64 took a tenth of softmax's time at 16M elements) */
static void skip_index(const layout *L, int64_t *idx, int64_t *off, int last, int64_t count)
{
    idx[last] += count - 1;
    for (int k = 0; k < L->nops; ++k)
        off[k] += (count - 1) * L->stride[k][last];
    next_index(L, idx, off, last);
}

/* One thread's share of a call: work items [begin, end) of its mode, with its own scratch. */
typedef struct {
    const opgen_call *c;
    const aclTensor *out;
    const void *params;
    const plan_t *p;
    int64_t begin, end;
    float *staging;
    double *accs;
    float *sums;   /* side by side: accs rounded to FLOAT (run_columns) */
} share;

/* When the output is streamed, the first block of a row is `shift` elements long, up to the output's first 64-byte
 * boundary, so that every later block starts on a cache line of the output: a line written partly by plain
 * stores (a block's unaligned head and tail) and partly by non-temporal ones is read from memory and written
 * twice, which costs more than streaming saves.  (NumPy's large arrays start 16 bytes into a page.)  The shift
 * is computed from the first row's start; other rows of a multi-row walk may still be unaligned. */
static int64_t block_shift(const layout *L, bool stream)
{
    const int o = L->nops - 1;
    const uintptr_t misalign = (uintptr_t)L->base[o] % 64;
    if (!stream || misalign % L->esize[o] != 0)
        return 0;
    return (int64_t)((64 - misalign) % 64 / L->esize[o]);
}

/* Elementwise: item = (outer index, block of the inner dimension). */
static int64_t elementwise_items(const layout *L, int64_t shift)
{
    int64_t outer = 1;
    for (int d = 0; d < L->ndim - 1; ++d)
        outer *= L->shape[d];
    return outer * blocks_of(L->shape[L->ndim - 1] + (shift ? OPGEN_BLOCK - shift : 0), OPGEN_BLOCK);
}

/* Can operand k go to a kernel's chunked entry as it is?  Unit stride along the walked axis, and chunkable
 * (offsets are whole elements, so every block start is aligned too). */
static bool as_is(const layout *L, int k, int64_t axis_stride)
{
    return axis_stride == 1 && L->chunkable[k];
}

/* n FLOAT16/BFLOAT16 elements, `stride` apart (0: one element repeated), copied contiguous as they are. */
static void load_half(uint16_t *dst, const char *src, int64_t n, int64_t stride)
{
    if (stride == 0) {
        uint16_t v;
        memcpy(&v, src, 2);
        for (int64_t i = 0; i < n; ++i)
            dst[i] = v;
        return;
    }
    for (int64_t i = 0; i < n; ++i)
        memcpy(dst + i, src + 2 * i * stride, 2);            /* (storage may be misaligned: see load_f32) */
}

/* A block of n elements for a chunked entry: the operands it takes as they are, the others staged (inputs now;
 * the output's results are stored after the call by chunk_flush).  A staged FLOAT16/BFLOAT16 input keeps its
 * dtype, so that with operands of one half dtype the call still takes the chunk loop compiled for it: staged
 * into FLOAT, BCE's one-element gradOutput (reduction mean or sum) sent FLOAT16/BFLOAT16 calls down the loop
 * that switches on each operand's dtype: 1.1-1.25x slower in the cache, up to 1.2x at 16M elements.  `dst`
 * NULL: the inputs only (the next row of a skewed pair, read for its sums). */
static void chunk_operands(const layout *L, int nin, const int64_t *off, int64_t along, const int64_t *axis_stride,
                           int64_t n, float *staging, opgen_src *src, opgen_dst *dst)
{
    for (int k = 0; k < nin; ++k) {
        const char *p = L->base[k] + (off[k] + along * axis_stride[k]) * (int64_t)L->esize[k];
        if (as_is(L, k, axis_stride[k])) {
            src[k] = (opgen_src){p, L->dtype[k]};
        } else if (L->dtype[k] == ACL_FLOAT16 || L->dtype[k] == ACL_BF16) {
            uint16_t *buf = (uint16_t *)(void *)(staging + (size_t)k * OPGEN_BLOCK);
            if (!staged_already(L, k, p, n, axis_stride[k], true))
                load_half(buf, p, n, axis_stride[k]);
            src[k] = (opgen_src){buf, L->dtype[k]};
        } else {
            float *buf = staging + (size_t)k * OPGEN_BLOCK;
            if (!staged_already(L, k, p, n, axis_stride[k], false))
                load_f32(buf, p, n, axis_stride[k], L->dtype[k]);
            src[k] = (opgen_src){buf, ACL_FLOAT};
        }
    }
    if (!dst)
        return;
    const int o = L->nops - 1;
    char *out = L->base[o] + (off[o] + along * axis_stride[o]) * (int64_t)L->esize[o];
    if (as_is(L, o, axis_stride[o]))
        *dst = (opgen_dst){out, L->dtype[o], L->stream};
    else
        *dst = (opgen_dst){staging + (size_t)o * OPGEN_BLOCK, ACL_FLOAT, false};
}

/* Where a chunked entry writes a block's n results when the output streams through the line writer: into the
 * writer's buffer, with plain stores (chunk_flush then hands them on) */
static void lines_target(const layout *L, opgen_dst *dst, int64_t n)
{
    if (L->lines)
        *dst = (opgen_dst){opgen_lines_at(L->lines, dst->data, n * (int64_t)L->esize[L->nops - 1]), dst->dtype,
                           false};
}

static void chunk_flush(const layout *L, const int64_t *off, int64_t along, const int64_t *axis_stride, int64_t n,
                        const float *staging)
{
    const int o = L->nops - 1;
    if (L->lines)
        opgen_lines_wrote(L->lines, n * (int64_t)L->esize[o]);
    else if (!as_is(L, o, axis_stride[o]))
        store_f32(L->base[o] + (off[o] + along * axis_stride[o]) * (int64_t)L->esize[o], axis_stride[o],
                  staging + (size_t)o * OPGEN_BLOCK, n, L->dtype[o]);
}

/* Elementwise with a short inner dimension (len elements, at most half a block) and the output's runs one after
 * another along the next dimension: a block takes g = OPGEN_BLOCK / len runs at once.  Inputs whose runs follow
 * each other too are read as one run of g*len; the others (broadcast along the next dimension: NLLLoss2dBackward's
 * target and gradient, one per class; or along the runs: its weight and class coordinate) are gathered run by run
 * into their staging slots.  Returns g, or 0 when blocks are not grouped. */
static int64_t grouped_runs(const layout *L, int64_t lead)
{
    const int inner = L->ndim - 1, o = L->nops - 1;
    const int64_t len = L->shape[inner];
    if (lead || inner < 1 || len * 2 > OPGEN_BLOCK || L->stride[o][inner - 1] != len * L->stride[o][inner])
        return 0;
    return OPGEN_BLOCK / len;
}

/* The inputs of g runs of len elements from `off` along the next dimension (grouped_runs): as FLOAT (in) for the
 * block-wise kernel, or for the chunked entry (src: FLOAT16/BFLOAT16 gathered as they are). */
static void group_inputs(const layout *L, int nin, const int64_t *off, int64_t g, const int64_t *axis, bool chunked,
                         float *staging, const float **in, opgen_src *src)
{
    const int inner = L->ndim - 1;
    const int64_t len = L->shape[inner];
    for (int k = 0; k < nin; ++k) {
        const int64_t es = (int64_t)L->esize[k], next = L->stride[k][inner - 1];
        const char *p = L->base[k] + off[k] * es;
        const bool one_run = next == len * axis[k];
        float *buf = staging + (size_t)k * OPGEN_BLOCK;
        const bool raw = chunked && (L->dtype[k] == ACL_FLOAT16 || L->dtype[k] == ACL_BF16);
        if (one_run && (chunked ? as_is(L, k, axis[k]) : (L->fa[k] && axis[k] == 1))) {
            if (chunked)
                src[k] = (opgen_src){p, L->dtype[k]};
            else
                in[k] = (const float *)(const void *)p;
            continue;
        }
        if (one_run ? !staged_already(L, k, p, g * len, axis[k], raw) : !staged_already(L, k, p, -g * len, next, raw)) {
            /* (gathered runs noted by a negative count and their distance: one walk, one axis stride) */
            for (int64_t r = 0; r < (one_run ? 1 : g); ++r) {
                const int64_t m = one_run ? g * len : len;
                if (raw)
                    load_half((uint16_t *)(void *)buf + r * len, p + r * next * es, m, axis[k]);
                else
                    load_f32(buf + r * len, p + r * next * es, m, axis[k], L->dtype[k]);
            }
        }
        if (chunked)
            src[k] = (opgen_src){buf, raw ? L->dtype[k] : ACL_FLOAT};
        else
            in[k] = buf;
    }
}

static void run_elementwise(const share *s)
{
    const opgen_call *c = s->c;
    layout L;
    make_layout(c, s->out, -1, &L);
    L.stream = s->p->stream;
    staged_memo memo;
    memset(&memo, 0, sizeof memo);
    L.memo = &memo;
    const int inner = L.ndim - 1;
    /* block b covers [b * OPGEN_BLOCK - lead, (b + 1) * OPGEN_BLOCK - lead) of the inner dimension, clipped */
    const int64_t shift = block_shift(&L, L.stream), lead = shift ? OPGEN_BLOCK - shift : 0;
    const int64_t len = L.shape[inner], nblk = blocks_of(len + lead, OPGEN_BLOCK);
    int64_t idx[OPGEN_MAX_DIMS] = {0}, off[MAXOPS] = {0}, axis[MAXOPS];
    for (int k = 0; k < L.nops; ++k)
        axis[k] = L.stride[k][inner];
    const float *in[OPGEN_MAX_INPUTS];
    const int64_t group = grouped_runs(&L, lead);
    /* Every operand taken as it is (contiguous along the walked axis, in a dtype the chunked entry reads): the
     * share's blocks of a row go to the chunked entry in one call, not one call each.  The kernel computes each
     * element alone, so the results are the same bits; what goes is a call, its operand set-up and the vector
     * loop's entry and exit per 4 KiB of FLOAT, which cost more than their instructions once memory is the
     * limit: one call per row measured 1.03-1.16x faster at 2^16 and 2^20 elements (SoftshrinkBackward,
     * EluBackward, LeakyReluBackward FLOAT; LogSigmoidBackward FLOAT16), the same output array in alternate
     * calls (AMD EPYC Zen 4, one thread).  A streamed row's first block, up to the output's first line
     * (block_shift), still goes alone: the calls after it start on a line, as the aligned stores need. */
    bool in_place = c->chunked != NULL;
    for (int k = 0; k < L.nops; ++k)
        in_place = in_place && as_is(&L, k, axis[k]);
    /* Every operand as it is but inputs repeated along the walked axis (axis stride 0: a scalar gradOutput, of
     * reductions mean and sum): staged once into a block of OPGEN_BLOCK copies (the memo keeps it), they go with
     * the others to the 2-D entry as rows of a block, the staged block read again for every row (step 0), so
     * that a thread's run of a row is one call, not one per block. */
    bool repeated = c->chunked != NULL && !in_place && as_is(&L, L.nops - 1, axis[L.nops - 1]);
    for (int k = 0; k < c->nin; ++k)
        repeated = repeated && (as_is(&L, k, axis[k]) || axis[k] == 0);
    int64_t item = s->begin;
    seek(&L, inner, item / nblk, idx, off);
    while (item < s->end) {
        int64_t g = group;   /* (nblk is 1 then: an item is a run) */
        if (g > s->end - item)
            g = s->end - item;
        if (g > 1 && g > L.shape[inner - 1] - idx[inner - 1])   /* (g > 1 only where inner >= 1) */
            g = L.shape[inner - 1] - idx[inner - 1];
        if (g > 1) {
            const int64_t n = g * len;
            if (c->chunked) {
                opgen_src src[OPGEN_MAX_INPUTS];
                opgen_dst dst;
                group_inputs(&L, c->nin, off, g, axis, true, s->staging, NULL, src);
                const int o = L.nops - 1;
                char *at = L.base[o] + off[o] * (int64_t)L.esize[o];
                dst = as_is(&L, o, axis[o]) ? (opgen_dst){at, L.dtype[o], L.stream}
                                            : (opgen_dst){s->staging + (size_t)o * OPGEN_BLOCK, ACL_FLOAT, false};
                c->chunked(1, n, src, NULL, dst, s->params);
                chunk_flush(&L, off, 0, axis, n, s->staging);
            } else {
                group_inputs(&L, c->nin, off, g, axis, false, s->staging, in, NULL);
                char *dst;
                float *res = out_target(&L, off, 0, axis, n, s->staging, &dst);
                c->block(n, in, res, s->params);
                out_flush(&L, res, dst, axis, n);
            }
            skip_index(&L, idx, off, inner - 1, g);
            item += g;
            continue;
        }
        /* Every operand as it is, at the start of a row with more rows of the share after it along the next
         * dimension: those rows in one call of the 2-D entry, each operand's rows its stride along that
         * dimension apart (0: an input broadcast along the rows). */
        if (in_place && inner >= 1 && lead == 0 && item % nblk == 0) {
            int64_t rows = L.shape[inner - 1] - idx[inner - 1];
            if (rows > (s->end - item) / nblk)
                rows = (s->end - item) / nblk;
            if (rows > 1) {
                opgen_src src[OPGEN_MAX_INPUTS];
                opgen_dst dst;
                int64_t step[MAXOPS];
                chunk_operands(&L, c->nin, off, 0, axis, len, s->staging, src, &dst);
                for (int k = 0; k < L.nops; ++k)
                    step[k] = L.stride[k][inner - 1];
                c->chunked(rows, len, src, step, dst, s->params);
                skip_index(&L, idx, off, inner - 1, rows);
                item += rows * nblk;
                continue;
            }
        }
        const int64_t start = (item % nblk) * OPGEN_BLOCK - lead, j = start < 0 ? 0 : start;
        int64_t span = 1;   /* blocks in this call */
        if ((in_place || repeated) && !(lead && item % nblk == 0)) {
            span = nblk - item % nblk;
            if (span > s->end - item)
                span = s->end - item;
            if (repeated && span > 1 && start + span * OPGEN_BLOCK > len)
                --span;   /* (rows of a whole block: the row's last, shorter block goes alone) */
        }
        const int64_t stop = start + span * OPGEN_BLOCK < len ? start + span * OPGEN_BLOCK : len, n = stop - j;
        if (c->chunked) {
            opgen_src src[OPGEN_MAX_INPUTS];
            opgen_dst dst;
            /* (span > 1 with repeated inputs: span rows of a block, the staged inputs' rows the same block) */
            const int64_t rows = repeated ? span : 1, m = rows > 1 ? OPGEN_BLOCK : n;
            int64_t step[MAXOPS];
            chunk_operands(&L, c->nin, off, j, axis, m, s->staging, src, &dst);
            for (int k = 0; k < L.nops; ++k)
                step[k] = as_is(&L, k, axis[k]) ? m : 0;
            c->chunked(rows, m, src, step, dst, s->params);
            chunk_flush(&L, off, j, axis, n, s->staging);
        } else {
            stage_inputs(&L, c->nin, off, j, axis, n, s->staging, in);
            char *dst;
            float *res = out_target(&L, off, j, axis, n, s->staging, &dst);
            c->block(n, in, res, s->params);
            out_flush(&L, res, dst, axis, n);
        }
        item += span;
        if (item % nblk == 0)
            next_index(&L, idx, off, inner - 1);
    }
}

/* Whole rows: item = one row (one position of every dimension but dim). */
static int64_t row_items(const layout *L)
{
    int64_t count = 1;
    for (int d = 0; d < L->ndim; ++d)
        count *= L->shape[d];
    return count;
}

/* Rows of every operand packed one after another along the innermost walked dimension (row r at r*len), short
 * enough for several to share a block: then a block holds whole rows and the kernel takes them in one call. */
static int64_t packed_rows(const layout *L)
{
    if (L->dlen > OPGEN_BLOCK / 2)
        return 0;
    for (int k = 0; k < L->nops; ++k)
        if (L->dstride[k] != 1 || L->stride[k][L->ndim - 1] != L->dlen)
            return 0;
    return OPGEN_BLOCK / L->dlen;
}

/* Does some operand go to a chunked entry as it is and need converting (FLOAT16, BFLOAT16)?  Only then do
 * row sums take the chunked entries: with FLOAT operands only, whole blocks measured ~10% faster (whole rows). */
static bool converts(const layout *L, const int64_t *axis_stride)
{
    for (int k = 0; k < L->nops; ++k)
        if (as_is(L, k, axis_stride[k]) && L->dtype[k] != ACL_FLOAT)
            return true;
    return false;
}

/* acc += the sums of one whole row through the chunked entry `sum` (the op's rowsum_chunked, or rowsum_wide),
 * OPGEN_BLOCK elements at a time (operands that are not as they are go through the staging buffers). */
static void row_sums_through(const layout *L, const opgen_call *c, const int64_t *off, float *staging,
                             double *acc, const void *params, opgen_rowsum_chunked_fn sum)
{
    opgen_src src[OPGEN_MAX_INPUTS];
    opgen_dst dst;
    for (int64_t j = 0; j < L->dlen; j += OPGEN_BLOCK) {
        const int64_t n = L->dlen - j < OPGEN_BLOCK ? L->dlen - j : OPGEN_BLOCK;
        chunk_operands(L, c->nin, off, j, L->dstride, n, staging, src, &dst);
        sum(n, src, acc, params);
    }
}

static void row_sums_chunked(const layout *L, const opgen_call *c, const int64_t *off, float *staging,
                             double *acc, const void *params)
{
    row_sums_through(L, c, off, staging, acc, params, c->rowsum_chunked);
}

/* The results of one whole row from its sums acc through the chunked entry `finish` (the op's finish_row_chunked, or
 * finish_row_wide), OPGEN_BLOCK elements at a time as in run_rows (not the op's rows_chunked, which takes a group
 * of short rows packed in one block). */
static void finish_row_blocks_chunked(const layout *L, const opgen_call *c, const int64_t *off, float *staging,
                                      const double *acc, const void *params, opgen_finish_row_chunked_fn finish)
{
    opgen_src src[OPGEN_MAX_INPUTS];
    opgen_dst dst;
    for (int64_t j = 0; j < L->dlen; j += OPGEN_BLOCK) {
        const int64_t n = L->dlen - j < OPGEN_BLOCK ? L->dlen - j : OPGEN_BLOCK;
        chunk_operands(L, c->nin, off, j, L->dstride, n, staging, src, &dst);
        lines_target(L, &dst, n);
        finish(n, src, acc, dst, params);
        chunk_flush(L, off, j, L->dstride, n, staging);
    }
}

/* ---- rows whose sums leave FLOAT ----------------------------------------------------------------------------------
 * A row sum is summed in double from FLOAT summands (rowsum) and finish_row reads it rounded to FLOAT: where a
 * summand overflows FLOAT, or the sum does once rounded, the row's results are ±inf, nan or 0 where the
 * mathematics may be finite (RMSNorm's backward: Σ dy·γ·x with dy near 3.4e38, or Σx² with x near 1e30).  Such a
 * row is computed again by the op's rowsum_wide and finish_row_wide: the sums in double from double summands, the
 * results in double from them, each rounded once.  Every walk tests each row's sums once (sums_leave_float, a
 * compare per sum); rows whose sums stay within FLOAT take the FLOAT kernels as before, bit for bit. */
/* Element i of a chunked operand, and a FLOAT result stored as element i of dst rounded to its dtype: one element
 * at a time, for the op's entries of rows and columns whose sums leave FLOAT (kernel_rows.c.jinja: sum_wide,
 * finish_wide), which take no chunk loop.  Here, out of the op's file: through opgen_chunked, and even with the
 * scalar conversions inlined there, they changed how GCC 12 inlined the op's hot chunk loops (softmax in the
 * cache: along dim 0 BFLOAT16 0.91x and FLOAT16 1.08x as fast, rows of 32768 BFLOAT16 0.87x). */
float opgen_src_get(opgen_src s, int64_t i)
{
    uint16_t h;
    if (s.dtype == ACL_FLOAT)
        return ((const float *)s.data)[i];
    memcpy(&h, (const char *)s.data + 2 * i, 2);
    return s.dtype == ACL_FLOAT16 ? opgen_f16_to_f32(h) : opgen_bf16_to_f32(h);
}

void opgen_dst_put(opgen_dst d, int64_t i, float v)
{
    if (d.dtype == ACL_FLOAT) {
        ((float *)d.data)[i] = v;
        return;
    }
    const uint16_t h = d.dtype == ACL_FLOAT16 ? opgen_f32_to_f16(v) : opgen_f32_to_bf16(v);
    memcpy((char *)d.data + 2 * i, &h, 2);
}

#define OPGEN_ROUNDS_FINITE 0x1.ffffffp+127   /* a double rounds to a finite FLOAT iff its magnitude is below this */

static inline bool sums_leave_float(int nred, const double *acc)
{
    int out = 0;
    for (int r = 0; r < nred; ++r)
        out |= !(fabs(acc[r]) < OPGEN_ROUNDS_FINITE);   /* (nan too) */
    return out != 0;
}

static bool sums_finite(int nred, const double *acc)
{
    for (int r = 0; r < nred; ++r)
        if (!isfinite(acc[r]))
            return false;
    return true;
}

/* One whole row (from off) again in double: its sums from double summands, then, where every one is finite, its
 * results written where finish_row's go.  Returns whether it wrote them: a row whose double sums are not finite
 * either (an inf or nan operand) keeps the FLOAT kernels' results, which the caller then computes. */
static __attribute__((noinline)) bool wide_row(const layout *L, const opgen_call *c, const int64_t *off, float *staging,
                                                const void *params)
{
    double acc[OPGEN_MAX_REDUCTIONS] = {0};
    row_sums_through(L, c, off, staging, acc, params, c->rowsum_wide);
    if (!sums_finite(c->nred, acc))
        return false;
    finish_row_blocks_chunked(L, c, off, staging, acc, params, c->finish_row_wide);
    return true;
}

/* The rows of a packed group (g rows of len elements one after another in src and dst, their sums at acc + r*nred)
 * whose sums leave FLOAT, again in double (wide_row), written over the FLOAT kernels' results before the block is
 * flushed.  The caller tests the group's sums first, all at once (sums_leave_float over g*nred: one vectorized
 * loop; tested row by row, softmax FLOAT rows of 64 ran 0.87x as fast in the cache). */
static __attribute__((noinline)) void wide_packed(const opgen_call *c, int64_t g, int64_t len, const opgen_src *src,
                                                  opgen_dst dst, const double *acc, const void *params)
{
    for (int64_t r = 0; r < g; ++r) {
        if (!sums_leave_float(c->nred, acc + r * c->nred))
            continue;
        opgen_src row[OPGEN_MAX_INPUTS];
        for (int k = 0; k < c->nin; ++k)
            row[k] = (opgen_src){(const char *)src[k].data + r * len * opgen_chunk_esize(src[k].dtype), src[k].dtype};
        const opgen_dst out = {(char *)dst.data + r * len * opgen_chunk_esize(dst.dtype), dst.dtype, dst.stream};
        double wide[OPGEN_MAX_REDUCTIONS] = {0};
        c->rowsum_wide(len, row, wide, params);
        if (sums_finite(c->nred, wide))
            c->finish_row_wide(len, row, wide, out, params);
    }
}

/* acc += the sums of one whole row of FLOAT blocks (staged where they must be), block by block. */
static void row_sums(const layout *L, const opgen_call *c, const int64_t *off, float *staging, double *acc,
                     const void *params)
{
    const float *in[OPGEN_MAX_INPUTS];
    for (int64_t j = 0; j < L->dlen; j += OPGEN_BLOCK) {
        const int64_t n = L->dlen - j < OPGEN_BLOCK ? L->dlen - j : OPGEN_BLOCK;
        stage_inputs(L, c->nin, off, j, L->dstride, n, staging, in);
        c->rowsum(n, in, acc, params);
    }
}

/* Can whole rows be skewed with FLOAT16/BFLOAT16 operands (finish_rowsum_chunked)?  Every operand, the output
 * too, as it is and of the output's dtype: the staging buffers could not hold two rows' blocks.  BFLOAT16 only
 * with AVX-512: its conversions take more registers than AVX2's sixteen leave for two rows at once (built without
 * AVX-512, the skewed BFLOAT16 softmax rows ran 0.87x as fast in the cache; an earlier attempt on an AMD EPYC,
 * AVX2, 0.8x at 16M elements), while FLOAT16 measured 0.96-1.03x in the cache and 1.17-1.22x at 16M there. */
static bool skews_halves(const layout *L, const opgen_call *c)
{
    const int o = L->nops - 1;
#if defined(__AVX512F__)
    const bool half = L->dtype[o] == ACL_FLOAT16 || L->dtype[o] == ACL_BF16;
#else
    const bool half = L->dtype[o] == ACL_FLOAT16;
#endif
    if (!c->finish_rowsum_chunked || !half)
        return false;
    for (int k = 0; k < L->nops; ++k)
        if (!as_is(L, k, L->dstride[k]) || L->dtype[k] != L->dtype[o])
            return false;
    return true;
}

/* Can whole rows be skewed?  Every input FLOAT in place (finish_rowsum; the output through out_target) in rows
 * longer than a block, or skews_halves.  A FLOAT row of one block is in L1 when its results are computed: summed
 * then finished, softmax rows of 1024 ran 1.14-1.42x faster than skewed at 2^18-2^24 elements (one thread, AMD
 * EPYC Zen 4; as fast as PyTorch's two passes), where rows of 32768 are 1.05-1.16x faster skewed. */
static bool skewable(const layout *L, const opgen_call *c)
{
    if (skews_halves(L, c))
        return true;
    if (!c->finish_rowsum || L->dlen <= OPGEN_BLOCK)
        return false;
    for (int k = 0; k < c->nin; ++k)
        if (!direct(L, k, L->dstride[k]))
            return false;
    return true;
}

/* The longest FLOAT16 rows whose summands are kept from their sum to their finish (finish_rowsum_stash): two
 * rows' FLOAT summands on the walk's stack, 16 KiB, written by one row's sum and read one row later while still in
 * L1/L2.  Longer rows take finish_rowsum_chunked as before (rows of 32768 would need 256 KiB). */
#define OPGEN_STASH_ROW 2048

/* Whole rows, skewed: row r's results are computed while row r + 1 is read for its sums, block by block
 * (opgen_chunks.h: opgen_skewed).  Two odometers one row apart, and two rows' sums, take turns.  FLOAT16 rows of
 * at most OPGEN_STASH_ROW elements of an op whose finish reads its sum's summand (finish_rowsum_stash): the next
 * row's summands go to stash[nxt], this row's finish reads stash[cur] (none for the walk's first row, whose sums
 * row_sums_chunked took).  The stash lives and dies with this walk: nothing is kept between calls. */
static void run_rows_skewed(const share *s, const layout *L)
{
    const opgen_call *c = s->c;
    int64_t idx[2][OPGEN_MAX_DIMS], off[2][MAXOPS];
    double acc[2][OPGEN_MAX_REDUCTIONS];
    const float *in[OPGEN_MAX_INPUTS], *next[OPGEN_MAX_INPUTS];
    opgen_src src[OPGEN_MAX_INPUTS], next_src[OPGEN_MAX_INPUTS];
    opgen_dst res_dst;
    const bool halves = skews_halves(L, c);
    const bool stashed = halves && c->finish_rowsum_stash && L->dtype[L->nops - 1] == ACL_FLOAT16 &&
                         L->dlen <= OPGEN_STASH_ROW;
    float stash[2][OPGEN_STASH_ROW] __attribute__((aligned(64)));
    if (s->begin >= s->end)
        return;
    memset(acc, 0, sizeof acc);
    seek(L, L->ndim, s->begin, idx[0], off[0]);
    memcpy(idx[1], idx[0], sizeof idx[0]);
    memcpy(off[1], off[0], sizeof off[0]);
    next_index(L, idx[1], off[1], L->ndim - 1);
    if (halves)                                              /* the first row's sums */
        row_sums_chunked(L, c, off[0], s->staging, acc[0], s->params);
    else
        row_sums(L, c, off[0], s->staging, acc[0], s->params);
    bool kept = false;   /* stash[cur] holds this row's summands (not the first row's, nor after a wide row) */
    for (int64_t r = s->begin; r < s->end; ++r) {
        const int cur = (int)((r - s->begin) & 1), nxt = cur ^ 1;
        if (sums_leave_float(c->nred, acc[cur]) && wide_row(L, c, off[cur], s->staging, s->params)) {
            if (r + 1 < s->end) {   /* (the next row's sums, which the skewed finish would have taken) */
                if (halves)
                    row_sums_chunked(L, c, off[nxt], s->staging, acc[nxt], s->params);
                else
                    row_sums(L, c, off[nxt], s->staging, acc[nxt], s->params);
            }
            kept = false;
            memset(acc[cur], 0, sizeof acc[cur]);
            next_index(L, idx[cur], off[cur], L->ndim - 1);
            next_index(L, idx[cur], off[cur], L->ndim - 1);
            continue;
        }
        for (int64_t j = 0; j < L->dlen; j += OPGEN_BLOCK) {
            const int64_t n = L->dlen - j < OPGEN_BLOCK ? L->dlen - j : OPGEN_BLOCK;
            if (halves) {   /* (every operand as it is: nothing staged; the line writer, if any, to hand on to) */
                chunk_operands(L, c->nin, off[cur], j, L->dstride, n, s->staging, src, &res_dst);
                lines_target(L, &res_dst, n);
                if (r + 1 < s->end) {
                    chunk_operands(L, c->nin, off[nxt], j, L->dstride, n, s->staging, next_src, NULL);
                    if (stashed)
                        c->finish_rowsum_stash(n, src, acc[cur], res_dst, next_src, acc[nxt],
                                               kept ? stash[cur] + j : NULL, stash[nxt] + j, s->params);
                    else
                        c->finish_rowsum_chunked(n, src, acc[cur], res_dst, next_src, acc[nxt], s->params);
                } else {
                    c->finish_row_chunked(n, src, acc[cur], res_dst, s->params);
                }
                chunk_flush(L, off[cur], j, L->dstride, n, s->staging);
                continue;
            }
            stage_inputs(L, c->nin, off[cur], j, L->dstride, n, s->staging, in);
            char *dst;
            float *res = out_target(L, off[cur], j, L->dstride, n, s->staging, &dst);
            if (r + 1 < s->end) {
                stage_inputs(L, c->nin, off[nxt], j, L->dstride, n, s->staging, next);
                c->finish_rowsum(n, in, acc[cur], res, next, acc[nxt], s->params);
            } else {
                c->finish_row(n, in, acc[cur], res, s->params);
            }
            out_flush(L, res, dst, L->dstride, n);
        }
        kept = stashed;
        memset(acc[cur], 0, sizeof acc[cur]);   /* for row r + 2 */
        next_index(L, idx[cur], off[cur], L->ndim - 1);
        next_index(L, idx[cur], off[cur], L->ndim - 1);
    }
}

/* Whole rows, the results through `lines` when the plan says so (else NULL) */
static void run_rows(const share *s, opgen_lines *lines)
{
    const opgen_call *c = s->c;
    layout L;
    make_layout(c, s->out, row_dim(c), &L);
    L.stream = s->p->stream || lines;
    L.lines = lines;
    staged_memo memo;
    memset(&memo, 0, sizeof memo);
    L.memo = &memo;
    int64_t idx[OPGEN_MAX_DIMS] = {0}, off[MAXOPS] = {0}, one[MAXOPS];
    for (int k = 0; k < L.nops; ++k)
        one[k] = 1;
    const float *in[OPGEN_MAX_INPUTS];
    double acc[OPGEN_MAX_REDUCTIONS * OPGEN_BLOCK];
    const int64_t group = packed_rows(&L), inner = L.ndim - 1;
    if (!group && skewable(&L, c)) {
        run_rows_skewed(s, &L);
        return;
    }
    const bool halves = converts(&L, L.dstride);
    seek(&L, L.ndim, s->begin, idx, off);
    for (int64_t r = s->begin; r < s->end;) {
        /* as many packed rows as fit a block, within this share and this run of the innermost dimension */
        int64_t g = group ? group : 1;
        if (g > s->end - r)
            g = s->end - r;
        if (g > L.shape[inner] - idx[inner])
            g = L.shape[inner] - idx[inner];
        if (group) {
            const int64_t n = g * L.dlen;
            memset(acc, 0, sizeof(double) * (size_t)(g * c->nred));
            if (halves) {
                opgen_src src[OPGEN_MAX_INPUTS];
                opgen_dst dst;
                chunk_operands(&L, c->nin, off, 0, one, n, s->staging, src, &dst);
                lines_target(&L, &dst, n);
                c->rows_chunked(g, L.dlen, src, acc, dst, s->params);
                if (sums_leave_float((int)(g * c->nred), acc))
                    wide_packed(c, g, L.dlen, src, dst, acc, s->params);
                chunk_flush(&L, off, 0, one, n, s->staging);
            } else {
                stage_inputs(&L, c->nin, off, 0, one, n, s->staging, in);
                char *dst;
                float *res = out_target(&L, off, 0, one, n, s->staging, &dst);
                c->rows(g, L.dlen, in, acc, res, s->params);
                if (sums_leave_float((int)(g * c->nred), acc)) {
                    opgen_src src[OPGEN_MAX_INPUTS];
                    for (int k = 0; k < c->nin; ++k)
                        src[k] = (opgen_src){in[k], ACL_FLOAT};
                    wide_packed(c, g, L.dlen, src, (opgen_dst){res, ACL_FLOAT, false}, acc, s->params);
                }
                out_flush(&L, res, dst, one, n);
            }
        } else {
            for (int i = 0; i < c->nred; ++i)
                acc[i] = 0.0;
            if (halves)
                row_sums_chunked(&L, c, off, s->staging, acc, s->params);
            else
                row_sums(&L, c, off, s->staging, acc, s->params);
            if (sums_leave_float(c->nred, acc) && wide_row(&L, c, off, s->staging, s->params)) {
                /* (written in double) */
            } else if (halves) {
                finish_row_blocks_chunked(&L, c, off, s->staging, acc, s->params, c->finish_row_chunked);
            } else {
                for (int64_t j = 0; j < L.dlen; j += OPGEN_BLOCK) {
                    const int64_t n = L.dlen - j < OPGEN_BLOCK ? L.dlen - j : OPGEN_BLOCK;
                    stage_inputs(&L, c->nin, off, j, L.dstride, n, s->staging, in);
                    char *dst;
                    float *res = out_target(&L, off, j, L.dstride, n, s->staging, &dst);
                    c->finish_row(n, in, acc, res, s->params);
                    out_flush(&L, res, dst, L.dstride, n);
                }
            }
        }
        skip_index(&L, idx, off, L.ndim - 1, g);
        r += g;
    }
}

/* Side by side: item = (outer index, tile of the innermost dimension). */
static int64_t column_items(const layout *L, int64_t tile)
{
    return outer_count(L) * blocks_of(L->shape[L->ndim - 1], tile);
}

/* Side by side with a short inner dimension, each step along dim is a call on a run of `len` elements; when every
 * operand's steps follow each other (dim's stride is len times the inner one: a contiguous (dlen, len) slab, or
 * broadcast along both), k steps are one run of k*len elements.  Then the sums go into k copies of the len
 * accumulators (copy m: the steps m, m + k, m + 2k, ... in order), folded at the end copy 0 + copy 1 + ... in
 * order, and the folded sums are set in every copy for the finishing walk.  A fixed order (k depends only on len),
 * the same for any threads; not the one-step-at-a-time order.  Returns k, or 1 when the steps are not packed.
 * SoftmaxBackward along dim 0, one thread, 2^16 elements, loaded 2-vCPU AMD EPYC, FLOAT (FLOAT16): (1024, 16)
 * 31.5 -> 7.7 us (51 -> 7.4), (8192, 8) from strided rows 142 -> 21 (133 -> 23), (32768, 2) 96 -> 24 (125 -> 26),
 * (1024, 64) 46 -> 25 (45 -> 22); PyTorch 16-220 us. */
static int64_t step_pack(const layout *L, int64_t tile)
{
    const int inner = L->ndim - 1;
    const int64_t len = L->shape[inner];
    if (tile < len || len * 2 > OPGEN_BLOCK || L->dlen < 2 || !steps_follow(L))
        return 1;
    const int64_t k = OPGEN_BLOCK / len;
    return k < L->dlen ? k : L->dlen;
}

/* The finished sums of n columns rounded to FLOAT, once per tile: finish_col takes each column's sum as FLOAT (as
 * finish_row does), and converting it there cost a conversion per element of every row and read double sums.
 * Not for finish_col64 (an op whose finish reads its sums in double): it reads the double sums as they are.
 * Returns whether a column's sum leaves FLOAT's range (wide_columns; a loop of its own over the double sums: the
 * conversion loop stays as it was). */
static bool round_sums(const opgen_call *c, double *const *acc, float *const *sums, int64_t n)
{
    int leaves = 0;
    for (int r = 0; r < c->nred; ++r) {
        const double *restrict a = acc[r];
        float *restrict f = sums[r];
        if (!c->finish_col64)
            for (int64_t i = 0; i < n; ++i)
                f[i] = (float)a[i];
        for (int64_t i = 0; i < n; ++i)
            leaves |= !(fabs(a[i]) < OPGEN_ROUNDS_FINITE);
    }
    return leaves != 0;
}

/* The columns of a tile (n from j along the inner dimension) when one's sums leave FLOAT's range (round_sums found
 * it): the tile's results, a block of columns at a time, from finish_col and then, for such a column whose sums
 * again in double from double summands are finite, from finish_col_wide's double ones (the op's colsum_wide: a
 * second walk along dim for that block).  Where every column's sums stay
 * within FLOAT the caller finishes the tile as before, bit for bit. */
static __attribute__((noinline)) void wide_columns(const share *s, const layout *L, const int64_t *off, int64_t j,
                                                   int64_t n, const int64_t *axis, double *const *acc,
                                                   float *const *sums)
{
    const opgen_call *c = s->c;
    double wide[OPGEN_MAX_REDUCTIONS][OPGEN_BLOCK];
    double *w[OPGEN_MAX_REDUCTIONS];
    const float *done[OPGEN_MAX_REDUCTIONS];
    const double *done64[OPGEN_MAX_REDUCTIONS];
    int64_t at[MAXOPS];
    opgen_src src[OPGEN_MAX_INPUTS];
    opgen_dst dst;
    for (int64_t b = 0; b < n; b += OPGEN_BLOCK) {
        const int64_t nb = n - b < OPGEN_BLOCK ? n - b : OPGEN_BLOCK;
        for (int r = 0; r < c->nred; ++r) {
            w[r] = wide[r];
            memset(wide[r], 0, sizeof(double) * (size_t)nb);
            done[r] = sums[r] + b;
            done64[r] = acc[r] + b;
        }
        for (int64_t d = 0; d < L->dlen; ++d) {
            for (int k = 0; k < L->nops; ++k)
                at[k] = off[k] + d * L->dstride[k];
            chunk_operands(L, c->nin, at, j + b, axis, nb, s->staging, src, NULL);
            c->colsum_wide(nb, src, w, s->params);
        }
        for (int64_t i = 0; i < nb; ++i) {   /* nan in wide[0]: the column keeps finish_col's results */
            bool left = false, finite = true;
            for (int r = 0; r < c->nred; ++r) {
                left |= !(fabs(acc[r][b + i]) < OPGEN_ROUNDS_FINITE);
                finite &= isfinite(wide[r][i]);
            }
            if (!(left && finite))
                wide[0][i] = NAN;
        }
        for (int64_t d = 0; d < L->dlen; ++d) {
            for (int k = 0; k < L->nops; ++k)
                at[k] = off[k] + d * L->dstride[k];
            chunk_operands(L, c->nin, at, j + b, axis, nb, s->staging, src, &dst);
            lines_target(L, &dst, nb);
            dst.stream = false;   /* (finish_col_wide stores over some of the results, plainly) */
            if (c->finish_col64)
                c->finish_col64_chunked(nb, src, done64, dst, s->params);
            else
                c->finish_col_chunked(nb, src, done, dst, s->params);
            c->finish_col_wide(nb, src, (const double *const *)w, dst, s->params);
            chunk_flush(L, at, j + b, axis, nb, s->staging);
        }
    }
}

/* One outer position side by side, `pack` steps along dim at a time (step_pack); acc: a block per sum, sums: the
 * same in FLOAT */
static void run_packed(const share *s, const layout *L, const int64_t *off, int64_t pack, bool halves,
                       double *const *acc, float *const *sums)
{
    const opgen_call *c = s->c;
    const int inner = L->ndim - 1;
    const int64_t len = L->shape[inner], width = pack * len;
    int64_t axis[MAXOPS], at[MAXOPS];
    for (int k = 0; k < L->nops; ++k)
        axis[k] = L->stride[k][inner];
    const float *in[OPGEN_MAX_INPUTS];
    opgen_src src[OPGEN_MAX_INPUTS];
    opgen_dst dst;
    for (int i = 0; i < c->nred; ++i)
        memset(acc[i], 0, sizeof(double) * (size_t)width);
    for (int64_t d = 0; d < L->dlen; d += pack) {
        const int64_t nb = (L->dlen - d < pack ? L->dlen - d : pack) * len;
        for (int k = 0; k < L->nops; ++k)
            at[k] = off[k] + d * L->dstride[k];
        if (halves) {
            chunk_operands(L, c->nin, at, 0, axis, nb, s->staging, src, &dst);
            c->colsum_chunked(nb, src, acc, s->params);
        } else {
            stage_inputs(L, c->nin, at, 0, axis, nb, s->staging, in);
            c->colsum(nb, in, acc, s->params);
        }
    }
    for (int i = 0; i < c->nred; ++i) {   /* fold the copies in order, then every copy holds the sums */
        double *a = acc[i];
        for (int64_t m = 1; m < pack; ++m)
            for (int64_t j = 0; j < len; ++j)
                a[j] += a[m * len + j];
    }
    if (round_sums(c, acc, sums, len)) {
        wide_columns(s, L, off, 0, len, axis, acc, sums);
        return;
    }
    for (int i = 0; i < c->nred; ++i)
        for (int64_t m = 1; m < pack; ++m) {
            if (c->finish_col64)
                memcpy(acc[i] + m * len, acc[i], sizeof(double) * (size_t)len);
            else
                memcpy(sums[i] + m * len, sums[i], sizeof(float) * (size_t)len);
        }
    for (int64_t d = 0; d < L->dlen; d += pack) {
        const int64_t nb = (L->dlen - d < pack ? L->dlen - d : pack) * len;
        for (int k = 0; k < L->nops; ++k)
            at[k] = off[k] + d * L->dstride[k];
        if (halves || (L->stream && !L->lines)) {
            chunk_operands(L, c->nin, at, 0, axis, nb, s->staging, src, &dst);
            lines_target(L, &dst, nb);
            if (c->finish_col64)
                c->finish_col64_chunked(nb, src, (const double *const *)acc, dst, s->params);
            else
                c->finish_col_chunked(nb, src, (const float *const *)sums, dst, s->params);
            chunk_flush(L, at, 0, axis, nb, s->staging);
        } else {
            stage_inputs(L, c->nin, at, 0, axis, nb, s->staging, in);
            char *res_at;
            float *res = out_target(L, at, 0, axis, nb, s->staging, &res_at);
            if (c->finish_col64)
                c->finish_col64(nb, in, (const double *const *)acc, res, s->params);
            else
                c->finish_col(nb, in, (const float *const *)sums, res, s->params);
            out_flush(L, res, res_at, axis, nb);
        }
    }
}

/* Side by side, the results through `lines` when the plan says so (else NULL) */
static void run_columns(const share *s, opgen_lines *lines)
{
    const opgen_call *c = s->c;
    const int64_t tile = s->p->tile;
    layout L;
    make_layout(c, s->out, row_dim(c), &L);
    L.stream = s->p->stream || lines;
    L.lines = lines;
    staged_memo memo;
    memset(&memo, 0, sizeof memo);
    L.memo = &memo;
    const int inner = L.ndim - 1;
    const int64_t len = L.shape[inner], ntiles = blocks_of(len, tile);
    int64_t idx[OPGEN_MAX_DIMS] = {0}, off[MAXOPS] = {0}, axis[MAXOPS], at[MAXOPS];
    for (int k = 0; k < L.nops; ++k)
        axis[k] = L.stride[k][inner];
    const float *in[OPGEN_MAX_INPUTS];
    opgen_src src[OPGEN_MAX_INPUTS];
    opgen_dst dst;
    const bool halves = converts(&L, axis);
    /* two rows a colsum call (colsum2: the sums loaded and stored once for both) when every input is read in place */
    bool pairs = !halves && c->colsum2;
    for (int k = 0; k < c->nin; ++k)
        pairs = pairs && direct(&L, k, axis[k]);
    const float *in2[OPGEN_MAX_INPUTS];
    int64_t at2[MAXOPS];
    double *acc[OPGEN_MAX_REDUCTIONS], *part[OPGEN_MAX_REDUCTIONS];
    float *sums[OPGEN_MAX_REDUCTIONS];
    const float *done[OPGEN_MAX_REDUCTIONS];
    const double *done64[OPGEN_MAX_REDUCTIONS];   /* (finish_col64) */
    const int64_t pack = step_pack(&L, tile), width = pack > 1 ? pack * len : tile;
    for (int i = 0; i < c->nred; ++i) {
        acc[i] = s->accs + (size_t)i * (size_t)width;
        sums[i] = s->sums + (size_t)i * (size_t)width;
    }
    int64_t item = s->begin;
    seek(&L, inner, item / ntiles, idx, off);
    while (item < s->end) {
        const int64_t j = (item % ntiles) * tile;
        const int64_t n = len - j < tile ? len - j : tile;
        if (pack > 1) {
            run_packed(s, &L, off, pack, halves, acc, sums);
            if (++item % ntiles == 0)
                next_index(&L, idx, off, inner - 1);
            continue;
        }
        for (int i = 0; i < c->nred; ++i)
            memset(acc[i], 0, sizeof(double) * (size_t)n);
        for (int64_t d = 0; d < L.dlen;) {
            const bool two = pairs && d + 1 < L.dlen;   /* rows d and d + 1 in one colsum2 call */
            for (int k = 0; k < L.nops; ++k) {
                at[k] = off[k] + d * L.dstride[k];
                at2[k] = at[k] + L.dstride[k];
            }
            for (int64_t b = 0; b < n; b += OPGEN_BLOCK) {
                const int64_t nb = n - b < OPGEN_BLOCK ? n - b : OPGEN_BLOCK;
                for (int i = 0; i < c->nred; ++i)
                    part[i] = acc[i] + b;
                if (halves) {
                    chunk_operands(&L, c->nin, at, j + b, axis, nb, s->staging, src, &dst);
                    c->colsum_chunked(nb, src, part, s->params);
                } else if (two) {   /* (every input in place: nothing staged) */
                    stage_inputs(&L, c->nin, at, j + b, axis, nb, s->staging, in);
                    stage_inputs(&L, c->nin, at2, j + b, axis, nb, s->staging, in2);
                    c->colsum2(nb, in, in2, part, s->params);
                } else {
                    stage_inputs(&L, c->nin, at, j + b, axis, nb, s->staging, in);
                    c->colsum(nb, in, part, s->params);
                }
            }
            d += two ? 2 : 1;
        }
        const bool widened = round_sums(c, acc, sums, n);
        if (widened)
            wide_columns(s, &L, off, j, n, axis, acc, sums);
        for (int64_t d = 0; !widened && d < L.dlen; ++d) {
            for (int k = 0; k < L.nops; ++k)
                at[k] = off[k] + d * L.dstride[k];
            for (int64_t b = 0; b < n; b += OPGEN_BLOCK) {
                const int64_t nb = n - b < OPGEN_BLOCK ? n - b : OPGEN_BLOCK;
                for (int i = 0; i < c->nred; ++i) {
                    done[i] = sums[i] + b;
                    done64[i] = acc[i] + b;
                }
                /* (streamed FLOAT too: the chunk loop stores each chunk's results with non-temporal stores as
                 * it goes, 1.11-1.17x faster at 16M elements than a block finished into the staging buffer
                 * and streamed from there) */
                if (halves || (L.stream && !L.lines)) {
                    chunk_operands(&L, c->nin, at, j + b, axis, nb, s->staging, src, &dst);
                    lines_target(&L, &dst, nb);
                    if (c->finish_col64)
                        c->finish_col64_chunked(nb, src, done64, dst, s->params);
                    else
                        c->finish_col_chunked(nb, src, done, dst, s->params);
                    chunk_flush(&L, at, j + b, axis, nb, s->staging);
                } else {
                    stage_inputs(&L, c->nin, at, j + b, axis, nb, s->staging, in);
                    char *res_at;
                    float *res = out_target(&L, at, j + b, axis, nb, s->staging, &res_at);
                    if (c->finish_col64)
                        c->finish_col64(nb, in, done64, res, s->params);
                    else
                        c->finish_col(nb, in, done, res, s->params);
                    out_flush(&L, res, res_at, axis, nb);
                }
            }
        }
        if (++item % ntiles == 0)
            next_index(&L, idx, off, inner - 1);
    }
}

/* A reduction's share, with a line writer of its own when the plan streams through one (a share's runs one after
 * another: the line between two runs goes out whole). */
static void run_sums(const share *s, void (*run)(const share *, opgen_lines *))
{
    if (!s->p->lines) {
        run(s, NULL);
        return;
    }
    opgen_lines lines;
    opgen_lines_start(&lines);
    run(s, &lines);
    opgen_lines_flush(&lines);
}

/* A call's work, shared by its threads: each takes the next chunk of items (a contiguous range) until none is
 * left, with scratch of its own.  Chunks rather than one range per thread: a thread that starts late or runs
 * slower (a core shared with other processes) leaves its chunks to the others.  At least CHUNKS_PER_THREAD a
 * thread, and no more than CHUNK_ELEMENTS output elements a chunk: the call ends when the last chunk does, and a
 * worker that lost its CPU midway through a chunk of 2^21 elements (a quarter of 2^24 over two threads) held the
 * caller 2.6 ms (median, 2^24 FLOAT, other processes on both cores); 2^16 elements is some 50-200 us of one
 * thread, and a chunk's start costs well under a microsecond. */
#define CHUNKS_PER_THREAD 4
#define CHUNK_ELEMENTS (INT64_C(1) << 16)

static int64_t chunk_count(int threads, int64_t units, int64_t elements)
{
    if (threads <= 1)
        return 1;
    int64_t k = (int64_t)threads * CHUNKS_PER_THREAD;
    if (elements / CHUNK_ELEMENTS > k)
        k = elements / CHUNK_ELEMENTS;
    return units < k ? units : k;
}

/* The chunks' dealer: thread t takes the chunks of its own contiguous range first (the t-th of `threads`, as
 * PyTorch's static split), then what is left of the others' ranges in turn.  Called again on the same data (a
 * loop; the bench), each thread reads the part it read last time, still in its core's cache: HardsigmoidBackward
 * FLOAT 2^16 in a loop, two threads, 7.1 us a call (median; the worker busy 6.2 us), against 11.5 us (10.2) when
 * every chunk went to whichever thread came first and the halves moved between cores from call to call (one
 * thread: 12.5 us; loaded 2-vCPU AMD EPYC, the pool's trace). */
typedef struct {
    _Alignas(64) atomic_llong next;   /* (a line each: the owner takes from it, a thief too when it is done) */
    int64_t end;
} chunk_range;

typedef struct {
    int threads;
    chunk_range range[MAX_THREADS];
} dealer;

static void dealer_start(dealer *d, int threads, int64_t chunks)
{
    d->threads = threads;
    for (int t = 0; t < threads; ++t) {
        atomic_init(&d->range[t].next, chunks * t / threads);
        d->range[t].end = chunks * (t + 1) / threads;
    }
}

/* Thread t's next chunk, or -1 when none is left; `*from` (0 at first) is the range it takes from, counted from
 * its own. */
static int64_t dealer_next(dealer *d, int t, int *from)
{
    for (; *from < d->threads; ++*from) {
        chunk_range *r = &d->range[(t + *from) % d->threads];
        if (atomic_load_explicit(&r->next, memory_order_relaxed) >= r->end)
            continue;
        const int64_t k = atomic_fetch_add_explicit(&r->next, 1, memory_order_relaxed);
        if (k < r->end)
            return k;
    }
    return -1;
}

typedef struct {
    share shares[MAX_THREADS];   /* per thread: its scratch (begin and end are set per chunk) */
    int64_t first, items, chunks;   /* items [first, first + items), in `chunks` chunks */
    dealer deal;
} work;

static void run_share(void *arg, int t)
{
    work *w = arg;
    share s = w->shares[t];
    int from = 0;
    int64_t done = 0;
    for (int64_t k; (k = dealer_next(&w->deal, t, &from)) >= 0;) {
        s.begin = w->first + w->items * k / w->chunks;
        s.end = w->first + w->items * (k + 1) / w->chunks;
        if (!s.c->nred)
            run_elementwise(&s);
        else
            run_sums(&s, s.p->rows ? run_rows : run_columns);
        if (t == 0)
            opgen_pool_progress(++done, w->chunks);   /* (wakes a sleeping worker for an expensive kernel) */
    }
#if defined(__AVX__)
    if (s.p->stream || s.p->lines)
        _mm_sfence();   /* non-temporal stores are visible to every thread once the call returns */
#endif
}

/* Split items [first, last) of a call (`elements` of its output) into chunks over the plan's threads and run them on the pool (opgen_pool.c);
 * the calling thread takes a share too.  Every item is computed by the same code whichever thread takes it, so the
 * bits do not depend on the threads.  The chunks are cut by `elements` (a folded kernel's slab: run_folded), but the
 * pool is told the whole call's size, as the plan's thread count was: whether a sleeping worker is worth waking
 * is a question about the call, not the slab.  A worker woken for the first slab is still polling (SPIN_NS) when
 * the next one is posted; told a slab's 2^15 elements, the pool would leave it asleep for the first slab of a
 * large call, and the caller would run that slab alone. */
static void run_items(const opgen_call *c, const aclTensor *out, const void *params, const plan_t *p, char *ws,
                      int64_t first, int64_t last, int64_t elements)
{
    const int64_t items = last - first;
    const int threads = (int)(items < p->threads ? (items > 0 ? items : 1) : p->threads);
    work w;
    w.first = first;
    w.items = items;
    w.chunks = chunk_count(threads, items, elements);
    dealer_start(&w.deal, threads, w.chunks);
    for (int t = 0; t < threads; ++t) {
        char *scratch = ws + (size_t)t * p->scratch_bytes;
        double *accs = (double *)(scratch + p->staging_bytes);
        float *sums = (float *)(accs + (p->acc_bytes / (sizeof(double) + sizeof(float))));
        w.shares[t] = (share){c, out, params, p, 0, 0, (float *)scratch, accs, sums};
    }
    opgen_parallel(threads, run_share, &w, opgen_numel(&c->out));
}

/* Every item of a call. */
static void run_parallel(const opgen_call *c, const aclTensor *out, const void *params, const plan_t *p, char *ws)
{
    layout L;
    make_layout(c, out, c->nred ? row_dim(c) : -1, &L);
    const int64_t items = !c->nred ? elementwise_items(&L, block_shift(&L, p->stream))
                          : p->rows ? row_items(&L) : column_items(&L, p->tile);
    run_items(c, out, params, p, ws, 0, items, opgen_numel(out));
}

static void copy_block(int64_t n, const float *const *in, float *out, const void *params)
{
    (void)params;
    memcpy(out, in[0], (size_t)n * sizeof(float));
}

static void copy_block(int64_t n, const float *const *in, float *out, const void *params);

/* The sums of the kernel's B-shaped result over the axes out was broadcast along, into `acc` (out's shape,
 * contiguous), each in double in B's row-major order: an odometer over B, which each slab moves on. */
typedef struct {
    const opgen_call *c;
    int64_t ostride[OPGEN_MAX_DIMS], idx[OPGEN_MAX_DIMS];   /* out's contiguous strides on B's axes; B's index */
    int64_t o;                                              /* out's offset at that index */
    double *acc;
} sum_back_state;

static void sum_back_start(const opgen_call *c, double *acc, sum_back_state *st)
{
    const int nd = (int)c->bndim, lead = nd - (int)c->out.ndim;
    memset(st, 0, sizeof *st);
    st->c = c;
    st->acc = acc;
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; --i) {   /* 0 where out was broadcast */
        const int j = i - lead;
        st->ostride[i] = (j < 0 || c->out.dims[j] == 1) ? 0 : s;
        if (j >= 0)
            s *= c->out.dims[j];
    }
    const int64_t no = opgen_numel(&c->out);
    for (int64_t k = 0; k < no; ++k)
        acc[k] = 0.0;
}

/* A run along B's last axis at a time: one sum in a register where out was broadcast along it (the elements of the
 * run are added to it in the same order as one by one: the same bits), else one element of out each.  (Element by
 * element through the odometer, the fold took most of PReLU's call.) */
static void sum_back(const float *values, int64_t n, void *state)
{
    sum_back_state *st = state;
    const int nd = (int)st->c->bndim;
    const int64_t *bdims = st->c->bdims;
    double *restrict acc = st->acc;
    if (nd == 0) {
        for (int64_t e = 0; e < n; ++e)
            acc[0] += (double)values[e];
        return;
    }
    int64_t idx[OPGEN_MAX_DIMS];
    memcpy(idx, st->idx, sizeof idx);
    int64_t o = st->o;
    const int64_t last = bdims[nd - 1], os = st->ostride[nd - 1];
    for (int64_t e = 0; e < n;) {
        const int64_t run = n - e < last - idx[nd - 1] ? n - e : last - idx[nd - 1];
        if (os == 0) {
            double sum = acc[o];
            for (int64_t j = 0; j < run; ++j)
                sum += (double)values[e + j];
            acc[o] = sum;
        } else {
            for (int64_t j = 0; j < run; ++j)
                acc[o + j * os] += (double)values[e + j];
        }
        e += run;
        idx[nd - 1] += run;
        o += run * os;
        if (idx[nd - 1] < last)
            continue;                          /* (the slab ended inside the run) */
        o -= last * os;
        idx[nd - 1] = 0;
        for (int i = nd - 2; i >= 0; --i) {   /* the next index of B's other axes, and out's offset with it */
            if (++idx[i] < bdims[i]) {
                o += st->ostride[i];
                break;
            }
            o -= st->ostride[i] * (idx[i] - 1);
            idx[i] = 0;
        }
    }
    memcpy(st->idx, idx, sizeof idx);
    st->o = o;
}

static aclnnStatus run_sum_to(const opgen_call *c, const void *params, char *ws)
{
    sum_to_plan s;
    plan_sum_to(c, ws, &s);
    double *acc = (double *)(ws + s.kernel_bytes + s.slab_bytes);
    sum_back_state st;
    sum_back_start(c, acc, &st);
    run_folded(&s.kernel, params, &s.kp, ws, (float *)(ws + s.kernel_bytes), sum_back, &st);
    const int64_t no = opgen_numel(&c->out);
    float *sums = (float *)acc;   /* rounded to FLOAT in place: element k's float is written after its double is read */
    for (int64_t k = 0; k < no; ++k)
        sums[k] = (float)acc[k];
    s.copy.in[0].data = acc;
    s.copy.block = copy_block;
    run_parallel(&s.copy, &c->out, NULL, &s.cp, ws + s.kernel_bytes + s.slab_bytes + s.sums_bytes);
    return ACLNN_SUCCESS;
}

/* ---- sums over the whole grid (GridSum) ----------------------------------------------------------------------------
 * Each summand is computed by its elementwise kernel over the output's shape (the elementwise walk above: any
 * layout, broadcast inputs, every dtype), a slab at a time into FLOAT (run_folded), summed in double in eight
 * lanes (add_up) and rounded once to FLOAT into the executor's copy of the params, which the kernel then reads.  Workspace:
 * the summand's scratch, then one slab. */
static opgen_call grid_call(const opgen_call *c, int j)
{
    opgen_call g;
    memset(&g, 0, sizeof g);
    g.nin = c->nin;
    memcpy(g.in, c->in, sizeof g.in);
    g.block = c->grid[j];
    g.threads = c->threads;
    g.l2_bytes = c->l2_bytes;
    g.out = contiguous_float(c->out.ndim, c->out.dims, NULL);
    return g;
}

static uint64_t grid_bytes(const opgen_call *c)
{
    opgen_call g = grid_call(c, 0);
    plan_t p;
    plan_folded(&g, &p);
    return p.scratch_bytes * (uint64_t)p.threads + slab_bytes(&g, &p);
}

/* Eight partial sums in double, element k of the grid going to lane k % 8, added up in a fixed order at the end:
 * the same bits whatever the slabs and the threads, as the rows' lanes (kernel_rows.c.jinja).  One sum added a
 * value at a time waited on each addition: 1 ns per element, CrossEntropyLossGrad's mean twice as slow as its sum
 * (2^16 elements, FLOAT). */
typedef struct {
    double lanes[8];
    int64_t at;          /* elements folded so far */
} grid_sum;

static void add_up(const float *values, int64_t n, void *state)
{
    grid_sum *g = state;
    double *restrict lanes = g->lanes;
    int64_t i = 0;
    for (; i < n && (g->at + i) % 8; ++i)    /* up to the next multiple of 8 of the grid */
        lanes[(g->at + i) % 8] += values[i];
    const int64_t whole = i + (n - i) / 8 * 8;
    for (; i < whole; i += 8)
        for (int lane = 0; lane < 8; ++lane)
            lanes[lane] += values[i + lane];
    for (; i < n; ++i)
        lanes[(g->at + i) % 8] += values[i];
    g->at += n;
}

static aclnnStatus run_grid_sums(const opgen_call *c, const void *params, void *workspace)
{
    /* the executor's own copy; in double: a kernel's sum computed in double reads it unrounded (a total weight
     * beyond FLOAT's largest, codegen.lower.wide_grid_sums), the others round it once to FLOAT */
    double *sums = (double *)(void *)((char *)(uintptr_t)params + c->grid_at);
    for (int j = 0; j < c->ngrid; ++j) {
        opgen_call g = grid_call(c, j);
        plan_t p;
        plan_folded(&g, &p);
        char *ws = workspace;
        grid_sum s = {{0}, 0};
        run_folded(&g, params, &p, ws, (float *)(ws + p.scratch_bytes * (uint64_t)p.threads), add_up, &s);
        double total = 0;
        opgen_add_lanes(1, s.lanes, &total);
        sums[j] = total;
    }
    return ACLNN_SUCCESS;
}

/* ---- one-hot outputs (opgen_call.sparse_target) ---------------------------------------------------------------
 * A class-index kernel whose result is 0 wherever the class coordinate differs from the target (NLLLossBackward:
 * Piecewise((e, classIndex == target & ...), (0, True)), codegen/backends/c/opsource.py) is computed densely at
 * C elements per sample, C - 1 of them zeros; PyTorch zeroes its output and writes one value per sample.  The
 * runtime does the same: the output zeroed (0 bits are +0 in FLOAT, FLOAT16 and BFLOAT16, what the kernel's `0`
 * rounds to), then the kernel run on the one element per sample whose class is the target's value, SPARSE_BATCH
 * samples of a run at a time (the per-sample operands read as runs, the per-class ones gathered at each
 * sample's class).  The same kernel on the same FLOAT values, so the same bits as the dense walk (no
 * multiply-add is fused in any kernel, see build.py): every other class is the kernel's 0 whatever the operands
 * hold, and a target that is no class in [0, C) (ignored, negative, not whole) matches none.  Threads take
 * units of samples (sparse_share): every element is computed by the same code whichever thread takes it.  NLLLossBackward (n/1024, 1024) at 2^20 elements, one thread, side by side with the dense walk and
 * PyTorch: FLOAT 0.29 -> 0.08 ms, FLOAT16 0.42 -> 0.04 ms (PyTorch 0.12 and 0.08).  Where the samples run along
 * unit-stride rows of a slab (NLLLoss2dBackward's pixels: (N, C, H, W), each class a row of H*W), nothing is
 * zeroed and nothing scattered: each block writes its C rows whole, its results at their classes and 0 elsewhere
 * (fill_rows): (n/1024, 16, 64, 1), one thread, side by side with the zeroing and the scatter, 1.13-1.21x at 2^16
 * and 1.43-1.61x at 2^20 in every dtype and reduction. */
#define SPARSE_BATCH 64
/* Below this many classes per sample the dense walk's extra elements cost less than a sample's gathers and
 * scattered store: about 4.5 ns a sample in the cache, where the dense walk takes about 0.45 ns an element.
 * NLLLoss2dBackward's bench layout, 16 classes of 64 pixels, one thread, side by side with the dense walk:
 * 2^16 elements 1.1-1.6x as fast, 2^20 0.95-1.5x (load average 5). */
#define SPARSE_MIN_CLASSES 16

/* Whether t's elements are exactly its numel consecutive elements in row-major order. */
static bool row_major(const aclTensor *t)
{
    int64_t expect = 1;
    for (int i = (int)t->ndim - 1; i >= 0; --i) {
        if (t->dims[i] != 1 && t->strides[i] != expect)
            return false;
        expect *= t->dims[i];
    }
    return true;
}

static bool sparse_applies(const opgen_call *c)
{
    if (!c->sparse_target || !c->classes || c->nred || c->sum_to || c->ngrid || c->wide)
        return false;
    const uint64_t axis = c->out.ndim >= 2 ? 1 : 0;
    const int64_t classes = c->out.ndim ? c->out.dims[axis] : 1;
    return classes >= SPARSE_MIN_CLASSES && classes <= (1 << 24)   /* (the FLOAT class coordinate is exact) */
           && row_major(&c->out) && opgen_numel(&c->out) > 0 && !output_overlaps(c);
}

typedef struct {
    const opgen_call *c;
    const void *params;
    int nd, axis, run;            /* the class axis; `run`: the last other dim longer than 1 (-1: one sample) */
    int64_t strides[MAXOPS][OPGEN_MAX_DIMS];
    const char *base[MAXOPS];
    int64_t blocks, items;        /* SPARSE_BATCH blocks per run; items: blocks of every run */
    int64_t slabs;                /* > 0: samples along dims after the class axis as well, a slab (a position
                                     of dim 0) a unit of work; 0: a block of samples (rows) a unit */
    bool fill;                    /* slabs whose samples run along unit-stride rows: each block writes its rows
                                     whole (fill_rows), zeros and results in one pass, and nothing is zeroed */
    int threads;
    int64_t chunks;
    dealer deal;
} sparse_work;

/* dst[j] = element off + j*rs + cls[j]*cs of an operand of dtype dt at base, as FLOAT (a loop per dtype: with
 * the switch inside, GCC kept a compare and a branch per element) */
static void gather_f32(float *dst, const char *base, int64_t off, int64_t rs, int64_t cs, const int64_t *cls,
                       int64_t m, aclDataType dt)
{
    const int64_t es = (int64_t)opgen_dtype_size(dt);
#define OPGEN_GATHER(load)                                                                                          \
    for (int64_t j = 0; j < m; ++j) {                                                                               \
        const char *p = base + (off + j * rs + cls[j] * cs) * es;                                                   \
        load;                                                                                                       \
    }
    switch (dt) {
    case ACL_FLOAT: OPGEN_GATHER(memcpy(&dst[j], p, 4)) break;
    case ACL_FLOAT16: OPGEN_GATHER(uint16_t v; memcpy(&v, p, 2); dst[j] = opgen_f16_to_f32(v)) break;
    case ACL_BF16: OPGEN_GATHER(uint16_t v; memcpy(&v, p, 2); dst[j] = opgen_bf16_to_f32(v)) break;
    default: OPGEN_GATHER(load_f32(&dst[j], p, 1, 0, dt)) break;
    }
#undef OPGEN_GATHER
}

/* res[j] to element off + j*rs + cls[j]*cs of the output (dtype dt at base) where hit[j] */
static void scatter_f32(char *base, int64_t off, int64_t rs, int64_t cs, const int64_t *cls, const bool *hit,
                        const float *res, int64_t m, aclDataType dt)
{
    const int64_t es = (int64_t)opgen_dtype_size(dt);
#define OPGEN_SCATTER(store)                                                                                        \
    for (int64_t j = 0; j < m; ++j) {                                                                               \
        char *p = base + (off + j * rs + cls[j] * cs) * es;                                                         \
        if (hit[j]) {                                                                                               \
            store;                                                                                                  \
        }                                                                                                           \
    }
    uint16_t half[SPARSE_BATCH];   /* (FLOAT16/BFLOAT16 rounded a vector at a time, as the dense walk rounds) */
    switch (dt) {
    case ACL_FLOAT: OPGEN_SCATTER(memcpy(p, &res[j], 4)) break;
    case ACL_FLOAT16:
        opgen_f32_block_to_f16(half, res, m);
        OPGEN_SCATTER(memcpy(p, &half[j], 2))
        break;
    case ACL_BF16:
        opgen_f32_block_to_bf16(half, res, m);
        OPGEN_SCATTER(memcpy(p, &half[j], 2))
        break;
    default: OPGEN_SCATTER(store_f32(p, 1, &res[j], 1, dt)) break;
    }
#undef OPGEN_SCATTER
}

/* The output's m consecutive elements at off + c*cs for every class c (a block's rows: elements of one row are
 * the block's samples, 1 apart), each sample's result at its class (key[j], -1 where it hits none) and 0 elsewhere:
 * one pass of vector stores over the rows, where zeroing the slab and scattering the results wrote each line
 * twice, the scatter an element at a time.  The same bytes: the zeros are +0 bits, as zero_bytes writes, and each
 * result's bits are copied by the select. */
static void fill_rows(char *base, int64_t off, int64_t cs, int64_t classes, const int32_t *key, const float *res,
                      int64_t m, aclDataType dt)
{
    if (dt == ACL_FLOAT) {
        for (int64_t c = 0; c < classes; ++c) {
            float *restrict row = (float *)(void *)base + off + c * cs;
            for (int64_t j = 0; j < m; ++j)
                row[j] = key[j] == (int32_t)c ? res[j] : 0.0F;
        }
        return;
    }
    uint16_t half[SPARSE_BATCH];   /* (rounded a vector at a time, as scatter_f32 and the dense walk round) */
    if (dt == ACL_FLOAT16)
        opgen_f32_block_to_f16(half, res, m);
    else
        opgen_f32_block_to_bf16(half, res, m);
    for (int64_t c = 0; c < classes; ++c) {
        uint16_t *restrict row = (uint16_t *)(void *)base + off + c * cs;
        for (int64_t j = 0; j < m; ++j)
            row[j] = key[j] == (int32_t)c ? half[j] : (uint16_t)0;
    }
}

static void sparse_block(const sparse_work *w, int64_t item)
{
    const opgen_call *c = w->c;
    const int o = c->nin, tk = c->sparse_target - 1, axis = w->axis, run = w->run;
    const aclTensor *out = &c->out;
    int64_t pos = item / w->blocks, off[MAXOPS] = {0};
    const int64_t b = item % w->blocks, len = run < 0 ? 1 : out->dims[run];
    const int64_t m = len - b * SPARSE_BATCH < SPARSE_BATCH ? len - b * SPARSE_BATCH : SPARSE_BATCH;
    for (int d = w->nd - 1; d >= 0; --d) {   /* the position of every other dim, row-major */
        if (d == axis || d == run)
            continue;
        const int64_t i = pos % out->dims[d];
        pos /= out->dims[d];
        for (int k = 0; k <= o; ++k)
            off[k] += i * w->strides[k][d];
    }
    int64_t rs[MAXOPS] = {0};
    for (int k = 0; k <= o; ++k) {
        rs[k] = run < 0 ? 0 : w->strides[k][run];
        off[k] += b * SPARSE_BATCH * rs[k];
    }
    float vals[OPGEN_MAX_INPUTS][SPARSE_BATCH], res[SPARSE_BATCH];
    const float *in[OPGEN_MAX_INPUTS] = {0};
    int64_t cls[SPARSE_BATCH];
    int32_t key[SPARSE_BATCH];   /* (fill_rows: the class a sample's result goes to, -1 for none) */
    bool hit[SPARSE_BATCH];
    for (int k = 0; k < o; ++k) {
        in[k] = vals[k];
        if (w->strides[k][axis] == 0)   /* the same at every class: a run (the target among them) */
            load_f32(vals[k], w->base[k] + off[k] * (int64_t)opgen_dtype_size(c->in[k].dtype), m, rs[k],
                     c->in[k].dtype);
    }
    const float classes = (float)out->dims[axis];
    /* (branch-free, so that it vectorizes: a class is below 2^24; `&`, not `&&`, whose control flow GCC 12 did not
     * vectorize: a scalar compare and branch per sample, a third of the BFLOAT16 walk's time at 2^20) */
    for (int64_t j = 0; j < m; ++j) {
        const float t = vals[tk][j];
        const bool in_range = (t >= 0.0F) & (t < classes);
        const int32_t whole = (int32_t)(in_range ? t : 0.0F);
        const bool h = in_range & ((float)whole == t);
        hit[j] = h;
        cls[j] = whole;
        key[j] = (whole + 1) * (int32_t)h - 1;   /* (h ? whole : -1, which GCC 12 made a branch per sample) */
    }
    for (int k = 0; k < o; ++k) {
        if (w->strides[k][axis] == 0)
            continue;
        if (k == c->classes - 1)   /* the class coordinate: the executor's FLOAT arange, element cls = cls */
            for (int64_t j = 0; j < m; ++j)
                vals[k][j] = (float)cls[j];
        else
            gather_f32(vals[k], w->base[k], off[k], rs[k], w->strides[k][axis], cls, m, c->in[k].dtype);
    }
    c->block(m, in, res, w->params);
    if (w->fill) {
        fill_rows((char *)w->base[o], off[o], w->strides[o][axis], out->dims[axis], key, res, m, out->dtype);
        return;
    }
    scatter_f32((char *)w->base[o], off[o], rs[o], w->strides[o][axis], cls, hit, res, m, out->dtype);
}

/* Zero a slab with plain vector stores, so that its lines stay in the cache for the results that follow (memset
 * may write larger ranges past the cache) */
static void zero_bytes(char *p, int64_t bytes)
{
    int64_t i = 0;
#if defined(__AVX512F__)
    for (; i + 64 <= bytes; i += 64)
        _mm512_storeu_si512((void *)(p + i), _mm512_setzero_si512());
#elif defined(__AVX__)
    for (; i + 32 <= bytes; i += 32)
        _mm256_storeu_si256((__m256i *)(void *)(p + i), _mm256_setzero_si256());
#endif
    if (i < bytes)
        memset(p + i, 0, (size_t)(bytes - i));
}

/* Each unit of work zeroes the part of the output its results go into, then writes them: a slab (a position of
 * dim 0, with every class and position after it), or a block of samples along the only other dim (rows of C,
 * one after another) or the whole output (one sample).  One pass over the output, each part still in the
 * cache when its results land, and a single parallel section: zeroing it all first, in a section of its own,
 * took two thread wake-ups a call. */
static void sparse_share(void *arg, int t)
{
    sparse_work *w = arg;
    const aclTensor *out = &w->c->out;
    const int64_t es = (int64_t)opgen_dtype_size(out->dtype), numel = opgen_numel(out);
    char *obase = (char *)w->base[w->c->nin];
    const int64_t units = w->slabs ? w->slabs : w->items;
    int from = 0;
    for (int64_t k; (k = dealer_next(&w->deal, t, &from)) >= 0;) {
        for (int64_t u = units * k / w->chunks; u < units * (k + 1) / w->chunks; ++u) {
            if (w->slabs) {
                const int64_t per = w->items / w->slabs, bytes = numel / w->slabs * es;
                if (!w->fill)
                    zero_bytes(obase + u * bytes, bytes);
                for (int64_t i = u * per; i < (u + 1) * per; ++i)
                    sparse_block(w, i);
            } else if (w->run < 0) {
                zero_bytes(obase, numel * es);
                sparse_block(w, u);
            } else {
                const int64_t len = out->dims[w->run], row = numel / len * es;   /* (C elements a sample) */
                const int64_t first = u * SPARSE_BATCH, m = len - first < SPARSE_BATCH ? len - first : SPARSE_BATCH;
                zero_bytes(obase + first * row, m * row);
                sparse_block(w, u);
            }
        }
    }
}

static aclnnStatus run_sparse(const opgen_call *c, const void *params)
{
    const aclTensor *out = &c->out;
    sparse_work w;
    w.c = c;
    w.params = params;
    w.nd = (int)out->ndim;
    w.axis = w.nd >= 2 ? 1 : 0;
    w.run = -1;
    for (int d = w.nd - 1; d >= 0 && w.run < 0; --d)
        if (d != w.axis && out->dims[d] > 1)
            w.run = d;
    for (int k = 0; k <= c->nin; ++k) {
        const aclTensor *t = k < c->nin ? &c->in[k] : out;
        if (t->ndim == 0)
            memset(w.strides[k], 0, sizeof w.strides[k]);
        else
            broadcast_strides(t, out->dims, w.nd, w.strides[k]);
        w.base[k] = (const char *)t->data + t->offset * (int64_t)opgen_dtype_size(t->dtype);
    }
    const int64_t numel = opgen_numel(out), len = w.run < 0 ? 1 : out->dims[w.run];
    w.blocks = blocks_of(len, SPARSE_BATCH);
    w.items = numel / out->dims[w.axis] / len * w.blocks;
    int64_t threads = c->threads < 1 ? 1 : (c->threads > MAX_THREADS ? MAX_THREADS : c->threads);
    if (threads > numel / MIN_ELEMENTS_PER_THREAD)
        threads = numel / MIN_ELEMENTS_PER_THREAD > 1 ? numel / MIN_ELEMENTS_PER_THREAD : 1;
    w.threads = (int)threads;
    w.slabs = w.nd >= 2 && numel / out->dims[0] > out->dims[1] ? out->dims[0] : 0;
    /* (every element of a slab is in one block's rows: the output is row-major, sparse_applies) */
    w.fill = w.slabs && w.run >= 0 && w.strides[c->nin][w.run] == 1
             && (out->dtype == ACL_FLOAT || out->dtype == ACL_FLOAT16 || out->dtype == ACL_BF16);
    const int64_t units = w.slabs ? w.slabs : w.items;
    w.chunks = chunk_count((int)threads, units, numel);
    dealer_start(&w.deal, w.threads, w.chunks);
    if (w.threads == 1)
        sparse_share(&w, 0);
    else
        opgen_parallel(w.threads, sparse_share, &w, numel);
    return ACLNN_SUCCESS;
}

aclnnStatus opgen_run_call(const opgen_call *c, const void *params, void *workspace)
{
    if (c->ngrid > 0) {
        OPGEN_TRY(run_grid_sums(c, params, workspace));
        opgen_call kernel = *c;
        kernel.ngrid = 0;
        return opgen_run_call(&kernel, params, workspace);
    }
    if (c->sum_to)
        return run_sum_to(c, params, workspace);
    if (sparse_applies(c))
        return run_sparse(c, params);
    plan_t p;
    plan(c, &p);
    char *ws = workspace;
    float *result = (float *)(ws + p.scratch_bytes * (uint64_t)p.threads);

    /* with an overlapping output, compute into a contiguous FLOAT copy of it first */
    aclTensor tmp = c->out;
    const aclTensor *out = &c->out;
    if (p.overlap) {
        tmp = opgen_contiguous_at(&c->out, 0);
        tmp.dtype = ACL_FLOAT;
        tmp.data = result;
        out = &tmp;
    }
    run_parallel(c, out, params, &p, ws);
    if (p.overlap) {
        opgen_call copy;
        memset(&copy, 0, sizeof copy);
        copy.nin = 1;
        copy.in[0] = tmp;
        copy.out = c->out;
        copy.block = copy_block;
        run_parallel(&copy, &c->out, NULL, &p, ws);
    }
    return ACLNN_SUCCESS;
}
