"""Sharded jax.jit on kiln: each program of tests/python/spmd_worker.py runs
partitioned on four kiln devices and on four XLA:CPU devices, in a
subprocess (JAX_PLATFORMS=kiln,cpu), and must agree. One test per program.
"""
import json
import pathlib
import re
import subprocess
import sys

import pytest

from test_pjrt_plugin import plugin_environment

HERE = pathlib.Path(__file__).resolve().parent
# The worker's cases, read from its source: importing it would start JAX on kiln here.
CASE_NAMES = re.findall(r'^@(?:case|check_case)\("(\w+)"', (HERE / "spmd_worker.py").read_text(), re.M)

_results = {}


def results():
    if not _results:
        process = subprocess.run([sys.executable, str(HERE / "spmd_worker.py")],
                                 env=plugin_environment(shared_devices=4), capture_output=True,
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
