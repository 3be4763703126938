"""Sum a test run's timeline (OPGEN_TEST_TIMELINE=<file> pytest ..., tests/conftest.py writes it): CPU seconds by
test file and by xdist group, and each worker's busy span, so that a worker idling at the end shows.

    OPGEN_TEST_TIMELINE=/tmp/t.tsv python -m pytest -n 2 ...; python -m tests.timeline /tmp/t.tsv
"""
from __future__ import annotations

import sys
from collections import defaultdict


def read(path: str) -> list[tuple]:
    rows = []
    for line in open(path):
        worker, nodeid, start, end, cpu, children = line.rstrip("\n").split("\t")
        rows.append((worker, nodeid, float(start), float(end), float(cpu), float(children)))
    return rows


def summary(rows: list[tuple], top: int = 25) -> str:
    by_file = defaultdict(lambda: [0, 0.0, 0.0])
    for _, nodeid, start, end, cpu, children in rows:
        f = by_file[nodeid.split("::")[0]]
        f[0] += 1
        f[1] += cpu
        f[2] += children
    total = sum(c + ch for _, _, _, _, c, ch in rows)
    out = [f"{len(rows)} tests, {total:.0f} CPU-s (this process + its children)", "",
           "CPU-s   own  children  tests  file"]
    for name, (n, cpu, children) in sorted(by_file.items(), key=lambda kv: -(kv[1][1] + kv[1][2]))[:top]:
        out.append(f"{cpu + children:6.1f} {cpu:6.1f} {children:8.1f} {n:6d}  {name}")
    first = min(r[2] for r in rows)
    last = max(r[3] for r in rows)
    out += ["", "worker  busy-s  first-start  last-end  (s from the run's first test)"]
    spans = defaultdict(list)
    for worker, _, start, end, _, _ in rows:
        spans[worker].append((start, end))
    for worker, s in sorted(spans.items()):
        out.append(f"{worker:6s} {sum(e - b for b, e in s):7.1f} {min(b for b, _ in s) - first:11.1f} "
                   f"{max(e for _, e in s) - first:9.1f}")
    out.append(f"run: {last - first:.1f} s from the first test's start to the last one's end")
    return "\n".join(out)


if __name__ == "__main__":
    print(summary(read(sys.argv[1])))
