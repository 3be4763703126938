"""NumPy kernels against independent references, for every op, dtype, product and variant.

References are the forward differentiated in mpmath (tests/reference.py), never the backward formula.
FLOAT16 and BFLOAT16 results must be within 1 ulp of the correctly rounded reference for elementwise ops
(issue goal); FLOAT results and the coupled ops (softmax, BCE with a reduction) must meet ascend.md §6 with a
wide margin.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import codegen
from codegen.spec import DimSum

from . import reference
from .compare import seed
from .samples import NP, reference_outputs, results, samples
from .ulp import ulp_distance
from .kernels import kernel   # (each op's kernel made once per process)
from tests.samples import skip_split

OPS = sorted(codegen.load_specs())
DTYPES = ["FLOAT", "FLOAT16", "BFLOAT16"]


def _products(op, dtype):
    return [p for p, dts in op.dtypes.items() if dtype in dts]


def _relative(got, want):
    """|got - want| / |want|, the denominator at least the output dtype's smallest normal: below it the dtype's
    precision is absolute (a FLOAT16 subnormal has 2^-24 steps), and so is the error measured there.  Equal
    infinities (BCE's x(1 - x) floor overflowing FLOAT16) agree."""
    tiny = float(ml_dtypes.finfo(got.dtype).smallest_normal)
    got = got.astype(np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(got == want, 0.0, np.abs(got - want) / np.maximum(np.abs(want), tiny))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", OPS)
def test_values_against_forward_derivative(ops, name, dtype):
    skip_split(ops[name])
    op = ops[name]
    products = _products(op, dtype)
    if not products:
        pytest.skip(f"{name} claims {dtype} on no product")
    fn = kernel(name)
    rng = np.random.default_rng(seed(name, dtype))
    coupled = op.loss_reduction is not None or op.forward.has(DimSum)
    for s in samples(op, dtype, rng):
        refs = [reference.to_float(r) for r in reference_outputs(op, s.kw, s.preimage)]
        for product in products:
            for got, ref, output in zip(results(op, fn(**s.kw, product=product)), refs, op.outputs):
                where = f"{name} {s.label} {product}" + (f" {output.name}" if op.per_output else "")
                # a summed-back output (several outputs' gradWeight) is a sum, like the coupled ops
                _check(got, ref, dtype, coupled or output.sum_to is not None, output, where)


def _check(got, ref, dtype, coupled, output, where):
    assert got.dtype == np.dtype(NP[dtype]) or output.dtype_from not in (None,)
    assert got.shape == ref.shape
    if dtype == "FLOAT" or coupled:
        # ascend.md §6 single-benchmark thresholds, with a margin of 8
        thr = {"FLOAT": 2.0**-13, "FLOAT16": 2.0**-10, "BFLOAT16": 2.0**-7}[dtype]
        # the reference rounded once to the output dtype, as ascend.md §6 prescribes
        rel = _relative(got, ref.astype(got.dtype).astype(np.float64))
        assert np.mean(rel) < thr / 8, f"{where}: MERE {np.mean(rel):.3g}"
        assert np.max(rel) < 10 * thr, f"{where}: MARE {np.max(rel):.3g}"
    else:
        d = ulp_distance(got, ref)
        assert d.max() <= 1, f"{where}: {int(d.max())} ulp at {np.unravel_index(d.argmax(), d.shape)}"


DOC_EXAMPLES = {
    "elu_backward": (dict(grad_output=[[-2, -1], [0, 1]], self_or_result=[[-2, -1], [0, 1]], alpha=1.0,
                          scale=1.0, input_scale=1.0, is_result=True), [2, 0, 0, 1]),
    "log_sigmoid_backward": (dict(grad_output=[[1, 1], [1, 1]], self=[[1, 2], [3, 4]], buffer=[[1, 2], [3, 4]]),
                             [0.2689414, 0.1192029, 0.0474259, 0.0179862]),
    "softmax_backward": (dict(grad_output=np.arange(8).reshape(4, 2), output=[[1, 1], [1, 2], [2, 2], [3, 3]],
                              dim=0), [-28, -37, -26, -70, -48, -66, -66, -93]),
    "softshrink_backward": (dict(grad_output=np.arange(8).reshape(4, 2), self=[[1, 1], [1, 2], [1, 2], [3, 3]],
                                 lambd=1.2), [0, 0, 0, 3, 0, 5, 6, 7]),
    "binary_cross_entropy_with_logits_backward": (
        dict(grad_output=[[0, 1], [2, 3]], self=[[0, 1], [2, 3]], target=np.full((2, 2), 0.1),
             weight_optional=[[0, 1], [2, 3]], pos_weight_optional=[[0, 1], [2, 3]], reduction=0),
        [0, 0.6310586, 3.0755071, 7.5878006]),
}


@pytest.mark.parametrize("name", sorted(DOC_EXAMPLES))
def test_doc_examples(name):
    """The data and printed results of the aclnn doc call examples (ascend.md §4)."""
    kw, want = DOC_EXAMPLES[name]
    kw = {k: (np.asarray(v, dtype=np.float32) if isinstance(v, (list, np.ndarray)) else v) for k, v in kw.items()}
    got = kernel(name)(**kw)
    np.testing.assert_allclose(got.ravel(), want, rtol=2e-7, atol=1e-7)
