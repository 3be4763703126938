"""Every rule of every spec, broken one at a time: the NumPy kernel reports the rule's status and parameter."""
from __future__ import annotations

import numpy as np
import pytest

import codegen
from codegen.spec import DTYPES, KERNEL_DTYPES, PRODUCTS

from .error_inputs import error_inputs, valid_call
from .kernels import kernel   # (each op's kernel made once per process)
from tests.samples import results, skip_split

OPS = sorted(codegen.load_specs())


def _with_out(fn, kw, product):
    return dict(kw, out=fn(**kw, product=product))


@pytest.mark.parametrize("name", OPS)
def test_each_rule_reports_its_status_and_parameter(ops, name):
    skip_split(ops[name])
    op = ops[name]
    fn = kernel(name)
    product = "ascend910b"
    base = _with_out(fn, valid_call(op, np.random.default_rng(1)), product)
    cases = error_inputs(op, base, product)
    assert cases, f"{name}: no error input derived"
    covered = {c.rule for c in cases}
    for r in op.all_rules:
        # (DtypeCastable between floats and the Promoted* rules after a DtypeSupported of the same tensors can be
        # unbreakable: error_inputs searches for dtypes that break them and yields nothing when none exists)
        if type(r).__name__ not in ("DtypeCastable", "PromotedSupported", "PromotedCastable", "PromotedSame",
                                    "EmptyReturns"):
            assert type(r).__name__ in covered or type(r).__name__ == "NotNull", f"{name}: {r} never broken"
    for case in cases:
        with pytest.raises(codegen.AclnnError) as info:
            fn(**case.kw, product=product)
        err = info.value
        assert (err.status, err.param) == (case.status, case.param), \
            f"{name} breaking {case.rule} at {case.param}: got [{err.status}] {err.param}: {err.message}"
        assert case.param in err.message


@pytest.mark.parametrize("name", OPS)
def test_checks_run_nulls_first(ops, name):
    """A null beats any other fault: a wrong dtype elsewhere does not hide it (ascend.md §1)."""
    op = ops[name]
    fn = kernel(name)
    kw = valid_call(op, np.random.default_rng(2))
    tensors = [t for t in op.tensors if not t.optional]
    kw[tensors[0].py_name] = kw[tensors[0].py_name].astype(np.uint16)
    kw[tensors[-1].py_name] = None
    with pytest.raises(codegen.AclnnError) as info:
        fn(**kw)
    assert (info.value.status, info.value.param) == (161001, tensors[-1].name)


@pytest.mark.parametrize("product", list(PRODUCTS))
@pytest.mark.parametrize("name", OPS)
def test_dtype_claims(ops, name, product):
    """Every dtype an op claims on a product runs there; every other dtype is refused with 161002."""
    op = ops[name]
    fn = kernel(name)
    base = valid_call(op, np.random.default_rng(3))
    claimed = set(op.dtypes.get(product, []))
    import ml_dtypes
    np_of = {"FLOAT": np.float32, "FLOAT16": np.float16, "BFLOAT16": ml_dtypes.bfloat16, "DOUBLE": np.float64}
    for dt in list(KERNEL_DTYPES) + ["DOUBLE"]:
        # (an integer tensor, a class-index target, keeps its own dtype; so does, in a dtype the op claims, a tensor
        # whose dtype table of its own lacks it: CrossEntropyLossGrad's FLOAT weight)
        own = {t.py_name for t in op.tensors if t.dtypes and dt in claimed and dt not in t.dtypes.get(product, [])}
        kw = {k: (v.astype(np_of[dt]) if isinstance(v, np.ndarray) and v.dtype.kind == "f" and k not in own else v)
              for k, v in base.items()}
        if dt in claimed:
            for out in results(op, fn(**kw, product=product)):
                assert out.size > 0, f"{name} claims {dt} on {product} but produced nothing"
        else:
            with pytest.raises(codegen.AclnnError) as info:
                fn(**kw, product=product)
            assert info.value.status == 161002, f"{name} {dt} on {product}: {info.value}"
            assert DTYPES[dt].name in info.value.message or product in info.value.message


def test_unknown_product_is_refused():
    with pytest.raises(codegen.AclnnError) as info:
        kernel("log_sigmoid_backward")(grad_output=np.ones(2, np.float32), self=np.ones(2, np.float32),
                                               buffer=np.ones(2, np.float32), product="ascend9000")
    assert info.value.status == 161002 and "ascend9000" in info.value.message
