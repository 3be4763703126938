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
