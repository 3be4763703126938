"""The Ascend C backend: CANN custom-op projects (`generated/ascendc/<op>/`), run here on a CPU simulator.

    generate(ops, source_of)   the projects: op_host (OpDef, tiling), op_kernel (the kernel), sim (launcher)
    make_kernel(op)            the NumPy backend's callable, but computing with the generated kernel on the
                               simulator of the selected `product=` (codegen.backends.ascendc.binding)
    SimulatorError             a kernel broke a hardware rule on the simulator
    products(op)               the products of the op's table it runs on: those with an AI Core architecture here

Parts: `lowering.py` (SymPy → vector instructions, UB temporaries), `tiling.py` (the tiling function, evaluated
in Python and printed as C++), `emit.py` + `op_host.py` + `templates/` (the project files), `simulator/` (the
header-only Ascend C simulator), `build.py` (compile and cache by content in build/ascendc/), `binding.py`.
"""
from .binding import SimulatorError, executable, make_kernel, run_kernel
from .build import BuildError
from .emit import generate, project_files
from .plan import plan
from .socs import kernel_socs as products

__all__ = ["generate", "make_kernel", "SimulatorError", "BuildError", "executable", "run_kernel", "plan",
           "project_files", "products"]
