"""Which kernel variant a call runs, as a condition on the call's arguments: the C backend's phase 1 and the Ascend C
op_api source both choose the variant (codegen.lower.KernelVariant) of a call by this condition, printed from the
variant's key."""
from __future__ import annotations

from codegen.spec import ABSENT, Op
from codegen.spec.params import Attr


def key_condition(op: Op, key: dict, null: str = "NULL", present=None, strcmp: str = "strcmp") -> str:
    """The C (or, with null="nullptr", C++) condition true for the arguments of a variant key: string, int64 and
    bool attributes, optional tensors' presence; "" for the empty key (the only variant).  `present(name)`, when
    given, prints the test that an optional tensor is there in other terms (Ascend C's TilingFunc reads its
    context, not a pointer), and `strcmp` names the string comparison."""
    parts = []
    for name, value in key.items():
        p = op.param(name)
        if isinstance(p, Attr) and p.type == "string":
            parts.append(f'{strcmp}({name}, "{value}") == 0')
        elif isinstance(p, Attr) and p.type == "int64":
            parts.append(f"{name} == {int(value)}")
        elif isinstance(p, Attr):
            parts.append(name if value else f"!{name}")
        else:
            test = present(name) if present else name
            parts.append(f"{test} == {null}" if value == ABSENT else f"{test} != {null}")
    return " && ".join(parts)
