"""The SDK gate's support (tests/test_ascendc_sdk.py): stand-ins for what CANN's CPU-debug build takes from
the closed tikicpulib (include/, opgen_sdk_stubs.cpp) and the CANN package directory assembled from the public
sources for CANN's CMake flow (cann_tree.py)."""
