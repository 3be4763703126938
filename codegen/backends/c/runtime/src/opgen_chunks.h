/* opgen_chunks.h — a kernel function (elementwise `block`, or a row-sum function) run over contiguous operands
 * in their own dtype, OPGEN_CHUNK elements at a time.
 *
 * Why chunks: converting a whole 1024-element block of FLOAT16 inputs into FLOAT, computing, then converting the
 * results back reads memory in bursts separated by arithmetic, and measured 1.5-1.8x slower than a fused loop
 * (Softshrink FLOAT16, one thread, 16M elements).  Converting 64 elements just before the kernel reads them, and
 * rounding its 64 results right after, keeps the memory streams busy like a fused loop does (measured within a
 * few percent of it), while the kernel itself stays the one FLOAT function the compiler vectorizes.  opgen_chunked
 * is inlined with the kernel into each of an op's `*_chunked` entries (the function pointer is a constant
 * there), so a chunk costs no call.
 *
 * Conversions are those of opgen_half.h (correctly rounded, nan kept): results are bit-identical to the
 * block-wise path. */
#ifndef OPGEN_CHUNKS_H_
#define OPGEN_CHUNKS_H_

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "opgen_half.h"
#include "opgen_runtime.h"

#if defined(__AVX__)
#include <immintrin.h>
#endif

#define OPGEN_CHUNK 64   /* elements: 2 cache lines of FLOAT16, 4 of FLOAT; measured best of 32-256 */
_Static_assert(OPGEN_CHUNK % 32 == 0, "opgen_stream_aligned stores whole 32-byte vectors of 16 halves; the "
               "BFLOAT16 even/odd order works on 32 values");

/* A row sum's partial sums per summand (the kernels' rowsum_lanes): in a block of at least OPGEN_WIDE_ROW elements
 * element i goes to lane i % OPGEN_ROW_LANES, so every chunk of such a block must start at a multiple of it for the
 * sums to be those of the whole block; shorter blocks keep eight lanes (opgen_row_width).  Rows packed several to a
 * block (opgen_loops.c: packed_rows, at most OPGEN_BLOCK / 2 long) are therefore always of eight lanes. */
#define OPGEN_ROW_LANES 32
#define OPGEN_WIDE_ROW (OPGEN_BLOCK / 2 + 1)
/* The row length the packed short-row kernels (rows, rows_f16, rows_chunked) compile a copy of with the length
 * known, their loops unrolled whole without alias checks or tails: softmax rows of 64 1.05-1.2x faster in the cache
 * (FLOAT 1.2x, FLOAT16 1.1-1.2x, BFLOAT16 1.05x), LogSoftmaxBackward's 1.05-1.2x, the same bits (one thread, side
 * by side, AMD EPYC Zen 4) */
#define OPGEN_UNROLLED_ROW 64
_Static_assert(OPGEN_CHUNK % OPGEN_ROW_LANES == 0, "a row's chunks start at multiples of OPGEN_ROW_LANES");

/* Tests only: built with -DOPGEN_COUNT_STREAMS, the non-temporal stores add the bytes they write to
 * opgen_streamed_bytes (opgen_runtime.c), so that a test can tell which calls stream: the values are the same
 * either way, and a call that should stream but does not is only slower (tests/test_c_values.py).  An empty
 * statement otherwise. */
#if defined(OPGEN_COUNT_STREAMS)
extern int64_t opgen_streamed_bytes;
#define OPGEN_STREAMED(bytes) ((void)__atomic_fetch_add(&opgen_streamed_bytes, (int64_t)(bytes), __ATOMIC_RELAXED))
#else
#define OPGEN_STREAMED(bytes) ((void)sizeof(bytes))   /* (names its operands, evaluates nothing) */
#endif
/* The same build counts the calls of the elementwise 2-D entry (opgen_chunked_rows) in opgen_elementwise_calls, so
 * that a test can tell a thread's share went in one call (tests/test_c_values.py). */
#if defined(OPGEN_COUNT_STREAMS)
extern int64_t opgen_elementwise_calls;
#define OPGEN_ELEMENTWISE_CALL() ((void)__atomic_fetch_add(&opgen_elementwise_calls, 1, __ATOMIC_RELAXED))
#else
#define OPGEN_ELEMENTWISE_CALL() ((void)0)
#endif

/* Bytes per element of a chunked operand (FLOAT, FLOAT16 or BFLOAT16): opgen_dtype_size, inlined. */
static inline int64_t opgen_chunk_esize(aclDataType dt) { return dt == ACL_FLOAT ? 4 : 2; }

/* Software prefetch, OPGEN_PREFETCH_AHEAD bytes ahead of where a stream is read: ask for the cache lines of
 * [p, p + bytes) that far ahead.  A kernel runs several times the instructions of a copy loop per byte, so the
 * out-of-order window reaches fewer bytes ahead of its loads, and the hardware prefetchers start over at every
 * 4 KiB page; asked for 1 KiB ahead of every input, memory keeps more lines in flight.  Measured at 16M elements,
 * one thread, side by side (Intel Xeon with AVX-512): FLOAT16/BFLOAT16 kernels 1.04-1.18x, softmax FLOAT rows
 * 1.06-1.10x (whole FLOAT rows only with AVX-512: see opgen_skewed); 512 bytes ahead gained less, 2 KiB about as
 * much, 4 KiB less.  Built without AVX-512, the chunk loops gained 1.0-1.1x.  (Not for FLOAT blocks read whole by
 * the elementwise and side-by-side walks: prefetching the next block there measured 0.97-1.03x.) */
#define OPGEN_PREFETCH_AHEAD 1024
static inline __attribute__((always_inline)) void opgen_prefetch(const void *p, int64_t bytes)
{
    for (int64_t b = 0; b < bytes; b += 64)
        __builtin_prefetch((const char *)p + OPGEN_PREFETCH_AHEAD + b);
}

/* FLOAT16 row sums with 256-bit registers.  Where the CPU has AVX-512, the compiler vectorizes the kernels with
 * 512-bit registers, and while 512-bit instructions are in flight an Intel core issues vector instructions to two
 * ports instead of three (ports 0 and 1 work as one).  That pays off wherever 16 lanes save instructions, but not
 * in the FLOAT16 row sums, whose double-precision partial sums take 256-bit halves anyway: the op's FLOAT16 row
 * entries (softmax along the last dim, skewed and packed rows) are compiled for 256-bit registers (OPGEN_F16_ROWS)
 * and their chunk loops convert 8 values at a time with F16C (`all` = OPGEN_F16_256: a 32-byte load of a 64-byte
 * conversion store would forward, but the 64-byte conversion itself would bring back the 512-bit instructions).
 * Softmax FLOAT16 rows of 1024 and 32768 measured 1.03-1.07x faster at 16M elements and 1.06-1.22x in the cache
 * (rows of 64: 1.0; one thread, Intel Xeon, side by side); BFLOAT16 rows so compiled ran 0.8x in the cache, so
 * they keep 512 bits.  (noinline: GCC otherwise inlines them into their callers, which are compiled for the
 * default width.) */
#define OPGEN_F16_256 ((aclDataType)-2)
#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__)
#define OPGEN_F16_ROWS __attribute__((noinline, target("prefer-vector-width=256")))
#define OPGEN_F16_ROWS_DTYPE OPGEN_F16_256
#else
#define OPGEN_F16_ROWS
#define OPGEN_F16_ROWS_DTYPE ACL_FLOAT16
#endif
/* The skewed FLOAT16 rows (finish_rowsum_f16: a row finished while the next one is summed, rows longer than half a
 * block) keep 512-bit registers where GCC tunes for AMD Zen (-march=native on a Zen 4; GCC 12 calls it znver3 with
 * AVX-512).  There no port stops while 512-bit instructions are in flight, and a FLOAT16 conversion costs the same
 * per instruction at either width (a loop of them in L1: vcvtph2ps 0.036 ns per element at 256 bits, 0.020 at
 * 512; vcvtps2ph 0.062 and 0.032), and the conversions were the skewed loop's time: 32 vcvtph2ps and 8 vcvtps2ph
 * per 64 elements at 256 bits (each element converted for its row sum and again for its result), where PyTorch's
 * two passes at 512 bits convert as often with half the instructions.  Softmax FLOAT16 rows of 1024 and 32768,
 * one thread, side by side with the 256-bit build: 1.14-1.29x at 2^16-2^20, 1.25-1.30x in the cache (AMD EPYC
 * Zen 4).  The packed short rows (rows_f16) stay at 256 there too: rows of 64 ran 0.90x at 512. */
#if defined(__AVX512F__) && (defined(__tune_znver3__) || defined(__tune_znver4__) || defined(__tune_znver5__))
#define OPGEN_F16_SKEWED __attribute__((noinline))
#define OPGEN_F16_SKEWED_DTYPE ACL_FLOAT16
#else
#define OPGEN_F16_SKEWED OPGEN_F16_ROWS
#define OPGEN_F16_SKEWED_DTYPE OPGEN_F16_ROWS_DTYPE
#endif
/* The FLOAT16 row entries of an op whose results are computed in double (a sum that cancels, computed wider than
 * FLOAT: LogSoftmaxBackward's g - e^y sum g, opgen_exp_f64) keep 512-bit registers: there the double arithmetic,
 * not the conversions, is the work, and at 256 bits it takes twice the instructions.  LogSoftmaxBackward FLOAT16
 * rows of 64 and 1024 ran 1.16-1.36x faster so compiled (one thread, AMD EPYC Zen 4, side by side).  And with a
 * 256-bit entry in the file GCC 12 kept opgen_exp_f64 out of line, so that CrossEntropyLossGrad's chunked FLOAT16
 * and BFLOAT16 rows called it one element at a time: without, 6.2-7.7x faster at 2^20 (reductions none and sum). */
#define OPGEN_F64_ROWS __attribute__((noinline))
#define OPGEN_F64_ROWS_DTYPE ACL_FLOAT16
/* Such an op's narrow row sums also keep their loop over groups of eight rolled (OPGEN_ROLLED): unrolled whole in a
 * chunk of its packed BFLOAT16 rows (a constant 64 elements), GCC 12 vectorized the eight lanes of LogSoftmaxBackward
 * as eight scalar chains of conversions and additions (a third of the time); rolled, LogSoftmaxBackward BFLOAT16
 * rows of 64 ran 1.24-1.43x faster, while softmax's FLOAT16 rows, whose sums vectorize unrolled, ran 0.81-0.85x
 * so compiled, so they keep it (one thread, AMD EPYC Zen 4, side by side). */
#if defined(__GNUC__) && !defined(__clang__)
#define OPGEN_ROLLED _Pragma("GCC unroll 1")
#else
#define OPGEN_ROLLED
#endif

/* Store n FLOAT values at dst, contiguous, as dtype dt (rounding to nearest even). */
static inline __attribute__((always_inline)) void opgen_store_contiguous(char *dst, const float *src, int64_t n,
                                                                         aclDataType dt)
{
    if (dt == OPGEN_F16_256) {
        opgen_f32_block_to_f16_256((uint16_t *)(void *)dst, src, n);
        return;
    }
    switch (dt) {
    case ACL_FLOAT16: opgen_f32_block_to_f16((uint16_t *)(void *)dst, src, n); break;
    case ACL_BF16: opgen_f32_block_to_bf16((uint16_t *)(void *)dst, src, n); break;
    default:   /* (a loop, not memcpy: the compiler inlines it for a chunk's constant n) */
        for (int64_t i = 0; i < n; ++i)
            ((float *)(void *)dst)[i] = src[i];
        break;
    }
}

/* The same with non-temporal stores: the lines go to memory without being read first (a plain store reads each
 * line before writing it) and without evicting the inputs from the cache.  For outputs much larger than the
 * cache, which nobody will read back soon (opgen_loops.c: plan()).  Elements before dst's first 32-byte boundary
 * and after the last whole vector are stored plainly.  dst is aligned to dt's size. */
static inline __attribute__((always_inline)) void opgen_stream_contiguous(char *dst, const float *src, int64_t n,
                                                                          aclDataType dt)
{
#if defined(__AVX__)
    const int64_t es = opgen_chunk_esize(dt);
    int64_t i = 0;
    while (i < n && ((uintptr_t)(dst + i * es) & 31) != 0)
        ++i;
    opgen_store_contiguous(dst, src, i, dt);
    const int64_t head = i;
    if (dt == ACL_FLOAT) {
        for (; i + 8 <= n; i += 8)
            _mm256_stream_ps((float *)(void *)(dst + 4 * i), _mm256_loadu_ps(src + i));
    } else if (dt == ACL_FLOAT16 || dt == OPGEN_F16_256) {
#if defined(__F16C__)
        for (; i + 8 <= n; i += 8)
            _mm_stream_si128((__m128i *)(void *)(dst + 2 * i), opgen_f32x8_to_f16(src + i));
#endif
    } else if (dt == ACL_BF16) {
#if defined(__AVX2__)
        for (; i + 16 <= n; i += 16)
            _mm256_stream_si256((__m256i *)(void *)(dst + 2 * i), opgen_f32x16_to_bf16(src + i));
#endif
    }
    OPGEN_STREAMED((i - head) * es);
    opgen_store_contiguous(dst + i * es, src + i, n - i, dt);
#else
    opgen_store_contiguous(dst, src, n, dt);
#endif
}

/* A writer of whole cache lines, for streamed outputs whose runs do not start on lines (rows of 1000, or an
 * array 16 bytes into a line, as NumPy places large ones; opgen_loops.c: plan).  The results of a block are
 * computed into `buf` at the offset their destination has in its line, so that every line of buf is a line of
 * the output, and each line goes out by a non-temporal store once it is complete.  The line a row shares with
 * the next waits in buf until the next row fills it, so it too is streamed.  (Written by plain stores at each
 * end of every row instead, with non-temporal ones between, softmax FLOAT16 rows 16 bytes past a line measured
 * 0.45-0.86x as fast as with plain stores only.)  Bytes not written here — before the first run, after the last,
 * where the runs are not one after another (another thread's rows) — never go out with a line: the partial lines
 * around them take plain stores of this writer's bytes only (opgen_lines_flush). */
#define OPGEN_LINES_BYTES (OPGEN_BLOCK * 4 + 64)
typedef struct opgen_lines {
    char *base;                                    /* the output line at buf[0] (NULL: nothing pending) */
    int64_t from, fill;                            /* buf[from, fill) hold results; buf[0, from) are not ours */
    char buf[OPGEN_LINES_BYTES] __attribute__((aligned(64)));
} opgen_lines;

static inline void opgen_lines_start(opgen_lines *w)
{
    w->base = NULL;
    w->from = w->fill = 0;
}

/* Send out buf's complete lines (the first with plain stores if it is not wholly ours) and keep the partial last
 * one at buf[0]. */
static inline void opgen_lines_drain(opgen_lines *w)
{
    const int64_t lines = w->fill / 64;
    if (lines == 0)
        return;
    int64_t i = 0;
    if (w->from > 0) {
        memcpy(w->base + w->from, w->buf + w->from, (size_t)(64 - w->from));
        i = 1;
    }
    for (; i < lines; ++i) {
#if defined(__AVX512F__)
        _mm512_stream_si512((void *)(w->base + 64 * i), _mm512_load_si512((const void *)(w->buf + 64 * i)));
#elif defined(__AVX__)
        _mm256_stream_si256((__m256i *)(void *)(w->base + 64 * i),
                            _mm256_load_si256((const __m256i *)(const void *)(w->buf + 64 * i)));
        _mm256_stream_si256((__m256i *)(void *)(w->base + 64 * i + 32),
                            _mm256_load_si256((const __m256i *)(const void *)(w->buf + 64 * i + 32)));
#else
        memcpy(w->base + 64 * i, w->buf + 64 * i, 64);
#endif
        OPGEN_STREAMED(64);
    }
    memcpy(w->buf, w->buf + 64 * lines, 64);      /* (the partial last line; a constant size: inlined) */
    w->base += 64 * lines;
    w->fill -= 64 * lines;
    w->from = 0;
}

/* Store what is pending: the complete lines, then the bytes put of the partial last one, plainly. */
static inline void opgen_lines_flush(opgen_lines *w)
{
    if (!w->base)
        return;
    opgen_lines_drain(w);
    if (w->fill > w->from)
        memcpy(w->base + w->from, w->buf + w->from, (size_t)(w->fill - w->from));
    opgen_lines_start(w);
}

/* Where to write the next `bytes` bytes of results, which belong at dst (at most OPGEN_BLOCK FLOAT values' worth;
 * 4-byte aligned); opgen_lines_wrote(w, bytes) once they are there.  A dst that does not follow the last results
 * starts over. */
static inline char *opgen_lines_at(opgen_lines *w, char *dst, int64_t bytes)
{
    if (!w->base || dst != w->base + w->fill) {
        opgen_lines_flush(w);
        w->from = w->fill = (int64_t)((uintptr_t)dst & 63);
        w->base = (char *)((uintptr_t)dst & ~(uintptr_t)63);   /* (the line may begin before the tensor) */
    }
    if (w->fill + bytes > OPGEN_LINES_BYTES)
        opgen_lines_drain(w);
    return w->buf + w->fill;
}

static inline void opgen_lines_wrote(opgen_lines *w, int64_t bytes)
{
    w->fill += bytes;
    opgen_lines_drain(w);
}

/* Elements [at, at + m) of an operand as FLOAT: in place when it is FLOAT, else converted into buf.  `all` is
 * every operand's dtype when the caller knows it (a constant: the switch folds away), else OPGEN_MIXED, or
 * OPGEN_F16_256 (see OPGEN_F16_ROWS).  `unpacked`: BFLOAT16 out of order (opgen_chunk; m a multiple of 32). */
#define OPGEN_MIXED ((aclDataType)-1)
static inline __attribute__((always_inline)) const float *opgen_chunk_load(float *buf, opgen_src s, int64_t at,
                                                                           int64_t m, aclDataType all,
                                                                           bool unpacked)
{
    (void)unpacked;   /* (read only with AVX2) */
    if (all == OPGEN_F16_256) {
        opgen_f16_block_to_f32_256(buf, (const uint16_t *)s.data + at, m);
        return buf;
    }
    switch (all == OPGEN_MIXED ? s.dtype : all) {
    case ACL_FLOAT16: opgen_f16_block_to_f32(buf, (const uint16_t *)s.data + at, m); return buf;
    case ACL_BF16:
#if defined(__AVX512F__)
        if (unpacked) {
            for (int64_t j = 0; j < m; j += 32)
                opgen_bf16x32_to_f32_evenodd(buf + j, (const uint16_t *)s.data + at + j);
            return buf;
        }
#elif defined(__AVX2__)
        if (unpacked) {
            for (int64_t j = 0; j < m; j += 16)
                opgen_bf16x16_to_f32_unpacked(buf + j, (const uint16_t *)s.data + at + j);
            return buf;
        }
#endif
        opgen_bf16_block_to_f32(buf, (const uint16_t *)s.data + at, m);
        return buf;
    default: return (const float *)s.data + at;
    }
}

/* A kernel function as opgen_chunked and opgen_chunked_reads call it: elements [at, at + n) of the block, the
 * inputs as FLOAT from in[k][0], the results to out[0] (NULL for a kernel that only reads).  The op's adapters
 * pass it on to `block`, rowsum, colsum, finish_row or finish_col, `at` locating the accumulators of rows side by
 * side. */
typedef void (*opgen_chunk_fn)(int64_t at, int64_t n, const float *const *in, float *out, const void *args);

/* How opgen_chunk writes its results, a constant for the compiler: not at all (a kernel that only reads, like
 * rowsum), as out.stream says (checked per chunk), with plain stores, or with non-temporal stores to a 32-byte
 * aligned destination (no head or tail to peel). */
enum { OPGEN_STORE_NONE, OPGEN_STORE_ANY, OPGEN_STORE_PLAIN, OPGEN_STORE_STREAM_ALIGNED };

/* n (a multiple of 16) FLOAT values to dst, 32-byte aligned, as dtype dt, with non-temporal stores. */
static inline __attribute__((always_inline)) void opgen_stream_aligned(char *dst, const float *src, int64_t n,
                                                                       aclDataType dt)
{
#if defined(__AVX2__) && defined(__F16C__)
    for (int64_t i = 0; i < n; i += 16) {
        if (dt == ACL_FLOAT) {
            _mm256_stream_ps((float *)(void *)(dst + 4 * i), _mm256_loadu_ps(src + i));
            _mm256_stream_ps((float *)(void *)(dst + 4 * i + 32), _mm256_loadu_ps(src + i + 8));
        } else if (dt == ACL_FLOAT16 || dt == OPGEN_F16_256) {
            _mm256_stream_si256((__m256i *)(void *)(dst + 2 * i),
                                _mm256_set_m128i(opgen_f32x8_to_f16(src + i + 8), opgen_f32x8_to_f16(src + i)));
        } else {
            _mm256_stream_si256((__m256i *)(void *)(dst + 2 * i), opgen_f32x16_to_bf16(src + i));
        }
    }
    OPGEN_STREAMED(n * opgen_chunk_esize(dt));
#else
    opgen_stream_contiguous(dst, src, n, dt);
#endif
}

/* One chunk of m elements from `at`: the inputs as FLOAT (buf[k] when converted), the results in place or through
 * buf[nin].  Inlined by opgen_chunk_loop with m = OPGEN_CHUNK, a constant, so that the compiler unrolls every loop
 * and drops their remainders (a chunk has only ~60 cycles to spend: FLOAT16 streams at about one element per
 * cycle), and once for the last, shorter chunk.  `elementwise`: `block` computes each result from the inputs at
 * the same position only, so that whole BFLOAT16 chunks may go through it in unpack order. */
static inline __attribute__((always_inline)) void opgen_chunk(int64_t at, int64_t m, int nin, const opgen_src *in,
                                                              opgen_dst out, const void *params,
                                                              opgen_chunk_fn block, float (*buf)[OPGEN_CHUNK],
                                                              aclDataType all, int store, bool elementwise)
{
    /* (BFLOAT16 out of order: AVX2's unpack order, AVX-512's even/odd order, see opgen_half.h) */
#if defined(__AVX2__)
    const bool unpacked = elementwise && all == ACL_BF16 && m == OPGEN_CHUNK && store != OPGEN_STORE_NONE;
#else
    const bool unpacked = false;
    (void)elementwise;
#endif
    const float *ptr[OPGEN_MAX_INPUTS];
    for (int k = 0; k < nin && m <= OPGEN_CHUNK; ++k) {   /* (not for a whole FLOAT block called at once) */
        const int64_t es = opgen_chunk_esize(all == OPGEN_MIXED ? in[k].dtype : all);
        opgen_prefetch((const char *)in[k].data + at * es, m * es);
    }
    for (int k = 0; k < nin; ++k)
        ptr[k] = opgen_chunk_load(buf[k], in[k], at, m, all, unpacked);
    if (store == OPGEN_STORE_NONE) {
        block(at, m, ptr, NULL, params);
        return;
    }
    const aclDataType odt = all == OPGEN_MIXED ? out.dtype : all;
    const bool stream = store == OPGEN_STORE_ANY ? out.stream : store == OPGEN_STORE_STREAM_ALIGNED;
    if (odt == ACL_FLOAT && !stream) {
        block(at, m, ptr, (float *)out.data + at, params);
        return;
    }
    block(at, m, ptr, buf[nin], params);
    char *dst = (char *)out.data + at * opgen_chunk_esize(odt);
#if defined(__AVX512F__)
    if (unpacked) {
        for (int64_t j = 0; j < m; j += 32) {
            const __m512i v = opgen_f32x32_evenodd_to_bf16(buf[nin] + j);
            if (store == OPGEN_STORE_STREAM_ALIGNED) {   /* (dst is 32-byte aligned) */
                _mm256_stream_si256((__m256i *)(void *)(dst + 2 * j), _mm512_castsi512_si256(v));
                _mm256_stream_si256((__m256i *)(void *)(dst + 2 * j + 32), _mm512_extracti64x4_epi64(v, 1));
            } else {
                _mm512_storeu_si512((void *)(dst + 2 * j), v);
            }
        }
        if (store == OPGEN_STORE_STREAM_ALIGNED)
            OPGEN_STREAMED(2 * m);
        return;
    }
#elif defined(__AVX2__)
    if (unpacked) {
        for (int64_t j = 0; j < m; j += 16) {
            const __m256i v = opgen_f32x16_unpacked_to_bf16(buf[nin] + j);
            if (store == OPGEN_STORE_STREAM_ALIGNED)
                _mm256_stream_si256((__m256i *)(void *)(dst + 2 * j), v);
            else
                _mm256_storeu_si256((__m256i *)(void *)(dst + 2 * j), v);
        }
        if (store == OPGEN_STORE_STREAM_ALIGNED)
            OPGEN_STREAMED(2 * m);
        return;
    }
#endif
    if (store == OPGEN_STORE_STREAM_ALIGNED && m == OPGEN_CHUNK)
        opgen_stream_aligned(dst, buf[nin], m, odt);
    else if (stream)
        opgen_stream_contiguous(dst, buf[nin], m, odt);
    else
        opgen_store_contiguous(dst, buf[nin], m, odt);
}

/* opgen_chunked's loop over elements [from, from + n), for operands of dtype `all` (OPGEN_MIXED: each its own)
 * and results stored as `store` says; without `convert`, one call for them all. */
static inline __attribute__((always_inline)) void opgen_chunk_loop(int64_t from, int64_t n, int nin,
                                                                   const opgen_src *in, opgen_dst out,
                                                                   const void *params, opgen_chunk_fn block,
                                                                   bool convert, aclDataType all, int store,
                                                                   bool elementwise)
{
    /* (a buffer per chunk: its contents die with the chunk, so that the compiler may keep them in registers) */
    const int64_t end = from + n;
    int64_t at = from;
    if (convert)
        for (; at + OPGEN_CHUNK <= end; at += OPGEN_CHUNK) {
            float buf[OPGEN_MAX_INPUTS + 1][OPGEN_CHUNK] __attribute__((aligned(32)));
            opgen_chunk(at, OPGEN_CHUNK, nin, in, out, params, block, buf, all, store, elementwise);
        }
    if (at < end) {
        float buf[OPGEN_MAX_INPUTS + 1][OPGEN_CHUNK] __attribute__((aligned(32)));
        opgen_chunk(at, end - at, nin, in, out, params, block, buf, all, store, elementwise);
    }
}

/* The dtype every operand has — the inputs and, unless NULL, the output — or OPGEN_MIXED: what the chunk
 * loops are compiled for (opgen_chunked). */
static inline aclDataType opgen_common_dtype(int nin, const opgen_src *in, const opgen_dst *out)
{
    const aclDataType dt = out ? out->dtype : (nin > 0 ? in[0].dtype : ACL_FLOAT);
    for (int k = 0; k < nin; ++k)
        if (in[k].dtype != dt)
            return OPGEN_MIXED;
    return dt;
}

/* block(at, m, in, out, params) over n elements of contiguous operands, a chunk [at, at + m) at a time
 * (`elementwise`: see opgen_chunk).
 *
 * When every operand is FLOAT16, or every one BFLOAT16 (the usual case), the loop is compiled for that dtype and
 * for the way the results are stored: then a chunk is straight-line code in which the compiler keeps the
 * converted inputs and the results in registers.  With a runtime dtype switch per operand, or a store that may
 * have to peel an unaligned head, the compiler writes every converted vector to `buf` and reads it back, and
 * these extra stores alone measured 1.2-1.4x slower (ELU FLOAT16, one thread, 16M elements): while loads wait on
 * memory, stores that cannot retire fill the store queue and stop the core from issuing the loads further
 * ahead. */
static inline __attribute__((always_inline)) void opgen_chunked(int64_t n, int nin, const opgen_src *in,
                                                                opgen_dst out, const void *params,
                                                                opgen_chunk_fn block, bool elementwise)
{
    const aclDataType all = opgen_common_dtype(nin, in, &out);
    const bool f16 = all == ACL_FLOAT16, bf16 = all == ACL_BF16, f32 = all == ACL_FLOAT;
    /* nothing to convert (FLOAT read and written in place): one call for the whole block, as the plain
     * functions get it (chunks would only add their overhead; measured ~10% slower for softmax FLOAT rows) */
    const bool convert = !f32 || out.stream;
    /* (full chunks start at multiples of OPGEN_CHUNK elements from out.data, 128 bytes of FLOAT16, 256 of FLOAT:
     * when out.data is 32-byte aligned, so is every full chunk) */
    const bool aligned = ((uintptr_t)out.data & 31) == 0;
    if (f16 && !out.stream)
        opgen_chunk_loop(0, n, nin, in, out, params, block, true, ACL_FLOAT16, OPGEN_STORE_PLAIN, elementwise);
    else if (f16 && aligned)
        opgen_chunk_loop(0, n, nin, in, out, params, block, true, ACL_FLOAT16, OPGEN_STORE_STREAM_ALIGNED,
                         elementwise);
    else if (bf16 && !out.stream)
        opgen_chunk_loop(0, n, nin, in, out, params, block, true, ACL_BF16, OPGEN_STORE_PLAIN, elementwise);
    else if (bf16 && aligned)
        opgen_chunk_loop(0, n, nin, in, out, params, block, true, ACL_BF16, OPGEN_STORE_STREAM_ALIGNED,
                         elementwise);
    else if (f32 && out.stream && aligned)   /* (FLOAT in place: chunks only for the non-temporal stores) */
        opgen_chunk_loop(0, n, nin, in, out, params, block, true, ACL_FLOAT, OPGEN_STORE_STREAM_ALIGNED,
                         elementwise);
    else
        opgen_chunk_loop(0, n, nin, in, out, params, block, convert, OPGEN_MIXED, OPGEN_STORE_ANY, elementwise);
}

/* opgen_chunked over `rows` rows of n elements, row r of input k at in[k].data + r * step[k] elements (0: the same
 * row for every r), of out at out.data + r * step[nin]: the elementwise kernels' 2-D entry (opgen_chunked_fn).
 * One call for a thread's share where the loops made a call per row before: Softshrink's gradOutput broadcast
 * along the rows of (1024, 1024), or a scalar gradOutput staged once into a block and read as OPGEN_BLOCK-element
 * rows of step 0 (SmoothL1Loss mean/sum).  Each row is exactly the one-row call (the same chunks, the same bits). */
static inline __attribute__((always_inline)) void opgen_chunked_rows(int64_t rows, int64_t n, int nin,
                                                                     const opgen_src *in, const int64_t *step,
                                                                     opgen_dst out, const void *params,
                                                                     opgen_chunk_fn block)
{
    OPGEN_ELEMENTWISE_CALL();
    if (rows == 1) {
        opgen_chunked(n, nin, in, out, params, block, true);
        return;
    }
    opgen_src row[OPGEN_MAX_INPUTS];
    for (int k = 0; k < nin; ++k)
        row[k] = in[k];
    for (int64_t r = 0; r < rows; ++r) {
        opgen_chunked(n, nin, row, out, params, block, true);
        for (int k = 0; k < nin; ++k)
            row[k].data = (const char *)row[k].data + step[k] * opgen_chunk_esize(row[k].dtype);
        out.data = (char *)out.data + step[nin] * opgen_chunk_esize(out.dtype);
    }
}

/* Whether any of the n FLOAT16 or BFLOAT16 values at p (dtype dt) is +-inf or nan: the largest of their
 * magnitudes' bits against the first non-finite one's, an integer max (no branch per element).  With AVX-512, four
 * maxima side by side: one, as GCC vectorizes the plain loop, waits on the one before it, and measured 1.2x slower
 * in opgen_chunked_rows_rare (BFLOAT16, in the cache).  Any other dtype answers true. */
typedef uint16_t opgen_bits16 __attribute__((may_alias));
static inline __attribute__((always_inline)) bool opgen_nonfinite(const void *p, int64_t n, aclDataType dt)
{
    if (dt != ACL_FLOAT16 && dt != ACL_BF16)
        return true;
    const uint16_t first = dt == ACL_FLOAT16 ? 0x7c00u : 0x7f80u;
    int64_t i = 0;
#if defined(__AVX512BW__)
    const __m512i mask = _mm512_set1_epi16(0x7fff);
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
    for (const char *c = p; i + 128 <= n; i += 128) {
        a0 = _mm512_max_epu16(a0, _mm512_and_si512(_mm512_loadu_si512(c + 2 * i), mask));
        a1 = _mm512_max_epu16(a1, _mm512_and_si512(_mm512_loadu_si512(c + 2 * i + 64), mask));
        a2 = _mm512_max_epu16(a2, _mm512_and_si512(_mm512_loadu_si512(c + 2 * i + 128), mask));
        a3 = _mm512_max_epu16(a3, _mm512_and_si512(_mm512_loadu_si512(c + 2 * i + 192), mask));
    }
    if (_mm512_cmpge_epu16_mask(_mm512_max_epu16(_mm512_max_epu16(a0, a1), _mm512_max_epu16(a2, a3)),
                                _mm512_set1_epi16((short)first)))
        return true;
#endif
    const opgen_bits16 *h = p;
    uint16_t most = 0;
    for (; i < n; ++i) {
        const uint16_t a = (uint16_t)(h[i] & 0x7fffu);
        most = a > most ? a : most;
    }
    return most >= first;
}

/* opgen_chunked_rows for a kernel with a rare form (codegen.scaled: rare_path), where every operand is FLOAT16 or
 * every one BFLOAT16: `plain` over a span of OPGEN_RARE_SPAN elements, then, only where one of the span's results
 * is not finite, `rare` over the span again, its results written over plain's.  `rare` is the kernel's own block
 * (the plain products with a check of each result, then the products L*g scaled where |L| > max only for a block
 * with one not finite: opsource._plain_form) and `plain` the products alone, which are rare's results bit for
 * bit wherever no L left FLOAT; an L that left FLOAT makes plain's result +-inf or nan (or a result rounds to
 * +-inf in the half dtype: the span is redone for nothing), which the look at the span's results
 * (opgen_nonfinite, in the cache right after they were written) finds.  An output never overlaps an input here
 * (opgen_loops.c computes an overlapping one in the workspace), so the inputs read again are the same.  The look
 * costs a vector max per 32 results, once per span: the select per element cost MseLossBackward BFLOAT16
 * 0.58-0.8x, and a flag reduced per 64-element chunk as much (perf25).  The spans' chunks are the row's (the same
 * bits).  Everything else takes `rare` alone: FLOAT blocks (a look at FLOAT results read back measured 0.8x),
 * mixed dtypes, and a streamed output (not in the cache to look at afterwards): the kernel's own entry `whole`
 * (rare's chunks) there.  (The check in each 64-element chunk alone measured ELU and KlDivTarget halves 0.75-0.81x
 * this, unify.) */
#define OPGEN_RARE_SPAN 2048
_Static_assert(OPGEN_RARE_SPAN % OPGEN_CHUNK == 0, "a span's chunks are the row's chunks");
static inline __attribute__((always_inline)) void opgen_chunked_rows_rare(int64_t rows, int64_t n, int nin,
                                                                          const opgen_src *in, const int64_t *step,
                                                                          opgen_dst out, const void *params,
                                                                          opgen_chunk_fn plain, opgen_chunk_fn rare,
                                                                          opgen_chunked_fn whole)
{
    const aclDataType all = opgen_common_dtype(nin, in, &out);
    if (out.stream || (all != ACL_FLOAT16 && all != ACL_BF16)) {
        whole(rows, n, in, step, out, params);
        return;
    }
    OPGEN_ELEMENTWISE_CALL();
    const int64_t es = opgen_chunk_esize(all);
    opgen_src span[OPGEN_MAX_INPUTS];
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t at = 0; at < n; at += OPGEN_RARE_SPAN) {
            const int64_t m = n - at < OPGEN_RARE_SPAN ? n - at : OPGEN_RARE_SPAN;
            for (int k = 0; k < nin; ++k) {
                span[k] = in[k];
                span[k].data = (const char *)in[k].data + ((rows > 1 ? r * step[k] : 0) + at) * es;
            }
            opgen_dst o = out;
            o.data = (char *)out.data + ((rows > 1 ? r * step[nin] : 0) + at) * es;
            opgen_chunked(m, nin, span, o, params, plain, true);
            if (__builtin_expect(opgen_nonfinite(o.data, m, all), 0))
                opgen_chunked(m, nin, span, o, params, rare, true);
        }
}

/* The same for a kernel that only reads (rowsum, colsum): fn(at, m, in, NULL, params). */
static inline __attribute__((always_inline)) void opgen_chunked_reads(int64_t n, int nin, const opgen_src *in,
                                                                      const void *params, opgen_chunk_fn fn)
{
    const aclDataType all = opgen_common_dtype(nin, in, NULL);
    const opgen_dst none = {NULL, ACL_FLOAT, false};
    if (all == ACL_FLOAT16)
        opgen_chunk_loop(0, n, nin, in, none, params, fn, true, ACL_FLOAT16, OPGEN_STORE_NONE, false);
    else if (all == ACL_BF16)
        opgen_chunk_loop(0, n, nin, in, none, params, fn, true, ACL_BF16, OPGEN_STORE_NONE, false);
    else
        opgen_chunk_loop(0, n, nin, in, none, params, fn, all != ACL_FLOAT, OPGEN_MIXED, OPGEN_STORE_NONE, false);
}

/* Two FLOAT rows of the same length at once, in place, a chunk of each in turn: `sum` reads chunk [at, at + m)
 * of the next row (next), then `finish` computes the same chunk of this row (in, out).  A row is read twice,
 * once for its sums and once for its results; one after the other, memory reads a row in a burst, then idles
 * while its results are written from the cache.  Skewed, the next row's reads overlap this row's writes, as in
 * the one pass of an elementwise kernel.  (FLOAT16/BFLOAT16 rows: opgen_skewed_loop below.) */
static inline __attribute__((always_inline)) void opgen_skewed(int64_t n, int nin, const float *const *in,
                                                               float *out, const void *args, opgen_chunk_fn finish,
                                                               const float *const *next, const void *next_args,
                                                               opgen_chunk_fn sum)
{
    const float *cur_at[OPGEN_MAX_INPUTS], *next_at[OPGEN_MAX_INPUTS];
    for (int64_t at = 0; at < n; at += OPGEN_CHUNK) {
        for (int k = 0; k < nin; ++k) {
            cur_at[k] = in[k] + at;
            next_at[k] = next[k] + at;
#if defined(__AVX512F__)
            /* (cur_at is in the cache.  Built without AVX-512 these rows measured 0.93-1.0x with the prefetch, rows
             * of 32768 the slower, where the AVX-512 build gains 1.07-1.10x: the Intel Xeon, 16M elements) */
            opgen_prefetch(next_at[k], OPGEN_CHUNK * (int64_t)sizeof(float));
#endif
        }
        if (at + OPGEN_CHUNK <= n) {   /* a constant length: the compiler unrolls both loops */
            sum(at, OPGEN_CHUNK, next_at, NULL, next_args);
            finish(at, OPGEN_CHUNK, cur_at, out + at, args);
        } else {
            sum(at, n - at, next_at, NULL, next_args);
            finish(at, n - at, cur_at, out + at, args);
        }
    }
}

/* How many of a row's n results at out to write with non-temporal stores (out.stream: opgen_loops.c, plan): those
 * of its whole cache lines, [0, body), when the row starts on a line, else none (0); the rest take plain stores.
 * A row that starts inside a line is not streamed here: with its partial first and last lines written plainly
 * (no line mixing the two kinds of stores), softmax FLOAT16 rows still ran 0.45-0.86x as fast as with plain
 * stores only (16M elements, rows 16 bytes past a line, as NumPy places large arrays).  Such rows stream through
 * the line writer instead (opgen_lines), which hands the loop a buffer of its own as `out`. */
static inline int64_t opgen_stream_span(opgen_dst out, int64_t n)
{
    const int64_t es = opgen_chunk_esize(out.dtype);
    if (!out.stream || (uintptr_t)out.data % 64 != 0)
        return 0;
    return n * es / 64 * 64 / es;
}

/* opgen_skewed_loop (below) over elements [from, to) of the two rows, the results stored as `store` says */
static inline __attribute__((always_inline)) void opgen_skewed_span(int64_t from, int64_t to, int nin,
                                                                    const opgen_src *in, opgen_dst out,
                                                                    const void *args, opgen_chunk_fn finish,
                                                                    const opgen_src *next, const void *next_args,
                                                                    opgen_chunk_fn sum, aclDataType all, int store)
{
    const opgen_dst none = {NULL, all, false};
    int64_t at = from;
    for (; at + OPGEN_CHUNK <= to; at += OPGEN_CHUNK) {
        float buf[OPGEN_MAX_INPUTS + 1][OPGEN_CHUNK] __attribute__((aligned(64)));
        opgen_chunk(at, OPGEN_CHUNK, nin, next, none, next_args, sum, buf, all, OPGEN_STORE_NONE, false);
        opgen_chunk(at, OPGEN_CHUNK, nin, in, out, args, finish, buf, all, store, true);
    }
    if (at < to) {
        float buf[OPGEN_MAX_INPUTS + 1][OPGEN_CHUNK] __attribute__((aligned(64)));
        opgen_chunk(at, to - at, nin, next, none, next_args, sum, buf, all, OPGEN_STORE_NONE, false);
        opgen_chunk(at, to - at, nin, in, out, args, finish, buf, all, store, true);
    }
}

/* opgen_skewed over contiguous operands that are all FLOAT16 or all BFLOAT16 (the output too), a chunk of each
 * row in turn, converted as opgen_chunked converts them (the loop compiled for that dtype).  The results are
 * stored plainly, or streamed where the row starts on a cache line (opgen_stream_span).  Measured against the
 * chunked passes one after the other: softmax rows of 1024 and 32768, one thread, 16M elements, 1.05-1.3x faster
 * (Intel Xeon with AVX-512).  BFLOAT16 rows are skewed only with AVX-512 (opgen_loops.c: skews_halves).  `finish`
 * is elementwise (a row's result at i from the inputs at i and the row's sums), so its BFLOAT16 chunks may go out
 * of order (opgen_chunk): 1.03-1.09x in the cache, as rows of 1024 in opgen_rows_loop. */
static inline __attribute__((always_inline)) void opgen_skewed_loop(int64_t n, int nin, const opgen_src *in,
                                                                    opgen_dst out, const void *args,
                                                                    opgen_chunk_fn finish, const opgen_src *next,
                                                                    const void *next_args, opgen_chunk_fn sum,
                                                                    aclDataType all)
{
    /* (the sums' chunks start where the results' do, at 0 and at `body`, a multiple of 32 elements: each element
     * still goes to lane i % OPGEN_ROW_LANES of the row) */
    const int64_t body = opgen_stream_span(out, n);
    opgen_skewed_span(0, body, nin, in, out, args, finish, next, next_args, sum, all, OPGEN_STORE_STREAM_ALIGNED);
    opgen_skewed_span(body, n, nin, in, out, args, finish, next, next_args, sum, all, OPGEN_STORE_PLAIN);
}

/* The row-sum kernels as chunk functions, for opgen_chunked(_reads): the sums travel with the kernel's params. */
typedef struct {
    const void *params;
    const double *acc;            /* finish_row: the row's sums */
    double *lanes;                /* rowsum: the partial sums */
    double *const *accs;          /* colsum, finish_col: the sums of rows side by side, from the block's start */
    float *stash;                 /* the row's summands kept, from the block's start (opgen_finish_rowsum_stash_fn):
                                     rowsum's written, finish_row's read */
} opgen_row_args;

/* The lanes per sum of a block (rowsum_lanes): 32 in blocks of at least OPGEN_WIDE_ROW elements, else 8.  A
 * function of the block's length only, which every path (whole blocks, chunks, skewed rows, packed short rows)
 * knows: the sums stay a fixed function of the data. */
static inline int64_t opgen_row_width(bool wide)
{
    return wide ? OPGEN_ROW_LANES : 8;
}

/* Zero the lanes of nred sums (a memset of a constant length in each branch: of opgen_row_width's, a call) */
static inline void opgen_clear_row_lanes(double *lanes, int nred, bool wide)
{
    if (wide)
        memset(lanes, 0, sizeof(double) * OPGEN_ROW_LANES * (size_t)nred);
    else
        memset(lanes, 0, sizeof(double) * 8 * (size_t)nred);
}

/* acc[r] += the sum of lanes[8r .. 8r+8), pairwise in a fixed order (the grid sums: opgen_loops.c). */
static inline void opgen_add_lanes(int nred, const double *lanes, double *acc)
{
    for (int r = 0; r < nred; ++r) {
        const double *s = lanes + 8 * r;
        acc[r] += ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    }
}

/* Four doubles, for opgen_add_row_lanes (GCC's and Clang's vector extension: lane-wise IEEE adds, the same bits
 * on every ISA; the compiler picks the instructions). */
typedef double opgen_v4d __attribute__((vector_size(32)));

/* acc[r] += the sum of a row sum's lanes s = lanes[width r ..] (rowsum_lanes; width = opgen_row_width(wide)) in a
 * fixed order.  Eight lanes: as opgen_add_lanes.  32: v[l] = (s[l] + s[l+8]) + (s[l+16] + s[l+24]) for l < 8,
 * w[l] = v[l] + v[l+4] for l < 4, then (w[0] + w[2]) + (w[1] + w[3]), as vectors of four (written one lane at a
 * time, GCC 12 emitted 32 scalar loads and 31 scalar adds of the lanes it had just stored as vectors). */
static inline void opgen_add_row_lanes(int nred, const double *lanes, double *acc, bool wide)
{
    _Static_assert(OPGEN_ROW_LANES == 32, "opgen_add_row_lanes adds up 32 lanes");
    if (!wide) {
        opgen_add_lanes(nred, lanes, acc);
        return;
    }
    for (int r = 0; r < nred; ++r) {
        opgen_v4d q[8];
        memcpy(q, lanes + OPGEN_ROW_LANES * r, sizeof q);
        const opgen_v4d w = ((q[0] + q[2]) + (q[4] + q[6])) + ((q[1] + q[3]) + (q[5] + q[7]));
        acc[r] += (w[0] + w[2]) + (w[1] + w[3]);
    }
}

/* Short rows packed one after another (row r at element r * len of every operand and of out, its nred sums at
 * acc + r * nred, zeroed), over contiguous operands in their own dtypes: row r + 1 summed, then row r finished,
 * as the FLOAT `rows` does, each row a chunk loop compiled for the operands' dtype `all`.  One call per group of
 * rows: called row by row (rowsum_chunked, finish_row_chunked), with a dtype dispatch and copied operand records
 * each time, softmax rows of 64 ran 1.14-1.2x slower (16M elements, one thread).  `finish` is elementwise, as in
 * opgen_skewed_loop: BFLOAT16 rows of 64 finished out of order ran 1.07x faster in the cache, 1.2x built with
 * AVX2 only.  `stash` (else NULL): the chunk functions' opgen_row_args.stash, OPGEN_BLOCK elements from the
 * group's first, where `sum` keeps each element's summand for `finish` (kernel_stash.c.jinja: rows_stash_f16). */
static inline __attribute__((always_inline)) void opgen_rows_loop(int64_t rows, int64_t len, int nin,
                                                                  const opgen_src *in, opgen_dst out, double *acc,
                                                                  int nred, const void *params,
                                                                  opgen_chunk_fn finish, opgen_chunk_fn sum,
                                                                  aclDataType all, float *stash)
{
    const opgen_dst none = {NULL, ACL_FLOAT, false};
    for (int64_t r = -1; r < rows; ++r) {
        if (r + 1 < rows) {   /* (packed rows: eight lanes, see OPGEN_WIDE_ROW) */
            double lanes[8 * OPGEN_MAX_REDUCTIONS] = {0};
            const opgen_row_args args = {params, NULL, lanes, NULL, stash};
            opgen_chunk_loop((r + 1) * len, len, nin, in, none, &args, sum, true, all, OPGEN_STORE_NONE, false);
            opgen_add_row_lanes(nred, lanes, acc + (r + 1) * nred, false);
        }
        if (r >= 0) {
            const opgen_row_args args = {params, acc + r * nred, NULL, NULL, stash};
            const opgen_dst row = {(char *)out.data + r * len * opgen_chunk_esize(out.dtype), out.dtype,
                                   out.stream};
            const int64_t body = opgen_stream_span(row, len);
            opgen_chunk_loop(r * len, body, nin, in, out, &args, finish, true, all, OPGEN_STORE_STREAM_ALIGNED,
                             true);
            opgen_chunk_loop(r * len + body, len - body, nin, in, out, &args, finish, true, all, OPGEN_STORE_PLAIN,
                             true);
        }
    }
}

/* opgen_rows_loop compiled for all-BFLOAT16 operands, else for mixed ones (all FLOAT16: the op's rows_f16 calls
 * opgen_rows_loop itself, see OPGEN_F16_ROWS) */
static inline __attribute__((always_inline)) void opgen_rows_chunked(int64_t rows, int64_t len, int nin,
                                                                     const opgen_src *in, opgen_dst out,
                                                                     double *acc, int nred, const void *params,
                                                                     opgen_chunk_fn finish, opgen_chunk_fn sum)
{
    const aclDataType all = opgen_common_dtype(nin, in, &out);
    if (all == ACL_BF16)
        opgen_rows_loop(rows, len, nin, in, out, acc, nred, params, finish, sum, ACL_BF16, NULL);
    else
        opgen_rows_loop(rows, len, nin, in, out, acc, nred, params, finish, sum, OPGEN_MIXED, NULL);
}

#endif /* OPGEN_CHUNKS_H_ */
