"""aclnnSwigluGroupGrad (specs/swiglu_group_grad.py): a split op with a per-row weight and a second output summed
along the row (codegen.spec.split's extra outputs), on the NumPy and C backends (the op is Ascend 950 only: no
Ascend C), against PyTorch's float64 autograd of the forward written in torch; and the new constructs refused
where misused.  Expected values come from autograd of the forward, never from the spec's backward."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from codegen.errors import SpecError
from codegen.loader import load_spec_file

from .kernels import kernel

torch = pytest.importorskip("torch")

SPEC = Path(__file__).resolve().parents[1] / "specs" / "swiglu_group_grad.py"
P = "ascend950"


def _autograd(x, g, w, c, counts):
    """(gradX, gradWeight) of Σ gradY·w·SiLU(x0')·x1' in float64, the rows past min(Σ counts, rows) of gradX 0;
    gradWeight = d/dw, with y the unweighted forward (what the caller passes as yOrigin), and that y."""
    h = x.shape[-1] // 2
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    wt = torch.tensor(np.ones(x.shape[:-1]) if w is None else w.reshape(x.shape[:-1]), dtype=torch.float64,
                      requires_grad=True)
    x0, x1 = xt[..., :h], xt[..., h:]
    if c > 0:
        x0, x1 = torch.clamp(x0, max=c), torch.clamp(x1, -c, c)
    y = x0 * torch.sigmoid(x0) * x1
    (y * wt[..., None] * torch.tensor(g, dtype=torch.float64)).sum().backward()
    gx = xt.grad.numpy().reshape(-1, 2 * h).copy()
    if counts is not None:
        gx[max(0, min(int(np.sum(counts)), gx.shape[0])):] = 0
    return gx.reshape(x.shape), wt.grad.numpy(), y.detach().numpy()


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_both_outputs_match_autograd(backend):
    """2-D and 3-D, with and without the clamp, the weight [T] or [T, 1] or absent, a row count below, above and
    below zero; FLOAT and BFLOAT16 (computed in FLOAT, rounded once)."""
    k = kernel("swiglu_group_grad", backend=backend)
    rng = np.random.default_rng(7)
    for shape in [(5, 12), (2, 3, 8)]:
        rows, h = shape[:-1], shape[-1] // 2
        x = (rng.standard_normal(shape) * 3).astype(np.float32)
        g = rng.uniform(-2, 2, rows + (h,)).astype(np.float32)
        w = rng.uniform(-1, 1, rows).astype(np.float32)
        calls = [(None, None), (np.array([1, 2], np.int64), w), (np.array([99], np.int64), w.reshape(rows + (1,))),
                 (np.array([-3], np.int64), w), (None, w)]
        for c in (0.0, 1.5):
            for counts, weight in calls:
                gx_want, gw_want, y = _autograd(x, g, weight, c, counts)
                yo = None if weight is None else y.astype(np.float32)
                gx, gw = k(grad_y=g, x=x, weight_optional=weight, y_origin_optional=yo,
                           group_index_optional=counts, clamp_limit=c, product=P)
                np.testing.assert_allclose(gx, gx_want, rtol=3e-6, atol=3e-6)
                if weight is None:
                    assert gw is None   # not computed: nothing to differentiate
                else:
                    assert gw.shape == weight.shape and gw.dtype == np.float32
                    np.testing.assert_allclose(gw.reshape(rows), gw_want, rtol=3e-6, atol=3e-6)
    import ml_dtypes
    xb, gb = x.astype(ml_dtypes.bfloat16), g.astype(ml_dtypes.bfloat16)
    gx, gw = k(grad_y=gb, x=xb, weight_optional=None, y_origin_optional=None, group_index_optional=None,
               clamp_limit=1.5, product=P)
    want, _, _ = _autograd(xb.astype(np.float32), gb.astype(np.float32), None, 1.5, None)
    assert gx.dtype == ml_dtypes.bfloat16 and gw is None
    np.testing.assert_allclose(gx.astype(np.float32), want, rtol=2 ** -8, atol=1e-6)


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_strict_masks_at_the_clamp(backend):
    """The kernel's masks are strict (CompareScalar LT/GT): x0 = c and x1 = ±c give 0, where PyTorch's clamp
    backward passes the gradient; c = 0 clamps nothing (x0 = 0, x1 = 0 are no kinks)."""
    k = kernel("swiglu_group_grad", backend=backend)
    x = np.array([[2.0, -1.0, 0.5, 2.0, -2.0, 1.0]], np.float32)   # x0 = (2, -1, .5), x1 = (2, -2, 1)
    g = np.ones((1, 3), np.float32)
    gx, _ = k(grad_y=g, x=x, weight_optional=None, y_origin_optional=None, group_index_optional=None,
              clamp_limit=2.0, product=P)
    assert gx[0, 0] == 0 and gx[0, 3] == 0 and gx[0, 4] == 0 and gx[0, 5] != 0 and gx[0, 1] != 0
    gx, _ = k(grad_y=np.ones((1, 1), np.float32), x=np.array([[0.0, 0.0]], np.float32), weight_optional=None,
              y_origin_optional=None, group_index_optional=None, clamp_limit=0.0, product=P)
    assert gx[0, 0] == 0 and gx[0, 1] == 0   # x1·dSiLU(0) = 0 and SiLU(0) = 0
    gx, _ = k(grad_y=np.ones((1, 1), np.float32), x=np.array([[0.0, 1.0]], np.float32), weight_optional=None,
              y_origin_optional=None, group_index_optional=None, clamp_limit=0.0, product=P)
    assert gx[0, 0] == np.float32(0.5)   # no clamp: d/dx0 at 0 is x1·dSiLU(0) = 1/2


def _variant(tmp_path, old, new):
    text = SPEC.read_text()
    assert old in text
    path = tmp_path / "swiglu_group_grad.py"
    path.write_text(text.replace(old, new))
    return path


@pytest.mark.parametrize("old,new,says", [
    ('        NotNullWhen("gradWeightOutOptional", "weightOptional"),\n',
     '', None),
    ('        Requires("clampLimit", c >= 0),\n',
     '        Requires("clampLimit", c >= 0),\n        NotNullWhen("gradWeightOutOptional", "weightOptional"),\n',
     "list it before every other rule"),
    ('PerRow("weightOptional", "gradY")', 'PerRow("clampLimit", "gradY")', "PerRow"),
    ('ShapeHalved("gradY", "x", axis=-1)', 'ShapeHalved("gradY", "x", "gradXOut", axis=-1)', "two tensors"),
    ('PresentWith("weightOptional", "yOriginOptional")', 'PresentWith("weightOptional", "gradY")',
     "both must be optional"),
    ('split=Split("x", dim=-1, rows="groupIndexOptional")', 'split=Split("x", dim="-1", rows="groupIndexOptional")',
     "must name an int64 Attr, or be a fixed axis"),
    # (review23: a fixed axis no call's tensors have was taken: wrapped by the rank, or a bound that checked nothing)
    ('split=Split("x", dim=-1, rows="groupIndexOptional")', 'split=Split("x", dim=2, rows="groupIndexOptional")',
     "split: the fixed axis dim=2 is not an axis"),
    ('ShapeHalved("gradY", "x", axis=-1)', 'ShapeHalved("gradY", "x", axis=3)', "axis 3 is not an axis"),
    ('DimAtLeast("gradY", dim=-1, n=1)', 'DimAtLeast("gradY", dim=7, n=1)', "axis 7 is not an axis"),
    ('DimAtLeast("gradY", dim=-1, n=1)', 'DimAtLeast("gradY", dim=-1, n=-3)', "n must be an int of at least 1"),
    ('Formula(g * yo, output="gradWeightOutOptional", forward=w * yo)', 'Formula(g * yo, output="gradWeightOutOptional")',
     "need a forward of their own"),
    ('Formula(g * yo, output="gradWeightOutOptional", forward=w * yo)',
     'Formula(2 * g * yo, output="gradWeightOutOptional", forward=w * yo)', None),
])
def test_constructs_misused_are_refused(tmp_path, old, new, says):
    """Each construct this op added fails the spec with the op's name and the rule (a wrong gradWeight form fails
    its proof: verified by `require_verified` below)."""
    path = _variant(tmp_path, old, new)
    if says is None and "2 * g" in new:   # a wrong form of the second output: the proof refuses it
        from codegen.verify import verify_op
        op = load_spec_file(path)
        assert [r.ok for r in verify_op(op.per_output[1], numeric=False)] == [False]   # (its own proof only)
        return
    if says is None:   # without NotNullWhen the spec loads: a null gradWeightOut is then simply not computed
        load_spec_file(path)
        return
    with pytest.raises(SpecError) as e:
        load_spec_file(path)
    assert "aclnnSwigluGroupGrad" in str(e.value) and says in str(e.value)
