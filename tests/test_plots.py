"""`python -m codegen.plots` on small real reports: a one-case bench run and a one-op accuracy run.  The sweep's
errors are checked against the forward's derivative evaluated here, independently of the kernels and of
codegen.accuracy's reference."""
from __future__ import annotations

import json

import mpmath
import numpy as np
import pytest

import codegen
from codegen import plots

pytest.importorskip("matplotlib")

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def ops():
    return codegen.load_specs()


def test_bench_figure_and_table_from_a_report(tmp_path):
    """Rows built with the bench's own record classes (their JSON is what `opgen bench` writes)."""
    from codegen.bench.runner import Record, Round

    def row(backend, n, gbps, torch_gbps, every=None):
        one = Round(1, 1e3, gbps, 5, 800.0, "c", 10.0 * n / 1024, gbps / (10.0 * n / 1024), 900.0, 800.0,
                    1200.0, torch_gbps, gbps / torch_gbps)
        return Record("log_sigmoid_backward", "contiguous", "FLOAT", backend, n, {}, 12 * n, one, every)
    every = Round(2, 5e2, 20.0, 5, 500.0, "c", 25.0, 0.8, 600.0, 500.0, 700.0, 15.0, 1.3)
    records = [row("numpy", 1024, 1.5, 3.0), row("c", 1024, 8.0, 3.0, every),
               row("numpy", 4096, 2.0, 6.0), row("c", 4096, 12.0, 6.0, every)]
    report = {"meta": {"command": "opgen bench log_sigmoid_backward --sizes 10,12", "date": "today",
                       "machine": {"cpu": "test CPU", "cpus": 2}},
              "results": [r.to_json() for r in records]}
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(report))
    assert plots.main(["--only", "bench", "--bench-report", str(path), "--out", str(tmp_path / "png"),
                       "--tables", str(tmp_path / "md")]) == 0
    assert (tmp_path / "png" / "bench-log_sigmoid_backward.png").read_bytes().startswith(PNG)
    table = (tmp_path / "md" / "bench-table.md").read_text()
    assert "Elements per call: 4096 (2^12)" in table and "test CPU" in table
    assert "| log_sigmoid_backward | contiguous | FLOAT | 40 | 6 | 2, 0.05, 0.33× | 12, 0.30, 2.00× |" in table
    series = plots.bench_series(report["results"])["log_sigmoid_backward"][("contiguous", "FLOAT")]
    assert series["c"] == [(1024, 8.0), (4096, 12.0)] and series["PyTorch"] == [(1024, 3.0), (4096, 6.0)]
    assert series["c, all threads"] == [(1024, 20.0), (4096, 20.0)] and series["probe"][1] == (4096, 40.0)


def test_the_sweep_measures_ulps_against_the_derivative(ops):
    """LogSigmoid's derivative is 1/(1+e^x): the sweep's errors must be the ulp distances of the kernel's
    results from it, rounded once."""
    from codegen.accuracy.dtypes import FORMATS, round_to, ulp_distance
    from codegen.verify.cases import cases
    op = ops["log_sigmoid_backward"]
    held, xs, errors = plots.sweep(op, cases(op)[0], "FLOAT16", ["numpy"], 41)
    assert held == "self" and len(xs) == 41 and xs.min() < -1e3 and xs.max() > 1e3
    assert set(errors) >= {"numpy"}
    # the same inputs again, evaluated here: the sweep draws gradOutput from a generator seeded by its arguments
    from codegen.accuracy import inputs as I
    ctx = I.Context(op, cases(op)[0], FORMATS["FLOAT16"], np.random.default_rng([0, 41]), I.FAST)
    sample = ctx.elementwise("sweep", np.sinh(np.linspace(-np.arcsinh(1e4), np.arcsinh(1e4), 41)))[0]
    x, g = sample.kw["self"].astype(np.float64), sample.kw["grad_output"].astype(np.float64)
    with mpmath.workdps(50):
        exact = np.array([round_to(mpmath.mpf(gi) / (1 + mpmath.exp(mpmath.mpf(xi))), FORMATS["FLOAT16"])
                          for xi, gi in zip(x, g)]).astype(np.float16)
    got = codegen.kernel("log_sigmoid_backward")(**sample.kw).astype(np.float16)
    np.testing.assert_array_equal(errors["numpy"], ulp_distance(got, exact))


def test_accuracy_figure_and_table_from_a_report(ops, tmp_path):
    """A report written by the accuracy module's own writer, from records of its own class."""
    from codegen.accuracy import report, standards as S
    from codegen.accuracy.runner import Record
    records = [Record("softshrink_backward", "aclnnSoftshrinkBackward", "numpy", "FLOAT16", p, False,
                      errors=S.Errors(100, 4e-4, 1e-5, 1.0, 0), errors_all=S.Errors(120, 4e-4, 1e-5, 3.0, 0),
                      torch=S.Errors(120, 4e-4, 1e-5, 2.0, 0)) for p in ("ascend910", "ascend910b")]
    report.write(records, tmp_path, {"command": "opgen accuracy softshrink_backward", "mode": "fast",
                                     "backends": ["numpy"], "torch": "2.13.0"})
    assert plots.main(["softshrink_backward", "--only", "accuracy", "--backend", "numpy", "--dtype", "FLOAT16",
                       "--points", "24",
                       "--accuracy-report", str(tmp_path / "accuracy.json"), "--out", str(tmp_path / "png"),
                       "--tables", str(tmp_path / "md")]) == 0
    assert (tmp_path / "png" / "accuracy-softshrink_backward.png").read_bytes().startswith(PNG)
    table = (tmp_path / "md" / "accuracy-table.md").read_text()
    assert "| softshrink_backward | FLOAT16 | numpy | 3 | 1e-05 | 0.0004 | pass | pass | 2 | pass |" in table
    assert table.count("| softshrink_backward |") == 1     # products with the same figures share a row


def test_a_missing_report_is_named(tmp_path, capsys):
    assert plots.main(["--only", "bench", "--bench-report", str(tmp_path / "nope.json")]) == 2
    assert "nope.json is missing: run `opgen bench` first" in capsys.readouterr().err


# ---- every kind of op (split, several outputs, class index, an operand-only gradient, a narrow domain) ---------
def _parts(ops, name):
    return [(r.part, None if r.swept is None else r.swept.name) for r in plots.rows_of(ops[name], [])]


def test_the_rows_follow_the_spec_structure(ops):
    """A split op has a row per half, a several-output op one per output; the swept tensor is the one the
    gradient reads: GLU's d/da = σ(b)·g reads b only, KLDiv's gradient w.r.t. self (-target·g) the target; a
    class-index op sweeps its grid tensor (CrossEntropyLossGrad's logProb), and NLLLoss, whose gradient reads no
    input but the target and weights, gets the reason instead of a figure."""
    assert _parts(ops, "glu_backward") == [("d/da", "b"), ("d/db", "b")]
    assert _parts(ops, "prelu_backward") == [("gradInput", "self"), ("gradWeight", "self")]
    assert _parts(ops, "kl_div_backward")[0] == ("", "target")
    assert {s for _, s in _parts(ops, "cross_entropy_loss_grad")} == {"logProb"}
    nll = plots.rows_of(ops["nll_loss_backward"], [])
    assert [r.swept for r in nll] == [None] and "does not depend on self" in nll[0].why
    # the usual setting first: Hardtanh's min < max, not max < min or max = min; Softplus's beta > 0
    assert [c.label for c in plots._cases(ops["hardtanh_backward"])] == ["min < max"]
    assert [c.label for c in plots._cases(ops["softplus_backward"])] == ["beta > 0"]


def _exact(values, fmt):
    from codegen.accuracy.dtypes import round_to
    return np.array([round_to(v, fmt) for v in values]).astype(fmt.np)


@pytest.mark.parametrize("name, part, exact", [
    # GLU's gradient w.r.t. its gate half b: a·σ'(b)·g (σ' = e^-b/(1+e^-b)^2, no cancellation in mpmath)
    ("glu_backward", "d/db", lambda kw: [mpmath.mpf(a) * mpmath.exp(-mpmath.mpf(b)) / (1 + mpmath.exp(-mpmath.mpf(b)))
                                         ** 2 * mpmath.mpf(g) for a, b, g in zip(kw["a"], kw["b"], kw["g"])]),
    # PReLU's weight gradient, every element its own channel: g·x where x < 0
    ("prelu_backward", "gradWeight", lambda kw: [mpmath.mpf(g) * mpmath.mpf(x) if x < 0 else mpmath.mpf(0)
                                                 for x, g in zip(kw["self"], kw["g"])]),
])
def test_a_part_sweep_measures_ulps_against_the_derivative(ops, name, part, exact):
    """A half of a split op and an output of a several-output op are swept through the whole op's kernel (the
    accuracy run's half and output kernels); the errors are the ulp distances from the derivative evaluated here."""
    from codegen.accuracy.dtypes import FORMATS, ulp_distance
    row = next(r for r in plots.rows_of(ops[name], ["numpy"]) if r.part == part)
    fmt = FORMATS["FLOAT"]
    s = plots.sweep_call(row.op, row.case, "FLOAT", ["numpy"], 41, kernels=row.kernels, swept=row.swept)
    assert s.keep.sum() == len(s.values) >= 40 and s.values.min() < -1e3 and s.values.max() > 1e3
    kw = {k: np.asarray(v, np.float64).reshape(-1) for k, v in s.sample.kw.items() if isinstance(v, np.ndarray)}
    kw["g"] = kw[row.op.grad.py_name]
    with mpmath.workdps(60):
        want = _exact(exact(kw), fmt)
    got = np.asarray(row.kernels["numpy"](**s.sample.kw, product="ascend910b")).astype(np.float32).reshape(-1)
    np.testing.assert_array_equal(s.errors["numpy"], ulp_distance(got, want)[s.keep])


def test_a_narrow_domain_is_swept_across_it(ops):
    """Logit with eps < 0 (no clamping) is defined on (0, 1) only: the sweep across ±10^4 keeps 3 of 41 values,
    so it sweeps again across the interval they span."""
    from codegen.verify.cases import cases
    op = ops["logit_grad"]
    case = next(c for c in cases(op) if c.label == "eps < 0")
    held, xs, errors = plots.sweep(op, case, "FLOAT16", ["numpy"], 41)
    assert held == "x" and len(xs) >= 30 and 0 < xs.min() < 0.05 and 0.95 < xs.max() < 1


def test_a_class_index_sweep_and_the_gallery(ops, tmp_path):
    """CrossEntropyLossGrad swept along rows of logits from narrow to near one-hot (logProb down to about -100);
    the gallery gives every op its figure or the reason it has none."""
    row = plots.rows_of(ops["cross_entropy_loss_grad"], ["numpy"])[0]
    s = plots.sweep_call(row.op, row.case, "FLOAT16", ["numpy"], 64, kernels=row.kernels, swept=row.swept)
    assert s.values.max() <= 0 and s.values.min() < -50 and len(s.values) >= 48
    assert set(s.errors) >= {"numpy"} and all(np.isfinite(e).all() for e in s.errors.values())
    png = tmp_path / "accuracy-glu_backward.png"
    png.write_bytes(PNG)
    some = {k: ops[k] for k in ("glu_backward", "nll_loss_backward", "elu_backward")}
    md = plots.accuracy_gallery(some, {"nll_loss_backward": "no input to plot against"}, tmp_path)
    assert "### GluBackward\n\n![GluBackward](/_static/plots/accuracy-glu_backward.png)" in md
    assert "### NLLLossBackward\n\nNo figure: no input to plot against." in md
    assert "### EluBackward\n\nNo figure yet: run `python -m codegen.plots --only accuracy elu_backward`." in md


@pytest.mark.deep
def test_every_op_has_a_row_to_draw_or_says_why(ops):
    for name, op in ops.items():
        rows = plots.rows_of(op, [])
        assert rows and all(r.swept is not None or r.why for r in rows), name
