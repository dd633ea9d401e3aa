"""Smoke test of bench/run (issue 7): one cheap workload in --quick mode must produce
well-formed records whose results were cross-checked before any time was reported.
Asserts nothing about how fast anything is."""
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(REPO, "bench", "run")
SYSTEMS = ["kiln", "xla", "numpy", "torch", "torch_compile", "iree"]
STATUSES = {"ok", "not installed", "n/a", "compile error", "error", "runtime error", "mismatch", "too slow"}


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    paths = {k: str(out / name) for k, name in (("json", "records.json"), ("markdown", "report.md"))}
    done = subprocess.run([sys.executable, BENCH, "--quick", "--only", "gelu_tanh", "--systems", ",".join(SYSTEMS),
                           "--json", paths["json"], "--markdown", paths["markdown"]],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    with open(paths["json"]) as f:
        records = json.load(f)
    with open(paths["markdown"]) as f:
        markdown = f.read()
    return records, markdown


def results(records):
    return [r for r in records if r["kind"] == "result"]


def test_one_record_per_system_with_the_required_fields(quick_run):
    records, _ = quick_run
    got = results(records)
    assert [r["system"] for r in got] == SYSTEMS
    for r in got:
        assert r["workload"] == "gelu_tanh"
        assert r["status"] in STATUSES, r
        for key in ("median_s", "compile_s", "peak_rss_bytes", "gbps", "check"):
            assert key in r, (key, r)


def test_every_timed_result_was_cross_checked_first(quick_run):
    records, _ = quick_run
    timed = [r for r in results(records) if r["median_s"] is not None]
    assert {"xla", "numpy"} <= {r["system"] for r in timed}  # both always installed with the project
    for r in timed:
        assert r["status"] == "ok", r
        assert r["check"]["passed"] is True and r["check"]["reference"] in SYSTEMS, r
        assert r["check"]["max_rel_err"] <= r["check"]["tolerance"]
        assert r["gbps"] > 0 and r["compile_s"] > 0 and r["peak_rss_bytes"] is not None
    xla = next(r for r in timed if r["system"] == "xla")
    assert xla["check"]["reference"] == "numpy"  # the reference itself is checked against NumPy


def test_failures_are_cells_not_timings(quick_run):
    records, markdown = quick_run
    for r in results(records):
        if r["status"] != "ok":
            assert r["median_s"] is None and r["message"], r
            assert r["status"] in markdown
    assert "| gelu_tanh |" in markdown and "geomean" in markdown


def test_run_and_roof_records(quick_run):
    records, _ = quick_run
    run = [r for r in records if r["kind"] == "run"]
    assert len(run) == 1 and run[0]["mode"] == "quick"
    roofs = {r["roof"]: r for r in records if r["kind"] == "roof"}
    assert roofs["triad"]["gbps"] > 0 and roofs["sgemm"]["gflops"] > 0
    assert ("chain" in roofs) == host_has_avx512f()


def host_has_avx512f():
    with open("/proc/cpuinfo") as f:
        return " avx512f" in f.read()


def test_the_hand_written_chain_checks_its_results():
    """kiln_chain_bench (the chain's arithmetic roof) agrees with the chain in double, tail
    lanes included (1000 is no multiple of 16), or says the host has no AVX-512F."""
    binary = load_measure()._native_binary("kiln_chain_bench")
    if binary is None:
        pytest.fail("kiln_chain_bench is not built (KILN_BUILD_NATIVE_BENCH)")
    done = subprocess.run([binary, "--elements", "1000", "--runs", "1", "--threads", "1"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    line = json.loads(done.stdout)
    if host_has_avx512f():
        assert line["gbps"] > 0 and line["max_rel_error"] < 1e-5, line
    else:
        assert line["gbps"] is None and "AVX-512F" in line["reason"], line


def load_measure():
    spec = importlib.util.spec_from_file_location("bench_measure", os.path.join(REPO, "bench", "measure.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_compare_flags_wrong_values_shapes_and_nans():
    compare = load_measure().compare
    ref = [np.array([1.0, -2.0, 4.0], np.float32)]
    assert compare([ref[0] + 1e-6], ref, 1e-4)[0]
    passed, err, message = compare([ref[0] * 1.01], ref, 1e-4)
    assert not passed and err == pytest.approx(0.01, rel=1e-3) and "tolerance" in message
    assert not compare([ref[0][:2]], ref, 1e-4)[0]
    assert not compare([np.array([1.0, np.nan, 4.0], np.float32)], ref, 1e-4)[0]
    assert not compare([], ref, 1e-4)[0]


FAKE_KILN = '''
"""A stand-in for kiln whose jit cannot compile tanh and gets every other result wrong."""
import jax
import numpy as np


def jit(fn):
    compiled = jax.jit(fn)

    def call(*args):
        if "stablehlo.tanh" in compiled.lower(*args).as_text():
            raise RuntimeError("the cpu back end cannot compile 'stablehlo.tanh' yet (x.mlir:3:8)\\nsecond line")
        return jax.tree_util.tree_map(lambda r: np.asarray(r) + 1.0, compiled(*args))
    return call
'''


def test_compile_errors_and_mismatches_become_cells(tmp_path):
    (tmp_path / "kiln").mkdir()
    (tmp_path / "kiln" / "__init__.py").write_text(FAKE_KILN)
    out = tmp_path / "records.json"
    env = dict(os.environ, KILN_PYTHONPATH=str(tmp_path))
    done = subprocess.run([sys.executable, BENCH, "--quick", "--only", "gelu_tanh,reduce_sum_rows",
                           "--systems", "kiln,xla,numpy", "--json", str(out)],
                          capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr
    kiln = {r["workload"]: r for r in results(json.loads(out.read_text())) if r["system"] == "kiln"}
    assert kiln["gelu_tanh"]["status"] == "compile error"
    assert kiln["gelu_tanh"]["message"] == "the cpu back end cannot compile 'stablehlo.tanh' yet (x.mlir:3:8)"
    assert kiln["reduce_sum_rows"]["status"] == "mismatch" and kiln["reduce_sum_rows"]["check"]["passed"] is False
    assert all(r["median_s"] is None for r in kiln.values())
    assert "compile error: the cpu back end cannot compile 'stablehlo.tanh'" in done.stdout
    assert "| reduce_sum_rows |" in done.stdout and "mismatch: vs xla" in done.stdout


def test_the_function_sweep_runs_and_reports_each_function():
    """bench/sweep.py keeps working: each function asked for gets one line with both times."""
    done = subprocess.run([sys.executable, os.path.join(REPO, "bench", "sweep.py"), "--only", "var,log1p",
                           "--runs", "1"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = [l for l in done.stdout.splitlines() if l.split() and l.split()[0] in ("var", "log1p")]
    assert sorted(l.split()[0] for l in lines) == ["log1p", "var"], done.stdout
    for line in lines:
        assert "kiln" in line and "xla" in line and "FAILED" not in line, line
