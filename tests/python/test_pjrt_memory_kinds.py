"""Memory kinds through the plugin: each kiln device has XLA:CPU's three
memories ("device", the default, "pinned_host" and "unpinned_host", all host
memory), so host offloading runs unmodified: device_put to a memory kind,
jit with in/out shardings naming one, device_put inside jit, a remat policy
offloading residuals, a sharded array in pinned_host. Each case runs on kiln
and on XLA:CPU in the same process; the values and the memory kinds JAX
reports must agree.
"""

import pytest

from test_pjrt_plugin import plugin_environment, run_reporting_checks

PROGRAM = r'''
import json, traceback
import numpy as np, jax, jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name
from jax.sharding import SingleDeviceSharding, NamedSharding, Mesh, PartitionSpec as P

def cases(platform):
    d = jax.devices(platform)[0]
    s = SingleDeviceSharding(d)
    x = jax.device_put(np.arange(4, dtype=np.float32), d)
    pinned = jax.device_put(x, s.with_memory_kind("pinned_host"))
    def offloaded_grad():
        policy = jax.checkpoint_policies.save_and_offload_only_these_names(
            names_which_can_be_saved=[], names_which_can_be_offloaded=["h"], offload_src="device", offload_dst="pinned_host")
        def loss(w, v):
            return jnp.sum(jnp.tanh(checkpoint_name(jnp.sin(v @ w), "h")) ** 2)
        w = jax.device_put(np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4), d)
        return jax.jit(jax.grad(jax.checkpoint(loss, policy=policy)))(w, jax.device_put(np.ones((3, 4), np.float32), d))
    mesh_sharding = NamedSharding(Mesh(np.array(jax.devices(platform)[:2]), ("a",)), P("a"))
    return {
        "memories": lambda: [m.kind for m in d.addressable_memories()] + [d.default_memory().kind],
        "device_put_pinned": lambda: pinned,
        "device_put_unpinned": lambda: jax.device_put(x, s.with_memory_kind("unpinned_host")),
        "jit_out_pinned": lambda: jax.jit(lambda a: jax.device_put(a * 2, s.with_memory_kind("pinned_host")),
                                          out_shardings=s.with_memory_kind("pinned_host"))(x),
        "jit_in_pinned": lambda: jax.jit(lambda a: a * 3, in_shardings=s.with_memory_kind("pinned_host"))(pinned),
        "back_to_device": lambda: jax.device_put(pinned, s.with_memory_kind("device")),
        "offloaded_remat_grad": offloaded_grad,
        "sharded_pinned": lambda: jax.jit(lambda a: a + 1, out_shardings=mesh_sharding.with_memory_kind("pinned_host"))(
            jax.device_put(np.arange(8, dtype=np.float32), mesh_sharding.with_memory_kind("pinned_host"))),
    }

def describe(value):
    """(values, the memory kind JAX reports); a list of memory kinds as it is."""
    if isinstance(value, list):
        return value, None
    return np.asarray(value, dtype=np.float64), value.sharding.memory_kind

kiln_cases, cpu_cases = cases("kiln"), cases("cpu")
for name in kiln_cases:
    try:
        (got, got_kind), (want, want_kind) = describe(kiln_cases[name]()), describe(cpu_cases[name]())
        same = got == want if isinstance(got, list) else got.shape == want.shape and np.allclose(got, want, rtol=1e-5)
        ok = same and got_kind == want_kind
        print(json.dumps({"name": name, "ok": bool(ok), "detail": f"kiln {got} in {got_kind}, XLA:CPU {want} in {want_kind}"}), flush=True)
    except Exception:
        print(json.dumps({"name": name, "ok": False, "detail": traceback.format_exc()[-2000:]}), flush=True)
'''

CHECKS = ["memories", "device_put_pinned", "device_put_unpinned", "jit_out_pinned", "jit_in_pinned", "back_to_device",
          "offloaded_remat_grad", "sharded_pinned"]
_results = {}


def results():
    if not _results:
        env = plugin_environment()
        env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=2").strip()
        _results.update(run_reporting_checks(PROGRAM, env))
    return _results


@pytest.mark.parametrize("name", CHECKS)
def test_memory_kind_matches_xla_cpu(name):
    got = results()
    assert name in got, f"the subprocess reported nothing for {name}:\n{got['stderr'][-3000:]}"
    assert got[name]["ok"], got[name]["detail"]
