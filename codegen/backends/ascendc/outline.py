"""Repeated vector sequences as helper functions, once per kernel file: the double-float pair operations
(codegen.backends.ascendc.doublefloat) are emitted as `__aicore__ inline` functions taking LocalTensors and
`calc`, called from the Compute passes, as CANN's own Ascend C sources do for repeated vector sequences.  Inlined
at every use they had grown BCE-with-logits' kernel file to 6526 lines (exp alone is twelve pair squarings).

A pair operation records its instructions as a `Group` (Lowering.group); `outline` then turns each outermost
group into one call (inner groups are spliced into its body, but for the few in NESTED, calls of their own):

- its inputs are the values it reads that were computed before it (tiles, masks, and C++ scalars, which become
  `float` parameters); its outputs, the values it computes that an instruction after it reads (found over the
  whole pass, so a Veltkamp split that a later product reuses is an output too);
- every other value it computes lives in scratch tiles and masks passed in: the body is allocated on its own
  (lowering.allocate, the same linear scan and replay check) and the call site hands it that many slots,
  allocated with the pass's others and free again after the call;
- the body is the same instructions in the same order, so every element rounds as it did inlined (bit for bit).

Helpers are named by their text (a hash, a placeholder in the lines): the same operation in two passes, variants
or architectures is one function; kernel_source names them in order of first use.
"""
from __future__ import annotations

import hashlib
import itertools
import re
from dataclasses import dataclass, field

PLACEHOLDER = re.compile(r"@H([0-9a-f]+)@")
# Operations that stay a call inside another helper; the others are spliced into the helper that calls them.  A
# call holds its inputs, outputs and scratch at once, where the same instructions inline free an input's slot
# after its last reader: nesting every operation took BCE-with-logits' pass from 17 float slots to 26 (smaller
# tiles).  Exp's twelve pair squarings are where a call pays: with them alone nested, 18 slots.
NESTED = {"PairSquare"}


@dataclass
class Group:
    """The instructions one pair operation emitted (Instr, or Group for the operations it called)."""
    method: str      # C++ name stem, e.g. "PairSquare"
    doc: str         # one line, the helper's comment
    body: list
    dst = None       # (Lowering.result asks the last instruction for its destination)


@dataclass
class Helper:
    key: str         # hash of its text: the placeholder in call lines
    method: str
    doc: str
    params: list     # C++ parameter declarations
    body: list       # C++ statements (calls to inner helpers as placeholders)
    archs: set = field(default_factory=set)   # filled by kernel_source: architectures whose passes call it


_scratch_ids = itertools.count(1 << 30)   # scratch registers of call sites: ids no pass reaches


def _flatten(items, out: list, spans: dict) -> None:
    for it in items:
        if isinstance(it, Group):
            a = len(out)
            _flatten(it.body, out, spans)
            spans[id(it)] = (a, len(out))
        else:
            out.append(it)


def outline(instrs: list) -> tuple[list, list]:
    """(instructions with each group a call, [Helper] inner ones first)."""
    from .lowering import In, Instr, Reg, allocate
    flat, spans = [], {}
    _flatten(instrs, flat, spans)
    last = {}
    for i, ins in enumerate(flat):
        for s in ins.srcs:
            if isinstance(s, Reg):
                last[s] = i
    helpers = {}

    def convert(items):
        return [call(it) if isinstance(it, Group) else it for it in items]

    def splice(items):   # a helper's body: inner groups a call where they are worth their slots, else inline
        out = []
        for it in items:
            if not isinstance(it, Group):
                out.append(it)
            elif it.method in NESTED:
                out.append(call(it))
            else:
                out += splice(it.body)
        return out

    def call(g: Group):
        _, end = spans[id(g)]
        body = splice(g.body)
        defined, inputs, outputs = set(), [], []
        for ins in body:
            for s in ins.srcs:
                if not (isinstance(s, Reg) and s in defined) and s not in inputs:
                    inputs.append(s)
            for d in ins.dsts:
                defined.add(d)
                if last.get(d, -1) >= end:
                    outputs.append(d)
        names, decls = {}, []
        for j, o in enumerate(outputs):
            names[o] = f"o{j}"
            decls.append(f"const LocalTensor<{_elem(o)}>& o{j}")
        for j, s in enumerate(inputs):
            if isinstance(s, str):
                names[s] = f"s{j}"
                decls.append(f"float s{j}")
            else:
                names[s] = f"i{j}"
                decls.append(f"const LocalTensor<{_elem(s)}>& i{j}")
        fixed = {r: n for r, n in names.items() if isinstance(r, Reg)}
        mapped = [Instr(ins.fmt, ins.dst, [s if isinstance(s, Reg) else names[s] for s in ins.srcs], ins.extra)
                  for ins in body]
        low = allocate(mapped, fixed=fixed, prefix={"f": "t", "m": "k"})
        decls += [f"const LocalTensor<float>& t{j}" for j in range(low.num_temps)]
        decls += [f"const LocalTensor<uint8_t>& k{j}" for j in range(low.num_masks)]
        decls.append("uint32_t calc")
        key = hashlib.sha1("\n".join([g.method] + decls + low.lines).encode()).hexdigest()[:12]
        helpers.setdefault(key, Helper(key, g.method, g.doc, decls, low.lines))
        scratch = ([Reg("f", next(_scratch_ids)) for _ in range(low.num_temps)]
                   + [Reg("m", next(_scratch_ids)) for _ in range(low.num_masks)])
        n = len(inputs)
        order = (list(range(n, n + len(outputs))) + list(range(n)) + list(range(n + len(outputs),
                                                                               n + len(outputs) + len(scratch))))
        fmt = f"@H{key}@(" + "".join(f"{{{i}}}, " for i in order) + "calc);"
        return Instr(fmt, None, inputs, outputs + scratch)

    out = convert(instrs)
    return out, list(helpers.values())


def _elem(v) -> str:
    from .lowering import Reg
    return "uint8_t" if isinstance(v, Reg) and v.kind == "m" else "float"


def named(lines: list, names: dict) -> list:
    """Lines with each helper placeholder replaced by the helper's name."""
    return [PLACEHOLDER.sub(lambda m: names[m.group(1)], line) for line in lines]
