"""CANN's own example programs (hicann/ops-nn, `*/examples/**/test_aclnn_*.cpp`) of every operator we generate,
built unchanged with g++ against the installed library (tests/test_c_package.py's prefix, the pkg-config
flags of docs/c-api.md) and run.  Their values are checked three ways, each independent of the program's run:
- a program printing `result[i] is: v` must print what our own call example of the op prints (the same data,
  from the op's aclnn page; tests/test_c_examples.py checks that against the page's values and NumPy);
- a program printing `output[i]=v, expected=w` checks itself: v must be w;
- the ones left (BCE-with-logits, L1Loss, SmoothL1Loss, KlDiv's `resultData[i] is: v`, experimental/, constant
  data in the program) against PyTorch's autograd, on the data read back from the program's text.

Needs a checkout of ops-nn ($OPGEN_OPS_NN, or the mirror below) and cmake; skips without them (CI has
neither: there tests/test_c_examples.py and tests/test_c_package.py build our equivalents)."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

import codegen
from codegen.backends.c import examples
from codegen.backends.c.coverage import OP_CALL, Checkout, code_only

from .test_c_package import needs_cmake, install

OPS = {op.name: op for op in codegen.load_specs().values()}
OPS_NN = Path(os.environ.get("OPGEN_OPS_NN", "/work/.mirror/hicann+ops-nn/repo"))
PROGRAM = re.compile(r"(^|/)examples/(.*/)?test_aclnn_\w+\.cpp$")
RESULT = re.compile(r"result\[(\d+)\] is: (\S+)")
SELF_CHECKED = re.compile(r"output\[(\d+)\]=(\S+), expected=(\S+)")


def _programs() -> dict[str, str]:
    """{path: text} of the example programs that call one of our operators."""
    if not OPS_NN.exists():
        return {}
    checkout = Checkout(OPS_NN)
    texts = checkout.read_many([p for p in checkout.paths() if PROGRAM.search(p)])
    return {p: t for p, t in sorted(texts.items()) if set(OP_CALL.findall(code_only(t))) & set(OPS)}


PROGRAMS = _programs()
pytestmark = [pytest.mark.skipif(not PROGRAMS, reason=f"no ops-nn checkout at {OPS_NN} (set OPGEN_OPS_NN)"),
              needs_cmake]


def _bce_expected_by_torch(text: str) -> list[float]:
    """experimental/…/test_aclnn_sigmoid_cross_entropy_with_logits_grad_v2.cpp: the gradient of
    binary_cross_entropy_with_logits(x=1, target=0.5, weight=1, pos_weight=2, mean over 32x32) for gradOutput 1,
    the data the program fills in (read back from its text, so that a change there fails here)."""
    torch = pytest.importorskip("torch")
    for fact in ("commonShape = {32, 32}", "predictHostData(elementCount, 1.0f)", "targetHostData(elementCount, 0.5f)",
                 "doutHostData(elementCount, 1.0f)", "weightHostData(GetShapeSize(weightShape), 1.0f)",
                 "posWeightHostData(GetShapeSize(posWeightShape), 2.0f)", "int64_t reduction = 1"):
        assert fact in text, f"the program's data changed: no {fact!r}"
    x = torch.ones(32, 32, dtype=torch.float64, requires_grad=True)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(
        x, torch.full((32, 32), 0.5, dtype=torch.float64), weight=torch.ones(32, 32, dtype=torch.float64),
        pos_weight=torch.full((32, 32), 2.0, dtype=torch.float64), reduction="mean")
    loss.backward()
    return x.grad.reshape(-1).tolist()


def _floats(text: str, name: str) -> list[float]:
    """The values of `std::vector<float> <name> = {...};` in a program's text (C float literals: 1.0F, .5f)."""
    m = re.search(rf"std::vector<float> {name} = {{([^}}]*)}};", text)
    assert m, f"the program's data changed: no {name}"
    return [float(v.strip().rstrip("fF")) for v in m.group(1).split(",")]


def _ints_as_floats(text: str, name: str) -> list[float]:
    """`std::vector<int> <name> = {...};` passed to aclCreateTensor as ACL_FLOAT: its bytes read as FLOAT (the
    int 1 is the denormal 1.4e-45), as the library reads them."""
    import numpy as np
    m = re.search(rf"std::vector<int> {name} = {{([^}}]*)}};", text)
    assert m, f"the program's data changed: no std::vector<int> {name}"
    return np.array([int(v) for v in m.group(1).split(",")], np.int32).view(np.float32).astype(float).tolist()


def _gelu_v2_expected(text: str) -> list[float]:
    """activation/gelu_grad_v2 (and experimental/): gradOutput is a std::vector<int> of 1s created as ACL_FLOAT,
    so every gradient is about 1.4e-45 times GELU'(x) and the program rightly prints 0.000000: PyTorch's
    gelu_backward (tanh) on those bytes.  (A check of the build, the call and the printing; the values of
    GeluBackwardV2 themselves are the oracle's and our call example's.)"""
    torch = pytest.importorskip("torch")
    for fact in ("aclDataType::ACL_FLOAT, &self);", '"tanh";'):
        assert fact in text, f"the program's data changed: no {fact!r}"
    g = torch.tensor(_ints_as_floats(text, "gradOutputHostData"), dtype=torch.float64)
    x = torch.tensor(_floats(text, "selfHostData"), dtype=torch.float64)
    return torch.ops.aten.gelu_backward(g, x, approximate="tanh").reshape(-1).tolist()


def _aten_expected(text: str, kernel: str, tensors: tuple, facts=(), **kw) -> list[float]:
    """PyTorch's own backward kernel `torch.ops.aten.<kernel>` on the program's host vectors `tensors` (names, in
    the kernel's order), with the attributes `kw` that the lines `facts` fix in the program's text: the program's
    data, a computation independent of ours and of the program."""
    torch = pytest.importorskip("torch")
    for fact in facts:
        assert fact in text, f"the program's data changed: no {fact!r}"
    args = [torch.tensor(_floats(text, t), dtype=torch.float64) for t in tensors]
    return getattr(torch.ops.aten, kernel)(*args, **kw).reshape(-1).tolist()


# SELU's constants (PyTorch's, the library's): SeluBackward is ELU's backward on the forward's result
SELU = dict(alpha=1.6732632423543772848170429916717, scale=1.0507009873554804934193349852946, input_scale=1.0,
            is_result=True)


def _loss_expected_by_torch(text: str, loss: str, grad: str, x: str, target: str, reduction: int, facts=(),
                            wrt="x", **kw):
    """The gradient w.r.t. x (or `wrt="target"`) of torch.nn.functional.<loss>(x, target, reduction, **kw) for
    gradOutput `grad` (names of the program's host vectors; `reduction` the value it passes and `facts` the lines
    fixing `kw`, checked in its text)."""
    torch = pytest.importorskip("torch")
    for fact in (f"int64_t reduction = {reduction};", *facts):
        assert fact in text, f"the program's data changed: no {fact!r}"
    xs = torch.tensor(_floats(text, x), dtype=torch.float64, requires_grad=wrt == "x")
    ts = torch.tensor(_floats(text, target), dtype=torch.float64, requires_grad=wrt == "target")
    out = getattr(torch.nn.functional, loss)(xs, ts, reduction={0: "none", 1: "mean", 2: "sum"}[reduction], **kw)
    g = torch.tensor(_floats(text, grad), dtype=torch.float64)
    out.backward(g if reduction == 0 else g[0])
    return (xs if wrt == "x" else ts).grad.tolist()


def _geglu_expected_by_torch(text: str, facts=()) -> list[float]:
    """activation/ge_glu_grad_v2/…/test_aclnn_ge_glu_(v3_)backward.cpp create ACL_FLOAT16 tensors from
    std::vector<float> data: each tensor holds the first bytes of its floats read as FLOAT16 (-2.0f is the halves
    0 and -2, -1.0f is 0 and -1.875).  The gradient of a·GELU_tanh(b) on those data, with gradOutput·gelu (the
    given gelu, not GELU(b)) as the first half's gradient, by PyTorch's autograd."""
    torch = pytest.importorskip("torch")
    import numpy as np
    for fact in ("int64_t dim = -1;", "int64_t approximate = 1;", "aclDataType::ACL_FLOAT16, &gelu);", *facts):
        assert fact in text, f"the program's data changed: no {fact!r}"

    def half(name, n):
        return torch.tensor(np.array(_floats(text, name), np.float32).view(np.float16)[:n].astype(np.float64))
    g, x, gelu = half("gradOutputHostData", 2).reshape(2, 1), half("selfHostData", 4).reshape(2, 2), \
        half("geluHostData", 2).reshape(2, 1)
    a, b = x[:, :1].clone().requires_grad_(True), x[:, 1:].clone().requires_grad_(True)
    (da,) = torch.autograd.grad(a * gelu, a, g)
    (db,) = torch.autograd.grad(a * torch.nn.functional.gelu(b, approximate="tanh"), b, g)
    return torch.cat([da, db], dim=1).reshape(-1).tolist()


# the programs that print their result in a format of their own, or whose data differ from the spec's Example:
# (how a value is printed, the expected values)
def _swiglu_group_expected_by_torch(text: str) -> list[float]:
    """quant/swiglu_group_grad/examples/test_aclnn_swiglu_group_grad.cpp (run on the Ascend 950, which the program
    asks for): gradY 1, x 0.5, weight 1, yOrigin 0.3, groupIndex {T}, clampLimit 3 on [T, 2H] = [4, 32]; it prints
    the first 10 of gradXOut (all in x0's half) and of gradWeightOut (T = 4 of them).  Read back from its text."""
    import torch
    for fact in ("int64_t T = 4;", "int64_t H = 16;", "float clampLimit = 3.0f;", "hostX(GetShapeSize(xShape), 0.5f)",
                 "hostYOrigin(GetShapeSize(yOriginShape), 0.3f)", "hostGradY(GetShapeSize(gradYShape), 1.0f)"):
        assert fact in text, fact
    x = torch.full((4, 32), 0.5, dtype=torch.float64, requires_grad=True)
    x0, x1 = torch.clamp(x[:, :16], max=3.0), torch.clamp(x[:, 16:], -3.0, 3.0)
    (x0 * torch.sigmoid(x0) * x1).sum().backward()
    return [float(f"{v:f}") for v in x.grad.reshape(-1)[:10].tolist()] + [float(f"{0.3 * 16:f}")] * 4


def _swiglu_group_quant_expected(text: str) -> list[float]:
    """activation/swiglu_group_quant_grad/examples/arch35/test_aclnn_swiglu_group_quant_grad.cpp (run on the Ascend
    950): gradY [512, 512], x [512, 1024] and yOrigin FLOAT16 tensors whose device buffers are copied from `float`
    vectors (so each FLOAT16 element is half of a float's bytes), weight FLOAT, groupIndex 2i for 256 groups (sum
    65280: every row), clampLimit 1; it prints the first 10 floats of gradX's buffer (20 FLOAT16 elements read as
    10 floats) and the first 10 of gradWeight.  Expected: PyTorch's float64 autograd of the forward on those FLOAT16
    values, gradX rounded to FLOAT16 and its bytes read as floats; gradWeight = Σ_h gradY·yOrigin (every row)."""
    import numpy as np
    import torch
    for fact in ("gradYShape = {512, 512}", "xShape = {512, 1024}", "gradYHostData[i] = static_cast<float>(i % 10) * 0.1f;",
                 "xHostData[i] = static_cast<float>((i % 20) - 10) * 0.5f;", "float clampLimit = 1.0f;",
                 "weightHostData[i] = static_cast<float>((i % 5) + 1) * 0.2f;", "groupIndexHostData[i] = i * groupStride;",
                 "yOriginHostData[i] = static_cast<float>((i % 8) + 1) * 0.3f;", "aclDataType::ACL_FLOAT16, &yOriginTensor"):
        assert fact in text, fact

    def halves(values, shape):   # a float vector's bytes read as FLOAT16 elements of `shape`
        n = int(np.prod(shape))
        return np.asarray(values, np.float32).view(np.float16)[:n].reshape(shape).astype(np.float64)

    i = np.arange(512 * 512)
    g = halves((i % 10).astype(np.float32) * np.float32(0.1), (512, 512))
    x = halves(((np.arange(512 * 1024) % 20) - 10).astype(np.float32) * np.float32(0.5), (512, 1024))
    yo = halves(((i % 8) + 1).astype(np.float32) * np.float32(0.3), (512, 512))
    w = (((np.arange(512) % 5) + 1).astype(np.float32) * np.float32(0.2)).astype(np.float64)
    xt = torch.tensor(x, requires_grad=True)
    x0, x1 = torch.clamp(xt[:, :512], max=1.0), torch.clamp(xt[:, 512:], -1.0, 1.0)
    (x0 * torch.sigmoid(x0) * x1 * torch.tensor(w)[:, None] * torch.tensor(g)).sum().backward()
    gx = xt.grad.numpy().astype(np.float16).reshape(-1)[:20].view(np.float32)
    return [float(f"{v:f}") for v in gx.tolist()] + [float(f"{v:f}") for v in (g * yo).sum(axis=1)[:10].tolist()]


BY_TORCH = {
    "activation/swiglu_group_quant_grad/examples/arch35/test_aclnn_swiglu_group_quant_grad.cpp": (
        r"grad(?:X|Weight)\[\d+\] = (\S+)", _swiglu_group_quant_expected),
    "quant/swiglu_group_grad/examples/test_aclnn_swiglu_group_grad.cpp": (
        r"grad(?:X|Weight)Out\[\d+\] is: (\S+)", _swiglu_group_expected_by_torch),
    "activation/ge_glu_grad_v2/examples/test_aclnn_ge_glu_backward.cpp": (
        r"result\[\d+\] is: (\S+)", _geglu_expected_by_torch),
    "activation/ge_glu_grad_v2/examples/test_aclnn_ge_glu_v3_backward.cpp": (
        r"result\[\d+\] is: (\S+)", lambda t: _geglu_expected_by_torch(t, facts=("bool activateLeft = false;",))),
    "experimental/loss/l1_loss_grad/examples/test_aclnn_l1_loss_grad.cpp": (
        r"Index\[\d+\]: (\S+)",
        lambda t: _loss_expected_by_torch(t, "l1_loss", "gradsHostData", "predictHostData", "labelHostData", 1)),
    "experimental/loss/smooth_l1_loss_grad_v2/examples/test_aclnn_smooth_l1_loss_grad_v2.cpp": (
        r"gradient\[\d+\] = (\S+)",
        lambda t: _loss_expected_by_torch(t, "smooth_l1_loss", "doutHostData", "predictHostData", "labelHostData", 0,
                                          facts=("double sigma = 1.0;",), beta=1.0)),
    **{f"{root}loss/kl_div_loss_grad/examples/test_aclnn_kl_div_loss_grad.cpp": (
        r"resultData\[\d+\] is: (\S+)",
        lambda t: _loss_expected_by_torch(t, "kl_div", "gradOutputHostData", "selfHostData", "targetHostData", 0,
                                          facts=("bool logTarget = false;",), log_target=False))
       for root in ("", "experimental/")},
    **{f"{root}activation/gelu_grad_v2/examples/test_aclnn_gelu_backward_v2.cpp": (
        r"result\[\d+\] is: (\S+)", _gelu_v2_expected) for root in ("", "experimental/")},
    "activation/selu_grad/examples/test_aclnn_selu_grad.cpp": (
        r"result\[\d+\] is: (\S+)",
        lambda t: _selu_expected(t, "gradOutputHostData", "selfHostData")),
    "experimental/activation/selu_grad/examples/test_aclnn_selu_grad.cpp": (
        r"y\[\d+\] = (\S+)", lambda t: _selu_expected(t, "gradientsData", "outputsData")),
    "experimental/activation/relu_grad/examples/test_aclnn_threshold_backward.cpp": (
        r"result\[\d+\] is: (\S+)",
        lambda t: _aten_expected(t, "threshold_backward", ("gradOutputHostData", "selfHostData"),
                                 facts=("float thresholdValue = 0.0f;",), threshold=0.0)),
    "experimental/activation/sigmoid_grad/examples/test_aclnn_sigmoid_grad.cpp": (
        r"result\[\d+\] is: (\S+)",
        lambda t: _aten_expected(t, "sigmoid_backward", ("gradOutputHostData", "outputHostData"))),
    "loss/kl_div_target_loss_grad/examples/test_aclnn_kl_div_target_backward.cpp": (
        r"resultData\[\d+\] is: (\S+)",
        lambda t: _loss_expected_by_torch(t, "kl_div", "gradOutputHostData", "selfHostData", "targetHostData", 0,
                                          facts=("bool logTarget = false;",), wrt="target", log_target=False)),
}


def _selu_expected(text: str, grad: str, result: str) -> list[float]:
    """aten's elu_backward with SELU's constants on the result (the tensor CANN's API calls `self`/`outputs`)."""
    torch = pytest.importorskip("torch")
    g, y = (torch.tensor(_floats(text, n), dtype=torch.float64) for n in (grad, result))
    return torch.ops.aten.elu_backward(g, self_or_result=y, **SELU).reshape(-1).tolist()


# programs that check their values themselves against their own expected data, and print a verdict only when
# they all agree (each exits non-zero on a mismatch, too): the line that says so
SELF_VERDICT = {
    "activation/selu_grad/examples/arch35/test_aclnn_selu_grad.cpp": r"Total: 8 PASS, 0 FAIL",
    "experimental/activation/relu_grad_v2/examples/test_aclnn_relu_grad_v2.cpp": r"default example passed",
    # (prints each value, and stops with exit code 1 at the first one off its expected data by more than 1e-5)
    "experimental/activation/hard_sigmoid_grad_v3/examples/test_aclnn_hard_sigmoid_grad_v3.cpp": r"(out\[\d+\] = \S+\n){8}",
}


# programs that print no values, only that every call succeeded: the line that says so (their operator's values
# are checked by the oracle and by our call example)
NO_VALUES = {
    "experimental/activation/log_softmax_grad/examples/test_aclnn_log_softmax_grad.cpp": r"\[INFO\]  Write output success\.",
}


# operators ops-nn has no example program for (their aclnn page's example is ours: tests/test_c_examples.py)
WITHOUT_PROGRAM = {"aclnnBinaryCrossEntropyWithLogitsTargetBackward"}


def test_every_seed_op_has_official_programs():
    called = {name for t in PROGRAMS.values() for name in OP_CALL.findall(code_only(t))}
    assert set(OPS) - WITHOUT_PROGRAM <= called, sorted(set(OPS) - WITHOUT_PROGRAM - called)
    assert not WITHOUT_PROGRAM & called, "a program exists now: check it"
    assert len(PROGRAMS) >= 9


# CANN's example programs that cannot pass, each a strict xfail with the reason (written on the op's page, and in
# docs/c-api.md "CANN's own example programs")
OPEN = {
    "experimental/activation/hard_swish_grad/examples/test_aclnn_hard_swish_grad.cpp":
        "HardswishBackward: the experimental kernel's program expects the outer branches at x = +-3 (0 and "
        "gradOutput, V2's convention); the spec follows the docs and the main kernel's middle branch (the op's page)",
    "experimental/activation/mish_grad_v2/examples/test_aclnn_mish_grad_v2.cpp":
        "MishBackward: the program is not valid C++ (its `goto cleanup` jumps over the initialization of "
        "workspaceSize and executor, which g++ refuses); activation/mish_grad's program passes",
    "loss/cross_entropy_loss_grad/examples/test_aclnn_cross_entropy_loss_grad.cpp":
        "CrossEntropyLossGrad: the program copies std::vector<float> data into its BFLOAT16 tensors (gradLoss, "
        "logProb: each float read as two bfloat16) and its INT64 target (the second index read past the buffer), so "
        "it prints garbage; the op page's example uses INT64 targets and the same values, and prints the docs' result",
}


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.xfail(strict=True, reason="open: " + OPEN[p]))
                                  if p in OPEN else p for p in sorted(PROGRAMS)] or ["(none)"])
def test_official_example_builds_unchanged_and_prints_the_right_values(path, tmp_path):
    text = PROGRAMS[path]
    prefix = install("Debug")
    source = tmp_path / Path(path).name
    source.write_text(text)
    exe = tmp_path / "program"
    # the link line of docs/c-api.md (pkg-config's flags, written out) with the static library
    build = subprocess.run(["g++", "-std=c++17", str(source), f"-I{prefix}/include", f"-I{prefix}/include/aclnnop",
                            str(prefix / "lib" / "libopgen_aclnn.a"), "-lm", "-lpthread", "-o", str(exe)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    # (an op the default SoC does not run: its program asks for the SoC of its table, SwigluGroupGrad's 950)
    socs = [next(iter(op.dtypes)) for n in dict.fromkeys(OP_CALL.findall(code_only(text))) if (op := OPS.get(n))
            and "ascend910b" not in op.dtypes]
    env = dict(os.environ, OPGEN_SOC_VERSION=socs[0]) if socs else None
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    printed = run.stdout
    if path in SELF_VERDICT:
        assert re.search(SELF_VERDICT[path], printed), f"{path}: its own check did not pass:\n{printed}"
        return
    if path in NO_VALUES:
        assert re.search(NO_VALUES[path], printed), f"{path}: no success line:\n{printed}"
        return
    ops = [OPS[n] for n in dict.fromkeys(OP_CALL.findall(code_only(text))) if n in OPS]
    # an op with several outputs: each output's values under its own name (gradInput[0] is: ...), as ours prints
    result = re.compile(rf"({'|'.join(o.name for o in ops[0].outputs)})\[(\d+)\] is: (\S+)") \
        if ops and ops[0].per_output else RESULT
    if result.search(printed) and path not in BY_TORCH:
        ours = examples.build_and_run(ops[0])
        assert result.findall(printed) == result.findall(ours), f"{path} prints:\n{printed}\nour example:\n{ours}"
    elif SELF_CHECKED.search(printed):
        pairs = SELF_CHECKED.findall(printed)
        assert all(float(got) == float(want) for _, got, want in pairs), printed
    elif path in BY_TORCH:
        pattern, expected = BY_TORCH[path]
        got = [float(v) for v in re.findall(pattern, printed)]
        want = expected(text)
        assert got and got == pytest.approx(want, rel=1e-5, abs=1e-6), (got, want)
    else:
        got = [float(v) for v in re.findall(r"output\[\d+\]=(\S+)", printed)]
        assert got and "sigmoid_cross_entropy_with_logits_grad_v2" in path, f"{path}: no values checked:\n{printed}"
        want = _bce_expected_by_torch(text)
        assert got == pytest.approx(want[:len(got)], rel=1e-5), (got, want[:len(got)])
