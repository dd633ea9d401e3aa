"""JAX beyond single-device jax.jit, through the plugin against XLA:CPU in
the same process (tests/python/pjrt_sharded_api_worker.py runs the cases on
four kiln devices and four XLA:CPU devices): shard_map with psum, pmean,
all_gather, ppermute, all_to_all, psum_scatter and axis_index on 1-D and 2-D
meshes (and manual over some axes only, with shardings over the free axes
in the body and at its edges), collectives over narrow and complex
dtypes, pipelines of ppermute in scans and their gradients, vmap of
shard_map, pmap, sharding constraints and jit shardings, donation, jax.Array
methods and transfers in every narrow dtype, jax.export artifacts (two
platforms, symbolic shapes, a VJP, cpu artifacts on kiln), remat policies,
vmap of control flow, the PRNG implementations, loops over pytrees, and
complex, unsigned, bool, 8/16-bit, fp8 and int4 values through many ops.

It found jax.jit(shard_map(f))(x) failing on kiln when jit was given no
shardings (the plugin reported none for a program it made per-device,
so JAX could not place the arguments; then, with an argument committed to
another sharding than in_specs, JAX's check of those shardings), a jit
with out_shardings over a mesh failing when an argument was committed to
one device (JAX's @empty_mesh next to the program's mesh):
kiln/pjrt/output_shardings.h; every collective of complex values in
shard_map and pmap failing to read (the builtin complex type of Shardy's
ops: kiln/parse/bytecode_reader.cpp); and shard_map manual over some axes
only refused (kiln/pjrt/partial_manual.h).
"""

import subprocess
import sys
from pathlib import Path

import pytest

from test_pjrt_plugin import plugin_environment, run_reporting_checks

HERE = Path(__file__).resolve().parent
WORKER = HERE / "pjrt_sharded_api_worker.py"


def case_names():
    names = []
    lines = WORKER.read_text().splitlines()
    for previous, line in zip(lines, lines[1:]):
        if previous == "@case" and line.startswith("def "):
            names.append(line[4:line.index("(")])
    return names


CASES = case_names()
_results = {}


def results():
    if not _results:
        _results.update(run_reporting_checks(WORKER, plugin_environment(shared_devices=4), timeout=900))
    return _results


def test_every_case_is_collected():
    assert len(CASES) == len(set(CASES)) > 90, len(CASES)


@pytest.mark.parametrize("name", CASES)
def test_matches_xla_cpu(name):
    got = results()
    assert name in got, f"the worker reported nothing for {name}:\n{got['stderr'][-3000:]}"
    assert got[name]["ok"], got[name]["detail"]


NESTED_FREE_AXIS_PROGRAM = r'''
import numpy as np, jax
from jax import lax
from jax.sharding import PartitionSpec as P, AxisType
mesh = jax.sharding.Mesh(np.array(jax.devices("kiln")).reshape(2, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
inner = jax.shard_map(lambda u: lax.psum(u, "y"), in_specs=P(None, "y"), out_specs=P(), axis_names={"y"})
f = jax.jit(jax.shard_map(lambda v: inner(v * 2) + 1, mesh=mesh, in_specs=P("x"), out_specs=P("x"), axis_names={"x"}))
try:
    f(np.ones((8, 6), np.float32))
    print("RAN")
except Exception as e:
    print("ERROR", type(e).__name__, e)
'''


def test_a_nested_shard_map_over_a_free_axis_is_refused_clearly():
    # Manual over "x", with a shard_map over the free axis "y" inside that
    # splits its operand: kiln cannot make that one computation manual over
    # every axis (kiln/pjrt/partial_manual.h), and says so.
    env = plugin_environment(shared_devices=4)
    out = subprocess.run([sys.executable, "-c", NESTED_FREE_AXIS_PROGRAM], env=env, capture_output=True, text=True,
                         timeout=300)
    assert "ERROR" in out.stdout, out.stdout + out.stderr[-3000:]
    assert "sdy.manual_computation is manual over some mesh axes only (not \"y\")" in out.stdout, out.stdout
