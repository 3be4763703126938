"""What generated Python kernels import: the argument checks and dtype helpers, shared by every op.

The same checks exist in C (generated/c/runtime); tests hold the two to identical statuses and parameters.
"""
