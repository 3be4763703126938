"""`opgen` (also `python -m codegen`): list, verify, generate, docs, tiling, accuracy, oracle, fuzz, bench."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .errors import SpecError
from .loader import load_specs


def _ops(args):
    ops = load_specs(args.specs)
    if getattr(args, "ops", None):
        missing = [o for o in args.ops if o not in ops]
        if missing:
            raise SpecError(str(args.specs or "specs/"), None, f"no such op: {', '.join(missing)} "
                                                                f"(have: {', '.join(ops)})")
        ops = {k: v for k, v in ops.items() if k in args.ops}
    return ops


def cmd_list(args) -> int:
    from .spec import PRODUCTS
    ops = _ops(args)
    socs = list(PRODUCTS)
    header = ["op"] + socs
    rows = [[name] + [", ".join(op.dtypes.get(s, [])) or "—" for s in socs] for name, op in ops.items()]
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
    return 0


def _folder(args):
    """(good ops, bad-spec errors) of the spec folder, narrowed to the ops named on the command line."""
    from .loader import load_folder
    ops, errors = load_folder(args.specs)
    if getattr(args, "ops", None):
        missing = [o for o in args.ops if o not in ops and not any(Path(e.source).stem == o for e in errors)]
        if missing:
            raise SpecError(str(args.specs or "specs/"), None, f"no such op: {', '.join(missing)} "
                                                                f"(have: {', '.join(ops)})")
        ops = {k: v for k, v in ops.items() if k in args.ops}
        errors = [e for e in errors if Path(e.source).stem in args.ops]
    for e in errors:
        print(f"bad spec: {e}", file=sys.stderr)
    return ops, errors


def _proof_line(op, r) -> str:
    """`file:line: op: what failed` for a failed proof line (the line of `at=` or `backward=`)."""
    from .loader import field_line
    field = "at" if r.check.startswith("at ") or (" = " in r.check and "declares" in r.detail and op.at) \
        else "backward"
    line = field_line(op.source, field) or field_line(op.source, "backward")
    where = f"{op.source}:{line}" if line else op.source
    return f"{where}: {op.name}: [{r.formula}] {r.check}: {r.detail}" + \
        (f"; counterexample {r.point}" if r.point else "")


def cmd_verify(args) -> int:
    from .verify import format_table
    from .verify.parallel import Proofs
    ops, errors = _folder(args)
    t0 = time.perf_counter()
    # one op per worker process, as `opgen generate` proves (the verdicts and their order are the serial run's)
    with Proofs(ops, args.specs, numeric=not args.no_numeric) as proofs:
        results = proofs.results()
    if results:
        print(format_table(results))
    failed = [r for r in results if not r.ok]
    proven = sorted({r.op for r in results} - {r.op for r in failed})
    print(f"\n{len(proven)}/{len(ops) + len(errors)} ops proven in {time.perf_counter() - t0:.1f} s"
          + (f"; {len(failed)} FAILED checks" if failed else "")
          + (f"; {len(errors)} bad spec file(s)" if errors else ""))
    by_name = {op.name: op for op in ops.values()}
    for r in failed:
        print(f"FAILED {_proof_line(by_name[r.op], r)}", file=sys.stderr)
    return 2 if errors else (1 if failed else 0)


def cmd_generate(args) -> int:
    """Every spec that loads, proves and renders is generated; a bad one is reported (file, line, what) and
    nothing of it is written or deleted, nor any file shared by every op; the command then exits non-zero."""
    from . import generate as gen
    from .verify.parallel import Proofs
    ops, errors = _folder(args)
    t0 = time.perf_counter()
    # a spec whose backward is not the derivative of its forward must not produce kernels: the proofs run in
    # worker processes while the files are rendered in memory; an unproven op's files are then left out
    with Proofs(ops, args.specs) as proofs:
        files, render_errors = gen.render_good(ops)
        results = proofs.results()
    by_name = {op.name: op for op in ops.values()}
    unproven = {r.op for r in results if not r.ok}
    for r in results:
        if not r.ok:
            print(f"{_proof_line(by_name[r.op], r)}", file=sys.stderr)
    for name, e in render_errors.items():
        print(f"{ops[name].source}: {ops[name].name}: cannot be generated: {type(e).__name__}: {e}",
              file=sys.stderr)
    bad_stems = {Path(e.source).stem for e in errors} | {k for k, v in ops.items() if v.name in unproven} \
        | set(render_errors)
    good_stems = set(ops) - bad_stems
    out = Path(args.out) if args.out else gen.GENERATED
    keep = gen.keep_for(files, out, good_stems, bad_stems)
    status = 2 if errors else (1 if bad_stems else 0)
    if bad_stems:
        print(f"nothing written for: {', '.join(sorted(bad_stems))} (nor the files every op shares)",
              file=sys.stderr)
    if args.check:
        problems = gen.check(files, out, keep)
        for p in problems:
            print(p)
        if problems:
            print(f"{out} is stale: {len(problems)} difference(s); run `opgen generate`", file=sys.stderr)
            return status or 1
        print(f"{out}: {len(files) - len(set(files) & keep)} files up to date ({time.perf_counter() - t0:.1f} s)")
        return status
    if not good_stems and bad_stems:
        return status
    changed = gen.write(files, out, keep)
    for c in changed:
        print(c)
    print(f"{out}: {len(files) - len(set(files) & keep)} files, {len(changed)} changed "
          f"({time.perf_counter() - t0:.1f} s)")
    return status


def cmd_docs(args) -> int:
    """`opgen docs`: only the doc pages (generated/docs/), after the same proof gate as `opgen generate`."""
    from . import generate as gen
    from .verify import verify_op
    ops = _ops(args)
    t0 = time.perf_counter()
    bad = [r for op in ops.values() for r in verify_op(op, numeric=False, use_cache=True) if not r.ok]
    if bad:
        for r in bad:
            print(f"{ops_source(ops, r.op)}: {r.op}: backward does not match the forward "
                  f"[{r.formula}] {r.check}: {r.detail}", file=sys.stderr)
        print("nothing written", file=sys.stderr)
        return 1
    files = {path.split("/", 1)[1]: text for path, text in gen.render_all(ops, backends=["docs"]).items()}
    out = Path(args.out) if args.out else gen.GENERATED / "docs"
    changed = gen.write(files, out)
    for c in changed:
        print(c)
    print(f"{out}: {len(files)} doc files, {len(changed)} changed ({time.perf_counter() - t0:.1f} s)")
    return 0


def cmd_accuracy(args) -> int:
    from . import accuracy, backends
    from .accuracy import report, torch_ref
    ops = _ops(args)
    have = backends.kernel_backends()
    chosen = args.backend or have
    unknown = [b for b in chosen if b not in have]
    if unknown:
        print(f"unknown kernel backend: {', '.join(unknown)} (have: {', '.join(have)})", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    records = accuracy.run(ops, chosen, full=args.full, log=lambda m: print(m, file=sys.stderr))
    torch = torch_ref.available()
    cmd = "opgen accuracy" + (" --full" if args.full else "") + "".join(f" {o}" for o in args.ops or [])
    meta = {"command": cmd, "mode": "full" if args.full else "fast", "backends": chosen,
            "torch": torch.__version__.split("+")[0] if torch else None}
    md, js = report.write(records, args.out or "reports/accuracy", meta)
    print(report.summary_table(records))
    failed = [r for r in records if not r.passed and not r.known]
    known = [r for r in records if not r.passed and r.known]
    print(f"\n{len(records) - len(failed) - len(known)}/{len(records)} kernels pass both standards"
          + (f"; {len(known)} known failures (see {md})" if known else "")
          + (f"; {len(failed)} FAILED" if failed else "") + f" ({time.perf_counter() - t0:.1f} s); "
          f"report: {md}, {js}")
    for r in failed:
        why = [w for w, bad in (("dual standard", not r.dual), ("single-benchmark standard", not r.single),
                                (f"{r.n_failures} special-value/layout/overflow/unbounded-element failures",
                                 r.n_failures)) if bad]
        print(f"FAILED {r.op} {r.dtype} {r.backend} {r.product}: {', '.join(why)}", file=sys.stderr)
        example = report.first_failure(r)
        if example:
            print(f"    e.g. {example}", file=sys.stderr)
    return 1 if failed else 0


def cmd_oracle(args) -> int:
    """`opgen oracle`: every kernel element against the exact result within its rounding-error bound."""
    from . import backends
    from .accuracy import oracle
    from .accuracy.dtypes import FORMATS
    ops = _ops(args)
    have = backends.kernel_backends()
    chosen = args.backend or have
    bad = [b for b in chosen if b not in have] + [d for d in args.dtype or [] if d not in FORMATS]
    if bad:
        print(f"unknown backend or dtype: {', '.join(bad)} (backends: {', '.join(have)}; dtypes: "
              f"{', '.join(FORMATS)})", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    records = oracle.check(ops, chosen, dtypes=args.dtype, full=args.full, products=args.product,
                           log=lambda m: print(m, file=sys.stderr))
    print(oracle.table(records))
    failed = oracle.failed(records)
    print(f"\n{len(records) - len(failed)}/{len(records)} kernels pass the oracle ({time.perf_counter() - t0:.1f} s)")
    for r in failed:
        for line in oracle.describe(r):
            print(f"FAILED {r.op} {r.dtype} {r.backend} {r.product}: {line}", file=sys.stderr)
    return 1 if failed else 0


def cmd_fuzz(args) -> int:
    """`opgen fuzz`: random specs through every backend, judged by the oracle; reproducers for what fails."""
    from . import fuzz
    depth = fuzz.CI_DEPTH if args.vocabulary == "ci" else 3
    if args.vocabulary in ("ci", "full"):
        vocab = fuzz.CI_VOCABULARY if args.vocabulary == "ci" else fuzz.VOCABULARY
    else:
        vocab = tuple(v.strip() for v in args.vocabulary.split(",") if v.strip())
    listed = {v for vs in vocab.values() for v in vs} if isinstance(vocab, dict) else vocab
    unknown = [v for v in listed if v not in fuzz.VOCABULARY] + [b for b in args.backend or [] if b not in
                                                                  fuzz.BACKENDS]
    if unknown or (args.size & (args.size - 1)) or args.size < 2:
        print(f"unknown construct or backend: {', '.join(unknown)} (constructs: {', '.join(fuzz.VOCABULARY)}; "
              f"backends: {', '.join(fuzz.BACKENDS)}); --size is a power of two >= 2", file=sys.stderr)
        return 2
    batches = None if args.minutes and not args.batches else (args.batches or 1)
    report = fuzz.run(seed=args.seed, batches=batches, minutes=args.minutes, size=args.size, vocabulary=vocab,
                      backends=tuple(args.backend or fuzz.BACKENDS), folder=args.out, depth=depth,
                      log=lambda m: print(m, flush=True))
    print(report.summary())
    for f, why in report.dropped:
        print(f"dropped: {f}: {why[:200]}", file=sys.stderr)
    for f in report.findings:
        print(f"FINDING {f.line()}\n  reproducer: {f.spec}", file=sys.stderr)
    return 1 if report.findings else 0


def cmd_bench(args) -> int:
    import datetime
    import os

    from . import bench
    from .bench import command_times, report
    ops = _ops(args)
    chosen = args.backend or list(bench.BACKENDS)
    unknown = [b for b in chosen if b not in bench.BACKENDS]
    if unknown:
        print(f"unknown bench backend: {', '.join(unknown)} (have: {', '.join(bench.BACKENDS)})", file=sys.stderr)
        return 2
    sizes = None
    if args.sizes:
        try:
            sizes = [int(k) for k in args.sizes.split(",")]
        except ValueError:
            sizes = []
    if sizes is not None and (not sizes or any(not 0 <= k <= 30 for k in sizes)):
        print(f"--sizes takes powers of two as exponents, 0..30, comma-separated (got {args.sizes!r})",
              file=sys.stderr)
        return 2
    if args.repeat is not None and args.repeat < 1:
        print("--repeat must be at least 1", file=sys.stderr)
        return 2
    if args.out and Path(args.out).exists() and not Path(args.out).is_dir():   # (before the timing, not after it)
        print(f"--out {args.out}: a file, not a folder for bench.md and bench.json", file=sys.stderr)
        return 2
    bad_offset = bench.placement.check_offset(args.offset)
    if bad_offset:
        print(bad_offset, file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    load_start = os.getloadavg()   # (the report says how loaded the machine was: a shared one skews every figure)
    cases = bench.select(ops, quick=args.quick, sizes=sizes)
    skipped = bench.cases.without_layouts(ops)
    if skipped:
        print(f"not benchmarked (no layouts in codegen/bench/cases.py yet): {', '.join(skipped)}", file=sys.stderr)
    if not cases:
        print("nothing to benchmark", file=sys.stderr)
        return 2
    baseline = None
    if args.baseline and "c" not in chosen:
        print("--baseline compares C kernels: it needs the c backend", file=sys.stderr)
        return 2
    if args.baseline:
        from .bench.baseline import BaselineError, libraries
        print(f"building the C libraries of {args.baseline} ...", file=sys.stderr)
        try:
            baseline = libraries(args.baseline, list(dict.fromkeys(c.op for c in cases)), args.specs)
        except BaselineError as e:
            print(f"--baseline: {e}", file=sys.stderr)
            return 2
    # every op, as `opgen generate` renders them; --quick (CI) renders only the benchmarked ops' files; a run of
    # named ops (a kernel's author comparing it) times no command: the cold run of every op takes minutes
    timed_ops = {name: ops[name] for name in dict.fromkeys(c.op for c in cases)} if args.quick \
        else load_specs(args.specs)
    if args.ops and not args.quick:
        commands = command_times.skipped(len(timed_ops), "op names given")
    else:
        print("timing opgen generate and opgen verify ...", file=sys.stderr)
        commands = command_times.measure(timed_ops, args.quick, args.specs)
    print(f"{len(cases)} cases × {len(chosen)} backends", file=sys.stderr)
    print(report.text_header(), flush=True)
    records = bench.run(ops, cases, chosen, quick=args.quick, repeat=args.repeat,
                        on_record=lambda r: print(report.text_row(r), flush=True), baseline=baseline,
                        offset=args.offset)
    cmd = "opgen bench" + "".join(f" {o}" for o in args.ops or []) + (" --quick" if args.quick else "") \
        + (f" --sizes {args.sizes}" if args.sizes else "") + "".join(f" --backend {b}" for b in args.backend or []) \
        + (f" --repeat {args.repeat}" if args.repeat else "") + (f" --baseline {args.baseline}" if baseline else "") \
        + (f" --offset {args.offset}" if args.offset else "")
    meta = {"command": cmd, "mode": "quick" if args.quick else "full", "backends": chosen,
            "baseline": {"rev": args.baseline, "backend": baseline[0]} if baseline else None,
            "sizes": sorted({c.n for c in cases}), "repeat": args.repeat, "offset": args.offset,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": report.machine(), "commands": commands,
            "load": {"start": [round(v, 2) for v in load_start], "end": [round(v, 2) for v in os.getloadavg()]}}
    if "c" in chosen:
        print("timing the calls' overhead ...", file=sys.stderr)
        meta["calls"] = [c.to_json() for c in bench.calls.overhead(ops, args.offset, args.quick)]
        meta["load"]["end"] = [round(v, 2) for v in os.getloadavg()]
    md, js = report.write(records, args.out or "reports/bench", meta)
    print(f"\nsummary at n = {report.summary_n(records)}:\n\n{report.summary_table(records)}")
    if baseline:
        print(f"\nagainst {args.baseline}:\n\n{report.baseline_table(records, baseline[0])}")
    print(f"\n{len(records)} rows in {time.perf_counter() - t0:.1f} s; report: {md}, {js}")
    return 0


def cmd_tiling(args) -> int:
    from .backends.ascendc import report
    from .spec import PRODUCTS
    bad = [p for p in args.product or [] if p not in PRODUCTS]
    if bad:
        print(f"unknown product: {', '.join(bad)} (have: {', '.join(PRODUCTS)})", file=sys.stderr)
        return 2
    print(report.table(report.rows(_ops(args), args.product, args.n, args.row)))
    return 0


def ops_source(ops, aclnn_name):
    for op in ops.values():
        if op.name == aclnn_name:
            return op.source
    return "?"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="opgen", description=__doc__)
    parser.add_argument("--specs", help="spec folder (default: the repository's specs/, or $OPGEN_SPECS)")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("list", help="ops × products × dtypes")
    p.set_defaults(fn=cmd_list)
    p = sub.add_parser("verify", help="prove every backward is the VJP of its forward")
    p.add_argument("ops", nargs="*", help="op names (default: all)")
    p.add_argument("--no-numeric", action="store_true", help="skip the mpmath cross-check")
    p.set_defaults(fn=cmd_verify)
    p = sub.add_parser("generate", help="regenerate generated/ (or --check it)")
    p.add_argument("--check", action="store_true", help="fail with a diff when generated/ is stale")
    p.add_argument("--out", help="output folder (default: the repository's generated/)")
    p.set_defaults(fn=cmd_generate, ops=None)
    p = sub.add_parser("docs", help="write only the doc pages (opgen generate writes them too)")
    p.add_argument("--out", help="folder for the zh/ and en/ pages (default: the repository's generated/docs/)")
    p.set_defaults(fn=cmd_docs, ops=None)
    p = sub.add_parser("tiling", help="Ascend C tiling per op and product: tile, cores, UB used, bytes moved")
    p.add_argument("ops", nargs="*", help="op names (default: all)")
    p.add_argument("--product", action="append", help="SoC (repeatable; default: every one the op supports)")
    p.add_argument("--n", type=int, default=1 << 20, help="elements (default 1048576)")
    p.add_argument("--row", type=int, default=4096, help="row length along dim for row ops (default 4096)")
    p.set_defaults(fn=cmd_tiling)
    p = sub.add_parser("accuracy", help="measure every kernel against an independent mpmath reference")
    p.add_argument("ops", nargs="*", help="op names (default: all)")
    p.add_argument("--backend", action="append", help="kernel backend (repeatable; default: every one)")
    p.add_argument("--full", action="store_true", help="the full input sets (default: the fast CI subset)")
    p.add_argument("--out", help="report folder (default: reports/accuracy)")
    p.set_defaults(fn=cmd_accuracy)
    p = sub.add_parser("oracle", help="every kernel element against the exact result, within its error bound")
    p.add_argument("ops", nargs="*", help="op names (default: all)")
    p.add_argument("--backend", action="append", help="kernel backend (repeatable; default: every one)")
    p.add_argument("--dtype", action="append", help="FLOAT, FLOAT16 or BFLOAT16 (repeatable; default: all)")
    p.add_argument("--product", action="append", help="SoC (repeatable; default: every one with the dtype)")
    p.add_argument("--full", action="store_true", help="the full input sets (default: the fast CI subset)")
    p.set_defaults(fn=cmd_oracle)
    p = sub.add_parser("fuzz", help="random specs through every backend, judged by the oracle")
    p.add_argument("--seed", type=int, default=0, help="Hypothesis seed: the same seed draws the same batches")
    p.add_argument("--batches", type=int, help="batches to run (default 1, or as many as fit in --minutes)")
    p.add_argument("--minutes", type=float, help="run batches until this much time has passed")
    p.add_argument("--size", type=int, default=16, help="formulas per batch, a power of two (default 16)")
    p.add_argument("--vocabulary", default="ci",
                   help="ci (what CI draws from, per backend), full, or constructs separated by commas "
                        "(see codegen.fuzz.grammar)")
    p.add_argument("--backend", action="append", help="numpy, c or ascendc (repeatable; default: all three)")
    p.add_argument("--out", help="folder for the batch specs and reproducers (default: a new temporary folder)")
    p.set_defaults(fn=cmd_fuzz)
    p = sub.add_parser("bench", help="time every kernel against a streaming probe and PyTorch")
    p.add_argument("ops", nargs="*",
                   help="op names (default: all, and the cold `opgen generate` and `opgen verify` are timed too; "
                        "a run of named ops times no command)")
    p.add_argument("--quick", action="store_true",
                   help="one size (2^16), two repeats, contiguous layouts plus softmax along dim 0 (what CI runs)")
    p.add_argument("--sizes", help="element counts as powers of two, e.g. 10,14,18,24 (default: 10,12,...,24)")
    p.add_argument("--backend", action="append", help="numpy or c (repeatable; default: both)")
    p.add_argument("--repeat", type=int, help="timed passes per case (default: adaptive, >= 5 and ~0.2 s)")
    p.add_argument("--baseline", metavar="REV",
                   help="also time the C kernels of git revision REV, side by side (rows `c@<commit>`)")
    p.add_argument("--offset", type=int, default=0, metavar="BYTES",
                   help="start every array BYTES past a 64-byte cache line (default 0: on the line, as PyTorch "
                        "allocates; 16: where NumPy put 16M-element arrays on the README's machine)")
    p.add_argument("--out", help="report folder (default: reports/bench)")
    p.set_defaults(fn=cmd_bench)
    args = parser.parse_args(argv)
    try:
        return args.fn(args)
    except SpecError as e:
        print(f"bad spec: {e}\nnothing written", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
