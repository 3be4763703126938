"""The products section and every dtype × product statement, read from the spec's dtype table."""
from __future__ import annotations

from codegen.spec import PRODUCTS


def product_rows(op, lang: str) -> list[tuple[str, bool]]:
    """[(product wording, supported)] for every known product, in `codegen.spec.products` order."""
    return [(getattr(p, lang), soc in op.dtypes) for soc, p in PRODUCTS.items()]


def dtype_groups(table: dict, lang: str) -> list[tuple[list[str], list[str]]]:
    """[(product wordings, dtypes)]: products with the same dtype list share one entry, in products.py order.

    `table` is {SoC: [dtype names]} (an op's table or one tensor's override).
    """
    groups: dict[tuple, list[str]] = {}
    for soc, p in PRODUCTS.items():
        if soc in table:
            groups.setdefault(tuple(table[soc]), []).append(getattr(p, lang))
    return [(names, list(dts)) for dts, names in groups.items()]


def matrix(ops: dict, lang: str) -> tuple[list[str], list[tuple]]:
    """The index page's op × product × dtype matrix: (product wordings, [(op, [dtypes or [] per product])])."""
    header = [getattr(p, lang) for p in PRODUCTS.values()]
    rows = [(op, [list(op.dtypes.get(soc, [])) for soc in PRODUCTS]) for op in ops.values()]
    return header, rows
