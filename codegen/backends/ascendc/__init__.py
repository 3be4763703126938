"""The Ascend C backend: CANN custom-op projects (`generated/ascendc/<op>/`), run here on a CPU simulator.

    generate(ops, source_of)   the projects: op_host (OpDef, tiling), op_kernel (the kernel), sim (launcher)
    make_kernel(op)            the NumPy backend's callable, but computing with the generated kernel on the
                               simulator of the selected `product=` (codegen.backends.ascendc.binding)
    kernel_variant(product)    the architecture a product's kernel is compiled for
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
from .socs import arch_of, kernel_socs as products


def kernel_variant(product: str) -> str:
    """What makes this backend's kernel differ between products: the AI Core architecture it is compiled for
    (codegen.accuracy.runner.distinct_products runs one product per variant in the fast accuracy run)."""
    return arch_of(product).name


__all__ = ["generate", "make_kernel", "SimulatorError", "BuildError", "executable", "run_kernel", "plan",
           "project_files", "products", "kernel_variant"]
