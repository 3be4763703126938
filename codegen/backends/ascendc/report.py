"""`opgen tiling`: the tiling each op's kernel gets on each product, evaluated from the same program the
generated C++ runs (codegen.backends.ascendc.tiling)."""
from __future__ import annotations

from codegen.spec import PRODUCTS

from . import tiling as T
from .plan import DTYPE_BYTES, plan
from .socs import kernel_socs, tiling_ub


def rows(ops: dict, products=None, n: int = 1 << 20, row: int = 4096) -> list[dict]:
    """One dict per (op, product, dtype): the tiling of `n` elements (rows of `row` for row ops), for the op's
    widest variant (the one loading the most tensors)."""
    out = []
    for name, op in ops.items():
        p = plan(op)
        v = max(p.variants, key=lambda v: (v.layout.num_in, v.layout.num_temps))
        row_len = row if p.rows else n
        total = (n // row_len) * row_len or row_len
        for soc in kernel_socs(op):
            if products and soc not in products:
                continue
            prod = PRODUCTS[soc]
            for dt in op.dtypes[soc]:
                if dt not in DTYPE_BYTES:   # INT32, DOUBLE, ...: cast by the host layer or run on the AI CPU (plan.combos)
                    continue
                t = T.evaluate(v.layout, total, row_len, prod.cores, tiling_ub(soc), DTYPE_BYTES[dt],
                               DTYPE_BYTES[dt])
                per_core = t["rowsPerCore"] * row_len if p.rows else t["blockLength"]
                out.append(dict(
                    op=name, product=soc, dtype=dt, variant=v.doc, elements=total, row=row_len if p.rows else None,
                    tile=t["tileLength"], tiles_per_core=-(-per_core // t["tileLength"]) if not p.rows else None,
                    tiles_per_row=t.get("tilesPerRow"), cores=t["usedCores"], core_count=prod.cores,
                    ub_used=t["ubBytes"], ub=prod.ub_bytes, bytes_per_element=t["bytesPerElement"]))
    return out


def table(rs: list[dict]) -> str:
    header = ["op", "product", "dtype", "elements", "tile", "tiles", "cores", "UB used", "bytes/elem"]
    lines = []
    for r in rs:
        tiles = (f"{r['tiles_per_core']}/core" if r["tiles_per_core"] is not None
                 else f"{r['tiles_per_row']}/row of {r['row']}")
        lines.append([r["op"], r["product"], r["dtype"], str(r["elements"]), str(r["tile"]), tiles,
                      f"{r['cores']}/{r['core_count']}", f"{r['ub_used']}/{r['ub']}", str(r["bytes_per_element"])])
    widths = [max(len(x[i]) for x in lines + [header]) for i in range(len(header))]
    fmt = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
    return "\n".join([fmt(header)] + [fmt(x) for x in lines])
