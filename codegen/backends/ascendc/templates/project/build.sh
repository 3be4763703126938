#!/bin/bash
# Build this CANN custom operator package: configure with the `default` preset of CMakePresets.json (set
# ASCEND_CANN_PACKAGE_PATH and ASCEND_COMPUTE_UNIT there, or pass -D overrides as arguments), then build the
# kernels and the package: build_out/custom_opp_<os>_<arch>.run.  Needs CMake >= 3.19 and a CANN toolkit
# (`source <cann>/set_env.sh` first).
set -euo pipefail
cd "$(dirname "$0")"
cmake -S . -B build_out --preset=default "$@"
cmake --build build_out --target binary package -j"$(nproc)"
