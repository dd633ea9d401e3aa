"""Sharded jax.jit without out_shardings through the plugin: jaxlib takes the
results' shardings from the executable (kiln/pjrt/output_shardings.h), and
each result's shards must hold the blocks that sharding says, with the
values XLA:CPU computes (four XLA:CPU devices in the same process).
"""

import pytest

from test_pjrt_plugin import plugin_environment, run_reporting_checks

PROGRAM = r'''
import json, traceback
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

def run(platform):
    mesh = Mesh(np.array(jax.devices(platform)[:4]).reshape(2, 2), ("a", "b"))
    put = lambda a, spec: jax.device_put(a, NamedSharding(mesh, spec))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 4)).astype(np.float32)
    w = rng.standard_normal((4, 6)).astype(np.float32)
    def loss(w, x):
        return jnp.mean(jnp.tanh(x @ w) ** 2)
    cases = {
        "elementwise": (lambda t: jnp.sin(t) * 2, (put(x, P("a", "b")),)),
        "matmul_and_reductions": (lambda t, w: (t @ w, t.sum(0), t.sum()), (put(x, P("a", "b")), put(w, P("b", None)))),
        "gradient": (jax.grad(loss), (put(w, P(None, "b")), put(x, P("a", None)))),
        "loop": (lambda t: jax.lax.fori_loop(0, 3, lambda i, c: jnp.cos(c) + c, t), (put(x, P(None, "a")),)),
    }
    out = {}
    for name, (fn, args) in cases.items():
        results = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
        out[name] = results
    return out

def main():
    kiln, cpu = run("kiln"), run("cpu")
    for name in kiln:
        try:
            problems = []
            for i, (got, want) in enumerate(zip(kiln[name], cpu[name])):
                want = np.asarray(want)
                if not np.allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5):
                    problems.append(f"result {i}: values differ from XLA:CPU's")
                for shard in got.addressable_shards:  # each shard holds the block its sharding names
                    if not np.allclose(np.asarray(shard.data), want[shard.index], rtol=1e-5, atol=1e-5):
                        problems.append(f"result {i}: the shard on {shard.device} is not block {shard.index}")
            detail = "; ".join(problems) or " ".join(str(r.sharding.spec) if hasattr(r.sharding, "spec") else str(r.sharding) for r in kiln[name])
            print(json.dumps({"name": name, "ok": not problems, "detail": detail}), flush=True)
        except Exception:
            print(json.dumps({"name": name, "ok": False, "detail": traceback.format_exc()[-2000:]}), flush=True)
    elementwise = kiln["elementwise"][0].sharding
    print(json.dumps({"name": "elementwise_keeps_the_input_sharding",
                      "ok": getattr(elementwise, "spec", None) == P("a", "b"), "detail": str(elementwise)}), flush=True)

main()
'''

CHECKS = ["elementwise", "matmul_and_reductions", "gradient", "loop", "elementwise_keeps_the_input_sharding"]
_results = {}


def results():
    if not _results:
        _results.update(run_reporting_checks(PROGRAM, plugin_environment(shared_devices=4)))
    return _results


@pytest.mark.parametrize("name", CHECKS)
def test_sharded_jit_without_out_shardings(name):
    got = results()
    assert name in got, f"the subprocess reported nothing for {name}:\n{got['stderr'][-3000:]}"
    assert got[name]["ok"], got[name]["detail"]
