// Stand-in for CANN's closed `stub_def.h` (shipped with tikicpulib, the CPU-debug library of the CANN toolkit).
//
// The open asc-devkit headers include it in CPU-debug mode (-DASCENDC_CPU_DEBUG=1) for what the bisheng
// compiler otherwise provides: the address-space keywords (empty on a CPU), the compiler's enums (pipes,
// events, cache-line and conversion modes), the 16-bit float types, and the per-core globals (block_idx,
// g_coreType...).  Only names the open headers use are declared; values of the enums only need to be distinct.
// Written for opgen's SDK gate (tests/test_ascendc_sdk.py); nothing here comes from CANN.
#pragma once
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

// ---- keywords of the AI Core dialect: empty on a CPU -----------------------------------------------------
#define __aicore__
#define __global__
#define __gm__
#define __ubuf__
#define __cbuf__
#define __ca__
#define __cb__
#define __cc__
#define __fbuf__
#define __ssbuf__
#define __host__
#define __host_aicore__
#define __simd_callee__
#define __simd_vf__
#define __BLOCK_LOCAL__
#define __WORKGROUP_LOCAL__
#define __disable_kernel_type_autoinfer__
#define __inout_pipe__(...)
#define __in_pipe__(...)
#define __out_pipe__(...)
#define __sync_alias__
#define __sync_noalias__
#define __sync_out__
#define __sync_in__
#define __check_sync_alias__
#define ASCENDC_HOST_AICORE
typedef uint8_t* GM_ADDR;

// ---- the compiler's enums --------------------------------------------------------------------------------
enum pipe_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4, PIPE_MTE5, PIPE_V2, PIPE_FIX, PIPE_NUM };
enum event_t { EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };
enum class QuantMode_t { NoQuant, F322F16, F322BF16, DEQF16, VDEQF16, QF322B8_PRE, VQF322B8_PRE, REQ8, VREQ8, DEQS16,
    VDEQS16, QF162B8_PRE, VQF162B8_PRE, QF162S16_PRE, VQF162S16_PRE, QF162S4_PRE, VQF162S4_PRE, REQ4, VREQ4,
    QF322F16_PRE, VQF322F16_PRE, QF322BF16_PRE, VQF322BF16_PRE, QS322BF16_PRE, VQS322BF16_PRE, QF322F32_PRE,
    VQF322F32_PRE, QF322FP8_PRE, VQF322FP8_PRE, QF322HIF8_PRE, VQF322HIF8_PRE, QF322HIF8_PRE_HYBRID,
    VQF322HIF8_PRE_HYBRID };
enum class cache_line_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class dcci_dst_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
enum addr_cal_mode_t { inc = 0, dec };
enum Order_t { VALUE_INDEX = 0, INDEX_VALUE, ONLY_VALUE, ONLY_INDEX };
enum vtype_va_t { VA0 = 0, VA1, VA2, VA3, VA4, VA5, VA6, VA7 };
enum pad_t { PAD_NONE = 0, PAD_MODE1, PAD_MODE2, PAD_MODE3, PAD_MODE4, PAD_MODE5, PAD_MODE6, PAD_MODE7, PAD_MODE8 };
enum mem_t { L1 = 0, L0A, L0B, L0C, UB, BIAS };
enum mem_dsb_t { DSB_ALL = 0, DSB_DDR, DSB_UB, DSB_SEQ };
enum atomic_type_t { ATOMIC_NONE = 0, ATOMIC_F32, ATOMIC_F16, ATOMIC_S16, ATOMIC_S32, ATOMIC_S8, ATOMIC_BF16 };
enum atomic_op_t { ATOMIC_SUM = 0, ATOMIC_MAX, ATOMIC_MIN };
enum ld_va_half_t { L128 = 0, H128 };
enum ConvRelu_t { CRMODE_NONE = 0, CRMODE_F32toF16_NONE, CRMODE_F32toF16_RELU, CRMODE_S32toF16_NONE,
    CRMODE_F16toF32_NONE, CRMODE_NONE_RELU, CRMODE_F16_MUL, CRMODE_S32toF16_DEQSCALE_SPR, CRMODE_DEQSCALE_VDEQ8,
    CRMODE_DEQSCALE_DEQ8, CRMODE_DEQSCALE_VDEQ16, CRMODE_DEQSCALE_DEQ16, CRMODE_DEQSCALE_VDEQS16,
    CRMODE_DEQSCALE_DEQS16 };
enum csize_t { CSIZE0 = 0, CSIZE1 };

// ---- register types of the newer architectures (declared, never used by the products opgen targets) -------
struct vector_align {};
struct vector_bool {};
struct vector_address {};

// ---- storage types ---------------------------------------------------------------------------------------
// IEEE binary16 and bfloat16 as 16-bit patterns; conversions round to nearest even (opgen_sdk_stubs.cpp).
struct half {
    uint16_t bits = 0;
    half() = default;
    half(float f);
    operator float() const;
    float ToFloat() const { return float(*this); }
};
struct bfloat16_t {
    uint16_t bits = 0;
    bfloat16_t() = default;
    bfloat16_t(float f);
    operator float() const;
    float ToFloat() const { return float(*this); }
};
struct fp8_e8m0_t { uint8_t v; };
struct fp8_e5m2_t { uint8_t v; };
struct fp8_e4m3fn_t { uint8_t v; };
struct fp4x2_e2m1_t { uint8_t v; };
struct fp4x2_e1m2_t { uint8_t v; };

// ---- per-core state the CPU-debug runtime keeps (set by the launcher for each block) ----------------------
inline int64_t block_idx = 0;
inline int64_t block_num = 1;
inline int64_t sub_block_idx = 0;
inline int64_t g_taskRation = 1;
inline uint64_t g_fixpipeNdNzParam = 0;
inline int32_t g_coreType = 2;  // AscendC::AIV: the vector core
namespace AscendC {
constexpr int32_t MIX_TYPE = 0;
constexpr int32_t AIC_TYPE = 1;
constexpr int32_t AIV_TYPE = 2;
inline bool g_isVdeq = false;
}  // namespace AscendC
