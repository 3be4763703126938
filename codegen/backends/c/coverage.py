"""How much of CANN's C API our headers cover, measured on CANN's own example programs.

    python -m codegen.backends.c.coverage --ops-nn DIR [--all] [--quiet]

DIR is a checkout of `hicann/ops-nn` (a working tree, or a bare clone read through git).  The script reads every
example program (`*/examples/**/test_aclnn_*.cpp`), collects the ACL names it uses (`acl...` functions and types,
`ACL_...` and `ACLNN_...` constants; an operator's own `aclnnXxx`/`aclnnXxxGetWorkspaceSize` are the operator's,
not the runtime's, and names a program defines itself are its own), and reports

  1. the names that the examples of the operators of the catalog use and our headers lack (must be none: these
     are the programs that must build against the generated library once their operator has a spec),
  2. the catalog's header facts: for each operator of `codegen/aclnn/cann.py`, the header CANN declares it in and whether its
     phase 2 takes `const aclrtStream`, against what cann.py says (must agree),
  3. for every operator we generate: our two prototypes against CANN's header, parameter by parameter (types,
     qualifiers and names must agree),
  4. with --all, the names missing across every example program of the library (for information).

Exit status 1 when 1, 2 or 3 find anything.  Our headers are rendered from the specs in memory (generated/ need
not be current).
"""
from __future__ import annotations

import argparse
import collections
import re
import subprocess
import sys
from pathlib import Path

from codegen.aclnn.cann import HEADERS

NAME = re.compile(r"\b(acl[a-z]*[A-Z]\w*|ACL_\w+|ACLNN_\w+)\b")
OP_CALL = re.compile(r"\b(aclnn[A-Z]\w*?)GetWorkspaceSize\b")
KEYWORDS = {"return", "else", "case", "sizeof", "new", "delete", "throw", "co_return", "goto", "typedef"}


# ---- reading a checkout -------------------------------------------------------------------------------------
class Checkout:
    """The files of an ops-nn checkout: a working tree, or a bare clone (read with `git show HEAD:path`)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.bare = not (self.root / ".git").exists() and (self.root / "HEAD").is_file()

    def paths(self) -> list[str]:
        if self.bare:
            out = subprocess.run(["git", "-C", str(self.root), "ls-tree", "-r", "--name-only", "HEAD"],
                                 capture_output=True, text=True, check=True).stdout
            return out.split()
        return [p.relative_to(self.root).as_posix() for p in self.root.rglob("*") if p.is_file()]

    def read(self, path: str) -> str:
        return self.read_many([path])[path]

    def read_many(self, paths: list[str]) -> dict[str, str]:
        """{path: text}; a bare clone is read in one `git cat-file --batch` (one process per file took minutes)."""
        if not self.bare:
            return {p: (self.root / p).read_text(errors="replace") for p in paths}
        query = "".join(f"HEAD:{p}\n" for p in paths).encode()
        raw = subprocess.run(["git", "-C", str(self.root), "cat-file", "--batch"], input=query, capture_output=True,
                             check=True).stdout
        out, at = {}, 0
        for p in paths:
            header_end = raw.index(b"\n", at)
            size = int(raw[at:header_end].split()[2])
            out[p] = raw[header_end + 1:header_end + 1 + size].decode("utf-8", "replace")
            at = header_end + 1 + size + 1
        return out


def code_only(text: str) -> str:
    """C/C++ text without comments and string literals (a name in a message is not a use)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', text)
    return re.sub(r"//[^\n]*", "", text)


def defined_here(code: str, name: str) -> bool:
    """Whether a program defines `name` itself: a macro, a function, a type or a variable it declares."""
    if re.search(rf"#\s*define\s+{name}\b", code) or re.search(rf"\b(?:struct|class|enum)\s+{name}\b", code):
        return True
    for m in re.finditer(rf"\b{name}\b", code):
        after = code[m.end():m.end() + 40].lstrip()[:1]
        before = re.search(r"([\w>]+)[\s*&]+$", code[max(0, m.start() - 80):m.start()])
        if after and after in "=({;[" and before and before.group(1) not in KEYWORDS:
            return True   # `Type name =`, `Type name(`: a declaration of its own
    return False


def names_used(text: str) -> set[str]:
    """The ACL names a program uses (its operators' own functions and the names it defines left out)."""
    code = code_only(text)
    ops = set(OP_CALL.findall(code))
    out = set()
    for n in set(NAME.findall(code)):
        if n.startswith("aclnn") and (n in ops or n.removesuffix("GetWorkspaceSize") in ops):
            continue
        if re.fullmatch(r"aclnn[A-Z]\w*", n) and n not in ("aclnnInit", "aclnnFinalize"):
            continue   # another operator's API: not the runtime's
        if not defined_here(code, n):
            out.add(n)
    return out


def example_programs(co: Checkout) -> list[str]:
    return sorted(p for p in co.paths() if re.search(r"/examples/(?:.*/)?test_aclnn_[^/]*\.cpp$", p))


def op_headers(co: Checkout) -> dict[str, str]:
    """{path: text} of CANN's operator headers (`op_api/aclnn_*.h`, the experimental tree left out)."""
    return co.read_many([p for p in co.paths()
                         if re.search(r"/op_api/aclnn_[^/]*\.h$", p) and not p.startswith("experimental/")])


# ---- our side -----------------------------------------------------------------------------------------------
def our_headers(specs_dir=None) -> dict[str, str]:
    """{path under include/: text} of every header we generate: the runtime's and every spec's operator."""
    import codegen
    from codegen.generate import source_label

    from .files import generate
    files = generate(codegen.load_specs(specs_dir), source_label)
    return {p[len("c/include/"):]: t for p, t in files.items() if p.startswith("c/include/")}


def declared(headers: dict[str, str]) -> set[str]:
    return set(NAME.findall(code_only("\n".join(headers.values())))) | \
        set(re.findall(r"\b(aclnn\w+)\s*\(", code_only("\n".join(headers.values()))))


# ---- prototypes ---------------------------------------------------------------------------------------------
def prototype(text: str, fn: str) -> list[tuple[str, str]] | None:
    """[(type, name)] of function `fn`'s parameters as a header declares it (spaces normalised: `const aclTensor*`),
    None when the text does not declare it."""
    m = re.search(rf"\b{fn}\s*\(([^)]*)\)\s*;", code_only(text))
    if not m:
        return None
    out = []
    for part in m.group(1).split(","):
        part = " ".join(part.replace("*", " * ").split())
        typ, _, name = part.rpartition(" ")
        out.append((typ.replace(" *", "*").replace("* ", "*").strip(), name))
    return out


def compare_prototypes(ours: dict[str, str], cann: dict[str, str], ops) -> tuple[int, list[str]]:
    """(how many operators were compared, the differences between our prototypes and CANN's) for the operators we
    generate that CANN has a header for."""
    problems, compared = [], 0
    for op in ops:
        theirs = next((t for t in cann.values() if prototype(t, f"{op.name}GetWorkspaceSize")), None)
        if theirs is None:
            continue
        compared += 1
        ours_text = "\n".join(ours.values())
        for fn in (f"{op.name}GetWorkspaceSize", op.name):
            a, b = prototype(ours_text, fn), prototype(theirs, fn)
            if a != b:
                problems.append(f"{fn}: ours {a}, CANN's {b}")
    return compared, problems


# ---- the report ---------------------------------------------------------------------------------------------
def header_facts(co: Checkout, headers: dict[str, str], programs: dict[str, str]) -> dict[str, tuple[str, bool]]:
    """{api: (header file, phase 2 takes const aclrtStream)} for the catalog's operators, as CANN has them."""
    facts = {}
    for api in HEADERS:
        path = next((p for p, t in headers.items() if re.search(rf"\b{api}GetWorkspaceSize\s*\(", t)), None)
        if path is not None:
            params = prototype(headers[path], api) or []
            facts[api] = (path.rsplit("/", 1)[1], any(t == "const aclrtStream" for t, _ in params))
            continue
        includes = {m for p, t in programs.items() if re.search(rf"\b{api}GetWorkspaceSize\b", t)
                    for m in re.findall(r'#include\s+"(?:aclnnop/)?(aclnn_\w+\.h)"', t)}
        if len(includes) == 1:
            facts[api] = (includes.pop(), False)   # a header generated at build time: opbuild prints no const
    return facts


def report(root: Path, show_all: bool = False, out=sys.stdout) -> int:
    co = Checkout(root)
    programs = co.read_many(example_programs(co))
    cann_headers = op_headers(co)
    ours = our_headers()
    have = declared(ours)
    catalog_missing, all_missing = collections.defaultdict(set), collections.defaultdict(set)
    catalog_programs = 0
    for path, text in programs.items():
        is_catalog = bool(set(OP_CALL.findall(text)) & set(HEADERS))
        catalog_programs += is_catalog
        if not is_catalog and not show_all:
            continue
        for n in names_used(text) - have:
            all_missing[n].add(path)
            if is_catalog:
                catalog_missing[n].add(path)
    failed = 0
    print(f"{len(programs)} example programs, {catalog_programs} of them of the {len(HEADERS)} catalog operators "
          f"(examples read: {'all' if show_all else 'the catalog'}'s)", file=out)
    print(f"1. ACL names the catalog's examples use that our headers lack: {len(catalog_missing)}", file=out)
    for n, where in sorted(catalog_missing.items()):
        print(f"   {n}  ({len(where)}: {sorted(where)[0]})", file=out)
    failed |= bool(catalog_missing)

    facts = header_facts(co, cann_headers, programs)
    wrong = [f"{api}: CANN {facts.get(api)}, cann.py {HEADERS[api]}" for api in HEADERS if facts.get(api) != HEADERS[api]]
    print(f"2. catalog header facts that cann.py has wrong: {len(wrong)}", file=out)
    for w in wrong:
        print(f"   {w}", file=out)
    failed |= bool(wrong)

    import codegen
    compared, mismatched = compare_prototypes(ours, cann_headers, codegen.load_specs().values())
    print(f"3. our prototypes that differ from CANN's headers: {len(mismatched)} ({compared} operators compared)",
          file=out)
    for m in mismatched:
        print(f"   {m}", file=out)
    failed |= bool(mismatched)

    if show_all:
        print(f"4. ACL names any example uses that our headers lack: {len(all_missing)}", file=out)
        for n, where in sorted(all_missing.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print(f"   {len(where):4d}  {n}  ({sorted(where)[0]})", file=out)
    return 1 if failed else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m codegen.backends.c.coverage", description=__doc__.split("\n\n")[0])
    ap.add_argument("--ops-nn", required=True, type=Path, help="a checkout of hicann/ops-nn (working tree or bare)")
    ap.add_argument("--all", action="store_true", help="also list the names missing across every example program")
    args = ap.parse_args(argv)
    return report(args.ops_nn, args.all)


if __name__ == "__main__":
    sys.exit(main())
