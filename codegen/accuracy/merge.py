"""Several `opgen accuracy` reports as one report.

    python -m codegen.accuracy.merge /tmp/acc/elu_backward /tmp/acc/glu_backward ... --out reports/accuracy

A `--full` run over every op takes long on a shared machine; it can be run op by op instead
(`opgen accuracy --full OP --out /tmp/acc/OP`, in turns, over several sittings) and the parts merged here.  An
op's records depend on nothing but the op (its inputs are seeded by its name and the dtype), so the merged report
is the one a single run over those ops writes: the records in the order of specs/, the command naming the ops
(`opgen accuracy --full a b ...`; none when they are every op of specs/), the Markdown rebuilt from the records
by the report's own writer.  Parts must agree on the mode, the backends and the PyTorch version, and an op may be
in one part only: which of two measurements to keep is a decision, not a merge.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from . import report, standards as S
from .runner import Example, Record

DERIVED = ("dual_ok", "single_ok", "goal_met", "goal", "passed", "oracle_passed")   # Record.to_json's properties


def _errors(d):
    return None if d is None else S.Errors(**d)


def _example(d):
    return Example(**d) if isinstance(d, dict) else d    # a failure can be a sentence (a refused call)


def record_of(d: dict) -> Record:
    """The Record that `Record.to_json` wrote as `d`."""
    d = {k: v for k, v in d.items() if k not in DERIVED}
    known = {f.name for f in dataclasses.fields(Record)}
    unknown = set(d) - known
    if unknown:
        raise ValueError(f"a record with fields this Record does not have: {', '.join(sorted(unknown))} "
                         "(a report from another version of codegen.accuracy)")
    for k in ("errors", "errors_all", "torch", "torch_std", "errors_wc"):
        if k in d:
            d[k] = _errors(d[k])
    for k in ("documented", "failures", "torch_differs", "beyond", "overflows", "unbounded_off"):
        if k in d:
            d[k] = [_example(e) for e in d[k]]
    for k in ("worst", "unbounded_worst"):
        if d.get(k) is not None:
            d[k] = _example(d[k])
    d["groups"] = {g: _errors(e) for g, e in d.get("groups", {}).items()}
    return Record(**d)


def _json_of(path: Path) -> Path:
    return path / "accuracy.json" if path.is_dir() else path


def merge(paths: list, order: list[str] | None = None) -> tuple[list[Record], dict]:
    """(records, meta) of the reports at `paths` (folders or accuracy.json files); `order`: op names in the order
    the records go in (default: as given)."""
    records, meta, owner = [], None, {}
    for path in map(Path, paths):
        js = _json_of(path)
        if not js.is_file():
            raise ValueError(f"{js}: no accuracy.json there")
        part = json.loads(js.read_text(encoding="utf-8"))
        m = part["meta"]
        same = {k: m.get(k) for k in ("mode", "backends", "torch")}
        if meta is None:
            meta = same
        elif same != meta:
            raise ValueError(f"{js}: {same} differs from the first part's {meta}: not one measurement")
        for d in part["records"]:
            op = d["op"].split("[")[0]   # a half or an output (glu_backward[a]) belongs to its op
            if owner.setdefault(op, js) != js:
                raise ValueError(f"{op} is in both {owner[op]} and {js}: keep one of them")
            records.append(record_of(d))
    if meta is None:
        raise ValueError("no reports to merge")
    rank = {name: i for i, name in enumerate(order or [])}
    records.sort(key=lambda r: rank.get(r.op.split("[")[0], len(rank)))   # stable: each part's own order kept
    ops = list(dict.fromkeys(r.op.split("[")[0] for r in records))
    named = "" if order and set(ops) == set(order) else "".join(f" {o}" for o in ops)   # every op: none named
    meta = {"command": "opgen accuracy" + (" --full" if meta["mode"] == "full" else "") + named, **meta}
    return records, meta


def main(argv=None) -> int:
    from codegen.loader import load_specs
    parser = argparse.ArgumentParser(prog="python -m codegen.accuracy.merge", description=__doc__.split("\n\n")[0])
    parser.add_argument("parts", nargs="+", help="report folders (or their accuracy.json) of `opgen accuracy --out`")
    parser.add_argument("--out", default="reports/accuracy", help="report folder (default: reports/accuracy)")
    parser.add_argument("--specs", help="spec folder whose order the records follow (default: specs/)")
    args = parser.parse_args(argv)
    try:
        records, meta = merge(args.parts, list(load_specs(args.specs)))
    except ValueError as e:
        print(f"cannot merge: {e}", file=sys.stderr)
        return 2
    md, js = report.write(records, args.out, meta)
    print(f"{len(records)} records of {len({r.op.split('[')[0] for r in records})} ops: {md}, {js}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
