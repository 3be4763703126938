"""What the Ascend C API allows on each SoC, as data: the instruction selection (`lowering.py`), the tiling
budget (`tiling.py`), the kernel's conversions (`emit.py`) and the simulator's refusals all read it from here.

Every rule was read off the open asc-devkit sources (`impl/basic_api/dav_<arch>/`, `impl/basic_api/utils/
kernel_utils_constants.h`) and is checked against them by the SDK gate (tests/test_ascendc_sdk.py):

- `CompareScalar` (and its newer name `Compares`) reports "not supported" on dav-c100 (ascend910): a scalar is
  compared by broadcasting it into a tile (`Duplicate`) and using the tensor `Compare`.
- `Select` on dav-c100 has only mode 0 (`VSEL_CMPMASK_SPR`), which reads its mask from the CMPMASK register for
  every repeat of one call: a mask longer than one 256-byte repeat of data is applied one repeat per call.
  Modes 1 (tensor, scalar) and 2 (tensor, tensor) exist on dav-m200 and dav-c220.
- `Cast` float -> half: `CAST_RINT` is "not supported" on dav-c100 and dav-m200, where `CAST_NONE` rounds to
  nearest even; dav-c220 takes `CAST_RINT`.  float -> bfloat16 (dav-c220 only) needs a rounding mode
  (`CAST_NONE` is refused), so `CAST_RINT`.  Widening casts (half/bfloat16 -> float) are exact: `CAST_NONE`.
- UB: `TOTAL_UB_SIZE` bytes per core, of which the API keeps the last 8 KB (from `TMP_UB_OFFSET`) as its own
  scratch (Select modes 1/2, DataCopy ND2NZ, Brcb...): 184 KB usable of 192 KB on dav-c220, 248 KB of 256 KB on
  dav-c100/dav-m200.  A kernel's buffers must end before `TMP_UB_OFFSET`.
- `DataCopyPad` exists only on dav-c220; UB operands are 32-byte aligned; vector instructions work on whole
  256-byte repeats; a scalar write to GM (`GlobalTensor::SetValue`) goes through the data cache, so it must be
  flushed (`DataCacheCleanAndInvalid`) before the core ends, and two cores must not write the same 64-byte cache
  line.
"""
from __future__ import annotations

from dataclasses import dataclass

from codegen.spec import PRODUCTS

KB = 1024


@dataclass(frozen=True)
class Arch:
    """One AI Core architecture (the `__CCE_AICORE__` value the compiler defines) and what its API allows."""
    name: str                       # dav-c100, dav-m200, dav-c220
    aicore: int                     # __CCE_AICORE__
    npu_arch: int                   # __NPU_ARCH__ (the newer macro CANN's headers test)
    ub_bytes: int                   # TOTAL_UB_SIZE
    tmp_ub_offset: int              # TMP_UB_OFFSET: the API's scratch starts here
    compare_scalar: bool            # CompareScalar / Compares exist
    scalar_minmax: bool             # Maxs / Mins exist (asc-devkit's dav_c100 reports them not supported)
    select_modes: frozenset         # Select modes (0 VSEL_CMPMASK_SPR, 1 tensor-scalar, 2 tensor-tensor)
    data_copy_pad: bool             # DataCopyPad exists
    bf16: bool                      # bfloat16_t exists
    cast_round: dict                # narrowing float cast: {destination dtype: RoundMode}
    defines: tuple                  # what the compiler defines for this architecture's vector core

    @property
    def api_scratch_bytes(self) -> int:
        """UB bytes the API keeps for itself at the top (Select modes 1/2, ...)."""
        return self.ub_bytes - self.tmp_ub_offset

    @property
    def usable_ub(self) -> int:
        """UB bytes a kernel's own buffers may take: everything below TMP_UB_OFFSET."""
        return self.tmp_ub_offset


ARCHS = {a.name: a for a in [
    Arch("dav-c100", 100, 1001, 256 * KB, 248 * KB, compare_scalar=False, scalar_minmax=False,
         select_modes=frozenset({0}),
         data_copy_pad=False, bf16=False, cast_round={"FLOAT16": "CAST_NONE"},
         defines=("__DAV_C100__",)),
    Arch("dav-m200", 200, 2002, 256 * KB, 248 * KB, compare_scalar=True, scalar_minmax=True,
         select_modes=frozenset({0, 1, 2}),
         data_copy_pad=False, bf16=False, cast_round={"FLOAT16": "CAST_NONE"},
         defines=("__DAV_M200__",)),
    Arch("dav-c220", 220, 2201, 192 * KB, 184 * KB, compare_scalar=True, scalar_minmax=True,
         select_modes=frozenset({0, 1, 2}),
         data_copy_pad=True, bf16=True, cast_round={"FLOAT16": "CAST_RINT", "BFLOAT16": "CAST_RINT"},
         defines=("__DAV_C220__", "__DAV_C220_VEC__", "__DAV_VEC__")),
]}

# The architecture of each SoC the specs name (A2 and A3 share dav-c220).
SOC_ARCH = {"ascend910": "dav-c100", "ascend310p": "dav-m200", "ascend910b": "dav-c220", "ascend910_93": "dav-c220"}

SELECT_MODE_NAMES = {0: "VSEL_CMPMASK_SPR", 1: "VSEL_TENSOR_SCALAR_MODE", 2: "VSEL_TENSOR_TENSOR_MODE"}


def arch_of(soc: str) -> Arch:
    try:
        return ARCHS[SOC_ARCH[soc]]
    except KeyError:
        raise KeyError(f"no Ascend C architecture is known for the SoC {soc!r} (known: {sorted(SOC_ARCH)})") from None


def tiling_ub(soc: str) -> int:
    """The UB budget the tiling of `soc` may fill: the product's UB less the API's scratch."""
    a = arch_of(soc)
    assert PRODUCTS[soc].ub_bytes == a.ub_bytes, f"{soc}: products.py and socs.py disagree on the UB size"
    return a.usable_ub


def kernel_socs(op) -> list[str]:
    """The SoCs of an op's table that have an Ascend C architecture here: the project's AI Core configs.  (Atlas
    200I/500 A2, ascend310b, has none yet: HardtanhBackward runs there on the NumPy and C backends only.)"""
    return [s for s in op.dtypes if s in SOC_ARCH]


def archs_of(socs) -> list[Arch]:
    """The distinct architectures of some SoCs (those with one), in ARCHS order."""
    names = {SOC_ARCH[s] for s in socs if s in SOC_ARCH}
    return [a for n, a in ARCHS.items() if n in names]


def check_instruction(soc: str, name: str, *, mode: int | None = None, cast: tuple | None = None,
                      round_mode: str | None = None) -> None:
    """Raise ValueError (naming the instruction, the SoC and the rule) when `soc`'s API refuses it."""
    a = arch_of(soc)
    if name in ("CompareScalar", "Compares") and not a.compare_scalar:
        raise ValueError(f"{name} is not supported on {soc} ({a.name}): Duplicate the scalar and use Compare")
    if name == "Select" and mode not in a.select_modes:
        raise ValueError(f"Select mode {mode} ({SELECT_MODE_NAMES.get(mode)}) is not supported on {soc} ({a.name}); "
                         f"it has modes {sorted(a.select_modes)}")
    if name == "DataCopyPad" and not a.data_copy_pad:
        raise ValueError(f"DataCopyPad is not supported on {soc} ({a.name})")
    if name == "Cast" and cast and cast[0] == "FLOAT" and cast[1] != "FLOAT":
        want = a.cast_round.get(cast[1])
        if want is None:
            raise ValueError(f"Cast FLOAT -> {cast[1]} is not supported on {soc} ({a.name})")
        if round_mode != want:
            raise ValueError(f"Cast FLOAT -> {cast[1]} with {round_mode} is not supported on {soc} ({a.name}); "
                             f"it takes {want}")
