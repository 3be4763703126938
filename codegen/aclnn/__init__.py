"""The aclnn API an operator presents, whichever backend computes it: the two phases' C prototypes printed from the
spec's parameter list (`prototypes.py`) and what CANN's own headers say about each operator of the catalog — the
header file, `const aclrtStream`, the workspace size's name (`cann.py`); and the condition on a call's arguments
that selects a kernel variant (`variants.py`).  The C backend's headers, the Ascend C
op_api sources and the documentation pages all print the same signatures from here."""
