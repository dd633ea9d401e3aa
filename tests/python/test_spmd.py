"""Sharded jax.jit on kiln: each program of tests/python/spmd_worker.py runs
partitioned on four kiln devices and on four XLA:CPU devices, in a
subprocess (JAX_PLATFORMS=kiln,cpu), and must agree. One test per program.
"""
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
# The worker's cases, read from its source: importing it would start JAX on kiln here.
CASE_NAMES = re.findall(r'^@(?:case|check_case)\("(\w+)"', (HERE / "spmd_worker.py").read_text(), re.M)

_results = {}


def results():
    if not _results:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        env["JAX_PLATFORMS"] = "kiln,cpu"
        env["KILN_NUM_DEVICES"] = "4"
        env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=4").strip()
        process = subprocess.run([sys.executable, str(HERE / "spmd_worker.py")], env=env, capture_output=True,
                                 text=True, timeout=1200)
        _results["process"] = process
        for line in process.stdout.splitlines():
            if line.startswith("{"):
                entry = json.loads(line)
                _results[entry["name"]] = entry
    return _results


@pytest.mark.parametrize("name", CASE_NAMES)
def test_sharded_program_matches_xla_cpu(name):
    r = results()
    if name not in r:
        process = r["process"]
        pytest.fail(f"the spmd worker reported nothing for {name} (exit {process.returncode}):\n{process.stderr[-3000:]}")
    assert r[name]["ok"], r[name]["detail"]
