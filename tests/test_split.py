"""A forward input split in halves along dim (codegen.spec.split, GluBackward): the layouts the generic tests build
in one shape for every tensor (tests.samples.skip_split), on every kernel backend, against PyTorch's
aten::glu_backward in float64; the checkers' verdicts; a wrong half's form failing its proof.

Expected values come from PyTorch (an independent implementation), never from the spec's formula."""
from __future__ import annotations

import numpy as np
import pytest

import codegen
from codegen.backends import get
from codegen.errors import AclnnError, SpecError
from codegen.loader import load_spec_file
from codegen.verify import verify_op

from . import conftest

torch = pytest.importorskip("torch")

OPS = codegen.load_specs()
SPLIT = sorted(n for n, op in OPS.items() if op.split is not None)
BACKENDS = ["numpy", "c", "ascendc"]
LAYOUTS = [((2, 4, 6), 0), ((3, 8), -1), ((4, 6, 2), 1), ((6,), 0), ((2, 1, 2, 1, 2, 1, 2, 2), -1), ((0, 4), 1),
           ((4, 0), 0)]


def _torch(g, x, dim):
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a, dtype=np.float64))
    return torch.ops.aten.glu_backward(t(g), t(x), dim).numpy()


def _call(shape, dim, rng, dtype=np.float32):
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    gs = list(shape)
    gs[dim] //= 2
    return rng.uniform(-2, 2, gs).astype(dtype), x


def _close(got, want, dtype):
    tol = {np.float32: 2e-6, np.float16: 2e-3, np.float64: 1e-14}[dtype]
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("backend", BACKENDS)
def test_layouts_match_pytorch(backend):
    """Every rank 1-8, negative and positive dim, empty halves, FLOAT and FLOAT16 (and DOUBLE on NumPy and C)."""
    k = get(backend).make_kernel(OPS["glu_backward"])
    rng = np.random.default_rng(1)
    for shape, dim in LAYOUTS:
        for dtype in (np.float32, np.float16) + ((np.float64,) if backend != "ascendc" else ()):
            g, x = _call(shape, dim, rng, dtype)
            got = k(grad_out=g, self=x, dim=dim)
            assert got.shape == x.shape and got.dtype == x.dtype
            _close(got, _torch(g, x, dim), dtype)


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_strided_views_out_in_place_and_aliasing(backend):
    """Non-contiguous self and gradOut, a strided out= written in place and nowhere else, and out= aliasing self
    (the first half is written before the second reads the inputs: C stages it in the workspace)."""
    k = get(backend).make_kernel(OPS["glu_backward"])
    rng = np.random.default_rng(2)
    buf = (rng.standard_normal((8, 12)) * 3).astype(np.float32)
    x = buf[::2, 1::2]                                   # (4, 6), strided
    g = rng.uniform(-2, 2, (4, 7)).astype(np.float32)[:, 1::2]   # (4, 3), strided
    want = _torch(g, x, -1)
    holder = np.full((4, 13), np.nan, np.float32)
    out = holder[:, 1::2][:, :6]
    got = k(grad_out=g, self=x, dim=-1, out=out)
    assert got is out or np.shares_memory(got, out)
    _close(out, want, np.float32)
    mask = np.ones(holder.shape, bool)
    mask[:, 1:13:2] = False
    assert np.isnan(holder[mask]).all(), "wrote outside the out= view"
    # out= is self itself
    x2 = (rng.standard_normal((5, 8)) * 3).astype(np.float32)
    g2 = rng.uniform(-2, 2, (5, 4)).astype(np.float32)
    want2 = _torch(g2, x2, 1)
    k(grad_out=g2, self=x2, dim=1, out=x2)
    _close(x2, want2, np.float32)


def test_threads_give_the_same_bits(monkeypatch):
    """C with one thread and with two over a call large enough to share (both halves)."""
    rng = np.random.default_rng(3)
    g, x = _call((32, 2048), 1, rng)
    monkeypatch.setenv("OPGEN_NUM_THREADS", "1")
    one = get("c").make_kernel(OPS["glu_backward"])(grad_out=g, self=x, dim=1)
    monkeypatch.setenv("OPGEN_NUM_THREADS", "2")
    two = get("c").make_kernel(OPS["glu_backward"])(grad_out=g, self=x, dim=1)
    assert one.tobytes() == two.tobytes()
    _close(one, _torch(g, x, 1), np.float32)


BAD = [  # (call, status, parameter): each rule of the split, as both checkers report it
    (dict(grad_out=np.ones((2, 3), np.float32), self=np.ones((2, 5), np.float32), dim=1), 161002, "self"),
    (dict(grad_out=np.ones((2, 3), np.float32), self=np.ones((2, 6), np.float32), dim=0), 161002, "gradOut"),
    (dict(grad_out=np.ones((2, 3), np.float32), self=np.ones((2, 6), np.float32), dim=2), 161002, "dim"),
    (dict(grad_out=np.ones((2, 3), np.float32), self=np.ones((2, 6), np.float32), dim=-3), 161002, "dim"),
    (dict(grad_out=np.ones(1, np.float32), self=np.ones((), np.float32), dim=0), 161002, "self"),
    (dict(grad_out=np.ones((2, 3), np.float16), self=np.ones((2, 6), np.float32), dim=1), 161002, "gradOut"),
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_checkers_agree_on_the_split_rules(backend):
    k = get(backend).make_kernel(OPS["glu_backward"])
    for kw, status, param in BAD:
        with pytest.raises(AclnnError) as e:
            k(**kw)
        assert (e.value.status, e.value.param) == (status, param), (kw, e.value)
    with pytest.raises(AclnnError) as e:
        k(grad_out=np.ones((2, 3), np.float32), self=np.ones((2, 6), np.float32), dim=1,
          out=np.ones((2, 7), np.float32))
    assert (e.value.status, e.value.param) == (161002, "out")


def test_a_wrong_half_fails_its_proof_and_a_form_without_a_half_is_refused(tmp_path):
    src = (codegen.loader._resolve() / "glu_backward.py").read_text()
    wrong = src.replace("Formula(g * a * sigmoid(b) * (1 - sigmoid(b)), wrt=b)", "Formula(g * a * sigmoid(b), wrt=b)")
    assert wrong != src
    (tmp_path / "glu_backward.py").write_text(wrong)
    results = verify_op(load_spec_file(tmp_path / "glu_backward.py"), numeric=False)
    failed = [r for r in results if not r.ok]
    assert failed and all(r.formula.startswith("d/db") for r in failed)
    assert any(r.ok and r.formula.startswith("d/da") for r in results)
    (tmp_path / "glu_backward.py").write_text(src.replace("Formula(g * sigmoid(b), wrt=a)", "Formula(g * sigmoid(b))"))
    with pytest.raises(SpecError, match="which half"):
        load_spec_file(tmp_path / "glu_backward.py")


# ---- a tensor holding a function of a half (Tensor(holds=...)) and an int64 attribute choosing the form: GeGlu ----
def _geglu_torch(g, x, dim, approximate, gelu=None):
    """Autograd of a·GELU(b) in float64; with `gelu`, the first half's gradient is gradOutput·gelu (the tensor
    the library's kernel reads) instead of gradOutput·GELU(b)."""
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a, dtype=np.float64))
    x = t(x).requires_grad_(True)
    a, b = x.chunk(2, dim=dim)
    act = torch.nn.functional.gelu(b, approximate=("none", "tanh")[approximate])
    y = a * act if gelu is None else a * t(gelu) + a.detach() * (act - t(gelu))   # d/da: gelu, d/db: a·GELU'(b)
    (grad,) = torch.autograd.grad(y, x, t(g))
    return grad.numpy()


@pytest.mark.parametrize("backend", BACKENDS)
def test_geglu_reads_the_given_gelu_and_recomputes_gelu_prime_per_approximate(backend):
    """GeGluBackward, and GeGluV3Backward with activateLeft, against PyTorch's autograd; the checkers' new rules."""
    from codegen.spec.split import tied_values
    op = OPS["ge_glu_backward"]
    k = get(backend).make_kernel(op)
    rng = np.random.default_rng(4)
    for (shape, dim), approximate in [(((3, 8), -1), 0), (((4, 6, 2), 1), 1), (((2, 4, 6), 0), 1)]:
        g, x = _call(shape, dim, rng)
        kw = dict(grad_output=g, self=x, dim=dim, approximate=approximate)
        gelu = tied_values(op, kw)["gelu"]           # GELU(b) rounded to FLOAT, as the forward returns it
        _close(k(**kw, gelu=gelu), _geglu_torch(g, x, dim, approximate), np.float32)
        other = rng.uniform(-2, 2, gelu.shape).astype(np.float32)   # not GELU(b): read as given
        _close(k(**kw, gelu=other), _geglu_torch(g, x, dim, approximate, gelu=other), np.float32)
    # GeGluV3 with activateLeft: GELU(a)·b, gelu holding GELU(a) (a tie that changes half with the variant)
    v3 = OPS["ge_glu_v3_backward"]
    g, x = _call((4, 6, 2), 1, rng)
    for approximate in (0, 1):
        kw = dict(grad_output=g, self=x, dim=1, approximate=approximate, activate_left=True)
        got = get(backend).make_kernel(v3)(**kw, **tied_values(v3, kw))
        xt = torch.from_numpy(x.astype(np.float64)).requires_grad_(True)
        a, b = xt.chunk(2, dim=1)
        y = torch.nn.functional.gelu(a, approximate=("none", "tanh")[approximate]) * b
        _close(got, torch.autograd.grad(y, xt, torch.from_numpy(g.astype(np.float64)))[0].numpy(), np.float32)
    for kw, param in [(dict(approximate=2), "approximate"), (dict(gelu=np.ones((2, 4), np.float32)), "gelu")]:
        call = dict(grad_output=np.ones((2, 3), np.float32), self=np.ones((2, 6), np.float32),
                    gelu=np.ones((2, 3), np.float32), dim=1, approximate=1)
        with pytest.raises(AclnnError) as e:
            k(**{**call, **kw})
        assert (e.value.status, e.value.param) == (161002, param)


def test_geglu_spec_a_wrong_form_fails_and_a_half_reading_its_own_tie_is_refused(tmp_path):
    src = (codegen.loader._resolve() / "ge_glu_backward.py").read_text()
    path = tmp_path / "ge_glu_backward.py"
    # a wrong tanh form: only d/db with approximate=1 fails
    path.write_text(src.replace("(sigmoid(u) + b * sigmoid(u) * sigmoid(-u) * du)", "(sigmoid(u) + b * sigmoid(u))"))
    failed = [r for r in verify_op(load_spec_file(path), numeric=False) if not r.ok]
    assert failed and all(r.formula.startswith("d/db: approximate=1") for r in failed)
    path.write_text(src.replace("Formula(g * a * (cdf", "Formula(g * a * G * (cdf"))
    with pytest.raises(SpecError, match="reads gelu, which holds a function of b"):
        load_spec_file(path)
    path.write_text(src.replace('when={"approximate": 0}', 'when={"approximate": 2}'))
    with pytest.raises(SpecError, match="int64 Attr with one of its values"):
        load_spec_file(path)


# ---- rows of a split: interleaved halves and a row count (Split(interleaved=, rows=)): ClippedSwigluGrad ----------
def _clipped_torch(g, x, dim, interleaved, counts, alpha=1.702, limit=7.0, bias=1.0):
    """Autograd of the library's golden (activation/clipped_swiglu_grad/tests/assets/golden.py) in float64: x as
    [pre, cut], halves its rows' even/odd elements or front/back halves, rows from sum(counts) on not computed."""
    d = dim % x.ndim
    pre, cut = int(np.prod(x.shape[:d])), int(np.prod(x.shape[d:]))
    xt = torch.from_numpy(np.array(x, dtype=np.float64)).requires_grad_(True)
    rows = xt.reshape(pre, cut)
    a, b = (rows[:, 0::2], rows[:, 1::2]) if interleaved else (rows[:, :cut // 2], rows[:, cut // 2:])
    a0 = torch.clamp(a, max=limit)
    y = a0 * torch.sigmoid(alpha * a0) * (torch.clamp(b, -limit, limit) + bias)
    valid = pre if counts is None else max(0, min(int(np.sum(counts)), pre))
    gy = torch.from_numpy(np.array(g, dtype=np.float64)).reshape(pre, cut // 2).clone()
    gy[valid:] = 0
    return torch.autograd.grad(y, xt, gy)[0].numpy()


ROWS = [  # (x's shape, dim, interleaved, groupIndex): axes after dim interleave over the merged row
    ((2, 32), -1, True, None), ((3, 4, 6), 1, True, [1, 1]), ((4, 2, 3), 1, True, []), ((3, 2, 3), 1, False, [2]),
    ((2, 3, 4, 2), 2, True, [100]), ((4, 5), 0, True, None), ((5, 2, 3), 1, False, [-3, 1]), ((3, 0, 4), 2, True, [1]),
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_rows_interleaved_and_counted_match_autograd(backend):
    """Every layout of ROWS, contiguous and transposed (axes that do not merge: NumPy copies, C stages them in the
    workspace), FLOAT and FLOAT16 (in CI each layout in one of the three, in turn); the rows past the count are 0
    whatever x holds there (here inf)."""
    k = get(backend).make_kernel(OPS["clipped_swiglu_grad"])
    rng = np.random.default_rng(5)
    kinds = [(np.float32, False), (np.float32, True), (np.float16, True)]
    for i, (shape, dim, interleaved, counts) in enumerate(ROWS):
        for dtype, transposed in (kinds if conftest.DEEP else kinds[i % 3:i % 3 + 1]):
            x = (rng.standard_normal(shape) * 6).astype(dtype)
            gs = list(shape)
            gs[dim] //= 2
            g = rng.uniform(-2, 2, gs).astype(dtype)
            gi = None if counts is None else np.array(counts, np.int64)
            d = dim % len(shape)
            pre = int(np.prod(shape[:d]))
            valid = pre if gi is None else max(0, min(int(gi.sum()), pre))
            if valid < pre and x.size:
                x.reshape(pre, -1)[valid:] = np.inf   # not computed: no nan can reach the output
            if transposed and x.ndim > 1:
                x = np.ascontiguousarray(x.swapaxes(0, -1)).swapaxes(0, -1)
                g = np.ascontiguousarray(g.swapaxes(0, -1)).swapaxes(0, -1)
            got = k(grad_y=g, x=x, group_index_optional=gi, dim=dim, alpha=1.702, limit=7.0, bias=1.0,
                    interleaved=interleaved)
            assert got.shape == x.shape and got.dtype == x.dtype
            want = _clipped_torch(g, np.where(np.isinf(x), 0, x), dim, interleaved, counts)
            _close(got, want, dtype)


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_rows_strided_out_in_place_and_aliasing(backend):
    """Interleaved rows into a strided out= (written there and nowhere else), and out= aliasing x."""
    k = get(backend).make_kernel(OPS["clipped_swiglu_grad"])
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((4, 2, 6)) * 6).astype(np.float32)
    g = rng.uniform(-2, 2, (4, 1, 6)).astype(np.float32)
    kw = dict(grad_y=g, group_index_optional=np.array([1, 2], np.int64), dim=1, alpha=1.702, limit=7.0, bias=1.0,
              interleaved=True)
    want = _clipped_torch(g, x, 1, True, [1, 2])
    holder = np.full((4, 2, 13), np.nan, np.float32)
    out = holder[:, :, 1::2][:, :, :6]            # rows that do not merge into one stride
    k(x=x, out=out, **kw)
    _close(out, want, np.float32)
    mask = np.ones(holder.shape, bool)
    mask[:, :, 1:13:2] = False
    assert np.isnan(holder[mask]).all(), "wrote outside the out= view"
    x2 = x.copy()
    k(x=x2, out=x2, **kw)
    _close(x2, want, np.float32)


BAD_ROWS = [  # (changes to a valid call, status, parameter)
    (dict(group_index_optional=np.ones((1, 2), np.int64)), 161002, "groupIndexOptional"),
    (dict(group_index_optional=np.ones(2, np.int32)), 161002, "groupIndexOptional"),
    (dict(limit=0.0), 161002, "limit"),
    (dict(x=np.ones((2, 5), np.float32), grad_y=np.ones((2, 2), np.float32)), 161002, "x"),
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_checkers_agree_on_the_row_count(backend):
    k = get(backend).make_kernel(OPS["clipped_swiglu_grad"])
    call = dict(grad_y=np.ones((2, 3), np.float32), x=np.ones((2, 6), np.float32), group_index_optional=None, dim=-1,
                alpha=1.702, limit=7.0, bias=1.0, interleaved=True)
    for change, status, param in BAD_ROWS:
        with pytest.raises(AclnnError) as e:
            k(**{**call, **change})
        assert (e.value.status, e.value.param) == (status, param), (change, e.value)


def test_a_split_read_as_rows_needs_a_bool_attribute_and_an_optional_int64_count(tmp_path):
    src = (codegen.loader._resolve() / "clipped_swiglu_grad.py").read_text()
    path = tmp_path / "clipped_swiglu_grad.py"
    for old, new, message in [
            ('interleaved="interleaved"', 'interleaved="alpha"', "must name a bool Attr"),
            ('rows="groupIndexOptional"', 'rows="gradY"', r"groupIndexOptional needs a default value \(or, as a "
                                                          r"row count, Split\(rows="),
            ('role=OPERAND, optional=True, dtypes=INT64', 'role=OPERAND, optional=True', "optional INT64 Tensor")]:
        assert old in src
        path.write_text(src.replace(old, new))
        with pytest.raises(SpecError, match=message):
            load_spec_file(path)
