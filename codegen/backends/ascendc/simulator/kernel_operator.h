// opgen's CPU simulator of the Ascend C API subset that generated kernels use (header only).
//
// Written from the public Ascend C documentation.  It models what the hardware punishes: a fixed UB per product,
// 32-byte aligned UB operands, DataCopy rounding lengths down to 32 bytes, DataCopyPad only on A2/A3, Compare on
// whole 256-byte blocks, the TQue protocol, device-memory bounds, and every block index of a launch.  Broken
// rules throw AscendC::sim::Error (see opgen_sim/state.h).  Compile with -D__CCE_AICORE__=100|200|220 for the
// architecture of the target product (ascend910 | ascend310p | ascend910b and ascend910_93).
#pragma once
#include <cstdint>

#define __aicore__
#define __global__
#define __gm__
using GM_ADDR = uint8_t*;

#include "opgen_sim/types.h"
#include "opgen_sim/state.h"
#include "opgen_sim/memory.h"
#include "opgen_sim/copy.h"
#include "opgen_sim/vector.h"
#include "opgen_sim/launch.h"
