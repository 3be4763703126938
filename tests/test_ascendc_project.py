"""The generated CANN projects: OpDef dtype lists equal the spec's tables, the simulator compiles exactly the
checked-in files, the tiling the kernel ran with is the one Python evaluates and fits the UB, refusals match
the checker's, and `opgen tiling` reports it."""
from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

import codegen
from codegen.backends.ascendc import tiling as T
from codegen.backends.ascendc.binding import project, run_kernel
from codegen.backends.ascendc.plan import DTYPE_BYTES
from codegen.backends.ascendc.socs import tiling_ub
from codegen.backends.numpy import load_module
from codegen.runtime.checks import Allocate
from codegen.backends.ascendc.socs import kernel_socs
from codegen.spec import KERNEL_DTYPES, PRODUCTS

from .conftest import REPO
from .samples import ascendc_plan as plan   # (once per op: planning again costs CPU on every case)
from .samples import fit

OPS = codegen.load_specs()
# (an Ascend 950 only op has no Ascend C project: SwigluGroupGrad)
OPS = {n: op for n, op in OPS.items() if kernel_socs(op)}
GE = {"ge::DT_FLOAT": "FLOAT", "ge::DT_FLOAT16": "FLOAT16", "ge::DT_BF16": "BFLOAT16"}


def _dtypes_in(block: str, tensor: str) -> set:
    m = re.search(r'Input\("' + tensor + r'"\)[^;]*?\.DataType\(\{([^}]*)\}\)', block, re.S) or \
        re.search(r'Output\("' + tensor + r'"\)[^;]*?\.DataType\(\{([^}]*)\}\)', block, re.S)
    assert m, tensor
    return {GE[d.strip()] for d in m.group(1).split(",")}


@pytest.mark.parametrize("name", sorted(OPS))
def test_opdef_dtype_lists_equal_the_spec_table(name):
    p = plan(OPS[name])
    op = p.op   # (a split op's kernel op: its halves are the kernel's inputs, codegen.spec.split)
    text = (REPO / "generated" / "ascendc" / name / "op_host" / f"{name}.cpp").read_text()
    configs = dict(re.findall(r'AddConfig\("(\w+)", (\w+)Config\)', text))
    # one AddConfig per product of the spec with an Ascend C architecture (kernel_socs), listing the dtypes an
    # AI Core kernel reads and writes (the op_api layer casts the others, or hands DOUBLE to the AI CPU)
    assert sorted(configs) == sorted(kernel_socs(op)), "one AddConfig per product of the spec, no other"
    for soc in kernel_socs(op):
        block = text[text.index(f"OpAICoreConfig {soc}Config;"):text.index(f'AddConfig("{soc}"')]
        for t in p.operands + [op.output.name]:
            # (a BOOL tensor, a mask, is cast by level 2 to the inputs' dtype: the kernel reads every input in one)
            table = op.dtypes if op.param(t) in op.bool_tensors else op.dtypes_of(t)
            assert _dtypes_in(block, t) == set(table[soc]) & set(KERNEL_DTYPES), (soc, t)
        assert len(re.findall(r"\.DataType\(", block)) == len(p.operands) + 1
    # the kernel's operands are inputs, scalars and attributes are attrs; a tensor no variant reads is not an input
    for q in op.params:
        assert (f'"{q.name}"' in text) == (q.kind not in ("tensor",) or q.name in p.operands), q.name


@pytest.mark.parametrize("name", sorted(OPS))
def test_the_simulator_compiles_the_checked_in_files(name):
    for path, text in project(OPS[name]).items():
        assert (REPO / "generated" / "ascendc" / name / path).read_text() == text, path


def _call(op, n, rng):
    kw = {}
    for p in op.params:
        if p.kind == "tensor" and p in op.bool_tensors:   # a mask
            kw[p.py_name] = rng.uniform(0, 1, (n,)) < 0.25
        elif p.kind == "tensor":
            kw[p.py_name] = rng.uniform(0.1, 1, (n,)).astype(np.float32)
        elif p.kind == "scalar":
            kw[p.py_name] = 0.5
        elif p.kind == "attr":
            kw[p.py_name] = p.typical
    return kw


def _tiling_cases() -> list:
    """(op, product) for every product with an Ascend C architecture an op runs on, under --deep.  In CI: each op on
    the products whose architecture tests/test_ascendc_values builds for it anyway (the value sweep's ci_sample: a
    launcher is ~2.5 s of CPU, and the other architectures were 40 more of them), and every product on at least one
    op of each kind (conftest.op_kind: each kind's tiling layout), the first op by hash where no drawn one has it."""
    from codegen.backends.ascendc.plan import ARCH
    from . import conftest
    from .samples import ascendc_cases
    every = [(n, soc) for n in sorted(OPS) for soc in ("ascend910", "ascend310p", "ascend910b", "ascend910_93")
             if soc in OPS[n].dtypes and soc in ARCH]
    if conftest.DEEP:
        return every
    built = {(n, ARCH[soc]) for n, soc, *_ in ascendc_cases(OPS)}
    keep = [(n, soc) for n, soc in every if (n, ARCH[soc]) in built]
    covered = {(conftest.op_kind(OPS[n]), soc) for n, soc in keep}
    for n, soc in sorted(every, key=lambda c: conftest._draw(c[0], 1 << 30)):
        if (conftest.op_kind(OPS[n]), soc) not in covered:
            covered.add((conftest.op_kind(OPS[n]), soc))
            keep.append((n, soc))
    return sorted(keep)


@pytest.mark.parametrize("name, product", _tiling_cases(), ids=str)
def test_the_kernel_runs_the_python_tiling_within_the_ub(name, product):
    op = OPS[name]
    p = plan(op)
    # a split op's kernel runs on its halves (its kernel op, codegen.spec.split), an op with several outputs' on
    # one output at a time (its kernel op's outputIndex, codegen.spec.outputs)
    whole, op = op, p.op
    prod = PRODUCTS[product]
    rng = np.random.default_rng(0)
    from codegen.spec.outputs import OUTPUT_INDEX
    index = [(op.param(OUTPUT_INDEX).py_name, k) for k in range(len(whole.outputs))] if whole.per_output else [None]
    for n, chosen in [(n, i) for n in (17, 4097, 300_001) for i in index]:
        kw = _call(op, n, rng)
        if chosen is not None:   # several outputs: each output's variant
            kw[chosen[0]] = chosen[1]
        if whole.split is None and not whole.per_output:   # (the kernel op takes no checks: its op's ran on the
            # whole input): the scalars and attributes as the check converts them, on a call of 17 elements at the
            # rules' minimum rank (a row of n may be longer than they allow: ScaledMaskedSoftmaxBackward's 4096)
            check = load_module(op).check
            probe = fit(op, _call(op, 17, np.random.default_rng(1)))
            kw.update(check(*[probe[q.py_name] for q in op.params if q.kind != "output"], Allocate("FLOAT"),
                            product))
        report = {}
        run_kernel(op, p, kw, (n,), "FLOAT", product, report=report)
        v = next(x for x in p.variants if x.index == report["tilingKey"] // 100 - 1)
        want = T.evaluate(v.layout, n, n, prod.cores, tiling_ub(product), 4, 4)
        for f in T.fields(v.layout):
            assert report[f] == want[f], f
        assert report["ubPeak"] == want["ubBytes"] <= tiling_ub(product)
        assert report["blocksRun"] == want["usedCores"] <= prod.cores
        if n == 4097 and not p.rows:
            assert want["usedCores"] > prod.cores // 2 and want["lastBlockLength"] < want["blockLength"]  # uneven tail


def test_tiling_never_exceeds_the_ub():
    for op in OPS.values():
        for v in plan(op).variants:
            for soc in kernel_socs(op):
                prod = PRODUCTS[soc]
                for n, row in ((1, 1), (4097, 4097), (10**6, 10**6), (10**6, 1000), (2**31, 2**31)):
                    if not v.layout.rows:
                        row = n
                    for b in ((4, 4), (2, 2), (2, 4), (4, 2)):
                        t = T.evaluate(v.layout, n, row, prod.cores, tiling_ub(soc), *b)
                        assert t["ubBytes"] <= tiling_ub(soc) and t["tileLength"] % T.TILE_ALIGN == 0


def _unsupported_calls() -> list:
    """One (op, product, dtype) per op that its spec does not list, read from its table: by turns a dtype
    missing on a product the op has (BFLOAT16 on the training series) and a product the op lacks."""
    out = []
    for i, name in enumerate(sorted(OPS)):
        table = OPS[name].dtypes
        missing = [(soc, dt) for soc in PRODUCTS for dt in ("FLOAT", "BFLOAT16") if dt not in table.get(soc, ())]
        out.append((name, *sorted(missing, key=lambda m: (m[0] in table) == i % 2)[0]))
    return out


@pytest.mark.parametrize("name, product, dtype", _unsupported_calls())
def test_unsupported_products_are_refused_like_the_checker(name, product, dtype):
    import ml_dtypes
    op = OPS[name]
    kw = _call(op, 8, np.random.default_rng(0))
    t = {"FLOAT": np.float32, "BFLOAT16": ml_dtypes.bfloat16}[dtype]
    kw = {k: (v.astype(t) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    errors = []
    for backend in ("numpy", "ascendc"):
        with pytest.raises(codegen.AclnnError) as info:
            codegen.kernel(name, backend=backend)(**kw, product=product)
        errors.append((info.value.status, info.value.param, info.value.message))
    assert errors[0] == errors[1]


def test_opgen_tiling_command():
    r = subprocess.run([sys.executable, "-m", "codegen", "tiling", "softmax_backward", "--product", "ascend910b",
                        "--row", "100000", "--n", "400000"], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "softmax_backward  ascend910b  FLOAT" in r.stdout and "/row of 100000" in r.stdout
    assert "/196608" in r.stdout
    bad = subprocess.run([sys.executable, "-m", "codegen", "tiling", "--product", "ascend999"], cwd=REPO,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown product" in bad.stderr


def test_row_ops_split_rows_as_finely_as_whole_cache_lines_allow():
    """Each core's rows end on a 64-byte line (cores on dav-c100/dav-m200 write their tails by scalar stores),
    and no finer split would: rowAlign is the fewest rows of whole lines, checked by brute force here.  Few long
    rows use as many cores as rows (the regression: 64 rows of 4096 ran on 2-4 of 40 cores)."""
    lay = next(v.layout for op in OPS.values() for v in plan(op).variants if v.layout.rows)
    for row in (1, 7, 17, 33, 1000, 1024, 4096, 100_003):
        for in_b, out_b in ((4, 4), (2, 2), (2, 4), (4, 2)):
            t = T.evaluate(lay, 64 * row, row, 40, tiling_ub("ascend910b"), in_b, out_b)
            line = 64 // min(in_b, out_b)    # elements of the narrowest dtype per 64-byte line
            fewest = next(k for k in range(1, line + 1) if k * row % line == 0)
            assert t["rowAlign"] == fewest and t["rowsPerCore"] % fewest == 0
            assert t["rowsPerCore"] == -(-(-(-64 // 40)) // fewest) * fewest
    for row in (1000, 4096):
        assert T.evaluate(lay, 64 * row, row, 40, tiling_ub("ascend910b"), 4, 4)["usedCores"] == 32
