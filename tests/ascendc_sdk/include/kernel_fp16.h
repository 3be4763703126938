// Stand-in for the closed CPU-debug header kernel_fp16.h: its types (half, bfloat16_t) are declared in stub_def.h.
#pragma once
#include "stub_def.h"
