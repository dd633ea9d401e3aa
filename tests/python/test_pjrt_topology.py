"""Compiling for a topology of kiln devices without running on them
(jax.experimental.topologies: PJRT_TopologyDescription_Create and
PJRT_Compile): a program over a mesh of the topology's devices compiles,
prints its optimized program and memory statistics, serializes
(jax.experimental.serialize_executable) and, loaded on real kiln devices,
gives XLA:CPU's results. A topology larger than the process's devices
compiles too; unknown topologies and options are kiln errors.
"""

import json
import subprocess
import sys

import pytest

from test_pjrt_plugin import plugin_environment

PROGRAM = r'''
import json
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental import topologies
from jax.experimental.serialize_executable import serialize, deserialize_and_load
from jax.sharding import NamedSharding, PartitionSpec as P

def report(name, value):
    print(json.dumps({"name": name, "value": value}), flush=True)

def f(x, w):
    return jnp.tanh(x @ w).sum(1), jnp.cumsum(x, 0)

topo = topologies.get_topology_desc(platform="kiln", num_devices=4)
report("devices", [str(d) for d in topo.devices])
mesh = topologies.make_mesh(topo, (4,), ("d",))
rows, whole = NamedSharding(mesh, P("d")), NamedSharding(mesh, P())
compiled = jax.jit(f, in_shardings=(rows, whole), out_shardings=(rows, whole)).lower(
    jax.ShapeDtypeStruct((8, 6), jnp.float32, sharding=rows), jax.ShapeDtypeStruct((6, 3), jnp.float32, sharding=whole)).compile()
report("text", compiled.as_text())
report("temp_bytes", compiled.memory_analysis().temp_size_in_bytes)
payload, in_tree, out_tree = serialize(compiled)
loaded = deserialize_and_load(payload, in_tree, out_tree, backend="kiln")
x = np.random.default_rng(0).standard_normal((8, 6)).astype(np.float32)
w = np.random.default_rng(1).standard_normal((6, 3)).astype(np.float32)
real = jax.sharding.Mesh(np.array(jax.devices("kiln")), ("d",))
got = loaded(jax.device_put(x, NamedSharding(real, P("d"))), jax.device_put(w, NamedSharding(real, P())))
cpu = jax.devices("cpu")[0]
want = jax.jit(f)(jax.device_put(x, cpu), jax.device_put(w, cpu))
report("results", [bool(np.allclose(np.asarray(g), np.asarray(v), rtol=1e-5, atol=1e-5)) for g, v in zip(got, want)])
report("result_devices", sorted(d.id for d in got[0].devices()))

big = topologies.get_topology_desc(platform="kiln", num_devices=8)
mesh8 = topologies.make_mesh(big, (2, 4), ("x", "y"))
s8 = NamedSharding(mesh8, P("x", "y"))
text8 = jax.jit(lambda v: jnp.sin(v) * 2, in_shardings=s8, out_shardings=s8).lower(
    jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding=s8)).compile().as_text()
report("eight_devices", text8.splitlines()[0])

for name, kwargs in [("bad_option", dict(cores=3)), ("bad_count", dict(num_devices=0)), ("bad_name", dict(topology_name="v5e"))]:
    try:
        topologies.get_topology_desc(platform="kiln", **kwargs)
        report(name, None)
    except Exception as e:
        report(name, f"{type(e).__name__}: {e}")
'''

_results = {}


def results():
    if not _results:
        env = plugin_environment()
        env["KILN_NUM_DEVICES"] = "4"
        out = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=600)
        for line in out.stdout.splitlines():
            if line.startswith("{"):
                item = json.loads(line)
                _results[item["name"]] = item["value"]
        _results["stderr"] = out.stderr
    return _results


def get(name):
    got = results()
    assert name in got, f"the program reported no {name}:\n{got['stderr'][-3000:]}"
    return got[name]


def test_topology_lists_its_devices():
    assert get("devices") == [f"kiln:cpu:{i}" for i in range(4)]  # as a real device's debug string


def test_compiled_for_the_topology_shows_its_program():
    text = get("text")
    assert "num_partitions=4" in text.splitlines()[0], text[:500]
    assert "f32[2,6]" in text.splitlines()[0], text[:500]  # each device's block
    assert get("temp_bytes") >= 0


def test_serialized_and_loaded_on_devices_it_matches_xla_cpu():
    assert get("results") == [True, True]
    assert get("result_devices") == [0, 1, 2, 3]


def test_topology_larger_than_the_process_compiles():
    assert "num_partitions=8" in get("eight_devices")


@pytest.mark.parametrize("name,message", [
    ("bad_option", "kiln: unknown topology option 'cores'"),
    ("bad_count", "kiln: num_devices must be in [1, 1024], got 0"),
    ("bad_name", "kiln: unknown topology 'v5e'"),
])
def test_unknown_topologies_are_kiln_errors(name, message):
    assert message in (get(name) or ""), get(name)
