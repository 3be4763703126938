"""Class-index targets (codegen.spec.classes: NLLLossBackward, NLLLoss2dBackward): the layouts the generic tests
build in one shape for every tensor (tests.samples.skip_split), on every kernel backend, against PyTorch's
aten::nll_loss_backward and aten::nll_loss2d_backward; the checkers' verdicts on the class-index rules; the
prover deciding the index relations (a backward that forgets ignoreIndex fails its proof).

Expected values come from PyTorch (an independent implementation), never from the spec's formula."""
from __future__ import annotations

import numpy as np
import pytest

import codegen
from codegen.backends import get
from codegen.errors import AclnnError
from codegen.loader import load_spec_file
from codegen.spec.classes import grid_shape
from codegen.verify import verify_op

torch = pytest.importorskip("torch")

OPS = codegen.load_specs()
CLASSES = sorted(n for n, op in OPS.items() if op.classes is not None)
TORCH = {"nll_loss_backward": torch.ops.aten.nll_loss_backward, "nll_loss2d_backward": torch.ops.aten.nll_loss2d_backward}
# (op, self's shape): (N, C), a single sample (C), one class, no samples; (N, C, H, W), one pixel per image
LAYOUTS = [("nll_loss_backward", (6, 5)), ("nll_loss_backward", (5,)), ("nll_loss_backward", (4, 1)),
           ("nll_loss_backward", (0, 3)), ("nll_loss2d_backward", (2, 4, 3, 5)),
           ("nll_loss2d_backward", (3, 5, 1, 1)), ("nll_loss2d_backward", (1, 3, 0, 2))]


def _call(name, shape, reduction, ignore, rng, dtype=np.float32, target_dtype=np.int64):
    """A valid call: targets in [0, C) with some equal to ignoreIndex (a class of its own, or -100)."""
    axis = 1 if len(shape) >= 2 else 0
    samples = tuple(d for i, d in enumerate(shape) if i != axis)
    target = rng.integers(0, shape[axis], samples)
    target = np.where(rng.uniform(0, 1, samples) < 0.25, ignore, target)
    none = reduction == 0 and len(shape) >= 2
    return dict(grad_output=rng.uniform(-2, 2, samples if none else ()).astype(dtype),
                self=(rng.standard_normal(shape) * 3).astype(dtype), target=np.asarray(target).astype(target_dtype),
                weight=rng.uniform(0.2, 2, shape[axis]).astype(dtype), reduction=reduction, ignore_index=ignore,
                total_weight=np.array([rng.uniform(0.5, 4)], dtype))


def _torch(name, kw):
    f = lambda a: torch.from_numpy(np.ascontiguousarray(a, dtype=np.float64))
    return TORCH[name](f(kw["grad_output"]), f(kw["self"]), torch.from_numpy(kw["target"].astype(np.int64)),
                       f(kw["weight"]), kw["reduction"], kw["ignore_index"], f(kw["total_weight"]).reshape(())).numpy()


def _close(got, want, dtype):
    tol = {np.float32: 2e-6, np.float16: 2e-3}[dtype]
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("backend", ["numpy", "c", pytest.param("ascendc", marks=pytest.mark.deep)])
def test_layouts_match_pytorch(backend):
    """Every layout, every reduction, ignoreIndex a class of its own or outside the classes, FLOAT and FLOAT16,
    INT64, INT32 and UINT8 targets."""
    rng = np.random.default_rng(3)
    settings = [(1, np.float32, np.int64), (-100, np.float16, np.int32), (2, np.float32, np.uint8)]
    for i, (name, shape) in enumerate(LAYOUTS):
        k = get(backend).make_kernel(OPS[name])
        for reduction in (0, 1, 2):
            for ignore, dtype, tdt in (settings[(i + reduction) % 3],):   # each setting with each reduction
                kw = _call(name, shape, reduction, ignore, rng, dtype, tdt)
                got = k(**kw)
                assert got.shape == shape and got.dtype == dtype
                _close(got, _torch(name, kw), dtype)


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_strided_views_and_out_in_place(backend):
    """Non-contiguous self, target, weight and gradOutput, a strided out= written in place and nowhere else."""
    k = get(backend).make_kernel(OPS["nll_loss_backward"])
    rng = np.random.default_rng(4)
    kw = _call("nll_loss_backward", (6, 5), 0, 3, rng)
    want = _torch("nll_loss_backward", kw)
    for key in ("self", "target", "weight", "grad_output"):
        buf = np.zeros(tuple(2 * d for d in kw[key].shape), kw[key].dtype)
        view = buf[tuple(slice(None, None, 2) for _ in kw[key].shape)]
        view[...] = kw[key]
        kw[key] = view
    holder = np.full((6, 11), np.nan, np.float32)
    out = holder[:, 1::2]
    got = k(**kw, out=out)
    assert np.shares_memory(got, out)
    _close(out, want, np.float32)
    assert np.isnan(holder[:, 0::2]).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float16, "bfloat16"])
def test_many_classes_one_element_per_sample(dtype):
    """With many classes the C library computes the target's element of each sample only, the rest of the output
    0 (opgen_loops.c: run_sparse; 2-D pixels a row of each class at a time, fill_rows): against PyTorch, and bit
    for bit against the dense walk (a strided out=, which that path does not take), with ignored samples,
    INT32/UINT8 targets, a single sample, 2-D pixels and pixel rows longer than a block of samples."""
    import ml_dtypes
    dt = ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype
    rng = np.random.default_rng(7)
    for name, shape, reduction, ignore, tdt in [("nll_loss_backward", (9, 100), 0, 4, np.int64),
                                                ("nll_loss_backward", (300,), 1, -100, np.int32),
                                                ("nll_loss_backward", (7, 70), 2, 3, np.uint8),
                                                ("nll_loss2d_backward", (2, 65, 3, 2), 0, 5, np.int64),
                                                ("nll_loss2d_backward", (3, 64, 1, 2), 1, -100, np.int32),
                                                ("nll_loss2d_backward", (2, 16, 5, 3), 2, 0, np.int64),
                                                ("nll_loss2d_backward", (2, 17, 3, 100), 1, 3, np.int64)]:
        k = get("c").make_kernel(OPS[name])
        kw = _call(name, shape, reduction, ignore, rng, np.float32, tdt)
        want = _torch(name, kw)
        for key in ("grad_output", "self", "weight", "total_weight"):
            kw[key] = kw[key].astype(dt)
        dense = np.full(shape[:-1] + (2 * shape[-1],), np.nan, dt)[..., ::2]
        got = k(**kw)
        k(**kw, out=dense)
        assert got.shape == shape and got.dtype == dt
        assert got.tobytes() == np.ascontiguousarray(dense).tobytes(), (name, shape)
        tol = 2e-6 if dt == np.float32 else 1e-2
        rounded = lambda a: np.asarray(a, np.float64).astype(dt).astype(np.float64)   # the inputs' rounding
        np.testing.assert_allclose(np.asarray(got, np.float64), rounded(want), rtol=tol, atol=tol)


def test_many_classes_same_bits_at_any_thread_count(monkeypatch):
    """The one-element-per-sample path split over threads (zeroing, then samples; 2-D a slab at a time, written
    row by row) gives the bits of one thread and of the dense walk."""
    rng = np.random.default_rng(8)
    for name, shape in [("nll_loss_backward", (48, 1024)), ("nll_loss2d_backward", (4, 64, 16, 16))]:
        k = get("c").make_kernel(OPS[name])
        kw = _call(name, shape, 0, 2, rng)
        got = {}
        for threads in ("1", "2", "3"):
            monkeypatch.setenv("OPGEN_NUM_THREADS", threads)
            got[threads] = k(**kw).tobytes()
        dense = np.full(shape[:-1] + (2 * shape[-1],), np.nan, np.float32)[..., ::2]
        k(**kw, out=dense)
        assert got["1"] == got["2"] == got["3"] == np.ascontiguousarray(dense).tobytes(), name


BAD = [   # (op, what changes in a valid (4, 3) / (2, 3, 2, 2) call, the parameter reported)
    ("nll_loss_backward", {"target": np.zeros(3, np.int64)}, "target"),
    ("nll_loss_backward", {"target": np.zeros((4, 1), np.int64)}, "target"),
    ("nll_loss_backward", {"weight": np.ones(4, np.float32)}, "weight"),
    ("nll_loss_backward", {"weight": np.ones((1, 3), np.float32)}, "weight"),
    ("nll_loss_backward", {"total_weight": np.ones(2, np.float32)}, "totalWeight"),
    ("nll_loss_backward", {"grad_output": np.ones(3, np.float32)}, "gradOutput"),
    ("nll_loss_backward", {"reduction": 1, "grad_output": np.ones(4, np.float32)}, "gradOutput"),
    ("nll_loss_backward", {"target": np.zeros(4, np.float32)}, "target"),
    ("nll_loss_backward", {"self": np.ones((4, 3, 1), np.float32)}, "self"),
    ("nll_loss_backward", {"reduction": 3}, "reduction"),
    ("nll_loss2d_backward", {"target": np.zeros((2, 2, 3), np.int64)}, "target"),
    ("nll_loss2d_backward", {"weight": np.ones((2, 2), np.float32)}, "weight"),
    ("nll_loss2d_backward", {"reduction": 3}, "gradOutput"),   # (gradOutput's shape is checked first)
    ("nll_loss2d_backward", {"grad_output": np.ones((2, 2), np.float32)}, "gradOutput"),
]


@pytest.mark.parametrize("backend", ["numpy", "c", pytest.param("ascendc", marks=pytest.mark.deep)])
def test_rules_agree(backend):
    """Each class-index rule refuses with 161002 naming the same parameter on every backend; the valid calls
    pass."""
    rng = np.random.default_rng(5)
    for name, change, param in BAD:
        shape = (4, 3) if name == "nll_loss_backward" else (2, 3, 2, 2)
        kw = _call(name, shape, 0, -100, rng)
        get(backend).make_kernel(OPS[name])(**kw)
        kw.update(change)
        with pytest.raises(AclnnError) as e:
            get(backend).make_kernel(OPS[name])(**kw)
        assert (e.value.status, e.value.param) == (161002, param), (name, change, str(e.value))


def test_weight_of_uneven_spacing_is_refused_by_c():
    """A per-class weight whose elements are not equally spaced in memory (NLLLoss2d checks only its element
    count) cannot be one view on the grid: the C library says so (561000) rather than reading the wrong
    elements; NumPy copies it."""
    rng = np.random.default_rng(6)
    kw = _call("nll_loss2d_backward", (2, 6, 1, 1), 0, -100, rng)
    w = np.zeros((2, 4), np.float32)
    w[:, :3] = kw["weight"].reshape(2, 3)
    kw["weight"] = w[:, :3]
    want = _torch("nll_loss2d_backward", {**kw, "weight": kw["weight"].reshape(-1)})
    _close(get("numpy").make_kernel(OPS["nll_loss2d_backward"])(**kw), want, np.float32)
    with pytest.raises(AclnnError) as e:
        get("c").make_kernel(OPS["nll_loss2d_backward"])(**kw)
    assert e.value.status == 561000 and e.value.param == "weight"


def test_grid_views():
    """Where each kind of tensor lies on the grid: a class axis of 1 inserted, C along the class axis, one
    element broadcast; the class axis is 0 for a single sample."""
    assert grid_shape("sample", (4,), (4, 3)) == (4, 1)
    assert grid_shape("sample", (2, 5, 6), (2, 3, 5, 6)) == (2, 1, 5, 6)
    assert grid_shape("sample", (), (3,)) == (1,)
    assert grid_shape("class", (3,), (2, 3, 5, 6)) == (1, 3, 1, 1)
    assert grid_shape("class", (3,), (3,)) == (3,)
    assert grid_shape("scalar", (1,), (2, 3, 5, 6)) == (1, 1, 1, 1)


def test_forgetting_ignore_index_fails_the_proof(tmp_path):
    """The prover decides `classIndex == target` and `ignoreIndex == target` case by case: a backward without the
    ignoreIndex mask fails where both hold, with its residual."""
    src = OPS["nll_loss_backward"].source
    text = open(src).read()
    wrong = text.replace("backward=Piecewise((-w * g * Piecewise((1 / tw, Eq(reduction, 1)), (1, True)), hit), "
                         "(0, True)),", "backward=Piecewise((-w * g * Piecewise((1 / tw, Eq(reduction, 1)), "
                         "(1, True)), Eq(CLASS, t)), (0, True)),")
    assert wrong != text
    wrong = wrong.replace('values={0: "none", 1: "mean", 2: "sum"}', 'values={0: "none"}')
    wrong = wrong.replace("OneOf(\"reduction\", [0, 1, 2])", "OneOf(\"reduction\", [0])")
    path = tmp_path / "nll_loss_backward.py"
    path.write_text(wrong)
    failed = [r for r in verify_op(load_spec_file(path), numeric=False) if not r.ok]
    assert failed and all("ignoreIndex == target" in r.check for r in failed)
    assert "gradOutput*weight" in failed[0].detail
