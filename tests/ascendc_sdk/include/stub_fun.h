// Stand-in for CANN's closed `stub_fun.h`: the AI Core intrinsics (vadd, vconv_f322f16r, copy_gm_to_ubuf,
// set_flag, ...) and the CPU-debug runtime's buffer-tracking hooks (AscendCBufInit, ...).
//
// In CANN these run on a functional model of the core (tikicpulib).  Here every one is a no-op returning 0: the
// SDK gate checks that the open headers accept a kernel (it compiles) and that their own checks pass when each
// tiling key is launched (ASCENDC_ASSERT, "not supported", value ranges, which run *before* the intrinsic is
// called) — it does not compute values; the opgen simulator does that.  The names are the ones the open headers
// call for the architectures opgen targets (dav-c100, dav-m200, dav-c220), listed in opgen_intrinsics.inc.
#pragma once
#include "stub_def.h"

#define OPGEN_INTRINSIC(name) \
    template <typename... A>  \
    inline int64_t name(A&&...) { return 0; }
#include "opgen_intrinsics.inc"
#undef OPGEN_INTRINSIC

// The launch's block index and count, as tikicpulib's functional model returns them (GetBlockNum() calls
// get_block_num() on every architecture, GetBlockIdx() calls get_block_idx() on dav-c220).  A constant 0 here made
// every block its launch's first and none its last: a kernel's last-core share was never taken.
inline int64_t get_block_idx() { return block_idx; }
inline int64_t get_block_num() { return block_num; }
