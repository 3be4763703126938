"""Ascend products (ascend.md §3), keyed by SoC string."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Product:
    soc: str              # SoC string used by CANN (AddConfig) and by our runtimes
    zh: str               # doc wording, Chinese
    en: str               # doc wording, English
    bf16: bool            # hardware has BFLOAT16
    data_copy_pad: bool   # Ascend C DataCopyPad exists
    ub_bytes: int | None  # unified buffer per AI core (None: not documented)
    cores: int            # vector cores used when tiling


PRODUCTS: dict[str, Product] = {p.soc: p for p in [
    Product("ascend910", "Atlas 训练系列产品", "Atlas training series", False, False, 256 * 1024, 32),
    Product("ascend310p", "Atlas 推理系列产品", "Atlas inference series", False, False, 256 * 1024, 8),
    Product("ascend910b", "Atlas A2 训练系列产品/Atlas 800I A2 推理产品",
            "Atlas A2 training series / Atlas 800I A2 inference product", True, True, 192 * 1024, 40),
    Product("ascend910_93", "Atlas A3 训练系列产品/Atlas A3 推理系列产品",
            "Atlas A3 training series / Atlas A3 inference series", True, True, 192 * 1024, 48),
    Product("ascend310b", "Atlas 200I/500 A2 推理产品", "Atlas 200I/500 A2 inference product",
            False, True, None, 1),
    # Ascend 950PR/950DT (CANN's arch35, asc-devkit's dav_3510): the UB and vector cores of its platform config
    # (Ascend950PR_9599.ini: ub_size=253952, vector_core_cnt=72; the 950DT parts have 16 to 72).  No Ascend C
    # architecture here yet (backends/ascendc/socs.py): its operators run on the NumPy and C backends.
    Product("ascend950", "Ascend 950PR/Ascend 950DT", "Ascend 950PR/Ascend 950DT", True, True, 248 * 1024, 72),
]}

DEFAULT_PRODUCT = "ascend910b"
